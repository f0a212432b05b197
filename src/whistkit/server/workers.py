"""Where the server's bots think: on the event loop, or in worker processes.

A ``beginner`` or ``club`` bot chooses in about 0.2 ms, less than handing its view to a
thread or a process costs (pickling a view and back is about as long): it chooses on the
event loop. An ``expert`` searches for up to a second: it thinks in a pool of worker
processes, so that the server's second core does the searching while the first answers
the sockets (threads would share one interpreter lock with the event loop).

``$WHISTKIT_BOT_WORKERS`` sets the number of processes (default: the cores less one, at
least one; ``0``: a thread instead of processes).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import os

from ..state import Action, View
from .table import choose, think_in_thread

WORKERS_ENV = "WHISTKIT_BOT_WORKERS"
INLINE_LEVELS = frozenset({"beginner", "club"})  # fast enough to choose on the loop


def default_workers() -> int:
    """``$WHISTKIT_BOT_WORKERS`` if set, else the cores less one (at least one)."""
    raw = os.environ.get(WORKERS_ENV)
    if raw is None:
        return max(1, (os.cpu_count() or 1) - 1)
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{WORKERS_ENV} must be a whole number, not {raw!r}") from None
    if value < 0:
        raise ValueError(f"{WORKERS_ENV} must be at least 0, not {raw!r}")
    return value


class BotWorkers:
    """Bots' thinking: inline for the fast levels, a process pool (started on first use)
    for the others."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    async def think(self, level: str, view: View, seed: int) -> Action:
        """A ``level`` bot's choice from ``view`` (see :func:`whistkit.server.table.choose`)."""
        if level in INLINE_LEVELS:
            return choose(level, view, seed)
        if self.processes == 0:
            return await think_in_thread(level, view, seed)
        if self._pool is None:
            # spawned, not forked: the server's threads (the store's writer) stay out
            context = multiprocessing.get_context("spawn")
            self._pool = concurrent.futures.ProcessPoolExecutor(self.processes, context)
        return await asyncio.wrap_future(self._pool.submit(choose, level, view, seed))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def bot_thinker() -> BotWorkers:
    """The server's :class:`BotWorkers`, sized by :func:`default_workers`."""
    return BotWorkers(default_workers())


__all__ = ["INLINE_LEVELS", "WORKERS_ENV", "BotWorkers", "bot_thinker", "default_workers"]
