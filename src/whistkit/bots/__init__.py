"""Bots by level. ``make_bot(level)`` builds one; every bot only ever gets a view."""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot
from .heuristic import BeginnerBot

LEVELS: dict[str, Callable[[], Bot]] = {"beginner": BeginnerBot}
DEFAULT_LEVEL = "beginner"


def make_bot(level: str = DEFAULT_LEVEL) -> Bot:
    try:
        return LEVELS[level]()
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}; known: {', '.join(LEVELS)}") from None


__all__ = ["DEFAULT_LEVEL", "LEVELS", "Bot", "make_bot"]
