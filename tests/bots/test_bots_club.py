"""The club rules' card when following suit depends on the hand only through its cards of
the led suit and of trumps: the policy model (whistkit.bots.inference) judges a
follower's past card once for all hands that share those cards."""

from __future__ import annotations

import random

import pytest
from helpers_bots import positions

from whistkit.bots.club import club_card
from whistkit.bots.knowledge import Knowledge
from whistkit.cards import SUIT_MASKS, cards_in


@pytest.mark.parametrize("variant", ["felagsvist", "swedish", "english", "american"])
def test_a_followers_card_depends_only_on_its_led_suit_and_trumps(variant: str) -> None:
    rng = random.Random(variant)
    checked = 0
    for state in positions(variant, 300, seed=7):
        view = state.view(state.to_play)
        if view.contract is None or not view.trick:
            continue
        led = SUIT_MASKS[view.trick[0] // 13]
        trumps = 0 if view.contract.trump is None else SUIT_MASKS[view.contract.trump]
        keep = led | trumps
        know = Knowledge.from_view(view)
        pool = know.hand | know.unseen
        for _ in range(10):
            # a what-if hand of the same size that follows suit
            hand = sum(1 << c for c in rng.sample(cards_in(pool), know.hand.bit_count()))
            if not hand & led or not (hand & led) & ((hand & led) - 1):
                continue
            # the same led-suit and trump cards, the rest dealt again from the other suits
            others = cards_in(pool & ~keep)
            rest = (hand & ~keep).bit_count()
            if len(others) < rest:
                continue
            other = (hand & keep) | sum(1 << c for c in rng.sample(others, rest))
            legal = list(cards_in(hand & led))
            choices = {club_card(view, legal, know.with_hand(h, pool & ~h)) for h in (hand, other)}
            assert len(choices) == 1, (view, hand, other)
            checked += 1
    assert checked > 300
