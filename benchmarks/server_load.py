"""The web server under load: N concurrent games on loopback, as many clients as games.

Usage: python benchmarks/server_load.py [--games N] [--people P [--think LOW:HIGH]]
       [--bot-delay S] [--level L] [--seconds D] [--warmup W] [--idle-games G] [--conns C] [--src TREE]
       [--against TREE [--rounds R]] [--db-dir DIR] [--profile FILE] [--json]

The server runs in a subprocess (``whistkit.server.serve`` on 127.0.0.1, a fresh database
in a temporary folder; ``--src`` runs another checkout's ``src`` instead, e.g. an export
of main, for a before/after pair in one sitting). Each game has a person at S played by a
client that sends its first legal action as soon as its view says it may, and bots of
``--level`` at N, E and W pausing ``--bot-delay`` seconds between cards (the server's
default pace is 0.7 s, 2.5 times that after a trick). A finished game is replaced by a
new one on the same socket, so N games stay in play.

``--people 4 --tables 250 --think 1:3`` plays shared tables (docs/friends.md) instead:
each table is created by ``POST /api/tables`` with three other person seats and the
turn time off (no stand-in plays), its four people join over their own sockets with
their tokens and names, and each plays its first legal action 1 to 3 s (uniformly at
random, ``--seed``) after its view says it is its turn, as people do. A finished game
opens a new table for the same four clients. The plays are counted by the S client, the
acks are every person's.

Printed, over the measured window (after the warm-up):

- plays/s: cards played in all games (every seat), as seen by the S clients;
- ack p50/p95/p99/max: from sending an action to its ``ack``;
- errors: error messages and dropped sockets;
- server CPU (cores busy, the server and its child processes) and RSS (MiB, same), and
  the time its threads were ready to run but waited for a CPU (per second);
- plays per second of server CPU: on a machine shared with other work the plays/s follow
  the CPU the server gets, this figure much less; and the same for the event loop's
  thread alone (the server's main thread), which bounds what one process can serve;
- the client's own CPU, since it shares the machine, and its loop's lag (how late its
  10 ms sleeps wake: the client's own delays, which are in its acks too);
- before the load: RSS per idle game (G games created, nobody joined) and per connection
  (C sockets open, each answered one ping), from the server's RSS before and after;
- the server's garbage collections over the window, per generation (young, middle,
  full): how many, the milliseconds the event loop stood still in them (and the CPU
  milliseconds, less the machine's share), the longest pause and the pauses over 20 ms
  (measured by the benchmark's own ``gc.callbacks`` hook in the server process, so any
  checkout alike);
- the machine's load average at the start and the end (the machine is shared).

``--against TREE`` runs TREE's server and this one alternately (``--rounds`` pairs) and
prints the ratios of the medians: the before/after pair in one run (TREE: a worktree of
637be15, before issue 18's rework). ``--profile`` writes cProfile statistics of the
server's event loop thread over the measured window. Every client is 127.0.0.1, so the
server's per-address connection limit is lifted for the run. docs/web.md has figures.

Anchor (issue 18, main before the rework): about 1,300 to 1,450 plays/s on one core with
club bots and no pause; ack p99 320 ms at 200 games.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

SERVER = """
import sys
from whistkit.server import serve
def ready(where):
    print(where.port, flush=True)
def gc_figures():
    # the garbage collector's collections and pauses, printed as a JSON line (and reset)
    # on SIGUSR2: this script's, so that any checkout's server is measured alike
    import gc, json, signal, time
    # per generation: collections, wall seconds (the loop's pause), CPU seconds (the
    # thread's: less the machine's share), the longest pause and pauses over 20 ms
    def fresh():
        return {k: [0, 0, 0] if k in ("collections", "over_20ms") else [0.0, 0.0, 0.0]
                for k in ("collections", "seconds", "cpu_seconds", "max", "over_20ms")}
    figures = fresh()
    started = [0.0, 0.0]
    def timed(phase, info):
        now, cpu = time.perf_counter(), time.thread_time()
        if phase == "start":
            started[:] = now, cpu
            return
        g, pause = info["generation"], now - started[0]
        figures["collections"][g] += 1
        figures["seconds"][g] += pause
        figures["cpu_seconds"][g] += cpu - started[1]
        figures["max"][g] = max(figures["max"][g], pause)
        figures["over_20ms"][g] += pause > 0.02
    def report(*_):
        print(json.dumps(figures), flush=True)
        figures.update(fresh())
    gc.callbacks.append(timed)
    signal.signal(signal.SIGUSR2, report)
gc_figures()
def run():
    serve(sys.argv[1], host="127.0.0.1", port=0, bot_delay=float(sys.argv[2]), ready=ready)
if len(sys.argv) > 3:  # --profile: the event loop's thread under cProfile
    import cProfile, signal
    import time
    prof = cProfile.Profile(time.thread_time)
    def stop(*_):
        prof.disable()
        prof.dump_stats(sys.argv[3])
        sys.exit(0)
    # the measured window only: SIGUSR1 starts it (signals run on the main thread, the
    # event loop's), SIGTERM stops it (uvicorn hands the signal back when it stops)
    signal.signal(signal.SIGUSR1, lambda *_: prof.enable())
    signal.signal(signal.SIGTERM, stop)
    run()
    stop()
else:
    run()
"""


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def tree_pids(pid: int) -> list[int]:
    """``pid`` and its descendants (the server's worker processes count as the server)."""
    out = [pid]
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                children = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
                for c in children:
                    out += tree_pids(int(c))
    return out


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of ``pid`` and its descendants."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for p in tree_pids(pid):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def loop_cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of ``pid``'s main thread: the server's event loop (its
    other threads are the store's writer, worker threads and the like)."""
    tick = os.sysconf("SC_CLK_TCK")
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick
    return 0.0


def wait_seconds(pid: int) -> float:
    """Seconds the threads of ``pid`` and its descendants spent ready to run but waiting
    for a CPU (``/proc/PID/task/TID/schedstat``; 0 where the kernel does not say)."""
    total = 0
    for p in tree_pids(pid):
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{p}/task"):
                with contextlib.suppress(OSError, IndexError, ValueError):
                    total += int(Path(f"/proc/{p}/task/{task}/schedstat").read_text().split()[1])
    return total / 1e9


def rss_mib(pid: int) -> float:
    """Resident memory of ``pid`` and its descendants (PSS, so shared pages count once)."""
    total = 0
    for p in tree_pids(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
    return total / 1024


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


@dataclass
class Stats:
    measuring: bool = False
    plays: int = 0
    acks: list[float] = field(default_factory=list)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    dropped: int = 0
    games_finished: int = 0

    def error(self, text: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(text[:200])


async def new_game(http: httpx.AsyncClient, level: str) -> dict[str, Any]:
    for attempt in range(3):  # a kept-alive connection the server closed meanwhile
        try:
            r = await http.post("/api/games", json={"level": level})
            break
        except httpx.TransportError:
            if attempt == 2:
                raise
    r.raise_for_status()
    game: dict[str, Any] = r.json()
    return game


async def player(
    url: str, http: httpx.AsyncClient, level: str, stats: Stats, stop: asyncio.Event
) -> None:
    """One S client: plays its first legal action whenever it may, game after game."""
    try:
        async with connect(url, max_size=None, compression=None, open_timeout=60) as ws:
            while not stop.is_set():
                game = await new_game(http, level)
                await play_game(ws, game["id"], "S", game["token"], stats, stop)
    except Exception as e:  # a dropped socket is a figure, not the benchmark's end
        if not stop.is_set():
            stats.dropped += 1
            stats.error(f"socket: {type(e).__name__}: {e}")


async def play_game(
    ws: ClientConnection,
    game: str,
    seat: str,
    token: str,
    stats: Stats,
    stop: asyncio.Event,
    *,
    name: str | None = None,
    think: Callable[[], float] | None = None,
    counts_plays: bool = True,
) -> None:
    """Plays ``seat`` of ``game`` until it ends (or the run stops): the seat's first legal
    action whenever its view says it may, after ``think()`` seconds if given. With
    ``name`` (a person at a shared table) it joins with the name and waits for the table
    to start. ``counts_plays``: this client counts the game's cards in ``stats.plays``
    and in ``stats.games_finished`` (one client per game does)."""
    join = {"type": "join", "game": game, "seat": seat, "token": token}
    if name is not None:
        join["name"] = name
    await ws.send(json.dumps(join))
    started = name is None  # a shared table says so in its seats message
    acted_at = -1
    sent_at: float | None = None
    seen = 0
    latest: dict[str, Any] = {}
    while not stop.is_set():
        msg = json.loads(await ws.recv())
        kind = msg["type"]
        if kind == "error":
            stats.error(f"{msg['code']}: {msg['message']}")
            sent_at = None
            continue
        if kind == "ack":
            if sent_at is not None and stats.measuring:
                stats.acks.append(time.perf_counter() - sent_at)
            sent_at = None
            msg = latest  # the events (and view) come before the ack: act on them now
        elif kind == "seats":
            started = bool(msg["started"])
            msg = latest  # the table may have started on the last person's join
        else:
            seen = max(seen, msg.get("v", 0))
            event = msg.get("event")
            if (
                counts_plays
                and kind == "event"
                and event
                and event.get("type") == "play"
                and stats.measuring
            ):
                stats.plays += 1
        if "view" in msg:
            latest = msg
        view = msg.get("view")
        if view is None:
            continue
        if view["winner"]:
            stats.games_finished += counts_plays
            return
        if (
            started
            and view["to_play"] == seat
            and view["legal"]
            and msg["v"] > acted_at
            and msg["v"] == seen
            and sent_at is None
        ):
            action = dict(view["legal"][0])
            action["v"] = msg["v"]  # the version this client saw (ignored by old servers)
            acted_at = msg["v"]
            if think is not None:  # nobody else may act meanwhile (the turn time is off)
                await asyncio.sleep(think())
            sent_at = time.perf_counter()
            await ws.send(json.dumps(action))


PEOPLE_SEATS = ("S", "W", "N", "E")  # S is the host, who creates the table


async def new_table(http: httpx.AsyncClient, level: str, people: int) -> dict[str, Any]:
    others = {s: "person" if i < people else level for i, s in enumerate(PEOPLE_SEATS[1:], 1)}
    body = {"level": level, "seats": others, "timeout": 0, "name": "Host"}
    for attempt in range(3):  # a kept-alive connection the server closed meanwhile
        try:
            r = await http.post("/api/tables", json=body)
            break
        except httpx.TransportError:
            if attempt == 2:
                raise
    r.raise_for_status()
    table: dict[str, Any] = r.json()
    return table


async def table_of_people(
    url: str,
    http: httpx.AsyncClient,
    args: argparse.Namespace,
    number: int,
    stats: Stats,
    stop: asyncio.Event,
) -> None:
    """``args.people`` clients, each with its socket, at shared tables one after the
    other (a finished game opens a new table for the same clients), each person acting
    ``args.think`` seconds (a random pause, seeded) after their turn comes; the table's
    turn time is off, so no stand-in plays for them."""
    low, high = args.think
    rngs = [random.Random(f"{args.seed}:{number}:{i}") for i in range(args.people)]
    sockets: list[ClientConnection] = []
    try:
        for _ in range(args.people):
            sockets.append(await connect(url, max_size=None, compression=None, open_timeout=60))
        while not stop.is_set():
            table = await new_table(http, args.level, args.people)
            tokens = {"S": table["token"], **table["tokens"]}
            await asyncio.gather(
                *(
                    play_game(
                        ws,
                        table["game"],
                        seat,
                        tokens[seat],
                        stats,
                        stop,
                        name=f"P{number}{seat}",
                        think=functools.partial(rng.uniform, low, high),
                        counts_plays=seat == "S",
                    )
                    for ws, seat, rng in zip(sockets, PEOPLE_SEATS, rngs, strict=False)
                )
            )
    except Exception as e:  # a dropped socket is a figure, not the benchmark's end
        if not stop.is_set():
            stats.dropped += 1
            stats.error(f"socket: {type(e).__name__}: {e}")
    finally:
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)


async def memory_phase(
    url: str, http: httpx.AsyncClient, pid: int, idle_games: int, conns: int, idle_wait: float
) -> tuple[float, float]:
    """RSS per idle game and per open connection, in KiB."""
    await asyncio.sleep(0.5)
    base = rss_mib(pid)
    sem = asyncio.Semaphore(20)

    async def create() -> None:
        async with sem:
            await new_game(http, "club")

    await asyncio.gather(*(create() for _ in range(idle_games)))
    await asyncio.sleep(1.0 + idle_wait)
    after_games = rss_mib(pid)
    per_game = (after_games - base) * 1024 / max(1, idle_games)
    sockets: list[ClientConnection] = []
    try:
        for _ in range(conns):
            ws = await connect(url, max_size=None, compression=None, open_timeout=60)
            sockets.append(ws)
            await ws.send('{"type": "ping"}')
            await ws.recv()
        await asyncio.sleep(1.0)
        after_conns = rss_mib(pid)
    finally:
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    per_conn = (after_conns - after_games) * 1024 / max(1, conns)
    return per_game, per_conn


async def loop_lag(seconds: float, tick: float = 0.01) -> list[float]:
    """Sleeps ``tick`` after ``tick`` for ``seconds``; how much later than asked each
    sleep ended, sorted: the client's own delays (a busy client or a busy machine), which
    are in its acks too."""
    lags = []
    end = time.perf_counter() + seconds
    while (now := time.perf_counter()) < end:
        await asyncio.sleep(tick)
        lags.append(max(0.0, time.perf_counter() - now - tick))
    return sorted(lags)


async def gc_figures(proc: subprocess.Popen[str]) -> dict[str, Any]:
    """The server's garbage collections since the last call (its SIGUSR2 answer)."""
    assert proc.stdout is not None
    proc.send_signal(signal.SIGUSR2)
    line = await asyncio.to_thread(proc.stdout.readline)
    figures: dict[str, Any] = json.loads(line)
    return figures


async def run(args: argparse.Namespace, port: int, proc: subprocess.Popen[str]) -> dict[str, Any]:
    pid = proc.pid
    base = f"http://127.0.0.1:{port}"
    url = f"ws://127.0.0.1:{port}/ws"
    limits = httpx.Limits(max_connections=50, max_keepalive_connections=50)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120) as http:
        per_game, per_conn = await memory_phase(
            url, http, pid, args.idle_games, args.conns, args.idle_wait
        )
        stats = Stats()
        stop = asyncio.Event()
        players = []
        for n in range(args.games):  # ramp up gently: a burst of connects is not the test
            if args.people > 1:
                load = table_of_people(url, http, args, n, stats, stop)
            else:
                load = player(url, http, args.level, stats, stop)
            players.append(asyncio.create_task(load))
            await asyncio.sleep(args.ramp / max(1, args.games))
        await asyncio.sleep(args.warmup)
        if args.profile:
            os.kill(pid, signal.SIGUSR1)
        cpu0, client0, t0 = cpu_seconds(pid), time.process_time(), time.perf_counter()
        loop0 = loop_cpu_seconds(pid)
        wait0 = wait_seconds(pid)
        await gc_figures(proc)  # from now on
        stats.measuring = True
        lags = await loop_lag(args.seconds)
        stats.measuring = False
        gc = await gc_figures(proc)
        elapsed = time.perf_counter() - t0
        cpu = (cpu_seconds(pid) - cpu0) / elapsed
        loop_cpu = (loop_cpu_seconds(pid) - loop0) / elapsed
        wait = (wait_seconds(pid) - wait0) / elapsed
        client_cpu = (time.process_time() - client0) / elapsed
        rss = rss_mib(pid)
        stop.set()
        for t in players:
            t.cancel()
        await asyncio.gather(*players, return_exceptions=True)
    acks = sorted(stats.acks)

    def pct(p: float, sample: list[float] = acks) -> float:
        if not sample:
            return float("nan")
        return 1000 * sample[min(len(sample) - 1, int(p * len(sample)))]

    return {
        "plays_per_s": stats.plays / elapsed,
        "plays_per_cpu_s": stats.plays / elapsed / cpu if cpu > 0 else float("nan"),
        "acks": len(acks),
        "ack_p50_ms": pct(0.50),
        "ack_p95_ms": pct(0.95),
        "ack_p99_ms": pct(0.99),
        "ack_max_ms": 1000 * acks[-1] if acks else float("nan"),
        "ack_mean_ms": 1000 * statistics.fmean(acks) if acks else float("nan"),
        "errors": stats.errors,
        "error_samples": stats.error_samples,
        "dropped": stats.dropped,
        "games_finished": stats.games_finished,
        "server_cpu_cores": cpu,
        "loop_cpu_cores": loop_cpu,
        "plays_per_loop_cpu_s": stats.plays / elapsed / loop_cpu if loop_cpu > 0 else float("nan"),
        "server_wait_cores": wait,
        "client_cpu_cores": client_cpu,
        "client_lag_p99_ms": pct(0.99, lags),
        "client_lag_max_ms": pct(1.0, lags),
        "server_rss_mib": rss,
        "rss_per_idle_game_kib": per_game,
        "rss_per_connection_kib": per_conn,
        "gc_collections": gc["collections"],
        "gc_ms": [1000 * x for x in gc["seconds"]],
        "gc_cpu_ms": [1000 * x for x in gc["cpu_seconds"]],
        "gc_max_ms": [1000 * x for x in gc["max"]],
        "gc_over_20ms": gc["over_20ms"],
    }


def start_server(
    args: argparse.Namespace, src: str | None, db: Path
) -> tuple[subprocess.Popen[str], int]:
    env = dict(os.environ)
    # every client of the benchmark is 127.0.0.1: lift the per-address limit (an older
    # server ignores the variable)
    sockets = args.games * args.people + args.conns
    env.setdefault("WHISTKIT_MAX_CONNECTIONS_PER_CLIENT", str(2 * sockets + 100))
    if src:
        env["PYTHONPATH"] = str(Path(src).resolve() / "src")
    cmd = [sys.executable, "-c", SERVER, str(db), str(args.bot_delay)]
    if args.profile:
        cmd.append(args.profile)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.strip():
        proc.kill()
        raise SystemExit("the server did not start")
    return proc, int(line)


def think_range(text: str) -> tuple[float, float]:
    low, _, high = text.partition(":")
    try:
        pair = float(low), float(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"LOW:HIGH in seconds, not {text!r}") from None
    if not 0 <= pair[0] <= pair[1]:
        raise argparse.ArgumentTypeError(f"0 <= LOW <= HIGH, not {text!r}")
    return pair


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", "--tables", type=int, default=200, help="games (tables)")
    p.add_argument(
        "--people",
        type=int,
        choices=(1, 2, 3, 4),
        default=1,
        help="people per game: 1, solo games (a client at S); more, shared tables with"
        " a client per person seat (S, W, N, E in that order; bots elsewhere)",
    )
    p.add_argument(
        "--think",
        type=think_range,
        default=(0.0, 0.0),
        metavar="LOW:HIGH",
        help="with --people above 1: seconds a person takes to act once it is their turn,"
        " uniformly at random (seeded), e.g. 1:3",
    )
    p.add_argument("--seed", type=int, default=1, help="the persons' pauses")
    p.add_argument("--bot-delay", type=float, default=0.0, help="seconds (server default 0.7)")
    p.add_argument("--level", default="club")
    p.add_argument("--seconds", type=float, default=20.0, help="the measured window")
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--ramp", type=float, default=5.0, help="seconds to open all the games")
    p.add_argument("--idle-games", type=int, default=500)
    p.add_argument("--conns", type=int, default=200)
    p.add_argument(
        "--idle-wait",
        type=float,
        default=0.0,
        help="seconds to wait before measuring the idle games (past the server's"
        " WHISTKIT_IDLE_SECONDS they may be unloaded)",
    )
    p.add_argument("--src", help="a checkout whose src/ the server runs (default: installed)")
    p.add_argument(
        "--db-dir",
        help="where the database goes (default: a temporary folder; /dev/shm"
        " measures without the disk)",
    )
    p.add_argument("--profile", help="write the server's cProfile statistics to this file")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    p.add_argument(
        "--against",
        metavar="TREE",
        help="also run the server of another checkout (e.g. a worktree of the commit before"
        " the rework), alternating with this one, and print the ratios",
    )
    p.add_argument("--rounds", type=int, default=1, help="with --against: pairs of runs")
    args = p.parse_args()
    raise_fd_limit()
    if not args.against:
        out = measure(args, args.src)
        print(json.dumps(out) if args.json else report(args, out))
        return
    runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    for _ in range(args.rounds):  # alternating, so that both see the same machine
        for name, src in (("before", args.against), ("after", args.src)):
            out = measure(args, src)
            runs[name].append(out)
            print(json.dumps(out) if args.json else report(args, out), flush=True)

    def median(name: str, key: str) -> float:
        return float(statistics.median(r[key] for r in runs[name]))

    print(f"after / before ({args.rounds} run(s) each, medians):")
    for key, label in (
        ("plays_per_s", "plays/s"),
        ("plays_per_cpu_s", "plays per CPU s"),
        ("plays_per_loop_cpu_s", "plays per loop CPU s"),
        ("ack_p99_ms", "ack p99 ms"),
    ):
        b, a = median("before", key), median("after", key)
        print(f"  {label:18} {b:9.1f} -> {a:9.1f}  ({a / b:.2f}x)")


def measure(args: argparse.Namespace, src: str | None) -> dict[str, Any]:
    """One run of the server of ``src`` (None: the installed one) under the load."""
    with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp:
        load_start = loadavg()
        proc, port = start_server(args, src, Path(tmp) / "games.sqlite3")
        try:
            out = asyncio.run(run(args, port, proc))
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        out["load_start"] = load_start
        out["load_end"] = loadavg()
    out.update(games=args.games, people=args.people, think=list(args.think))
    out.update(bot_delay=args.bot_delay, level=args.level, src=src or "installed")
    return out


def report(args: argparse.Namespace, out: dict[str, Any]) -> str:
    if args.people > 1:
        low, high = args.think
        what = (
            f"{args.games} shared tables, {args.people} people each"
            f" ({args.games * args.people} sockets) acting {low:g} to {high:g} s after"
            f" their turn comes, turn time off"
        )
    else:
        what = f"{args.games} games, a client at S acting at once"
    lines = [
        f"server {out['src']}: {what}, {args.level} bots, bot delay"
        f" {args.bot_delay:g} s, {args.seconds:g} s measured, database in"
        f" {args.db_dir or tempfile.gettempdir()}",
        f"  plays/s            {out['plays_per_s']:9.0f}",
        f"  ack ms             p50 {out['ack_p50_ms']:.1f}  p95 {out['ack_p95_ms']:.1f}"
        f"  p99 {out['ack_p99_ms']:.1f}  max {out['ack_max_ms']:.1f}  ({out['acks']} acks)",
        f"  errors             {out['errors']} (dropped sockets {out['dropped']})",
        *(f"    {sample}" for sample in out["error_samples"]),
        f"  server CPU         {out['server_cpu_cores']:.2f} cores, and {out['server_wait_cores']:.2f}"
        " waiting for one (ready to run: the machine's share)",
        f"  plays per CPU s    {out['plays_per_cpu_s']:9.0f}  (the server's; steadier on a"
        " busy machine)",
        f"  event loop thread  {out['loop_cpu_cores']:.2f} cores, {out['plays_per_loop_cpu_s']:.0f}"
        " plays per its CPU s (one thread: the ceiling of one process)",
        f"  client CPU         {out['client_cpu_cores']:.2f} cores"
        + (
            "  (the client took most of a core: its own delays are in the acks)"
            if out["client_cpu_cores"] > 0.8
            else ""
        ),
        f"  client loop lag    p99 {out['client_lag_p99_ms']:.1f}  max"
        f" {out['client_lag_max_ms']:.1f} ms  (late wake-ups of the client's loop, in its"
        " acks too)",
        "  server GC          young / middle / full: collections {}, pause ms {} (CPU {}),"
        " longest {}, over 20 ms {}".format(
            *(
                " / ".join(f"{x:.0f}" for x in out[key])
                for key in ("gc_collections", "gc_ms", "gc_cpu_ms", "gc_max_ms", "gc_over_20ms")
            )
        ),
        f"  server RSS         {out['server_rss_mib']:.0f} MiB",
        f"  RSS per idle game  {out['rss_per_idle_game_kib']:.1f} KiB",
        f"  RSS per connection {out['rss_per_connection_kib']:.1f} KiB",
        f"  load average       {out['load_start']} -> {out['load_end']}",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
