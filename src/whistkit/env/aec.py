"""whistkit's games as a PettingZoo AEC environment (docs/env.md)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from ..bots.sampling import World, sample_deals
from ..deal import deal_cards
from ..seats import as_seat
from ..state import Action, Deal, State, View, new_game
from ..variants import Variant, get_variant
from .encoding import BITS, NUM_ACTIONS, OBS_SIZE, encode, legal_mask

AGENTS = ("N", "E", "S", "W")
REWARDS = ("points", "result")


def new_variant(variant: str, options: Mapping[str, Any] | None) -> Variant:
    """The variant, refusing laws mode (its irregular actions have no index here)."""
    v = get_variant(variant, options)
    if v.laws:
        raise ValueError("the environments play strict rules; play_mode=laws is not offered")
    return v


def deal_next(state: State, rng: random.Random) -> State:
    """Deal the next hand as :class:`whistkit.game.Game` does (the same seed, the same deal)."""
    dealt = deal_cards(rng, state.dealer)
    turned = dealt.last_card if state.variant.uses_turned_card else None
    return state.apply(Deal(dealt.hands, turned))


def result_of(winner: str | None, side: int) -> float:
    if winner is None or winner == "draw":
        return 0.0
    return 1.0 if winner == ("NS", "EW")[side] else -1.0


class WhistEnv(AECEnv):  # type: ignore[misc]
    """A whole game of one variant; agents ``N E S W``, the seat to act selected.

    ``reward="points"``: at the end of each hand every agent is rewarded its side's points
    of that hand, as the variant scores them; ``reward="result"``: 0 until the game ends,
    then +1 for the winning side, -1 for the losing one (0 for a draw). Either way
    ``infos[agent]["result"]`` gives the result once the game is over. The game ends in
    termination; ``max_hands`` truncates it after that many hands.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "whistkit_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: str = "felagsvist",
        options: Mapping[str, Any] | None = None,
        *,
        seed: int | None = None,
        reward: str = "points",
        max_hands: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if max_hands is not None and (type(max_hands) is not int or max_hands < 1):
            raise ValueError(f"max_hands must be a whole number of at least 1, not {max_hands!r}")
        if render_mode is not None and render_mode != "ansi":
            raise ValueError(f"render_mode must be 'ansi' or None, not {render_mode!r}")
        self.variant = new_variant(variant, options)
        self.reward_kind = reward
        self.max_hands = max_hands
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        high = np.ones(OBS_SIZE, np.float32)
        high[BITS:] = np.inf
        self._obs_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, high, (OBS_SIZE,), np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                }
            )
            for a in AGENTS
        }
        self._act_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._seed = seed
        self._rng = random.Random(seed)
        self.state: State = new_game(self.variant)
        # the cards each seat played this hand (public), kept card by card for observe()
        self._played: tuple[int, int, int, int] = (0, 0, 0, 0)
        self._moves = 0  # actions taken in this environment: the observation cache's key
        self._last_obs: tuple[tuple[int, str], dict[str, npt.NDArray[Any]]] | None = None

    # -- spaces ------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_spaces[agent]

    # -- the game ----------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. ``seed`` fixes the first dealer and every deal (as ``Game(seed=)``);
        without it the game goes on from the environment's random stream."""
        if seed is not None:
            self._rng = random.Random(seed)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        state = new_game(self.variant, dealer=self._rng.randrange(4))
        self.state = deal_next(state, self._rng)
        self._played = (0, 0, 0, 0)
        self._moves += 1
        self.agent_selection = AGENTS[self.state.to_play]

    def view(self, agent: str | int) -> View:
        """What ``agent`` may know now (the state's own per-seat view)."""
        return self.state.view(as_seat(agent))

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        key = (self._moves, agent)
        if self._last_obs is not None and self._last_obs[0] == key:
            return self._last_obs[1]
        view = self.state.view(AGENTS.index(agent))
        obs: dict[str, npt.NDArray[Any]] = {
            "observation": encode(view, played=self._played),
            "action_mask": legal_mask(view),
        }
        self._last_obs = (key, obs)
        return obs

    def to_action(self, index: int) -> Action:
        """The state's action that action index ``index`` means for the seat to act."""
        s = self.state
        return self.variant.card_action(s, s.to_play, int(index))

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: None is only for an agent that is done")
        before = len(self.state.results)
        self._cumulative_rewards[agent] = 0.0
        act = self.to_action(action)
        self._moves += 1
        state = self.state.apply(act)
        if type(act) is int:
            seat = self.state.to_play
            p = list(self._played)
            p[seat] |= 1 << act
            self._played = (p[0], p[1], p[2], p[3])
        for a in AGENTS:
            self.rewards[a] = 0.0
        if len(state.results) > before:
            result = state.results[-1]
            if self.reward_kind == "points":
                for i, a in enumerate(AGENTS):
                    self.rewards[a] = float(result.points[i & 1])
            if state.is_over:
                for i, a in enumerate(AGENTS):
                    outcome = result_of(state.winner, i & 1)
                    self.terminations[a] = True
                    self.infos[a] = {"result": outcome}
                    if self.reward_kind == "result":
                        self.rewards[a] = outcome
            elif self.max_hands is not None and len(state.results) >= self.max_hands:
                for a in AGENTS:
                    self.truncations[a] = True
            else:
                state = deal_next(state, self._rng)
            self._played = (0, 0, 0, 0)
        self.state = state
        if state.to_play >= 0:
            self.agent_selection = AGENTS[state.to_play]
        self._accumulate_rewards()

    # -- for determinisation and bots ---------------------------------------------------

    def sample_world(self, agent: str | int, rng: random.Random) -> World:
        """A deal of the cards still held, consistent with everything ``agent`` has seen
        (uniform over such deals: the bots' constrained dealing). Hands by seat."""
        return sample_deals(self.view(agent), 1, rng)[0]

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return repr(self.state)

    def close(self) -> None:
        pass


def make(
    variant: str = "felagsvist",
    options: Mapping[str, Any] | None = None,
    *,
    seed: int | None = None,
    reward: str = "points",
    max_hands: int | None = None,
    render_mode: str | None = None,
) -> WhistEnv:
    """A PettingZoo AEC environment for ``variant`` with ``options`` (as ``whistkit
    variants`` lists them); ``seed`` fixes the first game (call ``reset()`` to start)."""
    return WhistEnv(
        variant, options, seed=seed, reward=reward, max_hands=max_hands, render_mode=render_mode
    )


__all__ = ["AGENTS", "WhistEnv", "deal_next", "make", "new_variant", "result_of"]
