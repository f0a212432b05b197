"""Online evenings (issue 34): a whole félagsvist evening on shared tables, its moves
driven by the tables' results, checked against the hall organiser's rules.

The people are in-process connections (tests/server/shared_helpers.py), each finding
its table from its personal link's state as the page does, joining it and playing
random lawful cards; bots of level beginner fill the filler seats and stand in for the
absent. The evening's totals are checked against the organiser's rules applied to the
tables' own records, not to what the server says it stored."""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from whistkit.evening import Evening, Result, derive
from whistkit.record import loads, replay
from whistkit.server import online
from whistkit.server.app import Server, create_app
from whistkit.server.shared import SharedTable
from whistkit.server.store import StoreError

from .shared_helpers import Client, make_server, settle

BASE = "http://127.0.0.1:8000/"
NAMES = ["Anna", "Bjarni", "Dóra", "Einar", "Fríða", "Gunnar", "Helga", "Ingi"]


def body(**extra: Any) -> dict[str, Any]:
    players = [{"name": n, "group": "A" if i % 2 == 0 else "B"} for i, n in enumerate(NAMES)]
    return {
        "title": "Test evening",
        "hands": 3,
        "players": players,
        "seconds_per_hand": 600,
        "duplicate": False,
        "level": "beginner",
        **extra,
    }


class Person:
    """One player of the evening: their personal token and their connection."""

    def __init__(self, server: Server, ev: online.OnlineEvening, pid: int) -> None:
        self.server = server
        self.ev = ev
        self.pid = pid
        self.token = ev.tokens[pid]
        self.client = Client(server, ev.name(pid))
        self.game: str | None = None
        self.states: list[dict[str, Any]] = []  # what the personal link's state said

    async def look(self) -> dict[str, Any]:
        """The personal link's state, as ``GET /api/online-evenings/ID/me`` gives it."""
        ev = await self.server.evenings.get(self.ev.id)
        assert ev is not None
        await self.server.evenings.mark_seen(ev, self.pid)
        state = online.player_json(ev, self.pid, BASE)
        self.states.append(state)
        return state

    async def follow(self) -> None:
        """Join the table the link names, if it is not the one joined."""
        state = await self.look()
        now = state.get("now")
        if now is None or now["game"] == self.game:
            return
        answer = await self.client.join(now["game"], now["seat"], now["token"], name=None)
        assert answer["type"] == "state", answer
        self.game = now["game"]

    def leave(self) -> None:
        self.client.conn.close()
        self.game = None


async def act(people: list[Person], server: Server, rng: random.Random) -> bool:
    """Each person to act plays a random lawful card; True if anyone did."""
    acted = False
    for p in people:
        c = p.client
        c.drain()
        view = c.view
        if p.game is None or view is None:
            continue
        table = server.tables.loaded(p.game)
        if table is None or table.state.is_over:
            continue
        if view["to_play"] != c.seat or not view["legal"] or c.v <= c.acted_at:
            continue
        if c.v != table.version:
            continue
        msg = dict(rng.choice(view["legal"]))
        msg["v"] = c.v
        c.acted_at = c.v
        answer = await c.ask(msg)
        # a stand-in may act first (the turn's time is scaled down): refused, not stored
        assert answer["type"] == "ack" or answer.get("code") in ("stale", "game_over"), answer
        acted = True
    return acted


async def run_evening(
    server: Server,
    ev: online.OnlineEvening,
    people: list[Person],
    rng: random.Random,
    before_hand: Any = None,
    steps: int = 100_000,
) -> None:
    """Everyone follows their link and plays until the evening is over;
    ``before_hand(hand, people)`` may change who is there as each hand begins."""
    seen_hand = 0
    for _ in range(steps):
        done = derive(ev.evening)
        if done.finished:
            await settle()
            for p in people:
                await p.look()  # the page's last look: the evening's end
            return
        if done.current != seen_hand:
            seen_hand = done.current or 0
            if before_hand is not None:
                # the new hand's tables are kept live by tasks its seating started (the
                # evening's state may be seen first): let them run before looking
                await settle()
                before_hand(seen_hand, people)
        for p in people:
            await p.follow()
        if not await act(people, server, rng):
            await settle(2)
    raise AssertionError("the evening did not end")


def organiser_totals(server: Server, ev: online.OnlineEvening) -> tuple[dict[int, float], Any]:
    """The organiser's totals from the tables' records: the evening's config and
    players with each table's N-S tricks read from its record."""
    results = []
    for h, hand in enumerate(ev.hands, start=1):
        for t, game in enumerate(hand.games, start=1):
            row = server.store.get(game)
            assert row is not None and row.finished and row.record
            final = replay(loads(row.record))
            assert len(final.results) == 1 and final.results[0].number == h
            results.append(Result(h, t, final.results[0].tricks[0]))
    truth = Evening(ev.evening.config, ev.evening.players, tuple(results), (), True)
    done = derive(truth)
    return dict(done.totals), done


def check_seating(server: Server, ev: online.OnlineEvening, done: Any) -> None:
    """Every table's game seated the players the organiser's rules seat there."""
    for h, hand in enumerate(ev.hands, start=1):
        for t, game in enumerate(hand.games, start=1):
            record = loads(server.store.get(game).record)  # type: ignore[union-attr]
            seated = done.hand(h).table(t).seats
            for seat, pid in enumerate(seated):
                name = ev.name(pid)
                if pid in ev.bots:
                    assert record.players[seat].startswith("Bot"), (h, t, seat)
                else:
                    assert record.players[seat] == name, (h, t, seat, record.players)


@pytest.fixture
def server(tmp_path: Path) -> Server:
    return make_server(tmp_path / "games.sqlite3", turn_scale=0.001)


def test_eight_players_two_tables_three_hands(server: Server) -> None:
    async def main() -> None:
        ev = await server.evenings.create(online.read_new_evening(body(), "beginner"))
        assert ev.bots == []
        people = [Person(server, ev, pid) for pid in sorted(ev.tokens)]
        first = server.tables.loaded(ev.hands[0].games[0])
        assert isinstance(first, SharedTable) and first.shared is not None
        watcher = Client(server, "Watcher")
        await watcher.watch(first.id, first.shared.watch_token)
        await run_evening(server, ev, people, random.Random(1))
        totals, done = organiser_totals(server, ev)
        room = online.room_json(ev, host=True)
        assert room["finished"]
        assert {int(k): v for k, v in room["totals"].items()} == totals
        assert sum(totals.values()) == 3 * 2 * 13 * 2  # 13 points a table to two a side
        check_seating(server, ev, done)
        # each page was told its hand's table, and after it whether it won
        for p in people:
            hands = {s["now"]["hand"] for s in p.states if "now" in s}
            assert hands == {1, 2, 3}
            lasts = {s["last"]["hand"]: s["last"] for s in p.states if "last" in s}
            assert set(lasts) == {1, 2, 3}
            for h, last in lasts.items():
                table = done.hand(h).table_of(p.pid)
                assert last["table"] == table.table
                assert last["won"] == (table.winner == table.side_of(p.pid))
        # the movement happened: somebody changed table or partner after hand 1
        first = {p.pid: done.hand(1).table_of(p.pid).partner_of(p.pid) for p in people}
        second = {p.pid: done.hand(2).table_of(p.pid).partner_of(p.pid) for p in people}
        assert first != second
        assert room["absent"] == []
        # the finished tables told their people when the next hand was seated, and
        # where they sit now: each person's own link's state, with their new seat's
        # token (on their own socket only), and at the end their total
        for p in people:
            p.client.drain()
            nexts = [m for m in p.client.log if m["type"] == "evening_next"]
            assert [m["hand"] for m in nexts] == [2, 3, None], (p.pid, nexts)
            for m in nexts:
                me = m["me"]
                assert me["player"]["id"] == p.pid
                if m["hand"] is None:
                    assert me["finished"] and "now" not in me
                    assert me["total"] == totals[p.pid]
                    continue
                t = done.hand(m["hand"]).table_of(p.pid)
                assert me["now"]["game"] == ev.hands[m["hand"] - 1].games[t.table - 1]
                assert me["now"]["seat"] == t.seat_of(p.pid)
                tokens = ev.hands[m["hand"] - 1].tokens[t.table - 1]
                assert me["now"]["token"] == tokens[t.seat_of(p.pid)]
        # a watcher of a table hears the word alone: no one's seat, no token
        watcher.drain()
        watched = [m for m in watcher.log if m["type"] == "evening_next"]
        assert [m["hand"] for m in watched] == [2] and "me" not in watched[0]
        # the stored state is the evening's (the results of a burst are stored together)
        stored = server.store.online_evening(ev.id)
        assert stored is not None
        assert online.OnlineEvening.from_json(stored[0]).evening == ev.evening
        await server.close()

    asyncio.run(main())


def test_absent_late_and_leaving_players(server: Server) -> None:
    """Einar never comes (a bot plays all his hands; he is listed absent), Bjarni leaves
    after hand 1, Helga joins after hand 1: every table still plays its four hands, and
    the totals are the organiser's for the tables' records."""

    async def main() -> None:
        ev = await server.evenings.create(online.read_new_evening(body(), "beginner"))
        by_name = {ev.name(pid): pid for pid in ev.tokens}
        never, leaves, late = by_name["Einar"], by_name["Bjarni"], by_name["Helga"]
        everyone = [Person(server, ev, pid) for pid in sorted(ev.tokens)]
        there = [p for p in everyone if p.pid not in (never, late)]
        gone: list[Person] = []

        def before_hand(hand: int, people: list[Person]) -> None:
            if hand == 2:
                leaver = next(p for p in people if p.pid == leaves)
                leaver.leave()
                people.remove(leaver)
                gone.append(leaver)
                people.append(next(p for p in everyone if p.pid == late))

        await run_evening(server, ev, there, random.Random(2), before_hand)
        totals, done = organiser_totals(server, ev)
        room = online.room_json(ev, host=True)
        assert {int(k): v for k, v in room["totals"].items()} == totals
        check_seating(server, ev, done)
        assert room["absent"] == [never]
        assert [p["name"] for p in room["players"] if p["absent"]] == ["Einar"]
        # every hand has both tables played to the end, four hands each
        for hand in ev.hands:
            for game in hand.games:
                assert len(server.store.actions(game)) == 1 + 52
        # the late player played hand 2 and 3 at their seat, not hand 1's
        late_person = next(p for p in everyone if p.pid == late)
        assert {s["now"]["hand"] for s in late_person.states if "now" in s} == {2, 3}
        # the leaver's seats at hands 2 and 3 were held by stand-ins: their tables
        # finished with nobody at that seat
        for h in (2, 3):
            t = done.hand(h).table_of(leaves)
            table = server.tables.loaded(ev.hands[h - 1].games[t.table - 1])
            assert isinstance(table, SharedTable)
            assert not table.connected("NESW".index(t.seat_of(leaves)))
        await server.close()

    asyncio.run(main())


class Unrecorded(Person):
    """A person whose opening of their link was never stored (the process that saw it
    was paused past its lease, or restarted within the save delay)."""

    async def look(self) -> dict[str, Any]:
        ev = await self.server.evenings.get(self.ev.id)
        assert ev is not None
        state = online.player_json(ev, self.pid, BASE)
        self.states.append(state)
        return state


def test_a_person_at_their_table_is_not_taken_for_absent(server: Server) -> None:
    """Gunnar's opening of his link was lost, but he played hand 1 at his table to its
    end: hand 2 counts him as come (listed present, his seat waiting for him, not played
    by a stand-in at once); Einar never comes: a stand-in plays his seat at once."""

    async def main() -> None:
        ev = await server.evenings.create(online.read_new_evening(body(hands=2), "beginner"))
        by_name = {ev.name(pid): pid for pid in ev.tokens}
        lost, never = by_name["Gunnar"], by_name["Einar"]
        people = [
            (Unrecorded if pid == lost else Person)(server, ev, pid)
            for pid in sorted(ev.tokens)
            if pid != never
        ]
        checked: list[int] = []

        def before_hand(hand: int, _: list[Person]) -> None:
            if hand != 2:
                return
            assert lost in ev.seen and never not in ev.seen, ev.seen
            for pid, away in ((lost, False), (never, True)):
                t = derive(ev.evening).hand(2).table_of(pid)
                assert t is not None
                table = server.tables.loaded(ev.hands[1].games[t.table - 1])
                assert isinstance(table, SharedTable)
                assert ("NESW".index(t.seat_of(pid)) in table.away) is away, (pid, table.away)
                checked.append(pid)

        await run_evening(server, ev, people, random.Random(3), before_hand)
        assert checked == [lost, never]
        assert online.room_json(ev, host=True)["absent"] == [never]
        await server.close()

    asyncio.run(main())


def test_filler_bots_make_full_tables(server: Server) -> None:
    """Five players without groups: the organiser seats two tables, three bots fill
    them; every game is four hands played, the bots get no prize."""

    async def main() -> None:
        players = [{"name": n, "group": None} for n in NAMES[:5]]
        ev = await server.evenings.create(
            online.read_new_evening(body(players=players, hands=2), "beginner")
        )
        assert len(ev.bots) == 3 and len(ev.evening.players) == 8
        people = [Person(server, ev, pid) for pid in sorted(ev.tokens)]
        await run_evening(server, ev, people, random.Random(3))
        totals, done = organiser_totals(server, ev)
        room = online.room_json(ev, host=True)
        assert {int(k): v for k, v in room["totals"].items()} == totals
        check_seating(server, ev, done)
        assert set(room["leaderboard"]) == {"all"}
        # the organiser's prizes less those a bot shares (the deals are random: a bot
        # may be among the winners of every prize, and then there is none)
        bots = {ev.name(b) for b in ev.bots}
        given = [[ev.name(p) for p in z.players] for z in done.prizes]
        assert given, "the organiser awards prizes"
        assert [z["players"] for z in room["prizes"]] == [g for g in given if not set(g) & bots]
        await server.close()

    asyncio.run(main())


def test_hand_time_up_stand_ins_finish(tmp_path: Path) -> None:
    """Nobody plays (the turn's time is real: 30 s): when the hand's time is up,
    stand-ins finish every table and the next hand is seated by itself (the hand's
    clock, scaled for the test)."""
    server = make_server(tmp_path / "games.sqlite3", turn_scale=1.0)

    async def main() -> None:
        server.evenings.time_scale = 0.0005  # 60 s a hand: 30 ms
        ev = await server.evenings.create(
            online.read_new_evening(body(hands=2, seconds_per_hand=60), "beginner")
        )
        people = [Person(server, ev, pid) for pid in sorted(ev.tokens)]
        for p in people:
            await p.follow()  # they sit down, and never play a card
        for _ in range(4000):
            if derive(ev.evening).finished:
                break
            for p in people:
                await p.follow()
            await asyncio.sleep(0.005)
        assert derive(ev.evening).finished
        assert all(h.finishing for h in ev.hands)
        totals, _ = organiser_totals(server, ev)
        assert {int(k): v for k, v in online.room_json(ev)["totals"].items()} == totals
        await server.close()

    asyncio.run(main())


def test_nobody_comes_stand_ins_play_every_table(server: Server) -> None:
    """No link is ever opened: stand-ins play every seat after the turn's grace (a
    shared table with nobody at it would wait; an evening's table does not)."""

    async def main() -> None:
        ev = await server.evenings.create(online.read_new_evening(body(hands=2), "beginner"))
        for _ in range(4000):
            if derive(ev.evening).finished:
                break
            await asyncio.sleep(0.005)
        assert derive(ev.evening).finished
        room = online.room_json(ev)
        assert sorted(room["absent"]) == sorted(ev.tokens)
        # a finished evening is read from the store once, then kept with its derivation
        kept = await server.evenings.get(ev.id)
        assert kept is not None and kept is not ev and kept.evening == ev.evening
        assert await server.evenings.get(ev.id) is kept
        totals, _ = organiser_totals(server, ev)
        assert {int(k): v for k, v in room["totals"].items()} == totals
        await server.close()

    asyncio.run(main())


@pytest.mark.parametrize("duplicate", [True, False])
def test_duplicate_same_deal_at_every_table(server: Server, duplicate: bool) -> None:
    """Duplicate: every table of a hand plays the same deal from the same dealer (and
    the next hand another deal); without it, each table its own."""

    async def main() -> None:
        ev = await server.evenings.create(
            online.read_new_evening(body(hands=2, duplicate=duplicate), "beginner")
        )
        for _ in range(4000):
            if derive(ev.evening).finished:
                break
            await asyncio.sleep(0.005)
        assert derive(ev.evening).finished
        deals = []
        for hand in ev.hands:
            played = set()
            for game in hand.games:
                record = loads(server.store.get(game).record)  # type: ignore[union-attr]
                played.add((record.hands[0].dealer, record.hands[0].hands))
            assert len(played) == (1 if duplicate else len(hand.games))
            # the same deal, not the same bots: each table's stand-ins have their own
            # randomness
            secrets_of = {server.store.get(g).secret for g in hand.games}  # type: ignore[union-attr]
            assert len(secrets_of) == len(hand.games)
            deals.append(played)
        assert deals[0] != deals[1]
        # once a hand is over its tables' games are named (the comparison page opens them)
        assert all(t["game"] for h in online.room_json(ev)["hands"] for t in h["tables"])
        # the deals' seed material is the server's own
        text = json.dumps(online.room_json(ev, host=True, base=BASE))
        assert ev.secret not in text
        await server.close()

    asyncio.run(main())


def test_no_link_names_a_table_before_it_is_stored(tmp_path: Path) -> None:
    """While the result that completes a hand is being stored with the next hand's
    tables, the links still name the hand in play: a page sent to a table not yet
    stored would be told it is unknown."""
    server = make_server(tmp_path / "games.sqlite3", turn_scale=1.0)

    async def main() -> None:
        ev = await server.evenings.create(online.read_new_evening(body(hands=2), "beginner"))
        first, second = ev.hands[0].games
        await server.evenings.result(ev.id, first, 7, [])
        gate = asyncio.Event()
        real = server.store.submit_async

        def held(ops: Any, fence: Any = None, expect: Any = None) -> Any:
            stored = real(ops, fence, expect)

            async def later() -> None:
                await gate.wait()
                await stored

            return asyncio.ensure_future(later())

        server.store.submit_async = held  # type: ignore[method-assign]
        task = asyncio.ensure_future(server.evenings.result(ev.id, second, 6, []))
        await settle()
        assert not task.done()
        for pid in ev.tokens:
            now = online.player_json(ev, pid, BASE).get("now")
            assert now is not None and now["hand"] == 1
            assert server.store.get(now["game"]) is not None
        gate.set()
        await task
        for pid in ev.tokens:
            now = online.player_json(ev, pid, BASE)["now"]
            assert now["hand"] == 2 and server.store.get(now["game"]) is not None
        await server.close()

    asyncio.run(main())


def test_live_evenings_and_players_are_bounded(tmp_path: Path) -> None:
    server = make_server(tmp_path / "games.sqlite3", turn_scale=1.0)

    async def main() -> None:
        many = [{"name": f"P{i}", "group": "AB"[i % 2]} for i in range(520)]
        for _ in range(online.MAX_LIVE_PLAYERS // 520):
            await server.evenings.create(online.read_new_evening(body(players=many), "club"))
        with pytest.raises(online.OnlineError, match="at most 2000 can play at once"):
            await server.evenings.create(online.read_new_evening(body(players=many), "club"))
        await server.close()

    asyncio.run(main())


# -- the HTTP calls ----------------------------------------------------------------------------


@pytest.fixture
def http(tmp_path: Path) -> Any:
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0)
    with TestClient(app) as c:
        yield c


def test_http_create_read_and_links(http: TestClient) -> None:
    r = http.post("/api/online-evenings", json=body())
    assert r.status_code == 200, r.text
    made = r.json()
    assert set(made) >= {"id", "host_url", "room_url", "players"}
    assert [p["name"] for p in made["players"]] == NAMES
    token = made["players"][0]["url"].split("#t=")[1]
    assert made["players"][0]["url"].startswith("http://127.0.0.1/?evening=")
    key = made["host_url"].split("#k=")[1]
    # the host's state: each hand's seating and every player's total
    state = http.get(f"/api/online-evenings/{made['id']}", params={"key": key}).json()
    assert state["current"] == 1 and len(state["hands"]) == 1
    assert len(state["hands"][0]["tables"]) == 2
    assert set(state["totals"].values()) == {0}
    # no table's game id while its hand is played (its record would show the deal)
    assert all(t["game"] is None for t in state["hands"][0]["tables"])
    assert state["absent"] == list(range(1, 9))
    # without the key, or with another: refused; the room is public but has no tokens
    assert http.get(f"/api/online-evenings/{made['id']}").status_code == 403
    assert http.get(f"/api/online-evenings/{made['id']}?key=x").status_code == 403
    room = http.get(f"/api/online-evenings/{made['id']}/room")
    assert room.status_code == 200 and token not in room.text and key not in room.text
    # a player's link: their table, seat and the seat's token; marked as come
    me = http.get(f"/api/online-evenings/{made['id']}/me", params={"t": token}).json()
    assert me["player"]["name"] == "Anna" and me["now"]["hand"] == 1
    assert set(me["now"]) >= {"table", "seat", "partner", "game", "token"}
    state = http.get(f"/api/online-evenings/{made['id']}", params={"key": key}).json()
    assert state["absent"] == list(range(2, 9))  # Anna (1) has come; the others not yet
    assert http.get(f"/api/online-evenings/{made['id']}/me?t=nope").status_code == 404
    assert http.get("/api/online-evenings/ffffffffffff/room").status_code == 404
    # the host ends hand 1: stand-ins finish it
    assert http.post(f"/api/online-evenings/{made['id']}/end-hand").status_code == 403
    ended = http.post(f"/api/online-evenings/{made['id']}/end-hand", params={"key": key})
    assert ended.json() == {"hand": 1, "finishing": True}


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"hands": 25}, "'hands' must be a whole number from 1 to 24"),
        ({"hands": 0}, "'hands' must be"),
        ({"hands": True}, "'hands' must be"),
        ({"players": []}, "'players' must be a list of 2 to 520 players"),
        ({"players": [{"name": "A"}] * 521}, "not 521 of them"),
        ({"players": [{"name": "Anna"}, {"name": "anna"}]}, "is used twice"),
        ({"players": [{"name": "Anna", "group": "C"}, {"name": "B"}]}, "'group' must be"),
        ({"players": [{"name": "Anna", "group": "A"}, {"name": "B"}]}, "or none of them"),
        ({"players": [{"name": ""}, {"name": "B"}]}, "player 1: 'name' is empty"),
        ({"players": [{"name": "x" * 25}, {"name": "B"}]}, "at most 24"),
        ({"players": [{"name": "Anna", "age": 3}, {"name": "B"}]}, "player 1 must be"),
        ({"seconds_per_hand": 5}, "'seconds_per_hand' must be a whole number from 60 to 3600"),
        ({"duplicate": "yes"}, "'duplicate' must be true or false"),
        ({"level": "god"}, "unknown bot level"),
        ({"title": ""}, "'title' must be a text of 1 to 80"),
        ({"colour": 3}, "unknown field 'colour'"),
        (
            {"players": [{"name": f"P{i}", "group": "A"} for i in range(300)]},
            "need 300 bots to fill their tables",
        ),
    ],
)
def test_http_refusals_name_what_is_wrong(http: TestClient, change: Any, words: str) -> None:
    r = http.post("/api/online-evenings", json=body(**change))
    assert r.status_code == 400
    assert words in r.json()["error"], r.json()


def test_http_refuses_non_json(http: TestClient) -> None:
    r = http.post("/api/online-evenings", content=b"[", headers={"content-type": "text/plain"})
    assert r.status_code == 415
    r = http.post("/api/online-evenings", json=[1])
    assert r.status_code == 400 and "JSON object" in r.json()["error"]


def test_the_store_keeps_the_newest_state_of_an_evening(any_db: str | Path) -> None:
    """Migration 3 in SQLite and PostgreSQL alike: an evening's state is inserted, then
    replaced by newer versions only (an older write, e.g. from a process that lost a
    race, changes nothing)."""
    from whistkit.server.database import open_store

    store = open_store(any_db)
    try:
        assert store.online_evening("e1") is None
        store.write([store.evening_op("e1", '{"v": 1}', 1)])
        store.write([store.evening_op("e1", '{"v": 3}', 3)])
        store.write([store.evening_op("e1", '{"v": 2}', 2)])
        assert store.online_evening("e1") == ('{"v": 3}', 3)
        store.write([store.evening_op("e2", '{"v": 1}', 1)])
        assert store.online_evening("e2") == ('{"v": 1}', 1)
    finally:
        store.close()


def test_an_evening_s_changes_from_several_processes_are_never_lost(
    any_db: str | Path,
) -> None:
    """Several processes (here: four stores on one database, each with its own writer)
    change one evening at once, each a compare-and-set on the version it read: a write
    whose version was overtaken is refused whole (Stale: nothing of it stored, its other
    statements neither) and made again on the new state, so no change is lost."""
    import threading

    from whistkit.server.database import open_store
    from whistkit.server.store import Stale

    stores = [open_store(any_db) for _ in range(4)]
    try:
        stores[0].write([stores[0].evening_op("e1", "[]", 1)])
        refused = [0] * len(stores)

        def worker(n: int) -> None:
            store = stores[n]
            for i in range(10):
                while True:
                    row = store.online_evening("e1")
                    assert row is not None
                    state, version = json.loads(row[0]), row[1]
                    ops = [
                        store.evening_op(f"side{n}-{i}-{version}", "[]", 1),
                        store.evening_op("e1", json.dumps([*state, f"{n}.{i}"]), version + 1),
                    ]
                    try:
                        store.write(ops, expect=("e1", version))
                        break
                    except Stale:
                        refused[n] += 1
                        # nothing of the refused write is stored
                        assert store.online_evening(f"side{n}-{i}-{version}") is None

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(len(stores))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        row = stores[0].online_evening("e1")
        assert row is not None
        changes = json.loads(row[0])
        assert sorted(changes) == sorted(f"{n}.{i}" for n in range(4) for i in range(10))
        assert row[1] == 41
        assert sum(refused) > 0  # the processes did race
        with pytest.raises(Stale):  # a version long gone
            stores[1].write([stores[1].evening_op("e1", "[]", 2)], expect=("e1", 1))
        with pytest.raises(Stale):  # an evening never stored
            stores[1].write([stores[1].evening_op("e2", "[]", 2)], expect=("e2", 1))
    finally:
        for store in stores:
            store.close()


# -- the room at the end: cards of hands and the tables' records -------------------------------


def test_cards_of_hands_are_the_organisers_for_the_records(server: Server) -> None:
    """Nobody comes (stand-ins play every seat): each player's card of hands is, hand by
    hand, the table, seat, partner, opponents, tricks, points and running total the
    organiser's rules give for the tables' records; the records document holds every
    table's stored record."""

    async def main() -> None:
        ev = await server.evenings.create(online.read_new_evening(body(hands=3), "beginner"))
        for _ in range(6000):
            if derive(ev.evening).finished:
                break
            await asyncio.sleep(0.005)
        assert derive(ev.evening).finished
        totals, done = organiser_totals(server, ev)
        for pid in ev.tokens:
            card = online.card_json(ev, pid)
            assert card["player"]["name"] == ev.name(pid) and card["finished"]
            assert [line["hand"] for line in card["lines"]] == [1, 2, 3]
            running = 0
            for line in card["lines"]:
                t = done.hand(line["hand"]).table_of(pid)
                seats = t.seat_map()
                mine = t.seat_of(pid)
                game = ev.hands[line["hand"] - 1].games[t.table - 1]
                record = replay(loads(server.store.get(game).record))  # type: ignore[union-attr]
                ns = record.results[0].tricks[0]
                running += t.points_of(pid)
                assert line == {
                    "hand": line["hand"],
                    "contract": done.hand(line["hand"]).contract,
                    "table": t.table,
                    "seat": mine,
                    "partner": ev.name(t.partner_of(pid)),
                    "opponents": [
                        ev.name(seats["NESW"[("NESW".index(mine) + k) % 4]]) for k in (1, 3)
                    ],
                    "tricks": ns if mine in "NS" else 13 - ns,
                    "points": t.points_of(pid),
                    "total": running,
                    "won": t.winner == t.side_of(pid),
                    "game": game,
                }
            assert card["total"] == running == totals[pid]
        document = json.loads(
            await online.RecordsCache().document(
                ev,
                lambda ids: {g: server.store.get(g).record for g in ids},  # type: ignore[union-attr]
            )
        )
        assert document["format"] == "whistkit-online-evening-records/1"
        assert document["finished"] and document["evening"] == ev.id
        listed = [(r["hand"], r["table"], r["game"]) for r in document["records"]]
        assert listed == [
            (h, t, g)
            for h, hand in enumerate(ev.hands, start=1)
            for t, g in enumerate(hand.games, start=1)
        ]
        for r in document["records"]:
            stored = json.loads(server.store.get(r["game"]).record)  # type: ignore[union-attr]
            assert r["record"] == stored and stored["format"] == "whistkit-record/1"
        await server.close()

    asyncio.run(main())


def test_nothing_of_a_hand_before_every_table_has_finished_it(tmp_path: Path) -> None:
    """A table that finished hand 1 while the other plays it (in duplicate the same
    deal): no card of hands has a line of hand 1 and no record is listed; once the
    hand is over at both, its lines and records are there, and not hand 2's."""
    server = make_server(tmp_path / "games.sqlite3", turn_scale=1.0)

    async def main() -> None:
        ev = await server.evenings.create(
            online.read_new_evening(body(hands=2, duplicate=True), "beginner")
        )
        first, second = ev.hands[0].games
        stored = {first: '{"r": 1}', second: '{"r": 2}'}
        await server.evenings.result(ev.id, first, 7, [])
        for pid in ev.tokens:
            assert online.card_json(ev, pid)["lines"] == []
        # the room: the table is over, its tricks and everyone's points from it are not
        # shown (the other table plays the same deal); the host sees them
        room = online.room_json(ev)
        shown = room["hands"][0]["tables"]
        assert [(t["over"], t["ns_tricks"], t["points"]) for t in shown] == [
            (True, None, None),
            (False, None, None),
        ]
        assert set(room["totals"].values()) == {0}
        assert {e["total"] for b in room["leaderboard"].values() for e in b} == {0}
        ev.derived(fresh=True)  # (the pages' derivation may be a second old)
        host = online.room_json(ev, host=True)
        assert host["hands"][0]["tables"][0]["ns_tricks"] == 7
        assert set(host["totals"].values()) != {0}
        assert online.finished_games(ev) == []
        assert json.loads(online.records_json(ev, stored))["records"] == []
        await server.evenings.result(ev.id, second, 4, [])
        assert ev.in_play() == 2
        room = online.room_json(ev)
        assert [t["ns_tricks"] for t in room["hands"][0]["tables"]] == [7, 4]
        assert room["totals"] == online.room_json(ev, host=True)["totals"]
        for pid in ev.tokens:
            lines = online.card_json(ev, pid)["lines"]
            assert [line["hand"] for line in lines] == [1]
        assert online.finished_games(ev) == [first, second]
        hand2 = {g: '{"r": 3}' for g in ev.hands[1].games}
        records = json.loads(online.records_json(ev, {**stored, **hand2}))["records"]
        assert [(r["hand"], r["record"]) for r in records] == [(1, {"r": 1}), (1, {"r": 2})]
        # the document is built once a hand (a record missing: looked for again)
        reads: list[list[str]] = []
        stored_now = dict(stored)

        def read(ids: list[str]) -> dict[str, str]:
            reads.append(ids)
            return {g: stored_now[g] for g in ids if g in stored_now}

        cache = online.RecordsCache()
        del stored_now[second]
        one = json.loads(await cache.document(ev, read))
        assert [r["game"] for r in one["records"]] == [first] and len(reads) == 1
        stored_now[second] = stored[second]
        two = await cache.document(ev, read)
        assert len(reads) == 2 and len(json.loads(two)["records"]) == 2
        assert await cache.document(ev, read) is two and len(reads) == 2
        for g in ev.hands[1].games:
            stored_now[g] = '{"r": 3}'
            await server.evenings.result(ev.id, g, 6, [])
        assert derive(ev.evening).finished
        three = json.loads(await cache.document(ev, read))
        assert len(reads) == 3 and len(three["records"]) == 4 and three["finished"]
        await server.close()

    asyncio.run(main())


def test_http_card_and_records(tmp_path: Path) -> None:
    """``GET …/card/{player}`` and ``GET …/records`` over HTTP, with their refusals."""
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0, turn_scale=0.001)
    with TestClient(app) as http:
        made = http.post("/api/online-evenings", json=body(hands=2)).json()
        base = f"/api/online-evenings/{made['id']}"
        card = http.get(f"{base}/card/1").json()
        assert card["player"]["name"] == "Anna" and card["lines"] == []
        # while hand 1 is played: no record yet
        early = http.get(f"{base}/records")
        assert early.status_code == 200 and early.json()["records"] == []
        for _ in range(3000):
            if http.get(f"{base}/room").json()["finished"]:
                break
            time.sleep(0.01)
        room = http.get(f"{base}/room").json()
        assert room["finished"]
        card = http.get(f"{base}/card/3").json()
        assert [line["hand"] for line in card["lines"]] == [1, 2]
        assert card["total"] == room["totals"]["3"]
        r = http.get(f"{base}/records")
        assert r.status_code == 200
        assert f'filename="whistkit-evening-{made["id"]}.json"' in r.headers["content-disposition"]
        games = [t["game"] for h in room["hands"] for t in h["tables"]]
        assert [x["game"] for x in r.json()["records"]] == games
        for x in r.json()["records"]:
            one = http.get(f"/api/games/{x['game']}/record")
            assert x["record"] == one.json()
        # a finished evening's document is built once
        assert http.get(f"{base}/records").content == r.content
        # refusals name what is wrong
        bad = http.get(f"{base}/card/Anna")
        assert bad.status_code == 400 and "not 'Anna'" in bad.json()["error"]
        assert http.get(f"{base}/card/99").json() == {"error": "the evening has no player 99"}
        assert http.get(f"{base}/card/99").status_code == 404
        assert http.get(f"{base}/card/123456").status_code == 400
        assert http.get(f"{base}/card/\u0663").status_code == 400  # an Arabic-Indic 3
        assert http.get("/api/online-evenings/ffffffffffff/card/1").status_code == 404
        assert http.get("/api/online-evenings/ffffffffffff/records").status_code == 404


# -- what goes wrong: a restart while a hand is ended, a failing clock, a copy behind ----------


def test_a_restart_while_a_hand_is_ended_finishes_it(tmp_path: Path) -> None:
    """The host ends hand 1 and the server stops once the tables' finish is stored,
    before a stand-in plays: after the restart the tables, loaded with their finish set,
    are woken and finished (the hand's time, 600 s, is far from up)."""
    db = tmp_path / "games.sqlite3"

    async def first() -> str:
        server = make_server(db, turn_scale=1.0)
        ev = await server.evenings.create(online.read_new_evening(body(hands=2), "beginner"))
        real = SharedTable.wake_bots
        SharedTable.wake_bots = lambda self: None  # type: ignore[method-assign]
        try:
            assert await server.evenings.finish_hand(ev) == 1
        finally:
            SharedTable.wake_bots = real  # type: ignore[method-assign]
        await server.close()
        return ev.id

    async def second(evening_id: str) -> None:
        server = make_server(db, turn_scale=1.0)
        await server.start()
        ev = server.evenings.live[evening_id]
        for _ in range(500):
            if ev.in_play() != 1:
                break
            await asyncio.sleep(0.01)
        # (hand 2 may be over too: nobody opened their link, stand-ins play it at once)
        assert sum(r.hand == 1 for r in ev.evening.results) == 2, ev.evening.results
        await server.close()

    asyncio.run(second(asyncio.run(first())))


def test_the_clock_goes_on_after_a_failed_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database out of reach at one of the clock's looks (here: its look for tables
    done without a word) is logged and tried again: the hand whose time is up is still
    ended by stand-ins, and the evening goes on."""
    monkeypatch.setattr(online, "RECOVER_SECONDS", 0.0)  # a look at every tick
    server = make_server(tmp_path / "games.sqlite3", turn_scale=0.01)  # 60 s: 0.6 s

    async def main() -> None:
        real = server.store.finished_at
        failed: list[int] = []

        def flaky(ids: Any) -> Any:
            if len(failed) < 3:
                failed.append(1)
                raise StoreError("the database could not be reached")
            return real(ids)

        server.store.finished_at = flaky  # type: ignore[method-assign]
        new = online.read_new_evening(body(hands=2, seconds_per_hand=60), "beginner")
        ev = await server.evenings.create(new)
        for _ in range(1000):
            if ev.in_play() is None:
                break
            await asyncio.sleep(0.01)
        assert len(failed) == 3
        assert ev.in_play() is None and derive(ev.evening).finished
        await server.close()

    asyncio.run(main())


def test_a_copy_behind_the_store_reads_it_again(tmp_path: Path) -> None:
    """In one process too, the evening in memory can fall a version behind the store (a
    write stored, yet reported as failed): the next change finds it stale, reads the
    stored state and is made on it, and the changes after it go on."""
    server = make_server(tmp_path / "games.sqlite3", turn_scale=1.0)

    async def main() -> None:
        ev = await server.evenings.create(online.read_new_evening(body(hands=2), "beginner"))
        ahead = online.OnlineEvening.from_json(ev.to_json())
        ahead.title = "Stored behind its back"
        await server.store.submit_async(
            [server.store.evening_op(ev.id, ahead.to_json(), ev.version + 1)]
        )
        await server.evenings.set_join(ev, True)
        assert ev.open_join and ev.title == "Stored behind its back"
        assert await server.evenings.finish_hand(ev) == 1
        stored = server.store.online_evening(ev.id)
        assert stored is not None and stored[1] == ev.version
        again = online.OnlineEvening.from_json(stored[0])
        assert again.open_join and again.hands[0].finishing
        await server.close()

    asyncio.run(main())
