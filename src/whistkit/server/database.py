"""The games database a server is given: a SQLite file or a PostgreSQL URL."""

from __future__ import annotations

from pathlib import Path

from .store import BaseStore, Store


def is_postgres(db: str | Path) -> bool:
    """Does ``db`` name a PostgreSQL database (a ``postgresql://`` URL)?"""
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


def open_store(db: str | Path) -> BaseStore:
    """The store of ``db``: a ``postgresql://`` URL (:class:`PgStore`) or a SQLite file;
    ``ValueError`` naming what is wrong with it."""
    if is_postgres(db):
        from .pgstore import PgStore

        return PgStore(str(db))
    return Store(db)


__all__ = ["is_postgres", "open_store"]
