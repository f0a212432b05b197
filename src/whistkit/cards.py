"""Cards as ints, hands as 52-bit masks.

A card is an int ``suit * 13 + rank``: suits in docs/records.md order ``S H D C`` (0..3),
ranks ``2..A`` as 0..12, so a higher rank index is a stronger card when aces are high.
A hand (any set of cards) is an int with bit ``card`` set for each card it holds, so
a suit's cards are ``(hand >> (13 * suit)) & 0x1FFF``.

>>> card_name(parse_card("10h"))
'TH'
>>> format_hand(parse_hand("AS KS 2C"))
'AS KS 2C'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

SUITS = "SHDC"
RANKS = "23456789TJQKA"
SPADES, HEARTS, DIAMONDS, CLUBS = 0, 1, 2, 3
SUIT_SYMBOLS = "♠♥♦♣"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES = (
    "Two",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Jack",
    "Queen",
    "King",
    "Ace",
)
FULL_DECK = (1 << 52) - 1
SUIT_BITS = 0x1FFF
SUIT_MASKS = tuple(SUIT_BITS << (13 * s) for s in range(4))
RED_SUITS = (HEARTS, DIAMONDS)

Card = int
Hand = int


class CardError(ValueError):
    """A card, hand or deal string that cannot be read."""


def suit_of(card: Card) -> int:
    """The suit index (0..3, ``S H D C``) of a card."""
    return card // 13


def rank_of(card: Card) -> int:
    """The rank index (0 for a two .. 12 for an ace) of a card."""
    return card % 13


def make_card(suit: int, rank: int) -> Card:
    return suit * 13 + rank


_NAME_TO_CARD = {RANKS[r] + SUITS[s]: s * 13 + r for s in range(4) for r in range(13)}
CARD_NAMES = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(52))


def parse_card(text: str) -> Card:
    """Read ``QH``, ``qh`` or ``10h``; raise :class:`CardError` naming the text otherwise."""
    key = text.strip().upper()
    if key.startswith("10"):
        key = "T" + key[2:]
    card = _NAME_TO_CARD.get(key)
    if card is None:
        raise CardError(f"not a card: {text!r} (write rank then suit, e.g. QH, 10H, TD)")
    return card


def card_name(card: Card) -> str:
    """The record code of a card, e.g. ``"TD"``."""
    return CARD_NAMES[card]


def card_label(card: Card) -> str:
    """A short label with the suit symbol, e.g. ``"10♥"``."""
    r = RANKS[card % 13]
    return ("10" if r == "T" else r) + SUIT_SYMBOLS[card // 13]


def mask(cards: Iterable[Card]) -> Hand:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# SUIT_CARDS[suit][bits]: the cards of a 13-bit rank pattern in one suit, lowest first;
# built on first use (suit_tables()) so that importing whistkit stays cheap
SUIT_CARDS: list[tuple[tuple[Card, ...], ...]] = []


def suit_tables() -> list[tuple[tuple[Card, ...], ...]]:
    """:data:`SUIT_CARDS`, built if it is not yet."""
    if not SUIT_CARDS:
        tables = []
        for suit in range(4):
            table: list[tuple[Card, ...]] = [()]
            for card in range(13 * suit, 13 * suit + 13):  # the patterns with one bit more
                table += [(*low, card) for low in table]
            tables.append(tuple(table))
        # all four at once: another thread must never see some suits without the rest
        SUIT_CARDS[:] = tables
    return SUIT_CARDS


def cards_in(hand: Hand) -> tuple[Card, ...]:
    """The cards of a mask, lowest index first (the bots' hot loops call this millions
    of times, so it reads four tables instead of walking the bits)."""
    if hand >> 52 or hand < 0:
        raise ValueError(f"not a hand of cards: {hand:#x}")
    s, h, d, c = SUIT_CARDS or suit_tables()
    return s[hand & 0x1FFF] + h[hand >> 13 & 0x1FFF] + d[hand >> 26 & 0x1FFF] + c[hand >> 39]


def iter_cards(hand: Hand) -> Iterator[Card]:
    """The cards of a mask, lowest index first."""
    return iter(cards_in(hand))


def cards_of(hand: Hand) -> list[Card]:
    return list(cards_in(hand))


def count(hand: Hand) -> int:
    return hand.bit_count()


def suit_cards(hand: Hand, suit: int) -> Hand:
    """The cards of one suit in a mask (still as a 52-bit mask)."""
    return hand & SUIT_MASKS[suit]


def sorted_for_display(hand: Hand) -> list[Card]:
    """Cards grouped by suit (S H D C), high to low within a suit."""
    return sorted(iter_cards(hand), key=lambda c: (c // 13, -(c % 13)))


def parse_hand(text: str) -> Hand:
    """A space- or comma-separated list of cards; each card at most once."""
    m = 0
    for token in text.replace(",", " ").split():
        c = parse_card(token)
        if m >> c & 1:
            raise CardError(f"card {card_name(c)} is listed twice")
        m |= 1 << c
    return m


def format_hand(hand: Hand) -> str:
    return " ".join(card_name(c) for c in sorted_for_display(hand))
