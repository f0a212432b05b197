"""Everything about an evening that follows from its stored truth (model.Evening).

:func:`derive` is pure and deterministic: the same evening gives the same seatings, moves,
points, totals and prizes, on any machine. It is also *causal*: the seating of hand ``h``
depends only on the config, on which players are present in hands 1..h, and on the
confirmed results of hands before ``h``. Confirmed results are never replaced (a host
correction changes points only), so the seatings already played can never change when
a later fact arrives. docs/evening.md gives the rules in words.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from .model import (
    MAX_PLAYERS,
    TRICKS,
    Config,
    Evening,
    EveningError,
    Player,
    Result,
)
from .prizes import Prize, award

SEATS = ("N", "E", "S", "W")
NS, EW = 0, 1
SIDES = ("NS", "EW")


@dataclass(frozen=True)
class TableHand:
    """One table in one hand: who sits where, who deals, and the result once entered."""

    table: int
    # player ids at N, E, S, W; N-S and E-W are the partnerships
    seats: tuple[int, int, int, int]
    dealer: int
    # the tricks N-S took, after any correction (None: not reported yet)
    ns_tricks: int | None = None
    # the tricks of the confirmed result, the one the moves follow
    confirmed_tricks: int | None = None
    # the points of N-S and E-W (in Nóló each side scores the other side's tricks)
    points: tuple[int, int] | None = None

    @property
    def reported(self) -> bool:
        return self.confirmed_tricks is not None

    @property
    def corrected(self) -> bool:
        return self.ns_tricks != self.confirmed_tricks

    def seat_map(self) -> dict[str, int]:
        """``{"N": id, "E": id, "S": id, "W": id}``."""
        return dict(zip(SEATS, self.seats, strict=True))

    def seat_of(self, player: int) -> str:
        return SEATS[self.seats.index(player)]

    def side_of(self, player: int) -> int:
        """NS (0) or EW (1)."""
        return self.seats.index(player) % 2

    def partner_of(self, player: int) -> int:
        return self.seats[(self.seats.index(player) + 2) % 4]

    def points_of(self, player: int) -> int | None:
        return None if self.points is None else self.points[self.side_of(player)]

    @property
    def winner(self) -> int | None:
        """The side (NS 0, EW 1) with more points in the scored result; 13 is odd, so
        there is always one."""
        if self.points is None:
            return None
        return NS if self.points[0] > self.points[1] else EW


@dataclass(frozen=True)
class SitOut:
    """A player who does not play a hand, and the points it credits them."""

    player: int
    # "sit_out": in the hall, no seat this hand (rotation); "absent": not yet come or gone
    reason: str
    # the credit by the evening's sit-out policy; 0 until the hand is complete (and with
    # "own_average" it follows the player's average as the evening goes on)
    points: float


@dataclass(frozen=True)
class Move:
    """Where a player goes after a hand: ``to_table`` None means sits out (or leaves);
    ``from_table`` None means comes in from sitting out (or arrives)."""

    player: int
    from_table: int | None
    to_table: int | None

    @property
    def stays(self) -> bool:
        return self.from_table == self.to_table


@dataclass(frozen=True)
class HandState:
    """One hand of the evening as seated."""

    number: int
    # contract code: H S D C NT NOLO
    contract: str
    tables: tuple[TableHand, ...]
    sitting_out: tuple[SitOut, ...]
    # moves after this hand, one per player at a reported table (stayers too) and, once
    # the hand is complete, for those who come in from sitting out; empty after the last
    moves: tuple[Move, ...] = ()

    @property
    def complete(self) -> bool:
        return all(t.reported for t in self.tables)

    @property
    def waiting(self) -> tuple[int, ...]:
        """The tables still to report."""
        return tuple(t.table for t in self.tables if not t.reported)

    def table(self, number: int) -> TableHand:
        if not 1 <= number <= len(self.tables):
            raise EveningError(
                f"hand {self.number} has tables 1 to {len(self.tables)}, not {number}"
            )
        return self.tables[number - 1]

    def table_of(self, player: int) -> TableHand | None:
        for t in self.tables:
            if player in t.seats:
                return t
        return None


@dataclass(frozen=True)
class Standing:
    player: int
    # 1-based; tied totals share the place (1, 1, 3)
    place: int
    total: float
    hands_played: int
    # the group used for the leaderboard and group prizes (Prizes.group_by)
    group: str


@dataclass(frozen=True)
class PlayerLine:
    """One hand on a player's personal score card."""

    hand: int
    contract: str
    table: int | None
    seat: str | None
    partner: int | None
    # partnership points, or the sit-out credit; None: not reported yet
    points: float | None
    sat_out: bool


@dataclass(frozen=True)
class Derivation:
    """The derived state of an evening: see :func:`derive`."""

    evening: Evening
    hands: tuple[HandState, ...]
    # the hand in play (the first not complete), or None when every hand is complete
    current: int | None
    totals: Mapping[int, float]
    hands_played: Mapping[int, int]
    prizes: tuple[Prize, ...]
    # per player: the group used for standings and group prizes
    prize_group: Mapping[int, str]
    _exact: Mapping[int, Fraction | int]

    @property
    def finished(self) -> bool:
        return self.current is None

    def hand(self, number: int) -> HandState:
        if not 1 <= number <= len(self.hands):
            raise EveningError(f"hand {number} is not seated yet (hands 1 to {len(self.hands)})")
        return self.hands[number - 1]

    def standings(self, group: str | None = None) -> tuple[Standing, ...]:
        """The leaderboard (of one group, or all), best first; ties share a place."""
        ids = [
            p.id for p in self.evening.players if group is None or self.prize_group[p.id] == group
        ]
        ids.sort(key=lambda i: (-self._exact[i], i))
        out: list[Standing] = []
        for n, pid in enumerate(ids):
            if n and self._exact[pid] == self._exact[ids[n - 1]]:
                place = out[-1].place
            else:
                place = n + 1
            out.append(
                Standing(
                    pid, place, self.totals[pid], self.hands_played[pid], self.prize_group[pid]
                )
            )
        return tuple(out)

    def card(self, player: int) -> tuple[PlayerLine, ...]:
        """The player's personal score card, hand by hand (seated hands only)."""
        if player not in self.totals:
            raise EveningError(f"no player {player}")
        out: list[PlayerLine] = []
        for hand in self.hands:
            table = hand.table_of(player)
            if table is not None:
                pts = table.points_of(player)
                out.append(
                    PlayerLine(
                        hand.number,
                        hand.contract,
                        table.table,
                        table.seat_of(player),
                        table.partner_of(player),
                        None if pts is None else float(pts),
                        False,
                    )
                )
            else:
                credit = next((s.points for s in hand.sitting_out if s.player == player), 0.0)
                out.append(
                    PlayerLine(
                        hand.number,
                        hand.contract,
                        None,
                        None,
                        None,
                        credit if hand.complete else None,
                        True,
                    )
                )
        return tuple(out)


# --- changes to the truth -------------------------------------------------------------


def check(evening: Evening) -> None:
    """Raise EveningError naming the first thing wrong in ``evening``."""
    derive(evening)


def new_evening(config: Config, players: Sequence[Player]) -> Evening:
    """A checked evening with no results yet."""
    evening = Evening(config, tuple(players))
    check(evening)
    return evening


def start(evening: Evening) -> Evening:
    """The evening with its first hand's seating announced: from now on no change may
    reseat a hand up to the one in play, and results can be entered."""
    done = derive(evening)
    if evening.started:
        raise EveningError("the evening has already started")
    if not done.hands or not done.hands[0].tables:
        raise EveningError(
            "not enough players for a table: each needs two of group A and two of group B"
            if evening.config.pairs_by_group
            else "not enough players for a table of four"
        )
    return replace(evening, started=True)


def add_result(evening: Evening, result: Result) -> Evening:
    """The evening with a table's confirmed result; the table must be seated in the hand
    in play and not have reported yet."""
    result.check()
    if not evening.started:
        raise EveningError("the evening has not started")
    done = derive(evening)
    if done.current is None:
        raise EveningError("the evening is over; correct a result instead")
    if result.hand != done.current:
        raise EveningError(f"hand {result.hand} is not in play; hand {done.current} is")
    table = done.hand(result.hand).table(result.table)
    if table.reported:
        raise EveningError(
            f"hand {result.hand} table {result.table} has reported; correct it instead"
        )
    return replace(evening, results=(*evening.results, result))


def add_correction(evening: Evening, correction: Result) -> Evening:
    """The evening with a host's correction of a reported result: the points change, the
    moves already made stand."""
    correction.check()
    done = derive(evening)
    if correction.hand > len(done.hands):
        raise EveningError(f"hand {correction.hand} has not been played")
    table = done.hand(correction.hand).table(correction.table)
    if not table.reported:
        raise EveningError(
            f"hand {correction.hand} table {correction.table} has not reported; enter its result"
        )
    return replace(evening, corrections=(*evening.corrections, correction))


def with_players(evening: Evening, players: Sequence[Player]) -> Evening:
    """The evening with a changed player list (new players, names, groups, late arrivals,
    early leavers, ...).

    Once the evening has started, refused if it would reseat any hand up to the one in
    play: a player can arrive for a later hand or leave after the hand in play, and a
    player who has been seated stays on the list (set ``leaves`` instead).
    """
    new = replace(evening, players=tuple(players))
    if not evening.started:
        check(new)
        return new
    before = derive(evening)
    current = before.current or evening.config.hands
    gone = {p.id for p in evening.players} - {p.id for p in players}
    try:
        after = derive(new)
    except EveningError as e:
        if "not seated" not in str(e):
            raise
        after = None
    for hand in before.hands:
        other = None
        if after is not None and hand.number <= len(after.hands):
            other = after.hands[hand.number - 1]
        if other is None or [t.seats for t in other.tables] != [t.seats for t in hand.tables]:
            raise EveningError(
                f"the change would reseat hand {hand.number}, which has started:"
                f" players can arrive from hand {current + 1} and leave after hand {current}"
                + (" (set when they leave instead of removing them)" if gone else "")
            )
    return new


def with_config(evening: Evening, config: Config) -> Evening:
    """The evening with another config. Once started, only the prizes, the sit-out policy,
    credit_absence and the series may change (they change the scoring, not the seating)."""
    if evening.started:
        same_movement = (
            replace(
                config,
                prizes=evening.config.prizes,
                sit_out=evening.config.sit_out,
                credit_absence=evening.config.credit_absence,
                series=evening.config.series,
            )
            == evening.config
        )
        if not same_movement:
            raise EveningError(
                "the evening has started: only the prizes and the sit-out credit can change"
            )
    new = replace(evening, config=config)
    check(new)
    return new


def balance_groups(players: Sequence[Player]) -> tuple[Player, ...]:
    """The players with the fewest of the larger group set to play in the other group,
    so that the groups differ by at most one (the last entered, not fixed-seat, move)."""
    by = {"A": [p for p in players if p.plays_as == "A"], "B": []}
    by["B"] = [p for p in players if p.plays_as == "B"]
    big, small = ("A", "B") if len(by["A"]) > len(by["B"]) else ("B", "A")
    flip = (len(by[big]) - len(by[small])) // 2
    chosen: set[int] = set()
    for p in reversed(by[big]):
        if len(chosen) == flip:
            break
        if not p.fixed_seat:
            chosen.add(p.id)
    return tuple(
        replace(p, other_group=not p.other_group) if p.id in chosen else p for p in players
    )


# --- the derivation -------------------------------------------------------------------


def derive(evening: Evening) -> Derivation:
    """Seat every hand that can be seated, score every result, total, rank and award.

    Raises EveningError for a config, player or result that breaks a rule (a result for
    a table that is not seated, two confirmed results for one table, ...).
    """
    return _Engine(evening).run()


def play_out(evening: Evening, supply: Supply) -> Derivation:
    """Derive ``evening`` with every missing result taken from ``supply(hand, tables)``
    (a list of N-S tricks, one per table), in one pass; the derivation's ``evening``
    holds the supplied results. For simulations and benchmarks."""
    engine = _Engine(evening, supply)
    done = engine.run()
    full = replace(evening, results=(*evening.results, *engine.supplied), started=True)
    return replace(done, evening=full)


def _digest(*parts: object) -> int:
    text = ":".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


Supply = Callable[[int, int], Sequence[int]]


class _Engine:
    def __init__(self, evening: Evening, supply: Supply | None = None) -> None:
        # supply(hand, tables) gives the N-S tricks of tables not yet reported (simulate)
        self.supply = supply
        self.supplied: list[Result] = []
        cfg = evening.config
        if not isinstance(cfg, Config):
            raise EveningError("config must be a Config")
        cfg.check()
        if not isinstance(evening.started, bool):
            raise EveningError("started must be true or false")
        self.evening = evening
        self.cfg = cfg
        self.hands_total = cfg.hands
        players = evening.players
        if not isinstance(players, tuple):
            raise EveningError("players must be a tuple of Player")
        if len(players) > MAX_PLAYERS:
            raise EveningError(f"at most {MAX_PLAYERS} players")
        self.players: dict[int, Player] = {}
        for p in players:
            if not isinstance(p, Player):
                raise EveningError("players must be Player objects")
            p.check(cfg.hands)
            if p.id in self.players:
                raise EveningError(f"player id {p.id} is used twice")
            self.players[p.id] = p
        self.order = {p.id: n for n, p in enumerate(players)}  # entry order
        self.group = {p.id: p.plays_as for p in players}
        self.fixed = {p.id for p in players if p.fixed_seat}
        self.key = {pid: _digest(cfg.seed, "rotation", pid) for pid in self.players}
        self.confirmed: dict[tuple[int, int], int] = {}
        for r in evening.results:
            if not isinstance(r, Result):
                raise EveningError("results must be Result objects")
            r.check()
            if (r.hand, r.table) in self.confirmed:
                raise EveningError(f"hand {r.hand} table {r.table} has two confirmed results")
            self.confirmed[(r.hand, r.table)] = r.ns_tricks
        self.scored = dict(self.confirmed)
        for c in evening.corrections:
            if not isinstance(c, Result):
                raise EveningError("corrections must be Result objects")
            c.check()
            if (c.hand, c.table) not in self.confirmed:
                raise EveningError(
                    f"correction of hand {c.hand} table {c.table}, which has no result"
                )
            self.scored[(c.hand, c.table)] = c.ns_tricks
        # carried from hand to hand
        self.missed = dict.fromkeys(self.players, 0)
        self.home: dict[int, int] = {}  # a fixed-seat player's table
        self.letter: dict[int, int] = {}  # a fixed-seat player's seat index
        self.pair_of: dict[int, int] = {}  # the player's partner in the last hand
        self.partner: dict[int, int] = {}  # partner preset: the player's partnership
        self.round_points: dict[int, list[int]] = {}  # table -> [NS, EW] this round
        self.round_last: dict[int, int] = {}  # table -> winner of the last hand
        self.present_hand = 0
        self.present_ids: list[int] = []
        self.nolo = {h for h in range(1, cfg.hands + 1) if cfg.contract_of(h) == "NOLO"}
        self.moving_winners = cfg.preset in ("felagsvist", "progressive")

    # -- helpers ------------------------------------------------------------------------

    def present(self, hand: int) -> list[int]:
        """The players in the hall for ``hand``, in entry order (computed once a hand)."""
        if self.present_hand != hand:
            self.present_hand = hand
            self.present_ids = [
                pid
                for pid, p in self.players.items()
                if p.arrives <= hand and (p.leaves is None or hand <= p.leaves)
            ]
        return self.present_ids

    def move_point(self, hand: int) -> bool:
        return (hand - 1) % self.cfg.hands_per_move == 0

    def points(self, hand: int, ns_tricks: int) -> tuple[int, int]:
        if hand in self.nolo:
            return (TRICKS - ns_tricks, ns_tricks)
        return (ns_tricks, TRICKS - ns_tricks)

    def sitout_order(self, pid: int) -> tuple[int, int, int]:
        return (pid in self.fixed, self.missed[pid], self.key[pid])

    # -- the run ------------------------------------------------------------------------

    def run(self) -> Derivation:
        hands: list[HandState] = []
        prev: list[tuple[int, int, int, int]] = []
        prev_dealers: list[int] = []
        current: int | None = None
        tables_seen: set[tuple[int, int]] = set()
        for h in range(1, self.hands_total + 1):
            if self.cfg.pairs_by_group:
                seats, dealers, sitting = self.seat_by_group(h, prev, prev_dealers)
            else:
                seats, dealers, sitting = self.seat_pairs(h, prev, prev_dealers)
            absent = [pid for pid in self.players if not self.players[pid].present(h)]
            if self.supply is not None:
                for n, tricks in enumerate(self.supply(h, len(seats)), start=1):
                    if (h, n) not in self.confirmed:
                        self.supplied.append(Result(h, n, tricks))
                        self.confirmed[(h, n)] = self.scored[(h, n)] = tricks
            tables: list[TableHand] = []
            for n, (s, d) in enumerate(zip(seats, dealers, strict=True), start=1):
                tables_seen.add((h, n))
                conf = self.confirmed.get((h, n))
                score = self.scored.get((h, n))
                tables.append(
                    TableHand(
                        n, s, d, score, conf, None if score is None else self.points(h, score)
                    )
                )
            for pid in sitting:
                self.missed[pid] += 1
            for pid in absent:
                self.missed[pid] += 1
            outs = tuple(SitOut(pid, "sit_out", 0.0) for pid in sorted(sitting)) + tuple(
                SitOut(pid, "absent", 0.0) for pid in sorted(absent)
            )
            hand = HandState(h, self.cfg.contract_of(h), tuple(tables), outs)
            hands.append(hand)
            self.keep_round(hand)
            prev, prev_dealers = seats, dealers
            if not hand.complete:
                current = h
                break
        for (h, t), _ in self.confirmed.items():
            if (h, t) not in tables_seen:
                raise EveningError(f"a result for hand {h} table {t}, which is not seated")
        hands = self.add_moves(hands)
        return _score(self.evening, self, hands, current)

    def keep_round(self, hand: HandState) -> None:
        """Add the hand's confirmed points to its round's tally per table."""
        if self.move_point(hand.number):
            self.round_points = {}
            self.round_last = {}
        for t in hand.tables:
            if t.confirmed_tricks is None:
                continue
            ns, ew = self.points(hand.number, t.confirmed_tricks)
            tally = self.round_points.setdefault(t.table, [0, 0])
            tally[0] += ns
            tally[1] += ew
            self.round_last[t.table] = NS if ns > ew else EW

    def round_winner(self, table: int) -> int:
        """The side that won the round at ``table``: more points; tied, the last hand's."""
        ns, ew = self.round_points[table]
        if ns != ew:
            return NS if ns > ew else EW
        return self.round_last[table]

    # -- presets with one A and one B in each partnership ----------------------------------

    def group_movers(self, seats: tuple[int, int, int, int], winner: int) -> tuple[int, int]:
        """The A player who moves up and the B player who moves down from a table."""
        side = winner if self.moving_winners else 1 - winner
        up, down = seats[side], seats[side + 2]
        stay_a, stay_b = seats[1 - side], seats[3 - side]
        if self.group[up] != "A":
            up, down = down, up
        if self.group[stay_a] != "A":
            stay_a, stay_b = stay_b, stay_a
        # a fixed-seat player stays; the other partnership's player of the same group
        # makes the move instead, so every table still sends and receives one of each
        if self.fixed:
            if up in self.fixed and stay_a not in self.fixed:
                up = stay_a
            if down in self.fixed and stay_b not in self.fixed:
                down = stay_b
        return up, down

    def group_targets(
        self, prev: Sequence[tuple[int, int, int, int]], winners: Mapping[int, int]
    ) -> dict[int, tuple[int, bool]]:
        """Movement after a round: player -> (table, stayed) for the tables in
        ``winners`` (table -> winning side)."""
        count = len(prev)
        out: dict[int, tuple[int, bool]] = {}
        for t, win in winners.items():
            seats = prev[t - 1]
            up, down = self.group_movers(seats, win)
            for pid in seats:
                if pid == up:
                    out[pid] = (t % count + 1, False)
                elif pid == down:
                    out[pid] = ((t - 2) % count + 1, False)
                else:
                    out[pid] = (t, True)
        return out

    def plan_by_group(
        self, h: int, prev: Sequence[tuple[int, int, int, int]]
    ) -> tuple[int, set[int]]:
        """The number of tables of hand ``h`` and who sits out: neither depends on results."""
        present = self.present(h)
        by = {"A": [p for p in present if self.group[p] == "A"], "B": []}
        by["B"] = [p for p in present if self.group[p] == "B"]
        count = min(len(by["A"]) // 2, len(by["B"]) // 2)
        kept = set()
        if not self.move_point(h):
            kept = {pid for seats in prev[:count] for pid in seats}
        sitting: set[int] = set()
        for g in ("A", "B"):
            need = len(by[g]) - 2 * count
            # at a move every present player is a candidate; within a round only those
            # without a seat, so that the round's tables keep their players
            candidates = sorted(
                (p for p in by[g] if p not in kept) if kept else by[g], key=self.sitout_order
            )
            if len(candidates) < need:  # a guard: counts make this impossible
                candidates += sorted((p for p in by[g] if p in kept), key=self.sitout_order)
            sitting.update(candidates[:need])
        return count, sitting

    def seat_by_group(
        self, h: int, prev: Sequence[tuple[int, int, int, int]], prev_dealers: Sequence[int]
    ) -> tuple[list[tuple[int, int, int, int]], list[int], set[int]]:
        count, sitting = self.plan_by_group(h, prev)
        present = set(self.present(h))
        playing = present - sitting
        move = self.move_point(h)
        # slots[t] = players targeted at table t with their "stayed" flag
        slots: dict[int, list[tuple[int, bool]]] = {t: [] for t in range(1, count + 1)}
        kept_seats: dict[int, list[int | None]] = {}
        if h > 1 and move and prev:
            winners = {t: self.round_winner(t) for t in range(1, len(prev) + 1)}
            for pid, (t, stayed) in self.group_targets(prev, winners).items():
                if pid in playing and t <= count:
                    slots[t].append((pid, stayed))
        elif h > 1 and prev:
            for t, seats in enumerate(prev[:count], start=1):
                kept_seats[t] = [pid if pid in playing else None for pid in seats]
                slots[t] = [(pid, True) for pid in seats if pid in playing]
        placed = {pid for lst in slots.values() for pid, _ in lst}
        pool = [pid for pid in playing if pid not in placed]
        if h == 1:
            pool.sort(key=self.order.__getitem__)
            if self.cfg.seating == "random":
                random.Random(_digest(self.cfg.seed, "seating")).shuffle(pool)
        else:
            pool.sort(key=lambda pid: _digest(self.cfg.seed, "fill", h, pid))
        # fixed-seat players first, to their own table where it has room
        pool.sort(key=lambda pid: pid not in self.fixed)
        filled = {g: [0] * (count + 1) for g in ("A", "B")}
        for t, lst in slots.items():
            for pid, _ in lst:
                filled[self.group[pid]][t] += 1
        first = {"A": 1, "B": 1}  # no table before it has room for the group
        for pid in pool:
            g = self.group[pid]
            have = filled[g]
            while have[first[g]] >= 2:
                first[g] += 1
            target = first[g]
            if pid in self.fixed:
                home = self.home.get(pid)
                if home is not None and home <= count and have[home] < 2:
                    target = home
                else:
                    # a table without a fixed-seat player, else without one of this group
                    free = [t for t in slots if have[t] < 2]
                    fixed_at = {t: [p for p, _ in slots[t] if p in self.fixed] for t in free}
                    lone = [t for t in free if not fixed_at[t]]
                    lone = lone or [t for t in free if all(self.group[p] != g for p in fixed_at[t])]
                    target = lone[0] if lone else target
            slots[target].append((pid, False))
            have[target] += 1
        seats_out: list[tuple[int, int, int, int]] = []
        dealers: list[int] = []
        for t in range(1, count + 1):
            if t in kept_seats:
                seats, dealer = self.fill_kept(kept_seats[t], slots[t], prev_dealers[t - 1])
            else:
                seats, dealer = self.seat_group_table(slots[t])
            seats = self.keep_letter(t, seats)
            seats_out.append(seats)
            dealers.append(dealer)
        return seats_out, dealers, (present & sitting)

    def fill_kept(
        self, kept: list[int | None], slot: list[tuple[int, bool]], prev_dealer: int
    ) -> tuple[tuple[int, int, int, int], int]:
        """Within a round: the same seats, newcomers in the empty ones (same group); the
        deal passes to the left."""
        seats = list(kept)
        newcomers = [pid for pid, stayed in slot if not stayed]
        for i, pid in enumerate(seats):
            if pid is None:
                # the empty seat's partner fixes the group that belongs in it
                partner = seats[(i + 2) % 4]
                want = None
                if partner is not None:
                    want = "B" if self.group[partner] == "A" else "A"
                pick = next(
                    (n for n in newcomers if want is None or self.group[n] == want), newcomers[0]
                )
                newcomers.remove(pick)
                seats[i] = pick
        full = (seats[0] or 0, seats[1] or 0, seats[2] or 0, seats[3] or 0)
        if prev_dealer in full:
            dealer = full[(full.index(prev_dealer) + 1) % 4]
        else:
            dealer = full[0]
        return full, dealer

    def seat_group_table(
        self, slot: list[tuple[int, bool]]
    ) -> tuple[tuple[int, int, int, int], int]:
        """A table after a move: partners change where they can; the staying A deals."""
        a = [(p, s) for p, s in slot if self.group[p] == "A"]
        b = [(p, s) for p, s in slot if self.group[p] == "B"]
        a.sort(key=lambda ps: not ps[1])  # the staying A first, else as they came
        (a1, s1), (a2, s2) = a
        (b1, t1), (b2, t2) = b

        last = self.pair_of.get
        # the first pairing (a1-b1, a2-b2) against the second (a1-b2, a2-b1): fewer
        # partnerships of the last hand again, then fewer of two who both stayed; in
        # semi-partner the staying (winning) partnership stays together instead
        first = (
            (last(a1) == b1) + (last(a2) == b2),
            (s1 and t1) + (s2 and t2),
        )
        second = (
            (last(a1) == b2) + (last(a2) == b1),
            (s1 and t2) + (s2 and t1),
        )
        if self.cfg.preset == "semi-partner":
            first, second = (-first[1], first[0]), (-second[1], second[0])
        if first <= second:
            return (a1, a2, b1, b2), a1
        return (a1, a2, b2, b1), a1

    def keep_letter(
        self, table: int, seats: tuple[int, int, int, int]
    ) -> tuple[int, int, int, int]:
        """Turn the seat letters so that a fixed-seat player keeps theirs; note the
        partnerships of the hand."""
        known = next((i for i, pid in enumerate(seats) if pid in self.letter), None)
        if known is not None:
            turn = (self.letter[seats[known]] - known) % 4
            seats = (
                seats[(0 - turn) % 4],
                seats[(1 - turn) % 4],
                seats[(2 - turn) % 4],
                seats[(3 - turn) % 4],
            )
        for i, pid in enumerate(seats):
            if pid in self.fixed and pid not in self.letter:
                self.letter[pid] = i
                self.home.setdefault(pid, table)
        for i in range(4):
            self.pair_of[seats[i]] = seats[(i + 2) % 4]
        return seats

    # -- the partner preset: fixed partnerships --------------------------------------------

    def plan_pairs(
        self, h: int, prev: Sequence[tuple[int, int, int, int]]
    ) -> tuple[list[tuple[int, int]], list[tuple[int, int]], int, set[tuple[int, int]]]:
        """The partnerships of hand ``h`` (kept ones, then new ones formed from players
        whose partner is not there, A with B first), the new ones among them, the number of
        tables and the partnerships that sit out. Results change none of these."""
        present = set(self.present(h))
        pairs: list[tuple[int, int]] = []
        singles: list[int] = []
        for pid in sorted(present, key=self.order.__getitem__):
            mate = self.partner.get(pid)
            if mate is not None and mate in present:
                if self.order[pid] < self.order[mate]:
                    pairs.append((pid, mate))
            else:
                singles.append(pid)
        if h == 1 and self.cfg.seating == "random":
            random.Random(_digest(self.cfg.seed, "seating")).shuffle(singles)
        elif h > 1:
            # those who have missed most find a partner first
            singles.sort(key=lambda pid: (-self.missed[pid], self.key[pid]))
        singles.sort(key=lambda pid: pid not in self.fixed)
        a = [p for p in singles if self.group[p] == "A"]
        b = [p for p in singles if self.group[p] == "B"]
        new = list(zip(a, b, strict=False))
        rest = a[len(new) :] + b[len(new) :]
        new += list(zip(rest[0::2], rest[1::2], strict=False))
        pairs += new
        count = len(pairs) // 2
        kept: set[tuple[int, int]] = set()
        if not self.move_point(h):
            kept_ids = {pid for seats in prev[:count] for pid in seats}
            kept = {pair for pair in pairs if pair[0] in kept_ids and pair[1] in kept_ids}
        candidates = [pair for pair in pairs if pair not in kept] if kept else list(pairs)
        candidates.sort(key=self.pair_order)
        return pairs, new, count, set(candidates[: len(pairs) - 2 * count])

    def pair_order(self, pair: tuple[int, int]) -> tuple[bool, int, int]:
        x, y = pair
        return (x in self.fixed or y in self.fixed, self.missed[x] + self.missed[y], self.key[x])

    def pair_targets(
        self, prev: Sequence[tuple[int, int, int, int]], winners: Mapping[int, int]
    ) -> list[tuple[tuple[int, int], int, int, bool]]:
        """Movement after a round: (side's two players, from table, to table, stayed).
        The winning partnership moves up one table; a fixed-seat player's partnership
        stays, and the other partnership makes the move instead."""
        last = len(prev)
        out: list[tuple[tuple[int, int], int, int, bool]] = []
        for t, win in winners.items():
            seats = prev[t - 1]
            sides = [(seats[0], seats[2]), (seats[1], seats[3])]
            if win < 0:  # within a round: both stay
                out += [(sides[0], t, t, True), (sides[1], t, t, True)]
                continue
            up = win
            if any(p in self.fixed for p in sides[win]) and not any(
                p in self.fixed for p in sides[1 - win]
            ):
                up = 1 - win
            out += [(sides[up], t, t % last + 1, False), (sides[1 - up], t, t, True)]
        return out

    def seat_pairs(
        self, h: int, prev: Sequence[tuple[int, int, int, int]], prev_dealers: Sequence[int]
    ) -> tuple[list[tuple[int, int, int, int]], list[int], set[int]]:
        pairs, new, count, out_pairs = self.plan_pairs(h, prev)
        for x, y in new:
            self.partner[x], self.partner[y] = y, x
        present = set(self.present(h))
        in_pair = {p for pair in pairs for p in pair}
        move = self.move_point(h)
        index = {p: pair for pair in pairs for p in pair}
        slots: dict[int, list[tuple[tuple[int, int], bool]]] = {t: [] for t in range(1, count + 1)}
        if h > 1 and prev:
            winners = {t: (self.round_winner(t) if move else -1) for t in range(1, len(prev) + 1)}
            for (x, y), _, dest, stayed in self.pair_targets(prev, winners):
                pair = index.get(x)
                if pair is not None and y in pair and dest <= count and pair not in out_pairs:
                    slots[dest].append((pair, stayed))
        placed = {pair for lst in slots.values() for pair, _ in lst}
        sitting = (present - in_pair) | {p for pair in out_pairs for p in pair}
        pool = [pair for pair in pairs if pair not in placed and pair not in out_pairs]
        if h > 1:
            pool.sort(key=lambda pair: _digest(self.cfg.seed, "fill", h, pair[0]))
        pool.sort(key=lambda pair: not (pair[0] in self.fixed or pair[1] in self.fixed))
        for pair in pool:
            home = next((self.home[p] for p in pair if p in self.home), None)
            free = [t for t in slots if len(slots[t]) < 2]
            if home is not None and home <= count and len(slots[home]) < 2:
                target = home
            elif pair[0] in self.fixed or pair[1] in self.fixed:
                # a table without a fixed-seat partnership, if any
                lone = [t for t in free if not any(p in self.fixed for q, _ in slots[t] for p in q)]
                target = (lone or free)[0]
            else:
                target = free[0]
            slots[target].append((pair, False))
        seats_out: list[tuple[int, int, int, int]] = []
        dealers: list[int] = []
        for t in range(1, count + 1):
            slot = slots[t]
            kept_sides = [pair for pair, stayed in slot if stayed]
            if not move and t <= len(prev) and kept_sides:
                # within a round: the same seats; a new partnership takes an empty side
                old = prev[t - 1]
                sides = [(old[0], old[2]), (old[1], old[3])]
                newcomers = [pair for pair, stayed in slot if not stayed]
                for i in (0, 1):
                    if not any(set(side) == set(sides[i]) for side in kept_sides):
                        x, y = newcomers.pop()
                        # one of a re-formed partnership keeps their seat
                        sides[i] = (y, x) if x == sides[i][1] or y == sides[i][0] else (x, y)
                seats = (sides[0][0], sides[1][0], sides[0][1], sides[1][1])
                dealer = seats[(old.index(prev_dealers[t - 1]) + 1) % 4]
            else:
                # the partnership that stayed sits N-S and its A player deals
                slot.sort(key=lambda ps: (not ps[1], self.key[ps[0][0]]))
                (x, y), (u, v) = slot[0][0], slot[1][0]
                if self.group[x] != "A" and self.group[y] == "A":
                    x, y = y, x
                if self.group[u] != "A" and self.group[v] == "A":
                    u, v = v, u
                seats = (x, u, y, v)
                dealer = x
            seats = self.keep_letter(t, seats)
            seats_out.append(seats)
            dealers.append(dealer)
        return seats_out, dealers, sitting

    # -- moves ------------------------------------------------------------------------

    def add_moves(self, hands: list[HandState]) -> list[HandState]:
        out: list[HandState] = []
        for n, hand in enumerate(hands):
            if hand.number == self.hands_total:
                out.append(hand)
            elif n + 1 < len(hands):
                where = {pid: t.table for t in hands[n + 1].tables for pid in t.seats}
                moves = [Move(pid, t.table, where.get(pid)) for t in hand.tables for pid in t.seats]
                here = {m.player for m in moves}
                moves += [Move(pid, None, where[pid]) for pid in sorted(where) if pid not in here]
                out.append(replace(hand, moves=tuple(moves)))
            else:
                out.append(replace(hand, moves=self.provisional_moves(hand)))
        return out

    def provisional_moves(self, hand: HandState) -> tuple[Move, ...]:
        """The moves from the reported tables of an incomplete hand. Each depends only on
        its own table's result and on who sits out next (which no result changes); a
        player whose next table is not known until every table reports is left out."""
        h = hand.number + 1
        reported = [t for t in hand.tables if t.reported]
        if not reported:
            return ()
        prev = [t.seats for t in hand.tables]
        move = self.move_point(h)
        winners = {t.table: (self.round_winner(t.table) if move else -1) for t in reported}
        dest: dict[int, tuple[int, int]] = {}  # player -> (from, to)
        if self.cfg.pairs_by_group:
            count, sitting = self.plan_by_group(h, prev)
            if move:
                for pid, (to, _) in self.group_targets(prev, winners).items():
                    dest[pid] = (hand.table_of(pid).table, to)  # type: ignore[union-attr]
            else:
                dest = {pid: (t.table, t.table) for t in reported for pid in t.seats}
        else:
            pairs, _, count, out_pairs = self.plan_pairs(h, prev)
            index = {p: pair for pair in pairs for p in pair}
            sitting = {p for pair in out_pairs for p in pair}
            for (x, y), frm, to, _ in self.pair_targets(prev, winners):
                pair = index.get(x)
                if pair is not None and y in pair:
                    dest[x] = dest[y] = (frm, to)
        moves: list[Move] = []
        for t in reported:
            for pid in t.seats:
                frm, to = dest.get(pid, (t.table, 0))
                if pid in sitting or not self.players[pid].present(h):
                    moves.append(Move(pid, frm, None))
                elif 1 <= to <= count:
                    moves.append(Move(pid, frm, to))
        return tuple(moves)


def _score(
    evening: Evening, engine: _Engine, hands: list[HandState], current: int | None
) -> Derivation:
    """Points, sit-out credits, totals and prizes from the seated hands."""
    cfg = evening.config
    ids = list(engine.players)
    played_sum = dict.fromkeys(ids, 0)
    played = dict.fromkeys(ids, 0)
    ten = dict.fromkeys(ids, 0)
    for hand in hands:
        for t in hand.tables:
            if t.points is None:
                continue
            ns, ew = t.points
            for i, pid in enumerate(t.seats):
                pts = ew if i % 2 else ns
                played_sum[pid] += pts
                played[pid] += 1
                if pts >= 10:
                    ten[pid] += 1
    exact: dict[int, Fraction | int] = dict(played_sum)
    credits: dict[tuple[int, int], Fraction | int] = {}
    new_hands: list[HandState] = []
    for hand in hands:
        if not hand.complete or not hand.sitting_out:
            new_hands.append(hand)
            continue
        room = Fraction(0)
        if hand.tables:
            # each table hands out 13 points to two players a side: 6.5 a player
            given = sum(sum(t.points or (0, 0)) for t in hand.tables)
            room = Fraction(given * 2, 4 * len(hand.tables))
        outs: list[SitOut] = []
        for out in hand.sitting_out:
            credit: Fraction | int = 0
            if out.reason == "sit_out" or cfg.credit_absence:
                if cfg.sit_out == "room_average":
                    credit = room
                elif cfg.sit_out == "own_average" and played[out.player]:
                    credit = Fraction(played_sum[out.player], played[out.player])
            exact[out.player] += credit
            credits[(hand.number, out.player)] = credit
            outs.append(replace(out, points=float(credit)))
        new_hands.append(replace(hand, sitting_out=tuple(outs)))
    longest = _longest_at_table(ids, new_hands)
    group_of = {
        p.id: (p.plays_as if cfg.prizes.group_by == "playing" else p.group) for p in evening.players
    }
    prizes = award(
        cfg,
        ids,
        exact,
        lambda: _per_hand(ids, new_hands, credits),
        played,
        longest,
        ten,
        group_of,
    )
    return Derivation(
        evening=evening,
        hands=tuple(new_hands),
        current=current,
        totals={pid: float(exact[pid]) for pid in ids},
        hands_played=played,
        prizes=prizes,
        prize_group=group_of,
        _exact=exact,
    )


def _per_hand(
    ids: Iterable[int],
    hands: Sequence[HandState],
    credits: Mapping[tuple[int, int], Fraction | int],
) -> dict[int, list[Fraction | int]]:
    """Each player's points (or sit-out credit) hand by hand; 0 where not reported."""
    out: dict[int, list[Fraction | int]] = {pid: [] for pid in ids}
    for hand in hands:
        for t in hand.tables:
            for i, pid in enumerate(t.seats):
                out[pid].append(0 if t.points is None else t.points[i % 2])
        for s in hand.sitting_out:
            out[s.player].append(credits.get((hand.number, s.player), 0))
    return out


def _longest_at_table(ids: Iterable[int], hands: Sequence[HandState]) -> dict[int, int]:
    best = dict.fromkeys(ids, 0)
    run: dict[int, tuple[int, int]] = {}  # player -> (table, length) of the current run
    for hand in hands:
        now: dict[int, tuple[int, int]] = {}
        for t in hand.tables:
            for pid in t.seats:
                table, length = run.get(pid, (0, 0))
                length = length + 1 if table == t.table else 1
                now[pid] = (t.table, length)
                best[pid] = max(best[pid], length)
        run = now
    return best
