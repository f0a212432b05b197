"""What every variant shares: options, the deal, strict trick play, the end of a hand.

A variant is a class with an explicit frozen options dataclass (one field per rule
option of docs/rules.md §8, each with its rule in a comment) and hooks for its phases. The
state machine in :mod:`whistkit.state` calls the hooks; the strict play of a legal card
runs in the state's own fast path and never reaches the variant until the hand ends.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .._checks import counted
from ..cards import FULL_DECK, SUIT_MASKS, SUIT_NAMES, card_name, iter_cards
from ..seats import SIDES, Seat, left, seat_name
from ..state import (
    DEAL,
    OVER,
    PLAY,
    Action,
    Contract,
    Deal,
    HandResult,
    IllegalAction,
    State,
    _Link,
)
from . import laws
from .options import OptionError, Options


@dataclass(frozen=True)
class HandScore:
    """What a variant's scorer decides at the end of a hand."""

    points: tuple[int, int]
    score: tuple[int, int]
    winner: str | None = None  # set when the game (or match) is over: "NS", "EW", "draw"
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # for the record
    match: Any = None  # the variant's new match state (games, rubber)
    next_dealer: Seat | None = None  # default: left of the dealer
    tricks: tuple[int, int] | None = None  # tricks after penalties, if they changed
    # the score the next hand starts from, if not ``score`` (a new game of a rubber)
    next_score: tuple[int, int] | None = None


class Variant:
    """Base class of the variants. Subclasses set the class attributes and hooks."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str]
    options_class: ClassVar[type[Options]] = Options
    uses_turned_card: ClassVar[bool] = False
    # laws mode: True if score_hand applies revoke penalties in points (classic whist);
    # False: they move tricks before scoring (Félagsvist, Swedish [D11])
    points_penalties: ClassVar[bool] = False
    # the number of hands a game has, where the rules fix it (Félagsvist: 12); None when
    # the game ends at a score
    hands_per_game: ClassVar[int | None] = None
    # the record codes of the contracts its hands are played in (docs/records.md)
    contract_codes: ClassVar[tuple[str, ...]] = ()

    def __init__(self, options: Options | Mapping[str, Any] | None = None) -> None:
        if options is None or isinstance(options, Mapping):
            options = self.options_class.from_dict(options)
        if not isinstance(options, self.options_class):
            raise OptionError(f"{self.name} takes {self.options_class.__name__}")
        self.options = options
        self.laws = options.play_mode == "laws"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options.changed()!r})"

    def options_dict(self) -> dict[str, Any]:
        return self.options.changed()

    @classmethod
    def select(cls, name: str, options: Mapping[str, Any] | None) -> type[Variant]:
        """The class ``name`` means with these options ("whist" with American scoring)."""
        return cls

    # -- game start and deal -------------------------------------------------------

    def initial_match(self) -> Any:
        """The variant's match state before the first hand (games won, rubber)."""
        return None

    def new_state(self, dealer: Seat) -> State:
        return State(
            variant=self,
            phase=DEAL,
            hand_number=1,
            dealer=dealer & 3,
            deal=None,
            turned=None,
            holdings=(0, 0, 0, 0),
            contract=None,
            first_leader=left(dealer & 3),
            leader=left(dealer & 3),
            to_play=-1,
            trick=(),
            tricks=(0, 0),
            played=(),
            played_mask=0,
            trick_winners=(),
            score=(0, 0),
            results=(),
            winner=None,
            bidding=None,
            extra=self.initial_match(),
            irregular=None,
            history=None,
        )

    def check_deal(self, state: State, deal: Deal) -> None:
        hands = deal.hands
        if len(hands) != 4:
            raise IllegalAction("a deal has four hands", "52 cards, 13 each")
        union = 0
        for seat, h in enumerate(hands):
            if not isinstance(h, int) or h < 0 or h & ~FULL_DECK:
                raise IllegalAction(
                    f"the hand of {seat_name(seat)} is not a card mask: {h!r}",
                    "a hand is a 52-bit int",
                )
            if h.bit_count() != 13:
                raise IllegalAction(
                    f"{seat_name(seat)} is dealt {counted(h.bit_count(), 'card')}", "13 cards each"
                )
            if union & h:
                raise IllegalAction(
                    f"{card_name((union & h).bit_length() - 1)} is dealt twice", "52 cards"
                )
            union |= h
        if self.uses_turned_card:
            if deal.turned is None:
                raise IllegalAction("no turned-up card", "the dealer's last card is trump")
            if not hands[state.dealer] >> deal.turned & 1:
                raise IllegalAction(
                    f"turned card {card_name(deal.turned)} is not in the dealer's hand",
                    "the dealer's last card is turned up",
                )
        elif deal.turned is not None:
            raise IllegalAction(f"{self.title} turns up no card", "no turned-up card")

    def contract_for(self, state: State, deal: Deal) -> Contract | None:
        """The contract fixed by the deal, or None if bidding decides it."""
        raise NotImplementedError

    def start_hand(self, state: State, deal: Deal) -> State:
        contract = self.contract_for(state, deal)
        leader = left(state.dealer)
        return state.replace(
            phase=PLAY,
            deal=deal.hands,
            turned=deal.turned,
            holdings=deal.hands,
            contract=contract,
            first_leader=leader,
            leader=leader,
            to_play=leader,
            trick=(),
            tricks=(0, 0),
            played=(),
            played_mask=0,
            trick_winners=(),
            bidding=None,
            irregular=laws.LawsHand() if self.laws else None,
            history=_Link(state.history, deal),
        )

    # -- bidding (Swedish); the base has none ---------------------------------------

    def bid_actions(self, state: State) -> list[Action]:
        return []

    def check_bid(self, state: State, action: Action) -> None:
        raise IllegalAction(f"{self.title} has no bidding", "no bidding")

    def apply_bid(self, state: State, action: Action) -> State:
        raise IllegalAction(f"{self.title} has no bidding", "no bidding")

    def card_action(self, state: State, seat: Seat, card: int) -> Action:
        """The action a seat means by naming ``card`` now (a Swedish bottom card in bidding)."""
        return card

    # -- play ----------------------------------------------------------------------

    def play_actions(self, state: State) -> list[Action]:
        if self.laws:
            return laws.legal(self, state)
        return list(iter_cards(state.legal_mask()))

    def check_play(self, state: State, action: Action) -> None:
        """Strict play: the seat to play plays a card it holds, following suit.

        In laws mode :func:`whistkit.variants.laws.check` rules instead (§6).
        """
        if self.laws:
            laws.check(self, state, action)
            return
        seat = state.to_play
        who = seat_name(seat)
        if type(action) is not int:
            raise IllegalAction(f"{who} is to play a card, not {action!r}", "play a card")
        card = action
        if not 0 <= card < 52:
            raise IllegalAction(f"{card!r} is not a card", "play a card")
        hand = state.holdings[seat]
        if not hand >> card & 1:
            if state.played_mask >> card & 1:
                raise IllegalAction(
                    f"{who} played {card_name(card)} but it was already played",
                    "card played twice",
                )
            raise IllegalAction(
                f"{who} played {card_name(card)} but does not hold it", "card not in hand"
            )
        if state.trick:
            led = state.trick[0] // 13
            if card // 13 != led and hand & SUIT_MASKS[led]:
                raise IllegalAction(
                    f"{who} played {card_name(card)} but holds a {SUIT_NAMES[led][:-1]}",
                    "must follow suit",
                )

    def apply_play(self, state: State, action: Action) -> State:
        """Apply a play the state's fast path did not take (every laws-mode action)."""
        if self.laws:
            return laws.apply(self, state, action)
        assert type(action) is int
        return state._play(action)

    # -- end of hand ---------------------------------------------------------------

    def score_hand(self, state: State) -> HandScore:
        raise NotImplementedError

    def hand_extra(self, state: State) -> dict[str, Any]:
        return {}

    def penalised_revokes(self, state: State, method: str) -> list[tuple[int, str]]:
        """``(offending side, method)`` per revoke penalised this hand (laws mode, §6.4).

        ``method`` is the variant's default; the claimants' choice replaces it.
        """
        irr = state.irregular
        if not isinstance(irr, laws.LawsHand):
            return []
        return [(side, irr.method or method) for side in irr.penalised]

    def finish_hand(self, state: State) -> State:
        """After the 13th trick: rule on irregularities (laws mode), then score."""
        if self.laws:
            return laws.finish(self, state)
        return self.settle_hand(state)

    def settle_hand(self, state: State) -> State:
        """Score the finished hand and move to the next deal or the end."""
        assert state.contract is not None
        hs = self.score_hand(state)
        extra = hs.extra
        irr = state.irregular
        if isinstance(irr, laws.LawsHand) and irr.revokes:
            extra = {
                **extra,
                "revokes": laws.revokes_summary(irr.revokes),
                "penalised": len(irr.penalised),
            }
        tricks = hs.tricks if hs.tricks is not None else state.tricks
        if isinstance(irr, laws.LawsHand) and irr.played_tricks not in (None, tricks):
            # tricks transferred for a revoke: as played, so that the page can say how many
            extra = {**extra, "tricks_played": irr.played_tricks}
        result = HandResult(
            number=state.hand_number,
            dealer=state.dealer,
            leader=state.first_leader,
            contract=state.contract,
            tricks=tricks,
            points=hs.points,
            score=hs.score,
            extra=extra,
        )
        next_dealer = left(state.dealer) if hs.next_dealer is None else hs.next_dealer
        common: dict[str, Any] = {
            "results": state.results + (result,),
            "score": hs.score if hs.next_score is None or hs.winner else hs.next_score,
            "extra": hs.match,
            "winner": hs.winner,
            "to_play": -1,
            "tricks": tricks,
            "irregular": None,
        }
        if hs.winner is not None:
            return state.replace(phase=OVER, **common)
        return state.replace(
            phase=DEAL,
            hand_number=state.hand_number + 1,
            dealer=next_dealer,
            **common,
        )

    # -- what each seat sees ---------------------------------------------------------

    def public_contract(self, state: State, seat: Seat) -> Contract | None:
        return state.contract

    def public_info(self, state: State, seat: Seat) -> dict[str, Any]:
        """Public facts beyond the cards played (turned card, revealed bottom cards)."""
        return laws.public(state, seat) if self.laws else {}

    def describe(self, state: State) -> str:
        """One line above the table, e.g. "Hand 3 of 12 - Grand (no trump)"."""
        title = state.contract.title if state.contract else "bidding"
        return f"Hand {state.hand_number} - {title}"

    def describe_result(self, result: HandResult) -> list[str]:
        """Lines after a hand's result in the terminal game (honours, games won)."""
        return []

    def describe_match(self, state: State) -> list[str]:
        """Lines at the end of a game in the terminal game (games, the rubber)."""
        return []

    # -- what whistkit replay shows (docs/records.md) --------------------------------------

    def summary_contract(self, contract: Contract, extra: Mapping[str, Any]) -> dict[str, Any]:
        """Keys beside "contract" in ``whistkit replay`` (declarer, turned card)."""
        return {}

    def summary_points(self, extra: Mapping[str, Any]) -> dict[str, Any]:
        """Keys beside "points" (English honours and penalties; laws-mode revokes)."""
        out: dict[str, Any] = {}
        if extra.get("void"):
            out["void"] = True
        if extra.get("revokes"):
            out["revokes"] = extra["revokes"]
        return out

    def summary_match(self, state: State) -> dict[str, Any]:
        """Top-level keys of ``whistkit replay`` before "score" (games, rubber)."""
        return {}


def winner_of(score: tuple[int, int]) -> str:
    if score[0] == score[1]:
        return "draw"
    return SIDES[0] if score[0] > score[1] else SIDES[1]


__all__ = ["HandScore", "OptionError", "Options", "Variant", "winner_of"]
