"""whistkit.env.openspiel: OpenSpiel's own checks of Python games, every variant."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pyspiel
import pytest

from whistkit.env import OBS_SIZE
from whistkit.env.openspiel import PLAY_ORDER, load_game
from whistkit.variants import VARIANTS

VARIANT_NAMES = list(VARIANTS)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_random_sim_test_with_serialisation(variant: str) -> None:
    game = load_game(variant, max_hands=1)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_random_sim_test_longer_games(variant: str) -> None:
    game = load_game(variant, max_hands=3)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_tensors_strings_and_round_trip(variant: str) -> None:
    game = load_game(variant, max_hands=2)
    assert game.observation_tensor_shape() == [OBS_SIZE]
    assert game.information_state_tensor_shape() == [OBS_SIZE + PLAY_ORDER]
    rng = random.Random(3)
    state = game.new_initial_state()
    seen: dict[str, list[float]] = {}
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            assert abs(sum(probs) - 1.0) < 1e-9
            state.apply_action(rng.choice(actions))
            continue
        player = state.current_player()
        for p in range(4):
            tensor = state.information_state_tensor(p)
            assert len(tensor) == OBS_SIZE + PLAY_ORDER
            assert len(state.observation_tensor(p)) == OBS_SIZE
            key = state.information_state_string(p)
            # one information state, one tensor
            if key in seen:
                assert seen[key] == tensor
            seen[key] = tensor
        again = game.deserialize_state(state.serialize())
        assert again.history() == state.history() and str(again) == str(state)
        assert (
            pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[
                1
            ].history()
            == state.history()
        )
        assert pickle.loads(pickle.dumps(state)).history() == state.history()
        state.apply_action(rng.choice(state.legal_actions(player)))
    assert sum(state.returns()) == 0


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_resample_gives_only_consistent_deals(variant: str) -> None:
    """272 samples per variant (1,088 in all) over positions of a hand: each keeps the
    player's information state (string and tensor) and the legal actions, and changes
    only hidden cards."""
    game = load_game(variant, max_hands=1)
    rng = random.Random(7)
    state = game.new_initial_state()
    stops = {2, 5, 9, 13, 20, 30, 40, 47, 51}
    samples = 0
    changed = 0
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        moves += 1
        if moves in stops or (moves % 4 == 1 and moves < 40):
            for p in range(4):
                info = state.information_state_string(p)
                tensor = np.array(state.information_state_tensor(p))
                for _ in range(4):
                    other = state.resample_from_infostate(p, rng.random)
                    assert other.information_state_string(p) == info
                    assert np.array_equal(np.array(other.information_state_tensor(p)), tensor)
                    assert other.current_player() == state.current_player()
                    if state.current_player() == p:
                        assert other.legal_actions(p) == state.legal_actions(p)
                    samples += 1
                    changed += str(other) != str(state)
        state.apply_action(rng.choice(state.legal_actions()))
    assert samples >= 250
    assert changed > samples // 2  # the hidden cards were dealt afresh
