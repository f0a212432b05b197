"""SQLite storage of félagsvist evenings, as entered, beside the web game's tables.

The evening is stored as the host and the tables entered it: its configuration, the
players, the initial seating, every confirmed result (with the value the movement used
and the value the score uses now), the entries still waiting for an opponent's
confirmation, and an audit log of every change. Seatings after the first hand, moves,
totals and prizes are never stored: the model (:mod:`whistkit.evening`) derives them.

Every write is one transaction committed (``synchronous=FULL``) before the caller is
told anything, so a killed server loses nothing a page was told was confirmed. The
tables live in the same database file as the web game's ``games`` (own names, own
``CREATE TABLE IF NOT EXISTS``), so one ``--db`` serves both.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS evenings (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    config TEXT NOT NULL,          -- JSON: preset, hands, prizes, sit-out policy, ...
    host_key TEXT NOT NULL,        -- the secret of the host's pages (a cookie)
    status TEXT NOT NULL,          -- setup, running, paused, finished
    seating TEXT,                  -- JSON: the first hand's tables, once seated
    hide_standings INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL,      -- bumped by every change (pages wait on it)
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS evening_players (
    evening TEXT NOT NULL,
    id INTEGER NOT NULL,
    name TEXT NOT NULL,
    grp TEXT NOT NULL,             -- A or B: the registered group
    other_group INTEGER NOT NULL,  -- seated as a player of the other group
    fixed INTEGER NOT NULL,        -- keeps a fixed seat (cannot move)
    arrives INTEGER NOT NULL,      -- first hand there (late arrivals)
    leaves INTEGER,                -- last hand there (early leavers); NULL: to the end
    PRIMARY KEY (evening, id)
);
CREATE TABLE IF NOT EXISTS evening_tables (
    evening TEXT NOT NULL,
    number INTEGER NOT NULL,
    token TEXT NOT NULL,           -- the secret in the table card's link
    PRIMARY KEY (evening, number)
);
CREATE TABLE IF NOT EXISTS evening_results (
    evening TEXT NOT NULL,
    hand INTEGER NOT NULL,
    tbl INTEGER NOT NULL,
    moved_ns INTEGER NOT NULL,     -- N-S tricks as first confirmed: the movement used these
    ns INTEGER NOT NULL,           -- N-S tricks now (after corrections): the score uses these
    entered_by INTEGER,            -- player ids (NULL: typed on the host page)
    confirmed_by INTEGER,
    at REAL NOT NULL,
    PRIMARY KEY (evening, hand, tbl)
);
CREATE TABLE IF NOT EXISTS evening_pending (
    evening TEXT NOT NULL,
    hand INTEGER NOT NULL,
    tbl INTEGER NOT NULL,
    ns INTEGER NOT NULL,
    entered_by INTEGER NOT NULL,
    at REAL NOT NULL,
    device TEXT,                   -- the phone that entered it (its session's label)
    PRIMARY KEY (evening, hand, tbl)
);
CREATE TABLE IF NOT EXISTS evening_audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    evening TEXT NOT NULL,
    at REAL NOT NULL,
    actor TEXT NOT NULL,           -- host, or "table N"
    action TEXT NOT NULL,
    detail TEXT NOT NULL           -- JSON
);
CREATE INDEX IF NOT EXISTS evening_audit_by ON evening_audit (evening, seq);
"""
_CHECK = (
    "SELECT id, title, config, host_key, status, seating, hide_standings, version FROM evenings"
    " LIMIT 0"
)
STATUSES = ("setup", "running", "paused", "finished")


@dataclass(frozen=True)
class Player:
    """A player as entered (the model's :class:`whistkit.evening.Player` fields)."""

    id: int
    name: str
    group: str
    fixed: bool = False
    other_group: bool = False
    arrives: int = 1
    leaves: int | None = None


@dataclass(frozen=True)
class Result:
    """A confirmed result of one table's hand: N-S tricks now, and as the movement used."""

    hand: int
    table: int
    ns: int
    moved_ns: int
    entered_by: int | None
    confirmed_by: int | None
    at: float


@dataclass(frozen=True)
class Pending:
    """An entry waiting for an opponent's confirmation."""

    hand: int
    table: int
    ns: int
    entered_by: int
    at: float
    device: str | None = None  # the label of the phone that entered it


@dataclass(frozen=True)
class AuditEntry:
    seq: int
    at: float
    actor: str
    action: str
    detail: dict[str, Any]


@dataclass(frozen=True)
class StoredEvening:
    """Everything stored of one evening."""

    id: str
    title: str
    config: dict[str, Any]
    host_key: str
    status: str
    seating: dict[str, Any] | None
    hide_standings: bool
    version: int
    created: float
    updated: float
    players: tuple[Player, ...]
    tables: dict[int, str]  # number -> token
    results: dict[tuple[int, int], Result]  # (hand, table) -> result
    pending: dict[tuple[int, int], Pending]


class Conflict(ValueError):
    """A write refused because the stored evening is not in the state it needs; ``code``
    (optional) names the kind for the pages."""

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class EveningStore:
    """The evenings of one SQLite file (``":memory:"`` for tests)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            if self.path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as e:
            raise ValueError(f"cannot open the database {self.path}: {e}") from None
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA busy_timeout=5000")
            self.db.executescript(SCHEMA)
            columns = {r[1] for r in self.db.execute("PRAGMA table_info(evening_pending)")}
            if "device" not in columns:  # a database of before issue 33
                self.db.execute("ALTER TABLE evening_pending ADD COLUMN device TEXT")
            self.db.execute(_CHECK)
        except sqlite3.Error as e:
            self.db.close()
            raise ValueError(f"{self.path} is not a whistkit database (SQLite says: {e})") from None

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One transaction, committed (durably) when the block ends without an error."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _bump(self, db: sqlite3.Connection, evening: str) -> int:
        cur = db.execute(
            "UPDATE evenings SET version = version + 1, updated = ? WHERE id = ?",
            (time.time(), evening),
        )
        if cur.rowcount != 1:
            raise KeyError(evening)
        row = db.execute("SELECT version FROM evenings WHERE id = ?", (evening,)).fetchone()
        return int(row[0])

    def _audit(
        self, db: sqlite3.Connection, evening: str, actor: str, action: str, detail: dict[str, Any]
    ) -> None:
        db.execute(
            "INSERT INTO evening_audit (evening, at, actor, action, detail) VALUES (?,?,?,?,?)",
            (evening, time.time(), actor, action, json.dumps(detail, ensure_ascii=False)),
        )

    # -- writes ---------------------------------------------------------------------------

    def create(self, evening: str, title: str, config: dict[str, Any], host_key: str) -> None:
        now = time.time()
        with self._tx() as db:
            db.execute(
                "INSERT INTO evenings (id, title, config, host_key, status, version, created,"
                " updated) VALUES (?, ?, ?, ?, 'setup', 1, ?, ?)",
                (evening, title, json.dumps(config), host_key, now, now),
            )
            self._audit(db, evening, "host", "create", {"title": title, "config": config})

    def update_config(self, evening: str, title: str, config: dict[str, Any]) -> int:
        with self._tx() as db:
            self._need_status(db, evening, STATUSES)
            db.execute(
                "UPDATE evenings SET title = ?, config = ? WHERE id = ?",
                (title, json.dumps(config), evening),
            )
            self._audit(db, evening, "host", "config", {"title": title, "config": config})
            return self._bump(db, evening)

    def set_players(self, evening: str, players: Sequence[Player]) -> int:
        """Replace the player list (checked by the caller against the results so far);
        before the start, a seating made earlier is dropped."""
        with self._tx() as db:
            status = self._need_status(db, evening, ("setup", "running", "paused"))
            db.execute("DELETE FROM evening_players WHERE evening = ?", (evening,))
            db.executemany(
                "INSERT INTO evening_players (evening, id, name, grp, other_group, fixed,"
                " arrives, leaves) VALUES (?,?,?,?,?,?,?,?)",
                [
                    (
                        evening,
                        p.id,
                        p.name,
                        p.group,
                        int(p.other_group),
                        int(p.fixed),
                        p.arrives,
                        p.leaves,
                    )
                    for p in players
                ],
            )
            if status == "setup":
                db.execute("UPDATE evenings SET seating = NULL WHERE id = ?", (evening,))
            self._audit(db, evening, "host", "players", {"count": len(players)})
            return self._bump(db, evening)

    def add_tables(self, evening: str, tokens: dict[int, str]) -> None:
        """Links for tables that appear later (late arrivals fill a new table)."""
        with self._tx() as db:
            db.executemany(
                "INSERT OR IGNORE INTO evening_tables (evening, number, token) VALUES (?,?,?)",
                [(evening, n, tok) for n, tok in sorted(tokens.items())],
            )

    def set_seating(
        self,
        evening: str,
        seating: dict[str, Any],
        config: dict[str, Any],
        tokens: dict[int, str],
    ) -> int:
        """Store how the first hand is seated (in the config the model reads, and as a mark
        that the host seated them) and the tables' link tokens (before the start); a table
        that had a token keeps it, so cards printed earlier stay good."""
        with self._tx() as db:
            self._need_status(db, evening, ("setup",))
            db.execute(
                "UPDATE evenings SET seating = ?, config = ? WHERE id = ?",
                (json.dumps(seating), json.dumps(config), evening),
            )
            have = {
                int(n)
                for (n,) in db.execute(
                    "SELECT number FROM evening_tables WHERE evening = ?", (evening,)
                )
            }
            db.execute(
                "DELETE FROM evening_tables WHERE evening = ? AND number > ?",
                (evening, len(tokens)),
            )
            db.executemany(
                "INSERT INTO evening_tables (evening, number, token) VALUES (?,?,?)",
                [(evening, n, tok) for n, tok in sorted(tokens.items()) if n not in have],
            )
            self._audit(db, evening, "host", "seat", {"mode": seating.get("mode")})
            return self._bump(db, evening)

    def set_status(self, evening: str, status: str, allowed_from: Sequence[str]) -> int:
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        with self._tx() as db:
            self._need_status(db, evening, allowed_from)
            db.execute("UPDATE evenings SET status = ? WHERE id = ?", (status, evening))
            self._audit(db, evening, "host", status, {})
            return self._bump(db, evening)

    def set_hidden(self, evening: str, hidden: bool) -> int:
        with self._tx() as db:
            db.execute(
                "UPDATE evenings SET hide_standings = ? WHERE id = ?", (int(hidden), evening)
            )
            self._audit(db, evening, "host", "hide_standings", {"hidden": hidden})
            return self._bump(db, evening)

    def _name(self, db: sqlite3.Connection, evening: str, player: int | None) -> str | None:
        if player is None:
            return None
        row = db.execute(
            "SELECT name FROM evening_players WHERE evening = ? AND id = ?", (evening, player)
        ).fetchone()
        return str(row[0]) if row else f"#{player}"

    def enter(
        self,
        evening: str,
        hand: int,
        table: int,
        ns: int,
        entered_by: int,
        device: str | None = None,
    ) -> int:
        """A table's entry, waiting for an opponent; replaces an earlier unconfirmed one.
        ``device`` labels the phone it came from (another phone must confirm it)."""
        with self._tx() as db:
            self._need_status(db, evening, ("running",))
            self._need_no_result(db, evening, hand, table)
            db.execute(
                "INSERT OR REPLACE INTO evening_pending (evening, hand, tbl, ns, entered_by, at,"
                " device) VALUES (?,?,?,?,?,?,?)",
                (evening, hand, table, ns, entered_by, time.time(), device),
            )
            self._audit(
                db,
                evening,
                f"table {table}",
                "enter",
                {
                    "hand": hand,
                    "table": table,
                    "ns": ns,
                    "by": entered_by,
                    "by_name": self._name(db, evening, entered_by),
                    "phone": device,
                },
            )
            return self._bump(db, evening)

    def reject(self, evening: str, hand: int, table: int, by: int) -> int:
        with self._tx() as db:
            cur = db.execute(
                "DELETE FROM evening_pending WHERE evening = ? AND hand = ? AND tbl = ?",
                (evening, hand, table),
            )
            if cur.rowcount != 1:
                raise Conflict(f"table {table} has no entry of hand {hand} to reject")
            self._audit(
                db, evening, f"table {table}", "reject", {"hand": hand, "table": table, "by": by}
            )
            return self._bump(db, evening)

    def confirm(
        self,
        evening: str,
        hand: int,
        table: int,
        ns: int,
        *,
        entered_by: int | None,
        confirmed_by: int | None,
        actor: str,
        entered_phone: str | None = None,
        confirmed_phone: str | None = None,
    ) -> int:
        """Store a confirmed result (from a table's confirmation, or typed by the host);
        durable when this returns. A result already there is a :class:`Conflict`."""
        with self._tx() as db:
            self._need_status(
                db, evening, ("running", "paused") if actor == "host" else ("running",)
            )
            self._need_no_result(db, evening, hand, table)
            db.execute(
                "DELETE FROM evening_pending WHERE evening = ? AND hand = ? AND tbl = ?",
                (evening, hand, table),
            )
            db.execute(
                "INSERT INTO evening_results (evening, hand, tbl, moved_ns, ns, entered_by,"
                " confirmed_by, at) VALUES (?,?,?,?,?,?,?,?)",
                (evening, hand, table, ns, ns, entered_by, confirmed_by, time.time()),
            )
            self._audit(
                db,
                evening,
                actor,
                "result",
                {
                    "hand": hand,
                    "table": table,
                    "ns": ns,
                    "entered_by": entered_by,
                    "confirmed_by": confirmed_by,
                    # who, by name, and from which phone (None: on the host's page)
                    "entered_by_name": self._name(db, evening, entered_by),
                    "confirmed_by_name": self._name(db, evening, confirmed_by),
                    "entered_phone": entered_phone,
                    "confirmed_phone": confirmed_phone,
                },
            )
            return self._bump(db, evening)

    def correct(self, evening: str, hand: int, table: int, ns: int, reason: str) -> int:
        """Change a confirmed result's score (the movement it made stands)."""
        with self._tx() as db:
            row = db.execute(
                "SELECT ns FROM evening_results WHERE evening = ? AND hand = ? AND tbl = ?",
                (evening, hand, table),
            ).fetchone()
            if row is None:
                raise Conflict(f"table {table} has no confirmed result of hand {hand}")
            db.execute(
                "UPDATE evening_results SET ns = ? WHERE evening = ? AND hand = ? AND tbl = ?",
                (ns, evening, hand, table),
            )
            self._audit(
                db,
                evening,
                "host",
                "correct",
                {"hand": hand, "table": table, "from": int(row[0]), "to": ns, "reason": reason},
            )
            return self._bump(db, evening)

    def _need_status(self, db: sqlite3.Connection, evening: str, allowed: Sequence[str]) -> str:
        row = db.execute("SELECT status FROM evenings WHERE id = ?", (evening,)).fetchone()
        if row is None:
            raise KeyError(evening)
        if row[0] not in allowed:
            raise Conflict(
                f"the evening is {row[0]}; this needs it {' or '.join(allowed)}",
                code="not_running",
            )
        return str(row[0])

    def _need_no_result(self, db: sqlite3.Connection, evening: str, hand: int, table: int) -> None:
        row = db.execute(
            "SELECT ns FROM evening_results WHERE evening = ? AND hand = ? AND tbl = ?",
            (evening, hand, table),
        ).fetchone()
        if row is not None:
            raise Conflict(
                f"table {table} already has a confirmed result of hand {hand}"
                f" ({row[0]} tricks to N-S); the host can correct it",
                code="already_reported",
            )

    # -- reads ----------------------------------------------------------------------------

    def host_key(self, evening: str) -> str | None:
        row = self.db.execute("SELECT host_key FROM evenings WHERE id = ?", (evening,)).fetchone()
        return None if row is None else str(row[0])

    def version(self, evening: str) -> int | None:
        row = self.db.execute("SELECT version FROM evenings WHERE id = ?", (evening,)).fetchone()
        return None if row is None else int(row[0])

    def get(self, evening: str) -> StoredEvening | None:
        row = self.db.execute(
            "SELECT id, title, config, host_key, status, seating, hide_standings, version,"
            " created, updated FROM evenings WHERE id = ?",
            (evening,),
        ).fetchone()
        if row is None:
            return None
        players = tuple(
            Player(int(i), name, grp, bool(fixed), bool(other), int(arrives), leaves)
            for i, name, grp, fixed, other, arrives, leaves in self.db.execute(
                "SELECT id, name, grp, fixed, other_group, arrives, leaves FROM evening_players"
                " WHERE evening = ? ORDER BY id",
                (evening,),
            )
        )
        tables = {
            int(n): tok
            for n, tok in self.db.execute(
                "SELECT number, token FROM evening_tables WHERE evening = ? ORDER BY number",
                (evening,),
            )
        }
        results = {
            (int(h), int(t)): Result(int(h), int(t), int(ns), int(m), eb, cb, at)
            for h, t, m, ns, eb, cb, at in self.db.execute(
                "SELECT hand, tbl, moved_ns, ns, entered_by, confirmed_by, at"
                " FROM evening_results WHERE evening = ?",
                (evening,),
            )
        }
        pending = {
            (int(h), int(t)): Pending(int(h), int(t), int(ns), int(eb), at, dev)
            for h, t, ns, eb, at, dev in self.db.execute(
                "SELECT hand, tbl, ns, entered_by, at, device FROM evening_pending"
                " WHERE evening = ?",
                (evening,),
            )
        }
        return StoredEvening(
            id=row[0],
            title=row[1],
            config=json.loads(row[2]),
            host_key=row[3],
            status=row[4],
            seating=json.loads(row[5]) if row[5] else None,
            hide_standings=bool(row[6]),
            version=int(row[7]),
            created=row[8],
            updated=row[9],
            players=players,
            tables=tables,
            results=results,
            pending=pending,
        )

    def audit(self, evening: str, limit: int = 1000) -> list[AuditEntry]:
        """The audit log, newest first."""
        return [
            AuditEntry(int(s), at, actor, action, json.loads(detail))
            for s, at, actor, action, detail in self.db.execute(
                "SELECT seq, at, actor, action, detail FROM evening_audit WHERE evening = ?"
                " ORDER BY seq DESC LIMIT ?",
                (evening, limit),
            )
        ]

    def list(self, limit: int = 100) -> list[tuple[str, str, str, float]]:
        """(id, title, status, updated) of the evenings, most recently updated first."""
        return [
            (i, title, status, upd)
            for i, title, status, upd in self.db.execute(
                "SELECT id, title, status, updated FROM evenings ORDER BY updated DESC LIMIT ?",
                (limit,),
            )
        ]

    def count_open(self) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM evenings WHERE status != 'finished'").fetchone()
        return int(row[0])


__all__ = [
    "AuditEntry",
    "Conflict",
    "EveningStore",
    "Pending",
    "Player",
    "Result",
    "StoredEvening",
]
