"""The server's limits: what one client, and all of them together, may cost it.

Each limit has a sane default, an environment variable (``WHISTKIT_MAX_FRAME_BYTES``...)
and a flag of ``whistkit play`` (``--max-frame-bytes``...); a flag wins over the
variable. docs/web.md lists them. Besides the settings (:class:`Limits`) this module
holds the bounded structures the server builds from them: a connection's outgoing queue
(:class:`Outbox`), a bounded cache (:class:`LRU`) and a queue of slow jobs with bounded
concurrency and a bounded wait list (:class:`WorkQueue`).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import json
import os
from collections.abc import Awaitable, Callable, Hashable, Mapping
from typing import Any, Generic, TypeVar

try:  # not on every platform
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

# file descriptors kept for the database, static files and the like when the connection
# limit is derived from the open-files limit
FD_RESERVE = 64
# asyncio accepts up to a backlog of connections per turn of the event loop, and a
# connection is refused (its descriptor closed) a few turns later: this many backlogs of
# descriptors are kept free for connections accepted but not yet refused
ACCEPT_BATCHES = 4


def open_files_limit() -> int | None:
    """The process's soft limit on open files (None if unknown or unlimited)."""
    if resource is None:  # pragma: no cover
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def default_max_connections(backlog: int = 0) -> int:
    """Connections in all: what the open-files limit leaves after :data:`FD_RESERVE`
    and :data:`ACCEPT_BATCHES` times ``backlog`` (connections accepted but not yet
    refused), at least 8 and at most 10,000."""
    soft = open_files_limit()
    if soft is None:
        return 10_000
    return max(8, min(10_000, soft - FD_RESERVE - ACCEPT_BATCHES * backlog))


def _limit(default: int | None, help: str, least: int = 1) -> Any:
    return dataclasses.field(default=default, metadata={"help": help, "least": least})


@dataclasses.dataclass(frozen=True)
class Limits:
    """The server's limits; ``None`` for ``max_connections`` derives it from the
    open-files limit (:func:`default_max_connections`)."""

    max_frame_bytes: int = _limit(
        64 * 1024, "largest WebSocket message read; a larger one closes the socket (1009)", 256
    )
    max_body_bytes: int = _limit(
        64 * 1024, "largest HTTP request body; a larger one is refused (413) unread", 256
    )
    max_connections: int | None = _limit(
        None,
        "open connections in all; more are refused (503) at once (default: the open-files"
        f" limit less {FD_RESERVE} and {ACCEPT_BATCHES} backlogs)",
    )
    max_connections_per_client: int = _limit(
        32, "open connections from one client address; more are refused (503)"
    )
    backlog: int = _limit(64, "connections waiting to be accepted (listen backlog)")
    header_timeout: int = _limit(
        10, "seconds a new connection has to send its request before it is closed"
    )
    body_timeout: int = _limit(
        10, "seconds a request has to send its whole body after its head; a slower one gets 408"
    )
    join_timeout: int = _limit(
        30, "seconds a WebSocket has to join or watch a game; one that has not is closed (1008)"
    )
    idle_timeout: int = _limit(
        150,
        "seconds a WebSocket may send nothing (the page pings at least every 25 s); a"
        " quieter one is closed (1001)",
    )
    max_sockets_per_game: int = _limit(
        64,
        "WebSockets following one game, its players and watchers together; more are"
        " refused (game_full)",
    )
    max_messages_per_second: int = _limit(
        20,
        "WebSocket messages read per second per connection, in bursts of twice as many;"
        " more wait unread (TCP holds them back)",
    )
    max_bytes_per_second: int = _limit(
        32 * 1024,
        "bytes of WebSocket messages read per second per connection, in bursts of"
        " --max-frame-bytes more; more wait unread",
        256,
    )
    new_games_per_minute: int = _limit(
        10,
        "games and shared tables one client address may create per minute, in bursts of"
        " twice as many; more are refused (429)",
    )
    max_live_games_per_client: int = _limit(
        50,
        "unfinished games one client address created within --live-game-seconds; more are"
        " refused (429)",
    )
    max_live_games: int = _limit(
        100_000,
        "unfinished games played within --live-game-seconds, all addresses together; more"
        " new ones are refused (429)",
    )
    live_game_seconds: int = _limit(
        86_400,
        "how long an unfinished game counts as live after its creation (per address) or its"
        " last move (in all); older ones stay stored and count no more",
    )
    max_outbox_bytes: int = _limit(
        1024 * 1024, "bytes waiting to go to one WebSocket; a slower reader is disconnected", 4096
    )
    hint_workers: int = _limit(2, "hints worked out at the same time, server-wide")
    hint_queue: int = _limit(64, "hints waiting for a worker; more are refused (busy)", 0)
    hint_cache: int = _limit(4096, "hints kept for identical positions", 0)
    review_workers: int = _limit(1, "reviews worked out at the same time")
    review_queue: int = _limit(8, "reviews waiting for a worker; more are refused (503)", 0)
    review_cache: int = _limit(64, "finished games' reviews kept in memory", 0)
    # the garbage collector (server.collector; docs/web.md, "Garbage collection")
    gc_young: int = _limit(
        10_000, "objects allocated and kept between young garbage collections", 100
    )
    gc_middle: int = _limit(50, "young garbage collections per middle one")
    gc_full_seconds: int = _limit(
        600, "seconds between full garbage collections (the longest cyclic garbage lives)"
    )

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None and f.name == "max_connections":
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"--{_flag(f.name)} must be a whole number, not {value!r}")
            if value < f.metadata["least"]:
                raise ValueError(
                    f"--{_flag(f.name)} must be at least {f.metadata['least']}, not {value}"
                )

    @property
    def connections(self) -> int:
        """The connection limit in force."""
        if self.max_connections is None:
            return default_max_connections(self.backlog)
        return self.max_connections

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The defaults, overridden by ``WHISTKIT_<NAME>`` variables; a bad value is a
        ``ValueError`` naming the variable."""
        env = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for f in dataclasses.fields(cls):
            name = env_name(f.name)
            raw = env.get(name)
            if raw is None:
                continue
            text = raw.strip()
            if not (text.isascii() and text.isdigit() and len(text) <= 12):
                raise ValueError(f"{name} must be a whole number, not {raw[:40]!r}")
            values[f.name] = int(text)
            if values[f.name] < f.metadata["least"]:
                raise ValueError(f"{name} must be at least {f.metadata['least']}, not {raw!r}")
        return cls(**values)

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser | Any) -> None:
        """A ``--max-frame-bytes N`` flag (and so on) per limit."""
        for f in dataclasses.fields(cls):
            default = "" if f.default is None else f"default {f.default}, "
            parser.add_argument(
                f"--{_flag(f.name)}",
                type=int,
                metavar="N",
                dest=f"limit_{f.name}",
                help=f"web game: {f.metadata['help']} ({default}${env_name(f.name)})",
            )

    @classmethod
    def from_args(
        cls, args: argparse.Namespace, environ: Mapping[str, str] | None = None
    ) -> Limits:
        """The environment's limits with the flags given in ``args`` applied."""
        base = cls.from_env(environ)
        given = {
            f.name: getattr(args, f"limit_{f.name}")
            for f in dataclasses.fields(cls)
            if getattr(args, f"limit_{f.name}", None) is not None
        }
        return dataclasses.replace(base, **given)

    @staticmethod
    def flags_given(args: argparse.Namespace) -> list[str]:
        """The limit flags set in ``args`` (for refusing them with ``--text``)."""
        return [
            f"--{_flag(f.name)}"
            for f in dataclasses.fields(Limits)
            if getattr(args, f"limit_{f.name}", None) is not None
        ]


def _flag(name: str) -> str:
    return name.replace("_", "-")


def env_name(name: str) -> str:
    """The environment variable of the limit ``name``: ``WHISTKIT_MAX_FRAME_BYTES``."""
    return "WHISTKIT_" + name.upper()


class Outbox(asyncio.Queue[dict[str, Any]]):
    """A connection's outgoing messages, bounded in bytes.

    Messages are serialised as they are queued; when the bytes waiting would pass
    ``limit`` the message is dropped, :attr:`overflowed` is set and ``on_overflow`` is
    called once: the connection is then closed (its reader is too slow), and whoever
    publishes to it (a table) goes on undisturbed.
    """

    def __init__(
        self,
        limit: int,
        on_overflow: Callable[[], None] | None = None,
        encode: Callable[[dict[str, Any]], str] | None = None,
    ) -> None:
        super().__init__()
        self.limit = limit
        self.on_overflow = on_overflow
        # the server passes protocol.dumps_message (orjson); json.dumps by default
        self.encode = encode or _dumps
        self.waiting_bytes = 0
        self.overflowed = False
        self._texts: collections.deque[str] = collections.deque()
        self.conn: Any = None  # the connection whose queue this is

    def put_nowait(self, item: dict[str, Any]) -> None:
        if self.overflowed:
            return
        self._queue_text(self.encode(item), item)

    def put_text(self, text: str) -> None:
        """A message already made JSON text (relayed from another process)."""
        if not self.overflowed:
            self._queue_text(text, None)

    def _queue_text(self, text: str, item: dict[str, Any] | None) -> None:
        if self.waiting_bytes + len(text) > self.limit:
            self.overflowed = True
            self._texts.clear()
            self.waiting_bytes = 0
            if self.on_overflow is not None:
                self.on_overflow()
            return
        self.waiting_bytes += len(text)
        self._texts.append(text)
        super().put_nowait(item or _RELAYED)

    async def next_text(self) -> str:
        """The next message as JSON text (waits for one)."""
        while True:
            await self.get()
            if self._texts:
                text = self._texts.popleft()
                self.waiting_bytes -= len(text)
                return text


_RELAYED: dict[str, Any] = {}  # the queue's item for a message queued as text


def _dumps(item: dict[str, Any]) -> str:
    return json.dumps(item, ensure_ascii=False)


class Bucket:
    """A token bucket: ``rate`` tokens come back a second, at most ``size`` are kept; it
    starts full. Taking more than it holds leaves it in debt: :meth:`take` says how long
    to wait until the debt is paid (a reader that waits that long before reading on
    keeps to the rate)."""

    def __init__(self, rate: float, size: float, now: float) -> None:
        self.rate = rate
        self.size = size
        self.tokens = size
        self.stamp = now

    def take(self, amount: float, now: float) -> float:
        """Take ``amount`` tokens at time ``now`` (seconds); the seconds until the bucket
        is out of debt again (0 when it is not in debt)."""
        self.tokens = min(self.size, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        self.tokens -= amount
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate

    def take_whole(self, amount: float, now: float) -> float:
        """Take ``amount`` tokens only if the bucket holds them: 0 when taken, else the
        seconds until it will (nothing is taken then)."""
        self.tokens = min(self.size, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= amount:
            self.tokens -= amount
            return 0.0
        return (amount - self.tokens) / self.rate


_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")


class LRU(Generic[_K, _V]):
    """A mapping that keeps at most ``size`` entries, forgetting the least recently used."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: collections.OrderedDict[_K, _V] = collections.OrderedDict()

    def get(self, key: _K) -> _V | None:
        if key not in self._data:
            return None
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key: _K, value: _V) -> None:
        if self.size <= 0:
            return
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.size:
            self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data


class Busy(Exception):
    """A work queue is full: the request is refused, to be tried again later."""


class WorkQueue(Generic[_K, _V]):
    """Slow jobs keyed by what they compute: at most ``workers`` run at once, at most
    ``waiting`` more wait (beyond that :class:`Busy`), identical requests share one run,
    and results are kept in an :class:`LRU` of ``cache`` entries."""

    def __init__(self, workers: int, waiting: int, cache: int) -> None:
        self.slots = asyncio.Semaphore(workers)
        self.workers = workers
        self.waiting = waiting
        self.cache: LRU[_K, _V] = LRU(cache)
        self.running: dict[_K, asyncio.Task[_V]] = {}

    def cached(self, key: _K) -> _V | None:
        return self.cache.get(key)

    def in_flight(self, key: _K) -> bool:
        return key in self.running

    def submit(self, key: _K, job: Callable[[], Awaitable[_V]]) -> asyncio.Task[_V]:
        """The run for ``key`` under way, or a new one once a worker is free (the cache is
        not looked at). Raises :class:`Busy` when ``workers + waiting`` jobs are already
        under way or waiting."""
        task = self.running.get(key)
        if task is None:
            if len(self.running) >= self.workers + self.waiting:
                raise Busy(f"{len(self.running)} jobs are under way or waiting")
            task = asyncio.get_running_loop().create_task(self._run(key, job))
            self.running[key] = task
        return task

    async def run(self, key: _K, job: Callable[[], Awaitable[_V]]) -> _V:
        """The result of ``job`` for ``key``: from the cache, from a run already under
        way, or from a new run (:meth:`submit`)."""
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        # shielded: a requester that goes away does not stop the job for the others
        return await asyncio.shield(self.submit(key, job))

    async def _run(self, key: _K, job: Callable[[], Awaitable[_V]]) -> _V:
        try:
            async with self.slots:
                value = await job()
            self.cache.put(key, value)
            return value
        finally:
            self.running.pop(key, None)


__all__ = [
    "ACCEPT_BATCHES",
    "FD_RESERVE",
    "LRU",
    "Bucket",
    "Busy",
    "Limits",
    "Outbox",
    "WorkQueue",
    "default_max_connections",
    "env_name",
    "open_files_limit",
]
