"""Bots use only their view: redealing the other seats' hidden cards consistently with
the view never changes a bot's choice (with the same seed)."""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Iterator

import pytest
from helpers_bots import TinySolver, late_positions, positions

from whistkit.bots import LEVELS, Bot, ExpertBot, make_bot, sample_deals
from whistkit.bots.pimc import default_worlds
from whistkit.state import State
from whistkit.variants import VARIANTS

N_POSITIONS = 200
HAS_SOLVER = importlib.util.find_spec("whistkit.solver") is not None


def _bot_and_positions(level: str, variant: str) -> tuple[Bot, Iterator[State]]:
    if level != "expert":
        return make_bot(level), positions(variant, N_POSITIONS, seed=1234)
    if HAS_SOLVER:
        # no time budget: the number of worlds must not depend on the machine's speed;
        # few worlds: what is tested is where the worlds come from, not how many
        bot = ExpertBot(
            time_budget=None,
            worlds=lambda tricks, misere: min(4, default_worlds(tricks, misere)),
            batch=4,
            min_worlds=4,
            bid_worlds=4,
        )
        # half the positions of the other levels: each costs the expert two searches
        return bot, positions(variant, N_POSITIONS // 2, seed=1234)
    # before the solver lands, a brute-force solver on endings of up to 3 tricks
    bot = ExpertBot(solver=TinySolver(), time_budget=None)
    return bot, late_positions(variant, N_POSITIONS, seed=1234, tricks_left=3)


@pytest.mark.slow  # the expert's four take minutes: started first when run on several cores
@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("level", sorted(LEVELS))
def test_choice_is_unchanged_when_hidden_cards_are_redealt(level: str, variant: str) -> None:
    bot, states = _bot_and_positions(level, variant)
    redeal_rng = random.Random(99)
    changed_worlds = 0
    for i, state in enumerate(states):
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
    seen = i + 1
    assert seen >= N_POSITIONS // 2 and changed_worlds > seen // 2
