"""2,000 seeded whole games, each played three times, through whistkit.state, the
PettingZoo env and OpenSpiel, with the same deals and the same random legal choices, give
the same records and scores.

One seed per game: ``Random(seed)`` deals (first dealer, then every hand, as
``whistkit.game.Game(seed=)`` and ``env.reset(seed=)`` do) and ``Random(-seed - 1)`` picks
uniformly among the legal action indices, lowest first, at every turn. The games are
spread over the variants by length: Félagsvist always plays 12 hands, a Swedish, English
or American game about 6.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from whistkit.deal import deal_cards
from whistkit.env import make
from whistkit.env.aec import deal_next
from whistkit.env.openspiel import _deck_of, load_game
from whistkit.record import dumps
from whistkit.state import State, new_game

GAMES = {"felagsvist": 200, "swedish": 600, "english": 600, "american": 600}


def through_state(variant: str, seed: int) -> State:
    deal_rng, choose = random.Random(seed), random.Random(-seed - 1)
    state = deal_next(new_game(variant, dealer=deal_rng.randrange(4)), deal_rng)
    while not state.is_over:
        # the legal actions come lowest index first (cards, or Swedish bottom cards)
        state = state.apply(choose.choice(state.legal_actions()))
        if state.needs_deal:
            state = deal_next(state, deal_rng)
    return state


def through_env(env: Any, seed: int) -> State:
    env.reset(seed=seed)
    choose = random.Random(-seed - 1)
    for _agent in env.agent_iter():
        obs, _, done, cut, _ = env.last()
        if done or cut:
            env.step(None)
        else:
            env.step(choose.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    state: State = env.state
    return state


def through_openspiel(game: Any, seed: int) -> State:
    deal_rng, choose = random.Random(seed), random.Random(-seed - 1)
    state = game.new_initial_state()
    state.apply_action(deal_rng.randrange(4))  # chance: the first dealer
    while not state.is_terminal():
        if state.is_chance_node():  # chance: the deal, card by card
            st = state.state
            dealt = deal_cards(deal_rng, st.dealer)
            turned = dealt.last_card if st.variant.uses_turned_card else None
            for card in _deck_of(dealt.hands, st.dealer, turned):
                state.apply_action(card)
        else:
            state.apply_action(choose.choice(state.legal_actions()))
    result: State = state.state
    return result


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(GAMES))
def test_state_env_and_openspiel_agree_over_whole_games(variant: str) -> None:
    env, game = make(variant), load_game(variant)
    hands = 0
    for seed in range(GAMES[variant]):
        a = through_state(variant, seed)
        b = through_env(env, seed)
        c = through_openspiel(game, seed)
        assert a.is_over and b.is_over and c.is_over, (variant, seed)
        record = dumps(a)
        assert dumps(b) == record and dumps(c) == record, (variant, seed)
        assert a.score == b.score == c.score and a.winner == b.winner == c.winner
        assert a.results == b.results == c.results
        hands += len(a.results)
    # whole games: Félagsvist has 12 hands, the others end at a score after 3 or more
    assert hands == 12 * GAMES[variant] if variant == "felagsvist" else hands >= 3 * GAMES[variant]
