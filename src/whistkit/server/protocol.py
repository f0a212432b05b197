"""The WebSocket protocol: JSON in and out, cards as docs/records.md codes, seats as letters.

Shared tables over HTTP (the rest of the HTTP API is in :mod:`whistkit.server.app`):

- ``POST /api/tables`` with JSON ``{"variant", "options", "level", "seats": {"N":
  "person" | LEVEL, "E": ..., "W": ...}, "timeout": 0 | 30 | 60 | 120, "watch_hands":
  bool, "name": the host's name}`` (``level``: the bot level of the table's bots and
  stand-ins; a missing seat is a bot; ``seed`` is refused: a shared table's deals come
  from the server's secret) answers ``{"game": ID, "seat": "S", "token": T, "name",
  "invites": {"N": URL, ...} (person seats only), "tokens": {"N": T, ...}, "watch": URL,
  "watch_token": T}``. An invite URL is ``<base>/?join=ID&seat=N#t=T``, the watch URL
  ``<base>/?watch=ID#t=T`` (the token in the fragment, which browsers never send: no
  proxy logs it; the page also reads ``&t=T`` of older links), where base is
  ``--public-url``, else the LAN address when the server listens on all interfaces, else
  the address the request came to. Tokens are 128-bit secrets
  (``secrets.token_urlsafe(16)``), compared in constant time.
- ``GET /api/tables/ID`` with the header ``X-Table-Token: T`` (a seat's or the watch
  token; ``?t=T`` is still read, for older pages): the table's summary for the
  join form and the games list: ``{"game", "variant", "options", "level", "seats"
  (as in the ``seats`` message), "started", "ended", "finished", "winner", "score",
  "hand_number", "timeout", "watch_hands", "you": "N" | ... | "watch"}``; 404 for an
  unknown game or a wrong token (the same answer: a token is not guessable).
- ``POST /api/qr`` with JSON ``{"u": URL}`` (``GET /api/qr?u=URL`` for older pages: a
  query string is logged): an SVG QR code (``image/svg+xml``) of ``URL``, which must be
  a URL of this server (one of the bases above) of at most 512 characters (400
  otherwise).

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

Shared tables ("Play with friends", docs/friends.md) add these client messages (a solo
game answers them ``not_shared``):

- ``join`` also takes ``"name"``: the person's name at a shared table (1 to 24
  characters once trimmed, no control characters; ignored by a solo game). Joining a
  seat of a shared table that another socket holds takes the seat over: the other socket
  gets ``{"type": "error", "code": "replaced", ...}`` and is closed (code 4000: a client
  must not reconnect by itself then, or two devices would take the seat in turns); the
  game goes on at the same card (events after ``since``, then ``state``, then ``seats``).
- ``{"type": "watch", "game": ID, "token": T, "since": V}``: watch with the table's
  watch token: ``event`` and ``state`` messages as for a seat, but a view with no hidden
  card (``"seat": null``, ``"hand": []``, ``"legal": []``, ``"irregular": []``, the
  public information every seat shares) and events with their public part only; then
  ``seats`` and the chat so far. With the table's ``watch_hands``, a ``hands`` message
  follows each ``hand_end``.
- ``{"type": "chat", "text": "..."}`` or ``{"type": "chat", "phrase": KEY}``: a chat line
  from a seated person (not from a watcher: ``chat_forbidden``). Text is plain text,
  1 to 200 characters (code points) once trimmed, no control characters; KEY is one of
  :data:`PHRASES`. At most 10 lines per 10 seconds per seat. Refusals: ``chat_too_long``,
  ``chat_empty``, ``chat_bad_text``, ``chat_rate`` (its message says how long to wait),
  ``chat_forbidden``; the schema's ``malformed`` for a wrong shape (both text and phrase,
  neither, a non-string, an unknown phrase). A line sent is answered with ``{"type":
  "ack", "v": V}`` (V: the table's version, unchanged) after its ``chat`` broadcast.
- ``{"type": "host", "op": OP, "seat": S?}``: the host's (seat S of a shared table)
  table operations; anyone else gets ``forbidden``. ``start``: play now, stand-ins
  holding the seats of the persons not there yet; ``bot`` (with ``seat``): the seat is a
  bot of the table's level for good (its person, if connected, gets ``seat_closed`` and
  is closed); ``reopen`` (with ``seat``): the seat is a person's again with a new token
  (the old link stops working, its socket gets ``seat_closed``), answered by
  ``{"type": "invite", "seat": S, "token": T}`` to the host (the page makes the link
  from the token, as in the invite URL above); ``end``: the
  table ends (no more actions: ``table_ended``), everyone gets ``seats`` with
  ``"ended": true``. Each operation done is answered with ``{"type": "ack", "v": V}``
  (after the ``seats`` broadcast and the ``invite``).

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
  Shared tables add: ``not_shared``, ``not_started`` (the table waits for its people or
  the host's ``start``), ``table_ended``, ``replaced``, ``seat_closed``, ``bad_name``,
  ``chat_*`` (above), ``stale`` (the action was chosen at an older version, e.g. before
  a stand-in played for the seat).
- ``{"type": "pong"}``.

Shared tables also send:

- ``{"type": "seats", "seats": {"N": SEAT, "E": ..., "S": ..., "W": ...}, "started":
  bool, "ended": bool, "timeout": seconds (0 = off), "watch_hands": bool, "level": L,
  "watchers": n}`` after ``state`` on joining and to everyone at the table whenever any of
  it changes; SEAT is ``{"kind": "person" | "bot", "name": str | null, "connected": bool,
  "standin": bool, "level": L | null}``. ``standin`` is true while a bot of the table's
  level plays a person's seat: the person is away (disconnected, and the table's time or
  the grace of 30 s passed on their turn, or the table was started before they came),
  or did not act within the table's ``timeout`` (then for that one action). Bot seats
  have ``"connected": false`` and their level. A person away on their turn, before the
  stand-in plays, also has ``"standin_in": seconds`` (whole seconds left, rounded up,
  when the message was made): the page counts down from it.
- ``{"type": "chat", "seat": S, "name": str, "text": str} | {..., "phrase": KEY}`` with
  ``"at"`` (server time, seconds since the epoch): to every seat and watcher; on joining,
  the last lines (at most 30) come after ``seats``. Render text as text (textContent).
- ``{"type": "hands", "hand_number": n, "hands": {"N": [cards], ...}}``: to watchers of a
  table with ``watch_hands``, after a hand ends: the hands as they were dealt.
- ``{"type": "evening_next", "hand": n, "me": {...}}``: to each person at a table of an
  online evening (docs/online.md) once the evening's next hand is seated (``"hand":
  null`` once the evening is over): ``me`` is that person's link's state, as ``GET
  /api/online-evenings/ID/me`` gives it (their next table, seat and the seat's token,
  the last hand's outcome, their total), sent on their own seat's sockets only; the
  page goes there without asking. Watchers get ``{"type": "evening_next", "hand": n}``
  alone.

A person's seat at a shared table is a ``human`` seat of the game; its ``players`` in
views carry the persons' names. A stand-in's action is an ordinary event (no mark: the
``seats`` message says who played it).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import orjson

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
MESSAGE_TYPES = ("join", "play", "action", "hint", "ping", "watch", "chat", "host")
# the one-click chat phrases (their words are the page's, in each language)
PHRASES = ("hello", "well_played", "thanks_partner", "good_game", "sorry")
# the host's table operations
HOST_OPS = ("start", "bot", "reopen", "end")
# a person's name at a shared table, and a chat line, at most (code points, once trimmed)
NAME_CHARS = 24
CHAT_CHARS = 200
# combining marks one character of a name or a chat line may carry (Vietnamese stacks
# two, Tibetan and some Indic clusters a few more)
MARKS_PER_CHAR = 4


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
    extra = dict(result.extra)
    revealed = extra.get("revealed")
    if isinstance(revealed, tuple) and all(type(s) is int and 0 <= s < 4 for s in revealed):
        # Swedish: the seats whose bottom cards were turned up (not cards, as in the view's
        # public "revealed" map)
        extra["revealed"] = [seat_name(s) for s in revealed]
    return {
        "number": result.number,
        "dealer": seat_name(result.dealer),
        "leader": seat_name(result.leader),
        "contract": contract_json(result.contract),
        "tricks": sides(result.tricks),
        "points": sides(result.points),
        "score": sides(result.score),
        "extra": to_json_value(extra),
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


@functools.lru_cache(maxsize=4096)
def _hand_names(hand: int) -> tuple[str, ...]:
    """A hand's cards as the page shows them (S H D C, high to low): a seat's hand is
    the same for three plays in four, so it is sorted once."""
    return tuple(card_name(c) for c in sorted_for_display(hand))


def _seat_of_play(view: View, i: int, leaders: Any) -> Seat:
    """The seat that played the hand's card number ``i`` (from 0): what
    :meth:`whistkit.state.View.plays` yields for it, without walking the whole hand."""
    t, pos = divmod(i, 4)
    if leaders is not None:  # laws mode: a trick led out of turn has a leader of its own
        leader = SEATS.index(leaders[t])
    elif t > 0:
        leader = view.trick_winners[t - 1]
    else:
        leader = view.first_leader
    return (leader + pos) & 3


def _plays_json(view: View, start: int, stop: int, leaders: Any) -> list[dict[str, str]]:
    """Cards ``start`` to ``stop`` of the hand, within one trick (``start`` is a lead)."""
    if start >= stop:
        return []
    played = view.played
    first = _seat_of_play(view, start, leaders)  # one trick: the seats follow the leader's
    return [
        {"seat": SEATS[(first + i - start) & 3], "card": card_name(played[i])}
        for i in range(start, stop)
    ]


def view_json(
    view: View,
    players: Mapping[Seat, str],
    *,
    results: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Everything one seat may know, for the page: its cards, the table, the scores.

    ``results`` is the JSON of ``view.results`` when the caller keeps it (a finished
    hand's result never changes); by default it is made here."""
    leaders = view.public.get("trick leaders")
    played = len(view.played)
    trick = _plays_json(view, played - len(view.trick), played, leaders)
    last_trick = None
    if view.trick_winners:
        done = len(view.trick_winners)
        last_trick = {
            "number": done,
            "cards": _plays_json(view, 4 * (done - 1), min(4 * done, played), leaders),
            "winner": seat_name(view.trick_winners[-1]),
        }
    return {
        "seat": seat_name(view.seat),
        "variant": view.variant,
        "options": dict(view.options),
        "phase": view.phase,
        "hand_number": view.hand_number,
        # "3/12" above the table where the variant fixes the number of hands (not for
        # one hand of an online evening: the evening's line says which of how many)
        "hands_total": None
        if view.options.get("evening_hand")
        else find_variant(view.variant).hands_per_game,
        "dealer": seat_name(view.dealer),
        "contract": contract_json(view.contract),
        "hand": list(_hand_names(view.hand)),
        "hand_sizes": {SEATS[s]: n for s, n in enumerate(view.hand_sizes)},
        "first_leader": seat_name(view.first_leader),
        "leader": seat_name(view.leader),
        "to_play": seat_name(view.to_play) if view.to_play >= 0 else None,
        "trick": trick,
        "last_trick": last_trick,
        "trick_number": len(view.trick_winners) + 1,
        "played_count": played,
        "tricks": sides(view.tricks),
        "score": sides(view.score),
        "results": [result_json(r) for r in view.results] if results is None else results,
        "winner": view.winner,
        "legal": [action_to_json(a) for a in view.legal],
        "public": to_json_value(dict(view.public)),
        "players": {seat_name(s): p for s, p in sorted(players.items())},
    }


def dumps_message(message: Mapping[str, Any]) -> str:
    """A message to a client as JSON text, with orjson (about ten times faster than the
    standard library on a view); what orjson refuses (an integer beyond 64 bits, a lone
    surrogate) goes through :func:`json.dumps` as before."""
    try:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # orjson.JSONEncodeError is one
        return json.dumps(message, ensure_ascii=False)


# -- reading client messages ------------------------------------------------------------
#
# Every client message is checked against a strict schema before anything acts on it:
# its size, its fields (no unknown ones), their types, lengths, characters and number of
# digits. A refusal is a ``malformed`` error whose reason quotes at most a few dozen
# characters of what was sent (``quote``), so a large or odd input is never echoed back.

# the longest message the protocol reads (the WebSocket frame limit may be lower)
MAX_MESSAGE_CHARS = 64 * 1024
# digits a number in a message may have (a version or a seed has at most 19; a few more
# let the field's own check name the field): far below the 4,300 digits where Python
# refuses to convert an int to text, and cheap to convert
MAX_NUMBER_DIGITS = 40
# what an error message quotes of a value at most
QUOTE_CHARS = 40
# the game ids and tokens the server makes are short ASCII words
GAME_ID_CHARS = 64
TOKEN_CHARS = 128
# an action object: at most this many fields, each a short name and a short value
ACTION_FIELDS = 8
ACTION_TEXT_CHARS = 32
# versions and other counts are below this
MAX_COUNT = 2**53
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_FIELD_NAME = frozenset("abcdefghijklmnopqrstuvwxyz_")

# the fields each message type may carry besides "type" (all optional at this level;
# their readers say what a missing one means)
MESSAGE_FIELDS: dict[str, tuple[str, ...]] = {
    "join": ("game", "seat", "token", "since", "name"),
    "play": ("card", "v"),
    "action": ("action", "v"),
    "hint": (),
    "ping": (),
    "watch": ("game", "token", "since"),
    "chat": ("text", "phrase"),
    "host": ("op", "seat"),
}


def quote(value: Any, limit: int = QUOTE_CHARS) -> str:
    """A short, printable, ASCII description of a client's value for an error message:
    ``'QH'``, ``12``, ``a list of 3 items``; long strings are cut (with their length) and
    huge numbers described by their number of digits, so nothing large is echoed back."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        if value.bit_length() > 64:
            return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        text, shown = "", 0
        for char in value[:limit]:  # escaped (surrogates, non-ASCII), at most ``limit``
            escaped = ascii(char)[1:-1]
            if len(text) + len(escaped) > limit:
                break
            text += escaped
            shown += 1
        text = "'" + text.replace("'", "\\'") + "'"
        return text if shown == len(value) else f"{text}... ({len(value)} characters)"
    if isinstance(value, dict | list) and len(value) <= limit:
        try:
            text = json.dumps(value)
        except (ValueError, RecursionError):  # a huge number inside, a deep nesting
            text = ""
        if text and len(text) <= limit:
            return text
    if isinstance(value, dict):
        return f"an object with {len(value)} field{'' if len(value) == 1 else 's'}"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'' if len(value) == 1 else 's'}"
    return f"a {type(value).__name__}"


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise ProtocolError(
            "malformed", f"a number with {digits} digits; numbers here have at most 19 digits"
        )
    return int(text)


def _parse_constant(name: str) -> Any:
    raise ProtocolError("malformed", f"{name} is not a number JSON allows")


def read_json(text: str | bytes, what: str = "message", limit: int = MAX_MESSAGE_CHARS) -> Any:
    """``text`` decoded as JSON, with at most ``limit`` characters and numbers of at most
    :data:`MAX_NUMBER_DIGITS` digits; :class:`ProtocolError` (``malformed``) otherwise."""
    if len(text) > limit:
        raise ProtocolError("malformed", f"{what} is {len(text)} bytes long; at most {limit}")
    try:
        return json.loads(text, parse_int=_parse_int, parse_constant=_parse_constant)
    except ProtocolError:
        raise
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        reason = e.msg if isinstance(e, json.JSONDecodeError) else "it is not UTF-8"
        raise ProtocolError("malformed", f"{what} is not JSON: {reason}") from None
    except RecursionError:
        raise ProtocolError("malformed", f"{what} is nested too deeply to read") from None
    except ValueError as e:  # any other conversion the decoder refuses
        raise ProtocolError("malformed", f"{what} is not JSON: {quote(str(e))}") from None


def parse_message(text: str | bytes, limit: int = MAX_MESSAGE_CHARS) -> dict[str, Any]:
    """Decode one client message and check it against :data:`MESSAGE_FIELDS` and the
    field readers; raise :class:`ProtocolError` naming what is wrong."""
    data = read_json(text, "message", limit)
    if not isinstance(data, dict):
        raise ProtocolError("malformed", f"message must be a JSON object, not {quote(data)}")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("malformed", f"message has no 'type' string (got {quote(kind)})")
    if kind not in MESSAGE_FIELDS:
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {quote(kind)}; known: {', '.join(MESSAGE_TYPES)}",
        )
    allowed = MESSAGE_FIELDS[kind]
    unknown = [k for k in data if k != "type" and k not in allowed]
    if unknown:
        known = ", ".join(allowed) if allowed else "none"
        raise ProtocolError(
            "malformed",
            f"unknown field {quote(unknown[0])} in a {kind} message; its fields: {known}",
        )
    if kind == "join":
        read_game_id(data.get("game"))
        if "seat" in data:
            read_seat(data["seat"])
        read_token(data.get("token"))
        read_since(data.get("since"))
        if data.get("name") is not None:
            read_name(data["name"])
    elif kind == "watch":
        read_game_id(data.get("game"))
        read_token(data.get("token"))
        read_since(data.get("since"))
    elif kind == "chat":
        read_chat(data)
    elif kind == "host":
        read_host(data)
    elif kind == "play":
        read_card(data.get("card"))
    elif kind == "action":
        read_action(data.get("action"))
    if "v" in data and data["v"] is not None:
        _count(data["v"], "v", "a version number")
    return data


_T = TypeVar("_T")


def _read_code(
    value: Any, parse: Callable[[str], _T], fails: type[ValueError], code: str, wanted: str
) -> _T:
    """A message's code ``value`` read by ``parse``; its ``fails`` and non-strings become a
    :class:`ProtocolError` with ``code`` (``wanted``: what the value must be)."""
    if not isinstance(value, str) or len(value) > 8 or not value.isascii():
        raise ProtocolError(code, f"{wanted}, not {quote(value)}")
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


def _count(value: Any, name: str, meaning: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_COUNT:
        raise ProtocolError("malformed", f"{name!r} must be {meaning} >= 0, not {quote(value)}")
    return value


def read_since(value: Any) -> int:
    """The last event version a client has seen (0 if none)."""
    return 0 if value is None else _count(value, "since", "a version number")


def read_game_id(value: Any) -> str:
    """A game id: letters, digits, ``-`` and ``_``, at most :data:`GAME_ID_CHARS`."""
    if (
        not isinstance(value, str)
        or not 0 < len(value) <= GAME_ID_CHARS
        or not _WORD.issuperset(value)
    ):
        raise ProtocolError(
            "malformed",
            f"'game' must be a game id (at most {GAME_ID_CHARS} letters, digits, - or _),"
            f" not {quote(value)}",
        )
    return value


def read_token(value: Any) -> str | None:
    """A seat's token as sent (None if missing): a short ASCII word, so that comparing
    it in constant time is defined; whether it opens the seat is the table's to say."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > TOKEN_CHARS or not _WORD.issuperset(value):
        raise ProtocolError(
            "malformed",
            f"'token' must be the seat's token (at most {TOKEN_CHARS} letters, digits,"
            f" - or _), not {quote(value)}",
        )
    return value


def read_action(value: Any) -> dict[str, Any]:
    """A special action object as the view lists it: a ``kind`` string and at most
    :data:`ACTION_FIELDS` fields, each a short lower-case name with a short ASCII string,
    a small whole number, a boolean or null. Whether it is legal is the table's to say."""
    if not isinstance(value, dict):
        raise ProtocolError(
            "malformed",
            f"'action' must be an object listed in the view's legal, not {quote(value)}",
        )
    if len(value) > ACTION_FIELDS:
        raise ProtocolError(
            "malformed", f"'action' has {len(value)} fields; an action has at most {ACTION_FIELDS}"
        )
    kind = value.get("kind")
    if (
        not isinstance(kind, str)
        or not 0 < len(kind) <= ACTION_TEXT_CHARS
        or not (kind.isascii() and kind.isalpha())
    ):
        raise ProtocolError(
            "malformed", f"'action' needs a 'kind' naming the action, not {quote(kind)}"
        )
    for key, field_value in value.items():
        if not 0 < len(key) <= ACTION_TEXT_CHARS or not _FIELD_NAME.issuperset(key):
            raise ProtocolError("malformed", f"'action' has no field named {quote(key)}")
        ok = (
            field_value is None
            or isinstance(field_value, bool)
            or (isinstance(field_value, int) and -1000 <= field_value <= 1000)
            or (
                isinstance(field_value, str)
                and len(field_value) <= ACTION_TEXT_CHARS
                and field_value.isascii()
                and field_value.isprintable()
            )
        )
        if not ok:
            raise ProtocolError(
                "malformed",
                f"'action' field {key!r} must be a short text, a small number, true, false"
                f" or null, not {quote(field_value)}",
            )
    return value


def _text_problem(value: str) -> str | None:
    """Why ``value`` cannot be shown as one line of text (None if it can): it holds a
    control or format character, a line or paragraph separator, an unpaired surrogate,
    an unassigned or a private-use code point, or more than :data:`MARKS_PER_CHAR`
    combining marks on one character (once composed, NFC: marks stacked by the hundred
    spill over the lines above and below)."""
    for char in value:
        category = unicodedata.category(char)
        if category[0] == "C" or category in ("Zl", "Zp"):
            return f"it holds the character U+{ord(char):04X}, which is not shown as text"
    run = most = 0
    for char in unicodedata.normalize("NFC", value):
        run = run + 1 if unicodedata.category(char)[0] == "M" else 0
        most = max(most, run)
    if most > MARKS_PER_CHAR:
        return (
            f"it has {most} combining marks on one character; at most {MARKS_PER_CHAR}"
            " (accents and the like)"
        )
    return None


def name_key(name: str) -> str:
    """What two names are compared by: NFKC and case folded (so "Host", "HOST" and
    "Ｈｏｓｔ" are one name)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def read_name(value: Any) -> str:
    """A person's name at a shared table: 1 to :data:`NAME_CHARS` characters once
    trimmed, text only (``bad_name`` otherwise); returned trimmed."""
    if not isinstance(value, str):
        raise ProtocolError("bad_name", f"'name' must be a text, not {quote(value)}")
    name = " ".join(value.split())
    if not name:
        raise ProtocolError("bad_name", "'name' is empty; type a name of 1 to 24 characters")
    if len(name) > NAME_CHARS:
        raise ProtocolError("bad_name", f"'name' has {len(name)} characters; at most {NAME_CHARS}")
    problem = _text_problem(name)
    if problem:
        raise ProtocolError("bad_name", f"'name' cannot be {quote(name)}: {problem}")
    return name


def read_chat(data: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """A chat message's ``(text, phrase)``, exactly one of them set; the text trimmed.
    Refusals: ``malformed`` (shape), ``chat_empty``, ``chat_too_long``,
    ``chat_bad_text``."""
    text, phrase = data.get("text"), data.get("phrase")
    if (text is None) == (phrase is None):
        raise ProtocolError("malformed", "a chat message has either 'text' or 'phrase'")
    if phrase is not None:
        if not isinstance(phrase, str) or phrase not in PHRASES:
            raise ProtocolError(
                "malformed", f"unknown phrase {quote(phrase)}; known: {', '.join(PHRASES)}"
            )
        return None, phrase
    if not isinstance(text, str):
        raise ProtocolError("malformed", f"'text' must be a text, not {quote(text)}")
    line = text.strip()
    if not line:
        raise ProtocolError("chat_empty", "the chat line is empty")
    if len(line) > CHAT_CHARS:
        raise ProtocolError(
            "chat_too_long",
            f"the chat line has {len(line)} characters; at most {CHAT_CHARS}",
        )
    problem = _text_problem(line)
    if problem:
        raise ProtocolError("chat_bad_text", f"the chat line cannot be sent: {problem}")
    return line, None


def read_host(data: Mapping[str, Any]) -> tuple[str, Seat | None]:
    """A host operation ``(op, seat)``; ``bot`` and ``reopen`` need a seat other than S."""
    op = data.get("op")
    if not isinstance(op, str) or op not in HOST_OPS:
        raise ProtocolError(
            "malformed", f"unknown host operation {quote(op)}; known: {', '.join(HOST_OPS)}"
        )
    seat = None if data.get("seat") is None else read_seat(data["seat"])
    if op in ("bot", "reopen") and seat is None:
        raise ProtocolError("malformed", f"the host's {op!r} needs a 'seat'")
    return op, seat


__all__ = [
    "CHAT_CHARS",
    "HOST_OPS",
    "MARKS_PER_CHAR",
    "MESSAGE_FIELDS",
    "MESSAGE_TYPES",
    "NAME_CHARS",
    "PHRASES",
    "ProtocolError",
    "action_to_json",
    "contract_json",
    "dumps_message",
    "error",
    "name_key",
    "parse_message",
    "quote",
    "read_action",
    "read_card",
    "read_chat",
    "read_game_id",
    "read_host",
    "read_json",
    "read_name",
    "read_seat",
    "read_since",
    "read_token",
    "result_json",
    "to_json_value",
    "view_json",
]
