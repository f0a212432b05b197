"""The bots as policies on the environment: an action index from what one agent may know."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Protocol

from ..bots import make_bot
from ..seats import Seat, as_seat
from ..state import View
from .encoding import action_index


class HasView(Protocol):
    def view(self, agent: str | int) -> View: ...


class BotPolicy:
    """``policy(env, agent)`` is the action index the bot ``level`` (``beginner``, ``club``,
    ``expert``) picks for ``agent``. The bot reads the agent's view, the same facts as the
    agent's observation and nothing more; ``seed`` fixes its random choices. ``people``:
    the seats (0-3) that other policies play (a learning agent, a person): the bot
    reads no signal from their cards (:mod:`whistkit.bots.signals`: the expert reads
    its partner's choice among equal cards by a convention that only the bots play)."""

    def __init__(
        self, level: str = "club", seed: int = 0, people: Iterable[Seat | str] = ()
    ) -> None:
        self.bot = make_bot(level)
        self.rng = random.Random(f"{seed}:{level}")
        self.people = sorted({as_seat(s, "a seat of people") for s in people})

    def __call__(self, env: HasView, agent: str | int) -> int:
        return self.act(env.view(agent))

    def act(self, view: View) -> int:
        """The action index for a view (of an environment or of any state)."""
        return action_index(self.bot.choose(view.with_people(self.people), self.rng))


def bot_policy(level: str = "club", seed: int = 0, people: Iterable[Seat | str] = ()) -> BotPolicy:
    return BotPolicy(level, seed, people)


__all__ = ["BotPolicy", "bot_policy"]
