"""The games in PostgreSQL (``--db postgresql://USER@HOST:PORT/DB``), for several server
processes on one database (docs/deploy.md).

The same tables, statements, group commits and fencing as SQLite's store
(:mod:`whistkit.server.store`), through psycopg 3: the writer thread keeps one
connection and commits whatever is waiting in one transaction; an action is acknowledged
once PostgreSQL has committed it. Each reading thread has its own connection. A
connection that PostgreSQL cut (a restart, a failover) is opened again for the next batch
or read; the batch it cut is answered with a :class:`~whistkit.server.store.StoreError`
and nothing of it is acknowledged.

The schema is migrated on opening, under a transaction-scoped advisory lock, so that
processes starting together migrate it once.
"""

from __future__ import annotations

import contextlib
from typing import Any
from urllib.parse import urlsplit

from .store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    BaseStore,
    Dialect,
    newer_schema,
)

# pg_advisory_xact_lock's key for migrations: any fixed number, whistkit's own
MIGRATION_LOCK = 0x77686973
# the session lock the server processes of a database hold: shared with a bus (any
# number of processes), exclusive without one (a lone process owns every table)
SERVING_LOCK = 0x77686974


class PgDialect(Dialect):
    """PostgreSQL's forms of the merged statements (typed VALUES, named columns)."""

    begin = "BEGIN"

    def update_progress(self, rows: int) -> str:
        values = ", ".join(
            ["(?::text, ?::integer, ?::float8, ?::integer, ?::text, ?::text)"] * rows
        )
        return (
            "UPDATE games SET version = v.version, updated = v.updated,"
            " finished = v.finished, winner = v.winner, score = v.score"
            f" FROM (VALUES {values}) AS v (id, version, updated, finished, winner, score)"
            " WHERE games.id = v.id"
        )

    def raise_fences(self, rows: int) -> str:
        values = ", ".join(["(?::text, ?::bigint)"] * rows)
        return (
            f"UPDATE games SET fence = v.fence FROM (VALUES {values}) AS v (id, fence)"
            " WHERE games.id = v.id AND games.fence <= v.fence RETURNING games.id"
        )


def _placeholders(sql: str) -> str:
    """SQLite's ``?`` placeholders as psycopg's ``%s`` (the statements hold no other
    ``?`` or ``%``)."""
    return sql.replace("?", "%s")


def shown(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return parts._replace(netloc=netloc).geturl()


class PgStore(BaseStore):
    """The games of one PostgreSQL database."""

    dialect = PgDialect()

    def __init__(self, url: str, *, max_batch: int = 512) -> None:
        """Connect and bring the schema up to date; an unreachable database, another
        program's ``games`` table or a newer schema is a ``ValueError`` naming it."""
        try:
            import psycopg
        except ImportError:
            raise ValueError(
                "--db postgresql://... needs psycopg: pip install 'whistkit[service]'"
            ) from None
        self._psycopg = psycopg
        self.errors = (psycopg.Error,)
        super().__init__(max_batch=max_batch)
        self.url = url
        self.where = f"the games database {shown(url)}"
        try:
            db = self._connect()
        except psycopg.Error as e:
            raise ValueError(f"cannot open {self.where}: {str(e).strip()}") from None
        try:
            self._migrate(db)
            db.execute("SELECT id, fence, secret FROM games LIMIT 0")
        except psycopg.Error as e:
            db.close()
            raise ValueError(
                f"{shown(url)} is not a whistkit games database (PostgreSQL says: {str(e).strip()})"
            ) from None
        except ValueError:
            db.close()
            raise
        self._start_writer(db)

    def serve(self, shared: bool) -> None:
        """Hold the database for serving until the store is closed: ``shared`` (with a
        bus, beside other processes) or alone. ``ValueError`` when that clashes with the
        processes already serving it: two processes without a bus would both take every
        table, and nothing would fence them."""
        db = self._connect()
        kind = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
        got = db.execute(f"SELECT {kind}(%s)", (SERVING_LOCK,)).fetchone()[0]
        if not got:
            db.close()
            raise ValueError(
                f"{self.where} is served by "
                + (
                    "a whistkit process without --bus: stop it, or give it the --bus of the others"
                    if shared
                    else "other whistkit processes: give this one their --bus too"
                    " (several processes share a database only through a bus)"
                )
            )
        self._serving = db

    def close(self) -> None:
        super().close()
        serving = getattr(self, "_serving", None)
        if serving is not None:
            # released here, not when the server notices the closed connection (a
            # moment later): a process started right after this one stops finds it free;
            # if the connection is gone, the server releases the lock with it
            with contextlib.suppress(*self.errors):
                serving.execute("SELECT pg_advisory_unlock_all()")
            serving.close()
            self._serving = None

    def _connect(self) -> Any:
        return self._psycopg.connect(self.url, autocommit=True, connect_timeout=10)

    def _usable(self, db: Any) -> bool:
        return not (db.closed or db.broken)

    def _sql(self, sql: str) -> str:
        return _placeholders(sql)

    def _migrate(self, db: Any) -> None:
        """Apply the migrations the database lacks, each in its own transaction, under
        an advisory lock (processes starting together wait for the first)."""
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT max(version) FROM schema_version").fetchone()
            have = int(row[0] or 0)
            if have > SCHEMA_VERSION:
                raise newer_schema(shown(self.url), have)
            for m in MIGRATIONS:
                if m.version <= have:
                    continue
                for sql in m.postgres:
                    db.execute(sql)
                db.execute("INSERT INTO schema_version (version) VALUES (%s)", (m.version,))


__all__ = ["PgStore"]
