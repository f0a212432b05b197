"""What the public API's messages share: how they name the value they got, whole
numbers (``True`` is an int to Python, never a count or a seat), counted nouns."""

from __future__ import annotations

from typing import TypeGuard


def kind_of(value: object) -> str:
    """The type of ``value`` for a message: ``"a Record"``, ``"an int"``, ``"None"``."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def is_whole(value: object) -> TypeGuard[int]:
    """Is ``value`` a plain int (not a bool)?"""
    return isinstance(value, int) and not isinstance(value, bool)


def counted(n: int, noun: str) -> str:
    """``"1 card"``, ``"3 cards"``: ``n`` and the noun, plural unless ``n`` is 1."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
