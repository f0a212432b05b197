"""The immutable game state: phases, legal actions, check / is_legal / apply, views.

A game moves through phases (OpenSpiel's hearts): ``deal`` (waiting for a :class:`Deal`,
the chance action), ``bid`` (Swedish bottom cards), ``play`` (tricks) and ``over``. After
the 13th trick the variant scores the hand and the state returns to ``deal`` for the next
hand, or ends in ``over``.

Every action comes in three forms (pokerkit): :meth:`State.check` raises
:class:`IllegalAction` naming the rule, :meth:`State.is_legal` answers yes or no, and
:meth:`State.apply` returns the new state. A play is the card itself (an int).

>>> from whistkit.state import new_game, Deal
>>> from whistkit.deal import parse_pbn
>>> s = new_game("felagsvist", dealer=3)
>>> s = s.apply(Deal(parse_pbn(
...     "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")))
>>> s.contract.code, s.to_play
('H', 0)
>>> s.apply(s.legal_actions()[0]).trick
(0,)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, Union, runtime_checkable

from ._checks import is_whole, kind_of
from .cards import (
    FULL_DECK,
    SUIT_CARDS,
    SUIT_MASKS,
    Card,
    Hand,
    card_name,
    iter_cards,
    suit_tables,
)
from .seats import Seat, as_seat, left, seat_name

DEAL, BID, PLAY, OVER = "deal", "bid", "play", "over"

# Within one suit a higher card index is a higher rank when aces are high; with aces low
# the ace drops below the two. These keys compare cards of the same suit.
RANK_KEY_HIGH = tuple(range(52))
RANK_KEY_ACES_LOW = tuple((c // 13) * 13 + (c % 13 + 1) % 13 for c in range(52))


class IllegalAction(ValueError):
    """An action the rules forbid. ``rule`` names the rule in a few words."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(f"{message} ({rule})")
        self.rule = rule
        self.detail = message


@dataclass(frozen=True)
class Deal:
    """The chance action that starts a hand: four hands indexed by seat.

    ``turned`` is the dealer's face-up last card in classic whist (the trump card).
    """

    hands: tuple[Hand, Hand, Hand, Hand]
    turned: Card | None = None


@dataclass(frozen=True)
class Contract:
    """What a hand is played in: its record code, trump suit and objective."""

    code: str  # docs/records.md codes: H S D C NT NOLO SPEL NOLLSPEL
    trump: int | None  # suit index or None for no trump
    misere: bool = False  # each side tries to take few tricks (Nóló, nollspel)
    declarer: Seat | None = None  # Swedish spel
    aces_low: bool = False  # the ace ranks below the two (Félagsvist nolo_aces_low)
    title: str = ""  # e.g. "Grand (no trump)"


@dataclass(frozen=True)
class HandResult:
    """One finished (or, inside a view, current) hand as the scorer saw it."""

    number: int
    dealer: Seat
    leader: Seat
    contract: Contract
    tricks: tuple[int, int]
    points: tuple[int, int]
    score: tuple[int, int]
    extra: Mapping[str, Any] = field(default_factory=dict)


Action = Union[Card, Deal, "SpecialAction"]


@dataclass(frozen=True)
class SpecialAction:
    """Base of non-card actions a variant adds (Swedish bottom cards, laws-mode claims)."""

    seat: Seat


class _Link:
    """A cons cell of the action history: O(1) append on an immutable state."""

    __slots__ = ("action", "prev")

    def __init__(self, prev: _Link | None, action: Action) -> None:
        self.prev = prev
        self.action = action


def _iter_history(link: _Link | None) -> list[Action]:
    out: list[Action] = []
    while link is not None:
        out.append(link.action)
        link = link.prev
    out.reverse()
    return out


@runtime_checkable
class Rules(Protocol):
    """What the state machine asks of the rules it runs: a variant.

    :class:`whistkit.variants.Variant` is the one implementation; the variants import this
    module, never the other way round. A state calls the hooks for everything but the
    strict play of a legal card, which it does itself until the hand's last trick.
    """

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def laws(self) -> bool:
        """Laws mode (docs/rules.md §6): irregular play is ruled on, not refused."""
        ...

    @property
    def uses_turned_card(self) -> bool:
        """Classic whist: the dealer turns up his last card, the trump card."""
        ...

    def options_dict(self) -> dict[str, Any]:
        """The options that differ from their defaults (what a record stores)."""
        ...

    def new_state(self, dealer: Seat) -> State:
        """A new game waiting for its first deal, ``dealer`` to deal it."""
        ...

    def check_deal(self, state: State, deal: Deal) -> None: ...
    def start_hand(self, state: State, deal: Deal) -> State: ...
    def bid_actions(self, state: State) -> list[Action]: ...
    def check_bid(self, state: State, action: Action) -> None: ...
    def apply_bid(self, state: State, action: Action) -> State: ...
    def play_actions(self, state: State) -> list[Action]: ...
    def check_play(self, state: State, action: Action) -> None: ...
    def apply_play(self, state: State, action: Action) -> State: ...
    def finish_hand(self, state: State) -> State:
        """After the 13th trick: score the hand (laws mode: rule on it first)."""
        ...

    def public_contract(self, state: State, seat: Seat) -> Contract | None: ...
    def public_info(self, state: State, seat: Seat) -> dict[str, Any]: ...


class State:
    """An immutable position in a game. Build one with :func:`new_game`.

    The fields are plain attributes (read them, never assign them); every change makes a
    new state through :meth:`apply`.
    """

    # the attributes, for type checkers; values live in __dict__ so that a state is copied
    # with one dict copy on the hot play path
    variant: Rules  # a whistkit.variants.Variant
    phase: str
    hand_number: int  # 1-based number of the current hand (or of the next, in ``deal``)
    dealer: Seat  # dealer of the current hand (or of the next, in ``deal``)
    deal: tuple[Hand, Hand, Hand, Hand] | None  # the hands as dealt
    turned: Card | None  # classic whist: the dealer's face-up card (public until played)
    holdings: tuple[Hand, Hand, Hand, Hand]  # cards still held
    contract: Contract | None
    first_leader: Seat
    leader: Seat  # leader of the current trick
    to_play: Seat  # -1 when nobody is to act (deal phase, game over)
    trick: tuple[Card, ...]  # cards of the current trick, from its leader
    tricks: tuple[int, int]  # tricks taken this hand, NS and EW
    played: tuple[Card, ...]  # this hand's cards in the order played
    played_mask: Hand
    trick_winners: tuple[Seat, ...]  # winner of each finished trick of this hand
    score: tuple[int, int]  # the running score of the game in progress
    results: tuple[HandResult, ...]
    winner: str | None  # "NS", "EW", "draw" once the game is over
    bidding: Any  # variant-specific, immutable
    extra: Any  # variant-specific match state (games, rubber), immutable
    irregular: Any  # laws mode: the hand's irregularities (variants.laws.LawsHand), else None
    history: _Link | None

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("State is immutable; use apply()")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("State is immutable")

    def replace(self, **changes: Any) -> State:
        """A copy with some fields changed (for variants; not part of the play API)."""
        new = object.__new__(State)
        d = new.__dict__
        d.update(self.__dict__)
        d.update(changes)
        return new

    def __repr__(self) -> str:
        return (
            f"<State {self.variant.name} hand {self.hand_number} {self.phase}"
            f" to_play={seat_name(self.to_play) if self.to_play >= 0 else '-'}"
            f" trick={[card_name(c) for c in self.trick]} score={self.score}>"
        )

    # -- queries -------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def needs_deal(self) -> bool:
        return self.phase == DEAL

    @property
    def trick_number(self) -> int:
        """1-based number of the trick in progress (or about to start)."""
        return len(self.trick_winners) + 1

    def actions(self) -> list[Action]:
        """The recorded actions of the whole game, in order."""
        return _iter_history(self.history)

    def legal_mask(self) -> Hand:
        """The legal cards of the seat to play, as a mask (strict rules)."""
        hand = self.holdings[self.to_play]
        if self.trick:
            follow = hand & SUIT_MASKS[self.trick[0] // 13]
            if follow:
                return follow
        return hand

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act; empty in ``deal`` and ``over``."""
        if self.phase == PLAY:
            if self.variant.laws:
                return self.variant.play_actions(self)
            table = SUIT_CARDS or suit_tables()
            hand = self.holdings[self.to_play]
            if self.trick:
                led = self.trick[0] // 13
                follow = table[led][(hand >> (13 * led)) & 0x1FFF]
                if follow:
                    return list(follow)
            return [
                *table[0][hand & 0x1FFF],
                *table[1][(hand >> 13) & 0x1FFF],
                *table[2][(hand >> 26) & 0x1FFF],
                *table[3][hand >> 39],
            ]
        if self.phase == BID:
            return self.variant.bid_actions(self)
        return []

    def check(self, action: Action) -> None:
        """Raise :class:`IllegalAction` naming the rule if ``action`` is not legal now.

        Something that is no action at all (neither a card nor a :class:`Deal` nor a
        variant's action) is a ``TypeError``, here and in :meth:`is_legal` and
        :meth:`apply`.
        """
        if type(action) is not int and not isinstance(action, (Deal, SpecialAction)):
            raise TypeError(_not_an_action(action))
        if self.phase == OVER:
            raise IllegalAction("the game is over", "no action after the game ended")
        if isinstance(action, Deal):
            if self.phase != DEAL:
                raise IllegalAction(
                    f"hand {self.hand_number} is still in progress",
                    "a hand cannot start before the previous one ended",
                )
            self.variant.check_deal(self, action)
            return
        if self.phase == DEAL:
            raise IllegalAction("no hand has been dealt", "deal first")
        if self.phase == BID:
            self.variant.check_bid(self, action)
            return
        self.variant.check_play(self, action)

    def is_legal(self, action: Action) -> bool:
        """Is ``action`` legal now? (A ``TypeError`` if it is no action at all.)"""
        try:
            self.check(action)
        except IllegalAction:
            return False
        return True

    def apply(self, action: Action) -> State:
        """The state after ``action``; raises :class:`IllegalAction` if it is not legal."""
        if self.phase == PLAY and type(action) is int and not self.variant.laws:
            hand = self.holdings[self.to_play]
            if not (0 <= action < 52 and hand >> action & 1) or (
                self.trick
                and action // 13 != self.trick[0] // 13
                and hand & SUIT_MASKS[self.trick[0] // 13]
            ):
                self.check(action)
            return self._play(action)
        self.check(action)
        if isinstance(action, Deal):
            return self.variant.start_hand(self, action)
        if self.phase == BID:
            return self.variant.apply_bid(self, action)
        return self.variant.apply_play(self, action)

    # -- the hot path: one legal card in strict play --------------------------------

    def _play(self, card: Card) -> State:
        new = object.__new__(State)
        d = new.__dict__
        d.update(self.__dict__)
        seat = self.to_play
        holdings = list(self.holdings)
        holdings[seat] ^= 1 << card
        d["holdings"] = (holdings[0], holdings[1], holdings[2], holdings[3])
        d["played"] = self.played + (card,)
        d["played_mask"] = self.played_mask | (1 << card)
        d["history"] = _Link(self.history, card)
        trick = self.trick + (card,)
        if len(trick) < 4:
            d["trick"] = trick
            d["to_play"] = (seat + 1) & 3
        else:
            w = (self.leader + trick_winner_index(trick, self.contract)) & 3  # type: ignore[arg-type]
            tricks = self.tricks
            d["tricks"] = (tricks[0] + 1, tricks[1]) if w & 1 == 0 else (tricks[0], tricks[1] + 1)
            d["trick_winners"] = self.trick_winners + (w,)
            d["trick"] = ()
            d["leader"] = w
            d["to_play"] = w
            if len(d["trick_winners"]) == 13:
                return self.variant.finish_hand(new)
        return new

    # -- views ---------------------------------------------------------------------

    def view(self, seat: Seat | str) -> View:
        """Exactly what ``seat`` (0..3 or ``"N"``...) may know: its own cards and what is
        public."""
        if type(seat) is not int or not 0 <= seat <= 3:
            seat = as_seat(seat)
        phase = self.phase
        variant = self.variant
        legal: tuple[Action, ...] = ()
        if self.to_play == seat and phase in (PLAY, BID):
            legal = tuple(self.legal_actions())
        h = self.holdings
        # the hot path of bots, environments and the server: fill the frozen dataclass's
        # fields directly (its __init__ sets them one by one through object.__setattr__)
        view = object.__new__(View)
        view.__dict__.update(
            seat=seat,
            variant=variant.name,
            options=variant.options_dict(),
            phase=phase,
            hand_number=self.hand_number,
            dealer=self.dealer,
            contract=variant.public_contract(self, seat),
            hand=h[seat],
            hand_sizes=(h[0].bit_count(), h[1].bit_count(), h[2].bit_count(), h[3].bit_count()),
            first_leader=self.first_leader,
            leader=self.leader,
            to_play=self.to_play,
            trick=self.trick,
            played=self.played,
            trick_winners=self.trick_winners,
            tricks=self.tricks,
            score=self.score,
            results=self.results,
            winner=self.winner,
            legal=legal,
            public=variant.public_info(self, seat),
        )
        return view


def _not_an_action(value: object) -> str:
    """The message for something passed as an action that is none, with the likely fix."""
    hint = ""
    if isinstance(value, (tuple, list)) and len(value) == 4:
        hint = ": wrap dealt hands as Deal(hands)"
    elif isinstance(value, str):
        hint = f": read a card name with parse_card({value!r})"
    elif hasattr(value, "hands") and hasattr(value, "last_card"):  # deal.DealtHand
        hint = ": deal it as Deal(dealt.hands, turned)"
    return (
        "expected a card (an int 0..51) or an action (Deal, BottomCard, ...),"
        f" got {kind_of(value)}{hint}"
    )


@dataclass(frozen=True)
class View:
    """What one seat knows. Bots and web clients receive only this."""

    seat: Seat
    variant: str
    options: Mapping[str, Any]
    phase: str
    hand_number: int
    dealer: Seat
    contract: Contract | None
    hand: Hand
    hand_sizes: tuple[int, int, int, int]
    first_leader: Seat
    leader: Seat
    to_play: Seat
    trick: tuple[Card, ...]
    played: tuple[Card, ...]
    trick_winners: tuple[Seat, ...]
    tricks: tuple[int, int]
    score: tuple[int, int]
    results: tuple[HandResult, ...]
    winner: str | None
    legal: tuple[Action, ...]
    public: Mapping[str, Any]  # turned card, revealed bottom cards, exposed cards...

    def plays(self) -> Iterator[tuple[Seat, Card]]:
        """(seat, card) for every card played this hand, in order."""
        leader = self.first_leader
        # laws mode: a trick led out of turn that stood has a leader of its own
        leaders = self.public.get("trick leaders")
        for i, card in enumerate(self.played):
            t, pos = divmod(i, 4)
            if pos == 0 and t > 0:
                leader = self.trick_winners[t - 1]
            if pos == 0 and leaders is not None:
                leader = "NESW".index(leaders[t])
            yield (leader + pos) & 3, card

    def with_people(self, seats: Iterable[Seat]) -> View:
        """This view with ``public["people"]``, the seats that people play (the table
        knows it and so does everyone at it): a bot reads no signal from a person's
        cards (:mod:`whistkit.bots.signals`). The view itself if ``seats`` is empty."""
        people = sorted(set(seats))
        if not people:
            return self
        return replace(self, public={**self.public, "people": people})

    def unseen(self) -> Hand:
        """Cards this seat has not seen: neither its own nor played."""
        seen = self.hand
        for c in self.played:
            seen |= 1 << c
        return FULL_DECK & ~seen


def trick_winner_index(trick: tuple[Card, ...], contract: Contract) -> int:
    """Position (0 = leader) of the card that wins a complete or partial trick."""
    keys = RANK_KEY_ACES_LOW if contract.aces_low else RANK_KEY_HIGH
    trump = contract.trump
    best = 0
    best_card = trick[0]
    best_suit = best_card // 13
    for i in range(1, len(trick)):
        c = trick[i]
        s = c // 13
        if s == best_suit:
            if keys[c] > keys[best_card]:
                best, best_card = i, c
        elif s == trump:
            best, best_card, best_suit = i, c, s
    return best


# Variant names: whistkit.variants registers its lookup (get_variant) here when it is
# imported, which importing whistkit always does; so the state machine stays below the
# variants it runs and new_game still takes a variant's name.
_lookup: list[Callable[[str, Mapping[str, Any] | None], Rules]] = []


def register_variants(lookup: Callable[[str, Mapping[str, Any] | None], Rules]) -> None:
    """Let :func:`new_game` find variants by name with ``lookup(name, options)``."""
    _lookup[:] = [lookup]


def new_game(
    variant: str | Rules,
    options: Mapping[str, Any] | None = None,
    *,
    dealer: Seat | str = 0,
    hand_number: int = 1,
) -> State:
    """A new game waiting for its first deal; ``dealer`` (0..3 or ``"N"``...) deals the
    first hand.

    ``hand_number`` starts the game at a later hand (its contract in Félagsvist's cycle)
    with the score at 0-0: for studying one hand, e.g. in duplicate matches. A bad
    argument is a ``ValueError`` (a :class:`~whistkit.seats.SeatError` for the dealer)
    or a ``TypeError`` naming it.
    """
    if isinstance(variant, str):
        if not _lookup:
            raise RuntimeError("no variants registered: import whistkit.variants")
        v = _lookup[0](variant, options)
    elif isinstance(variant, Rules):
        if options:
            raise TypeError(
                "new_game() takes options with a variant name only; a Variant has its own"
            )
        v = variant
    else:
        raise TypeError(f"new_game() takes a variant name or a Variant, not {kind_of(variant)}")
    first = as_seat(dealer, "dealer")
    if not is_whole(hand_number) or hand_number < 1:
        raise ValueError(f"hand_number must be a whole number of at least 1, not {hand_number!r}")
    state = v.new_state(first)
    return state if hand_number == 1 else state.replace(hand_number=hand_number)


__all__ = [
    "BID",
    "DEAL",
    "OVER",
    "PLAY",
    "Action",
    "Contract",
    "Deal",
    "HandResult",
    "IllegalAction",
    "Rules",
    "SpecialAction",
    "State",
    "View",
    "iter_cards",
    "left",
    "new_game",
    "trick_winner_index",
]
