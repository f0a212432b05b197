"""Who may create a game or a shared table (``POST /api/games``, ``POST /api/tables``),
or join an online evening through its open link (at the same rate, in a bucket of its
own).

Three bounds, each refused with a 429 naming its flag (docs/web.md, "Facing the
internet"):

- ``--new-games-per-minute``: a client address's rate of new games (a token bucket of
  twice that many, refilled at that rate);
- ``--max-live-games-per-client``: the unfinished games an address created within
  ``--live-game-seconds``; an older game, or a finished one, no longer counts;
- ``--max-live-games``: the unfinished games of the whole server created or played
  within ``--live-game-seconds`` (counted in the database, taken again every few
  seconds).

Nothing stored is ever removed to make room: an abandoned game stays in the database
(its link still opens it); it only stops counting once it is old.

Alone, a process keeps each address's bucket and games in memory (for the
:data:`ADDRESSES` addresses seen last). With a bus (several processes) they are kept
in Redis, so that the bounds hold for all the processes together; the count in all is
the shared database's.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from .limits import LRU, Bucket, Limits
from .store import BaseStore

ADDRESSES = 65_536  # client addresses remembered by a lone process
COUNT_SECONDS = 5.0  # the count of live games in all is taken again after this long
PREFIX = "wk:made:"  # Redis keys: wk:made:rate:ADDRESS, wk:made:games:ADDRESS
JOIN = "join:"  # an address's joins of online evenings have their own bucket

# KEYS: the address's bucket; ARGV: now (ms), tokens per ms, size, expiry (ms).
# Returns 0 when a token was taken, else the ms until one will be there.
TAKE = """
local b = redis.call('HMGET', KEYS[1], 't', 's')
local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local size = tonumber(ARGV[3])
local tokens = tonumber(b[1]) or size
local stamp = tonumber(b[2]) or now
tokens = math.min(size, tokens + math.max(now - stamp, 0) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) / rate) end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 's', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return wait
"""


class Refused(Exception):
    """A new game is refused: ``message`` names the limit; ``retry_after`` in seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = max(1, retry_after)


class Ledger(Protocol):
    """Where the addresses' buckets and recent games are kept."""

    async def take(self, address: str, now: float) -> float: ...

    async def games(self, address: str, since: float) -> list[str]: ...

    async def forget(self, address: str, games: list[str]) -> None: ...

    async def add(self, address: str, game: str, now: float, keep: float) -> None: ...


class LocalLedger:
    """This process's memory: a bucket and the recent games of each address."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self.buckets: LRU[str, Bucket] = LRU(ADDRESSES)
        self.made: LRU[str, dict[str, float]] = LRU(ADDRESSES)

    async def take(self, address: str, now: float) -> float:
        bucket = self.buckets.get(address)
        if bucket is None:
            bucket = Bucket(self.per_minute / 60, 2 * self.per_minute, now)
            self.buckets.put(address, bucket)
        return bucket.take_whole(1, now)

    async def games(self, address: str, since: float) -> list[str]:
        made = self.made.get(address) or {}
        for game in [g for g, t in made.items() if t <= since]:
            del made[game]
        return list(made)

    async def forget(self, address: str, games: list[str]) -> None:
        made = self.made.get(address) or {}
        for game in games:
            made.pop(game, None)

    async def add(self, address: str, game: str, now: float, keep: float) -> None:
        made = self.made.get(address)
        if made is None:
            made = {}
            self.made.put(address, made)
        made[game] = now


class RedisLedger:
    """The buckets and recent games in Redis, shared by the processes on one bus."""

    def __init__(self, redis: Any, per_minute: int) -> None:
        self.redis = redis
        self.per_minute = per_minute
        self._take = redis.register_script(TAKE)

    async def take(self, address: str, now: float) -> float:
        size = 2 * self.per_minute
        rate = self.per_minute / 60_000  # tokens per ms
        expiry = int(size / rate) + 1000  # a full bucket needs no key
        wait = await self._take(
            keys=[f"{PREFIX}rate:{address}"], args=[int(now * 1000), rate, size, expiry]
        )
        return int(wait) / 1000

    async def games(self, address: str, since: float) -> list[str]:
        key = f"{PREFIX}games:{address}"
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(key, "-inf", since)
            pipe.zrange(key, 0, -1)
            _, members = await pipe.execute()
        return [m.decode() if isinstance(m, bytes) else str(m) for m in members]

    async def forget(self, address: str, games: list[str]) -> None:
        if games:
            await self.redis.zrem(f"{PREFIX}games:{address}", *games)

    async def add(self, address: str, game: str, now: float, keep: float) -> None:
        key = f"{PREFIX}games:{address}"
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(key, {game: now})
            pipe.expire(key, int(keep) + 1)
            await pipe.execute()


class Admission:
    """The bounds on new games (see the module's docstring)."""

    def __init__(self, limits: Limits, store: BaseStore, redis: Any = None) -> None:
        self.limits = limits
        self.store = store
        self.ledger: Ledger = (
            LocalLedger(limits.new_games_per_minute)
            if redis is None
            else RedisLedger(redis, limits.new_games_per_minute)
        )
        self._live = 0  # the count in all when last taken, plus the games made since
        self._counted = -COUNT_SECONDS

    async def admit(self, address: str) -> None:
        """Raise :class:`Refused` when ``address`` may not create a game now."""
        lim = self.limits
        now = time.time()
        window = lim.live_game_seconds
        wait = await self.ledger.take(address, now)
        if wait > 0:
            raise Refused(
                f"too many new games from your address: at most {lim.new_games_per_minute}"
                f" a minute (--new-games-per-minute); try again in {wait:.0f} s",
                int(wait) + 1,
            )
        games = await self.ledger.games(address, now - window)
        if len(games) >= lim.max_live_games_per_client:
            finished = [g.id for g in self.store.list(ids=games, finished=True)]
            await self.ledger.forget(address, finished)
            if len(games) - len(finished) >= lim.max_live_games_per_client:
                raise Refused(
                    f"your address has {len(games) - len(finished)} unfinished games started"
                    f" in the last {_span(window)}; at most {lim.max_live_games_per_client}"
                    " (--max-live-games-per-client): finish one, or try again later",
                    min(window, 600),  # a game finished meanwhile frees a place
                )
        mono = time.monotonic()
        if mono - self._counted >= COUNT_SECONDS:
            self._live = self.store.count_live(now - window)
            self._counted = mono
        if self._live >= lim.max_live_games:
            raise Refused(
                f"the server has {self._live} unfinished games played in the last"
                f" {_span(window)}; at most {lim.max_live_games} (--max-live-games):"
                " try again later",
                60,
            )

    async def admit_join(self, address: str) -> None:
        """Raise :class:`Refused` when ``address`` may not join an online evening through
        its open link now: a bucket of its own per address, at the rate of new games."""
        per_minute = self.limits.new_games_per_minute
        wait = await self.ledger.take(JOIN + address, time.time())
        if wait > 0:
            raise Refused(
                f"too many joins from your address: at most {per_minute} a minute"
                f" (--new-games-per-minute); try again in {wait:.0f} s",
                int(wait) + 1,
            )

    async def made(self, address: str, game: str) -> None:
        """``address`` created ``game``."""
        self._live += 1
        await self.ledger.add(address, game, time.time(), self.limits.live_game_seconds)


def _span(seconds: int) -> str:
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    return f"{seconds} s"


__all__ = ["ADDRESSES", "Admission", "LocalLedger", "RedisLedger", "Refused"]
