"""SQLite storage of web games: a row per game and an append-only log of its actions.

A stored game is its log of actions (the deals included, in order): each action appends
one small row, and the game's row keeps what the log does not (variant and options, the
seats' players and tokens, the game's secret, the event version, the score so far). The
record (docs/records.md) is built from the log when it is asked for, and kept once the
game is finished.

Writes go through one writer thread with its own connection: whatever is waiting when
it is free is committed in one transaction (a group commit), and the caller's future
resolves only after the commit, so the server acknowledges an action only once it is on
disk (WAL, ``synchronous=FULL``) and the event loop never waits for the disk. Reads use
one connection per thread.

A database written before the log (the record in the game's row, no actions) is read
too: such a game is resumed from its record and its log written then.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import json
import queue
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    variant TEXT NOT NULL,
    seed INTEGER NOT NULL,        -- the seed a person typed (seeded games), else 0
    seats TEXT NOT NULL,          -- JSON {"N": "bot:beginner", "S": "human", ...}
    tokens TEXT NOT NULL,         -- JSON {"S": secret}: what a person's seat joins with
    record TEXT NOT NULL,         -- the finished game's record ('' until built)
    version INTEGER NOT NULL,     -- the table's event version after the last action
    created REAL NOT NULL,
    updated REAL NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    winner TEXT,                  -- "NS", "EW", "draw" once finished
    score TEXT                    -- JSON {"NS": 87, "EW": 69}
);
CREATE INDEX IF NOT EXISTS games_finished ON games (finished, updated);
CREATE TABLE IF NOT EXISTS actions (
    game TEXT NOT NULL,
    seq INTEGER NOT NULL,         -- 1, 2, ... in the order the actions were taken
    action TEXT NOT NULL,         -- JSON, see whistkit.server.log
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
"""
# columns added with the action log (a database from before gets them on opening)
ADDED_COLUMNS = (
    ("options", "TEXT"),  # JSON of the variant's options
    ("secret", "BLOB"),  # 32 random bytes: the bots' randomness; never leaves the server
    ("seeded", "INTEGER NOT NULL DEFAULT 1"),  # deals from the typed seed (old games too)
    ("first_dealer", "INTEGER"),  # the first hand's dealer, 0..3 (N, E, S, W)
)
# the columns of a row, in StoredGame's order
COLUMNS = (
    "id, variant, seed, seats, tokens, record, version, created, updated, finished, winner,"
    " score, options, secret, seeded, first_dealer"
)

Op = tuple[str, Sequence[Any]]  # one SQL statement and its parameters

# what Store.append_ops stores; the writer merges a batch's many into a few statements
APPEND_SQL = "INSERT INTO actions (game, seq, action) VALUES (?, ?, ?)"
PROGRESS_SQL = (
    "UPDATE games SET version = ?, updated = ?, finished = ?, winner = ?, score = ? WHERE id = ?"
)
MERGED_ROWS = 256  # rows per merged statement (3 or 6 parameters each)


def _merged(ops: Iterable[Op]) -> list[Op]:
    """``ops`` with each run of log appends and progress updates merged: one multi-row
    INSERT for the appends, one ``UPDATE ... FROM (VALUES ...)`` for the updates (the
    last per game), the other statements unchanged and in their place. The same rows
    come out; the writer thread takes the interpreter lock a few times per batch instead
    of twice per action (each statement gives it up and waits for it again, up to the
    switch interval while the event loop is busy)."""
    out: list[Op] = []
    appends: list[Any] = []
    progress: dict[Any, Sequence[Any]] = {}

    def flush() -> None:
        for i in range(0, len(appends), 3 * MERGED_ROWS):
            part = appends[i : i + 3 * MERGED_ROWS]
            rows = ", ".join(["(?, ?, ?)"] * (len(part) // 3))
            out.append((f"INSERT INTO actions (game, seq, action) VALUES {rows}", part))
        appends.clear()
        updates = list(progress.values())
        for i in range(0, len(updates), MERGED_ROWS):
            part = updates[i : i + MERGED_ROWS]
            rows = ", ".join(["(?, ?, ?, ?, ?, ?)"] * len(part))
            args = [
                x
                for (version, updated, finished, winner, score, game) in part
                for x in (game, version, updated, finished, winner, score)
            ]
            out.append(
                (
                    "UPDATE games SET version = v.column2, updated = v.column3,"
                    " finished = v.column4, winner = v.column5, score = v.column6"
                    f" FROM (VALUES {rows}) AS v WHERE games.id = v.column1",
                    args,
                )
            )
        progress.clear()

    for sql, args in ops:
        if sql is APPEND_SQL or sql == APPEND_SQL:
            appends += args
        elif sql is PROGRESS_SQL or sql == PROGRESS_SQL:
            progress.pop(args[5], None)  # the last update of a game wins
            progress[args[5]] = args
        else:
            flush()
            out.append((sql, args))
    flush()
    return out


@dataclass(frozen=True)
class StoredGame:
    """One row of the ``games`` table."""

    id: str
    variant: str
    seed: int
    seats: dict[str, str]
    tokens: dict[str, str]
    record: str
    version: int
    created: float
    updated: float
    finished: bool
    winner: str | None
    score: dict[str, int] | None
    options: dict[str, Any] | None = None
    secret: bytes | None = None
    seeded: bool = True
    first_dealer: int | None = None


def _score_json(score: dict[str, int]) -> str:
    """``json.dumps(score)``, made once per score (it changes once a hand, not a card)."""
    return _score_text(tuple(score.items()))


@functools.lru_cache(maxsize=1024)
def _score_text(items: tuple[tuple[str, int], ...]) -> str:
    return json.dumps(dict(items))


class _Job:
    """Statements to commit, and who hears of it: a thread's future, or an event loop's
    (resolved in one call per loop and batch, so a batch wakes the loop once). A job
    from the event loop has no thread's future (making one, with its lock and condition,
    cost the loop more than the statements did)."""

    __slots__ = ("future", "loop", "ops", "waiter")

    def __init__(self, ops: list[Op], waiter: asyncio.Future[None] | None = None) -> None:
        self.ops = ops
        self.future: concurrent.futures.Future[None] | None = (
            concurrent.futures.Future() if waiter is None else None
        )
        self.waiter = waiter
        self.loop = waiter.get_loop() if waiter is not None else None


def _settle(jobs: list[tuple[_Job, BaseException | None]]) -> None:
    """On the event loop: resolve the jobs' waiters (a waiter given up on is skipped)."""
    for job, error in jobs:
        waiter = job.waiter
        if waiter is None or waiter.done():
            continue
        if error is None:
            waiter.set_result(None)
        else:
            waiter.set_exception(error)


class Store:
    """The games of one SQLite database file (``":memory:"`` is refused: the writer and
    the readers need the same file)."""

    def __init__(self, path: str | Path, *, max_batch: int = 512) -> None:
        """Open (or create) the database; a file that cannot be one, or holds another
        program's ``games`` table, is a ``ValueError`` naming it (nothing is changed)."""
        self.path = str(path)
        self.max_batch = max_batch
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as e:
            raise ValueError(f"cannot open the games database {self.path}: {e}") from None
        try:
            db.execute("PRAGMA journal_mode=WAL")
            # FULL: a committed action survives a power cut, not only a killed process
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(SCHEMA)
            have = {r[1] for r in db.execute("PRAGMA table_info(games)")}
            for name, kind in ADDED_COLUMNS:
                if name not in have:
                    db.execute(f"ALTER TABLE games ADD COLUMN {name} {kind}")
            db.execute(f"SELECT {COLUMNS} FROM games LIMIT 0")
        except sqlite3.Error as e:
            db.close()
            raise ValueError(
                f"{self.path} is not a whistkit games database (SQLite says: {e})"
            ) from None
        self._writer_db = db
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._write_loop, name="whistkit-store", daemon=True)
        self._writer.start()
        self.closed = False

    # -- writing ----------------------------------------------------------------------

    def submit(self, ops: Iterable[Op]) -> concurrent.futures.Future[None]:
        """Queue statements to be committed together; the future resolves once they are
        on disk (or holds the ``sqlite3.Error`` that stopped them: then none is)."""
        job = _Job(list(ops))
        future = job.future
        assert future is not None  # a thread's job has one
        if self.closed:
            future.set_exception(sqlite3.ProgrammingError("the store is closed"))
        else:
            self._jobs.put(job)
        return future

    def submit_async(self, ops: Iterable[Op]) -> asyncio.Future[None]:
        """:meth:`submit` for the running event loop: an ``asyncio`` future."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        job = _Job(list(ops), waiter)
        if self.closed:
            waiter.set_exception(sqlite3.ProgrammingError("the store is closed"))
        else:
            self._jobs.put(job)
        return waiter

    def write(self, ops: Iterable[Op]) -> None:
        """:meth:`submit` and wait (outside the event loop only)."""
        self.submit(ops).result()

    def _write_loop(self) -> None:
        db = self._writer_db
        while True:
            job = self._jobs.get()
            if job is None:
                break
            batch = [job]
            stop = False
            while len(batch) < self.max_batch:
                try:
                    more = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
            self._commit(db, batch)
            if stop:
                break
        db.close()

    @staticmethod
    def _commit(db: sqlite3.Connection, batch: list[_Job]) -> None:
        outcomes: list[tuple[_Job, BaseException | None]] = []
        try:
            Store._run(db, batch, outcomes)
        finally:
            loops: dict[asyncio.AbstractEventLoop, list[tuple[_Job, BaseException | None]]] = {}
            for job, error in outcomes:
                if job.future is not None:
                    if error is None:
                        job.future.set_result(None)
                    else:
                        job.future.set_exception(error)
                if job.loop is not None:
                    loops.setdefault(job.loop, []).append((job, error))
            for loop, jobs in loops.items():
                with contextlib.suppress(RuntimeError):  # a loop closed meanwhile
                    loop.call_soon_threadsafe(_settle, jobs)

    @staticmethod
    def _run(
        db: sqlite3.Connection,
        batch: list[_Job],
        outcomes: list[tuple[_Job, BaseException | None]],
    ) -> None:
        try:
            db.execute("BEGIN IMMEDIATE")
            for sql, args in _merged(op for job in batch for op in job.ops):
                db.execute(sql, args)
            db.execute("COMMIT")
        except sqlite3.Error as e:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            if len(batch) > 1:  # one job's fault must not fail the others: one by one
                for job in batch:
                    Store._run(db, [job], outcomes)
                return
            outcomes.append((batch[0], e))
            return
        except BaseException as e:  # never leave a caller waiting
            outcomes += [(job, e) for job in batch]
            raise
        outcomes += [(job, None) for job in batch]

    # -- the statements ----------------------------------------------------------------

    @staticmethod
    def create_ops(
        game_id: str,
        variant: str,
        options: dict[str, Any],
        seats: dict[str, str],
        tokens: dict[str, str],
        *,
        secret: bytes,
        seeded: bool,
        seed: int,
        first_dealer: int,
    ) -> list[Op]:
        """The statements inserting a new game (no action yet)."""
        now = time.time()
        return [
            (
                "INSERT INTO games (id, variant, seed, seats, tokens, record, version, created,"
                " updated, options, secret, seeded, first_dealer)"
                " VALUES (?, ?, ?, ?, ?, '', 0, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    variant,
                    seed,
                    json.dumps(seats),
                    json.dumps(tokens),
                    now,
                    now,
                    json.dumps(options),
                    secret,
                    int(seeded),
                    first_dealer,
                ),
            )
        ]

    @staticmethod
    def append_ops(
        game_id: str,
        first_seq: int,
        actions: Sequence[str],
        version: int,
        *,
        finished: bool,
        winner: str | None,
        score: dict[str, int],
    ) -> list[Op]:
        """The statements appending actions ``first_seq``, ``first_seq + 1``, ... (JSON
        texts) to a game's log and updating its row."""
        ops: list[Op] = [
            (APPEND_SQL, (game_id, seq, a)) for seq, a in enumerate(actions, first_seq)
        ]
        ops.append(
            (
                PROGRESS_SQL,
                (version, time.time(), int(finished), winner, _score_json(score), game_id),
            )
        )
        return ops

    @staticmethod
    def legacy_op(game_id: str, dealer: int, options: dict[str, Any]) -> Op:
        """The statement noting what a game stored before the log keeps in its record
        only: its first dealer and its options."""
        return (
            "UPDATE games SET first_dealer = ?, options = ? WHERE id = ?",
            (dealer, json.dumps(options), game_id),
        )

    @staticmethod
    def record_op(game_id: str, record: str) -> Op:
        """The statement keeping a finished game's record."""
        return ("UPDATE games SET record = ? WHERE id = ?", (record, game_id))

    # -- reading -----------------------------------------------------------------------

    def _reader(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._local.db = db
            with self._readers_lock:
                self._readers.append(db)
        return db

    def get(self, game_id: str) -> StoredGame | None:
        """The stored game with this id, or None."""
        row = (
            self._reader()
            .execute(f"SELECT {COLUMNS} FROM games WHERE id = ?", (game_id,))
            .fetchone()
        )
        return None if row is None else _row(row)

    def actions(self, game_id: str) -> list[str]:
        """A game's logged actions (JSON texts) in order."""
        rows = (
            self._reader()
            .execute("SELECT action FROM actions WHERE game = ? ORDER BY seq", (game_id,))
            .fetchall()
        )
        return [r[0] for r in rows]

    def list(
        self,
        *,
        finished: bool | None = None,
        ids: Sequence[str] | None = None,
        limit: int = 100,
    ) -> list[StoredGame]:
        """Games, most recently updated first; only finished (or unfinished) ones if asked,
        only those among ``ids`` if given."""
        sql = f"SELECT {COLUMNS} FROM games"
        where: list[str] = []
        args: tuple[Any, ...] = ()
        if finished is not None:
            where.append("finished = ?")
            args = (int(finished),)
        if ids is not None:
            if not ids:
                return []
            where.append(f"id IN ({','.join('?' * len(ids))})")
            args = (*args, *ids)
            limit = max(limit, len(ids))
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY updated DESC LIMIT ?"
        return [_row(r) for r in self._reader().execute(sql, (*args, limit)).fetchall()]

    def close(self) -> None:
        """Commit what is queued, stop the writer and close the connections."""
        if self.closed:
            return
        self.closed = True
        self._jobs.put(None)
        self._writer.join()
        with self._readers_lock:
            for db in self._readers:
                with contextlib.suppress(sqlite3.Error):
                    db.close()
            self._readers.clear()


def _row(row: tuple[Any, ...]) -> StoredGame:
    return StoredGame(
        id=row[0],
        variant=row[1],
        seed=row[2],
        seats=json.loads(row[3]),
        tokens=json.loads(row[4]),
        record=row[5],
        version=row[6],
        created=row[7],
        updated=row[8],
        finished=bool(row[9]),
        winner=row[10],
        score=json.loads(row[11]) if row[11] else None,
        options=json.loads(row[12]) if row[12] else None,
        secret=row[13],
        seeded=bool(row[14]),
        first_dealer=row[15],
    )


__all__ = ["Op", "Store", "StoredGame"]
