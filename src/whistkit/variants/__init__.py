"""The variant registry: one place the CLI, the server, the bots and the tests enumerate.

>>> get_variant("felag").name
'felagsvist'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import HandScore, OptionError, Options, Variant
from .classic import American, English
from .felagsvist import Felagsvist
from .swedish import Swedish

VARIANTS: dict[str, type[Variant]] = {
    cls.name: cls for cls in (Felagsvist, Swedish, English, American)
}


class UnknownVariant(ValueError):
    pass


def find_variant(name: str) -> type[Variant]:
    """The variant class for a name or alias (case-insensitive)."""
    key = name.strip().lower()
    for cls in VARIANTS.values():
        if key == cls.name or key in cls.aliases:
            return cls
    raise UnknownVariant(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}")


def get_variant(name: str, options: Mapping[str, Any] | None = None) -> Variant:
    """A variant instance with options (a mapping of RULES.md §8 keys)."""
    return find_variant(name).select(name, options)(options)


__all__ = [
    "VARIANTS",
    "HandScore",
    "OptionError",
    "Options",
    "UnknownVariant",
    "Variant",
    "find_variant",
    "get_variant",
]
