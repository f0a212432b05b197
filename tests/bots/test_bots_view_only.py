"""Bots use only their view: redealing the other seats' hidden cards consistently with
the view never changes a bot's choice (with the same seed)."""

from __future__ import annotations

import random

import pytest
from helpers_bots import positions

from whistkit.bots import LEVELS, make_bot, sample_deals
from whistkit.variants import VARIANTS

N_POSITIONS = 200


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("level", sorted(LEVELS))
def test_choice_is_unchanged_when_hidden_cards_are_redealt(level: str, variant: str) -> None:
    bot = make_bot(level)
    redeal_rng = random.Random(99)
    changed_worlds = 0
    for i, state in enumerate(positions(variant, N_POSITIONS, seed=1234)):
        seat = state.to_play
        view = state.view(seat)
        (world,) = sample_deals(view, 1, redeal_rng)
        other = state.replace(holdings=world)
        assert other.view(seat) == view  # the redeal is invisible to the seat
        changed_worlds += world != state.holdings
        seed = f"view-only:{i}"
        assert bot.choose(view, random.Random(seed)) == bot.choose(
            other.view(seat), random.Random(seed)
        ), f"position {i}: {level} changed its card when hidden cards were redealt"
    assert changed_worlds > N_POSITIONS // 2
