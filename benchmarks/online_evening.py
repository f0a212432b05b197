"""A room of an online evening under load (issue 34): 130 tables, 520 people.

Usage: python benchmarks/online_evening.py [--tables 130] [--hands 2] [--think 1:3]
       [--poll 1.5] [--seed 1] [--processes N] [--json]

``whistkit play`` runs in a subprocess (a fresh SQLite database in a temporary folder,
bots without pause); an evening of ``4 x --tables`` players (groups A and B) is made by
``POST /api/online-evenings``, and each person is a client in this process that does what
the page does: it asks its link's state (``GET /api/online-evenings/ID/me``, over an HTTP
connection of its own) until it names a table, joins that table over its own WebSocket,
and plays its first lawful card 1 to 3 s (``--think``, uniformly at random, ``--seed``)
after its view says it is its turn, reading its socket all the while. After its table's
game it keeps reading the socket for the table's word (``evening_next``, which carries
the link's state) and asks the link's state every ``--poll`` seconds meanwhile; it goes
to the next table on whichever comes first.

With ``--processes N`` (N > 1) the room is run twice in one invocation and the figures
printed side by side: first on one process (SQLite, the anchor), then on N processes on
a private PostgreSQL and Redis (``tests/services.py``, Debian's packages) with ``--bus``,
each page's request and each socket going to one of them at random (a proxy that does
not route by game): the evening made on the first, its tables owned by whichever process
seated them, sockets landing elsewhere relayed.

Printed:

- ack p50/p95/p99/max: from sending a card to its ``ack`` (the card is on disk);
- for each move between hands: from the last table's last card of the hand (the
  moment its game-over event reached a client) to every person seated at the next table
  (their join answered), p50/p99/max over the people; the goal is a p99 under 2 s. Its
  steps, from the same moment: the table's word reaching the client, the client knowing
  its table (from the word or a poll), its new socket open;
- errors (error messages other than a stale card, dropped sockets), the server's CPU
  over the run, and the machine's load average (the machine is shared).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

SRC = Path(__file__).resolve().parents[1] / "src"


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Person:
    """One player: polls the link's state, sits at the table it names, plays."""

    def __init__(self, bench: Bench, name: str, url: str, rng: random.Random) -> None:
        self.bench = bench
        self.name = name
        self.token = url.split("#t=")[1]
        self.rng = rng
        self.done: set[str] = set()
        self.seated: dict[int, float] = {}  # hand -> when the join was answered
        # hand -> when the page learnt of its table ("told": the link's state named it)
        # and when its socket was open ("open"), the steps of a move before "seated"
        self.phases: dict[int, dict[str, float]] = {}
        self.word: dict[int, float] = {}  # hand -> when evening_next came (if it did)

    async def run(self) -> None:
        b = self.bench
        await asyncio.sleep(self.rng.uniform(0, b.args.poll))  # pages do not poll in step
        told: dict[str, Any] | None = None  # the link's state the last table's socket gave
        while True:
            if told is not None:
                state, told = told, None
            else:
                try:
                    r = await b.http.get(
                        f"{b.pick(self.rng)}api/online-evenings/{b.evening}/me?t={self.token}"
                    )
                    state = r.json()
                except (httpx.HTTPError, ValueError) as e:  # a page asks again at its next poll
                    b.poll_errors.append(type(e).__name__)
                    await asyncio.sleep(b.args.poll)
                    continue
            now = state.get("now")
            if state.get("finished"):
                return
            if now is None or now["game"] in self.done:
                await asyncio.sleep(b.args.poll)
                continue
            self.done.add(now["game"])
            told = await self.play(now)

    async def play(self, now: dict[str, Any]) -> dict[str, Any] | None:
        """Sit at the table ``now`` names and play its game; the link's state after it
        (from the table's word, or a poll) if known."""
        b = self.bench
        hand = now["hand"]
        self.phases.setdefault(hand, {})["told"] = time.monotonic()
        ws_url = b.pick(self.rng).replace("http://", "ws://") + "ws"
        async with connect(f"{ws_url}?game={now['game']}", max_size=2**22) as ws:
            self.phases[hand]["open"] = time.monotonic()
            join = {"type": "join", "game": now["game"], "seat": now["seat"]}
            await ws.send(json.dumps({**join, "token": now["token"], "name": self.name}))
            acted = -1
            sent: list[float] = []  # the send times of the cards not yet acknowledged
            # the person thinks while the page goes on reading: a card is sent by a task
            # of its own, so an ack or event arriving meanwhile is read (and timed) at once
            thinking: asyncio.Task[None] | None = None

            async def card_later(card: dict[str, Any], v: int) -> None:
                low, high = b.think
                await asyncio.sleep(self.rng.uniform(low, high))
                sent.append(time.monotonic())
                await ws.send(json.dumps({**card, "v": v}))

            try:
                while True:
                    try:
                        msg = json.loads(await ws.recv())
                    except Exception:
                        b.errors.append(f"{self.name}: socket dropped")
                        return None
                    kind = msg["type"]
                    if kind == "state" and hand not in self.seated:
                        self.seated[hand] = time.monotonic()
                    if kind == "ack" and sent:
                        b.acks.append(time.monotonic() - sent.pop(0))
                        continue
                    if kind == "error":
                        if msg.get("code") != "stale":
                            b.errors.append(f"{self.name}: {msg.get('code')}")
                        if sent:
                            sent.pop(0)
                        continue
                    view = msg.get("view")
                    if view is None:
                        continue
                    if view["winner"]:
                        b.game_over(now, time.monotonic())
                        return await self.after_game(ws, sent)
                    if view["to_play"] == now["seat"] and view["legal"] and msg["v"] > acted:
                        acted = msg["v"]
                        thinking = asyncio.ensure_future(card_later(view["legal"][0], msg["v"]))
            finally:
                if thinking is not None:
                    thinking.cancel()

    async def after_game(self, ws: Any, sent: list[float]) -> dict[str, Any] | None:
        """As the page does after its table's game: keep reading the socket for the
        table's word that the next hand is seated (``evening_next``, with the link's
        state), and meanwhile ask the link's state every ``--poll`` seconds; the state
        that names a new table or the end, from whichever comes first (None: the socket
        closed, the run loop asks)."""
        b = self.bench
        reading: asyncio.Task[Any] | None = None
        asking: asyncio.Task[dict[str, Any] | None] | None = None
        try:
            while True:
                if reading is None:
                    reading = asyncio.ensure_future(ws.recv())
                if asking is None:
                    asking = asyncio.ensure_future(self.ask_later(b.args.poll))
                done, _ = await asyncio.wait({reading, asking}, return_when=asyncio.FIRST_COMPLETED)
                if reading in done:
                    try:
                        reply = json.loads(reading.result())
                    except Exception:  # the socket closed: the next poll tells
                        return None
                    reading = None
                    if reply["type"] == "ack" and sent:
                        b.acks.append(time.monotonic() - sent.pop(0))
                    elif reply["type"] == "error" and sent:
                        sent.pop(0)
                    elif reply["type"] == "evening_next" and isinstance(reply.get("me"), dict):
                        self.word.setdefault(reply["hand"] or 0, time.monotonic())
                        return reply["me"]  # type: ignore[no-any-return]
                if asking in done:
                    state = asking.result()
                    asking = None
                    now = state.get("now") if state else None
                    if state and (state.get("finished") or (now and now["game"] not in self.done)):
                        return state
        finally:
            for task in (reading, asking):
                if task is not None:
                    task.cancel()

    async def ask_later(self, delay: float) -> dict[str, Any] | None:
        """The link's state after ``delay`` seconds (None if the request failed)."""
        b = self.bench
        await asyncio.sleep(delay)
        try:
            r = await b.http.get(
                f"{b.pick(self.rng)}api/online-evenings/{b.evening}/me?t={self.token}"
            )
            return r.json()  # type: ignore[no-any-return]
        except (httpx.HTTPError, ValueError) as e:
            b.poll_errors.append(type(e).__name__)
            return None


class Bench:
    def __init__(self, args: argparse.Namespace, urls: list[str]) -> None:
        self.args = args
        self.urls = urls
        self.url = urls[0]
        low, high = (float(x) for x in args.think.split(":"))
        self.think = (low, high)
        self.http = httpx.AsyncClient(
            # a page's own connection each (the server allows them: see main's environment)
            timeout=60,
            limits=httpx.Limits(
                max_connections=4 * args.tables, max_keepalive_connections=4 * args.tables
            ),
        )
        self.evening = ""
        self.acks: list[float] = []
        self.errors: list[str] = []
        self.poll_errors: list[str] = []  # polls that failed (asked again)
        self.last_card: dict[int, float] = {}  # hand -> its last table's last card

    def pick(self, rng: random.Random) -> str:
        """The process a request or socket goes to (at random, with several)."""
        return self.urls[0] if len(self.urls) == 1 else rng.choice(self.urls)

    def game_over(self, now: dict[str, Any], when: float) -> None:
        hand = now["hand"]
        self.last_card[hand] = max(self.last_card.get(hand, 0.0), when)


async def run(args: argparse.Namespace, urls: list[str]) -> dict[str, Any]:
    bench = Bench(args, urls)
    url = urls[0]
    players = [{"name": f"P{i}", "group": "AB"[i % 2]} for i in range(4 * args.tables)]
    body = {
        "title": "Benchmark",
        "hands": args.hands,
        "players": players,
        "seconds_per_hand": 3600,
        "level": "beginner",
    }
    r = await bench.http.post(url + "api/online-evenings", json=body)
    r.raise_for_status()
    made = r.json()
    bench.evening = made["id"]
    rng = random.Random(args.seed)
    people = [
        Person(bench, p["name"], p["url"], random.Random(rng.random())) for p in made["players"]
    ]
    started = time.monotonic()
    cpu = time.process_time()
    # the client's event loop's lag: how late a 50 ms sleep wakes (its own delays are
    # in the figures too: one process plays every person)
    lags: list[float] = []

    async def watch_lag() -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.05)
            lags.append(time.monotonic() - before - 0.05)

    lag_task = asyncio.ensure_future(watch_lag())
    await asyncio.gather(*(p.run() for p in people))
    lag_task.cancel()
    took = time.monotonic() - started
    client_cpu = time.process_time() - cpu
    await bench.http.aclose()
    moves: dict[int, dict[str, Any]] = {}
    for hand in range(2, args.hands + 1):
        last = bench.last_card.get(hand - 1)
        waits = [p.seated[hand] - last for p in people if hand in p.seated and last]
        moves[hand] = {
            "people": len(waits),
            "p50": percentile(waits, 0.5),
            "p99": percentile(waits, 0.99),
            "max": max(waits) if waits else float("nan"),
        }
        # the steps: the table's word that the hand is seated (evening_next), the link's
        # state naming the new table, the socket open; each from the last card
        for step, times in (
            ("word", [p.word.get(hand) for p in people]),
            ("told", [p.phases.get(hand, {}).get("told") for p in people]),
            ("open", [p.phases.get(hand, {}).get("open") for p in people]),
        ):
            got = [t - last for t in times if t is not None and last]
            moves[hand][step] = {
                "people": len(got),
                "p50": percentile(got, 0.5),
                "p99": percentile(got, 0.99),
            }
    return {
        "tables": args.tables,
        "people": len(people),
        "hands": args.hands,
        "seconds": took,
        "cards": len(bench.acks),
        "ack_p50": percentile(bench.acks, 0.5),
        "ack_p95": percentile(bench.acks, 0.95),
        "ack_p99": percentile(bench.acks, 0.99),
        "ack_max": max(bench.acks) if bench.acks else float("nan"),
        "moves": moves,
        "errors": bench.errors[:20],
        "error_count": len(bench.errors),
        "client_cpu_seconds": client_cpu,
        "client_lag_p99": percentile(lags, 0.99),
        "client_lag_max": max(lags) if lags else float("nan"),
        "poll_errors": len(bench.poll_errors),
        "poll_error_kinds": sorted(set(bench.poll_errors)),
    }


def cpu_seconds(pid: int) -> float:
    """User and system CPU of a process and its children so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(x) for x in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=130)
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--think", default="1:3", help="seconds LOW:HIGH before each card")
    parser.add_argument("--poll", type=float, default=1.5, help="the page's poll interval")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="N > 1: the room on one process, then on N on PostgreSQL and Redis",
    )
    args = parser.parse_args()
    if args.processes < 1:
        parser.error(f"--processes must be 1 or more, not {args.processes}")
    runs = [measure(args, 1)]
    if args.processes > 1:
        runs.append(measure(args, args.processes))
    if args.json:
        print(json.dumps(runs if len(runs) > 1 else runs[0], indent=2))
        return
    for out in runs:
        report(out)
    if len(runs) > 1:
        one, many = runs
        print(f"\nside by side: 1 process -> {args.processes} processes (ratio)")
        for label, key in (("ack p99", "ack_p99"), ("server CPU s", "server_cpu_seconds")):
            a, b = one[key], many[key]
            print(f"  {label:18} {a:8.3f} -> {b:8.3f}  ({b / a:.2f}x)")
        for hand in one["moves"]:
            a, b = one["moves"][hand]["p99"], many["moves"][hand]["p99"]
            print(f"  move {hand} p99 (s)    {a:8.3f} -> {b:8.3f}  ({b / a:.2f}x)")


def start_servers(
    args: argparse.Namespace,
    count: int,
    folder: Path,
    stack: contextlib.ExitStack,
    db: str | None,
    bus: str | None,
) -> list[tuple[subprocess.Popen[str], str]]:
    """``count`` ``whistkit play`` processes (on ``db`` and ``bus``, or one on a SQLite
    file in ``folder``), stopped when ``stack`` closes: each with its URL."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env["WHISTKIT_BOT_DELAY"] = "0"
    env["WHISTKIT_MAX_CONNECTIONS_PER_CLIENT"] = str(8 * args.tables + 200)
    started = []
    for n in range(count):
        where = (
            ["--db", db, "--bus", bus] if db and bus else ["--db", str(folder / "games.sqlite3")]
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "whistkit.cli", "play", "--no-browser", "--port", "0", *where],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )

        def stop(proc: subprocess.Popen[str] = proc) -> None:
            proc.terminate()
            proc.wait(10)

        stack.callback(stop)
        url = ""
        assert proc.stdout is not None
        for line in proc.stdout:
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if found:
                url = f"http://127.0.0.1:{found.group(1)}/"
                break
        if not url:
            raise SystemExit(f"server {n} did not start")
        started.append((proc, url))
    return started


def measure(args: argparse.Namespace, processes: int) -> dict[str, Any]:
    """The room on one process (SQLite) or on ``processes`` (PostgreSQL, Redis)."""
    with (
        tempfile.TemporaryDirectory(prefix="whistkit-online-") as folder,
        contextlib.ExitStack() as stack,
    ):
        db = bus = None
        if processes > 1:
            tests = str(Path(__file__).resolve().parent.parent / "tests")
            if tests not in sys.path:
                sys.path.insert(0, tests)
            from services import Postgres, Redis

            pg = Postgres().start()
            stack.callback(pg.stop)
            redis = Redis(Path(folder) / "redis").start()
            stack.callback(redis.stop)
            db, bus = pg.fresh_database("online_bench"), redis.url
        servers = start_servers(args, processes, Path(folder), stack, db, bus)
        load = os.getloadavg()
        cpu = sum(cpu_seconds(p.pid) for p, _ in servers)
        out = asyncio.run(run(args, [u for _, u in servers]))
        out["processes"] = processes
        out["server_cpu_seconds"] = sum(cpu_seconds(p.pid) for p, _ in servers) - cpu
        out["load_before"], out["load_after"] = load[0], os.getloadavg()[0]
    return out


def report(out: dict[str, Any]) -> None:
    print(
        f"{out['processes']} process(es): "
        f"{out['tables']} tables, {out['people']} people, {out['hands']} hands,"
        f" {out['seconds']:.0f} s, {out['cards']} cards by people"
    )
    print(
        "ack p50 {:.3f} s, p95 {:.3f} s, p99 {:.3f} s, max {:.3f} s".format(
            out["ack_p50"], out["ack_p95"], out["ack_p99"], out["ack_max"]
        )
    )
    for hand, m in out["moves"].items():
        print(
            f"move to hand {hand}: last card -> all {m['people']} seated:"
            f" p50 {m['p50']:.2f} s, p99 {m['p99']:.2f} s, max {m['max']:.2f} s (goal p99 < 2 s)"
        )
        print(
            "  its steps from the last card, p50/p99: "
            + "; ".join(
                f"{name} {m[step]['p50']:.2f}/{m[step]['p99']:.2f} s ({m[step]['people']})"
                for step, name in (
                    ("word", "evening_next"),
                    ("told", "state names the table"),
                    ("open", "socket open"),
                )
            )
        )
    print(f"errors: {out['error_count']} {out['errors'][:5]}")
    print(
        f"client CPU {out['client_cpu_seconds']:.1f} s"
        f" ({out['client_cpu_seconds'] / out['seconds']:.2f} cores), its loop's lag"
        f" p99 {out['client_lag_p99']:.2f} s, max {out['client_lag_max']:.2f} s"
    )
    print(f"failed polls (asked again): {out['poll_errors']} {out['poll_error_kinds']}")
    print(
        f"server CPU {out['server_cpu_seconds']:.1f} s"
        f" ({out['server_cpu_seconds'] / out['seconds']:.2f} cores);"
        f" load average {out['load_before']:.1f} -> {out['load_after']:.1f}"
    )


if __name__ == "__main__":
    main()
