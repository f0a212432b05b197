"""The server process's garbage-collection policy (docs/web.md, "Garbage collection").

Measured at 1,000 concurrent games (``benchmarks/server_load.py``): the cyclic garbage a
server makes is a few objects per closed TCP connection (asyncio's socket transport
holds a bound method of itself) and the imports' leftovers at startup, while CPython's
default thresholds (700, 10, 10) ran a full collection whenever the live heap (mostly
the connections' asyncio, uvicorn and WebSocket objects: about 250,000 objects) had
grown by a quarter, each one pausing the event loop for 50 ms to a second to find almost
nothing; and most young objects live as long as a bot's pause, so small thresholds
scanned each of them twice. So :func:`apply` collects once and freezes what startup made
(modules, the app: never scanned again), makes young collections rarer (past the bots'
pauses most objects die before one sees them: the collector's CPU down to a sixth, in fewer
and longer pauses, about 60 ms at 1,000 games) and leaves the full collections to a
timer (:func:`full_collections`, every ``gc_full_seconds``), which bounds how long
cyclic garbage lives, with CPython's own trigger kept as a backstop.
"""

from __future__ import annotations

import asyncio
import gc

from .limits import Limits

# full collections by CPython's own trigger after this many middle ones (a backstop: at
# the default thresholds that is 10,000 x 50 x 1,000 = 500 million objects allocated and
# kept, days under the load of 1,000 games; the timer comes first)
FULL_BACKSTOP = 1000


def apply(limits: Limits) -> None:
    """Collect what startup left, freeze the rest, set the thresholds: call once, after
    the app is built and before the server serves."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(limits.gc_young, limits.gc_middle, FULL_BACKSTOP)


async def full_collections(seconds: float) -> None:
    """A full collection every ``seconds`` until cancelled (run as a task on the server's
    event loop): no cyclic garbage outlives one period."""
    while True:
        await asyncio.sleep(seconds)
        gc.collect()


__all__ = ["FULL_BACKSTOP", "apply", "full_collections"]
