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
from ..state import PLAY, Action, Deal, State, View, new_game
from ..variants import Variant, get_variant
from .encoding import BITS, NUM_ACTIONS, OBS_SIZE, Observations

AGENTS = ("N", "E", "S", "W")
_SEAT = {a: i for i, a in enumerate(AGENTS)}
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
        # the four seats' observation vectors, kept up to date card by card
        self._observations = Observations()
        # the last observation made, with its state and agent (PettingZoo's loop observes
        # the agent to act in last(), and often again)
        self._last_obs: tuple[State, str, dict[str, npt.NDArray[Any]]] | None = None

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
        self._observations.moved(self.state)
        self._rewarded = False  # some reward is not 0 (the last step ended a hand)
        self.agent_selection = AGENTS[self.state.to_play]

    def view(self, agent: str | int) -> View:
        """What ``agent`` may know now (the state's own per-seat view)."""
        return self.state.view(as_seat(agent))

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        state = self.state
        last = self._last_obs
        if last is not None and last[0] is state and last[1] == agent:
            return last[2]
        seat, observations = _SEAT[agent], self._observations
        obs: dict[str, npt.NDArray[Any]] = {
            "observation": observations.observation(state, seat),
            "action_mask": observations.action_mask(state, seat),
        }
        self._last_obs = (state, agent, obs)
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
        before = self.state
        hands = len(before.results)
        self._cumulative_rewards[agent] = 0.0
        # a card in the trick phase is its own action: no need to ask the variant
        card = int(action) if before.phase == PLAY else -1
        state = before.apply(card if card >= 0 else self.to_action(action))
        rewards = self.rewards
        if self._rewarded:  # the last step rewarded a hand: back to 0
            for a in AGENTS:
                rewards[a] = 0.0
            self._rewarded = False
        if len(state.results) > hands:
            self._end_of_hand(state)
            if not state.is_over and not self.truncations[agent]:
                state = deal_next(state, self._rng)
            self._observations.moved(state)
        elif card >= 0:
            self._observations.played(before, state, card)
        else:
            self._observations.moved(state)
        self.state = state
        if state.to_play >= 0:
            self.agent_selection = AGENTS[state.to_play]
        if self._rewarded:
            self._accumulate_rewards()

    def _end_of_hand(self, state: State) -> None:
        """Rewards, termination and truncation once a hand is scored."""
        result = state.results[-1]
        self._rewarded = True
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
