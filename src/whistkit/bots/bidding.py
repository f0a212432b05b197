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

The rules that play nothing out (the colour rules, the card for a colour) live in
:mod:`whistkit.bots.bottom`, which the club bot uses, and are importable from here too;
this module adds the expert's simulation, which plays hands out with the club bot.
"""

from __future__ import annotations

import random

from ..seats import left, side_of
from ..state import PLAY, Contract, Deal, View, new_game
from ..variants import get_variant
from ..variants.swedish import NOLLSPEL, score_swedish, spel_contract, spel_leader
from .bottom import (
    bottom_action,
    bottom_card,
    club_bottom,
    club_wants_red,
    earlier_seats,
    fifths,
    hcp,
    is_bottom_choice,
    later_seats,
)
from .club import ClubBot
from .sampling import World, sampler_for


def _rollout(view: View, hands: World, contract: Contract, leader: int) -> tuple[int, int]:
    """Tricks (N-S, E-W) when four club players play ``hands`` in ``contract``."""
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
    "earlier_seats",
    "expert_wants_red",
    "fifths",
    "hcp",
    "is_bottom_choice",
    "later_seats",
]
