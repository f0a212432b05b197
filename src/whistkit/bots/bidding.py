"""Swedish whist's bottom card: which colour (red asks for spel, black passes) and which card.

Your colour matters only when every seat revealed before you shows black (the first red
card declares), so each rule compares spel and nollspel *given* that (docs/bots.md §2).

* ``beginner`` (in :mod:`whistkit.bots.heuristic`): red with 12 or more high-card points.
* ``club``: red when the hand's no-trump strength in "fifths" (A 4, K 2.8, Q 1.8, J 1,
  T 0.4) reaches 12.5, lowered a little for each opponent revealed black before you (he
  is likely weak) and raised for a partner revealed black before you.
* ``expert``: simulates. It deals the other hands (rejecting deals in which the club rule
  would have made an earlier seat show red), plays each deal out as spel with itself
  declaring and as what happens if it passes (a later seat's spel, or nollspel), scores
  both with the real scoring and shows the colour with the higher mean margin.

Which card: a red spot card (not a lone honour, which would mark a spel stopper) from the
longer red suit; a black card that is neither a suit's lowest card (an exit in nollspel)
nor an unguarded honour (a nollspel target).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..cards import RED_SUITS, SUIT_MASKS, Card, Hand, iter_cards
from ..seats import left, side_of
from ..state import PLAY, Action, Contract, Deal, View, new_game
from ..variants import get_variant
from ..variants.swedish import NOLLSPEL, BottomCard, score_swedish, spel_contract, spel_leader
from .sampling import World, sampler_for

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


def _rollout(view: View, hands: World, contract: Contract, leader: int) -> tuple[int, int]:
    """Tricks (N-S, E-W) when four club players play ``hands`` in ``contract``."""
    from .club import ClubBot  # the club bot uses this module for its own bottom card

    state = new_game(get_variant(view.variant, view.options), dealer=view.dealer)
    state = state.apply(Deal(hands))
    state = state.replace(
        phase=PLAY, contract=contract, first_leader=leader, leader=leader, to_play=leader
    )
    bot = ClubBot()
    rng = random.Random(0)  # the club bot draws on it only for bidding
    while state.phase == PLAY:
        state = state.apply(bot.choose(state.view(state.to_play), rng))
    tricks: tuple[int, int] = state.results[-1].tricks
    return tricks


def expert_wants_red(
    view: View, rng: random.Random, *, worlds: int = 24, max_tries: int = 400
) -> bool:
    """Simulate spel with this seat declaring against the pass, over sampled deals.

    Deals in which the club rule would have made an earlier seat show red are rejected
    (our colour matters only when all earlier seats show black). If we pass, the first
    later seat whose club rule shows red declares, else the hand is nollspel. Each
    contract is played out by four club players (double-dummy solving of full misère
    deals is too slow for a bidding decision) and scored with the real scoring.
    """
    rule = str(view.options.get("sw_spel_leader", "forehand"))
    me = view.seat
    dealer = view.dealer
    # with simultaneous reveals the first red from forehand still declares, so the same
    # seats decide whether our colour matters
    earlier = earlier_seats(me, dealer)
    later = later_seats(me, dealer)
    side = side_of(me)
    sampler = sampler_for(view)
    forehand = left(dealer)
    deals: list[World] = []
    for _ in range(max_tries):
        hands = list(sampler.sample(rng))
        hands[me] = view.hand
        w = (hands[0], hands[1], hands[2], hands[3])
        if not any(club_wants_red(w[s], s, earlier_seats(s, dealer)) for s in earlier):
            deals.append(w)
            if len(deals) == worlds:
                break
    if not deals:
        return club_wants_red(view.hand, me, earlier)
    margin = [0.0, 0.0]  # red, black
    for w in deals:
        declarer = next(
            (s for s in later if club_wants_red(w[s], s, earlier_seats(s, dealer))), None
        )
        outcomes = [(spel_contract(me), spel_leader(rule, dealer, me))]
        if declarer is None:
            outcomes.append((NOLLSPEL, forehand))
        else:
            outcomes.append((spel_contract(declarer), spel_leader(rule, dealer, declarer)))
        for i, (contract, leader) in enumerate(outcomes):
            pts = score_swedish(contract, _rollout(view, w, contract, leader))
            margin[i] += pts[side] - pts[1 - side]
    return margin[0] > margin[1]


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
