"""Swedish whist's bottom card by rule, without playing anything out (docs/bots.md, Design background §2).

The ``club`` colour rule, the card each level shows for a colour, and the seats that
reveal before and after a seat. The ``expert``'s simulation, which plays hands out with
the club bot, is in :mod:`whistkit.bots.bidding` (the club bot uses this module for its
own bottom card, so it cannot be the other way round).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import RED_SUITS, SUIT_MASKS, Card, Hand, iter_cards
from ..seats import left
from ..state import Action, View
from ..variants.swedish import BottomCard

HCP = (0,) * 9 + (1, 2, 3, 4)  # by rank index 2..A: A 4, K 3, Q 2, J 1
FIFTHS = (0.0,) * 8 + (0.4, 1.0, 1.8, 2.8, 4.0)
CLUB_THRESHOLD = 12.5
CLUB_SHIFT = 0.7  # per earlier black opponent (minus) or partner (plus)
BLACK = (0, 3)


def is_bottom_choice(legal: Sequence[Action]) -> bool:
    """Is this decision the choice of a bottom card?"""
    return bool(legal) and all(isinstance(a, BottomCard) for a in legal)


def hcp(hand: Hand) -> int:
    return sum(HCP[c % 13] for c in iter_cards(hand))


def fifths(hand: Hand) -> float:
    return sum(FIFTHS[c % 13] for c in iter_cards(hand))


def earlier_seats(seat: int, dealer: int) -> list[int]:
    """Seats that reveal before ``seat`` (forehand, left of the dealer, reveals first)."""
    forehand = left(dealer)
    return [(forehand + i) & 3 for i in range((seat - forehand) & 3)]


def later_seats(seat: int, dealer: int) -> list[int]:
    """Seats that reveal after ``seat``."""
    forehand = left(dealer)
    return [(forehand + i) & 3 for i in range(((seat - forehand) & 3) + 1, 4)]


def club_wants_red(hand: Hand, seat: int, earlier: Sequence[int]) -> bool:
    shift = sum(CLUB_SHIFT if (s ^ seat) & 1 == 0 else -CLUB_SHIFT for s in earlier)
    return fifths(hand) >= CLUB_THRESHOLD + shift


def bottom_card(hand: Hand, red: bool) -> Card:
    """The card to show for a colour (the other colour if the hand has none of it)."""
    suits = RED_SUITS if red else BLACK
    if not any(hand & SUIT_MASKS[s] for s in suits):
        suits = BLACK if red else RED_SUITS
    by_suit = {s: sorted(iter_cards(hand & SUIT_MASKS[s])) for s in suits}
    by_suit = {s: cs for s, cs in by_suit.items() if cs}
    if red:
        # the lowest spot card of the longest red suit; a lone honour only if nothing else
        suit = max(by_suit, key=lambda s: (len(by_suit[s]), -s))
        return by_suit[suit][0]
    candidates = [
        c
        for cs in by_suit.values()
        for c in cs
        if c != cs[0] and not (len(cs) <= 2 and c % 13 >= 9)
    ]
    if candidates:
        # the highest spot card that is neither an exit nor an unguarded honour
        return max(candidates, key=lambda c: (c % 13 <= 7, -abs(c % 13 - 5), c))
    return max((c for cs in by_suit.values() for c in cs), key=lambda c: (c % 13 <= 7, c))


def bottom_action(view: View, red: bool) -> BottomCard:
    return BottomCard(view.seat, bottom_card(view.hand, red))


def club_bottom(view: View) -> BottomCard:
    return bottom_action(
        view, club_wants_red(view.hand, view.seat, earlier_seats(view.seat, view.dealer))
    )


__all__ = [
    "bottom_action",
    "bottom_card",
    "club_bottom",
    "club_wants_red",
    "earlier_seats",
    "fifths",
    "hcp",
    "is_bottom_choice",
    "later_seats",
]
