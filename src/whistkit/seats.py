"""Seats N E S W clockwise (0..3) and sides NS (0) and EW (1)."""

from __future__ import annotations

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
    key = text.strip().upper()[:1]
    if len(text.strip()) != 1 or key not in SEATS:
        raise SeatError(f"not a seat: {text!r} (one of N, E, S, W)")
    return SEATS.index(key)


def seat_name(seat: Seat) -> str:
    return SEATS[seat]


def side_name(side: Side) -> str:
    return SIDES[side]
