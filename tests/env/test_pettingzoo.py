"""whistkit.env as a PettingZoo AEC environment: PettingZoo's own checks, every variant."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from whistkit.bots.sampling import sample_deals
from whistkit.env import OBS_SIZE, OFFSETS, BotPolicy, encode, make
from whistkit.game import Game
from whistkit.variants import VARIANTS

VARIANT_NAMES = list(VARIANTS)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_pettingzoo_api_test(variant: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # naming and Dict-space advice only
        api_test(make(variant, seed=3), num_cycles=400, verbose_progress=False)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_pettingzoo_seed_test(variant: str) -> None:
    seed_test(lambda: make(variant, seed=5), num_cycles=300)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_observation_is_the_seats_own_view(variant: str) -> None:
    env = make(variant, seed=11)
    env.reset()
    rng = random.Random(1)
    for _ in range(130):
        agent = env.agent_selection
        seat = "NESW".index(agent)
        obs = env.observe(agent)
        vec = obs["observation"]
        assert vec.shape == (OBS_SIZE,)
        # the env's card-by-card bookkeeping gives what the view alone gives
        assert np.array_equal(vec, encode(env.view(agent)))
        at, size = OFFSETS["hand"]
        hand = sum(1 << c for c in np.flatnonzero(vec[at : at + size]))
        assert hand == env.state.holdings[seat]
        # the observation is a function of the view alone: another deal of the hidden
        # cards consistent with it gives the same observation
        world = sample_deals(env.view(agent), 1, rng)[0]
        other = env.state.replace(holdings=world)
        assert other.view(seat) == env.view(agent)
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        env.step(int(rng.choice(legal)))


def test_sample_world_keeps_what_the_agent_saw() -> None:
    env = make("english", seed=2)
    env.reset()
    for _ in range(9):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    agent = env.agent_selection
    seat = "NESW".index(agent)
    for i in range(50):
        world = env.sample_world(agent, random.Random(i))
        assert world[seat] == env.state.holdings[seat]
        assert [h.bit_count() for h in world] == [h.bit_count() for h in env.state.holdings]
        union = world[0] | world[1] | world[2] | world[3]
        assert (
            union
            == env.state.holdings[0]
            | env.state.holdings[1]
            | env.state.holdings[2]
            | env.state.holdings[3]
        )


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_bots_as_policies_play_as_in_game(variant: str) -> None:
    """The club bot through the env plays the very game whistkit.game.Game plays."""
    env = make(variant, seed=4, max_hands=2)
    env.reset(seed=4)
    policies = {a: BotPolicy("club") for a in "NESW"}
    for a, p in policies.items():
        p.rng = random.Random(f"4:{'NESW'.index(a)}")
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else policies[agent](env, agent))
    game = Game(variant, seed=4, bots={s: BotPolicy("club").bot for s in "NESW"})
    while len(game.state.results) < 2 and not game.state.is_over:
        game.bot_step()
    assert env.state.results == game.state.results[:2]


def test_rewards_are_the_hand_points_then_the_result() -> None:
    env = make("american", seed=8)
    env.reset()
    total = dict.fromkeys("NESW", 0.0)
    for _agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            assert info["result"] in (1.0, -1.0, 0.0)
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
        for a in "NESW":
            total[a] += env.rewards[a]
    assert (total["N"], total["E"]) == tuple(float(x) for x in env.state.score)
    assert total["N"] == total["S"] and total["E"] == total["W"]


def test_laws_mode_and_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="laws"):
        make("felagsvist", {"play_mode": "laws"})
    with pytest.raises(ValueError, match="reward"):
        make("felagsvist", reward="money")
    with pytest.raises(ValueError, match="max_hands"):
        make("felagsvist", max_hands=0)


def test_a_bot_policy_tells_its_bot_which_seats_others_play() -> None:
    # the expert reads no signal from a seat another policy plays (whistkit.bots.signals)
    seen = []

    class Recorder:
        def choose(self, view, rng):  # type: ignore[no-untyped-def]
            seen.append(view)
            return view.legal[0]

    game = Game("felagsvist", seed=4, bots={})
    game.deal_if_needed()
    policy = BotPolicy("club", people=["S", 0])
    policy.bot = Recorder()  # type: ignore[assignment]
    policy.act(game.state.view(game.state.to_play))
    assert seen[0].public["people"] == [0, 2]
    BotPolicy("club").act(game.state.view(game.state.to_play))
    with pytest.raises(ValueError, match="a seat of people"):
        BotPolicy("club", people=[7])
