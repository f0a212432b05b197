"""Where the server's slow work runs: bots' decisions, hints and reviews.

A ``beginner`` or ``club`` bot chooses in about 0.2 ms, less than handing its view to a
thread or a process costs (pickling a view and back is about as long): it chooses on the
event loop. Everything slower runs in one pool of worker processes per server, never on
the event loop nor in a thread of the server's process (a thread would share one
interpreter lock with the event loop): an ``expert``'s decision (up to a second), a hint
(a bot's choice for a person: :func:`hint_choice`) and a finished game's review (seconds
to minutes: :func:`analyse_json`). The server's second core does the searching while the
first answers the sockets.

The pool holds ``$WHISTKIT_BOT_WORKERS`` processes (default: the cores less one, at least
one; ``0``: threads of the server's process instead, for tests and tiny machines) and
one more per review that may run at once (``--review-workers``). Any job takes any idle
process, but as no more reviews run at once than that, ``$WHISTKIT_BOT_WORKERS``
processes are always left to the bots and the hints: a review holds its process for
seconds to minutes, and would otherwise stop an expert's game for as long. Processes are
spawned (not forked: the server's threads, the store's writer among them, stay out) when
a job finds none idle.

What waits for the pool is bounded. Hints and reviews wait in their work queues
(:class:`whistkit.server.limits.WorkQueue`), which let at most ``--hint-workers`` hints
and ``--review-workers`` reviews into the pool at once and refuse what is beyond their
wait lists (a hint is answered ``busy``, a review 503 with ``Retry-After``). Bots'
decisions cannot be refused: at most :data:`BOTS_PER_PROCESS` per process are in the
pool at once, and a bot beyond them waits its turn on the event loop (a waiting bot costs
a coroutine and the view it was given; a table has one bot thinking at a time), so that a
hint or a review waits behind a few decisions at most, never behind every table's.

A review's progress (cards judged) comes back on a pipe that all the pool's processes
write to, in messages of a few bytes (a write that small is atomic: no lock that a dying
process could leave held), read by a thread of the server's process.

A worker process that dies (killed, out of memory) breaks the pool: the jobs in it fail
with :class:`WorkerDied` (a hint is answered ``hint_failed``, a review 503 with the error;
a bot's decision, which cannot be refused, is asked again once, in a new pool), and the
next job starts a new pool. The processes end with the server: when it stops (a review
under way is then of no use) and when it dies, since each watches a pipe that only the
server writes to.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import multiprocessing
import os
import random
import struct
import threading
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from .. import analysis
from ..bots import make_bot
from ..record import loads
from ..state import Action, View
from .limits import Limits
from .table import Think, choose, think_in_thread

WORKERS_ENV = "WHISTKIT_BOT_WORKERS"
INLINE_LEVELS = frozenset({"beginner", "club"})  # fast enough to choose on the loop
# bots' decisions in the pool at once, per process: one being worked out and one queued
# behind it (the process starts on it without waiting for a round trip to the loop)
BOTS_PER_PROCESS = 2
# a review's progress on the pipe: (the review's token, cards judged, cards to judge)
PROGRESS = struct.Struct("<qqq")
# a review's progress: (cards judged, cards to judge), as analysis.analyse reports it
Report = Callable[[int, int], None]
_T = TypeVar("_T")


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


# -- the jobs (module-level, so that a worker process finds them by name) ----------------


def hint_choice(level: str, view: View, seed: str) -> Action:
    """A hint: what a new ``level`` bot chooses from ``view`` with randomness seeded by
    ``seed`` (the pieces :meth:`whistkit.server.table.Table.hint_job` gives), so that the
    same position always gives the same hint, wherever it is worked out."""
    return make_bot(level).choose(view, random.Random(seed))


def analyse_json(record: str, node_limit: int, progress: Report | None = None) -> dict[str, Any]:
    """The review of a finished game's record, as JSON (:func:`whistkit.analysis.analyse`
    with ``node_limit`` search nodes per position); ``progress`` hears of each hand."""
    game = loads(record)
    return analysis.analyse(game, node_limit=node_limit, threads=2, progress=progress).to_json()


Analyse = Callable[[str, int, Report | None], dict[str, Any]]

# in a worker process: where it reports reviews' progress (set as the process starts)
_progress: Connection | None = None


def _start_worker(progress: Connection, lifeline: Connection) -> None:
    """A worker process's start: it keeps its end of the progress pipe, and a thread
    ends it as soon as the server lets go of its ``lifeline``: when the server stops
    (the jobs under way are then of no use to anyone) or dies (killed, or ended by a
    signal that skips its exit handlers, as uvicorn's SIGTERM does), where a worker
    would otherwise wait for jobs for ever."""
    global _progress
    _progress = progress
    threading.Thread(target=_live_on, args=(lifeline,), name="lifeline", daemon=True).start()


def _live_on(lifeline: Connection) -> None:
    with contextlib.suppress(EOFError, OSError):
        lifeline.recv_bytes()  # nothing is ever sent: this returns when the server lets go
    os._exit(0)


def _review(analyse: Analyse, token: int, record: str, node_limit: int) -> dict[str, Any]:
    """``analyse(record, node_limit)`` in a worker process, its progress sent to the
    server under ``token``. ``analyse`` is :func:`analyse_json`, passed by name (a test
    passes a stand-in of its own the same way)."""
    pipe = _progress

    def report(done: int, total: int) -> None:
        if pipe is not None:
            pipe.send_bytes(PROGRESS.pack(token, done, total))

    return analyse(record, node_limit, report)


# -- the pool ----------------------------------------------------------------------------


class WorkerDied(RuntimeError):
    """The worker process a job ran in died (killed, out of memory) before it answered."""


class _Progress:
    """Reviews under way in the pool, by token: where their progress goes. The lock
    makes sure that no report reaches a review once it has answered (its progress is
    forgotten by then)."""

    def __init__(self) -> None:
        self.reports: dict[int, Report] = {}
        self.lock = threading.Lock()
        self.tokens = itertools.count(1)

    @contextlib.contextmanager
    def following(self, report: Report) -> Iterator[int]:
        """A token for the reports that go to ``report``, while the block runs."""
        token = next(self.tokens)
        with self.lock:
            self.reports[token] = report
        try:
            yield token
        finally:
            with self.lock:
                del self.reports[token]

    def read(self, reader: Connection) -> None:
        """Hand each report on ``reader`` to its review's callback (in this thread, as a
        review in a thread of the server would call it) until every writer is gone."""
        with reader:
            while True:
                try:
                    token, done, total = PROGRESS.unpack(reader.recv_bytes(PROGRESS.size))
                except (EOFError, OSError, struct.error):
                    return
                with self.lock:
                    report = self.reports.get(token)
                    if report is not None:
                        report(done, total)


class _Pool:
    """One process pool; the pipe on which its processes report reviews' progress (read
    by a thread of its own until the pool and its processes have let go of it); and the
    processes' lifeline, a pipe that only this process writes to (:func:`_start_worker`)."""

    def __init__(self, size: int, progress: _Progress) -> None:
        context = multiprocessing.get_context("spawn")
        reader, self._writer = context.Pipe(duplex=False)
        lifeline, self._lifeline = context.Pipe(duplex=False)
        self.executor = concurrent.futures.ProcessPoolExecutor(
            size, context, initializer=_start_worker, initargs=(self._writer, lifeline)
        )
        threading.Thread(
            target=progress.read, args=(reader,), name="whistkit-progress", daemon=True
        ).start()

    def retire(self) -> None:
        """Take no more jobs; the processes finish those under way and waiting, then
        exit."""
        self.executor.shutdown(wait=False)
        self._writer.close()

    def stop(self) -> None:
        """End the processes now (the jobs under way and waiting fail)."""
        self.executor.shutdown(wait=False, cancel_futures=True)
        self._writer.close()
        self._lifeline.close()


class BotWorkers:
    """The server's pool of worker processes (started on first use) for bots' decisions,
    hints and reviews; with ``processes == 0`` they run in threads instead. ``reviews``
    is how many reviews may run at once (each gets a process of its own, besides the
    ``processes``); a review that says more may run makes the next pool larger."""

    def __init__(self, processes: int, reviews: int = Limits.review_workers) -> None:
        self.processes = processes
        self.reviews = reviews
        # bots' decisions let into the pool at once; the others wait here, in turn
        self.bots = asyncio.Semaphore(max(1, BOTS_PER_PROCESS * processes))
        self._pool: _Pool | None = None
        self._retired: list[_Pool] = []  # smaller pools finishing their jobs
        self._progress = _Progress()
        self._closed = False

    @property
    def pids(self) -> list[int]:
        """The pool's processes now (none before the first job)."""
        if self._pool is None:
            return []
        processes = getattr(self._pool.executor, "_processes", None) or {}
        return sorted(processes)

    async def think(self, level: str, view: View, seed: int) -> Action:
        """A ``level`` bot's choice from ``view`` (see :func:`whistkit.server.table.choose`)."""
        if level in INLINE_LEVELS:
            return choose(level, view, seed)
        if self.processes == 0:
            return await think_in_thread(level, view, seed)
        async with self.bots:
            try:
                return await self._call(choose, level, view, seed)
            except WorkerDied:
                # a bot cannot be answered with an error: once more, in a new pool
                return await self._call(choose, level, view, seed)

    async def hint(self, level: str, view: View, seed: str) -> Action:
        """A hint (:func:`hint_choice`); raises :class:`WorkerDied` if its process dies."""
        if self.processes == 0:
            return await asyncio.to_thread(hint_choice, level, view, seed)
        return await self._call(hint_choice, level, view, seed)

    async def review(
        self, record: str, node_limit: int, report: Report, at_once: int = 1
    ) -> dict[str, Any]:
        """A review (:func:`analyse_json`), its progress given to ``report`` as it comes;
        ``at_once`` is how many reviews the caller lets run at once. Raises
        :class:`WorkerDied` if its process dies."""
        if self.processes == 0:
            return await asyncio.to_thread(analyse_json, record, node_limit, report)
        if at_once > self.reviews:
            self.reviews = at_once
            if self._pool is not None:
                # the jobs under way and waiting finish in the old pool, the next ones
                # go to a pool with a process for each review
                self._pool.retire()
                self._retired.append(self._pool)
                self._pool = None
        with self._progress.following(report) as token:
            return await self._call(_review, analyse_json, token, record, node_limit)

    async def _call(self, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(*args)`` in the pool; :class:`WorkerDied` if its process dies under it, or
        if one dies while it waits in the pool."""
        pool = self._current()
        try:
            future = pool.executor.submit(fn, *args)
        except BrokenProcessPool:
            # a process died between jobs: this one never ran, a new pool takes it
            self._drop(pool)
            pool = self._current()
            future = pool.executor.submit(fn, *args)
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool as e:
            self._drop(pool)
            raise WorkerDied("a worker process died while working this out; ask again") from e

    def _current(self) -> _Pool:
        if self._closed:
            # a job queued before the server stopped starts no new processes after it
            raise RuntimeError("the server is stopping: its worker processes are gone")
        if self._pool is None:
            self._pool = _Pool(self.processes + self.reviews, self._progress)
        return self._pool

    def _drop(self, pool: _Pool) -> None:
        """A broken pool: the next job starts a new one."""
        if self._pool is pool:
            self._pool = None
        pool.stop()

    def close(self) -> None:
        """The server stops: no more jobs, and the processes end at once (a review
        under way would otherwise keep the server from exiting for minutes)."""
        self._closed = True
        for pool in [*self._retired, *([self._pool] if self._pool else [])]:
            pool.stop()
        self._retired.clear()
        self._pool = None


IN_THREADS = BotWorkers(0)  # no pool: hints and reviews in threads (a server given its own think)


def bot_thinker() -> BotWorkers:
    """The server's :class:`BotWorkers`, sized by :func:`default_workers`."""
    return BotWorkers(default_workers())


def workers_of(think: Think) -> BotWorkers:
    """The :class:`BotWorkers` whose :meth:`~BotWorkers.think` ``think`` is (the pool the
    server's tables think in), else :data:`IN_THREADS`."""
    owner = getattr(think, "__self__", None)
    return owner if isinstance(owner, BotWorkers) else IN_THREADS


__all__ = [
    "BOTS_PER_PROCESS",
    "INLINE_LEVELS",
    "IN_THREADS",
    "WORKERS_ENV",
    "BotWorkers",
    "WorkerDied",
    "analyse_json",
    "bot_thinker",
    "default_workers",
    "hint_choice",
    "workers_of",
]
