"""Online evenings (issue 34, docs/online.md): a restart in the middle of an evening, the
open join link and the prizes chosen by the host.

The restarts use a real ``whistkit play`` in a subprocess (tests/server/liveserver.py),
stopped and started again on the same SQLite file; what the restarted server did is read
from the file itself, without asking the server about the evening (asking would take it
up again by itself)."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from whistkit.evening import derive
from whistkit.server import online
from whistkit.server.app import create_app
from whistkit.server.limits import Limits
from whistkit.server.shared import SharedTable

from .liveserver import LiveServer
from .shared_helpers import make_server, settle
from .test_server_online import BASE, Person, check_seating, organiser_totals, run_evening

NAMES = ["Anna", "Bjarni", "Dóra", "Einar", "Fríða", "Gunnar", "Helga", "Ingi"]


def body(**extra: Any) -> dict[str, Any]:
    players = [{"name": n, "group": "A" if i % 2 == 0 else "B"} for i, n in enumerate(NAMES)]
    return {
        "title": "Test evening",
        "hands": 2,
        "players": players,
        "seconds_per_hand": 60,
        "level": "beginner",
        **extra,
    }


def post(url: str, data: Any) -> Any:
    request = urllib.request.Request(
        url, json.dumps(data).encode(), {"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def stored(db: Path, evening_id: str) -> online.OnlineEvening:
    """The evening's state as the file holds it now."""
    with sqlite3.connect(db) as con:
        row = con.execute(
            "SELECT state FROM online_evenings WHERE id = ?", (evening_id,)
        ).fetchone()
    return online.OnlineEvening.from_json(row[0])


def wait_for(db: Path, evening_id: str, done: Any, seconds: float = 60) -> online.OnlineEvening:
    """The stored state once ``done(state)`` holds (bounded: a server that never does it
    fails the test after ``seconds``, whatever the machine's speed up to that)."""
    deadline = time.monotonic() + seconds
    while True:
        ev = stored(db, evening_id)
        if done(ev) or time.monotonic() > deadline:
            return ev
        time.sleep(0.05)


def test_a_restart_resumes_the_hands_clock(tmp_path: Path) -> None:
    """The first server makes the evening and stops with hand 1 in play; the second
    starts with the hand's time long past (its time scaled down) and, asked nothing,
    has stand-ins finish hand 1 and seats hand 2."""
    first = LiveServer(tmp_path).start()
    try:
        made = post(first.url + "api/online-evenings", body())
    finally:
        first.stop()
    before = stored(first.db, made["id"])
    assert before.in_play() == 1 and before.evening.results == ()
    # 60 s a hand, scaled: 0.06 s, long past since hand 1 was seated
    second = LiveServer(tmp_path, env={"WHISTKIT_TURN_TIME_SCALE": "0.001"}).start()
    try:
        after = wait_for(first.db, made["id"], lambda ev: len(ev.hands) >= 2)
    finally:
        second.stop()
    assert len(after.hands) >= 2, "the restarted server did not take the evening up"
    assert after.hands[0].finishing
    assert sorted(r.table for r in after.evening.results if r.hand == 1) == [1, 2]


def test_a_table_over_without_its_result_gets_it_at_restart(tmp_path: Path) -> None:
    """Table 1 of hand 1 ends while its result does not reach the evening (the server
    stops in between: here its hook is off); the next server, asked nothing, records
    it from the table's own game, and hand 1 goes on at table 2."""
    db = tmp_path / "games.sqlite3"
    server = make_server(db, turn_scale=1.0)
    made: dict[str, Any] = {}

    async def main() -> None:
        server.tables.on_over = None  # the result never reaches the evening
        ev = await server.evenings.create(online.read_new_evening(body(), "beginner"))
        made["id"] = ev.id
        game = ev.hands[0].games[0]
        table = server.tables.loaded(game)
        assert isinstance(table, SharedTable) and table.shared is not None
        table.shared.finish = True  # stand-ins play it to the end
        await table._save()
        table.wake_bots()
        for _ in range(10_000):
            if table.state.is_over:
                break
            await settle()
        assert table.state.is_over
        made["tricks"] = table.state.results[-1].tricks[0]
        await server.close()

    asyncio.run(main())
    assert stored(db, made["id"]).evening.results == ()
    with LiveServer(tmp_path):
        after = wait_for(db, made["id"], lambda ev: bool(ev.evening.results))
    assert [(r.hand, r.table, r.ns_tricks) for r in after.evening.results] == [
        (1, 1, made["tricks"])
    ]
    assert after.in_play() == 1 and not after.hands[0].finishing


# -- the open join link --------------------------------------------------------------------


def test_a_joiner_plays_from_the_next_hand(tmp_path: Path) -> None:
    """Jón joins during hand 1 (group A): his link names no table until hand 2, then
    he plays hands 2 and 3 at the seats the organiser's rules give him; bots make the
    third table (one of A, two of B); the totals are the organiser's for the records."""
    server = make_server(tmp_path / "games.sqlite3", turn_scale=0.001)

    async def main() -> None:
        ev = await server.evenings.create(
            online.read_new_evening(body(hands=3, open_join=True), "beginner")
        )
        pid, token = await server.evenings.join(ev, "  Jón ", "A")
        assert ev.name(pid) == "Jón" and ev.tokens[pid] == token
        assert ev.evening.player(pid).arrives == 2
        state = online.player_json(ev, pid, BASE)
        assert "now" not in state and state["from_hand"] == 2 and state["total"] == 0
        assert ev.in_play() == 1 and len(ev.hands[0].games) == 2  # hand 1 as it was
        people = [Person(server, ev, p) for p in sorted(ev.tokens)]
        await run_evening(server, ev, people, random.Random(4))
        totals, done = organiser_totals(server, ev)
        room = online.room_json(ev, host=True, base=BASE)
        assert {int(k): v for k, v in room["totals"].items()} == totals
        check_seating(server, ev, done)
        jon = next(p for p in people if p.pid == pid)
        assert {s["now"]["hand"] for s in jon.states if "now" in s} == {2, 3}
        assert done.hand(1).table_of(pid) is None
        for h in (2, 3):
            seated = done.hand(h)
            assert len(seated.tables) == 3
            for t in seated.tables:
                groups = sorted(ev.evening.player(p).group for p in t.seats)
                assert groups == ["A", "A", "B", "B"]
        assert sorted(ev.evening.player(b).group for b in ev.bots) == ["A", "B", "B"]
        assert pid not in room["absent"]
        assert room["finished"] and not room["joinable"]
        await server.close()

    asyncio.run(main())


def test_a_joiner_takes_a_filler_bots_place(tmp_path: Path) -> None:
    """Seven players (four of A, three of B) and one bot of B; Jón joins as B: the bot
    leaves after the hand in play and hand 2 is two tables of people only."""
    server = make_server(tmp_path / "games.sqlite3", turn_scale=0.001)

    async def main() -> None:
        ev = await server.evenings.create(
            online.read_new_evening(body(players=body()["players"][:7], open_join=True), "beginner")
        )
        [bot] = ev.bots
        assert ev.evening.player(bot).group == "B"
        pid, _ = await server.evenings.join(ev, "Jón", "B")
        assert ev.evening.player(bot).leaves == 1 and ev.bots == [bot]
        for _ in range(4000):
            if len(ev.hands) == 2:
                break
            await asyncio.sleep(0.005)
        done = derive(ev.evening)
        seated = {p for t in done.hand(2).tables for p in t.seats}
        assert pid in seated and bot not in seated and len(seated) == 8
        await server.close()

    asyncio.run(main())


def test_a_joiner_without_a_group_goes_to_the_smaller(tmp_path: Path) -> None:
    server = make_server(tmp_path / "games.sqlite3", turn_scale=1.0)

    async def main() -> None:
        players = [{"name": n, "group": "A" if n != "Bjarni" else "B"} for n in NAMES[:5]]
        ev = await server.evenings.create(
            online.read_new_evening(body(players=players, open_join=True), "beginner")
        )
        pid, _ = await server.evenings.join(ev, "Jón", None)
        assert ev.evening.player(pid).group == "B"
        # no groups: the server's own halves, the smaller one
        ev2 = await server.evenings.create(
            online.read_new_evening(
                body(players=[{"name": n, "group": None} for n in NAMES[:3]], open_join=True),
                "beginner",
            )
        )
        pid2, _ = await server.evenings.join(ev2, "Jón", "A")  # not theirs to choose
        assert ev2.evening.player(pid2).group == "B"
        await server.close()

    asyncio.run(main())


def test_joins_are_bounded_by_the_servers_players(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = make_server(tmp_path / "games.sqlite3", turn_scale=1.0)

    async def main() -> None:
        ev = await server.evenings.create(online.read_new_evening(body(open_join=True), "beginner"))
        monkeypatch.setattr(online, "MAX_LIVE_PLAYERS", 11)  # Jón brings three bots
        with pytest.raises(online.OnlineError, match="at most 11 can play at once") as e:
            await server.evenings.join(ev, "Jón", "A")
        assert e.value.status == 503
        assert len(ev.evening.players) == 8 and len(ev.tokens) == 8
        monkeypatch.setattr(online, "MAX_LIVE_PLAYERS", 12)
        await server.evenings.join(ev, "Jón", "A")
        assert len(ev.evening.players) == 12
        await server.close()

    asyncio.run(main())


@pytest.fixture
def http(tmp_path: Path) -> Any:
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0, limits=Limits(new_games_per_minute=2))
    with TestClient(app) as c:
        yield c


def test_http_open_join_link(http: TestClient) -> None:
    made = http.post("/api/online-evenings", json=body(hands=3, open_join=True)).json()
    evening = made["id"]
    key = made["host_url"].split("#k=")[1]
    assert made["join_url"] == f"http://127.0.0.1/?join-evening={evening}"
    room = http.get(f"/api/online-evenings/{evening}/room").json()
    assert room["open_join"] and room["joinable"] and room["grouped"]
    r = http.post(f"/api/online-evenings/{evening}/join", json={"name": "Jón", "group": "B"})
    assert r.status_code == 200, r.text
    joined = r.json()
    assert joined["player"] == {"id": 9, "name": "Jón", "group": "B"}
    assert joined["from_hand"] == 2
    assert joined["url"].startswith(f"http://127.0.0.1/?evening={evening}#t=")
    token = joined["url"].split("#t=")[1]
    me = http.get(f"/api/online-evenings/{evening}/me", params={"t": token}).json()
    assert me["player"]["name"] == "Jón" and me["from_hand"] == 2 and "now" not in me
    host = http.get(f"/api/online-evenings/{evening}", params={"key": key}).json()
    assert "Jón" in [link["name"] for link in host["links"]]
    assert token not in http.get(f"/api/online-evenings/{evening}/room").text
    # the host closes the link: joins are refused, the room no longer shows it
    path = f"/api/online-evenings/{evening}/join-link"
    assert http.post(path, json={"open": False}).status_code == 403
    assert http.post(path, params={"key": "x"}, json={"open": False}).status_code == 403
    bad = http.post(path, params={"key": key}, json={"open": "no"})
    assert bad.status_code == 400 and '{"open": true}' in bad.json()["error"]
    shut = http.post(path, params={"key": key}, json={"open": False})
    assert shut.json()["open_join"] is False
    room = http.get(f"/api/online-evenings/{evening}/room").json()
    assert not room["open_join"] and not room["joinable"]
    r = http.post(f"/api/online-evenings/{evening}/join", json={"name": "Kári"})
    assert r.status_code == 403 and "closed" in r.json()["error"]
    assert http.post(path, params={"key": key}, json={"open": True}).json()["open_join"]
    r = http.post(f"/api/online-evenings/{evening}/join", json={"name": "Kári"})
    assert r.status_code == 200 and r.json()["player"]["group"] == "A"  # the smaller


@pytest.mark.parametrize(
    ("join", "status", "words"),
    [
        ({"name": "anna"}, 400, "the name 'anna' is taken in this evening"),
        ({"name": ""}, 400, "'name' is empty"),
        ({"name": "x" * 25}, 400, "at most 24"),
        ({"name": "Jón", "group": "C"}, 400, '\'group\' must be "A", "B" or null'),
        ({"name": "Jón", "seat": "N"}, 400, "unknown field 'seat'"),
        ([1], 400, "JSON object"),
    ],
)
def test_http_join_refusals_name_what_is_wrong(
    http: TestClient, join: Any, status: int, words: str
) -> None:
    made = http.post("/api/online-evenings", json=body(open_join=True)).json()
    r = http.post(f"/api/online-evenings/{made['id']}/join", json=join)
    assert r.status_code == status, r.text
    assert words in r.json()["error"], r.json()
    assert r.json().get("code") == ("name_taken" if "taken" in words else None)


def test_http_join_closed_by_default_and_at_the_last_hand(http: TestClient) -> None:
    made = http.post("/api/online-evenings", json=body(hands=1)).json()
    r = http.post(f"/api/online-evenings/{made['id']}/join", json={"name": "Jón"})
    assert r.status_code == 403 and made["join_url"] is None
    assert r.json()["code"] == "closed"  # the page's own words for it
    key = made["host_url"].split("#k=")[1]
    http.post(
        f"/api/online-evenings/{made['id']}/join-link", params={"key": key}, json={"open": True}
    )
    r = http.post(f"/api/online-evenings/{made['id']}/join", json={"name": "Jón"})
    assert r.status_code == 409 and "no hand left to join" in r.json()["error"]
    assert r.json()["code"] == "no_hand_left"


def test_http_joins_per_address_are_bounded(http: TestClient) -> None:
    # two joins a minute, in bursts of four (--new-games-per-minute 2), per address
    made = http.post("/api/online-evenings", json=body(open_join=True)).json()
    codes = [
        http.post(f"/api/online-evenings/{made['id']}/join", json={"name": f"J{i}"}).status_code
        for i in range(5)
    ]
    assert codes == [200, 200, 200, 200, 429]
    r = http.post(f"/api/online-evenings/{made['id']}/join", json={"name": "J9"})
    assert "too many joins from your address" in r.json()["error"]
    assert int(r.headers["retry-after"]) >= 1


def test_http_join_when_the_evening_is_full(http: TestClient) -> None:
    many = [{"name": f"P{i}", "group": "AB"[i % 2]} for i in range(online.MAX_PLAYERS)]
    made = http.post("/api/online-evenings", json=body(players=many, open_join=True)).json()
    r = http.post(f"/api/online-evenings/{made['id']}/join", json={"name": "Jón"})
    assert r.status_code == 409 and "the evening is full" in r.json()["error"]


# -- the prizes chosen by the host ---------------------------------------------------------

CHOSEN = {
    "top": 2,
    "top_per_group": 1,
    "lowest": False,
    "lowest_per_group": True,
    "longest_at_table": False,
    "ten_tricks": True,
    "one_each": True,
    "ties": "countback",
}


def test_http_prizes_chosen_by_the_host(http: TestClient) -> None:
    made = http.post("/api/online-evenings", json=body(prizes=CHOSEN)).json()
    key = made["host_url"].split("#k=")[1]
    state = http.get(f"/api/online-evenings/{made['id']}", params={"key": key}).json()
    prizes = state["evening"]["config"]["prizes"]
    assert {k: prizes[k] for k in CHOSEN} == CHOSEN
    # none chosen: the default prizes (the top three of each group)
    made = http.post("/api/online-evenings", json=body()).json()
    key = made["host_url"].split("#k=")[1]
    state = http.get(f"/api/online-evenings/{made['id']}", params={"key": key}).json()
    assert state["evening"]["config"]["prizes"]["top_per_group"] == 3


@pytest.mark.parametrize(
    ("prizes", "words"),
    [
        (3, "'prizes' must be an object"),
        ({"best": 1}, "unknown prize field 'best'"),
        ({"top": 99}, "prizes.top must be a whole number 0 to"),
        ({"top": True}, "prizes.top must be a whole number"),
        ({"lowest": 1}, "prizes.lowest must be true or false"),
        ({"ties": "coin"}, "prizes.ties must be one of"),
    ],
)
def test_http_prizes_refused_as_the_hall_refuses_them(
    http: TestClient, prizes: Any, words: str
) -> None:
    r = http.post("/api/online-evenings", json=body(prizes=prizes))
    assert r.status_code == 400
    assert words in r.json()["error"], r.json()


def test_http_group_prizes_need_groups(http: TestClient) -> None:
    players = [{"name": n, "group": None} for n in NAMES]
    r = http.post("/api/online-evenings", json=body(players=players, prizes={"top": 3}))
    assert r.status_code == 400 and "top_per_group needs groups" in r.json()["error"]
    r = http.post(
        "/api/online-evenings",
        json=body(players=players, prizes={"top": 3, "top_per_group": 0}),
    )
    assert r.status_code == 200, r.text


def test_the_prizes_given_are_the_hosts(tmp_path: Path) -> None:
    """Nobody comes, stand-ins play two hands: the prizes at the end are the host's
    categories only (the top two of the room, the most hands of 10+ points)."""
    server = make_server(tmp_path / "games.sqlite3", turn_scale=0.001)

    async def main() -> None:
        chosen = {
            "top": 2,
            "top_per_group": 0,
            "lowest": False,
            "longest_at_table": False,
            "ten_tricks": True,
        }
        ev = await server.evenings.create(
            online.read_new_evening(body(hands=2, prizes=chosen), "beginner")
        )
        for _ in range(4000):
            if derive(ev.evening).finished:
                break
            await asyncio.sleep(0.005)
        room = online.room_json(ev)
        assert room["finished"]
        assert {z["category"] for z in room["prizes"]} <= {"top", "ten_tricks"}
        assert {z["category"] for z in room["prizes"]} >= {"top"}
        assert set(room["leaderboard"]) == {"A", "B"}  # the host gave groups
        await server.close()

    asyncio.run(main())
