"""What the public API's argument errors share: how they name the value they got."""

from __future__ import annotations


def kind_of(value: object) -> str:
    """The type of ``value`` for a message: ``"a Record"``, ``"an int"``, ``"None"``."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
