"""Online evenings on several server processes (``--bus``, docs/online.md): real
``whistkit play`` processes on one private PostgreSQL and one Redis, people whose pages
ask any process and whose sockets land on a random one (again at each reconnect), the
host's requests made to another process than the one that made the evening, and an
evening that goes on when the process driving it is killed. The totals are checked
against the hall organiser's rules applied to the tables' own records."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import time
from pathlib import Path
from typing import Any

import httpx
import redis

from whistkit.evening import Evening, Result, derive
from whistkit.record import loads, replay
from whistkit.server import online
from whistkit.server.database import open_store

from .cluster_helpers import Player, clean_logs, cluster

NAMES = ["Anna", "Bjarni", "Dóra", "Einar", "Fríða", "Gunnar", "Helga", "Ingi"]
# a person's turn is 30 s times this (then a stand-in plays), a hand's time 600 s times it
# (a bot's card takes 0.05 s: a stand-in playing for a person not yet at their table
# does not finish it before they come)
ENV = {
    "WHISTKIT_TURN_TIME_SCALE": "0.2",
    "WHISTKIT_LEASE_SECONDS": "1",
    "WHISTKIT_BOT_DELAY": "0.05",
}


def new_evening(server: Any, hands: int = 3) -> dict[str, Any]:
    players = [{"name": n, "group": "A" if i % 2 == 0 else "B"} for i, n in enumerate(NAMES)]
    body = {
        "title": "Evening on three processes",
        "hands": hands,
        "players": players,
        "seconds_per_hand": 600,
        "duplicate": False,
        "level": "beginner",
    }
    r = httpx.post(server.url + "api/online-evenings", json=body, timeout=30)
    assert r.status_code == 200, r.text
    created: dict[str, Any] = r.json()
    return created


def stored_evening(db: str, evening_id: str) -> online.OnlineEvening:
    store = open_store(db)
    try:
        row = store.online_evening(evening_id)
    finally:
        store.close()
    assert row is not None
    return online.OnlineEvening.from_json(row[0])


def organiser_check(db: str, ev: online.OnlineEvening) -> dict[int, float]:
    """The organiser's totals from the tables' records; every table's record seats the
    players the organiser's rules seat there."""
    store = open_store(db)
    try:
        records = {}
        results = []
        for h, hand in enumerate(ev.hands, start=1):
            for t, game in enumerate(hand.games, start=1):
                row = store.get(game)
                assert row is not None and row.finished and row.record, (h, t)
                records[h, t] = loads(row.record)
                final = replay(records[h, t])
                assert len(final.results) == 1 and final.results[0].number == h
                results.append(Result(h, t, final.results[0].tricks[0]))
    finally:
        store.close()
    done = derive(Evening(ev.evening.config, ev.evening.players, tuple(results), (), True))
    for (h, t), record in records.items():
        for seat, pid in enumerate(done.hand(h).table(t).seats):
            if pid in ev.bots:  # a filler: the bot's own name in the record
                assert record.players[seat].startswith("Bot"), (h, t, seat, record.players)
            else:
                assert record.players[seat] == ev.name(pid), (h, t, seat, record.players)
    return dict(done.totals)


class Person:
    """One player: asks their link's state of a random live process, plays each table it
    names (a socket to a random process, moving now and then), until the evening ends."""

    def __init__(
        self,
        servers: list[Any],
        evening: str,
        token: str,
        rng: random.Random,
        paused: asyncio.Event | None = None,
    ):
        self.servers = servers
        self.paused = paused or asyncio.Event()  # set: the person stops playing
        self.evening = evening
        self.token = token
        self.rng = rng
        self.games: list[str] = []
        self.hands: list[int] = []
        self.seats: list[str] = []  # the seat played at each of ``games``
        self.last: dict[str, Any] = {}
        self.playing: Player | None = None
        self.hand_now = 0  # the hand of the table being played

    def alive(self) -> list[Any]:
        return [s for s in self.servers if s.alive() and not getattr(s, "stopped", False)]

    async def look(self, http: httpx.AsyncClient) -> dict[str, Any] | None:
        server = self.rng.choice(self.alive())
        url = f"{server.url}api/online-evenings/{self.evening}/me"
        try:
            r = await http.get(url, params={"t": self.token}, timeout=10)
        except httpx.HTTPError:
            return None  # that process just went: ask another
        assert r.status_code == 200, r.text
        state: dict[str, Any] = r.json()
        self.last = state
        return state

    async def run(self, seconds: float = 240) -> None:
        deadline = time.monotonic() + seconds
        async with httpx.AsyncClient() as http:
            while time.monotonic() < deadline:
                state = await self.look(http)
                if state is None:
                    continue
                if state["finished"]:
                    return
                now = state.get("now")
                if now is None or now["game"] in self.games:
                    await asyncio.sleep(0.2)
                    continue
                self.hand_now = now["hand"]
                self.playing = Player(
                    self.servers,
                    now["game"],
                    now["seat"],
                    now["token"],
                    self.rng,
                    moves=(3, 25),
                    paused=self.paused,
                )
                await self.playing.play(
                    lambda p: False, seconds=max(1.0, deadline - time.monotonic())
                )
                self.games.append(now["game"])
                self.hands.append(now["hand"])
                self.seats.append(now["seat"])
        raise AssertionError(f"the evening did not end for {self.last}")


def play_out(people: list[Person], disturb: Any) -> None:
    """Everyone plays the evening to its end while ``disturb()`` (a coroutine) does
    what it does to the processes."""

    async def main() -> None:
        disturbing = asyncio.ensure_future(disturb())
        await asyncio.gather(*(p.run() for p in people))
        await disturbing

    asyncio.run(main())


def check_totals(db: str, evening: str, people: list[Person], hands: list[int]) -> None:
    """Each page played ``hands`` and was told its total, the organiser's for the
    tables' records. A person recorded away at a hand's end (their socket on a process
    that was paused, say) is played for by a stand-in at once in the next hand until
    they come back, so that hand may be over before they reach it: only such a person
    may miss it."""
    ev = stored_evening(db, evening)
    totals = organiser_check(db, ev)
    for p in people:
        missed = [h for h in hands if h not in p.hands]
        assert p.hands == [h for h in hands if h not in missed], p.hands
        for h in missed:  # away at the end of the hand before, at the table they played
            assert h - 1 in p.hands, (p.hands, h)
            k = p.hands.index(h - 1)
            before = ev.hands[h - 2]
            table = before.games.index(p.games[k])
            assert p.seats[k] in before.away[table], (p.hands, h, before.away)
        pid = p.last["player"]["id"]
        assert p.last["total"] == totals[pid]


def test_an_evening_on_three_processes(tmp_path: Path, db: str, bus: str) -> None:
    """Made on one process, followed and played on all three; the host's state and the
    end of a hand asked of another process; every page reaches its next table by itself
    and the totals are the organiser's for the tables' records."""
    with cluster(tmp_path, db, bus, 3, ENV) as servers:
        made = new_evening(servers[0])
        evening = made["id"]
        host_key = made["host_key"]
        tokens = [p["url"].rsplit("#t=", 1)[1] for p in made["players"]]
        paused = asyncio.Event()
        people = [
            Person(servers, evening, t, random.Random(i), paused) for i, t in enumerate(tokens)
        ]

        async def end_hand_elsewhere() -> dict[str, Any]:
            """Once hand 3 is seated, everyone stops playing and the host ends it
            through a process that owns none of its tables: their owners are told, and
            stand-ins finish them."""
            while not any(p.hand_now == 3 for p in people):
                await asyncio.sleep(0.01)
            paused.set()  # hand 3 is seated: nobody plays a card of it from now on
            while not all(
                p.hand_now == 3 and p.playing is not None and p.playing.view is not None
                for p in people
            ):
                await asyncio.sleep(0.05)
            ev = stored_evening(db, evening)
            client = redis.Redis.from_url(bus)
            try:
                owners = {client.get(f"wk:lease:{g}") for g in ev.hands[2].games}
            finally:
                client.close()
            nodes = {o.decode().rsplit("|", 1)[0] for o in owners if o is not None}
            other = next(s for s in servers if not any(f"-{s.proc.pid}-" in n for n in nodes))
            async with httpx.AsyncClient() as http:
                r = await http.post(
                    f"{other.url}api/online-evenings/{evening}/end-hand",
                    params={"key": host_key},
                    timeout=30,
                )
            assert r.status_code == 200, r.text
            answer: dict[str, Any] = r.json()
            return answer

        async def main() -> dict[str, Any]:
            ended = asyncio.ensure_future(end_hand_elsewhere())
            await asyncio.gather(*(p.run() for p in people))
            return await asyncio.wait_for(ended, 5)

        ended = asyncio.run(main())
        assert ended == {"hand": 3, "finishing": True}
        ev = stored_evening(db, evening)
        totals = organiser_check(db, ev)
        # every page found each hand's table by itself and was told its total
        for p in people:
            assert p.hands == [1, 2, 3], p.hands
            pid = p.last["player"]["id"]
            assert p.last["total"] == totals[pid]
        # each process answers from its copy, compared with the store at most
        # FOLLOW_SECONDS before: the host's state from the third one catches up
        for _ in range(50):
            r = httpx.get(
                f"{servers[2].url}api/online-evenings/{evening}",
                params={"key": host_key},
                timeout=30,
            )
            room = r.json()
            if room["finished"]:
                break
            time.sleep(online.FOLLOW_SECONDS / 5)
        assert room["finished"], room
        assert {int(k): v for k, v in room["totals"].items()} == totals
        assert ev.hands[2].finishing
        # the stand-ins finished hand 3's tables because their owners were told to
        store = open_store(db)
        try:
            for game in ev.hands[2].games:
                config = store.shared_config(game)
                assert config is not None and json.loads(config)["finish"] is True, game
        finally:
            store.close()
        clean_logs(servers)


def test_an_evening_goes_on_when_its_process_is_killed(tmp_path: Path, db: str, bus: str) -> None:
    """The process that made the evening (its clock, and the owner of its first hand's
    tables) is killed in the middle of hand 1: the others take up its tables and the
    evening, which ends with the organiser's totals."""
    with cluster(tmp_path, db, bus, 3, ENV) as servers:
        made = new_evening(servers[0], hands=2)
        evening = made["id"]
        tokens = [p["url"].rsplit("#t=", 1)[1] for p in made["players"]]
        people = [Person(servers, evening, t, random.Random(10 + i)) for i, t in enumerate(tokens)]
        first = servers[0]

        async def kill() -> None:
            while not all(p.playing is not None and p.playing.version >= 10 for p in people):
                await asyncio.sleep(0.1)
            assert first.proc is not None
            first.proc.send_signal(signal.SIGKILL)
            first.proc.wait()

        play_out(people, kill)
        check_totals(db, evening, people, [1, 2])
        clean_logs([s for s in servers if s.alive()])


def test_an_evening_goes_on_past_a_paused_process(tmp_path: Path, db: str, bus: str) -> None:
    """The process that made the evening (its clock, and the owner of its first hand's
    tables) is paused (SIGSTOP) in the middle of hand 1 for several lease times, then
    goes on: meanwhile the others take up its tables and the evening; what the paused
    one writes when it wakes is refused (fenced tables, a stale evening version), and the
    evening ends with the organiser's totals."""
    with cluster(tmp_path, db, bus, 3, ENV) as servers:
        made = new_evening(servers[0], hands=2)
        evening = made["id"]
        tokens = [p["url"].rsplit("#t=", 1)[1] for p in made["players"]]
        people = [Person(servers, evening, t, random.Random(20 + i)) for i, t in enumerate(tokens)]
        first = servers[0]
        assert first.proc is not None

        async def pause() -> None:
            while not all(p.playing is not None and p.playing.version >= 10 for p in people):
                await asyncio.sleep(0.1)
            first.proc.send_signal(signal.SIGSTOP)
            first.stopped = True  # type: ignore[attr-defined]  # its sockets fall silent
            try:
                await asyncio.sleep(4.0)  # the lease is 1 s
            finally:
                first.proc.send_signal(signal.SIGCONT)
                first.stopped = False  # type: ignore[attr-defined]

        play_out(people, pause)
        check_totals(db, evening, people, [1, 2])
        assert first.alive()
        clean_logs(servers)


def test_an_evening_nobody_else_saw_is_taken_up(tmp_path: Path, db: str, bus: str) -> None:
    """The process that made an evening is killed at once, before any page or socket of
    it reached another process: another one finds the evening that nobody drives, takes
    its lease and its tables, and plays it to its end (nobody comes: stand-ins play)."""
    env = {**ENV, "WHISTKIT_TURN_TIME_SCALE": "0.01"}  # a hand's 600 s: 6 s
    with cluster(tmp_path, db, bus, 2, env) as servers:
        made = new_evening(servers[0], hands=2)
        first = servers[0]
        assert first.proc is not None
        first.proc.send_signal(signal.SIGKILL)
        first.proc.wait()
        deadline = time.monotonic() + 120
        ev = stored_evening(db, made["id"])
        while ev.in_play() is not None and time.monotonic() < deadline:
            time.sleep(0.5)
            ev = stored_evening(db, made["id"])
        assert ev.in_play() is None, f"the evening stalled in hand {ev.in_play()}"
        assert len(ev.hands) == 2 and ev.hands[0].finishing
        organiser_check(db, ev)
        clean_logs([servers[1]])


def test_a_gathered_evening_on_three_processes(tmp_path: Path, db: str, bus: str) -> None:
    """Made on one process with nobody entered; six people join at once through the
    three processes (their joins race: none is lost); the host presses Start on two
    processes at once: one seats hand 1, the other is told it has started; everyone
    plays, and the totals are the organiser's."""
    with cluster(tmp_path, db, bus, 3, ENV) as servers:
        body = {
            "title": "Gathered on three processes",
            "hands": 2,
            "gather": True,
            "groups": True,
            "level": "beginner",
        }
        r = httpx.post(servers[0].url + "api/online-evenings", json=body, timeout=30)
        assert r.status_code == 200, r.text
        made = r.json()
        evening, key = made["id"], made["host_key"]

        async def join(http: httpx.AsyncClient, n: int, name: str) -> str:
            r = await http.post(
                f"{servers[n % 3].url}api/online-evenings/{evening}/join",
                json={"name": name, "group": "AB"[n % 2]},
                timeout=30,
            )
            assert r.status_code == 200, r.text
            url: str = r.json()["url"]
            return url.rsplit("#t=", 1)[1]

        async def start(http: httpx.AsyncClient, n: int) -> httpx.Response:
            return await http.post(
                f"{servers[n].url}api/online-evenings/{evening}/start",
                params={"key": key},
                timeout=30,
            )

        async def main() -> tuple[list[str], list[httpx.Response]]:
            async with httpx.AsyncClient() as http:
                tokens = await asyncio.gather(*(join(http, n, x) for n, x in enumerate(NAMES[:6])))
                starts = await asyncio.gather(start(http, 1), start(http, 2))
            people = [
                Person(servers, evening, t, random.Random(30 + i)) for i, t in enumerate(tokens)
            ]
            await asyncio.gather(*(p.run() for p in people))
            for p in people:
                assert p.hands == [1, 2], p.hands
            return list(tokens), list(starts)

        tokens, starts = asyncio.run(main())
        assert sorted(r.status_code for r in starts) == [200, 409], [r.text for r in starts]
        refused = next(r for r in starts if r.status_code == 409)
        assert refused.json()["code"] == "started"
        ev = stored_evening(db, evening)
        people = [p.name for p in ev.evening.players if p.id not in ev.bots]
        assert sorted(people) == sorted(NAMES[:6])
        assert len(ev.bots) == 2 and set(ev.tokens.values()) == set(tokens)
        totals = organiser_check(db, ev)
        assert len(totals) == 8
        clean_logs(servers)
