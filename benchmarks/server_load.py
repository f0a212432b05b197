"""The web server under load: N concurrent games on loopback, as many clients as games.

Usage: python benchmarks/server_load.py [--games N] [--people P [--think LOW:HIGH]]
       [--bot-delay S] [--level L] [--seconds D] [--warmup W] [--idle-games G] [--conns C] [--src TREE]
       [--against TREE [--rounds R]] [--db-dir DIR] [--profile FILE] [--json]
       [--servers N [--routing sticky|random] [--pg-fsync on|off]]
       [--compare-servers A,B [--rounds R]] [--clients K] [--client picows|websockets]

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

Several server processes (issue 31): ``--servers N`` starts a private PostgreSQL and
Redis (``tests/services.py``, from Debian's packages, in a temporary folder) and N server
processes on them (the same script, ``serve(db, ..., bus=REDIS)``); without it the
server is the single process on SQLite above, unchanged. PostgreSQL's ``fsync`` is on
(an ack means the action is on disk, as SQLite's are; ``--pg-fsync off`` to measure
without the disk). Games (tables) are created by ``POST`` on each process in turn; a
created game is stored but owned by no process until the first join, whose process takes
it. The clients' sockets go to ``/ws?game=ID`` (what the page's will carry for a proxy):

- ``--routing sticky`` (the default): to the process the game id hashes to (CRC-32
  modulo N), as a proxy routing by game (``hash $arg_game consistent``) sends them, so
  every socket of a game is on its owner and nothing is relayed;
- ``--routing random``: each socket to a process drawn at random (seeded); at a shared
  table the sockets that land off the table's owner are relayed to it over Redis. A solo
  game is taken by the process its only socket joins, so it is never relayed here.

A client keeps its socket for its next game (table) when that game goes to the same
process, and opens a new one otherwise (as a page whose URL names the game does). The
figures are as above, with: server CPU, RSS, waiting and GC summed over all the server
processes; the event loop threads' CPU in all and each process's (each is the ceiling of
its process); PostgreSQL's CPU (its postmaster and all its backends and workers) and
Redis' apart, and the plays per CPU-second of all of them together.

``--compare-servers 1,2 --rounds R`` runs 1 and 2 processes (both on PostgreSQL and
Redis, each run on a fresh pair) alternately and prints the ratios of the medians side
by side: plays/s, acks, the CPU of the servers, PostgreSQL, Redis and the client, and
plays per CPU-second. ``--clients K`` shares the games out over K client processes
(each plays games k, k + K, ...; all measure the same window): one client process takes
about a fifth of a core per 1,000 plays/s, so past about 4,000 plays/s (or when the
client CPU line says a client took most of a core) one client would be the bottleneck.
The client CPU is then the sum, with the busiest process's. The issue's three runs:

    # (a) plays/s at 200 games with no pause, 2 processes against 1
    python benchmarks/server_load.py --compare-servers 1,2 --rounds 3 --games 200 \
        --bot-delay 0 --idle-games 0 --conns 0 --seconds 20
    # (b) 2,000 solo games at the default pace: ack p99 (and --servers 1 alike)
    python benchmarks/server_load.py --servers 2 --games 2000 --bot-delay 0.7 \
        --ramp 20 --warmup 10 --seconds 30
    # (c) 500 shared tables, 2,000 people acting 1 to 3 s after their turn: ack p99
    python benchmarks/server_load.py --servers 2 --people 4 --tables 500 --think 1:3 \
        --ramp 20 --warmup 10 --seconds 60

(for (b) and (c) ``--compare-servers 1,2`` in place of ``--servers 2`` gives both; add
``--clients 2`` when a client takes most of a core).

The solo games' clients use picows (``--client picows``, the default since 5 December
2026): the client shares the machine's cores with the servers it measures, and the
websockets library's client took 0.068 ms of CPU per card against picows' 0.03 (200
games, no pause, one process: 0.23 against 0.11 to 0.12 cores at 3,400 to 4,100
plays/s). ``--client websockets`` gives the earlier client, for figures comparable with
the older ones; shared tables always use it.

Anchor (issue 18, main before the rework): about 1,300 to 1,450 plays/s on one core with
club bots and no pause; ack p99 320 ms at 200 games.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import multiprocessing
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import orjson
from picows import WSFrame, WSListener, WSMsgType, WSTransport, ws_connect
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
    import os
    # --servers: the processes share one Redis (a checkout before the cluster takes no bus)
    bus = os.environ.get("SERVER_LOAD_BUS")
    options = {"bus": bus} if bus else {}
    serve(sys.argv[1], host="127.0.0.1", port=0, bot_delay=float(sys.argv[2]), ready=ready,
          **options)
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


def total(figure: Callable[[int], float], pids: list[int]) -> float:
    """``figure`` summed over the processes ``pids`` (the server processes)."""
    return sum(figure(pid) for pid in pids)


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


@dataclass
class Targets:
    """Where the clients go: the server processes' ports, and which one a socket picks.

    ``cluster`` False is the single process on SQLite, as before: a client's socket goes
    to ``/ws``, opened before its first game and kept for all. In a cluster a socket goes
    to ``/ws?game=ID`` (as the page's will, for a proxy that routes by game): at the
    process the game id hashes to (``sticky``, what ``hash $arg_game consistent`` gives),
    or at a random one (``random``); a client keeps its socket for its next game when
    that game goes to the same process, and opens a new one otherwise."""

    ports: list[int]
    routing: str = "sticky"
    cluster: bool = False

    def http(self, at: int) -> str:
        return f"http://127.0.0.1:{self.ports[at]}"

    def ws(self, at: int, game: str | None = None) -> str:
        url = f"ws://127.0.0.1:{self.ports[at]}/ws"
        return url if game is None else f"{url}?game={quote(game, safe='')}"

    def pick(self, game: str, rng: random.Random) -> int:
        if len(self.ports) == 1:
            return 0
        if self.routing == "sticky":  # a stable hash: the same process for every socket
            return zlib.crc32(game.encode()) % len(self.ports)
        return rng.randrange(len(self.ports))


class Posts:
    """The HTTP clients, one per server process: games are created on each in turn."""

    def __init__(self, targets: Targets, start: int = 0) -> None:
        limits = httpx.Limits(max_connections=50, max_keepalive_connections=50)
        self.clients = [
            httpx.AsyncClient(base_url=targets.http(at), limits=limits, timeout=120)
            for at in range(len(targets.ports))
        ]
        self.turn = start

    def next(self) -> httpx.AsyncClient:
        client = self.clients[self.turn % len(self.clients)]
        self.turn += 1
        return client

    async def __aenter__(self) -> Posts:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.gather(*(c.aclose() for c in self.clients))


class Socket:
    """One client's WebSocket, at the process its routing picks (see :class:`Targets`)."""

    def __init__(self, targets: Targets, rng: random.Random) -> None:
        self.targets = targets
        self.rng = rng
        self.ws: ClientConnection | None = None
        self.at = -1

    async def open(self, at: int, game: str | None = None) -> ClientConnection:
        await self.close()
        self.ws = await connect(
            self.targets.ws(at, game), max_size=None, compression=None, open_timeout=60
        )
        self.at = at
        return self.ws

    async def for_game(self, game: str) -> ClientConnection:
        if not self.targets.cluster:
            return self.ws if self.ws is not None else await self.open(0)
        at = self.targets.pick(game, self.rng)
        if self.ws is None or at != self.at:
            return await self.open(at, game)
        return self.ws

    async def close(self) -> None:
        ws, self.ws = self.ws, None
        if ws is not None:
            await ws.close()


def next_action(
    msg: dict[str, Any], seat: str, acted_at: int, seen: int, free: bool
) -> dict[str, Any] | None:
    """What a client at ``seat`` sends on ``msg`` (a message with a view): its first legal
    action with the version it saw, if the view is the latest (``seen``), newer than the
    one it last acted on, says it is to act, and no action of its is waiting for its ack
    (``free``); else None."""
    view = msg["view"]
    v = msg["v"]
    if view["to_play"] != seat or not view["legal"] or v <= acted_at or v != seen or not free:
        return None
    action = dict(view["legal"][0])
    action["v"] = v  # the version this client saw (ignored by old servers)
    return action


EVENT_PREFIX = b'{"type":"event","v":'
TO_PLAY_S = b'"to_play":"S"'
NO_WINNER = b'"winner":null'
PLAY_EVENT = b'"event":{"type":"play"'


class FastGame(WSListener):
    """A solo game's S client on picows (``--client picows``, the default): the moves of
    :func:`play_game` without a pause (its first legal action at once, acting on the
    latest view when the ack of its last action comes), run in the frame callback: no
    task, queue or future per message, and only the messages S acts on are parsed, so
    the client takes about a third of the CPU per card that the websockets library's
    client takes, on the cores it shares with the servers."""

    def __init__(self, stats: Stats) -> None:
        super().__init__()
        self.stats = stats
        self.transport: WSTransport | None = None
        self.done: asyncio.Future[None] | None = None
        self.parts: list[bytes] = []  # a fragmented message's frames so far

    def play(self, game: str, token: str) -> asyncio.Future[None]:
        """Join ``game`` at S; the future resolves when its game is over."""
        assert self.transport is not None
        self.acted_at = -1
        self.sent_at: float | None = None
        self.seen = 0
        self.latest: dict[str, Any] = {}
        self.done = asyncio.get_running_loop().create_future()
        join = {"type": "join", "game": game, "seat": "S", "token": token}
        self.transport.send(WSMsgType.TEXT, orjson.dumps(join))
        return self.done

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.transport = transport

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        if self.done is not None and not self.done.done():
            self.done.set_exception(ConnectionError("the socket closed"))

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        kind = frame.msg_type
        if kind == WSMsgType.CLOSE:
            transport.disconnect()
            return
        if kind not in (WSMsgType.TEXT, WSMsgType.CONTINUATION):
            return
        if not frame.fin or self.parts:
            self.parts.append(frame.get_payload_as_bytes())
            if not frame.fin:
                return
            payload: Any = b"".join(self.parts)
            self.parts = []
        else:
            payload = frame.get_payload_as_memoryview()
        if self.done is None or self.done.done():
            return
        # most messages are a bot's card with a view where S does nothing: counted and
        # passed over from their text (the server writes compact JSON with "type" and
        # "v" first), so that the client's CPU stays small beside the servers'
        text = bytes(payload)
        if text.startswith(EVENT_PREFIX) and TO_PLAY_S not in text and NO_WINNER in text:
            end = text.index(b",", len(EVENT_PREFIX))
            self.seen = max(self.seen, int(text[len(EVENT_PREFIX) : end]))
            if PLAY_EVENT in text and self.stats.measuring:
                self.stats.plays += 1
            return
        self.message(orjson.loads(text))

    def message(self, msg: dict[str, Any]) -> None:
        stats, kind = self.stats, msg["type"]
        if kind == "error":
            stats.error(f"{msg['code']}: {msg['message']}")
            self.sent_at = None
            return
        if kind == "ack":
            if self.sent_at is not None and stats.measuring:
                stats.acks.append(time.perf_counter() - self.sent_at)
            self.sent_at = None
            msg = self.latest  # the events (and view) come before the ack
        else:
            self.seen = max(self.seen, msg.get("v", 0))
            event = msg.get("event")
            if kind == "event" and event and event.get("type") == "play" and stats.measuring:
                stats.plays += 1
        if "view" in msg:
            self.latest = msg
        view = msg.get("view")
        if view is None:
            return
        if view["winner"]:
            stats.games_finished += 1
            assert self.done is not None
            self.done.set_result(None)
            return
        action = next_action(msg, "S", self.acted_at, self.seen, self.sent_at is None)
        if action is not None:
            self.acted_at = msg["v"]
            self.sent_at = time.perf_counter()
            assert self.transport is not None
            self.transport.send(WSMsgType.TEXT, orjson.dumps(action))


async def fast_player(
    targets: Targets,
    posts: Posts,
    level: str,
    number: int,
    seed: int,
    stats: Stats,
    stop: asyncio.Event,
) -> None:
    """:func:`player` on picows: one S client, game after game, its socket at the process
    its routing picks (kept while the next game goes to the same process)."""
    rng = random.Random(f"{seed}:route:{number}")
    at = -1
    client: FastGame | None = None
    transport: WSTransport | None = None
    try:
        while not stop.is_set():
            game = await new_game(posts.next(), level)
            want = targets.pick(game["id"], rng) if targets.cluster else 0
            if transport is None or want != at or transport.is_disconnected:
                if transport is not None:
                    transport.disconnect()
                url = targets.ws(want, game["id"] if targets.cluster else None)
                transport, listener = await ws_connect(
                    lambda: FastGame(stats), url, max_frame_size=1 << 24
                )
                assert isinstance(listener, FastGame)
                client, at = listener, want
            assert client is not None
            done = client.play(game["id"], game["token"])
            stopped: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
            either: set[asyncio.Future[Any]] = {done, stopped}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            if not done.done():  # the run stopped: nobody waits for this game any more
                done.cancel()
                return
            done.result()
    except Exception as e:  # a dropped socket is a figure, not the benchmark's end
        if not stop.is_set():
            stats.dropped += 1
            stats.error(f"socket: {type(e).__name__}: {e}")
    finally:
        if transport is not None:
            transport.disconnect()


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
    targets: Targets,
    posts: Posts,
    level: str,
    number: int,
    seed: int,
    stats: Stats,
    stop: asyncio.Event,
) -> None:
    """One S client: plays its first legal action whenever it may, game after game."""
    sock = Socket(targets, random.Random(f"{seed}:route:{number}"))
    try:
        if not targets.cluster:
            await sock.open(0)  # one process: the socket first, kept for every game
        while not stop.is_set():
            game = await new_game(posts.next(), level)
            ws = await sock.for_game(game["id"])
            await play_game(ws, game["id"], "S", game["token"], stats, stop)
    except Exception as e:  # a dropped socket is a figure, not the benchmark's end
        if not stop.is_set():
            stats.dropped += 1
            stats.error(f"socket: {type(e).__name__}: {e}")
    finally:
        await sock.close()


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
        msg = orjson.loads(await ws.recv())
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
        action = next_action(msg, seat, acted_at, seen, sent_at is None) if started else None
        if action is not None:
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
    targets: Targets,
    posts: Posts,
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
    sockets = [
        Socket(targets, random.Random(f"{args.seed}:route:{number}:{i}"))
        for i in range(args.people)
    ]
    try:
        if not targets.cluster:  # one process: the sockets first, kept for every table
            for sock in sockets:
                await sock.open(0)
        while not stop.is_set():
            table = await new_table(posts.next(), args.level, args.people)
            tokens = {"S": table["token"], **table["tokens"]}
            wss = [await sock.for_game(table["game"]) for sock in sockets]
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
                    for ws, seat, rng in zip(wss, PEOPLE_SEATS, rngs, strict=False)
                )
            )
    except Exception as e:  # a dropped socket is a figure, not the benchmark's end
        if not stop.is_set():
            stats.dropped += 1
            stats.error(f"socket: {type(e).__name__}: {e}")
    finally:
        await asyncio.gather(*(sock.close() for sock in sockets), return_exceptions=True)


async def memory_phase(
    targets: Targets,
    posts: Posts,
    pids: list[int],
    idle_games: int,
    conns: int,
    idle_wait: float,
) -> tuple[float, float]:
    """RSS per idle game and per open connection, in KiB (of all the server processes:
    the games are created on each in turn, the connections spread over them)."""
    await asyncio.sleep(0.5)
    base = total(rss_mib, pids)
    sem = asyncio.Semaphore(20)

    async def create() -> None:
        async with sem:
            await new_game(posts.next(), "club")

    await asyncio.gather(*(create() for _ in range(idle_games)))
    await asyncio.sleep(1.0 + idle_wait)
    after_games = total(rss_mib, pids)
    per_game = (after_games - base) * 1024 / max(1, idle_games)
    sockets: list[ClientConnection] = []
    try:
        for n in range(conns):
            at = n % len(targets.ports)
            ws = await connect(targets.ws(at), max_size=None, compression=None, open_timeout=60)
            sockets.append(ws)
            await ws.send('{"type": "ping"}')
            await ws.recv()
        await asyncio.sleep(1.0)
        after_conns = total(rss_mib, pids)
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


async def gc_figures(procs: list[subprocess.Popen[str]]) -> dict[str, Any]:
    """The server processes' garbage collections since the last call (their SIGUSR2
    answers), summed over the processes (the longest pause: the longest of them)."""
    for proc in procs:
        proc.send_signal(signal.SIGUSR2)
    merged: dict[str, Any] = {}
    for proc in procs:
        assert proc.stdout is not None
        line = await asyncio.to_thread(proc.stdout.readline)
        figures: dict[str, Any] = json.loads(line)
        for key, values in figures.items():
            if key not in merged:
                merged[key] = values
            elif key == "max":
                merged[key] = [max(a, b) for a, b in zip(merged[key], values, strict=True)]
            else:
                merged[key] = [a + b for a, b in zip(merged[key], values, strict=True)]
    return merged


async def start_load(
    args: argparse.Namespace,
    targets: Targets,
    posts: Posts,
    numbers: range,
    stats: Stats,
    stop: asyncio.Event,
) -> list[asyncio.Task[None]]:
    """The clients of games (tables) ``numbers``, opened over ``args.ramp`` seconds."""
    players = []
    for n in numbers:  # ramp up gently: a burst of connects is not the test
        if args.people > 1:
            load = table_of_people(targets, posts, args, n, stats, stop)
        else:
            play = fast_player if args.client == "picows" else player
            load = play(targets, posts, args.level, n, args.seed, stats, stop)
        players.append(asyncio.create_task(load))
        await asyncio.sleep(args.ramp / max(1, len(numbers)))
    return players


async def stop_load(players: list[asyncio.Task[None]], stop: asyncio.Event) -> None:
    stop.set()
    for t in players:
        t.cancel()
    await asyncio.gather(*players, return_exceptions=True)


def share(stats: Stats, cpu: float, lags: list[float]) -> dict[str, Any]:
    """What one client process saw over the window (CPU in seconds)."""
    return {
        "plays": stats.plays,
        "acks": stats.acks,
        "errors": stats.errors,
        "error_samples": stats.error_samples,
        "dropped": stats.dropped,
        "games_finished": stats.games_finished,
        "cpu": cpu,
        "lags": lags,
    }


def client_process(
    args: argparse.Namespace, targets: Targets, index: int, conn: Connection
) -> None:
    """``--clients K``: one of K client processes, playing games ``index``, ``index +
    K``, ...; told by the benchmark when to start and when its window is (times of
    ``time.perf_counter``, the machine's monotonic clock), it answers its share."""
    raise_fd_limit()
    conn.send("ready")
    start, measure_at, end_at = conn.recv()
    conn.send(asyncio.run(client_share(args, targets, index, start, measure_at, end_at)))
    conn.close()


async def client_share(
    args: argparse.Namespace,
    targets: Targets,
    index: int,
    start: float,
    measure_at: float,
    end_at: float,
) -> dict[str, Any]:
    await asyncio.sleep(max(0.0, start - time.perf_counter()))
    stats, stop = Stats(), asyncio.Event()
    async with Posts(targets, start=index) as posts:
        numbers = range(index, args.games, args.clients)
        players = await start_load(args, targets, posts, numbers, stats, stop)
        await asyncio.sleep(max(0.0, measure_at - time.perf_counter()))
        client0 = time.process_time()
        stats.measuring = True
        lags = await loop_lag(end_at - time.perf_counter())
        stats.measuring = False
        cpu = time.process_time() - client0
        await stop_load(players, stop)
    return share(stats, cpu, lags)


class Window:
    """The measured window's figures of the server processes (and, in a cluster, of
    PostgreSQL and Redis): read at :meth:`open` and at :meth:`close`."""

    def __init__(
        self, args: argparse.Namespace, procs: list[subprocess.Popen[str]], others: dict[str, int]
    ) -> None:
        self.args = args
        self.procs = procs
        self.pids = [proc.pid for proc in procs]
        self.others = others  # "postgres", "redis": their main process

    async def open(self) -> None:
        if self.args.profile:
            for pid in self.pids:
                os.kill(pid, signal.SIGUSR1)
        self.cpu0, self.client0, self.t0 = (
            total(cpu_seconds, self.pids),
            time.process_time(),
            time.perf_counter(),
        )
        self.loop0 = [loop_cpu_seconds(pid) for pid in self.pids]
        self.wait0 = total(wait_seconds, self.pids)
        self.others0 = {name: cpu_seconds(pid) for name, pid in self.others.items()}
        await gc_figures(self.procs)  # from now on

    async def close(self) -> dict[str, Any]:
        gc = await gc_figures(self.procs)
        elapsed = time.perf_counter() - self.t0
        loops = [
            (loop_cpu_seconds(pid) - before) / elapsed
            for pid, before in zip(self.pids, self.loop0, strict=True)
        ]
        return {
            "elapsed": elapsed,
            "cpu": (total(cpu_seconds, self.pids) - self.cpu0) / elapsed,
            "loops": loops,
            "wait": (total(wait_seconds, self.pids) - self.wait0) / elapsed,
            "client_cpu": (time.process_time() - self.client0) / elapsed,
            "others": {
                name: (cpu_seconds(pid) - self.others0[name]) / elapsed
                for name, pid in self.others.items()
            },
            "rss": total(rss_mib, self.pids),
            "gc": gc,
        }


async def run(
    args: argparse.Namespace,
    targets: Targets,
    procs: list[subprocess.Popen[str]],
    others: dict[str, int],
) -> dict[str, Any]:
    window = Window(args, procs, others)
    async with Posts(targets) as posts:
        per_game, per_conn = await memory_phase(
            targets, posts, window.pids, args.idle_games, args.conns, args.idle_wait
        )
        if args.clients == 1:  # the clients in this process
            stats = Stats()
            stop = asyncio.Event()
            players = await start_load(args, targets, posts, range(args.games), stats, stop)
            await asyncio.sleep(args.warmup)
            await window.open()
            stats.measuring = True
            lags = await loop_lag(args.seconds)
            stats.measuring = False
            w = await window.close()
            shares = [share(stats, w["client_cpu"] * w["elapsed"], lags)]
            await stop_load(players, stop)
        else:
            shares, w = await run_clients(args, targets, window)
    return figures(shares, w, per_game, per_conn)


async def run_clients(
    args: argparse.Namespace, targets: Targets, window: Window
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``--clients K``: the games shared out over K client processes, all measuring
    over the same window as the servers."""
    spawn = multiprocessing.get_context("spawn")
    pipes, clients = [], []
    try:
        for index in range(args.clients):
            mine, theirs = spawn.Pipe()
            proc = spawn.Process(
                target=client_process, args=(args, targets, index, theirs), daemon=True
            )
            proc.start()
            theirs.close()
            pipes.append(mine)
            clients.append(proc)
        for mine in pipes:
            if await asyncio.to_thread(mine.recv) != "ready":
                raise SystemExit("a client process did not start")
        start = time.perf_counter() + 0.2
        measure_at = start + args.ramp + args.warmup
        end_at = measure_at + args.seconds
        for mine in pipes:
            mine.send((start, measure_at, end_at))
        await asyncio.sleep(max(0.0, measure_at - time.perf_counter()))
        await window.open()
        await asyncio.sleep(max(0.0, end_at - time.perf_counter()))
        w = await window.close()
        shares = [await asyncio.to_thread(mine.recv) for mine in pipes]
    finally:
        for proc in clients:
            await asyncio.to_thread(proc.join, 60)
            if proc.is_alive():
                proc.terminate()
                proc.join()
    return shares, w


def figures(
    shares: list[dict[str, Any]], w: dict[str, Any], per_game: float, per_conn: float
) -> dict[str, Any]:
    """The run's figures from the clients' shares and the servers' window."""
    elapsed, cpu, wait, gc = w["elapsed"], w["cpu"], w["wait"], w["gc"]
    loop_cpu = sum(w["loops"])
    plays = sum(s["plays"] for s in shares)
    acks = sorted(a for s in shares for a in s["acks"])
    lags = sorted(lag for s in shares for lag in s["lags"])
    clients = [s["cpu"] / elapsed for s in shares]

    def pct(p: float, sample: list[float] = acks) -> float:
        if not sample:
            return float("nan")
        return 1000 * sample[min(len(sample) - 1, int(p * len(sample)))]

    out = {
        "plays_per_s": plays / elapsed,
        "plays_per_cpu_s": plays / elapsed / cpu if cpu > 0 else float("nan"),
        "acks": len(acks),
        "ack_p50_ms": pct(0.50),
        "ack_p95_ms": pct(0.95),
        "ack_p99_ms": pct(0.99),
        "ack_max_ms": 1000 * acks[-1] if acks else float("nan"),
        "ack_mean_ms": 1000 * statistics.fmean(acks) if acks else float("nan"),
        "errors": sum(s["errors"] for s in shares),
        "error_samples": [e for s in shares for e in s["error_samples"]][:5],
        "dropped": sum(s["dropped"] for s in shares),
        "games_finished": sum(s["games_finished"] for s in shares),
        "server_cpu_cores": cpu,
        "loop_cpu_cores": loop_cpu,
        "plays_per_loop_cpu_s": plays / elapsed / loop_cpu if loop_cpu > 0 else float("nan"),
        "server_wait_cores": wait,
        "client_cpu_cores": sum(clients),
        "client_lag_p99_ms": pct(0.99, lags),
        "client_lag_max_ms": pct(1.0, lags),
        "server_rss_mib": w["rss"],
        "rss_per_idle_game_kib": per_game,
        "rss_per_connection_kib": per_conn,
        "gc_collections": gc["collections"],
        "gc_ms": [1000 * x for x in gc["seconds"]],
        "gc_cpu_ms": [1000 * x for x in gc["cpu_seconds"]],
        "gc_max_ms": [1000 * x for x in gc["max"]],
        "gc_over_20ms": gc["over_20ms"],
    }
    if len(shares) > 1:
        out.update(clients=len(shares), client_cpu_max_cores=max(clients))
    if w["others"]:  # a cluster
        service = cpu + sum(w["others"].values())
        out.update(
            loop_cpu_per_server=w["loops"],
            postgres_cpu_cores=w["others"]["postgres"],
            redis_cpu_cores=w["others"]["redis"],
            plays_per_service_cpu_s=plays / elapsed / service if service > 0 else float("nan"),
        )
    return out


def start_services(
    args: argparse.Namespace, folder: Path, stack: contextlib.ExitStack
) -> tuple[str, str, dict[str, int]]:
    """A private PostgreSQL (fsync as ``--pg-fsync``) and Redis (tests/services.py), stopped
    when ``stack`` closes: their URLs and their main processes' ids."""
    tests = str(Path(__file__).resolve().parent.parent / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from services import Postgres, Redis

    pg = Postgres(fsync=args.pg_fsync == "on").start()
    stack.callback(pg.stop)
    redis = Redis(folder / "redis").start()
    stack.callback(redis.stop)
    assert redis.proc is not None
    # the postmaster's id heads its pid file; its children are the backends and workers
    postmaster = int((pg.data / "postmaster.pid").read_text().split()[0])
    return pg.url, redis.url, {"postgres": postmaster, "redis": redis.proc.pid}


def start_servers(
    args: argparse.Namespace,
    src: str | None,
    db: str | Path,
    count: int,
    stack: contextlib.ExitStack,
    bus: str | None = None,
) -> tuple[list[subprocess.Popen[str]], list[int]]:
    """``count`` server processes (started together), stopped when ``stack`` closes."""
    env = dict(os.environ)
    # every client of the benchmark is 127.0.0.1: lift the per-address limit (an older
    # server ignores the variable)
    sockets = args.games * args.people + args.conns
    env.setdefault("WHISTKIT_MAX_CONNECTIONS_PER_CLIENT", str(2 * sockets + 100))
    # and the per-address bounds on new games, and the message rate of a socket (the
    # benchmark's players answer at once, faster than a person)
    env.setdefault("WHISTKIT_NEW_GAMES_PER_MINUTE", "1000000")
    env.setdefault("WHISTKIT_MAX_LIVE_GAMES_PER_CLIENT", "1000000")
    env.setdefault("WHISTKIT_MAX_MESSAGES_PER_SECOND", "100000")
    if src:
        env["PYTHONPATH"] = str(Path(src).resolve() / "src")
    env.pop("SERVER_LOAD_BUS", None)
    if bus:
        env["SERVER_LOAD_BUS"] = bus
    procs = []
    for n in range(count):
        cmd = [sys.executable, "-c", SERVER, str(db), str(args.bot_delay)]
        if args.profile:  # one file per process: FILE, or FILE.1, FILE.2, ...
            cmd.append(args.profile if count == 1 else f"{args.profile}.{n + 1}")
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
        stack.callback(stop_server, proc)
        procs.append(proc)
    ports = []
    for proc in procs:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.strip():
            raise SystemExit("the server did not start")
        ports.append(int(line))
    return procs, ports


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def think_range(text: str) -> tuple[float, float]:
    low, _, high = text.partition(":")
    try:
        pair = float(low), float(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"LOW:HIGH in seconds, not {text!r}") from None
    if not 0 <= pair[0] <= pair[1]:
        raise argparse.ArgumentTypeError(f"0 <= LOW <= HIGH, not {text!r}")
    return pair


def server_counts(text: str) -> tuple[int, int]:
    a, _, b = text.partition(",")
    try:
        pair = int(a), int(b)
    except ValueError:
        raise argparse.ArgumentTypeError(f"A,B (numbers of processes), not {text!r}") from None
    if min(pair) < 1:
        raise argparse.ArgumentTypeError(f"at least one process each, not {text!r}")
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
    p.add_argument("--seed", type=int, default=1, help="the persons' pauses, --routing random")
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
        " measures without the disk; SQLite only)",
    )
    p.add_argument(
        "--servers",
        type=int,
        default=0,
        metavar="N",
        help="N server processes on a private PostgreSQL and Redis (default: one process"
        " on SQLite)",
    )
    p.add_argument(
        "--routing",
        choices=("sticky", "random"),
        default="sticky",
        help="with --servers: a socket goes to the process its game id hashes to (as a"
        " proxy routing by game does), or to a random one",
    )
    p.add_argument(
        "--pg-fsync",
        choices=("on", "off"),
        default="on",
        help="with --servers: PostgreSQL's fsync (on: an ack means stored on disk)",
    )
    p.add_argument(
        "--compare-servers",
        type=server_counts,
        metavar="A,B",
        help="run A and B server processes (both on PostgreSQL and Redis) alternately"
        " (--rounds pairs) and print the ratios B / A, e.g. 1,2",
    )
    p.add_argument(
        "--clients",
        type=int,
        default=1,
        metavar="K",
        help="client processes sharing the games (when one client would take a core)",
    )
    p.add_argument(
        "--client",
        choices=("picows", "websockets"),
        default="picows",
        help="the solo games' client library (picows: about a third of the CPU per card;"
        " shared tables always use websockets)",
    )
    p.add_argument("--profile", help="write the server's cProfile statistics to this file")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    p.add_argument(
        "--against",
        metavar="TREE",
        help="also run the server of another checkout (e.g. a worktree of the commit before"
        " the rework), alternating with this one, and print the ratios",
    )
    p.add_argument(
        "--rounds", type=int, default=1, help="with --against, --compare-servers: pairs of runs"
    )
    args = p.parse_args()
    if args.against and args.compare_servers:
        p.error("--against and --compare-servers: one comparison at a time")
    if args.servers < 0 or args.clients < 1:
        p.error("--servers N needs N >= 1, --clients K K >= 1")
    raise_fd_limit()
    if args.compare_servers:
        first, second = args.compare_servers
        runs: dict[str, list[dict[str, Any]]] = {"first": [], "second": []}
        for _ in range(args.rounds):  # alternating, so that both see the same machine
            for name, count in (("first", first), ("second", second)):
                out = measure(args, args.src, count)
                runs[name].append(out)
                print(json.dumps(out) if args.json else report(args, out), flush=True)
        print(
            f"{second} / {first} server processes ({args.rounds} run(s) each, medians;"
            f" {first} -> {second}):"
        )
        print_ratios(runs["first"], runs["second"], CLUSTER_RATIOS)
        return
    if not args.against:
        out = measure(args, args.src, args.servers)
        print(json.dumps(out) if args.json else report(args, out))
        return
    runs = {"before": [], "after": []}
    for _ in range(args.rounds):  # alternating, so that both see the same machine
        for name, src in (("before", args.against), ("after", args.src)):
            out = measure(args, src, args.servers)
            runs[name].append(out)
            print(json.dumps(out) if args.json else report(args, out), flush=True)
    print(f"after / before ({args.rounds} run(s) each, medians):")
    print_ratios(runs["before"], runs["after"], RATIOS if not args.servers else CLUSTER_RATIOS)


RATIOS = (
    ("plays_per_s", "plays/s"),
    ("plays_per_cpu_s", "plays per CPU s"),
    ("plays_per_loop_cpu_s", "plays per loop CPU s"),
    ("ack_p99_ms", "ack p99 ms"),
)
CLUSTER_RATIOS = (
    ("plays_per_s", "plays/s"),
    ("ack_p50_ms", "ack p50 ms"),
    ("ack_p99_ms", "ack p99 ms"),
    ("server_cpu_cores", "server CPU cores"),
    ("postgres_cpu_cores", "PostgreSQL CPU"),
    ("redis_cpu_cores", "Redis CPU"),
    ("client_cpu_cores", "client CPU cores"),
    ("plays_per_cpu_s", "plays per CPU s"),
    ("plays_per_service_cpu_s", "plays per all CPU s"),
    ("plays_per_loop_cpu_s", "plays per loop CPU s"),
    ("errors", "errors"),
    ("dropped", "dropped sockets"),
)


def print_ratios(
    before: list[dict[str, Any]], after: list[dict[str, Any]], keys: tuple[tuple[str, str], ...]
) -> None:
    width = max(18, *(len(label) for _, label in keys))
    for key, label in keys:
        b = float(statistics.median(r[key] for r in before))
        a = float(statistics.median(r[key] for r in after))
        ratio = f"  ({a / b:.2f}x)" if b else ""
        # CPU figures in cores: two decimals
        f = ".2f" if keys is CLUSTER_RATIOS and max(abs(a), abs(b)) < 10 else ".1f"
        print(f"  {label:{width}} {b:9{f}} -> {a:9{f}}{ratio}")


def measure(args: argparse.Namespace, src: str | None, servers: int = 0) -> dict[str, Any]:
    """One run of the server of ``src`` (None: the installed one) under the load: one
    process on SQLite, or ``servers`` processes on a private PostgreSQL and Redis."""
    with tempfile.TemporaryDirectory(dir=args.db_dir) as tmp, contextlib.ExitStack() as stack:
        load_start = loadavg()
        if servers:
            db, bus, others = start_services(args, Path(tmp), stack)
            procs, ports = start_servers(args, src, db, servers, stack, bus)
        else:
            others = {}
            procs, ports = start_servers(args, src, Path(tmp) / "games.sqlite3", 1, stack)
        targets = Targets(ports, args.routing, cluster=bool(servers))
        out = asyncio.run(run(args, targets, procs, others))
        stack.close()  # the servers stopped, then Redis and PostgreSQL
        out["load_start"] = load_start
        out["load_end"] = loadavg()
    out.update(games=args.games, people=args.people, think=list(args.think))
    out.update(bot_delay=args.bot_delay, level=args.level, src=src or "installed")
    if servers:
        out.update(servers=servers, routing=args.routing, pg_fsync=args.pg_fsync)
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
    servers = out.get("servers", 0)
    if servers:
        where = (
            f"servers {out['src']}, {servers} process{'es' if servers > 1 else ''}: {what},"
            f" {args.level} bots, bot delay {args.bot_delay:g} s, {args.seconds:g} s"
            f" measured, on PostgreSQL (fsync {out['pg_fsync']}) and Redis, routing"
            f" {out['routing']}"
        )
    else:
        where = (
            f"server {out['src']}: {what}, {args.level} bots, bot delay"
            f" {args.bot_delay:g} s, {args.seconds:g} s measured, database in"
            f" {args.db_dir or tempfile.gettempdir()}"
        )
    client = f"  client CPU         {out['client_cpu_cores']:.2f} cores"
    busiest = out.get("client_cpu_max_cores", out["client_cpu_cores"])
    if "clients" in out:
        client += f" in {out['clients']} processes, the busiest {busiest:.2f}"
    if busiest > 0.8:
        who = "a client process" if "clients" in out else "the client"
        client += f"  ({who} took most of a core: its own delays are in the acks)"
    loop = (
        f"  event loop thread  {out['loop_cpu_cores']:.2f} cores, {out['plays_per_loop_cpu_s']:.0f}"
        " plays per its CPU s (one thread: the ceiling of one process)"
    )
    if servers:
        loop = (
            f"  event loop threads {out['loop_cpu_cores']:.2f} cores in all ("
            + ", ".join(f"{x:.2f}" for x in out["loop_cpu_per_server"])
            + f"), {out['plays_per_loop_cpu_s']:.0f} plays per their CPU s (one thread:"
            " the ceiling of one process)"
        )
    lines = [
        where,
        f"  plays/s            {out['plays_per_s']:9.0f}",
        f"  ack ms             p50 {out['ack_p50_ms']:.1f}  p95 {out['ack_p95_ms']:.1f}"
        f"  p99 {out['ack_p99_ms']:.1f}  max {out['ack_max_ms']:.1f}  ({out['acks']} acks)",
        f"  errors             {out['errors']} (dropped sockets {out['dropped']})",
        *(f"    {sample}" for sample in out["error_samples"]),
        f"  server CPU         {out['server_cpu_cores']:.2f} cores, and {out['server_wait_cores']:.2f}"
        " waiting for one (ready to run: the machine's share)"
        + (" (all the server processes)" if servers else ""),
        *(
            [
                f"  PostgreSQL CPU     {out['postgres_cpu_cores']:.2f} cores; Redis CPU"
                f" {out['redis_cpu_cores']:.2f} cores",
            ]
            if servers
            else []
        ),
        f"  plays per CPU s    {out['plays_per_cpu_s']:9.0f}  (the server's; steadier on a"
        " busy machine)"
        + (
            f"; {out['plays_per_service_cpu_s']:.0f} per CPU s of the servers, PostgreSQL and Redis"
            if servers
            else ""
        ),
        loop,
        client,
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
