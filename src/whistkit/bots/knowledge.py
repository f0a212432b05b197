"""What a seat can infer from its view: cards gone, voids shown, cards publicly placed.

Everything here is computed from a :class:`~whistkit.state.View` alone, so a bot built on
it can never peek at another hand. The club bot reads its card counting from here and
:func:`whistkit.bots.sampling.sample_deals` deals the hidden cards consistently with it.

Publicly placed cards come from ``view.public`` (:func:`publicly_held`): classic
whist's face-up trump card and Swedish revealed bottom cards.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..cards import FULL_DECK, SUIT_MASKS, Card, CardError, Hand, parse_card
from ..seats import SEATS, Seat
from ..state import RANK_KEY_ACES_LOW, RANK_KEY_HIGH, Contract, View


def _card(value: Any) -> Card | None:
    if isinstance(value, int) and 0 <= value < 52:
        return value
    if isinstance(value, str):
        try:
            return parse_card(value)
        except CardError:
            return None
    return None


def publicly_held(view: View) -> tuple[Hand, Hand, Hand, Hand]:
    """Cards each seat is publicly known to hold still (turned card, shown bottom cards).

    Reads ``view.public``: ``"turned"`` (classic whist: the dealer's face-up card, listed
    until played) and ``"revealed"`` (Swedish: seat name -> revealed bottom card, which
    stays in its owner's hand until played; a list of cards places them all, as the
    measurement players of ``benchmarks/paired.py`` do with a whole hand). Cards may be
    codes (``"TD"``) or ints.
    """
    held = [0, 0, 0, 0]
    public: Mapping[str, Any] = view.public
    turned = _card(public.get("turned"))
    if turned is not None:
        held[view.dealer] |= 1 << turned
    revealed = public.get("revealed")
    if isinstance(revealed, Mapping):
        for seat, value in revealed.items():
            owner = SEATS.index(seat) if isinstance(seat, str) else int(seat) & 3
            for one in value if isinstance(value, (list, tuple)) else (value,):
                card = _card(one)
                if card is not None:
                    held[owner] |= 1 << card
    played = 0
    for c in view.played:
        played |= 1 << c
    return (held[0] & ~played, held[1] & ~played, held[2] & ~played, held[3] & ~played)


@dataclass(frozen=True)
class Knowledge:
    """Public facts of the hand in progress, from one seat's point of view.

    ``voids[s]`` has bit ``suit`` set when seat ``s`` has shown out of that suit;
    ``unseen`` is every card neither in this seat's hand nor played; ``held`` the cards
    publicly placed in a seat's hand; ``played_by[s]`` the cards seat ``s`` has played.
    """

    seat: Seat
    hand: Hand
    unseen: Hand
    voids: tuple[int, int, int, int]
    held: tuple[Hand, Hand, Hand, Hand]
    played_by: tuple[Hand, Hand, Hand, Hand]
    led_by: tuple[int, int, int, int]  # bit ``suit`` set when seat s led that suit
    first_lead: tuple[int, int, int, int]  # suit each seat led first (-1: none yet)
    sizes: tuple[int, int, int, int]

    @classmethod
    def from_view(cls, view: View) -> Knowledge:
        voids = [0, 0, 0, 0]
        played_by = [0, 0, 0, 0]
        led_by = [0, 0, 0, 0]
        first_lead = [-1, -1, -1, -1]
        led_suit = -1
        for i, (seat, card) in enumerate(view.plays()):
            suit = card // 13
            if i % 4 == 0:
                led_suit = suit
                led_by[seat] |= 1 << suit
                if first_lead[seat] < 0:
                    first_lead[seat] = suit
            elif suit != led_suit:
                voids[seat] |= 1 << led_suit
            played_by[seat] |= 1 << card
        held = publicly_held(view)
        return cls(
            seat=view.seat,
            hand=view.hand,
            unseen=view.unseen(),
            voids=(voids[0], voids[1], voids[2], voids[3]),
            held=held,
            played_by=(played_by[0], played_by[1], played_by[2], played_by[3]),
            led_by=(led_by[0], led_by[1], led_by[2], led_by[3]),
            first_lead=(first_lead[0], first_lead[1], first_lead[2], first_lead[3]),
            sizes=view.hand_sizes,
        )

    def with_hand(self, hand: Hand, unseen: Hand) -> Knowledge:
        """The same public knowledge for a seat holding ``hand`` (the policy model's
        what-if; faster than :func:`dataclasses.replace`)."""
        new = object.__new__(Knowledge)  # a frozen dataclass's __init__ is slow
        fields = new.__dict__
        fields.update(self.__dict__)
        fields["hand"] = hand
        fields["unseen"] = unseen
        return new

    def is_void(self, seat: Seat, suit: int) -> bool:
        """True when ``seat`` surely holds no card of ``suit`` (shown out, or it is us)."""
        if seat == self.seat:
            return not self.hand & SUIT_MASKS[suit]
        return bool(self.voids[seat] >> suit & 1)

    def outstanding(self, suit: int) -> Hand:
        """Cards of ``suit`` that other seats may still hold."""
        return self.unseen & SUIT_MASKS[suit]

    def remaining(self) -> Hand:
        """Every card not yet played (ours included)."""
        return self.hand | self.unseen

    def played(self) -> Hand:
        return FULL_DECK & ~(self.hand | self.unseen)


def rank_keys(contract: Contract) -> tuple[int, ...]:
    """Keys that order cards of one suit by strength in this contract."""
    return RANK_KEY_ACES_LOW if contract.aces_low else RANK_KEY_HIGH


def _outranking(keys: tuple[int, ...]) -> tuple[tuple[Hand, ...], tuple[Hand, ...]]:
    """For each card, the mask of the cards of its suit above it and the mask below it."""
    above, below = [], []
    for c in range(52):
        suit = range(c - c % 13, c - c % 13 + 13)
        above.append(sum(1 << x for x in suit if keys[x] > keys[c]))
        below.append(sum(1 << x for x in suit if keys[x] < keys[c]))
    return tuple(above), tuple(below)


_HIGH = _outranking(RANK_KEY_HIGH)
_ACES_LOW = _outranking(RANK_KEY_ACES_LOW)


def _tables(keys: tuple[int, ...]) -> tuple[tuple[Hand, ...], tuple[Hand, ...]]:
    if keys is RANK_KEY_HIGH:
        return _HIGH
    if keys is RANK_KEY_ACES_LOW:
        return _ACES_LOW
    return _outranking(keys)


def outranking(keys: tuple[int, ...]) -> tuple[tuple[Hand, ...], tuple[Hand, ...]]:
    """For each card, the mask of the cards of its suit above it and the mask below it."""
    return _tables(keys)


def higher_in(cards: Hand, card: Card, keys: tuple[int, ...]) -> int:
    """How many cards of ``cards`` in ``card``'s suit outrank it."""
    return (cards & _tables(keys)[0][card]).bit_count()


def lower_in(cards: Hand, card: Card, keys: tuple[int, ...]) -> int:
    """How many cards of ``cards`` in ``card``'s suit rank below it."""
    return (cards & _tables(keys)[1][card]).bit_count()
