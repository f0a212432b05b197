"""The bot protocol: a bot sees one seat's view and a seeded RNG and returns an action.

It is defined with the game loop that calls it (:class:`whistkit.game.Bot`), in the core,
which imports no bot; the bots meet it.
"""

from __future__ import annotations

from ..game import Bot

__all__ = ["Bot"]
