"""The bots as policies on the environment: an action index from what one agent may know."""

from __future__ import annotations

import random
from typing import Protocol

from ..bots import make_bot
from ..state import View
from .encoding import action_index


class HasView(Protocol):
    def view(self, agent: str | int) -> View: ...


class BotPolicy:
    """``policy(env, agent)`` is the action index the bot ``level`` (``beginner``, ``club``,
    ``expert``) picks for ``agent``. The bot reads the agent's view, the same facts as the
    agent's observation and nothing more; ``seed`` fixes its random choices."""

    def __init__(self, level: str = "club", seed: int = 0) -> None:
        self.bot = make_bot(level)
        self.rng = random.Random(f"{seed}:{level}")

    def __call__(self, env: HasView, agent: str | int) -> int:
        return action_index(self.bot.choose(env.view(agent), self.rng))

    def act(self, view: View) -> int:
        """The action index for a view (of an environment or of any state)."""
        return action_index(self.bot.choose(view, self.rng))


def bot_policy(level: str = "club", seed: int = 0) -> BotPolicy:
    return BotPolicy(level, seed)


__all__ = ["BotPolicy", "bot_policy"]
