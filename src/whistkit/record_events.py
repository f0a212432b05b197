"""Laws-mode actions in records: the ``events`` of a hand (docs/records.md).

The record layer's half of laws mode (:mod:`whistkit.variants.laws` rules on the
actions; this module writes them into a hand's record, reads them back and replays
them with the hand's cards). A laws-mode action that puts a card on the table (a lead
out of turn, a correction, a replaced card) adds that card to the hand's play list and
an event at its index; the other actions add an event between two cards.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from ._checks import counted
from .cards import SUITS, Card, card_name, parse_card
from .seats import parse_seat, seat_name
from .state import PLAY, Action, IllegalAction, SpecialAction, State
from .variants.laws import (
    CARD_ACTIONS,
    Call,
    ChooseMethod,
    ClaimRevoke,
    Correct,
    CorrectionPenalty,
    Expose,
    LawsHand,
    LeadOutOfTurn,
    NameSuit,
    RejectLead,
    Replace,
    WaiveClaim,
    hand_state,
)


class RecordedHand(Protocol):
    """The parts of a hand's record laws mode uses (:class:`whistkit.record.HandRecord`)."""

    play: list[int]  # the cards put on the table, in order
    events: list[dict[str, Any]] | None


def record(hand: RecordedHand, action: Action) -> None:
    """Write a laws-mode action into a hand's record (docs/records.md)."""
    if hand.events is None:
        hand.events = []
    assert isinstance(action, SpecialAction)
    event: dict[str, Any] = {"at": len(hand.play)}
    kind = CARD_ACTIONS.get(type(action))
    if kind is not None:
        event.update(type=kind, seat=seat_name(action.seat))
        hand.play.append(action.card)  # type: ignore[attr-defined]
    elif isinstance(action, RejectLead):
        event.update(type="reject_lead", seat=seat_name(action.seat), remedy=action.remedy)
    elif isinstance(action, NameSuit):
        suit = SUITS[action.suit] if action.suit >= 0 else None
        event.update(type="name_suit", seat=seat_name(action.seat), suit=suit)
    elif isinstance(action, (Expose, Call)):
        event.update(
            type="expose" if isinstance(action, Expose) else "call",
            seat=seat_name(action.seat),
            card=card_name(action.card),
        )
    elif isinstance(action, CorrectionPenalty):
        event.update(type="correction_penalty", seat=seat_name(action.seat), choice=action.choice)
    elif isinstance(action, (ClaimRevoke, WaiveClaim)):
        event.update(
            type="claim" if isinstance(action, ClaimRevoke) else "waive_claim",
            seat=seat_name(action.seat),
        )
    elif isinstance(action, ChooseMethod):
        event.update(type="method", seat=seat_name(action.seat), method=action.method)
    else:
        raise ValueError(f"no record form for {action!r}")
    hand.events.append(event)


CARD_EVENTS = set(CARD_ACTIONS.values())

CARDLESS = {
    "reject_lead",
    "name_suit",
    "expose",
    "call",
    "correction_penalty",
    "claim",
    "waive_claim",
    "method",
}


def event_action(event: dict[str, Any], card: Card | None, number: int) -> Action:
    """The action an event stands for (``card``: the play-list card of a card event;
    ``number``: the event's place in the hand's events, for messages)."""
    kind = event.get("type")
    try:
        seat = parse_seat(_text(event, "seat"))
        if kind in ("out_of_turn", "correct", "replace"):
            assert card is not None
            cls = {"out_of_turn": LeadOutOfTurn, "correct": Correct, "replace": Replace}[kind]
            return cls(seat, card)
        if kind == "reject_lead":
            return RejectLead(seat, _text(event, "remedy"))
        if kind == "name_suit":
            if event.get("suit") is None:
                return NameSuit(seat, -1)
            suit = _text(event, "suit").upper()
            if len(suit) != 1 or suit not in SUITS:
                raise ValueError(f"suit is {json.dumps(event['suit'])}, not S, H, D, C or null")
            return NameSuit(seat, SUITS.index(suit))
        if kind in ("expose", "call"):
            c = parse_card(_text(event, "card"))
            return Expose(seat, c) if kind == "expose" else Call(seat, c)
        if kind == "correction_penalty":
            return CorrectionPenalty(seat, _text(event, "choice"))
        if kind == "claim":
            return ClaimRevoke(seat)
        if kind == "waive_claim":
            return WaiveClaim(seat)
        if kind == "method":
            return ChooseMethod(seat, _text(event, "method"))
    except (ValueError, KeyError) as e:
        raise IllegalAction(
            f"{_event_name(number, event)} cannot be read: {e}", "laws-mode event"
        ) from None
    raise IllegalAction(f"{_event_name(number, event)} has an unknown type", "laws-mode event")


def _text(event: dict[str, Any], key: str) -> str:
    """An event's string value ``key``; another JSON value is a :class:`ValueError`."""
    value = event.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key} is {json.dumps(value)}, not a string")
    return value


def _event_name(number: int, event: dict[str, Any]) -> str:
    """``event 3 (correct at 20)``: an event named by its place and JSON values."""
    return f"event {number} ({event.get('type')} at {json.dumps(event.get('at'))})"


def check_events(hand: RecordedHand) -> None:
    """Check every event's ``type`` and ``at`` before the hand is replayed, so that an event
    replay would skip (an ``at`` beyond the play list) is refused by name."""
    end = len(hand.play)
    earliest, previous = 0, ""  # the least ``at`` the next event may have, and why
    for number, event in enumerate(hand.events or (), 1):
        kind, at = event.get("type"), event.get("at")
        if kind not in CARD_EVENTS and kind not in CARDLESS:
            what = "no type" if kind is None else f"an unknown type {json.dumps(kind)}"
            raise IllegalAction(f"event {number} has {what}", "laws-mode event")
        if isinstance(at, bool) or not isinstance(at, int) or at < 0:
            raise IllegalAction(
                f"event {number} ({kind}) has at {json.dumps(at)}, not a play index",
                "laws-mode event",
            )
        cards = counted(end, "card")
        if at > end:
            raise IllegalAction(
                f"{_event_name(number, event)} was never reached: play has {cards}",
                "laws-mode event",
            )
        if at == end and kind in CARD_EVENTS:
            raise IllegalAction(
                f"{_event_name(number, event)} has no card: play has {cards}",
                "laws-mode event",
            )
        if at < earliest:
            raise IllegalAction(
                f"{_event_name(number, event)} comes after {previous}",
                "events are in the order they happened; at counts the cards played before each",
            )
        # after a card event the next event has that card before it
        previous = _event_name(number, event)
        if kind in CARD_EVENTS:
            earliest, previous = at + 1, f"{previous}, which played card {at + 1} of play"
        else:
            earliest = at


def _events_at(hand: RecordedHand, index: int) -> list[tuple[int, dict[str, Any]]]:
    """The hand's events at play index ``index``, each with its number (from 1)."""
    return [(k, e) for k, e in enumerate(hand.events or (), 1) if e.get("at") == index]


def replay_card(state: State, card: Card, hand: RecordedHand) -> State:
    """Replay the record's next play-list card with the events recorded at its index."""
    irr = hand_state(state)
    index = irr.record_index
    carrying = None
    for number, event in _events_at(hand, index):
        if event.get("type") in CARDLESS:
            state = _apply_event(state, event, None, number)
        elif carrying is None:
            carrying = (number, event)
        else:
            raise IllegalAction(f"two card events at play index {index}", "laws-mode event")
    if carrying is not None:
        return _apply_event(state, carrying[1], card, carrying[0])
    return state.apply(card)


def _apply_event(state: State, event: dict[str, Any], card: Card | None, number: int) -> State:
    """Apply a recorded event; a refusal by the rules names the event."""
    action = event_action(event, card, number)
    try:
        return state.apply(action)
    except IllegalAction as e:
        raise IllegalAction(f"{_event_name(number, event)}: {e.detail}", e.rule) from None


def replay_end(state: State, hand: RecordedHand) -> State:
    """The events after the record's last card (claims, the penalty method); an event left
    over once the hand is over was never reached."""
    events = _events_at(hand, len(hand.play))
    while events and isinstance(state.irregular, LawsHand) and state.phase == PLAY:
        number, event = events.pop(0)
        if event.get("type") not in CARDLESS:
            raise IllegalAction(f"{_event_name(number, event)} has no card", "laws-mode event")
        state = _apply_event(state, event, None, number)
    if events:
        number, event = events[0]
        raise IllegalAction(
            f"{_event_name(number, event)} was never reached: the hand is over",
            "laws-mode event",
        )
    return state


__all__ = [
    "CARDLESS",
    "CARD_EVENTS",
    "RecordedHand",
    "check_events",
    "event_action",
    "record",
    "replay_card",
    "replay_end",
]
