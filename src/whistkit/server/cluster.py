"""Several server processes on one Redis (``--bus redis://HOST:PORT/N``): who owns which
table, and the messages between the processes (docs/deploy.md).

**Ownership.** A table is live in exactly one process at a time, its owner, which holds
the table's lease: the Redis key ``wk:lease:GAME`` holding ``NODE|TOKEN``, set only if
absent and with an expiry (``--lease-seconds``, default 4 s) that the owner renews
every quarter of it for all its tables in one script, from a thread of its own on a
connection of its own while the event loop's heartbeat is at most two lease times old
(a loop late by seconds under a burst keeps its tables; a hung one loses them). The token is drawn from the
counter ``wk:fence:GAME`` when the lease is taken, so each owner of a table has a larger
one; the new owner raises the game's row to it in the database before it reads the game
(:meth:`whistkit.server.store.BaseStore.claim`), and every write of a table carries it,
so a write of an older owner is refused by the database (fencing). An owner also stops
itself: it counts its lease valid only until the time it sent the last successful
renewal plus the expiry less a margin (by its own monotonic clock, which runs on while
the process is stopped), and checks that before it publishes, acts or lets a bot play;
a lease found lapsed or taken is let go: the table leaves memory and its sockets are
closed so that the pages reconnect (to any process).

**Messages.** Each process (a *node*) subscribes to its own channel ``wk:node:NODE``
and publishes to the others' over one connection, in order. A WebSocket may land on any
process: when its ``join`` (or ``watch``) names a table owned elsewhere, the process
relays the socket to the owner (``open``, then every client message as ``in``, and
``close``); the owner runs it as one of its own connections, whose messages go back
(``out``, batched per process and turn of the loop). A process marks itself alive
(``wk:alive:NODE``, same expiry); an owner closes the relayed connections of a process
that is no longer alive, and a relaying process closes its sockets whose owner no longer
holds the lease (killed, stopped, or let go), so that they reconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson

log = logging.getLogger("whistkit.server")

LEASE_ENV = "WHISTKIT_LEASE_SECONDS"
# the keeper thread renews the leases while the event loop's heartbeat is at most this
# many lease times old: a busy loop keeps its tables, a hung one lets them lapse
HUNG_LEASES = 2.0
DEFAULT_LEASE_SECONDS = 4.0
PREFIX = "wk:"
OUTGOING_MAX = 100_000  # messages waiting to be published, at most
REDIS_CONNECTIONS = 32  # per process: its subscription, its publisher, its commands

# KEYS: the lease, the fence counter; ARGV: node, expiry (ms). Returns {1, token} when
# taken, {0, "NODE|TOKEN"} when held.
ACQUIRE = """
local held = redis.call('GET', KEYS[1])
if held then return {0, held} end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
return {1, token}
"""
# KEYS: leases; ARGV: expiry (ms), then each lease's expected value. Returns the 1-based
# indexes of the leases no longer held.
RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i + 1] then
    redis.call('PEXPIRE', key, ARGV[1])
  else
    table.insert(lost, i)
  end
end
return lost
"""
# KEYS: the lease; ARGV: its expected value
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def default_lease_seconds() -> float:
    raw = os.environ.get(LEASE_ENV)
    if raw is None:
        return DEFAULT_LEASE_SECONDS
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{LEASE_ENV} must be a number of seconds, not {raw!r}") from None
    if not 0.2 <= value <= 600:
        raise ValueError(f"{LEASE_ENV} must be from 0.2 to 600 seconds, not {raw!r}")
    return value


def lease_key(game: str) -> str:
    return f"{PREFIX}lease:{game}"


def node_channel(node: str) -> str:
    return f"{PREFIX}node:{node}"


def alive_key(node: str) -> str:
    return f"{PREFIX}alive:{node}"


@dataclass
class Lease:
    """A table's lease as its owner holds it."""

    game: str
    token: int
    value: str  # "NODE|TOKEN", as in Redis
    valid_until: float  # by this process's monotonic clock


class Elsewhere(Exception):
    """The table is owned by another process (``node``)."""

    def __init__(self, game: str, node: str) -> None:
        super().__init__(f"game {game} is owned by {node}")
        self.game = game
        self.node = node


Handler = Callable[[str, dict[str, Any]], None]  # (kind, message)


class Cluster:
    """This process's part of the cluster: its leases, its channel, its publisher."""

    def __init__(self, url: str, *, lease_seconds: float | None = None) -> None:
        try:
            import redis.asyncio as aioredis
        except ImportError:
            raise ValueError(
                "--bus redis://... needs redis-py: pip install 'whistkit[service]'"
            ) from None
        self.url = url
        self.lease_seconds = default_lease_seconds() if lease_seconds is None else lease_seconds
        self.node = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        # a bounded pool whose callers wait for a free connection (a burst of joins takes
        # leases by the thousand; the plain pool would refuse them past its size)
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=REDIS_CONNECTIONS,
            timeout=10,
            socket_connect_timeout=5,
            socket_timeout=max(5.0, self.lease_seconds),
        )
        self.redis: Any = aioredis.Redis(connection_pool=pool)
        # the leases are renewed on a connection of their own: behind a burst of joins
        # the pool's callers queue, and a renewal that waited there with them came after
        # the leases had lapsed (2,000 games at once lost hundreds of tables)
        # ... and from a thread of their own, so that an event loop that is busy (late
        # by seconds under a burst) keeps its tables: the thread renews while the loop's
        # heartbeat is at most HUNG_LEASES lease times old, so a hung loop (or a stopped
        # process) still loses them and another process takes over
        import redis

        self.keeper: Any = redis.Redis.from_url(
            url,
            single_connection_client=True,
            socket_connect_timeout=5,
            socket_timeout=max(5.0, self.lease_seconds),
        )
        self._beat = time.monotonic()  # the event loop's last heartbeat
        self._stop = threading.Event()
        self._keeper_thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.leases: dict[str, Lease] = {}
        self.on_message: Handler | None = None
        # called with a game whose lease was found lapsed or taken (from the event loop)
        self.on_lost: Callable[[str], None] | None = None
        # called each keeping round: the relays and relayed connections to check
        self.on_round: Callable[[], Awaitable[None]] | None = None
        self._outgoing: asyncio.Queue[tuple[str, bytes]] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._acquire: Any = None
        self._renew: Any = None
        self._release: Any = None
        self._pubsub: Any = None
        self.started = False
        self._ids = itertools.count(1)
        self._full_told = False

    # -- starting and stopping -------------------------------------------------------

    async def start(self) -> None:
        """Connect, subscribe to this node's channel and start the keeping rounds; a
        Redis that cannot be reached is a ``ValueError`` naming it."""
        try:
            await self.redis.ping()
        except Exception as e:
            raise ValueError(f"cannot reach the bus {self.url}: {e}") from None
        self._acquire = self.redis.register_script(ACQUIRE)
        self._renew = self.keeper.register_script(RENEW)
        self._release = self.redis.register_script(RELEASE)
        self._outgoing = asyncio.Queue()
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(node_channel(self.node))
        loop = self._loop = asyncio.get_running_loop()
        await asyncio.to_thread(self._mark_alive)
        self._beat = time.monotonic()
        self._stop.clear()
        self._keeper_thread = threading.Thread(
            target=self._keep_leases, name="whistkit-leases", daemon=True
        )
        self._keeper_thread.start()
        self._tasks = [
            loop.create_task(self._listen()),
            loop.create_task(self._publish()),
            loop.create_task(self._keep()),
        ]
        self.started = True

    async def close(self) -> None:
        """Let every lease go (the next owner need not wait for them to lapse) and
        disconnect."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        self._stop.set()
        thread, self._keeper_thread = self._keeper_thread, None
        if thread is not None:
            await asyncio.to_thread(thread.join, 2 * self.lease_seconds + 5)
        for game in list(self.leases):
            with contextlib.suppress(Exception):
                await self.release(game)
        with contextlib.suppress(Exception):
            await self.redis.delete(alive_key(self.node))
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.redis.aclose()
        with contextlib.suppress(Exception):
            self.keeper.close()
        with contextlib.suppress(Exception):
            await self.redis.connection_pool.disconnect()
        self.started = False

    # -- leases ----------------------------------------------------------------------

    def margin(self) -> float:
        """How much sooner than Redis this process counts its lease lapsed."""
        return max(0.05, 0.1 * self.lease_seconds)

    async def acquire(self, game: str) -> Lease | str:
        """Take the table's lease: the :class:`Lease` if it was free, else the node that
        holds it."""
        sent = time.monotonic()
        taken, what = await self._acquire(
            keys=[lease_key(game), f"{PREFIX}fence:{game}"],
            args=[self.node, int(self.lease_seconds * 1000)],
        )
        if not taken:
            held = what.decode() if isinstance(what, bytes) else str(what)
            return held.rsplit("|", 1)[0]
        token = int(what)
        lease = Lease(
            game, token, f"{self.node}|{token}", sent + self.lease_seconds - self.margin()
        )
        self.leases[game] = lease
        return lease

    async def holder(self, game: str) -> str | None:
        """The node that holds the table's lease now, or None."""
        value = await self.redis.get(lease_key(game))
        return None if value is None else value.decode().rsplit("|", 1)[0]

    async def holders(self, games: list[str]) -> list[str | None]:
        if not games:
            return []
        values = await self.redis.mget([lease_key(g) for g in games])
        return [None if v is None else v.decode().rsplit("|", 1)[0] for v in values]

    def valid(self, game: str) -> bool:
        """Does this process still hold the table's lease (by its own clock)?"""
        lease = self.leases.get(game)
        return lease is not None and time.monotonic() < lease.valid_until

    async def release(self, game: str) -> None:
        """Let the table's lease go (if it is still this process's)."""
        lease = self.leases.pop(game, None)
        if lease is not None:
            await self._release(keys=[lease_key(game)], args=[lease.value])

    def forget(self, game: str) -> None:
        """Drop a lease without telling Redis (it was lost: it lapses there by itself)."""
        self.leases.pop(game, None)

    def _renew_all(self) -> None:
        """Renew every lease held (from the keeper thread): a lease found lost is let go
        on the event loop."""
        leases = list(self.leases.copy().values())
        if not leases:
            return
        sent = time.monotonic()
        lost = self._renew(
            keys=[lease_key(lease.game) for lease in leases],
            args=[int(self.lease_seconds * 1000), *[lease.value for lease in leases]],
        )
        gone = {int(i) - 1 for i in lost}
        until = sent + self.lease_seconds - self.margin()
        for i, lease in enumerate(leases):
            if i not in gone:
                lease.valid_until = until
        loop = self._loop
        if gone and loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._lost_leases, [leases[i] for i in gone])

    def _lost_leases(self, leases: list[Lease]) -> None:
        for lease in leases:
            if self.leases.get(lease.game) is lease:  # not let go and taken again since
                self._lost(lease.game)

    def _lost(self, game: str) -> None:
        self.leases.pop(game, None)
        if self.on_lost is not None:
            self.on_lost(game)

    def _mark_alive(self) -> None:
        self.keeper.set(alive_key(self.node), b"1", px=int(self.lease_seconds * 1000))

    def _keep_leases(self) -> None:
        """The keeper thread: every quarter of the lease's time, renew the leases and
        the alive mark while the event loop's heartbeat is fresh enough."""
        period = self.lease_seconds / 4
        while not self._stop.wait(period):
            if time.monotonic() - self._beat > HUNG_LEASES * self.lease_seconds:
                continue  # the loop is hung: let the leases lapse
            try:
                self._renew_all()
                self._mark_alive()
            except Exception as e:  # Redis unreachable: the leases lapse by themselves
                log.warning("the bus could not be reached to renew leases: %s", e)

    async def alive(self, nodes: list[str]) -> dict[str, bool]:
        """Which of these nodes marked themselves alive within the lease's time."""
        if not nodes:
            return {}
        values = await self.redis.mget([alive_key(n) for n in nodes])
        return {n: v is not None for n, v in zip(nodes, values, strict=True)}

    async def _keep(self) -> None:
        """Every quarter of the lease's time: the loop's heartbeat (the keeper thread
        renews the leases while it is fresh), let go of lapsed leases, and check the
        relays."""
        period = self.lease_seconds / 4
        while True:
            self._beat = time.monotonic()
            for game in [g for g in self.leases if not self.valid(g)]:
                self._lost(game)
            if self.on_round is not None:
                try:
                    await self.on_round()
                except Exception:
                    log.exception("checking the relays failed")
            await asyncio.sleep(period)

    # -- messages --------------------------------------------------------------------

    def send(self, node: str, message: dict[str, Any]) -> bool:
        """Publish a message to a node (in order, over this process's one publishing
        connection); False, and nothing sent, when :data:`OUTGOING_MAX` messages are
        already waiting for Redis (the caller closes the relay that sent it)."""
        queue = self._outgoing
        if queue is None:
            return False
        if queue.qsize() >= OUTGOING_MAX:
            if not self._full_told:
                log.warning("the bus is behind: %d messages wait; relays are closed", OUTGOING_MAX)
                self._full_told = True
            return False
        self._full_told = False
        queue.put_nowait((node_channel(node), orjson.dumps(message)))
        return True

    def next_id(self) -> str:
        return f"{self.node}:{next(self._ids)}"

    async def _publish(self) -> None:
        assert self._outgoing is not None
        queue = self._outgoing
        while True:
            first = await queue.get()
            batch = [first]
            while not queue.empty() and len(batch) < 512:
                batch.append(queue.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, data in batch:
                        pipe.publish(channel, data)
                    await pipe.execute()
            except Exception as e:
                log.warning("the bus refused %d messages: %s", len(batch), e)

    async def _listen(self) -> None:
        while True:
            try:
                async for item in self._pubsub.listen():
                    if item.get("type") != "message":
                        continue
                    try:
                        message = orjson.loads(item["data"])
                    except orjson.JSONDecodeError:
                        continue
                    if self.on_message is not None:
                        try:
                            self.on_message(str(message.get("t")), message)
                        except Exception:
                            log.exception("a message from the bus could not be handled")
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("the bus subscription broke (%s); subscribing again", e)
                await asyncio.sleep(0.5)
                with contextlib.suppress(Exception):
                    self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
                    await self._pubsub.subscribe(node_channel(self.node))


__all__ = [
    "DEFAULT_LEASE_SECONDS",
    "LEASE_ENV",
    "Cluster",
    "Elsewhere",
    "Lease",
    "default_lease_seconds",
]
