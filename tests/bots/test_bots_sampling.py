"""sample_deals: consistent with the view, exactly uniform, exact counts."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter

import pytest
from helpers_bots import positions

from whistkit.bots import InconsistentView, count_deals, sample_deals
from whistkit.bots.knowledge import Knowledge
from whistkit.cards import SUIT_MASKS, iter_cards
from whistkit.deal import parse_pbn
from whistkit.state import Deal, State, View, new_game


def _ending(pbn: str, plays: str, hand_number: int = 3) -> State:
    """A Félagsvist state with the given holdings after some cards of the current hand."""
    from whistkit.cards import parse_card

    hands = parse_pbn(pbn, full=True)
    state = new_game("felagsvist", dealer=3)
    for _ in range(hand_number - 1):
        state = state.replace(hand_number=state.hand_number + 1)
    state = state.apply(Deal(hands))
    for tok in plays.split():
        state = state.apply(parse_card(tok))
    return state


def _consistent(view: View, world: tuple[int, int, int, int]) -> bool:
    know = Knowledge.from_view(view)
    union = 0
    for seat, hand in enumerate(world):
        if hand.bit_count() != view.hand_sizes[seat] or union & hand:
            return False
        union |= hand
        for suit in range(4):
            if know.voids[seat] >> suit & 1 and hand & SUIT_MASKS[suit]:
                return False
    return world[view.seat] == view.hand and union == know.unseen | view.hand


def test_worlds_are_consistent_with_the_view() -> None:
    rng = random.Random(5)
    for state in positions("felagsvist", 150, seed=11):
        seat = state.to_play
        view = state.view(seat)
        worlds = sample_deals(view, 4, rng)
        assert len(worlds) == 4
        for w in worlds:
            assert _consistent(view, w)
        # the true deal is one of the consistent deals
        assert _consistent(view, state.holdings)


def _brute_force_deals(view: View) -> list[tuple[int, int, int, int]]:
    know = Knowledge.from_view(view)
    cards = list(iter_cards(know.unseen))
    others = [s for s in range(4) if s != view.seat]
    out = []
    for labels in itertools.product(range(3), repeat=len(cards)):
        hands = [0, 0, 0, 0]
        hands[view.seat] = view.hand
        for c, i in zip(cards, labels, strict=True):
            hands[others[i]] |= 1 << c
        w = (hands[0], hands[1], hands[2], hands[3])
        if _consistent(view, w):
            out.append(w)
    return out


def _late_position() -> State:
    # hearts contract; after 10 tricks with voids shown, 3 cards each remain
    state = _ending("N:AKQJ.T98.765.432 T987.765.432.AKQ 6543.432.AKQ.JT9 2.AKQJ.JT98.8765", "", 1)
    rng = random.Random(3)
    from whistkit.bots import ClubBot

    bot = ClubBot()
    while len(state.trick_winners) < 10 or state.trick:
        state = state.apply(bot.choose(state.view(state.to_play), rng))
    return state


def test_count_matches_brute_force_and_sampling_is_uniform() -> None:
    state = _late_position()
    view = state.view(state.to_play)
    deals = _brute_force_deals(view)
    assert count_deals(view) == len(deals) > 1
    rng = random.Random(8)
    n = 300 * len(deals)
    seen = Counter(sample_deals(view, n, rng))
    assert set(seen) == set(deals)
    expected = n / len(deals)
    chi2 = sum((seen[d] - expected) ** 2 / expected for d in deals)
    # chi-square with len(deals)-1 degrees of freedom: far below this bound if uniform
    assert chi2 < 3 * len(deals) + 30


def test_voids_and_sizes_constrain_the_count() -> None:
    # mid-trick: the led suit shows a void when a player discards
    state = _late_position()
    for _ in range(2):
        state = state.apply(state.legal_actions()[0])
    view = state.view(state.to_play)
    assert count_deals(view) == len(_brute_force_deals(view))


def test_inconsistent_view_is_named() -> None:
    state = _late_position()
    view = state.view(state.to_play)
    bad = dataclasses.replace(view, hand_sizes=(13, 13, 13, 13))
    with pytest.raises(InconsistentView, match="other seats need"):
        count_deals(bad)


def test_weighting_resamples_toward_likely_worlds() -> None:
    state = _late_position()
    seat = state.to_play
    view = state.view(seat)
    other = (seat + 1) & 3
    rng = random.Random(1)

    def weight(w: tuple[int, int, int, int]) -> float:
        return 1.0 if w[other] == state.holdings[other] else 0.0

    worlds = sample_deals(view, 20, rng, weight=weight, oversample=50)
    assert all(w[other] == state.holdings[other] for w in worlds)
