"""A stored evening with what the model derives from it, as the pages see it.

:class:`Live` takes a :class:`~whistkit.evening.store.StoredEvening` (the evening as
entered), asks the model for the seatings, moves, totals and prizes, and gives each page
its JSON: the host's whole state, one table's view, the projector's, and the exports. It
also checks entries against the derived state (the right hand, a player of that table,
the confirming player an opponent of the one who entered).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

from . import model as m
from .store import Pending, StoredEvening

SEATS = ("N", "E", "S", "W")
SIDE = {"N": "NS", "S": "NS", "E": "EW", "W": "EW"}


class EveningError(ValueError):
    """An entry or a configuration the evening refuses; the message says why."""


@dataclass(frozen=True)
class TableHand:
    table: int
    seats: dict[str, int]  # seat letter -> player id
    dealer: str | None


@dataclass(frozen=True)
class Hand:
    number: int
    contract: str
    tables: list[TableHand]
    sitting_out: list[tuple[int, float | None]]  # player, points credited (None: not yet)


def _fmt(x: float) -> float | int:
    return int(x) if float(x).is_integer() else round(x, 2)


class Live:
    """One evening, derived once per stored version."""

    def __init__(self, stored: StoredEvening) -> None:
        self.stored = stored
        self.names = {p.id: p.name for p in stored.players}
        self.groups = {p.id: p.group for p in stored.players}
        derived = m.derive_for_web(stored)
        self.contracts: list[str] = derived.contracts
        self.hands_seated: list[Hand] = derived.hands
        self.totals: dict[int, float] = derived.totals
        self.prizes: list[dict[str, Any]] = derived.prizes
        self.hands = len(self.contracts)
        self.tables = len(stored.tables)

    # -- where the evening is -------------------------------------------------------------

    def current(self) -> Hand | None:
        """The hand in progress: the first seated hand with a table still to report."""
        if self.stored.status == "setup":
            return None
        for hand in self.hands_seated:
            if any((hand.number, tb.table) not in self.stored.results for tb in hand.tables):
                return hand
        return None

    def waiting(self, hand: Hand) -> list[int]:
        return [tb.table for tb in hand.tables if (hand.number, tb.table) not in self.stored.results]

    def moves_after(self, number: int) -> list[dict[str, Any]]:
        """Where each player of hand ``number`` sits in the next hand (only when seated)."""
        if number < 1 or number >= len(self.hands_seated) + 1 or number >= len(self.hands_seated):
            return []
        before, after = self.hands_seated[number - 1], self.hands_seated[number]
        where = {}
        for tb in after.tables:
            for seat, pid in tb.seats.items():
                where[pid] = (tb.table, seat)
        out = []
        for tb in before.tables:
            for seat in SEATS:
                pid = tb.seats[seat]
                to = where.get(pid)
                if to is None:
                    out.append({"player": pid, "name": self.names[pid], "from": tb.table, "to": None, "seat": None, "stay": False})
                    continue
                out.append(
                    {
                        "player": pid,
                        "name": self.names[pid],
                        "from": tb.table,
                        "to": to[0],
                        "seat": to[1],
                        "stay": to[0] == tb.table,
                    }
                )
        return out

    def last_moves(self) -> dict[str, Any] | None:
        """The moves into the hand in progress (or into the last hand): the players who
        change tables, by name."""
        cur = self.current()
        number = (cur.number if cur else len(self.hands_seated)) - 1
        if number < 1:
            return None
        moving = [mv for mv in self.moves_after(number) if not mv["stay"] and mv["to"] is not None]
        moving.sort(key=lambda mv: (mv["to"], mv["name"]))
        return {"after": number, "moves": moving}

    # -- checks ---------------------------------------------------------------------------

    def _hand_table(self, hand: int, table: int) -> TableHand:
        if hand > len(self.hands_seated):
            raise EveningError(f"hand {hand} is not seated yet: the tables still report hand {len(self.hands_seated)}")
        for tb in self.hands_seated[hand - 1].tables:
            if tb.table == table:
                return tb
        raise EveningError(f"no one plays at table {table} in hand {hand}")

    def check_can_report(self, hand: int, table: int) -> None:
        self._hand_table(hand, table)

    def check_entry(self, hand: int, table: int, side: str, by: int) -> None:
        if self.stored.status != "running":
            raise EveningError(f"the evening is {self.stored.status}; results wait")
        tb = self._hand_table(hand, table)
        seat = next((s for s, p in tb.seats.items() if p == by), None)
        if seat is None:
            raise EveningError(f"player {by} does not sit at table {table} in hand {hand}")
        if SIDE[seat] != side:
            raise EveningError("enter your own partnership's tricks")

    def check_confirm(self, hand: int, table: int, by: int) -> Pending:
        if self.stored.status != "running":
            raise EveningError(f"the evening is {self.stored.status}; results wait")
        tb = self._hand_table(hand, table)
        pending = self.stored.pending.get((hand, table))
        if pending is None:
            raise EveningError(f"table {table} has no entry of hand {hand} to confirm")
        seat = next((s for s, p in tb.seats.items() if p == by), None)
        if seat is None:
            raise EveningError(f"player {by} does not sit at table {table} in hand {hand}")
        first = next(s for s, p in tb.seats.items() if p == pending.entered_by)
        if SIDE[seat] == SIDE[first]:
            raise EveningError("an opponent of the player who entered the result confirms it")
        return pending

    # -- pages ----------------------------------------------------------------------------

    def standings(self) -> list[dict[str, Any]]:
        """Every player with their total and their place in their group (ties share)."""
        rows = sorted(
            self.stored.players, key=lambda p: (p.group, -self.totals.get(p.id, 0.0), p.name)
        )
        out: list[dict[str, Any]] = []
        place, last, last_group = 0, None, None
        for i, p in enumerate(rows):
            total = self.totals.get(p.id, 0.0)
            if p.group != last_group:
                start, last, last_group = i, None, p.group
            if total != last:
                place = i - start + 1
                last = total
            out.append({"player": p.id, "name": p.name, "group": p.group, "total": _fmt(total), "rank": place})
        return out

    def hand_json(self, hand: Hand) -> dict[str, Any]:
        tables = []
        for tb in hand.tables:
            res = self.stored.results.get((hand.number, tb.table))
            pend = self.stored.pending.get((hand.number, tb.table))
            tables.append(
                {
                    "table": tb.table,
                    "seats": tb.seats,
                    "dealer": tb.dealer,
                    "result": None if res is None else {"ns": res.ns, "moved_ns": res.moved_ns},
                    "pending": None if pend is None else {"ns": pend.ns, "by": pend.entered_by},
                }
            )
        return {
            "number": hand.number,
            "contract": hand.contract,
            "tables": tables,
            "sitting_out": [
                {"player": p, "points": None if pts is None else _fmt(pts)}
                for p, pts in hand.sitting_out
            ],
        }

    def current_json(self) -> dict[str, Any] | None:
        cur = self.current()
        if cur is None:
            return None
        return {"number": cur.number, "contract": cur.contract, "waiting": self.waiting(cur)}

    def host_json(self, base_url: str) -> dict[str, Any]:
        s = self.stored
        return {
            "version": s.version,
            "id": s.id,
            "title": s.title,
            "status": s.status,
            "hide_standings": s.hide_standings,
            "config": s.config,
            "host_link": f"{base_url}e/{s.id}/host?key={s.host_key}",
            "players": [
                {"id": p.id, "name": p.name, "group": p.group, "fixed": p.fixed}
                for p in s.players
            ],
            "seated": s.seating is not None,
            "tables": [
                {"number": n, "url": f"{base_url}t/{s.id}/{tok}", "qr": f"/e/{s.id}/qr/{n}.svg"}
                for n, tok in sorted(s.tables.items())
            ],
            "hands": self.hands,
            "contracts": self.contracts,
            "current": self.current_json(),
            "hand_states": [self.hand_json(h) for h in self.hands_seated],
            "moves": self.last_moves(),
            "standings": self.standings(),
            "prizes": self.prizes,
            "audit": [],
        }

    def projector_json(self) -> dict[str, Any]:
        s = self.stored
        groups: dict[str, list[dict[str, Any]]] = {}
        for row in self.standings():
            groups.setdefault(row["group"], []).append(row)
        hidden = s.hide_standings and s.status != "finished"
        return {
            "version": s.version,
            "title": s.title,
            "status": s.status,
            "hide_standings": s.hide_standings,
            "hands": self.hands,
            "current": self.current_json(),
            "moves": self.last_moves(),
            "standings": {} if hidden else groups,
            "prizes": [
                {**p, "names": [self.names.get(i, f"#{i}") for i in p["players"]]}
                for p in self.prizes
            ]
            if s.status == "finished"
            else [],
        }

    def table_json(self, number: int) -> dict[str, Any]:
        s = self.stored
        cur = self.current()
        hand = cur
        if hand is None and self.hands_seated and s.status != "setup":
            hand = self.hands_seated[-1]
        out: dict[str, Any] = {
            "version": s.version,
            "title": s.title,
            "status": s.status,
            "table": number,
            "hands": self.hands,
            "hand": None,
            "moves": [],
            "arrived": [],
            "waiting": [],
        }
        if hand is None:
            return out
        tb = next((x for x in hand.tables if x.table == number), None)
        if tb is None:
            return out
        res = s.results.get((hand.number, number))
        pend = s.pending.get((hand.number, number))
        out["hand"] = {
            "number": hand.number,
            "contract": hand.contract,
            "dealer": tb.dealer,
            "seats": {
                seat: {"id": pid, "name": self.names[pid], "group": self.groups[pid]}
                for seat, pid in tb.seats.items()
            },
            "result": None if res is None else {"ns": res.ns},
            "pending": None if pend is None else {"ns": pend.ns, "by": pend.entered_by},
        }
        out["waiting"] = self.waiting(hand)
        out["moves"] = [mv for mv in self.moves_after(hand.number) if mv["from"] == number]
        if hand.number > 1:
            out["arrived"] = [
                {**mv, "after": hand.number - 1}
                for mv in self.moves_after(hand.number - 1)
                if mv["to"] == number
            ]
        return out

    # -- exports --------------------------------------------------------------------------

    def results_csv(self) -> str:
        """One row per player and hand: table, seat, partner, tricks, points; then totals."""
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["hand", "contract", "table", "seat", "player", "name", "group", "partner", "tricks", "points"])
        for hand in self.hands_seated:
            for tb in hand.tables:
                res = self.stored.results.get((hand.number, tb.table))
                for seat in SEATS:
                    pid = tb.seats[seat]
                    partner = tb.seats[{"N": "S", "S": "N", "E": "W", "W": "E"}[seat]]
                    tricks = "" if res is None else (res.ns if SIDE[seat] == "NS" else 13 - res.ns)
                    points = "" if res is None else m.points_for_web(hand.contract, res.ns, SIDE[seat])
                    w.writerow([hand.number, hand.contract, tb.table, seat, pid, self.names[pid], self.groups[pid], self.names[partner], tricks, points])
            for pid, pts in hand.sitting_out:
                w.writerow([hand.number, hand.contract, "", "out", pid, self.names[pid], self.groups[pid], "", "", "" if pts is None else _fmt(pts)])
        w.writerow([])
        w.writerow(["rank", "player", "name", "group", "total"])
        for row in self.standings():
            w.writerow([row["rank"], row["player"], row["name"], row["group"], row["total"]])
        return buf.getvalue()

    def export_json(self) -> dict[str, Any]:
        s = self.stored
        return {
            "format": "whistkit-evening/1",
            "id": s.id,
            "title": s.title,
            "status": s.status,
            "config": s.config,
            "players": [
                {"id": p.id, "name": p.name, "group": p.group, "fixed": p.fixed} for p in s.players
            ],
            "seating": s.seating,
            "results": [
                {
                    "hand": r.hand,
                    "table": r.table,
                    "ns": r.ns,
                    "moved_ns": r.moved_ns,
                    "entered_by": r.entered_by,
                    "confirmed_by": r.confirmed_by,
                    "at": r.at,
                }
                for r in sorted(s.results.values(), key=lambda r: (r.hand, r.table))
            ],
            "hands": [self.hand_json(h) for h in self.hands_seated],
            "totals": [
                {"player": row["player"], "total": row["total"], "rank": row["rank"]}
                for row in self.standings()
            ],
            "prizes": self.prizes,
        }


def check_config(raw: Any) -> dict[str, Any]:
    """The evening's configuration from the create form, checked by the model."""
    return m.check_config(raw)


def seat(stored: StoredEvening, mode: str, seed: int) -> dict[str, Any]:
    """The first hand's seating of the stored players: at random (``seed``) or as entered."""
    return m.seat(stored, mode, seed)


def meta() -> dict[str, Any]:
    """What the create form offers."""
    return m.META


def qr_svg(url: str) -> bytes:
    """The QR code of ``url`` as an SVG document (segno)."""
    import segno

    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="svg", scale=8, border=4, xmldecl=False)
    return buf.getvalue()
