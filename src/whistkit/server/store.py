"""Storage of web games: a row per game and an append-only log of its actions.

A stored game is its log of actions (the deals included, in order): each action appends
one small row, and the game's row keeps what the log does not (variant and options, the
seats' players and tokens, the game's secret, the event version, the score so far, the
fencing token of the process that owns it). The record (docs/records.md) is built from
the log when it is asked for, and kept once the game is finished. A shared table's
settings are a row of ``shared_tables``.

Two databases hold it, with one schema and the same versioned migrations
(:data:`MIGRATIONS`): SQLite, the embedded default (:class:`Store`, a file), and
PostgreSQL for several server processes (:class:`whistkit.server.pgstore.PgStore`, a
``postgresql://`` URL); :func:`whistkit.server.database.open_store` takes either.

Writes go through one writer thread with its own connection: whatever is waiting when
it is free is committed in one transaction (a group commit), and the caller's future
resolves only after the commit, so the server acknowledges an action only once it is
durable (SQLite: WAL, ``synchronous=FULL``; PostgreSQL: its commit) and the event loop
never waits for the disk. Reads use one connection per thread.

**Fencing.** A write may carry ``fence=(game, token)``: the token of the lease by which
the writing process owns the game (:mod:`whistkit.server.cluster`). The transaction
stores it in the game's row only if the row holds no newer one, and fails the write
(:class:`Fenced`) otherwise, so a process that lost its lease (paused or cut off past
its expiry) can never write the game again: the new owner raised the row's token
(:meth:`BaseStore.claim`) before it read the game.

A SQLite database written before the log (the record in the game's row, no actions) is
read too: such a game is resumed from its record and its log written then.
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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# the columns of a row, in StoredGame's order
COLUMNS = (
    "id, variant, seed, seats, tokens, record, version, created, updated, finished, winner,"
    " score, options, secret, seeded, first_dealer, fence"
)

# One write, as the tables make it: (kind, arguments); each database turns it into its
# own statement, and the writer merges a batch's many appends and progress updates.
Op = tuple[str, tuple[Any, ...]]
CREATE = "create"  # (id, variant, seed, seats, tokens, created, options, secret, seeded, dealer)
APPEND = "append"  # (game, seq, action)
PROGRESS = "progress"  # (version, updated, finished, winner, score, game)
RECORD = "record"  # (record, game)
LEGACY = "legacy"  # (first_dealer, options, game)
CONFIG = "config"  # (game, config): a shared table's settings, inserted or replaced
SEATS = "seats"  # (seats, tokens, game)
EVENING = "evening"  # (id, state, version, updated): an online evening's state, if newer
MERGED_ROWS = 256  # rows per merged statement


class StoreError(Exception):
    """The database refused a read or a write (or could not be reached); nothing of the
    write is stored. The driver's own error is the ``__cause__``."""


class Fenced(StoreError):
    """A write carried the fencing token of a lease that is no longer the newest: another
    process owns the game now. Nothing of it was stored."""


class Stale(StoreError):
    """A write of an online evening's state expected a version that is no longer the
    stored one: another process changed the evening first. Nothing of it was stored (the
    writer reads the new state and tries again)."""


# the statements of each kind, in SQLite's placeholders (PostgreSQL's: pgstore)
STATEMENTS = {
    CREATE: (
        "INSERT INTO games (id, variant, seed, seats, tokens, record, version, created,"
        " updated, options, secret, seeded, first_dealer)"
        " VALUES (?, ?, ?, ?, ?, '', 0, ?, ?, ?, ?, ?, ?)"
    ),
    APPEND: "INSERT INTO actions (game, seq, action) VALUES (?, ?, ?)",
    PROGRESS: (
        "UPDATE games SET version = ?, updated = ?, finished = ?, winner = ?, score = ?"
        " WHERE id = ?"
    ),
    RECORD: "UPDATE games SET record = ? WHERE id = ?",
    LEGACY: "UPDATE games SET first_dealer = ?, options = ? WHERE id = ?",
    CONFIG: (
        "INSERT INTO shared_tables (game, config) VALUES (?, ?)"
        " ON CONFLICT (game) DO UPDATE SET config = excluded.config"
    ),
    SEATS: "UPDATE games SET seats = ?, tokens = ? WHERE id = ?",
    # a state older than the stored one is never written over it (the version grows by
    # one with each change of the evening)
    EVENING: (
        "INSERT INTO online_evenings (id, state, version, updated) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (id) DO UPDATE SET state = excluded.state,"
        " version = excluded.version, updated = excluded.updated"
        " WHERE online_evenings.version < excluded.version"
    ),
}


@dataclass(frozen=True)
class Migration:
    """One step of the schema: its number, what it does, and its statements in each
    database (a SQLite step may be a function of the connection, for the databases
    written before migrations were numbered)."""

    version: int
    what: str
    sqlite: tuple[str | Callable[[sqlite3.Connection], None], ...]
    postgres: tuple[str, ...]


def _sqlite_base(db: sqlite3.Connection) -> None:
    """Migration 1 in SQLite: the tables, and on a database from before the action log
    the columns added with it."""
    # statement by statement: executescript would commit the migration's transaction
    script = """
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
        CREATE TABLE IF NOT EXISTS shared_tables (game TEXT PRIMARY KEY, config TEXT NOT NULL);
    """
    for statement in script.split(";"):
        lines = [line.split("--")[0] for line in statement.splitlines()]
        if "".join(lines).strip():
            db.execute("\n".join(lines))
    have = {r[1] for r in db.execute("PRAGMA table_info(games)")}
    for name, kind in (
        ("options", "TEXT"),  # JSON of the variant's options
        ("secret", "BLOB"),  # 32 random bytes: the bots' randomness; never leaves the server
        ("seeded", "INTEGER NOT NULL DEFAULT 1"),  # deals from the typed seed (old games too)
        ("first_dealer", "INTEGER"),  # the first hand's dealer, 0..3 (N, E, S, W)
    ):
        if name not in have:
            db.execute(f"ALTER TABLE games ADD COLUMN {name} {kind}")


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "games, their action log and shared tables",
        (_sqlite_base,),
        (
            """CREATE TABLE games (
                id TEXT PRIMARY KEY,
                variant TEXT NOT NULL,
                seed BIGINT NOT NULL,
                seats TEXT NOT NULL,
                tokens TEXT NOT NULL,
                record TEXT NOT NULL,
                version INTEGER NOT NULL,
                created DOUBLE PRECISION NOT NULL,
                updated DOUBLE PRECISION NOT NULL,
                finished INTEGER NOT NULL DEFAULT 0,
                winner TEXT,
                score TEXT,
                options TEXT,
                secret BYTEA,
                seeded INTEGER NOT NULL DEFAULT 1,
                first_dealer INTEGER
            )""",
            "CREATE INDEX games_finished ON games (finished, updated)",
            """CREATE TABLE actions (
                game TEXT NOT NULL,
                seq INTEGER NOT NULL,
                action TEXT NOT NULL,
                PRIMARY KEY (game, seq)
            )""",
            "CREATE TABLE shared_tables (game TEXT PRIMARY KEY, config TEXT NOT NULL)",
        ),
    ),
    Migration(
        2,
        "the fencing token of the process that owns a game",
        ("ALTER TABLE games ADD COLUMN fence INTEGER NOT NULL DEFAULT 0",),
        ("ALTER TABLE games ADD COLUMN fence BIGINT NOT NULL DEFAULT 0",),
    ),
    Migration(
        3,
        "online evenings: each one's state (JSON, whistkit.server.online) and its version",
        (
            "CREATE TABLE online_evenings (id TEXT PRIMARY KEY, state TEXT NOT NULL,"
            " version INTEGER NOT NULL, updated REAL NOT NULL)",
        ),
        (
            "CREATE TABLE online_evenings (id TEXT PRIMARY KEY, state TEXT NOT NULL,"
            " version INTEGER NOT NULL, updated DOUBLE PRECISION NOT NULL)",
        ),
    ),
)
SCHEMA_VERSION = MIGRATIONS[-1].version


def newer_schema(where: str, found: int) -> ValueError:
    return ValueError(
        f"{where} has schema version {found}, newer than this whistkit's"
        f" {SCHEMA_VERSION}: upgrade whistkit to use it (nothing was changed)"
    )


class Dialect:
    """What differs between the databases in the statements the writer runs."""

    # the transaction's start: SQLite takes its write lock at once (no upgrade deadlock)
    begin = "BEGIN IMMEDIATE"

    def statement(self, kind: str) -> str:
        return STATEMENTS[kind]

    def insert_actions(self, rows: int) -> str:
        return "INSERT INTO actions (game, seq, action) VALUES " + ", ".join(["(?, ?, ?)"] * rows)

    def update_progress(self, rows: int) -> str:
        values = ", ".join(["(?, ?, ?, ?, ?, ?)"] * rows)
        return (
            "UPDATE games SET version = v.column2, updated = v.column3,"
            " finished = v.column4, winner = v.column5, score = v.column6"
            f" FROM (VALUES {values}) AS v WHERE games.id = v.column1"
        )

    def raise_fences(self, rows: int) -> str:
        values = ", ".join(["(?, ?)"] * rows)
        return (
            f"UPDATE games SET fence = v.column2 FROM (VALUES {values}) AS v"
            " WHERE games.id = v.column1 AND games.fence <= v.column2 RETURNING games.id"
        )


def merged(ops: Iterable[Op], dialect: Dialect) -> list[tuple[str, Sequence[Any]]]:
    """The statements of ``ops``, each run of log appends and progress updates merged:
    one multi-row INSERT for the appends, one ``UPDATE ... FROM (VALUES ...)`` for the
    updates (the last per game), the other statements unchanged and in their place. The
    same rows come out; the writer thread takes the interpreter lock a few times per
    batch instead of twice per action (each statement gives it up and waits for it
    again, up to the switch interval while the event loop is busy)."""
    out: list[tuple[str, Sequence[Any]]] = []
    appends: list[Any] = []
    progress: dict[Any, tuple[Any, ...]] = {}

    def flush() -> None:
        for i in range(0, len(appends), 3 * MERGED_ROWS):
            part = appends[i : i + 3 * MERGED_ROWS]
            out.append((dialect.insert_actions(len(part) // 3), part))
        appends.clear()
        updates = list(progress.values())
        for i in range(0, len(updates), MERGED_ROWS):
            part = updates[i : i + MERGED_ROWS]
            args = [
                x
                for (version, updated, finished, winner, score, game) in part
                for x in (game, version, updated, finished, winner, score)
            ]
            out.append((dialect.update_progress(len(part)), args))
        progress.clear()

    for kind, args in ops:
        if kind == APPEND:
            appends += args
        elif kind == PROGRESS:
            progress.pop(args[5], None)  # the last update of a game wins
            progress[args[5]] = args
        else:
            flush()
            out.append((dialect.statement(kind), args))
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
    fence: int = 0


def row_of(row: Sequence[Any]) -> StoredGame:
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
        secret=None if row[13] is None else bytes(row[13]),
        seeded=bool(row[14]),
        first_dealer=row[15],
        fence=row[16] or 0,
    )


def _score_json(score: dict[str, int]) -> str:
    """``json.dumps(score)``, made once per score (it changes once a hand, not a card)."""
    return _score_text(tuple(score.items()))


@functools.lru_cache(maxsize=1024)
def _score_text(items: tuple[tuple[str, int], ...]) -> str:
    return json.dumps(dict(items))


Fence = tuple[str, int]  # (game, the owner's fencing token)
Expect = tuple[str, int]  # (online evening, the version it must still have)
# the compare-and-set's check (and its lock on the row) in a writing transaction
EXPECT_SQL = "UPDATE online_evenings SET version = version WHERE id = ? AND version = ?"


class _Job:
    """Statements to commit, and who hears of it: a thread's future, or an event loop's
    (resolved in one call per loop and batch, so a batch wakes the loop once). A job
    from the event loop has no thread's future (making one, with its lock and condition,
    cost the loop more than the statements did)."""

    __slots__ = ("expect", "fence", "future", "loop", "ops", "waiter")

    def __init__(
        self,
        ops: list[Op],
        waiter: asyncio.Future[None] | None = None,
        fence: Fence | None = None,
        expect: Expect | None = None,
    ) -> None:
        self.ops = ops
        self.fence = fence
        self.expect = expect
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


class BaseStore:
    """What both databases share: the writer thread and its group commits, the
    statements' making, fencing. Subclasses connect, migrate and read."""

    dialect = Dialect()
    # the driver's errors, turned into StoreError
    errors: tuple[type[BaseException], ...] = (sqlite3.Error,)
    where = "the games database"

    def __init__(self, *, max_batch: int = 512) -> None:
        self.max_batch = max_batch
        self._local = threading.local()
        self._readers: list[Any] = []
        self._readers_lock = threading.Lock()
        self.closed = False
        self._writer_db: Any = None
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._write_loop, name="whistkit-store", daemon=True)

    def _start_writer(self, db: Any) -> None:
        self._writer_db = db
        self._writer.start()

    # -- what a database does its own way ------------------------------------------------

    def _connect(self) -> Any:
        """A new connection (autocommit: the writer opens its transactions itself)."""
        raise NotImplementedError

    def _usable(self, db: Any) -> bool:
        """Whether a connection can still be used (PostgreSQL's may have been cut)."""
        return True

    def claim(self, game_id: str, token: int) -> bool:
        """Raise the game's fencing token to ``token`` (before the new owner reads the
        game): False if the game is unknown or holds ``token`` or a newer one already."""
        cur = self._execute(
            "UPDATE games SET fence = ? WHERE id = ? AND fence < ?", (token, game_id, token)
        )
        return bool(cur.rowcount == 1)

    def _sql(self, sql: str) -> str:
        return sql

    # -- writing ----------------------------------------------------------------------

    def submit(
        self, ops: Iterable[Op], fence: Fence | None = None, expect: Expect | None = None
    ) -> concurrent.futures.Future[None]:
        """Queue statements to be committed together; the future resolves once they are
        durable (or holds the :class:`StoreError` that stopped them: then none is).
        ``expect``: as :meth:`submit_async`'s."""
        job = _Job(list(ops), fence=fence, expect=expect)
        future = job.future
        assert future is not None  # a thread's job has one
        if self.closed:
            future.set_exception(StoreError("the store is closed"))
        else:
            self._jobs.put(job)
        return future

    def submit_async(
        self, ops: Iterable[Op], fence: Fence | None = None, expect: Expect | None = None
    ) -> asyncio.Future[None]:
        """:meth:`submit` for the running event loop: an ``asyncio`` future. With
        ``expect`` (an online evening's id and version) the statements are committed
        only if the evening's stored version is still that one, else the future holds
        :class:`Stale` (a compare-and-set: several processes change one evening)."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        job = _Job(list(ops), waiter, fence, expect)
        if self.closed:
            waiter.set_exception(StoreError("the store is closed"))
        else:
            self._jobs.put(job)
        return waiter

    def write(
        self, ops: Iterable[Op], fence: Fence | None = None, expect: Expect | None = None
    ) -> None:
        """:meth:`submit` and wait (outside the event loop only)."""
        self.submit(ops, fence, expect).result()

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
            if not self._usable(db):  # PostgreSQL restarted, say: connect again
                with contextlib.suppress(*self.errors):
                    db.close()
                try:
                    db = self._writer_db = self._connect()
                except self.errors as e:
                    self._finish([(j, StoreError(f"{self.where}: {e}")) for j in batch])
                    continue
            self._commit(db, batch)
            if stop:
                break
        with contextlib.suppress(*self.errors):
            db.close()

    def _commit(self, db: Any, batch: list[_Job]) -> None:
        outcomes: list[tuple[_Job, BaseException | None]] = []
        try:
            self._run(db, batch, outcomes)
        finally:
            self._finish(outcomes)

    @staticmethod
    def _finish(outcomes: list[tuple[_Job, BaseException | None]]) -> None:
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

    def _run(
        self,
        db: Any,
        batch: list[_Job],
        outcomes: list[tuple[_Job, BaseException | None]],
    ) -> None:
        try:
            db.execute(self.dialect.begin)
            fences = {job.fence for job in batch if job.fence is not None}
            if fences:
                self._check_fences(db, fences)
            # each row stays locked (PostgreSQL) until this transaction ends, so a
            # concurrent writer of the same evening waits and then fails here; taken in
            # the order of the ids, so that two writers of two evenings never deadlock
            for expect in sorted(job.expect for job in batch if job.expect is not None):
                cur = db.execute(self._sql(EXPECT_SQL), expect)
                if cur.rowcount != 1:
                    raise Stale(f"online evening {expect[0]} changed meanwhile")
            for sql, args in merged((op for job in batch for op in job.ops), self.dialect):
                db.execute(self._sql(sql), args)
            db.execute("COMMIT")
        except Exception as e:
            if not isinstance(e, (*self.errors, Fenced, Stale)):
                outcomes += [(job, e) for job in batch]
                raise
            with contextlib.suppress(*self.errors):
                db.execute("ROLLBACK")
            if len(batch) > 1 and self._usable(db):
                # one job's fault must not fail the others: one by one
                for job in batch:
                    self._run(db, [job], outcomes)
                return
            error = e if isinstance(e, StoreError) else StoreError(f"{self.where}: {e}")
            error.__cause__ = e if error is not e else None
            outcomes += [(job, error) for job in batch]
            return
        except BaseException as e:  # never leave a caller waiting
            outcomes += [(job, e) for job in batch]
            raise
        outcomes += [(job, None) for job in batch]

    def _check_fences(self, db: Any, fences: set[Fence]) -> None:
        """Store each game's fencing token, or raise :class:`Fenced` if a game holds a
        newer one (a token older than the row's is a lost lease)."""
        wanted = sorted(fences)
        games = {g for g, _ in wanted}
        if len(games) < len(wanted):  # two tokens for one game in a batch: one is stale
            raise Fenced("two owners wrote one game in one batch")
        args = [x for pair in wanted for x in pair]
        rows = db.execute(self._sql(self.dialect.raise_fences(len(wanted))), args).fetchall()
        missing = games - {r[0] for r in rows}
        if missing:
            raise Fenced(
                f"game {sorted(missing)[0]} is owned by another server process now"
                " (its lease was lost); nothing was stored"
            )

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
                CREATE,
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
        ops: list[Op] = [(APPEND, (game_id, seq, a)) for seq, a in enumerate(actions, first_seq)]
        ops.append(
            (
                PROGRESS,
                (version, time.time(), int(finished), winner, _score_json(score), game_id),
            )
        )
        return ops

    @staticmethod
    def legacy_op(game_id: str, dealer: int, options: dict[str, Any]) -> Op:
        """The statement noting what a game stored before the log keeps in its record
        only: its first dealer and its options."""
        return (LEGACY, (dealer, json.dumps(options), game_id))

    @staticmethod
    def record_op(game_id: str, record: str) -> Op:
        """The statement keeping a finished game's record."""
        return (RECORD, (record, game_id))

    @staticmethod
    def config_op(game_id: str, config: str) -> Op:
        """The statement keeping a shared table's settings (JSON)."""
        return (CONFIG, (game_id, config))

    @staticmethod
    def seats_op(game_id: str, seats: str, tokens: str) -> Op:
        """The statement changing a game's seats and tokens (JSON)."""
        return (SEATS, (seats, tokens, game_id))

    @staticmethod
    def evening_op(evening_id: str, state: str, version: int) -> Op:
        """The statement keeping an online evening's state (JSON) at ``version``; it
        changes nothing if the stored state's version is as new."""
        return (EVENING, (evening_id, state, version, time.time()))

    # -- reading -----------------------------------------------------------------------

    def _reader(self) -> Any:
        db = getattr(self._local, "db", None)
        if db is not None and not self._usable(db):
            with contextlib.suppress(*self.errors):
                db.close()
            db = None
        if db is None:
            db = self._connect()
            self._local.db = db
            with self._readers_lock:
                self._readers.append(db)
        return db

    def _execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        try:
            return self._reader().execute(self._sql(sql), args)
        except self.errors as e:
            raise StoreError(f"{self.where}: {e}") from e

    def get(self, game_id: str) -> StoredGame | None:
        """The stored game with this id, or None."""
        row = self._execute(f"SELECT {COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else row_of(row)

    def actions(self, game_id: str) -> list[str]:
        """A game's logged actions (JSON texts) in order."""
        rows = self._execute(
            "SELECT action FROM actions WHERE game = ? ORDER BY seq", (game_id,)
        ).fetchall()
        return [r[0] for r in rows]

    def shared_config(self, game_id: str) -> str | None:
        """A shared table's settings (JSON), None for a solo game."""
        row = self._execute(
            "SELECT config FROM shared_tables WHERE game = ?", (game_id,)
        ).fetchone()
        return None if row is None else str(row[0])

    def online_evening(self, evening_id: str) -> tuple[str, int] | None:
        """An online evening's state (JSON) and version, None if there is no such evening."""
        row = self._execute(
            "SELECT state, version FROM online_evenings WHERE id = ?", (evening_id,)
        ).fetchone()
        return None if row is None else (str(row[0]), int(row[1]))

    def online_evening_version(self, evening_id: str) -> int | None:
        """An online evening's stored version (None: no such evening), without its state."""
        row = self._execute(
            "SELECT version FROM online_evenings WHERE id = ?", (evening_id,)
        ).fetchone()
        return None if row is None else int(row[0])

    def finished_at(self, ids: Sequence[str]) -> dict[str, float]:
        """Of the games ``ids``, those finished, with when each was last stored."""
        if not ids:
            return {}
        marks = ", ".join("?" * len(ids))
        rows = self._execute(
            f"SELECT id, updated FROM games WHERE finished <> 0 AND id IN ({marks})", tuple(ids)
        ).fetchall()
        return {str(r[0]): float(r[1]) for r in rows}

    def online_evening_ids(self, since: float) -> list[str]:
        """The online evenings whose state was stored at or after ``since`` (a time),
        the most recently stored first."""
        rows = self._execute(
            "SELECT id FROM online_evenings WHERE updated >= ? ORDER BY updated DESC", (since,)
        ).fetchall()
        return [str(r[0]) for r in rows]

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
        return [row_of(r) for r in self._execute(sql, (*args, limit)).fetchall()]

    def count_live(self, since: float) -> int:
        """Unfinished games updated (created or played) after ``since`` (a time.time())."""
        row = self._execute(
            "SELECT count(*) FROM games WHERE finished = 0 AND updated > ?", (since,)
        ).fetchone()
        return int(row[0])

    def close(self) -> None:
        """Commit what is queued, stop the writer and close the connections."""
        if self.closed:
            return
        self.closed = True
        self._jobs.put(None)
        if self._writer.is_alive():
            self._writer.join()
        with self._readers_lock:
            for db in self._readers:
                with contextlib.suppress(*self.errors):
                    db.close()
            self._readers.clear()


class Store(BaseStore):
    """The games of one SQLite database file (``":memory:"`` is refused: the writer and
    the readers need the same file)."""

    def __init__(self, path: str | Path, *, max_batch: int = 512) -> None:
        """Open (or create) the database and bring its schema up to date; a file that
        cannot be one, holds another program's ``games`` table or a newer schema, is a
        ``ValueError`` naming it (nothing is changed)."""
        super().__init__(max_batch=max_batch)
        self.path = str(path)
        self.where = f"the games database {self.path}"
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            db = self._connect()
        except (OSError, sqlite3.Error) as e:
            raise ValueError(f"cannot open the games database {self.path}: {e}") from None
        try:
            db.execute("PRAGMA journal_mode=WAL")
            # FULL: a committed action survives a power cut, not only a killed process
            db.execute("PRAGMA synchronous=FULL")
            self._migrate(db)
            db.execute(f"SELECT {COLUMNS} FROM games LIMIT 0")
        except sqlite3.Error as e:
            db.close()
            raise ValueError(
                f"{self.path} is not a whistkit games database (SQLite says: {e})"
            ) from None
        except ValueError:
            db.close()
            raise
        self._start_writer(db)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA busy_timeout = 10000")
        return db

    def _migrate(self, db: sqlite3.Connection) -> None:
        """Apply the migrations this file lacks (its version is SQLite's
        ``user_version``), each in its own transaction."""
        have = int(db.execute("PRAGMA user_version").fetchone()[0])
        if have > SCHEMA_VERSION:
            raise newer_schema(self.path, have)
        for m in MIGRATIONS:
            if m.version <= have:
                continue
            db.execute("BEGIN IMMEDIATE")
            try:
                for step in m.sqlite:
                    if isinstance(step, str):
                        db.execute(step)
                    else:
                        step(db)
                db.execute(f"PRAGMA user_version = {m.version}")
                db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                raise


__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "BaseStore",
    "Fenced",
    "Op",
    "Stale",
    "Store",
    "StoreError",
    "StoredGame",
]
