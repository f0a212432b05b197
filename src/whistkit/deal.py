"""Dealing and PBN deal strings.

The dealt cards are :data:`Hands`, a tuple of four hand masks indexed by seat (N, E, S,
W); a game deals them through the action :class:`whistkit.state.Deal` (``Deal(hands)``).
The PBN form names a first seat, then the four hands clockwise from it, each
``spades.hearts.diamonds.clubs`` with ranks high to low. Hands may be shorter than 13
cards (the solver's endings).

>>> hands = parse_pbn("W:T... AK... Q... J...")
>>> from whistkit.cards import parse_hand
>>> hands == (parse_hand("AS KS"), parse_hand("QS"), parse_hand("JS"), parse_hand("TS"))
True
>>> format_pbn(hands, first=0)
'N:AK... Q... J... T...'
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ._checks import counted
from .cards import FULL_DECK, RANKS, CardError, Hand, card_name
from .seats import SEATS, Seat, left, seat_name

# the four hands of a deal by seat (not the action that deals them: that is state.Deal)
Hands = tuple[Hand, Hand, Hand, Hand]


def parse_pbn(text: str, *, full: bool = False) -> Hands:
    """Read a PBN deal string into four masks indexed by seat.

    With ``full`` each hand must hold exactly 13 cards. Errors name what is wrong. To
    deal the hands in a game, apply ``whistkit.Deal(hands)``.
    """
    raw = text.strip()
    if len(raw) < 2 or raw[1] != ":" or raw[0].upper() not in SEATS:
        raise CardError(f"deal must start with a seat and a colon, e.g. 'N:...': {text!r}")
    first = SEATS.index(raw[0].upper())
    parts = raw[2:].split()
    if len(parts) != 4:
        raise CardError(f"deal must have 4 hands separated by spaces, found {len(parts)}")
    hands = [0, 0, 0, 0]
    seen = 0
    for i, part in enumerate(parts):
        seat = (first + i) & 3
        suits = part.split(".")
        if len(suits) != 4:
            raise CardError(
                f"hand of {seat_name(seat)} must have 4 suits separated by dots: {part!r}"
            )
        m = 0
        for s, ranks in enumerate(suits):
            ranks_up = ranks.upper().replace("10", "T")
            for ch in ranks_up:
                if ch not in RANKS:
                    raise CardError(f"hand of {seat_name(seat)}: {ch!r} is not a rank")
                c = s * 13 + RANKS.index(ch)
                if (m | seen) >> c & 1:
                    raise CardError(f"card {card_name(c)} appears twice in the deal")
                m |= 1 << c
        hands[seat] = m
        seen |= m
    if full:
        for seat, h in enumerate(hands):
            if h.bit_count() != 13:
                raise CardError(
                    f"hand of {seat_name(seat)} has {counted(h.bit_count(), 'card')}, not 13"
                )
    return (hands[0], hands[1], hands[2], hands[3])


def format_hand_pbn(hand: Hand) -> str:
    out = []
    for s in range(4):
        bits = (hand >> (13 * s)) & 0x1FFF
        out.append("".join(RANKS[r] for r in range(12, -1, -1) if bits >> r & 1))
    return ".".join(out)


def format_pbn(hands: Hands | list[Hand], first: Seat = 0) -> str:
    """The PBN string of a deal, starting from seat ``first``."""
    return SEATS[first] + ":" + " ".join(format_hand_pbn(hands[(first + i) & 3]) for i in range(4))


@dataclass(frozen=True)
class DealtHand:
    """A shuffled deal: the four hands and the last card dealt (which goes to the dealer)."""

    hands: Hands
    last_card: int


def deal_cards(rng: random.Random, dealer: Seat) -> DealtHand:
    """Shuffle and deal one card at a time clockwise from ``left(dealer)`` (RULES §1.3).

    ``random.Random`` with an int seed gives the same sequence on every machine and
    Python version, so a seed fixes the deal.
    """
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [0, 0, 0, 0]
    seat = left(dealer)
    for c in deck:
        hands[seat] |= 1 << c
        seat = left(seat)
    assert hands[0] | hands[1] | hands[2] | hands[3] == FULL_DECK
    return DealtHand((hands[0], hands[1], hands[2], hands[3]), deck[-1])


__all__ = ["DealtHand", "Hands", "deal_cards", "format_hand_pbn", "format_pbn", "parse_pbn"]
