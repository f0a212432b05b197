"""SQLite storage of web games: one row per game, holding its record.

A stored game *is* its record (docs/records.md): each action rewrites the game's row in
one transaction before the server acknowledges it, so a crash loses nothing that a client
was told about. Resuming a game is replaying its record. Besides the record a row keeps
what the record does not: the seed (for the deals still to come), the seats' players and
the table's event version.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    variant TEXT NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,          -- JSON {"N": "bot:beginner", "S": "human", ...}
    tokens TEXT NOT NULL,         -- JSON {"S": secret}: what a person's seat joins with
    record TEXT NOT NULL,         -- the whistkit-record/1 JSON of the game so far
    version INTEGER NOT NULL,     -- the table's event version after the last action
    created REAL NOT NULL,
    updated REAL NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    winner TEXT,                  -- "NS", "EW", "draw" once finished
    score TEXT                    -- JSON {"NS": 87, "EW": 69}
);
CREATE INDEX IF NOT EXISTS games_finished ON games (finished, updated);
"""
# the columns of a row, in StoredGame's order
COLUMNS = (
    "id, variant, seed, seats, tokens, record, version, created, updated, finished, winner, score"
)


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


class Store:
    """The games of one SQLite database file (``":memory:"`` for tests)."""

    def __init__(self, path: str | Path) -> None:
        """Open (or create) the database; a file that cannot be one, or holds another
        program's ``games`` table, is a ``ValueError`` naming it (nothing is changed)."""
        self.path = str(path)
        try:
            if self.path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            # one connection used from the server's event loop thread only
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as e:
            raise ValueError(f"cannot open the games database {self.path}: {e}") from None
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            # FULL: a committed action survives a power cut, not only a killed process
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
            self.db.execute(f"SELECT {COLUMNS} FROM games LIMIT 0")
        except sqlite3.Error as e:
            self.db.close()
            raise ValueError(
                f"{self.path} is not a whistkit games database (SQLite says: {e})"
            ) from None

    def close(self) -> None:
        self.db.close()

    def create(
        self,
        game_id: str,
        variant: str,
        seed: int,
        seats: dict[str, str],
        tokens: dict[str, str],
    ) -> None:
        """Insert a new game with an empty record; raises if the id exists."""
        now = time.time()
        record = json.dumps({"format": "whistkit-record/1", "variant": variant, "hands": []})
        self.db.execute(
            "INSERT INTO games (id, variant, seed, seats, tokens, record, version, created,"
            " updated) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)",
            (game_id, variant, seed, json.dumps(seats), json.dumps(tokens), record, now, now),
        )

    def save(
        self,
        game_id: str,
        record: str,
        version: int,
        *,
        finished: bool,
        winner: str | None,
        score: dict[str, int],
    ) -> None:
        """Store a game's record after an action; committed when this returns."""
        cur = self.db.execute(
            "UPDATE games SET record = ?, version = ?, updated = ?, finished = ?, winner = ?,"
            " score = ? WHERE id = ?",
            (record, version, time.time(), int(finished), winner, json.dumps(score), game_id),
        )
        if cur.rowcount != 1:
            raise KeyError(f"no stored game {game_id!r}")

    def get(self, game_id: str) -> StoredGame | None:
        """The stored game with this id, or None."""
        row = self.db.execute(
            f"SELECT {COLUMNS} FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        return None if row is None else _row(row)

    def list(self, *, finished: bool | None = None, limit: int = 100) -> list[StoredGame]:
        """Games, most recently updated first; only finished (or unfinished) ones if asked."""
        sql = f"SELECT {COLUMNS} FROM games"
        args: tuple[Any, ...] = ()
        if finished is not None:
            sql += " WHERE finished = ?"
            args = (int(finished),)
        sql += " ORDER BY updated DESC LIMIT ?"
        return [_row(r) for r in self.db.execute(sql, (*args, limit)).fetchall()]


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
    )


__all__ = ["Store", "StoredGame"]
