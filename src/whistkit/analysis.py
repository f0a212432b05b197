"""Double-dummy review of a played game: which cards gave tricks away.

For every card of a record played from a choice of two or more legal cards, the
position just before it is solved double-dummy (every hand open, the hand's contract
kind, misère included) for each legal card. A card's *loss* is the tricks its side gives
up against the best card: in trumps and no-trump the most tricks the side can still
take, in misère (Nóló, nollspel) the fewest. A hand's *par* is the N-S tricks with best
play by all four seats from the opening lead. This is the yardstick of double-dummy
analysis: a card can lose tricks double-dummy and still be the right card for a player
who cannot see the other hands.

Each position is searched for at most ``node_limit`` nodes, so an analysis takes a
bounded time and gives the same result on every machine. A position the search does not
settle within it (deep misère positions above all) is left unjudged and counted, with
the proven range of each card's value and of the best value (``bounds``), so that every
hand gets a par, exact or a range. In laws mode a card that is a revoke or follows one in
its trick, or is played while penalty cards, a called card, a named suit or a lead out
of turn restrict the play, is no double-dummy move; such cards are counted, unjudged.

To look further yourself, :func:`positions` walks a game's cards, each with the state
just before it, and :func:`solver_position` turns a state into the solver's
:class:`~whistkit.solver.Position` (``whistkit.solver.solve_cards`` and the rest then
answer). :func:`analyse` is built on the two.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from . import solver
from ._checks import counted, is_whole, kind_of
from .cards import Card, card_name, cards_of
from .record import Record, game_of, type_error
from .seats import SEATS, Seat, side_of
from .state import BID, PLAY, Deal, State, new_game

# at most half a second per position on the project's 2-core machine: a whole Félagsvist
# game in 8-10 s of CPU time (docs/solver.md), every hand with a par, exact or a range
NODE_LIMIT = 1_000_000
# normal-play positions not settled within the node limit are searched again with this
# many times the limit (on 8 club-bot Félagsvist games, 3-10 of about 480 positions a
# game, all settled, in 0.3-1.5 s more; docs/solver.md); misère keeps its ranges
NORMAL_RETRY = 10
SHOW_BEST = 5  # best cards listed per mistake in the text report
MISERE_NAMES = {"NOLO": "Nóló", "NOLLSPEL": "nollspel"}  # the report's short names


@dataclass(frozen=True)
class Judgement:
    """One card played from a choice, with every legal card's double-dummy value.

    ``values`` maps each legal card to the tricks the player's side takes from here (the
    current trick included) if it plays that card and all four seats then play
    double-dummy; ``None`` when the search did not settle every card within the node
    budget. ``bounds`` then holds what it proved: the range of each card's value, and
    ``value_bounds`` the range of the best value.
    """

    hand: int
    trick: int
    seat: Seat
    card: Card
    legal: tuple[Card, ...]
    misere: bool
    # the solver's position just before the card (to look further with whistkit.solver)
    position: solver.Position = field(compare=False, repr=False)
    values: Mapping[Card, int] | None = field(default=None)
    bounds: Mapping[Card, solver.Bounds] | None = field(default=None)
    value_bounds: solver.Bounds | None = field(default=None)

    @property
    def solved(self) -> bool:
        return self.values is not None

    @property
    def best_value(self) -> int | None:
        """The side's value with its best card (the fewest tricks in misère)."""
        if self.values is None:
            return None
        return min(self.values.values()) if self.misere else max(self.values.values())

    @property
    def best(self) -> list[Card]:
        """The legal cards that reach the best value (empty when unsolved)."""
        v = self.best_value
        if self.values is None or v is None:
            return []
        return [c for c in self.legal if self.values[c] == v]

    @property
    def loss(self) -> int | None:
        """Tricks the card played gives up against the best card."""
        v = self.best_value
        if self.values is None or v is None:
            return None
        return abs(self.values[self.card] - v)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "trick": self.trick,
            "seat": SEATS[self.seat],
            "card": card_name(self.card),
        }
        if self.values is None:
            out["solved"] = False
            if self.bounds is not None and self.value_bounds is not None:
                # what the search proved: [lo, hi] ranges of the tricks of the side
                out["value_range"] = _pair(self.bounds[self.card])
                out["best_range"] = _pair(self.value_bounds)
                out["ranges"] = {card_name(c): _pair(self.bounds[c]) for c in self.legal}
            return out
        out["value"] = self.values[self.card]
        out["best_value"] = self.best_value
        out["best"] = [card_name(c) for c in self.best]
        out["loss"] = self.loss
        out["values"] = {card_name(c): self.values[c] for c in self.legal}
        return out


def _pair(b: solver.Bounds) -> list[int]:
    return [b.lo, b.hi]


@dataclass
class HandAnalysis:
    """One hand: its contract, N-S tricks taken and at par, and the judged cards."""

    number: int
    contract: str
    title: str
    dealer: Seat
    leader: Seat
    tricks_ns: int | None = None  # None while the hand is unfinished
    judgements: list[Judgement] = field(default_factory=list)
    forced: int = 0  # cards played with no choice
    irregular: int = 0  # laws mode: revokes, cards out of turn, penalty cards, ...
    misere: bool = False  # Nóló, nollspel: a card's loss is the tricks it takes too many
    aces_low: bool = False  # Félagsvist's nolo_aces_low: the ace ranks below the two

    @property
    def par_ns(self) -> int | None:
        """N-S tricks with best play by all from the opening lead (None: unknown)."""
        first = self.judgements[0] if self.judgements else None
        if first is None or first.trick != 1 or first.seat != self.leader:
            return None
        v = first.best_value
        b = first.value_bounds
        if v is None and b is not None and b.lo == b.hi:
            v = b.lo  # the best value settled, though not every card did
        if v is None:
            return None
        return v if side_of(first.seat) == 0 else 13 - v

    @property
    def par_range(self) -> solver.Bounds | None:
        """N-S tricks at par as proven bounds: exact (``lo == hi``) when the opening lead
        was settled, else the range the search proved (None: not judged)."""
        par = self.par_ns
        if par is not None:
            return solver.Bounds(par, par)
        first = self.judgements[0] if self.judgements else None
        if first is None or first.trick != 1 or first.seat != self.leader:
            return None
        b = first.value_bounds
        if b is None:
            return None
        return b if side_of(first.seat) == 0 else solver.Bounds(13 - b.hi, 13 - b.lo)

    @property
    def mistakes(self) -> list[Judgement]:
        return [j for j in self.judgements if j.loss]

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "contract": self.contract,
            "misere": self.misere,
            "aces_low": self.aces_low,
            "dealer": SEATS[self.dealer],
            "leader": SEATS[self.leader],
            "tricks_ns": self.tricks_ns,
            "par_ns": self.par_ns,
            "par_ns_range": None if self.par_range is None else _pair(self.par_range),
            "forced": self.forced,
            "irregular": self.irregular,
            "cards": [j.to_json() for j in self.judgements],
        }


@dataclass
class SeatSummary:
    judged: int = 0  # cards solved
    unsolved: int = 0  # cards beyond the node budget
    mistakes: int = 0  # solved cards that gave up at least one trick
    tricks_lost: int = 0

    def to_json(self) -> dict[str, int]:
        return {
            "judged": self.judged,
            "unsolved": self.unsolved,
            "mistakes": self.mistakes,
            "tricks_lost": self.tricks_lost,
        }


@dataclass
class GameAnalysis:
    variant: str
    title: str
    node_limit: int
    hands: list[HandAnalysis]

    def seats(self) -> dict[Seat, SeatSummary]:
        out = {s: SeatSummary() for s in range(4)}
        for h in self.hands:
            for j in h.judgements:
                s = out[j.seat]
                if j.loss is None:
                    s.unsolved += 1
                    continue
                s.judged += 1
                if j.loss:
                    s.mistakes += 1
                    s.tricks_lost += j.loss
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "node_limit": self.node_limit,
            "hands": [h.to_json() for h in self.hands],
            "seats": {SEATS[s]: v.to_json() for s, v in self.seats().items()},
        }


def _plain(state: State, card: Card) -> bool:
    """Is playing ``card`` now a double-dummy move? Not in laws mode when the card is a
    revoke, a revoke stands in the current trick, a seat plays out of turn, or exposed
    cards, a called card or a named suit restrict the play."""
    if not state.variant.laws:
        return True
    irr = state.irregular
    if irr is None or irr.pending is not None or irr.wrong_lead is not None:
        return False
    if any(irr.exposed) or irr.called is not None or irr.named_suit is not None:
        return False
    if state.to_play != (state.leader + len(state.trick)) & 3:
        return False
    if not state.legal_mask() >> card & 1:
        return False  # a revoke
    try:
        solver_position(state)
    except ValueError:
        return False  # an earlier card of this trick is a revoke
    return True


# -- positions ------------------------------------------------------------------------


def solver_position(state: State) -> solver.Position:
    """The double-dummy position of the seat to play in ``state``, for :mod:`whistkit.solver`.

    Every seat's cards still held (``state.holdings``), the current trick from its
    leader (``state.trick``, ``state.leader``) and the contract's trump suit, misère and
    aces-low rule (``state.contract``). The solver's values are then the tricks the side
    to play takes from here, the current trick included.

    Raises ``TypeError`` if ``state`` is not a :class:`~whistkit.state.State` and
    ``ValueError`` when no card is to be played (before a deal, in Swedish bidding, once
    the game is over) or, in laws mode, when a revoke in the current trick leaves no
    double-dummy position.

    >>> from whistkit.state import new_game, Deal
    >>> from whistkit.deal import parse_pbn
    >>> s = new_game("felagsvist", dealer=3).apply(Deal(parse_pbn(
    ...     "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")))
    >>> pos = solver_position(s)
    >>> pos.to_play, pos.trump, pos.tricks_left
    (0, 1, 13)
    """
    if not isinstance(state, State):
        hint = "walk a record's positions with positions(record)"
        raise type_error("solver_position", "a State (a game)", state, hint)
    if state.phase != PLAY or state.contract is None:
        why = {BID: "the bidding is not over (no contract yet)", PLAY: "it has no contract"}
        raise ValueError(
            "solver_position() needs a hand in play, but "
            + why.get(state.phase, f"the game is in phase {state.phase!r}")
        )
    pos: solver.Position = solver.position_for(
        solver, state.holdings, state.trick, state.leader, state.contract
    )
    return pos


@dataclass(frozen=True)
class PlayedCard:
    """One card of a game as it was played, with the game just before it (``state``).

    ``hand`` and ``trick`` are 1-based numbers; ``position`` is the solver's position just
    before the card and ``legal`` the cards the seat could play by the strict rules.
    """

    hand: int
    trick: int
    seat: Seat
    card: Card
    state: State = field(compare=False, repr=False)

    @property
    def position(self) -> solver.Position:
        """:func:`solver_position` of the state before the card (a ``ValueError`` for a
        laws-mode card played after a revoke in its trick)."""
        return solver_position(self.state)

    @property
    def legal(self) -> tuple[Card, ...]:
        """The cards the seat could play by the strict rules, lowest first."""
        return tuple(cards_of(self.state.legal_mask()))


def positions(game: Record | State) -> Iterator[PlayedCard]:
    """Every card played in ``game`` (a :class:`~whistkit.record.Record` or a
    :class:`~whistkit.state.State`), in order, as a :class:`PlayedCard`.

    A record is replayed first (:class:`~whistkit.record.RecordError` if it breaks the
    rules); a state's own history is walked. Cards of the variants' special actions
    (Swedish bottom cards; in laws mode a lead out of turn, a correction or a
    replacement) are not among them. ``TypeError`` for anything but a game or a record.
    """
    return _walk(game_of(game, "positions", "a Record (from loads or load) or a State"))


def _walk(final: State) -> Iterator[PlayedCard]:
    """The cards of ``final``'s history, replayed from the start of its game."""
    first = final.results[0] if final.results else None
    state = new_game(
        final.variant,
        dealer=first.dealer if first else final.dealer,
        hand_number=first.number if first else final.hand_number,
    )
    for action in final.actions():
        if state.phase == PLAY and type(action) is int and state.contract is not None:
            yield PlayedCard(
                hand=state.hand_number,
                trick=state.trick_number,
                seat=state.to_play,
                card=action,
                state=state,
            )
        state = state.apply(action)


# -- the review -----------------------------------------------------------------------


def analyse(
    record: Record | State,
    *,
    node_limit: int = NODE_LIMIT,
    normal_retry: int = NORMAL_RETRY,
    hands: Collection[int] | None = None,
    threads: int = 2,
    progress: Callable[[int, int], None] | None = None,
) -> GameAnalysis:
    """Judge every card of a game played from a choice (``hands``: only those hand
    numbers); the game is a :class:`~whistkit.record.Record` or a
    :class:`~whistkit.state.State`. Each position gets ``node_limit`` search nodes; a
    normal-play position (not misère) left unsettled is searched again with
    ``normal_retry`` times as many (1: not again).

    Raises :class:`~whistkit.record.RecordError` for an invalid record, ``TypeError`` for
    an argument of the wrong type, ``ValueError`` for a bad value and ``RuntimeError``
    without the solver's compiled core (the pure-Python solver would take hours on
    whole hands)."""
    final = game_of(record, "analyse", "a Record (from loads or load) or a State")
    for name, value in (
        ("node_limit", node_limit),
        ("normal_retry", normal_retry),
        ("threads", threads),
    ):
        if not is_whole(value):
            raise TypeError(f"{name} must be a whole number, not {kind_of(value)}")
    if node_limit < 1:
        raise ValueError(f"the node limit must be at least 1, not {node_limit}")
    if normal_retry < 1:
        raise ValueError(f"normal_retry must be at least 1, not {normal_retry}")
    if threads < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    if not solver.has_core():
        raise RuntimeError(
            "the analysis needs the solver's compiled core (whistkit.solver._dd), which is"
            " not built; reinstall whistkit with a C compiler present"
        )
    if hands is not None:
        if not isinstance(hands, Collection) or isinstance(hands, str):
            raise TypeError(f"hands must be a set of hand numbers, not {kind_of(hands)}")
        dealt = sum(isinstance(a, Deal) for a in final.actions())
        wrong = [n for n in hands if not is_whole(n)]
        if wrong:
            raise TypeError(f"hands must be hand numbers (ints), not {wrong[0]!r}")
        missing = sorted(n for n in hands if not 1 <= n <= dealt)
        if missing:
            raise ValueError(
                f"the record has no hand {missing[0]} (it holds {counted(dealt, 'hand')})"
            )
    out: list[HandAnalysis] = []
    pending: dict[int, list[tuple[HandAnalysis, Judgement]]] = {}  # by hand number
    current: HandAnalysis | None = None
    for played in _walk(final):
        state, number = played.state, played.hand
        assert state.contract is not None
        if current is None or current.number != number:
            current = HandAnalysis(
                number=number,
                contract=state.contract.code,
                title=state.contract.title or state.contract.code,
                dealer=state.dealer,
                leader=state.first_leader,
                misere=state.contract.misere,
                aces_low=state.contract.aces_low,
            )
            if hands is None or number in hands:
                out.append(current)
        if hands is not None and number not in hands:
            continue
        legal = played.legal
        if not _plain(state, played.card):
            current.irregular += 1
        elif len(legal) < 2:
            current.forced += 1
        else:
            j = Judgement(
                hand=number,
                trick=played.trick,
                seat=played.seat,
                card=played.card,
                legal=legal,
                misere=state.contract.misere,
                position=played.position,
            )
            pending.setdefault(number, []).append((current, j))
    for r in final.results:
        for h in out:
            if h.number == r.number:
                h.tricks_ns = r.tricks[0]
    done = 0
    total = sum(len(items) for items in pending.values())
    for items in pending.values():
        batch = [j.position for _, j in items]
        results = solver.solve_batch(batch, cards=True, threads=threads, node_limit=node_limit)
        # normal play left unsettled (a few opening positions of a trump hand) is settled
        # with a larger budget: such a search rarely needs more than a few million nodes
        again = [
            i
            for i, (vb, every) in enumerate(results)
            if not items[i][1].misere and not _settled(vb, every, items[i][1].legal)
        ]
        if again and normal_retry > 1:
            retried = solver.solve_batch(
                [batch[i] for i in again],
                cards=True,
                threads=threads,
                node_limit=min(node_limit * normal_retry, solver.NODE_LIMIT_MAX),
            )
            for i, result in zip(again, retried, strict=True):
                results[i] = result
        for (h, j), (vb, every) in zip(items, results, strict=True):
            if _settled(vb, every, j.legal):
                h.judgements.append(replace(j, values={c: every[c].lo for c in j.legal}))
            else:
                bounds = {c: every[c] for c in j.legal}
                h.judgements.append(replace(j, bounds=bounds, value_bounds=vb))
        done += len(items)
        if progress:
            progress(done, total)
    return GameAnalysis(
        variant=final.variant.name, title=final.variant.title, node_limit=node_limit, hands=out
    )


def _settled(
    value: solver.Bounds, every: Mapping[Card, solver.Bounds], legal: Collection[Card]
) -> bool:
    """The search settled the position: its value and each legal card's, exactly."""
    return value.exact and all(every[c].exact for c in legal)


def _par_text(h: HandAnalysis) -> str:
    """The hand's par for the report, or why it is not known."""
    if h.par_ns is not None:
        return f"par N-S {h.par_ns}"
    if h.par_range is not None:
        return f"par N-S {h.par_range} (a range: not settled within the node limit)"
    first = h.judgements[0] if h.judgements else None
    if first is not None and first.trick == 1 and first.seat == h.leader:
        return "par N-S not solved within the node limit"
    return "par N-S unknown (the opening lead was not judged)"


def report(a: GameAnalysis) -> str:
    """The analysis as text: each hand's par and its cards that gave tricks away (in
    misère, that took tricks too many)."""
    lines = [f"{a.title}: double-dummy review (node limit {a.node_limit:,} per position)"]
    for h in a.hands:
        took = "unfinished" if h.tricks_ns is None else f"N-S took {h.tricks_ns}"
        lines.append("")
        lines.append(
            f"Hand {h.number} - {h.title} (dealer {SEATS[h.dealer]}, {SEATS[h.leader]} leads):"
            f" {_par_text(h)}, {took}"
        )
        for j in h.mistakes:
            best = " ".join(card_name(c) for c in j.best[:SHOW_BEST])
            if len(j.best) > SHOW_BEST:
                best += f" and {len(j.best) - SHOW_BEST} more"
            assert j.loss is not None  # a mistake is a judged card that lost tricks
            tricks = counted(j.loss, "trick")
            lines.append(
                f"  trick {j.trick:>2}  {SEATS[j.seat]} played {card_name(j.card)}:"
                f" {tricks} {'more taken' if j.misere else 'given up'} (best {best})"
            )
        unsolved = sum(1 for j in h.judgements if not j.solved)
        if not h.mistakes:
            none = "no card took a trick too many" if h.misere else "no card gave a trick away"
            lines.append(f"  {none}" + (" of those judged" if unsolved else ""))
        notes = []
        if unsolved:
            notes.append(f"{unsolved} beyond the node limit")
        if h.irregular:
            notes.append(f"{h.irregular} played under the laws of irregularities")
        if notes:
            lines.append("  not judged: " + ", ".join(notes))
    lines.append("")
    lines.append("seat  judged  mistakes  tricks given up  beyond the node limit")
    for s, v in a.seats().items():
        lines.append(
            f"  {SEATS[s]}   {v.judged:>6}  {v.mistakes:>8}  {v.tricks_lost:>15}  {v.unsolved:>21}"
        )
    misere = sorted({MISERE_NAMES.get(h.contract, h.title) for h in a.hands if h.misere})
    if misere:
        lines.append(f"(in {' and '.join(misere)}, the tricks given up are the tricks more taken)")
    return "\n".join(lines)


__all__ = [
    "NODE_LIMIT",
    "NORMAL_RETRY",
    "GameAnalysis",
    "HandAnalysis",
    "Judgement",
    "PlayedCard",
    "analyse",
    "positions",
    "report",
    "solver_position",
]
