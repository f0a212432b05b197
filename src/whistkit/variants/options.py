"""What every variant's options share (docs/rules.md §1.6, §6), and their errors.

Its own module so that laws mode (:mod:`whistkit.variants.laws`) reads the options of
the variant it rules for without importing the variants' base class, which uses it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar


class OptionError(ValueError):
    """An unknown option or a value the option does not take."""


@dataclass(frozen=True)
class Options:
    """Options every variant has (docs/rules.md §1.6, §6)."""

    # §1.6: "strict" accepts only legal cards; "laws" lets a human play irregularly and
    # rules on it by §6 (bots always play strict)
    play_mode: str = "strict"
    # §6.2 (laws mode): a revoke is corrected "free" (S2), or under the "laws" (HOY 12,
    # PCG 69): the opponents may expose the withdrawn card or force the highest or lowest
    revoke_correction: str = "free"
    # §6.3 (laws mode): the engine claims every established revoke at the end of the hand;
    # False: the non-offenders must claim (bots always do)
    auto_claim: bool = True
    # §6.4 (laws mode): both sides revoked: "redeal" (the deal is void, same dealer) or
    # "cancel_equal" (PCG 71: equal numbers cancel, the surplus is penalised) [D13]
    both_sides_revoke: str = "redeal"

    # the values each option takes, for options whose values are a closed set
    CHOICES: ClassVar[Mapping[str, tuple[Any, ...]]] = {
        "play_mode": ("strict", "laws"),
        "revoke_correction": ("free", "laws"),
        "both_sides_revoke": ("redeal", "cancel_equal"),
    }

    @classmethod
    def from_dict(cls, values: Mapping[str, Any] | None) -> Options:
        """Build options from a mapping, refusing unknown keys and wrong values by name."""
        values = dict(values or {})
        known = {f.name: f for f in dataclasses.fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in values.items():
            f = known.get(key)
            if f is None:
                raise OptionError(
                    f"unknown option {key!r}; this variant takes: {', '.join(sorted(known))}"
                )
            default = f.default
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise OptionError(
                        f"option {key!r} must be true or false, not {json.dumps(value)}"
                    )
            elif isinstance(default, int):
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise OptionError(
                        f"option {key!r} must be a positive integer, not {json.dumps(value)}"
                    )
            elif isinstance(default, str):
                choices = cls.CHOICES.get(key, ())
                if value not in choices:
                    raise OptionError(
                        f"option {key!r} must be one of {', '.join(map(str, choices))},"
                        f" not {json.dumps(value)}"
                    )
            kwargs[key] = value
        opts = cls(**kwargs)
        opts.validate()
        return opts

    def validate(self) -> None:
        """Cross-field checks; raise :class:`OptionError`."""

    def changed(self) -> dict[str, Any]:
        """The options that differ from their defaults (what a record stores): a new dict
        each time (every view carries one), copied from one worked out on first use."""
        cached: dict[str, Any] | None = self.__dict__.get("_changed")
        if cached is None:
            default = type(self)()
            cached = {
                f.name: getattr(self, f.name)
                for f in dataclasses.fields(self)
                if getattr(self, f.name) != getattr(default, f.name)
            }
            # options are frozen: the answer never changes (kept outside the fields, so
            # equality, hashing and repr are as before)
            self.__dict__["_changed"] = cached
        return dict(cached)


__all__ = ["OptionError", "Options"]
