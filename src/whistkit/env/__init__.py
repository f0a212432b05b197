"""Environments for research: PettingZoo (:func:`make`) and OpenSpiel
(:mod:`whistkit.env.openspiel`). See docs/env.md.

This package sits above the core and the bots and nothing in whistkit imports it; it
needs the ``env`` extra (numpy, gymnasium, PettingZoo, OpenSpiel).
"""

from __future__ import annotations

from .aec import AGENTS, WhistEnv, make
from .encoding import NUM_ACTIONS, OBS_SIZE, OFFSETS, action_index, encode, legal_mask
from .policies import BotPolicy, bot_policy

__all__ = [
    "AGENTS",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "OFFSETS",
    "BotPolicy",
    "WhistEnv",
    "action_index",
    "bot_policy",
    "encode",
    "legal_mask",
    "make",
]
