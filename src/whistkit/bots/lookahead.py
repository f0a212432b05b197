"""The expert's look-ahead: its own next moves held consistent across the sampled worlds.

Plain PIMC solves every world double-dummy and averages, so it assumes that at each of
its later turns it will know which world it is in (*strategy fusion*, docs/bots.md §3): it
happily postpones a guess, because in every world it guesses right. With a look-ahead of
``depth`` own moves, the expert plays each candidate card in every world, lets the other
three seats answer in that world until its next turn (``respond``: double-dummy, by the
club rules, the opponents by the club rules and partner double-dummy, or the opponents
by the club rules and partner by the card best over the worlds it cannot tell apart,
``"partner-guesses"``), and groups the worlds
by what it would then have seen. Within a group it must play the same card in every
world, so a group is worth the best *single* card's summed value, not the sum of each
world's best card. At the last level each world's value comes from the
solver; a depth of 1 is plain PIMC. This is extended PIMC (EPIMC, docs/bots.md §3) with the
other seats' answers resolved in each world.

What the expert "sees" is a choice (``observe``). With ``"cards"`` the worlds are grouped
by the other seats' exact cards. Their double-dummy answers differ from world to world
far more than real players' cards would, so the worlds split into small groups and the
look-ahead turns as optimistic as plain PIMC after cards that make the other seats'
answers reveal the world; measured, this made the look-ahead from 8 tricks left worse
than from 6. With ``"coarse"`` (the default) each other seat's card is seen only as its
seat, suit and whether it is an honour (J, Q, K, A) or a spot card, which keeps the
groups large enough for the look-ahead to start in the middle of the hand.

Positions are short when the look-ahead is used (a few tricks left), so every solve is
unlimited and exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from ..cards import SUIT_MASKS, Card, cards_of
from ..seats import SEATS, Seat, side_of
from ..solver.position import position_for
from ..state import RANK_KEY_ACES_LOW, RANK_KEY_HIGH, Contract, View, trick_winner_index
from .club import club_card
from .knowledge import Knowledge

Scorer = Callable[[int], float]
OBSERVE = ("coarse", "cards")


RESPOND = ("dd", "club", "club-opponents", "partner-guesses")
# tail: the classes of cards played out at the last own move, those whose summed
# double-dummy score is within TAIL_SLACK per world of the best (one Félagsvist trick),
# at most TAIL_CLASSES of them, the best first
TAIL_SLACK = 2.0
TAIL_CLASSES = 3


def check_respond(respond: str) -> str:
    """``respond`` if it names how the other seats answer (:data:`RESPOND`), else a
    ``ValueError``."""
    if respond not in RESPOND:
        raise ValueError(f"respond must be one of {', '.join(RESPOND)}, not {respond!r}")
    return respond


def check_observe(observe: str) -> str:
    """``observe`` if it names a grouping (:data:`OBSERVE`), else a ``ValueError``."""
    if observe not in OBSERVE:
        raise ValueError(f"observe must be one of {', '.join(OBSERVE)}, not {observe!r}")
    return observe


def touching_runs(cards: Iterable[Card], out: int, aces_low: bool) -> list[list[Card]]:
    """``cards`` in runs of one suit, in rank order, with no card of ``out`` ranking
    between them (cards worth the same wherever the cards of ``out`` lie)."""
    keys = RANK_KEY_ACES_LOW if aces_low else RANK_KEY_HIGH
    groups: list[list[Card]] = []
    for c in sorted(cards, key=lambda c: keys[c]):
        if groups and groups[-1][-1] // 13 == c // 13:
            lo, hi = keys[groups[-1][-1]], keys[c]
            suit = range(13 * (c // 13), 13 * (c // 13) + 13)
            if not any(out >> d & 1 for d in suit if lo < keys[d] < hi):
                groups[-1].append(c)
                continue
        groups.append([c])
    return groups


def _best_card(values: dict[Card, Any], misere: bool) -> Card:
    """The card of the most tricks for the side to play (misère: the fewest), the lowest
    of equally good cards (the same in every world)."""
    best = min(values.values()) if misere else max(values.values())
    return min(c for c, v in values.items() if v == best)


def _legal_mask(line: _Line) -> int:
    """The cards the seat to play may play (it must follow suit), as a mask."""
    hand = line.hands[line.to_play]
    follow = hand & SUIT_MASKS[line.trick[0] // 13] if line.trick else 0
    return follow or hand


class _Line(NamedTuple):
    """One world played forward: holdings, the current trick, its leader, the tricks the
    expert's side has won since the decision, and what it has seen of the other seats'
    cards since (see ``observe``)."""

    hands: tuple[int, int, int, int]
    trick: tuple[Card, ...]
    leader: Seat
    won: int
    seen: tuple[int, ...]
    since: tuple[Card, ...] = ()  # every card played since the decision, in order
    winners: tuple[Seat, ...] = ()  # winners of the tricks completed since the decision
    weight: float = 1.0  # the world's weight in the sums over the worlds

    @property
    def to_play(self) -> Seat:
        return (self.leader + len(self.trick)) & 3

    @property
    def over(self) -> bool:
        return not any(self.hands)


class OverBudget(Exception):
    """A look-ahead's solves needed more nodes than its ``node_budget``."""


class Lookahead:
    """Card values for one decision of ``view.seat`` over ``worlds`` (each a holding per seat).

    ``node_budget``: the most search nodes the look-ahead's solves (:meth:`values`) may
    use together; past it :meth:`values` raises :class:`OverBudget` (deterministically:
    node counts are the same on every machine). None: no budget."""

    def __init__(
        self,
        solver: Any,
        view: View,
        score: Scorer,
        threads: int = 2,
        observe: str = "coarse",
        respond: str = "dd",
        tail: bool = False,
        node_budget: int | None = None,
    ) -> None:
        assert view.contract is not None
        if node_budget is not None and node_budget < 1:
            raise ValueError(f"a look-ahead's node budget must be at least 1, not {node_budget}")
        self.node_budget = node_budget
        self.spent = 0  # nodes the budgeted solves have searched
        self.tail = tail
        self.coarse = check_observe(observe) == "coarse"
        self.respond = check_respond(respond)
        # the club rules' public knowledge after each line of cards since the decision
        self._club_views: dict[tuple[Seat, tuple[Card, ...]], tuple[View, Knowledge]] = {}
        self.solver = solver
        self.contract: Contract = view.contract
        self.view = view
        self.me = view.seat
        self.side = side_of(view.seat)
        self.score = score
        self.threads = threads

    def values(
        self,
        worlds: Sequence[Sequence[int]],
        cards: Iterable[Card],
        depth: int,
        weights: Sequence[float] | None = None,
    ) -> dict[Card, float]:
        """Summed score over the worlds of each card, with ``depth`` (at least 2) own moves
        searched: this card and the next ``depth - 1``. ``weights`` (one per world): a
        weighted sum, each group of worlds worth the best single card's weighted sum."""
        if depth < 2:
            raise ValueError(f"a look-ahead searches at least 2 own moves, not {depth}")
        if weights is not None and len(weights) != len(worlds):
            raise ValueError(f"{len(weights)} weights for {len(worlds)} worlds")
        root = self._roots(worlds, weights)
        values: dict[Card, float] = {}
        for group in self._equivalent(cards):
            value = self._after(root, group[0], depth)
            for c in group:
                values[c] = value
        return {c: values[c] for c in cards}

    def rollout_rows(
        self,
        worlds: Sequence[Sequence[int]],
        cards: Iterable[Card],
        stop: int,
        node_limit: int | None,
    ) -> dict[Card, list[float]]:
        """Each card's score in each world (in the worlds' order, for a paired comparison
        of two cards world by world) when, after it, every seat (the expert too) plays by
        the club rules until at most ``stop`` tricks are left at the start of a trick, and
        that position is then solved double-dummy within ``node_limit`` nodes (None:
        exactly); a range the budget leaves open counts at the mean of the scores of its
        two ends. For positions too deep to solve (misère with 12-13 tricks left): the
        club rules stand in for the opening tricks, the solver for the rest."""
        cards = list(cards)
        root = self._roots(worlds)
        groups = self._equivalent(cards)
        ends: list[_Line] = []
        for group in groups:
            lines = [self._play(line, group[0]) for line in root]
            while True:
                moving = [i for i, line in enumerate(lines) if not self._settled(line, stop)]
                if not moving:
                    break
                for i in moving:
                    line = lines[i]
                    legal = _legal_mask(line)
                    card = self._club(line) if legal & (legal - 1) else legal.bit_length() - 1
                    lines[i] = self._play(line, card)
            ends.extend(lines)
        live = [line for line in ends if not line.over]
        positions = [
            position_for(self.solver, line.hands, line.trick, line.leader, self.contract)
            for line in live
        ]
        found: list[Any] = []
        if positions and node_limit is None:
            found = [(v, v) for v in self.solver.solve_batch(positions, threads=self.threads)]
        elif positions:
            found = [
                (b.lo, b.hi)
                for b in self.solver.solve_batch(
                    positions, node_limit=node_limit, threads=self.threads
                )
            ]
        bounds = iter(found)
        score = self.score
        per_line: list[float] = []
        for line in ends:
            if line.over:
                per_line.append(score(line.won))
                continue
            lo, hi = next(bounds)
            n = line.hands[0].bit_count()  # tricks left (the line is at a trick's start)
            if side_of(line.leader) != self.side:
                lo, hi = n - hi, n - lo
            per_line.append((score(line.won + lo) + score(line.won + hi)) / 2)
        rows: dict[Card, list[float]] = {}
        for k, group in enumerate(groups):
            row = per_line[k * len(root) : (k + 1) * len(root)]
            for c in group:
                rows[c] = row
        return {c: rows[c] for c in cards}

    def reply_rows(
        self,
        worlds: Sequence[Sequence[int]],
        cards: Iterable[Card],
        node_limit: int | None,
    ) -> list[dict[Card, float] | None]:
        """Plain PIMC's rows with the opponents' answers in the current trick by the club
        rules: each card played in each world, the opponents who follow it in this trick
        answering as the club rules would from their hands there, and the position then
        (partner to play, or the next trick's start) solved double-dummy within
        ``node_limit`` nodes (None: exactly), partner choosing its best card. One row per
        world (each card's score), None for a world the budget left open."""
        cards = list(cards)
        misere = self.contract.misere
        root = self._roots(worlds)
        groups = self._equivalent(cards)
        ends: list[_Line] = []
        for group in groups:
            for line in root:
                line = self._play(line, group[0])
                while line.trick and side_of(line.to_play) != self.side:
                    legal = _legal_mask(line)
                    card = self._club(line) if legal & (legal - 1) else legal.bit_length() - 1
                    line = self._play(line, card)
                ends.append(line)
        # partner to play: every card's value, its best taken; a trick's start: the value
        choosing = [i for i, line in enumerate(ends) if line.trick and not line.over]
        starting = [i for i, line in enumerate(ends) if not line.trick and not line.over]
        tricks: dict[int, int | None] = {}
        for idx, want_cards in ((choosing, True), (starting, False)):
            if not idx:
                continue
            positions = [
                position_for(
                    self.solver, ends[i].hands, ends[i].trick, ends[i].leader, self.contract
                )
                for i in idx
            ]
            found: list[Any]
            if node_limit is None:
                found = self.solver.solve_batch(positions, cards=want_cards, threads=self.threads)
            else:
                found = self.solver.solve_batch_limited(
                    positions, node_limit, cards=want_cards, threads=self.threads
                )
            for i, res in zip(idx, found, strict=True):
                line = ends[i]
                if res is None:
                    tricks[i] = None
                elif want_cards:  # partner's tricks from here: our side's
                    tricks[i] = min(res.values()) if misere else max(res.values())
                else:
                    n = line.hands[0].bit_count()
                    tricks[i] = res if side_of(line.leader) == self.side else n - res
        score = self.score
        rows: list[dict[Card, float] | None] = [{} for _ in root]
        for k, group in enumerate(groups):
            for j in range(len(root)):
                i = k * len(root) + j
                row = rows[j]
                if row is None:
                    continue
                line = ends[i]
                extra = 0 if line.over else tricks[i]
                if extra is None:
                    rows[j] = None
                    continue
                for c in group:
                    row[c] = score(line.won + extra)
        return [None if row is None else {c: row[c] for c in cards} for row in rows]

    def _roots(
        self, worlds: Sequence[Sequence[int]], weights: Sequence[float] | None = None
    ) -> list[_Line]:
        """A line per world at the decision (``weights``: each world's; None: 1)."""
        view = self.view
        return [
            _Line(
                (w[0], w[1], w[2], w[3]),
                tuple(view.trick),
                view.leader,
                0,
                (),
                weight=1.0 if weights is None else weights[i],
            )
            for i, w in enumerate(worlds)
        ]

    @staticmethod
    def _settled(line: _Line, stop: int) -> bool:
        """Has the line ended, or reached a trick's start with at most ``stop`` tricks left?"""
        return line.over or (not line.trick and line.hands[0].bit_count() <= stop)

    def _equivalent(self, cards: Iterable[Card]) -> list[list[Card]]:
        """The cards in classes worth the same in every world: cards of one suit with no
        card between them that is still out (in another hand or in the current trick).
        Playing one or the other gives positions that differ only by the names of the
        cards, so the look-ahead searches one card per class."""
        view = self.view
        out = view.unseen()
        for c in view.trick:
            out |= 1 << c
        return touching_runs(cards, out, self.contract.aces_low)

    def _after(self, lines: list[_Line], card: Card, depth: int) -> float:
        """Value of playing ``card`` in every line (all at the expert's turn), with
        ``depth`` own moves searched from this one."""
        lines = self._advance([self._play(line, card) for line in lines])
        groups: dict[tuple[int, ...], list[_Line]] = {}
        for line in lines:
            groups.setdefault(line.seen, []).append(line)
        return sum(self._value(group, depth - 1) for group in groups.values())

    def _value(self, lines: list[_Line], depth: int) -> float:
        """Value of lines that look the same to the expert, at its turn or at the end,
        with ``depth`` own moves left to search (1: the next one, then double-dummy)."""
        score = self.score
        total = sum(line.weight * score(line.won) for line in lines if line.over)
        live = [line for line in lines if not line.over]
        if not live:
            return total
        if depth <= 1:
            rows = self._solve(live)
            dd = {
                c: sum(
                    line.weight * score(line.won + row[c])
                    for line, row in zip(live, rows, strict=True)
                )
                for c in rows[0]
            }
            if not self.tail:
                return total + max(dd.values())
            # the hand played out against the opponents' answers, for the classes of
            # cards the solver puts near the best (the others seldom gain by it)
            floor = max(dd.values()) - TAIL_SLACK * sum(line.weight for line in live)
            near = [g for g in self._classes(live) if dd[g[0]] >= floor]
            near.sort(key=lambda g: -dd[g[0]])
            return total + max(self._tail_value(live, g[0]) for g in near[:TAIL_CLASSES])
        return total + max(self._after(live, c, depth) for c in self._legal(live[0]))

    def _tail_value(self, lines: list[_Line], card: Card) -> float:
        """Summed score of ``card`` played in every line, then the hand played out to its
        end: the expert's side double-dummy, the opponents as ``respond`` says."""
        score = self.score
        ends = self._advance([self._play(line, card) for line in lines], to_end=True)
        return sum(line.weight * score(line.won) for line in ends)

    def _classes(self, lines: list[_Line]) -> list[list[Card]]:
        """The expert's legal cards in ``lines`` (all at its turn, with the same hand), in
        classes of touching cards: no card between them still out in any of the lines."""
        out = 0
        for line in lines:
            for seat in range(4):
                if seat != self.me:
                    out |= line.hands[seat]
            for c in line.trick:
                out |= 1 << c
        return touching_runs(self._legal(lines[0]), out, self.contract.aces_low)

    def _legal(self, line: _Line) -> list[Card]:
        return cards_of(_legal_mask(line))

    def _play(self, line: _Line, card: Card) -> _Line:
        """The line after the seat to play plays ``card`` (a full trick is gathered)."""
        seat = line.to_play
        hands = list(line.hands)
        hands[seat] &= ~(1 << card)
        trick = (*line.trick, card)
        leader, won = line.leader, line.won
        if len(trick) == 4:
            leader = (leader + trick_winner_index(trick, self.contract)) & 3
            won += side_of(leader) == self.side
            trick = ()
        winners = line.winners
        if not trick:
            winners = (*winners, leader)
        if seat == self.me:
            seen = line.seen
        elif self.coarse:  # the seat, the suit, and honour (J, Q, K, A) or spot
            seen = (*line.seen, seat * 8 + (card // 13) * 2 + (card % 13 >= 9))
        else:
            seen = (*line.seen, card)
        return _Line(
            (hands[0], hands[1], hands[2], hands[3]),
            trick,
            leader,
            won,
            seen,
            (*line.since, card),
            winners,
            line.weight,
        )

    def _advance(self, lines: list[_Line], to_end: bool = False) -> list[_Line]:
        """Let the other seats answer (``respond``) until the expert's turn or the end;
        ``to_end``: until the end, the expert playing double-dummy too."""
        done: list[_Line] = []
        pending = lines
        misere = self.contract.misere
        while pending:
            moved = []
            choosing = []
            for line in pending:
                if line.over or (not to_end and line.to_play == self.me):
                    done.append(line)
                    continue
                legal = _legal_mask(line)
                if legal & (legal - 1):
                    choosing.append(line)
                else:  # a single legal card: no need to ask the solver
                    moved.append(self._play(line, legal.bit_length() - 1))
            solving = choosing
            if self.respond != "dd":
                solving = []
                for line in choosing:
                    if line.to_play != self.me and self._club_answers(line.to_play):
                        moved.append(self._play(line, self._club(line)))
                    else:
                        solving.append(line)
            if solving:
                rows = self._solve(solving)
                if self.respond == "partner-guesses":
                    moved.extend(self._partner_guesses(solving, rows))
                else:
                    for line, row in zip(solving, rows, strict=True):
                        moved.append(self._play(line, _best_card(row, misere)))
            pending = moved
        return done

    def _club_answers(self, seat: Seat) -> bool:
        """Does ``seat`` answer by the club rules (``respond``) rather than double-dummy?"""
        if self.respond == "club":
            return True
        return self.respond != "dd" and side_of(seat) != self.side

    def _partner_guesses(self, lines: list[_Line], rows: list[dict[Card, int]]) -> list[_Line]:
        """``lines`` (the expert's partner to play) each after partner's card when it
        cannot see the world: lines with the same cards played since the decision and the
        same legal cards for partner look alike to partner as far as this trick goes, so
        partner plays the one card best over all of them (weighted), not each line's own
        best. The expert itself (playing to the end for the tail) keeps each line's best."""
        misere = self.contract.misere
        groups: dict[tuple[tuple[Card, ...], int], list[int]] = {}
        moved: list[_Line] = []
        for i, line in enumerate(lines):
            if line.to_play == self.me:
                moved.append(self._play(line, _best_card(rows[i], misere)))
            else:
                groups.setdefault((line.since, _legal_mask(line)), []).append(i)
        for members in groups.values():
            summed = {
                c: sum(lines[i].weight * rows[i][c] for i in members) for c in rows[members[0]]
            }
            card = _best_card(summed, misere)
            moved.extend(self._play(lines[i], card) for i in members)
        return moved

    def _club(self, line: _Line) -> Card:
        """The club rules' card for the seat to play in ``line``, from its hand in this
        world and the public play so far (the view's plus the line's cards)."""
        seat = line.to_play
        key = (seat, line.since)
        cached = self._club_views.get(key)
        if cached is None:
            view = self.view
            played = (*view.played, *line.since)
            public = view.public
            leaders = public.get("trick leaders")
            if leaders is not None:
                # laws mode names each trick's leader: the line's winners lead the next
                public = {**public, "trick leaders": [*leaders, *(SEATS[w] for w in line.winners)]}
            then = replace(
                view,
                public=public,
                seat=seat,
                hand=0,
                played=played,
                trick=line.trick,
                trick_winners=(*view.trick_winners, *line.winners),
                leader=line.leader,
                to_play=seat,
                legal=(),
                hand_sizes=(
                    line.hands[0].bit_count(),
                    line.hands[1].bit_count(),
                    line.hands[2].bit_count(),
                    line.hands[3].bit_count(),
                ),
            )
            cached = (then, Knowledge.from_view(then))
            self._club_views[key] = cached
        then, know = cached
        hand = line.hands[seat]
        return club_card(
            then, cards_of(_legal_mask(line)), know.with_hand(hand, know.unseen & ~hand)
        )

    def _solve(self, lines: list[_Line]) -> list[dict[Card, int]]:
        """Every legal card's value (tricks of the side to play from here) per line."""
        positions = [
            position_for(self.solver, line.hands, line.trick, line.leader, self.contract)
            for line in lines
        ]
        if self.node_budget is None or not hasattr(self.solver, "solve_batch_counted"):
            rows: list[dict[Card, int]] = self.solver.solve_batch(
                positions, cards=True, threads=self.threads
            )
            return rows
        left = self.node_budget - self.spent
        found: list[dict[Card, int] | None] = []
        spent = 0
        if left >= 1:  # at 0 the budget is spent to the last node: any search needs one more
            found, spent = self.solver.solve_batch_counted(positions, left, threads=self.threads)
            self.spent += spent
        if left < 1 or spent > left or any(row is None for row in found):
            raise OverBudget(f"the look-ahead needs more than {self.node_budget:,} nodes")
        return [row for row in found if row is not None]


__all__ = [
    "OBSERVE",
    "RESPOND",
    "Lookahead",
    "OverBudget",
    "check_observe",
    "check_respond",
    "touching_runs",
]
