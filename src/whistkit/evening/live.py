"""A stored evening with what the model derives from it, as the pages see it.

:class:`Live` takes a :class:`~whistkit.evening.store.StoredEvening` (the evening as
entered), builds the model's :class:`~whistkit.evening.Evening` from it and asks
:func:`~whistkit.evening.derive` for the seatings, moves, totals and prizes; it gives each
page its JSON (the host's whole state, one table's view, the projector's) and the
exports. It also checks table entries against the derived state: the hand in play, a
player of that table, the confirming player an opponent of the one who entered.

The configuration is stored as JSON with the model's :class:`~whistkit.evening.Config`
field names; :func:`config_from_json` reads it back, strictly.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
from typing import Any

from . import (
    CONTRACTS,
    PRESETS,
    SIT_OUT_POLICIES,
    TIE_RULES,
    Config,
    Derivation,
    Evening,
    EveningError,
    HandState,
    Prizes,
    Result,
    derive,
)
from . import Player as ModelPlayer
from .model import MAX_HANDS, MAX_TOP
from .store import Conflict, Pending, Player, StoredEvening

SEATS = ("N", "E", "S", "W")
SIDE = {"N": "NS", "S": "NS", "E": "EW", "W": "EW"}
PARTNER = {"N": "S", "S": "N", "E": "W", "W": "E"}
_PRIZE_FIELDS = {f.name: f.type for f in dataclasses.fields(Prizes)}
_CONFIG_FIELDS = {f.name for f in dataclasses.fields(Config)}


def config_to_json(config: Config) -> dict[str, Any]:
    out = dataclasses.asdict(config)
    out["trump_order"] = None if config.trump_order is None else list(config.trump_order)
    return out


def prizes_from_json(raw: Any) -> Prizes:
    """:class:`Prizes` from its JSON (missing fields take the defaults), checked;
    ``EveningError`` names an unknown or ill-typed field (the online evenings of
    ``whistkit play`` take their prizes so too)."""
    if not isinstance(raw, dict):
        raise EveningError("'prizes' must be an object")
    bad = sorted(set(raw) - set(_PRIZE_FIELDS))
    if bad:
        raise EveningError(
            f"unknown prize field {', '.join(map(repr, bad))}; known: {', '.join(_PRIZE_FIELDS)}"
        )
    prizes = Prizes(**raw)
    prizes.check()
    return prizes


def config_from_json(raw: Any) -> Config:
    """A checked :class:`Config` from its JSON (missing fields take the defaults);
    ``EveningError`` names an unknown or ill-typed field."""
    if not isinstance(raw, dict):
        raise EveningError("'config' must be an object")
    unknown = sorted(set(raw) - _CONFIG_FIELDS)
    if unknown:
        raise EveningError(
            f"unknown config field {', '.join(map(repr, unknown))}; known:"
            f" {', '.join(sorted(_CONFIG_FIELDS))}"
        )
    values = dict(raw)
    prizes = values.pop("prizes", None)
    values["prizes"] = Prizes() if prizes is None else prizes_from_json(prizes)
    order = values.get("trump_order")
    if order is not None:
        if not isinstance(order, list) or not all(isinstance(c, str) for c in order):
            raise EveningError("'trump_order' must be a list of contract codes")
        values["trump_order"] = tuple(c.upper() for c in order)
    config = Config(**values)
    config.check()
    return config


def meta() -> dict[str, Any]:
    """What the create form offers."""
    return {
        "presets": list(PRESETS),
        "sit_out_policies": list(SIT_OUT_POLICIES),
        "tie_rules": list(TIE_RULES),
        "contracts": list(CONTRACTS),
        "max_hands": MAX_HANDS,
        "max_top": MAX_TOP,
        "default_config": config_to_json(Config()),
    }


def model_player(p: Player) -> ModelPlayer:
    return ModelPlayer(
        id=p.id,
        name=p.name,
        group=p.group,
        other_group=p.other_group,
        fixed_seat=p.fixed,
        arrives=p.arrives,
        leaves=p.leaves,
    )


def model_evening(stored: StoredEvening) -> Evening:
    """The model's truth of a stored evening: each table's first confirmed result moves
    the players; a host's correction changes its points."""
    results = sorted(stored.results.values(), key=lambda r: (r.hand, r.table))
    return Evening(
        config=config_from_json(stored.config),
        players=tuple(model_player(p) for p in stored.players),
        results=tuple(Result(r.hand, r.table, r.moved_ns) for r in results),
        corrections=tuple(Result(r.hand, r.table, r.ns) for r in results if r.ns != r.moved_ns),
        started=stored.status != "setup",
    )


def _fmt(x: float) -> float | int:
    return int(x) if float(x).is_integer() else round(x, 2)


def truth_key(stored: StoredEvening) -> tuple[Any, ...]:
    """What the derivation of ``stored`` depends on (entries waiting for a confirmation,
    the status and the projector switch do not count)."""
    return (
        json.dumps(stored.config, sort_keys=True),
        stored.players,
        stored.seating is not None,
        stored.status != "setup",
        tuple(sorted((k, r.moved_ns, r.ns) for k, r in stored.results.items())),
    )


def derivation_of(stored: StoredEvening) -> Derivation | None:
    """The model's derivation of a seated evening (None before the seating)."""
    if stored.seating is None or not stored.players:
        return None
    return derive(model_evening(stored))


class Live:
    """One evening as stored, with its derivation (:func:`derivation_of`)."""

    def __init__(self, stored: StoredEvening, done: Derivation | None) -> None:
        self.stored = stored
        self.names = {p.id: p.name for p in stored.players}
        self.config = config_from_json(stored.config)
        self.hands = self.config.hands
        self.contracts = [self.config.contract_of(h) for h in range(1, self.hands + 1)]
        self.started = stored.status != "setup"
        self.done = done
        self.seated: tuple[HandState, ...] = self.done.hands if self.done else ()
        self.tables = max((len(h.tables) for h in self.seated), default=0)
        self.plays_as = {p.id: model_player(p).plays_as for p in stored.players}
        self.arrives = {p.id: p.arrives for p in stored.players}
        self.leaves = {p.id: p.leaves for p in stored.players}
        self._totals: dict[int, Any] | None = None
        self._half: dict[str, Any] | None = None  # {}: worked out, none yet
        self._tables: dict[int, dict[str, Any]] = {}
        self._projector: dict[str, Any] | None = None
        self._moves: dict[int, list[dict[str, Any]]] = {}

    # -- where the evening is -------------------------------------------------------------

    def current(self) -> HandState | None:
        """The hand in play (None before the start and once every hand is reported)."""
        if not self.started or self.done is None or self.done.current is None:
            return None
        return self.done.hand(self.done.current)

    def moves_of(self, hand: HandState) -> list[dict[str, Any]]:
        """The moves after ``hand`` known so far (a reported table's are known at once)."""
        if hand.number in self._moves:
            return self._moves[hand.number]
        seat_next: dict[int, str] = {}
        if hand.number < len(self.seated):
            for t in self.seated[hand.number].tables:
                seat_next.update({pid: seat for seat, pid in t.seat_map().items()})
        out = []
        for mv in hand.moves:
            out.append(
                {
                    "player": mv.player,
                    "name": self.names.get(mv.player, f"#{mv.player}"),
                    "from": mv.from_table,
                    "to": mv.to_table,
                    "seat": seat_next.get(mv.player),
                    "stay": mv.stays,
                    # a late arrival's first hand (not a return from sitting out)
                    "new": mv.from_table is None and self.arrives.get(mv.player) == hand.number + 1,
                    # an early leaver's last hand: goes home, does not sit out
                    "leaves": mv.to_table is None and self.leaves.get(mv.player) == hand.number,
                }
            )
        self._moves[hand.number] = out
        return out

    def last_moves(self) -> dict[str, Any] | None:
        """The moves into the hand in play (or into the last hand), of the players who
        change tables or come in or go out, by table."""
        cur = self.current()
        number = (cur.number if cur else len(self.seated)) - 1
        if number < 1 or not self.started:
            return None
        moving = [mv for mv in self.moves_of(self.seated[number - 1]) if not mv["stay"]]
        moving.sort(key=lambda mv: (mv["to"] is None, mv["to"] or 0, mv["name"]))
        return {"after": number, "moves": moving}

    def arrival_hand(self) -> int:
        """The first hand a player added now can play: the one after the hand in play
        (the seating of the hand in play stands)."""
        cur = self.current()
        if cur is None or cur.number >= self.hands:
            raise EveningError("no hand is left for a late arrival")
        return cur.number + 1

    # -- checks ---------------------------------------------------------------------------

    def _table_in_play(self, hand: int, table: int) -> dict[str, int]:
        cur = self.current()
        if cur is None:
            raise EveningError("no hand is in play", code="not_in_play")
        if hand != cur.number:
            raise EveningError(
                f"hand {hand} is not in play; hand {cur.number} is", code="not_in_play"
            )
        if not 1 <= table <= len(cur.tables):
            raise EveningError(f"no one plays at table {table} in hand {hand}")
        return cur.table(table).seat_map()

    def check_can_report(self, hand: int, table: int) -> None:
        self._table_in_play(hand, table)

    def check_entry(self, hand: int, table: int, side: str, by: int) -> None:
        if self.stored.status != "running":
            raise Conflict(f"the evening is {self.stored.status}; results wait", code="not_running")
        seats = self._table_in_play(hand, table)
        seat = next((s for s, p in seats.items() if p == by), None)
        if seat is None:
            raise EveningError(
                f"player {by} does not sit at table {table} in hand {hand}", code="not_at_table"
            )
        if SIDE[seat] != side:
            raise EveningError("enter your own partnership's tricks", code="own_side")

    def check_confirm(self, hand: int, table: int, by: int) -> Pending:
        if self.stored.status != "running":
            raise Conflict(f"the evening is {self.stored.status}; results wait", code="not_running")
        seats = self._table_in_play(hand, table)
        pending = self.stored.pending.get((hand, table))
        if pending is None:
            raise EveningError(
                f"table {table} has no entry of hand {hand} to confirm", code="no_entry"
            )
        seat = next((s for s, p in seats.items() if p == by), None)
        if seat is None:
            raise EveningError(
                f"player {by} does not sit at table {table} in hand {hand}", code="not_at_table"
            )
        first = next((s for s, p in seats.items() if p == pending.entered_by), None)
        if first is not None and SIDE[seat] == SIDE[first]:
            raise EveningError(
                "an opponent of the player who entered the result confirms it",
                code="opponent_confirms",
            )
        return pending

    def check_correction(self, hand: int, table: int) -> None:
        """A correction is of a reported result (the model's add_correction rule)."""
        if hand > len(self.seated):
            raise EveningError(f"hand {hand} has not been played")
        t = self.seated[hand - 1]
        if not 1 <= table <= len(t.tables) or not t.table(table).reported:
            raise EveningError(f"hand {hand} table {table} has not reported; enter its result")

    def check_reject(self, hand: int, table: int, by: int) -> None:
        seats = self._table_in_play(hand, table)
        if by not in seats.values():
            raise EveningError(
                f"player {by} does not sit at table {table} in hand {hand}", code="not_at_table"
            )

    # -- pages ----------------------------------------------------------------------------

    def standings(self) -> list[dict[str, Any]]:
        """Every player with their total and place in their group (ties share a place)."""
        if self.done is None:
            return []
        out = []
        for group in ("A", "B"):
            for s in self.done.standings(group):
                out.append(
                    {
                        "player": s.player,
                        "name": self.names[s.player],
                        "group": s.group,
                        "total": _fmt(s.total),
                        "rank": s.place,
                        "played": s.hands_played,
                    }
                )
        return out

    def prizes(self) -> list[dict[str, Any]]:
        if self.done is None or not self.started:
            return []
        return [
            {
                "category": p.category,
                "place": p.place,
                "players": list(p.players),
                "names": [self.names[i] for i in p.players],
                "value": _fmt(p.value),
            }
            for p in self.done.prizes
        ]

    def hand_json(self, hand: HandState) -> dict[str, Any]:
        tables = []
        for t in hand.tables:
            pend = self.stored.pending.get((hand.number, t.table))
            tables.append(
                {
                    "table": t.table,
                    "seats": t.seat_map(),
                    "dealer": t.seat_of(t.dealer),
                    "result": None
                    if t.confirmed_tricks is None
                    else {"ns": t.ns_tricks, "moved_ns": t.confirmed_tricks, "points": t.points},
                    "pending": None if pend is None else {"ns": pend.ns, "by": pend.entered_by},
                }
            )
        return {
            "number": hand.number,
            "contract": hand.contract,
            "tables": tables,
            "sitting_out": [
                {"player": s.player, "reason": s.reason, "points": _fmt(s.points)}
                for s in hand.sitting_out
            ],
        }

    def current_json(self) -> dict[str, Any] | None:
        cur = self.current()
        if cur is None:
            return None
        return {"number": cur.number, "contract": cur.contract, "waiting": list(cur.waiting)}

    def host_json(self, base_url: str, audit: list[dict[str, Any]]) -> dict[str, Any]:
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
                {
                    "id": p.id,
                    "name": p.name,
                    "group": p.group,
                    "fixed": p.fixed,
                    "other_group": p.other_group,
                    "arrives": p.arrives,
                    "leaves": p.leaves,
                }
                for p in s.players
            ],
            "seated": s.seating is not None,
            "tables": [
                {"number": n, "url": f"{base_url}t/{s.id}/{tok}", "qr": f"/e/{s.id}/qr/{n}.svg"}
                for n, tok in sorted(s.tables.items())
                if n <= max(self.tables, 1)
            ],
            "hands": self.hands,
            "contracts": self.contracts,
            "cycle": list(self.config.contracts),
            "current": self.current_json(),
            "hand_states": [self.hand_json(h) for h in self.seated],
            "moves": self.last_moves(),
            "standings": self.standings() if self.started else [],
            "half_time": self.half_time(),
            "prizes": self.prizes(),
            "audit": audit,
        }

    def projector_json(self) -> dict[str, Any]:
        """What the projector shows (built once per version)."""
        if self._projector is None:
            self._projector = self._projector_json()
        return self._projector

    def _projector_json(self) -> dict[str, Any]:
        s = self.stored
        groups: dict[str, list[dict[str, Any]]] = {}
        hidden = s.hide_standings and s.status != "finished"
        if not hidden and self.started:
            for row in self.standings():
                groups.setdefault(row["group"], []).append(row)
        cur = self.current()
        return {
            "version": s.version,
            "title": s.title,
            "status": s.status,
            "hide_standings": s.hide_standings,
            "hands": self.hands,
            "current": self.current_json(),
            "sitting_out": [self.names[o.player] for o in cur.sitting_out] if cur else [],
            # no moves once every hand is reported: no one goes anywhere
            "moves": self.last_moves() if cur is not None else None,
            "standings": groups,
            "prizes": self.prizes() if s.status == "finished" else [],
        }

    def table_json(self, number: int) -> dict[str, Any]:
        """What table ``number``'s page shows, with an ``etag`` naming its content (the
        same content, the same etag: the page waits for a different one)."""
        made = self._tables.get(number)
        if made is None:
            made = self._table_json(number)
            made["etag"] = hashlib.blake2b(
                json.dumps(made, sort_keys=True).encode(), digest_size=12
            ).hexdigest()
            made["version"] = self.stored.version
            self._tables[number] = made
        return made

    def _table_json(self, number: int) -> dict[str, Any]:
        s = self.stored
        out: dict[str, Any] = {
            "title": s.title,
            "status": s.status,
            "table": number,
            "hands": self.hands,
            "hand": None,
            "moves": [],
            "arrived": [],
            "left": [],
            "waiting": [],
        }
        if not self.started or not self.seated:
            return out
        cur = self.current()
        hand = cur if cur is not None else self.seated[-1]
        if number > len(hand.tables):
            return out
        t = hand.table(number)
        pend = s.pending.get((hand.number, number))
        out["hand"] = {
            "number": hand.number,
            "contract": hand.contract,
            "dealer": t.seat_of(t.dealer),
            "seats": {
                seat: {
                    "id": pid,
                    "name": self.names[pid],
                    "group": self.group_of(pid),
                    # their own running total (None while the host hides the standings)
                    "total": None if s.hide_standings else self.totals().get(pid),
                }
                for seat, pid in t.seat_map().items()
            },
            "result": None if t.confirmed_tricks is None else {"ns": t.ns_tricks},
            "pending": None if pend is None else {"ns": pend.ns, "by": pend.entered_by},
        }
        out["waiting"] = list(hand.waiting)
        here = set(t.seats)
        out["moves"] = [mv for mv in self.moves_of(hand) if mv["player"] in here]
        if hand.number > 1:
            out["arrived"] = [
                {**mv, "after": hand.number - 1}
                for mv in self.moves_of(self.seated[hand.number - 2])
                if mv["to"] == number
            ]
            # who left this table after the hand before, and where to: at the table that
            # reported last the page goes straight to this hand and never showed them
            out["left"] = [
                {**mv, "after": hand.number - 1}
                for mv in self.moves_of(self.seated[hand.number - 2])
                if mv["from"] == number and not mv["stay"]
            ]
        return out

    def half_time(self) -> dict[str, Any] | None:
        """The standings after the first half of the hands (hand ``hands // 2``), once
        every table of those hands has reported: what is read out at the break. Each group
        ranked by the points of those hands (sit-out credits as they stand now); players
        not come by then are not in it."""
        if self._half is not None:
            return self._half or None
        self._half = {}
        half = self.hands // 2
        if self.done is None or not self.started or half < 1 or len(self.seated) < half:
            return None
        if any(t.confirmed_tricks is None for h in self.seated[:half] for t in h.tables):
            return None
        groups: dict[str, list[tuple[float, Any]]] = {"A": [], "B": []}
        for p in self.stored.players:
            if p.arrives > half:
                continue
            lines = self.done.card(p.id)
            total = sum(ln.points for ln in lines if ln.hand <= half and ln.points is not None)
            groups[self.group_of(p.id)].append((float(total), p))
        out: dict[str, list[dict[str, Any]]] = {}
        for g, rows in groups.items():
            rows.sort(key=lambda r: (-r[0], r[1].name))
            out[g] = [
                {
                    "player": p.id,
                    "name": p.name,
                    "total": _fmt(total),
                    "rank": 1 + sum(1 for other, _ in rows if other > total),
                }
                for total, p in rows
            ]
        self._half = {"after": half, "standings": out}
        return self._half

    def totals(self) -> dict[int, Any]:
        """Each player's running total (as the leaderboard has it), worked out once."""
        if self._totals is None:
            self._totals = {r["player"]: r["total"] for r in self.standings()}
        return self._totals

    def group_of(self, player: int) -> str:
        """The group a player is seated as (what their score card says)."""
        return self.plays_as[player]

    def cards_json(self) -> dict[str, Any]:
        """Each player's score card as far as it is known: table, seat, partner, tricks,
        points and running total per hand (the paper backup, filled in)."""
        cards = []
        for p in self.stored.players:
            lines: list[dict[str, Any]] = []
            total = 0.0
            for line in self.done.card(p.id) if self.done else ():
                tricks = None
                if line.points is not None and not line.sat_out:
                    pts = int(line.points)
                    tricks = 13 - pts if line.contract == "NOLO" else pts
                if line.points is not None:
                    total += line.points
                lines.append(
                    {
                        "hand": line.hand,
                        "table": line.table,
                        "seat": line.seat,
                        "partner": None if line.partner is None else self.names[line.partner],
                        "tricks": tricks,
                        "points": None if line.points is None else _fmt(line.points),
                        "total": None if line.points is None else _fmt(total),
                        "sat_out": line.sat_out,
                        # not in the hall that hand (not come yet, or gone home)
                        "absent": line.sat_out
                        and (
                            line.hand < p.arrives or (p.leaves is not None and line.hand > p.leaves)
                        ),
                    }
                )
            cards.append({"player": p.id, "lines": lines})
        return {"version": self.stored.version, "cards": cards}

    # -- exports --------------------------------------------------------------------------

    def results_csv(self) -> str:
        """One row per player and hand (table, seat, partner, tricks, points; sit-outs with
        their credit), then the standings."""
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(
            ["hand", "contract", "table", "seat", "player", "name", "partner", "tricks", "points"]
        )
        for hand in self.seated:
            for t in hand.tables:
                for seat, pid in t.seat_map().items():
                    partner = t.seat_map()[PARTNER[seat]]
                    tricks: Any = ""
                    if t.ns_tricks is not None:
                        tricks = t.ns_tricks if SIDE[seat] == "NS" else 13 - t.ns_tricks
                    points = t.points_of(pid)
                    w.writerow(
                        [
                            hand.number,
                            hand.contract,
                            t.table,
                            seat,
                            pid,
                            self.names[pid],
                            self.names[partner],
                            tricks,
                            "" if points is None else points,
                        ]
                    )
            for o in hand.sitting_out:
                w.writerow(
                    [
                        hand.number,
                        hand.contract,
                        "",
                        o.reason,
                        o.player,
                        self.names[o.player],
                        "",
                        "",
                        _fmt(o.points) if hand.complete else "",
                    ]
                )
        w.writerow([])
        w.writerow(["place", "player", "name", "group", "total", "hands played"])
        for row in self.standings():
            w.writerow(
                [row["rank"], row["player"], row["name"], row["group"], row["total"], row["played"]]
            )
        return buf.getvalue()

    def export_json(self) -> dict[str, Any]:
        s = self.stored
        return {
            "format": "whistkit-evening/1",
            "id": s.id,
            "title": s.title,
            "status": s.status,
            "config": s.config,
            "players": [dataclasses.asdict(p) for p in s.players],
            "results": [
                {
                    "hand": r.hand,
                    "table": r.table,
                    "ns_tricks": r.ns,
                    "confirmed_ns_tricks": r.moved_ns,
                    "entered_by": r.entered_by,
                    "confirmed_by": r.confirmed_by,
                    "at": r.at,
                }
                for r in sorted(s.results.values(), key=lambda r: (r.hand, r.table))
            ],
            "hands": [self.hand_json(h) for h in self.seated],
            "standings": self.standings(),
            "prizes": self.prizes(),
        }


def qr_svg(url: str) -> bytes:
    """The QR code of ``url`` as an SVG document (segno)."""
    import segno

    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="svg", scale=8, border=4, xmldecl=False)
    return buf.getvalue()


__all__ = [
    "Live",
    "config_from_json",
    "config_to_json",
    "derivation_of",
    "meta",
    "model_evening",
    "prizes_from_json",
    "qr_svg",
    "truth_key",
]
