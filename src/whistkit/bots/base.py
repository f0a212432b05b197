"""The bot protocol: a bot sees one seat's view and a seeded RNG and returns an action."""

from __future__ import annotations

import random
from typing import Protocol

from ..state import Action, View


class Bot(Protocol):
    """Anything that picks an action from a view. It never sees another seat's cards."""

    name: str

    def choose(self, view: View, rng: random.Random) -> Action: ...
