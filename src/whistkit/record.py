"""Game records in ``whistkit-record/1`` (docs/records.md): read, write, replay, summarise.

A record (:class:`Record`) is the history of a game's actions; a game is a
:class:`~whistkit.state.State`. :func:`replay` turns a record into its game, validating it
against the rules; :func:`record_of` turns a game into its record. Text and files:
:func:`loads` and :func:`load` read a record, :func:`dumps` and :func:`save` write the
record of a game or a record. :func:`summarize` gives the JSON that ``whistkit replay``
prints.

>>> from whistkit.state import new_game
>>> text = dumps(new_game("felagsvist"), {0: "Anna"})
>>> loads(text).players
{0: 'Anna'}
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from . import record_events
from ._checks import kind_of
from .cards import CardError, card_name, parse_card
from .deal import format_pbn, parse_pbn
from .seats import SIDES, Seat, SeatError, as_seat, left, parse_seat, seat_name
from .state import DEAL, OVER, PLAY, Action, Deal, IllegalAction, State, new_game
from .variants import OptionError, UnknownVariant, Variant, find_variant, variant_of
from .variants.swedish import BottomCard, Swedish

FORMAT = "whistkit-record/1"


class RecordError(ValueError):
    """An invalid record. The message is the one line ``whistkit replay`` prints."""


def type_error(function: str, expected: str, value: object, hint: str | None = None) -> TypeError:
    """The ``TypeError`` of a public function given ``value`` of the wrong type: what it
    takes (``expected``), what it got and the likely fix (``hint``; by default the one
    for the value's type)."""
    if hint is None:
        hint = _HINTS.get(type(value).__name__, "")
        if isinstance(value, os.PathLike):
            hint = "read a record file with load(path)"
    return TypeError(
        f"{function}() takes {expected}, got {kind_of(value)}{': ' if hint else ''}{hint}"
    )


# the likely fix for a value of the wrong type, by its type's name
_HINTS = {
    "Record": "use replay(record) for its game",
    "State": "use record_of(state) for its record",
    "str": "read a record's JSON text with loads(text)",
    "bytes": "read a record's JSON text with loads(text)",
    "dict": "read decoded JSON with parse_record(data)",
}


@dataclass
class HandRecord:
    """One hand of a record: its dealer, the four hands dealt and the cards in the order
    played, with the variant's extras (docs/records.md ``hands[i]``)."""

    dealer: Seat
    hands: tuple[int, int, int, int]
    play: list[int] = field(default_factory=list)
    turned: int | None = None  # classic whist: the dealer's face-up card
    bottom: dict[Seat, int] | None = None  # Swedish: bottom card committed by each seat
    events: list[dict[str, Any]] | None = None  # laws mode: claims, corrections, calls

    def to_json(self) -> dict[str, Any]:
        """The hand as the record's JSON object."""
        out: dict[str, Any] = {
            "dealer": seat_name(self.dealer),
            "deal": format_pbn(self.hands, first=0),
        }
        if self.turned is not None:
            out["turned"] = card_name(self.turned)
        if self.bottom is not None:
            out["bottom"] = {seat_name(s): card_name(c) for s, c in self.bottom.items()}
        out["play"] = [card_name(c) for c in self.play]
        if self.events:
            out["events"] = self.events
        return out


@dataclass
class Record:
    """A game record (docs/records.md): the variant, its options, the players' names by seat
    and the hands. Its rules are unchecked until :func:`replay` plays it."""

    variant: str
    options: dict[str, Any] = field(default_factory=dict)
    players: dict[Seat, str] = field(default_factory=dict)
    hands: list[HandRecord] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The record as its JSON object."""
        out: dict[str, Any] = {"format": FORMAT, "variant": self.variant, "options": self.options}
        if self.players:
            players = _players(self.players)
            out["players"] = {seat_name(s): n for s, n in sorted(players.items())}
        out["hands"] = [h.to_json() for h in self.hands]
        return out

    def dumps(self) -> str:
        """The record as JSON text (what :func:`dumps` gives)."""
        return json.dumps(self.to_json(), ensure_ascii=False, indent=1)


def _players(players: Mapping[Seat, str] | Mapping[str, str]) -> dict[Seat, str]:
    """Players' names by seat (0..3 or "N"...), checked: a seat and a name each."""
    if not isinstance(players, Mapping):
        raise TypeError(
            f"players must map seats to names, e.g. {{'S': 'Anna'}}; got {kind_of(players)}"
        )
    out: dict[Seat, str] = {}
    for seat, name in players.items():
        if not isinstance(name, str):
            raise TypeError(f"a player's name must be a str, got {kind_of(name)} for {seat!r}")
        out[as_seat(seat, "a player's seat")] = name
    return out


# -- reading ------------------------------------------------------------------------


_T = TypeVar("_T")


def _json_type(value: Any) -> str:
    """The JSON type of a decoded value, for messages: "a number", "a list"..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _code(
    value: Any, where: str, parse: Callable[[str], _T], fails: type[ValueError], what: str
) -> _T:
    """A record's code ``value`` read by ``parse``; its ``fails`` and non-strings become a
    :class:`RecordError` at ``where`` (``what``: "a seat", for the message)."""
    if not isinstance(value, str):
        raise RecordError(f"{where}: {json.dumps(value)} is not {what}")
    try:
        return parse(value)
    except fails as e:
        raise RecordError(f"{where}: {e}") from None


def _card(value: Any, where: str) -> int:
    return _code(value, where, parse_card, CardError, "a card code")


def _seat(value: Any, where: str) -> Seat:
    return _code(value, where, parse_seat, SeatError, "a seat")


def parse_record(data: Any) -> Record:
    """Check a decoded JSON object's shape and build a :class:`Record` (rules unchecked)."""
    if not isinstance(data, dict):
        raise RecordError("record: the top level must be a JSON object")
    if data.get("format") != FORMAT:
        raise RecordError(
            f"record: 'format' must be {json.dumps(FORMAT)}, not {json.dumps(data.get('format'))}"
        )
    variant = data.get("variant")
    if variant is None:
        raise RecordError("record: 'variant' is missing")
    if not isinstance(variant, str):
        raise RecordError(f"record: 'variant' must be a string, not {_json_type(variant)}")
    options = data.get("options")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RecordError(f"record: 'options' must be an object, not {_json_type(options)}")
    players_raw = data.get("players")
    if players_raw is None:
        players_raw = {}
    if not isinstance(players_raw, dict):
        raise RecordError(f"record: 'players' must be an object, not {_json_type(players_raw)}")
    players = {_seat(k, "players"): str(v) for k, v in players_raw.items()}
    hands_raw = data.get("hands")
    if not isinstance(hands_raw, list):
        raise RecordError(f"record: 'hands' must be a list, not {_json_type(hands_raw)}")
    hands = []
    for i, h in enumerate(hands_raw, 1):
        where = f"hand {i}"
        if not isinstance(h, dict):
            raise RecordError(f"{where}: must be an object")
        dealer = _seat(h.get("dealer"), f"{where}, dealer")
        deal_text = h.get("deal")
        if deal_text is None:
            raise RecordError(f"{where}: 'deal' is missing")
        if not isinstance(deal_text, str):
            raise RecordError(
                f"{where}: 'deal' must be a PBN deal string, not {_json_type(deal_text)}"
            )
        try:
            deal = parse_pbn(deal_text, full=True)
        except CardError as e:
            raise RecordError(f"{where}, deal: {e}") from None
        play_raw = h.get("play", [])
        if not isinstance(play_raw, list):
            raise RecordError(f"{where}: 'play' must be a list of cards")
        play = [_card(c, f"{where}, card {k}") for k, c in enumerate(play_raw, 1)]
        turned = None if h.get("turned") is None else _card(h["turned"], f"{where}, turned")
        bottom = None
        if h.get("bottom") is not None:
            if not isinstance(h["bottom"], dict):
                raise RecordError(f"{where}: 'bottom' must be an object of seat: card")
            bottom = {
                _seat(k, f"{where}, bottom"): _card(v, f"{where}, bottom")
                for k, v in h["bottom"].items()
            }
        events = h.get("events")
        if events is not None and not (
            isinstance(events, list) and all(isinstance(e, dict) for e in events)
        ):
            raise RecordError(f"{where}: 'events' must be a list of objects")
        hands.append(HandRecord(dealer, deal, play, turned, bottom, events))
    return Record(variant=variant, options=options, players=players, hands=hands)


def loads(text: str | bytes) -> Record:
    """Read a record from its JSON text (docs/records.md); the rules are checked by
    :func:`replay`.

    Raises :class:`RecordError` with the one line ``whistkit replay`` prints if the text
    is not a record, and ``TypeError`` if it is not text (a file: :func:`load`).
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise RecordError("record: not UTF-8 text") from None
    if not isinstance(text, str):
        hint = "it is read already" if isinstance(text, Record) else None
        if isinstance(text, State):
            hint = "a game's record text is dumps(state)"
        raise type_error("loads", "a record's JSON text (a str)", text, hint)
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"record: invalid JSON: {e}") from None
    return parse_record(data)


def load(path: str | os.PathLike[str]) -> Record:
    """Read a record file (UTF-8 JSON, docs/records.md), as :func:`loads` reads its text.

    Raises ``OSError`` if the file cannot be read and :class:`RecordError` if it holds no
    record.
    """
    if not isinstance(path, (str, os.PathLike)):
        hint = "it is read already" if isinstance(path, Record) else ""
        raise type_error("load", "a file path", path, hint)
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"record: {os.fspath(path)} is not UTF-8 text") from None
    return loads(text)


# -- replaying ------------------------------------------------------------------------


def replay(record: Record) -> State:
    """Replay a record through the rules into its game (the :class:`State` after the
    last action); raise :class:`RecordError` at the first fault, naming the hand, the
    trick, the card and the rule."""
    if not isinstance(record, Record):
        hint = "it is a game already" if isinstance(record, State) else None
        raise type_error("replay", "a Record (from loads or load)", record, hint)
    try:
        cls = find_variant(record.variant)
    except UnknownVariant as e:
        raise RecordError(f"record: {e}") from None
    try:
        variant = cls(record.options)
    except OptionError as e:
        raise RecordError(f"record: {e}") from None
    first_dealer = record.hands[0].dealer if record.hands else 0
    state = new_game(variant, dealer=first_dealer)
    for n, hand in enumerate(record.hands, 1):
        if state.is_over:
            raise RecordError(
                f"hand {n}: the game ended after hand {n - 1} (hand played after the game ended)"
            )
        if state.phase != DEAL:
            raise RecordError(
                f"hand {n}: hand {n - 1} has only {len(state.played)} of 52 cards"
                " (a hand started before the previous one ended)"
            )
        if hand.dealer != state.dealer:
            raise RecordError(
                f"hand {n}: dealer is {seat_name(hand.dealer)} but the deal passes to"
                f" {seat_name(state.dealer)} (dealer out of rotation)"
            )
        if hand.turned is not None and not variant.uses_turned_card:
            raise RecordError(
                f"hand {n}: 'turned' is an English and American key, but {variant.title}"
                " turns up no card (key of another variant)"
            )
        if hand.events and not variant.laws:
            raise RecordError(
                f"hand {n}: events need play_mode laws ({variant.title} is played strict)"
            )
        try:
            if hand.events:
                record_events.check_events(hand)
            state = state.apply(Deal(hand.hands, hand.turned))
            for action in _bidding(variant, hand):
                state = state.apply(action)
        except IllegalAction as e:
            raise RecordError(f"hand {n}: {e}") from None
        # laws mode: cards taken back (corrections, rejected leads) are in play too
        if len(hand.play) > 52 and not hand.events:
            raise RecordError(f"hand {n}: {len(hand.play)} cards played (a hand has 52)")
        for card in hand.play:
            trick = state.trick_number
            try:
                if variant.laws and state.phase == PLAY:
                    # laws mode interleaves the hand's events with its cards
                    state = record_events.replay_card(state, card, hand)
                else:
                    state = state.apply(card)
            except IllegalAction as e:
                raise RecordError(f"hand {n}, trick {trick}: {e}") from None
        try:
            if variant.laws:  # the events after the last card (claims)
                state = record_events.replay_end(state, hand)
        except IllegalAction as e:
            raise RecordError(f"hand {n}, after the last card: {e}") from None
    return state


def record_of(state: State, players: Mapping[Seat, str] | None = None) -> Record:
    """The record of a game so far, with the ``players``' names by seat (0..3 or "N"...).

    ``TypeError`` if ``state`` is not a game (a :class:`State`).
    """
    if not isinstance(state, State):
        hint = "it is a record already" if isinstance(state, Record) else None
        raise type_error("record_of", "a State (a game)", state, hint)
    variant = variant_of(state)
    names = _players(players) if players is not None else {}
    rec = Record(variant=variant.name, options=variant.options_dict(), players=names)
    dealers = [r.dealer for r in state.results]
    # a hand in progress is not among the results (a void hand in laws mode is, and its
    # redeal keeps the hand number, so the number cannot tell)
    if state.phase not in (DEAL, OVER):
        dealers.append(state.dealer)
    current: HandRecord | None = None
    for action in state.actions():
        if isinstance(action, Deal):
            current = HandRecord(
                dealer=dealers[len(rec.hands)], hands=action.hands, turned=action.turned
            )
            rec.hands.append(current)
        elif current is None:
            raise AssertionError("an action before the first deal")
        elif isinstance(action, int):
            current.play.append(action)
        else:
            _record_special(variant, current, action)
    return rec


def _bidding(variant: Variant, hand: HandRecord) -> list[Action]:
    """The actions between a hand's deal and its first card: Swedish bottom cards, each
    seat's from forehand clockwise."""
    if not isinstance(variant, Swedish):
        if hand.bottom is not None:
            raise IllegalAction(
                f"'bottom' is a Swedish key, but {variant.title} has no bottom cards",
                "key of another variant",
            )
        return []
    bottom = hand.bottom or {}
    if not bottom and hand.play:
        raise IllegalAction(
            "the hand has no bottom cards", "every seat commits a bottom card (§3.3)"
        )
    out: list[Action] = []
    forehand = left(hand.dealer)
    missing = False
    for i in range(4):
        seat = (forehand + i) & 3
        if seat not in bottom and hand.play:
            raise IllegalAction(
                f"{seat_name(seat)} has no bottom card, but the play has begun",
                "every seat commits a bottom card before play (§3.3)",
            )
        if seat not in bottom:
            missing = True
        elif missing:
            raise IllegalAction(
                f"{seat_name(seat)} has a bottom card but an earlier seat has none",
                "bottom cards are committed from forehand clockwise",
            )
        else:
            out.append(BottomCard(seat, bottom[seat]))
    return out


def _record_special(variant: Variant, hand: HandRecord, action: Action) -> None:
    """Write a non-card action into a hand's record: a Swedish bottom card, or a laws-mode
    action as an event."""
    if isinstance(action, BottomCard):
        if hand.bottom is None:
            hand.bottom = {}
        hand.bottom[action.seat] = action.card
    elif variant.laws:
        record_events.record(hand, action)
    else:
        raise ValueError(f"{variant.title} records no action {action!r}")


def dumps(game: State | Record, players: Mapping[Seat, str] | None = None) -> str:
    """The record of a game (a :class:`State`) or a :class:`Record` as JSON text.

    ``players`` names the players by seat (0..3 or "N"...), replacing a record's own.
    A record is written as it is: :func:`replay` it first to check its rules.
    ``TypeError`` for anything else.
    """
    if isinstance(game, Record):
        if players is not None:
            game = dataclasses.replace(game, players=_players(players))
        return game.dumps()
    if not isinstance(game, State):
        raise type_error("dumps", "a State (a game) or a Record", game)
    return record_of(game, players).dumps()


def save(
    game: State | Record,
    path: str | os.PathLike[str],
    players: Mapping[Seat, str] | None = None,
) -> None:
    """Write :func:`dumps` of a game or a record to the file ``path`` (UTF-8; a file
    already there is replaced). Raises ``OSError`` if the file cannot be written."""
    if not isinstance(game, (State, Record)):
        hint = "the game comes first: save(game, path)" if isinstance(game, str) else None
        raise type_error("save", "a State (a game) or a Record, then a path", game, hint)
    if not isinstance(path, (str, os.PathLike)):
        raise type_error("save", "a State (a game) or a Record, then a path", path, "")
    text = dumps(game, players)
    Path(path).write_text(text + "\n", encoding="utf-8")


def game_of(value: object, function: str, expected: str) -> State:
    """The game of a :class:`Record` (replayed: :class:`RecordError` if it breaks the
    rules) or of a :class:`State` (itself), for public functions that take either;
    anything else is the ``TypeError`` of ``function``, which takes ``expected``."""
    if isinstance(value, Record):
        return replay(value)
    if not isinstance(value, State):
        raise type_error(function, expected, value)
    return value


def _sides(pair: tuple[int, int]) -> dict[str, int]:
    return {SIDES[0]: pair[0], SIDES[1]: pair[1]}


def summarize(game: State | Record) -> dict[str, Any]:
    """The JSON object ``whistkit replay`` prints (docs/records.md): each hand's contract,
    tricks, points and running score, the final score and the winner.

    A :class:`Record` is replayed first (:class:`RecordError` if it breaks the rules);
    anything but a game or a record is a ``TypeError``.
    """
    state = game_of(game, "summarize", "a State (a game) or a Record")
    variant = variant_of(state)
    hands: list[dict[str, Any]] = []
    for r in state.results:
        entry: dict[str, Any] = {
            "number": r.number,
            "dealer": seat_name(r.dealer),
            "leader": seat_name(r.leader),
            "contract": r.contract.code,
        }
        entry.update(variant.summary_contract(r.contract, r.extra))
        entry["tricks"] = _sides(r.tricks)
        entry["points"] = _sides(r.points)
        entry.update(variant.summary_points(r.extra))
        entry["score"] = _sides(r.score)
        hands.append(entry)
    if state.phase != DEAL and not state.is_over:
        entry = {
            "number": state.hand_number,
            "dealer": seat_name(state.dealer),
            "leader": seat_name(state.first_leader),
            "contract": state.contract.code if state.contract else None,
        }
        if state.contract is not None:
            entry.update(variant.summary_contract(state.contract, {"turned": state.turned}))
        entry["tricks"] = _sides(state.tricks)
        entry["points"] = None
        entry["score"] = _sides(state.score)
        hands.append(entry)
    out: dict[str, Any] = {"variant": variant.name, "hands": hands}
    out.update(variant.summary_match(state))
    out["score"] = _sides(state.score)
    out["winner"] = state.winner
    return out


__all__ = [
    "FORMAT",
    "HandRecord",
    "Record",
    "RecordError",
    "dumps",
    "load",
    "loads",
    "parse_record",
    "record_of",
    "replay",
    "save",
    "summarize",
]
