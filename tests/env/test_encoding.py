"""The observation encoding against a plain reference written from docs/env.md, and the
environment's card-by-card observations against a fresh encoding of the seat's view."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from whistkit.cards import parse_card
from whistkit.env import AGENTS, NUM_ACTIONS, OBS_SIZE, OFFSETS, encode, legal_mask, make
from whistkit.env.encoding import CONTRACTS, PHASES, action_index
from whistkit.state import View
from whistkit.variants import VARIANTS

VARIANT_NAMES = list(VARIANTS)


def reference(view: View) -> Any:
    """The docs' table, block by block, the slow and obvious way."""
    out = np.zeros(OBS_SIZE, np.float32)
    me = view.seat

    def rel(seat: int) -> int:
        return (seat - me) & 3

    def put(block: str, index: int, value: float = 1.0) -> None:
        at, size = OFFSETS[block]
        assert 0 <= index < size
        out[at + index] = value

    for c in range(52):
        if view.hand >> c & 1:
            put("hand", c)
    for i, card in enumerate(view.trick):
        put("trick", 52 * rel(view.leader + i) + card)
    for seat, card in view.plays():
        put("played", 52 * rel(seat) + card)
    public = view.public
    if "turned" in public:
        put("turned", parse_card(public["turned"]))
    if "your bottom card" in public:
        put("own_bottom", parse_card(public["your bottom card"]))
    for name, card in public.get("revealed", {}).items():
        put("revealed_bottom", 52 * rel("NESW".index(name)) + parse_card(card))
        put("committed", rel("NESW".index(name)))
    for name in public.get("committed", []):
        put("committed", rel("NESW".index(name)))
    put("phase", PHASES.index(view.phase))
    if view.to_play >= 0:
        put("to_play", rel(view.to_play))
    put("dealer", rel(view.dealer))
    if view.phase == "play":
        put("leader", rel(view.leader))
    if view.contract is not None:
        put("contract", CONTRACTS.index(view.contract.code))
        if view.contract.trump is not None:
            put("trump", view.contract.trump)
        if view.contract.misere:
            put("misere", 0)
        if view.contract.aces_low:
            put("aces_low", 0)
        if view.contract.declarer is not None:
            put("declarer", rel(view.contract.declarer))
    side = me & 1
    put("tricks_own", 0, view.tricks[side])
    put("tricks_other", 0, view.tricks[side ^ 1])
    put("score_own", 0, view.score[side])
    put("score_other", 0, view.score[side ^ 1])
    put("hand_number", 0, view.hand_number)
    return out


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_every_seat_at_every_step_matches_the_reference(variant: str) -> None:
    """Two seeded games (the first cut to three hands): after each action all four seats'
    observations (kept card by card) equal the encoding of their views, the acting seat's
    the reference too, and the masks their legal actions."""
    for seed, max_hands in ((1, 3), (2, None)):
        env = make(variant, seed=seed, max_hands=max_hands)
        env.reset()
        rng = random.Random(seed)
        kinds = set()
        for agent in env.agent_iter():
            for name in AGENTS:
                obs = env.observe(name)
                view = env.view(name)
                assert obs["observation"].dtype == np.float32
                assert np.array_equal(obs["observation"], encode(view)), (seed, name)
                if name == agent:
                    assert np.array_equal(obs["observation"], reference(view)), (seed, name)
                mask = obs["action_mask"]
                assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
                legal = sorted(action_index(a) for a in view.legal)
                assert np.flatnonzero(mask).tolist() == legal
                assert np.array_equal(mask, legal_mask(view))
                kinds.add(view.phase)
            obs, _, done, cut, _ = env.last()
            assert obs is env.observe(agent)  # the same position: the same arrays
            mask = obs["action_mask"]
            env.step(None if done or cut else int(rng.choice(np.flatnonzero(mask))))
        assert "play" in kinds and (variant != "swedish" or "bid" in kinds)
    assert env.state.is_over


def test_observations_are_new_arrays_and_follow_a_state_set_from_outside() -> None:
    env = make("english", seed=4)
    env.reset()
    start = env.state
    agent = env.agent_selection
    first = env.observe(agent)["observation"]
    first[:] = 7.0  # a caller scribbling on its observation changes nothing else
    for _ in range(6):
        obs = env.observe(env.agent_selection)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    env.state = start  # e.g. a search restoring a saved position
    env.agent_selection = agent
    again = env.observe(agent)["observation"]
    assert np.array_equal(again, reference(start.view("NESW".index(agent))))
    assert not np.array_equal(again, first)
