"""Swedish whist's bottom card: which colour (red asks for spel, black passes) and which card.

Your colour matters only when every seat revealed before you shows black (the first red
card declares), so each rule compares spel and nollspel *given* that (BOTS.md §2).

* ``beginner`` (in :mod:`whistkit.bots.heuristic`): red with 12 or more high-card points.
* ``club``: red when the hand's no-trump strength in "fifths" (A 4, K 2.8, Q 1.8, J 1,
  T 0.4) reaches 12.5, lowered a little for each opponent revealed black before you (he
  is likely weak) and raised for a partner revealed black before you.
* ``expert``: simulates. It deals the other hands (rejecting deals in which the club rule
  would have made an earlier seat show red), solves each deal double-dummy as spel and,
  where every later seat would pass, as nollspel, scores both with the real scoring and
  shows the colour with the higher mean margin.

Which card: a red spot card (not a lone honour, which would mark a spel stopper) from the
longer red suit; a black card that is neither a suit's lowest card (an exit in nollspel)
nor an unguarded honour (a nollspel target).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..cards import RED_SUITS, SUIT_MASKS, Card, Hand, iter_cards
from ..seats import left, side_of
from ..state import Action, View
from ..variants.swedish import NOLLSPEL, BottomCard, score_swedish, spel_contract, spel_leader
from .sampling import DealSampler

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


def expert_wants_red(
    view: View, rng: random.Random, solver: Any, *, worlds: int = 24, max_tries: int = 400
) -> bool:
    """Simulate spel (this seat red) and the alternative (black) over sampled deals."""
    rule = str(view.options.get("sw_spel_leader", "forehand"))
    me = view.seat
    dealer = view.dealer
    # with simultaneous reveals the first red from forehand still declares, so the same
    # seats decide whether our colour matters
    earlier = earlier_seats(me, dealer)
    later = later_seats(me, dealer)
    side = side_of(me)
    sampler = DealSampler(view)
    forehand = left(dealer)
    deals = []
    for _ in range(max_tries):
        w = sampler.sample(rng)
        if not any(club_wants_red(w[s], s, earlier_seats(s, dealer)) for s in earlier):
            deals.append(w)
            if len(deals) == worlds:
                break
    if not deals:
        return club_wants_red(view.hand, me, earlier)
    # what happens if we pass: the first later seat that would show red declares
    black_declarers: list[int | None] = []
    for w in deals:
        black_declarers.append(
            next((s for s in later if club_wants_red(w[s], s, earlier_seats(s, dealer))), None)
        )
    positions = []
    index: list[tuple[int, int]] = []  # (deal, kind) kind 0: spel by me, 1: the pass
    for i, w in enumerate(deals):
        hands = (w[0], w[1], w[2], w[3])
        lead = spel_leader(rule, dealer, me)
        positions.append(solver.Position(hands=hands, leader=lead, trump=None))
        index.append((i, 0))
        d = black_declarers[i]
        if d is None:
            positions.append(solver.Position(hands=hands, leader=forehand, misere=True))
        else:
            positions.append(solver.Position(hands=hands, leader=spel_leader(rule, dealer, d)))
        index.append((i, 1))
    values: list[int] = solver.solve_batch(positions, cards=False)
    totals = [0.0, 0.0]
    for (i, kind), pos, v in zip(index, positions, values, strict=True):
        lead_side = pos.leader & 1
        ns = v if lead_side == 0 else 13 - v
        if kind == 0:
            contract = spel_contract(me)
        else:
            d = black_declarers[i]
            contract = NOLLSPEL if d is None else spel_contract(d)
        pts = score_swedish(contract, (ns, 13 - ns))
        totals[kind] += pts[side] - pts[1 - side]
    return totals[0] > totals[1]


__all__ = [
    "bottom_action",
    "bottom_card",
    "club_bottom",
    "club_wants_red",
    "expert_wants_red",
    "fifths",
    "hcp",
    "is_bottom_choice",
]
