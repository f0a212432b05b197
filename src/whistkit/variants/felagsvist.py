"""Félagsvist, Iceland's social whist (docs/rules.md §2).

Twelve hands in the fixed cycle hearts, spades, Grand, diamonds, clubs, Nóló; left of
dealer leads; each hand hands out 13 points (in Nóló a side scores the tricks the other
side took); after hand 12 the higher total wins, 78-78 is a draw.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..cards import CLUBS, DIAMONDS, HEARTS, SPADES
from ..seats import Seat
from ..state import Contract, Deal, State
from .base import HandScore, Options, Variant, winner_of
from .options import OptionError

HANDS_PER_GAME = 12
MAX_EVENING_HAND = 60  # whistkit.evening.model.MAX_HANDS

CYCLE = (
    Contract("H", HEARTS, title="Hearts"),
    Contract("S", SPADES, title="Spades"),
    Contract("NT", None, title="Grand (no trump)"),
    Contract("D", DIAMONDS, title="Diamonds"),
    Contract("C", CLUBS, title="Clubs"),
    Contract("NOLO", None, misere=True, title="Nóló (no trump, fewest tricks)"),
)
NOLO_ACES_LOW = Contract(
    "NOLO", None, misere=True, aces_low=True, title="Nóló (no trump, fewest tricks, aces low)"
)


@dataclass(frozen=True)
class FelagsvistOptions(Options):
    # §2.5: in Nóló the ace ranks below the two (North-American "Icelandic Whist")
    nolo_aces_low: bool = False
    # §2.7: at 78-78 after hand 12 "draw", or "extra_hands" continuing the cycle until a
    # hand ends with unequal totals
    felag_tiebreak: str = "draw"
    # online evenings (docs/online.md): 0 plays the whole game of 12 hands; n plays one
    # hand alone, the n-th of an evening (its contract the n-th of the cycle), and the
    # game ends after it
    evening_hand: int = 0

    CHOICES: ClassVar[Mapping[str, tuple[Any, ...]]] = {
        **Options.CHOICES,
        "felag_tiebreak": ("draw", "extra_hands"),
    }

    def validate(self) -> None:
        super().validate()
        if self.evening_hand > MAX_EVENING_HAND:
            raise OptionError(
                f"option 'evening_hand' must be 1 to {MAX_EVENING_HAND} (0: a whole game),"
                f" not {self.evening_hand}"
            )


class Felagsvist(Variant):
    name = "felagsvist"
    aliases = ("felag", "félagsvist", "icelandic")
    title = "Félagsvist"
    options_class = FelagsvistOptions
    options: FelagsvistOptions
    hands_per_game = HANDS_PER_GAME
    contract_codes = tuple(c.code for c in CYCLE)

    def new_state(self, dealer: Seat) -> State:
        state = super().new_state(dealer)
        hand = self.options.evening_hand
        return state.replace(hand_number=hand) if hand else state

    def contract_for(self, state: State, deal: Deal) -> Contract:
        return contract_of_hand(state.hand_number, self.options.nolo_aces_low)

    def score_hand(self, state: State) -> HandScore:
        assert state.contract is not None
        ns, ew = state.tricks
        points = (ew, ns) if state.contract.misere else (ns, ew)
        score = (state.score[0] + points[0], state.score[1] + points[1])
        winner = None
        if self.options.evening_hand:
            winner = winner_of(score)  # one hand of an evening: 13 points, never a draw
        elif state.hand_number >= HANDS_PER_GAME and (
            self.options.felag_tiebreak == "draw" or score[0] != score[1]
        ):
            winner = winner_of(score)
        return HandScore(points=points, score=score, winner=winner)

    def describe(self, state: State) -> str:
        n = state.hand_number
        contract = state.contract or contract_of_hand(n, self.options.nolo_aces_low)
        if self.options.evening_hand:
            return f"Hand {n} - {contract.title}"
        total = max(HANDS_PER_GAME, n)
        contract = state.contract or contract_of_hand(n, self.options.nolo_aces_low)
        return f"Hand {n} of {total} - {contract.title}"


def contract_of_hand(number: int, aces_low: bool = False) -> Contract:
    """The contract of hand ``number`` (1-based): ♥ ♠ G ♦ ♣ N, repeating."""
    c = CYCLE[(number - 1) % 6]
    return NOLO_ACES_LOW if aces_low and c.misere else c
