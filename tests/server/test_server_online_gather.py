"""Online evenings that gather their players through the join link (docs/online.md, "An
evening that gathers its players"): made with nobody entered, joined from hand 1, started
by the host, bots filling the tables only then; refused starts and an evening nobody
starts."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from whistkit.server import online
from whistkit.server.app import create_app

from .shared_helpers import make_server
from .test_server_online import BASE, Person, check_seating, organiser_totals, run_evening


def body(**extra: Any) -> dict[str, Any]:
    return {
        "title": "Sunday whist",
        "hands": 2,
        "gather": True,
        "groups": True,
        "seconds_per_hand": 600,
        "level": "beginner",
        **extra,
    }


def test_a_gathered_evening_is_played_from_hand_1(tmp_path: Path) -> None:
    """Nobody is entered; five people join (one of them calling herself "Bot 1"), the
    host starts: bots make two full tables with two of each group, named apart from the
    people; everyone plays both hands, and the totals are the organiser's for the
    tables' records."""
    server = make_server(tmp_path / "games.sqlite3", turn_scale=0.001)

    async def main() -> None:
        ev = await server.evenings.create(online.read_new_evening(body(), "beginner"))
        assert ev.gathering and ev.hands == [] and ev.bots == [] and ev.open_join
        assert not ev.over() and ev.in_play() is None
        room = online.room_json(ev)
        assert room["gathering"] and room["joinable"] and not room["finished"]
        assert room["hands"] == [] and room["current"] is None
        joined = {}
        for name, group in [
            ("Anna", "A"),
            ("Bot 1", "B"),
            ("Einar", "A"),
            ("Dóra", None),
            ("Fríða", "A"),
        ]:
            pid, _ = await server.evenings.join(ev, name, group)
            joined[name] = pid
            assert ev.evening.player(pid).arrives == 1
        assert ev.evening.player(joined["Dóra"]).group == "B"  # the smaller group then
        state = online.player_json(ev, joined["Anna"], BASE)
        assert state["gathering"] and state["joined"] == 5 and "now" not in state
        assert not state["finished"]
        # another copy of the state (a restart, another process) reads it back the same
        again = online.OnlineEvening.from_json(ev.to_json())
        assert again.gathering and [p.name for p in again.evening.players] == list(joined)
        await server.evenings.start_evening(ev)
        assert not ev.gathering and ev.in_play() == 1 and len(ev.hands[0].games) == 2
        names = [ev.name(b) for b in ev.bots]
        assert names == ["Bot 2", "Bot 3", "Bot 4"], names  # one of A, two of B
        room = online.room_json(ev)
        assert not room["gathering"] and room["current"] == 1
        with pytest.raises(online.OnlineError, match="has started already") as e:
            await server.evenings.start_evening(ev)
        assert e.value.status == 409 and e.value.code == "started"
        people = [Person(server, ev, p) for p in sorted(ev.tokens)]
        await run_evening(server, ev, people, random.Random(3))
        totals, done = organiser_totals(server, ev)
        check_seating(server, ev, done)
        room = online.room_json(ev, host=True, base=BASE)
        assert room["finished"] and not room["unplayed"]
        assert {int(k): v for k, v in room["totals"].items()} == totals
        for p in people:  # each joiner sat at a table from hand 1
            assert {s["now"]["hand"] for s in p.states if "now" in s} == {1, 2}
        for hand in done.hands:
            for t in hand.tables:
                assert sorted(ev.evening.player(p).group for p in t.seats) == list("AABB")
        await server.close()

    asyncio.run(main())


def test_an_evening_nobody_starts_ends_unplayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It holds one of the server's evenings while it gathers: its clock ends it once
    its time to gather is past; then nobody joins or starts it."""
    monkeypatch.setattr(online, "GATHER_SECONDS", 0.5)
    server = make_server(tmp_path / "games.sqlite3", turn_scale=1.0)

    async def main() -> None:
        ev = await server.evenings.create(online.read_new_evening(body(), "beginner"))
        pid, _ = await server.evenings.join(ev, "Anna", "A")
        await server.evenings.join(ev, "Bjarni", "B")
        for _ in range(400):
            if ev.over():
                break
            await asyncio.sleep(0.01)
        assert ev.over() and not ev.gathering and ev.hands == []
        assert ev.id not in server.evenings.live
        stored = await server.evenings.get(ev.id)
        assert stored is not None and stored.over() and stored.version == ev.version
        room = online.room_json(stored)
        assert room["finished"] and room["unplayed"] and room["prizes"] == []
        assert not room["joinable"]
        state = online.player_json(stored, pid, BASE)
        assert state["finished"] and state["unplayed"] and "now" not in state
        with pytest.raises(online.OnlineError, match="not started in time") as e:
            await server.evenings.start_evening(stored)
        assert e.value.status == 409
        with pytest.raises(online.OnlineError, match="is over") as e:
            await server.evenings.join(stored, "Dóra", "A")
        assert e.value.status == 409
        for change in (
            server.evenings.remove(stored, pid),
            server.evenings.set_join(stored, False),
        ):
            with pytest.raises(online.OnlineError, match="is over") as e:
                await change
            assert e.value.code == "over"
        assert (await server.evenings.get(ev.id)).version == ev.version  # nothing written
        await server.close()

    asyncio.run(main())


def test_a_restart_keeps_a_gathering_evening(tmp_path: Path) -> None:
    """The joins are stored: a server started again on the same file has the people
    who joined, takes their joins on, and the host starts the evening there."""
    db = tmp_path / "games.sqlite3"

    async def first() -> str:
        server = make_server(db)
        ev = await server.evenings.create(online.read_new_evening(body(), "beginner"))
        await server.evenings.join(ev, "Anna", "A")
        await server.evenings.join(ev, "Bjarni", "B")
        await server.close()
        return ev.id

    async def second(evening_id: str) -> None:
        server = make_server(db)
        await server.evenings.resume()
        ev = server.evenings.live[evening_id]
        assert ev.gathering and [p.name for p in ev.evening.players] == ["Anna", "Bjarni"]
        extra, _ = await server.evenings.join(ev, "Dóra", "A")
        await server.evenings.mark_seen(ev, extra)
        assert await server.evenings.remove(ev, extra) == "Dóra"
        assert extra not in ev.seen and extra not in ev.tokens
        await server.evenings.join(ev, "Dóra", "A")
        await server.evenings.start_evening(ev)
        assert ev.in_play() == 1 and len(ev.bots) == 1
        assert extra not in ev.seen and extra not in {p.id for p in ev.evening.players}
        await server.close()

    asyncio.run(second(asyncio.run(first())))


# -- the HTTP calls ----------------------------------------------------------------------------


@pytest.fixture
def http(tmp_path: Path) -> Any:
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0)
    with TestClient(app) as c:
        yield c


def test_http_gather_join_and_start(http: TestClient) -> None:
    r = http.post("/api/online-evenings", json=body())
    assert r.status_code == 200, r.text
    made = r.json()
    evening, key = made["id"], made["host_url"].split("#k=")[1]
    assert made["players"] == [] and made["join_url"].endswith(f"?join-evening={evening}")
    api = f"/api/online-evenings/{evening}"
    room = http.get(f"{api}/room").json()
    assert room["gathering"] and room["joinable"] and room["players"] == []
    # the host's start: its key, and two people at least
    assert http.post(f"{api}/start").status_code == 403
    assert http.post(f"{api}/start", params={"key": "x"}).status_code == 403
    r = http.post(f"{api}/join", json={"name": "Anna", "group": "A"})
    assert r.status_code == 200 and r.json()["from_hand"] == 1
    token = r.json()["url"].split("#t=")[1]
    r = http.post(f"{api}/start", params={"key": key})
    assert r.status_code == 409 and r.json()["code"] == "too_few"
    assert "at least 2 players are needed to start; 1 so far" in r.json()["error"]
    r = http.post(f"{api}/end-hand", params={"key": key})
    assert r.status_code == 409 and "has not started" in r.json()["error"]
    me = http.get(f"{api}/me", params={"t": token}).json()
    assert me["gathering"] and me["joined"] == 1 and "now" not in me
    assert http.post(f"{api}/join", json={"name": "Bjarni", "group": "B"}).status_code == 200
    r = http.post(f"{api}/start", params={"key": key})
    assert r.status_code == 200 and r.json() == {"hand": 1, "players": 4}
    me = http.get(f"{api}/me", params={"t": token}).json()
    assert me["now"]["hand"] == 1 and "gathering" not in me
    room = http.get(f"{api}/room").json()
    assert room["current"] == 1 and not room["gathering"] and len(room["hands"]) == 1
    r = http.post(f"{api}/start", params={"key": key})
    assert r.status_code == 409 and r.json()["code"] == "started"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"gather": False}, "'players' must be a list of 2 to 520 players"),
        ({"gather": False}, "or set 'gather'"),
        ({"gather": "yes"}, "'gather' must be true or false"),
        ({"open_join": False}, "'gather' needs the open join link"),
        ({"groups": "AB"}, "'groups' must be true or false"),
        ({"players": [{"name": "Anna", "group": None}]}, "'groups' is true but the players"),
        ({"groups": False, "players": [{"name": "Anna", "group": "A"}]}, "'groups' is false"),
        ({"groups": False, "prizes": {"top_per_group": 3}}, "top_per_group needs groups"),
    ],
)
def test_http_gather_refusals_name_what_is_wrong(http: TestClient, change: Any, words: str) -> None:
    r = http.post("/api/online-evenings", json=body(**change))
    assert r.status_code == 400
    assert words in r.json()["error"], r.json()


def test_http_a_gathered_evening_with_some_players_entered(http: TestClient) -> None:
    """The host may enter some (their links as usual) and let the others join."""
    players = [{"name": "Anna", "group": "A"}, {"name": "Bjarni", "group": "B"}]
    made = http.post("/api/online-evenings", json=body(players=players)).json()
    assert [p["name"] for p in made["players"]] == ["Anna", "Bjarni"]
    api = f"/api/online-evenings/{made['id']}"
    assert http.post(f"{api}/join", json={"name": "anna", "group": "A"}).json()["code"] == (
        "name_taken"
    )
    # "joined so far" counts those who came: a joiner, and an entered player once their
    # link is opened, not the names the host typed
    r = http.post(f"{api}/join", json={"name": "Dóra", "group": "B"})
    dora = r.json()["url"].split("#t=")[1]
    key = made["host_url"].split("#k=")[1]
    room = http.get(api, params={"key": key}).json()
    assert [p["name"] for p in room["players"] if not p["absent"]] == ["Dóra"]
    assert http.get(f"{api}/me", params={"t": dora}).json()["joined"] == 1
    anna = made["players"][0]["url"].split("#t=")[1]
    assert http.get(f"{api}/me", params={"t": anna}).json()["joined"] == 2
    room = http.get(api, params={"key": key}).json()
    assert [p["name"] for p in room["players"] if not p["absent"]] == ["Anna", "Dóra"]
    assert http.post(f"{api}/start", params={"key": key}).status_code == 200
    state = http.get(api, params={"key": key}).json()
    assert state["current"] == 1 and len(state["hands"][0]["tables"]) == 1


def test_http_the_host_removes_a_player_while_gathering(http: TestClient) -> None:
    """One who joined twice is removed: their link stops working, their name is free
    again, and the evening starts without them; after the start nobody is removed."""
    made = http.post("/api/online-evenings", json=body()).json()
    api = f"/api/online-evenings/{made['id']}"
    key = made["host_url"].split("#k=")[1]
    links = {}
    for name, group in [("Anna", "A"), ("Anna 2", "A"), ("Bjarni", "B")]:
        r = http.post(f"{api}/join", json={"name": name, "group": group})
        links[name] = r.json()["url"].split("#t=")[1]
    twice = next(p for p in http.get(f"{api}/room").json()["players"] if p["name"] == "Anna 2")
    remove = f"{api}/remove"
    assert http.post(remove, json={"player": twice["id"]}).status_code == 403
    for bad, words in [
        ({"player": "Anna 2"}, "must be a player's id"),
        ({"player": True}, "must be a player's id"),
        ({"who": 2}, 'the body must be {"player": ID}'),
    ]:
        r = http.post(remove, params={"key": key}, json=bad)
        assert r.status_code == 400 and words in r.json()["error"], r.text
    r = http.post(remove, params={"key": key}, json={"player": 99})
    assert r.status_code == 404 and "no player 99" in r.json()["error"]
    r = http.post(remove, params={"key": key}, json={"player": twice["id"]})
    assert r.status_code == 200 and r.json() == {"removed": "Anna 2", "players": 2}
    assert http.get(f"{api}/me", params={"t": links["Anna 2"]}).status_code == 404
    room = http.get(f"{api}/room").json()
    assert [p["name"] for p in room["players"]] == ["Anna", "Bjarni"]
    assert http.post(f"{api}/join", json={"name": "anna 2", "group": "B"}).status_code == 200
    assert http.post(f"{api}/start", params={"key": key}).status_code == 200
    state = http.get(api, params={"key": key}).json()
    seated = {s["name"] for t in state["hands"][0]["tables"] for s in t["seats"].values()}
    assert {"Anna", "anna 2", "Bjarni"} <= seated and "Anna 2" not in seated
    r = http.post(remove, params={"key": key}, json={"player": 1})
    assert r.status_code == 409 and r.json()["code"] == "started"


def test_http_ids_are_never_given_again_and_the_seen_stay_right(http: TestClient) -> None:
    """The last joiner is removed: the next one gets a new id, so a second press of
    Remove (another tab, a retry) names nobody; the state keeps no trace of the removed
    one among those who came."""
    made = http.post("/api/online-evenings", json=body(groups=False)).json()
    api = f"/api/online-evenings/{made['id']}"
    key = made["host_url"].split("#k=")[1]
    for name in ["Anna", "Bjarni", "Dóra", "Einar"]:
        token = http.post(f"{api}/join", json={"name": name, "group": None}).json()["url"]
        assert http.get(f"{api}/me", params={"t": token.split("#t=")[1]}).status_code == 200
    room = http.get(f"{api}/room").json()
    # four joiners without groups would make a table: nothing of it before the start
    assert room["current"] is None and "playing" not in room and room["hands"] == []
    card = http.get(f"{api}/card/1").json()
    assert card["finished"] is False and card["lines"] == []
    assert http.get(f"{api}/records").json()["finished"] is False
    einar = next(p["id"] for p in room["players"] if p["name"] == "Einar")
    remove = f"{api}/remove"
    assert http.post(remove, params={"key": key}, json={"player": einar}).status_code == 200
    state = http.get(api, params={"key": key}).json()
    assert einar not in [p["id"] for p in state["players"]]
    fridas = http.post(f"{api}/join", json={"name": "Fríða", "group": None}).json()
    assert fridas["player"]["id"] == einar + 1
    r = http.post(remove, params={"key": key}, json={"player": einar})
    assert r.status_code == 404  # the old press names nobody now
    assert http.post(f"{api}/start", params={"key": key}).status_code == 200
    state = http.get(api, params={"key": key}).json()
    ids = [p["id"] for p in state["evening"]["players"]]
    assert len(ids) == len(set(ids)) and einar not in ids, ids


def test_http_a_gathering_evening_its_bots_could_not_fill_is_refused(http: TestClient) -> None:
    players = [{"name": f"P{i}", "group": "A"} for i in range(262)]
    r = http.post("/api/online-evenings", json=body(players=players))
    assert r.status_code == 400 and "balance the groups" in r.json()["error"], r.text
