"""Bots by level. ``make_bot(level)`` builds one; every bot only ever gets a view.

The levels offered to players are :data:`LEVELS`. The ``oracle`` (double-dummy play with
every hand open, a ceiling for measurement) is deliberately not among them: duplicate
matches build it through :func:`whistkit.match.make_player`.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot
from .club import ClubBot
from .heuristic import BeginnerBot
from .pimc import ExpertBot, OracleBot
from .sampling import InconsistentView, count_deals, sample_deals

LEVELS: dict[str, Callable[[], Bot]] = {
    "beginner": BeginnerBot,
    "club": ClubBot,
    "expert": ExpertBot,
}
DEFAULT_LEVEL = "club"  # make_bot()'s default: strong and instant (tools, tests)


def play_level() -> str:
    """The terminal game's default: the strongest level that meets the latency goal.

    That is ``expert`` when the solver's compiled core is available (median 180 ms, p95
    0.74 s per decision over whole Félagsvist games, trick 1 included, on the project's
    2-core machine, docs/bots.md), else ``club`` (the pure-Python fallback solver is far
    too slow).
    """
    try:
        from .. import solver  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        return DEFAULT_LEVEL
    return "expert" if solver.has_core() else DEFAULT_LEVEL


def make_bot(level: str = DEFAULT_LEVEL) -> Bot:
    """A new bot of a level in :data:`LEVELS`."""
    try:
        return LEVELS[level]()
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}; known: {', '.join(LEVELS)}") from None


__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "BeginnerBot",
    "Bot",
    "ClubBot",
    "ExpertBot",
    "InconsistentView",
    "OracleBot",
    "count_deals",
    "make_bot",
    "play_level",
    "sample_deals",
]
