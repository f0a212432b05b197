"""Seats N E S W clockwise (0..3) and sides NS (0) and EW (1)."""

from __future__ import annotations

from ._checks import is_whole

SEATS = "NESW"
NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3
SIDES = ("NS", "EW")
NS, EW = 0, 1

Seat = int
Side = int


class SeatError(ValueError):
    """A seat or side name that cannot be read."""


def left(seat: Seat) -> Seat:
    """The next seat clockwise."""
    return (seat + 1) & 3


def partner(seat: Seat) -> Seat:
    return (seat + 2) & 3


def side_of(seat: Seat) -> Side:
    return seat & 1


def other(side: Side) -> Side:
    return side ^ 1


def parse_seat(text: str) -> Seat:
    """The seat named ``text`` (``"N"``, ``"e"``...); a :class:`SeatError` otherwise."""
    if not isinstance(text, str):
        raise SeatError(f"not a seat: {text!r} (one of N, E, S, W)")
    key = text.strip().upper()[:1]
    if len(text.strip()) != 1 or key not in SEATS:
        raise SeatError(f"not a seat: {text!r} (one of N, E, S, W)")
    return SEATS.index(key)


def as_seat(value: Seat | str, what: str = "seat") -> Seat:
    """A seat given as 0..3 or by name (:func:`parse_seat`), for the public API.

    Anything else is a :class:`SeatError` naming ``what`` (the argument) and the value,
    never a seat taken modulo 4.

    >>> as_seat("W"), as_seat(2)
    (3, 2)
    """
    if isinstance(value, str):
        try:
            return parse_seat(value)
        except SeatError:
            pass
    elif is_whole(value) and 0 <= value <= 3:
        return value
    raise SeatError(f"{what} must be a seat, 0..3 or N, E, S, W; not {value!r}")


def seat_name(seat: Seat) -> str:
    return SEATS[seat]


def side_name(side: Side) -> str:
    return SIDES[side]
