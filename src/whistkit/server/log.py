"""Actions as the store's log keeps them: compact JSON, read back into the same actions.

A card is its number (``12``); a deal is ``{"deal": [n, e, s, w], "turned": c}`` with the
four hands as 52-bit masks; a special action (a Swedish bottom card, a laws-mode claim)
is ``{"kind": "Bottom", "seat": 2, "card": 12}``: its class name and its fields.

>>> from whistkit.state import Deal
>>> loads_action(dumps_action(Deal((1, 2, 4, 8), None))) == Deal((1, 2, 4, 8), None)
True
>>> dumps_action(12)
'12'
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from ..state import Action, Deal, SpecialAction


def _special_classes() -> dict[str, type[SpecialAction]]:
    # the variants' action classes are SpecialAction's subclasses, once imported
    from .. import variants  # noqa: F401  (imports every variant)

    out: dict[str, type[SpecialAction]] = {}
    todo = list(SpecialAction.__subclasses__())
    while todo:
        cls = todo.pop()
        out[cls.__name__] = cls
        todo += cls.__subclasses__()
    return out


_CLASSES: dict[str, type[SpecialAction]] | None = None


def dumps_action(action: Action) -> str:
    """An action as the log's JSON text."""
    if type(action) is int:  # a card: nearly every action
        return str(action)
    if isinstance(action, Deal):
        return json.dumps({"deal": list(action.hands), "turned": action.turned})
    if isinstance(action, SpecialAction):
        fields = {f.name: getattr(action, f.name) for f in dataclasses.fields(action)}
        return json.dumps({"kind": type(action).__name__, **fields})
    return str(int(action))


def loads_action(text: str) -> Action:
    """The action of a log entry; ``ValueError`` if it is not one."""
    global _CLASSES
    data: Any = json.loads(text)
    if isinstance(data, int) and not isinstance(data, bool) and 0 <= data < 52:
        return data
    if isinstance(data, dict) and "deal" in data:
        hands = data["deal"]
        if not (isinstance(hands, list) and len(hands) == 4):
            raise ValueError(f"a logged deal needs four hands: {text[:80]!r}")
        return Deal((hands[0], hands[1], hands[2], hands[3]), data.get("turned"))
    if isinstance(data, dict) and isinstance(data.get("kind"), str):
        if _CLASSES is None:
            _CLASSES = _special_classes()
        cls = _CLASSES.get(data["kind"])
        if cls is None:
            raise ValueError(f"unknown logged action kind {data['kind']!r}")
        fields = {k: v for k, v in data.items() if k != "kind"}
        return cls(**fields)
    raise ValueError(f"not a logged action: {text[:80]!r}")


__all__ = ["dumps_action", "loads_action"]
