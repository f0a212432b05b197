"""The variant registry: one place the CLI, the server, the bots and the tests enumerate.

>>> get_variant("felag").name
'felagsvist'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..state import State, register_variants
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


# options that only rule on irregularities, so only matter with play_mode "laws" (§6)
LAWS_OPTIONS = frozenset(
    {"revoke_correction", "auto_claim", "both_sides_revoke", "revoke_method", "revoker_capped"}
)


def describe(cls: type[Variant]) -> dict[str, Any]:
    """A variant's name, title, hands per game and options, as the new-game dialog and
    ``whistkit variants`` show them.

    A choice that the variant refuses (a mode not implemented yet) is left out.
    """
    opts = cls.options_class
    options = []
    for f in dataclasses.fields(opts):
        default = f.default
        entry: dict[str, Any] = {"key": f.name, "default": default}
        if isinstance(default, bool):
            entry["kind"] = "bool"
            values: tuple[Any, ...] = (False, True)
        elif isinstance(default, int):
            entry["kind"] = "int"
            values = (default,)
        else:
            entry["kind"] = "choice"
            values = tuple(opts.CHOICES.get(f.name, (default,)))
        usable = []
        for value in values:
            try:
                opts.from_dict({f.name: value})
            except OptionError:
                continue
            usable.append(value)
        if entry["kind"] == "choice":
            entry["choices"] = usable
        if f.name in LAWS_OPTIONS:
            entry["laws"] = True  # matters only in laws mode: the dialog shows it there
        if not usable:
            continue  # set by the server only (an online evening's hand)
        if len(usable) < 2 and entry["kind"] != "int":
            continue  # nothing to choose
        options.append(entry)
    return {
        "name": cls.name,
        "title": cls.title,
        "options": options,
        "hands": cls.hands_per_game,
    }


def get_variant(name: str, options: Mapping[str, Any] | None = None) -> Variant:
    """A variant instance with options (a mapping of docs/rules.md §8 keys)."""
    return find_variant(name).select(name, options)(options)


def variant_of(state: State) -> Variant:
    """The variant a game is played in (``state.variant``), with every hook a variant has
    beyond the ones the state machine calls (descriptions, summaries)."""
    variant = state.variant
    if not isinstance(variant, Variant):
        raise TypeError(f"a game of {variant!r}, which is no whistkit Variant")
    return variant


register_variants(get_variant)  # whistkit.state.new_game takes variant names


__all__ = [
    "LAWS_OPTIONS",
    "VARIANTS",
    "HandScore",
    "OptionError",
    "Options",
    "UnknownVariant",
    "Variant",
    "describe",
    "find_variant",
    "get_variant",
    "variant_of",
]
