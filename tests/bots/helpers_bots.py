"""Shared helpers of the bot tests: positions reached by seeded play."""

from __future__ import annotations

import random
from collections.abc import Iterator

from whistkit.bots import BeginnerBot
from whistkit.deal import deal_cards
from whistkit.state import PLAY, Deal, State, new_game


def positions(variant: str, n: int, seed: int) -> Iterator[State]:
    """``n`` play positions of ``variant``: seeded deals, seeded random-ish play to a stop.

    Hands are dealt in every hand number of the cycle, and play stops at a random card
    (trick 1 included), so every contract kind and trick position is covered.
    """
    rng = random.Random(seed)
    bot = BeginnerBot()
    made = 0
    while made < n:
        state = new_game(variant, dealer=rng.randrange(4))
        # skip to a random hand of the cycle by scoring-free fast forward: play whole hands
        target_hand = rng.randrange(1, 13)
        while True:
            state = state.apply(Deal(deal_cards(rng, state.dealer).hands))
            stop = rng.randrange(52) if state.hand_number == target_hand else 52
            for _ in range(stop):
                seat = state.to_play
                if rng.random() < 0.3:
                    state = state.apply(rng.choice(state.legal_actions()))
                else:
                    state = state.apply(bot.choose(state.view(seat), rng))
            if state.phase == PLAY:
                break
        made += 1
        yield state
