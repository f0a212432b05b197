"""The WebSocket protocol: JSON in and out, cards as docs/records.md codes, seats as letters.

Client to server (one JSON object per message):

- ``{"type": "join", "game": ID, "seat": "S", "token": T, "since": V}``: play ``seat``
  of game ``ID`` with the seat's secret token; the server sends every event after version
  ``V`` (0 for all) and then a ``state`` message.
- ``{"type": "play", "card": "QH"}``: play a card.
- ``{"type": "action", "action": {...}}``: a non-card action (Swedish bottom card, laws
  claims), written exactly as the server listed it in the view's ``legal`` or, in laws
  mode, ``irregular`` (also when it is not the seat's turn).
- ``{"type": "hint"}``: ask what a strong player would do now (the seat's turn only:
  a card, or the Swedish bottom card); answered by a ``hint`` message. The game and its
  record do not change.
- ``{"type": "ping"}``.

Server to client:

- ``{"type": "event", "v": V, "event": {...} | null, "view": {...}?}``: the table's event
  number ``V``; ``event`` is null when this seat may not see it (so versions have no
  gaps). Live events carry the seat's new ``view``.
- ``{"type": "state", "v": V, "view": {...}}``: the seat's whole view at version ``V``.
- ``{"type": "ack", "v": V}``: the action was stored and applied; ``V`` is the version
  after it.
- ``{"type": "hint", "v": V, "action": {...}}``: the ``expert`` level's choice (``club``
  without the solver's compiled core) from this seat's view alone at version ``V``, in
  the form the client sends it: ``{"type": "play", "card": "QH"}`` or ``{"type":
  "action", "action": {...}}``. The same position always gives the same hint.
- ``{"type": "error", "code": C, "message": M}``: nothing changed. Codes: ``malformed``,
  ``unknown_type``, ``unknown_game``, ``not_joined``, ``bad_seat``, ``forbidden``,
  ``not_your_turn``,
  ``illegal``, ``game_over``, ``storage`` (the server could not store the action),
  ``hint_failed`` (the bot could not work out a hint).
- ``{"type": "pong"}``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ..cards import SUITS, CardError, card_name, parse_card, sorted_for_display
from ..seats import SEATS, SIDES, Seat, SeatError, parse_seat, seat_name
from ..state import Action, Contract, HandResult, SpecialAction, View
from ..variants import find_variant

# Keys of a variant's public info (and of special actions) whose values are cards or
# collections of cards, so that they leave the server as docs/records.md codes.
CARD_KEYS = frozenset(
    {"card", "cards", "turned", "bottom", "revealed", "reveals", "exposed", "called"}
)
SEAT_KEYS = frozenset({"seat", "declarer", "offender", "claimant", "caller", "leader", "winner"})
# the types of the client's messages
MESSAGE_TYPES = ("join", "play", "action", "hint", "ping")


class ProtocolError(ValueError):
    """A client message the server refuses; ``code`` is the error code sent back."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def error(code: str, message: str) -> dict[str, Any]:
    """An error message for the client."""
    return {"type": "error", "code": code, "message": message}


def sides(pair: tuple[int, int]) -> dict[str, int]:
    """``(ns, ew)`` as ``{"NS": ns, "EW": ew}``."""
    return {SIDES[0]: pair[0], SIDES[1]: pair[1]}


def _key(key: Any) -> str:
    """A mapping key as JSON: seats (ints 0..3) as letters."""
    return seat_name(key) if isinstance(key, int) and 0 <= key < 4 else str(key)


def _cardish(value: Any) -> Any:
    """Cards (ints) inside a value, as codes; seat-keyed mappings get seat letters."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return card_name(value) if 0 <= value < 52 else value
    if isinstance(value, Mapping):
        return {_key(k): _cardish(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_cardish(v) for v in value]
    return value


def to_json_value(value: Any, key: str = "") -> Any:
    """A variant's value (public info, action field) as JSON, by the meaning of its key."""
    if key in CARD_KEYS:
        return _cardish(value)
    if key in SEAT_KEYS and isinstance(value, int) and not isinstance(value, bool):
        return seat_name(value) if 0 <= value < 4 else None
    if isinstance(value, Mapping):
        return {
            (seat_name(k) if isinstance(k, int) and 0 <= k < 4 else str(k)): to_json_value(
                v, str(k)
            )
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [to_json_value(v, key) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_json_value(getattr(value, f.name), f.name) for f in dataclasses.fields(value)
        }
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def contract_json(contract: Contract | None) -> dict[str, Any] | None:
    """A contract as ``{"code": "NT", "trump": null, "misere": false, ...}``."""
    if contract is None:
        return None
    return {
        "code": contract.code,
        "trump": None if contract.trump is None else SUITS[contract.trump],
        "misere": contract.misere,
        "declarer": None if contract.declarer is None else seat_name(contract.declarer),
        "aces_low": contract.aces_low,
    }


def result_json(result: HandResult) -> dict[str, Any]:
    """One finished hand for the score sheet."""
    return {
        "number": result.number,
        "dealer": seat_name(result.dealer),
        "leader": seat_name(result.leader),
        "contract": contract_json(result.contract),
        "tricks": sides(result.tricks),
        "points": sides(result.points),
        "score": sides(result.score),
        "extra": to_json_value(dict(result.extra)),
    }


def action_to_json(action: Action) -> dict[str, Any]:
    """An action as the client sees it in ``legal`` and sends it back."""
    if isinstance(action, int):
        return {"type": "play", "card": card_name(action)}
    if isinstance(action, SpecialAction):
        out: dict[str, Any] = {"kind": type(action).__name__}
        for f in dataclasses.fields(action):
            out[f.name] = to_json_value(getattr(action, f.name), f.name)
        return {"type": "action", "action": out}
    raise TypeError(f"no JSON form for {action!r}")


def view_json(view: View, players: Mapping[Seat, str]) -> dict[str, Any]:
    """Everything one seat may know, for the page: its cards, the table, the scores."""
    plays = list(view.plays())
    trick_start = len(plays) - len(view.trick)
    trick = [{"seat": seat_name(s), "card": card_name(c)} for s, c in plays[trick_start:]]
    last_trick = None
    if view.trick_winners:
        done = len(view.trick_winners)
        cards = plays[4 * (done - 1) : 4 * done]
        last_trick = {
            "number": done,
            "cards": [{"seat": seat_name(s), "card": card_name(c)} for s, c in cards],
            "winner": seat_name(view.trick_winners[-1]),
        }
    return {
        "seat": seat_name(view.seat),
        "variant": view.variant,
        "options": dict(view.options),
        "phase": view.phase,
        "hand_number": view.hand_number,
        # "3/12" above the table where the variant fixes the number of hands
        "hands_total": find_variant(view.variant).hands_per_game,
        "dealer": seat_name(view.dealer),
        "contract": contract_json(view.contract),
        "hand": [card_name(c) for c in sorted_for_display(view.hand)],
        "hand_sizes": {SEATS[s]: n for s, n in enumerate(view.hand_sizes)},
        "first_leader": seat_name(view.first_leader),
        "leader": seat_name(view.leader),
        "to_play": seat_name(view.to_play) if view.to_play >= 0 else None,
        "trick": trick,
        "last_trick": last_trick,
        "trick_number": len(view.trick_winners) + 1,
        "played_count": len(view.played),
        "tricks": sides(view.tricks),
        "score": sides(view.score),
        "results": [result_json(r) for r in view.results],
        "winner": view.winner,
        "legal": [action_to_json(a) for a in view.legal],
        "public": to_json_value(dict(view.public)),
        "players": {seat_name(s): p for s, p in sorted(players.items())},
    }


# -- reading client messages ------------------------------------------------------------


def parse_message(text: str | bytes) -> dict[str, Any]:
    """Decode one client message; raise :class:`ProtocolError` naming what is wrong."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ProtocolError("malformed", f"message is not JSON: {e}") from None
    except RecursionError:
        raise ProtocolError("malformed", "message is nested too deeply to read") from None
    if not isinstance(data, dict):
        raise ProtocolError("malformed", "message must be a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("malformed", "message has no 'type' string")
    if kind not in MESSAGE_TYPES:
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {kind!r}; known: {', '.join(MESSAGE_TYPES)}",
        )
    return data


_T = TypeVar("_T")


def _read_code(
    value: Any, parse: Callable[[str], _T], fails: type[ValueError], code: str, wanted: str
) -> _T:
    """A message's code ``value`` read by ``parse``; its ``fails`` and non-strings become a
    :class:`ProtocolError` with ``code`` (``wanted``: what the value must be)."""
    if not isinstance(value, str):
        raise ProtocolError(code, f"{wanted}, not {value!r}")
    try:
        return parse(value)
    except fails as e:
        raise ProtocolError(code, str(e)) from None


def read_seat(value: Any) -> Seat:
    """A seat letter from a message."""
    return _read_code(value, parse_seat, SeatError, "bad_seat", "'seat' must be one of N, E, S, W")


def read_card(value: Any) -> int:
    """A card code from a message."""
    return _read_code(
        value, parse_card, CardError, "malformed", "'card' must be a card code such as 'QH'"
    )


def read_since(value: Any) -> int:
    """The last event version a client has seen (0 if none)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ProtocolError("malformed", f"'since' must be a version number >= 0, not {value!r}")
    return value


__all__ = [
    "MESSAGE_TYPES",
    "ProtocolError",
    "action_to_json",
    "contract_json",
    "error",
    "parse_message",
    "read_card",
    "read_seat",
    "read_since",
    "result_json",
    "to_json_value",
    "view_json",
]
