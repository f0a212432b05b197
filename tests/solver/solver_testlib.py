"""Shared helpers for the solver tests: random positions (DDS: whistkit.solver.dds)."""

from __future__ import annotations

import random

from whistkit.solver import Position

SUIT = 0x1FFF


def deal_hands(rng: random.Random, n: int, suits: int = 4) -> list[int]:
    """Four random hands of ``n`` cards from the first ``suits`` suits."""
    deck = [c for c in range(52) if c // 13 < suits]
    rng.shuffle(deck)
    hands = [0, 0, 0, 0]
    for i in range(4):
        for c in deck[i * n : (i + 1) * n]:
            hands[i] |= 1 << c
    return hands


def play_random(rng: random.Random, hands: list[int], leader: int, k: int) -> tuple[int, ...]:
    """Play ``k`` random legal cards to a new trick led by ``leader`` (hands change)."""
    trick: list[int] = []
    for i in range(k):
        seat = (leader + i) & 3
        h = hands[seat]
        if trick:
            f = h & (SUIT << (13 * (trick[0] // 13)))
            if f:
                h = f
        cards = [c for c in range(52) if h >> c & 1]
        c = rng.choice(cards)
        hands[seat] ^= 1 << c
        trick.append(c)
    return tuple(trick)


def random_position(
    rng: random.Random,
    n: int,
    *,
    trump: int | None = None,
    misere: bool = False,
    aces_low: bool = False,
    mid_trick: int = 0,
    suits: int = 4,
    leader: int | None = None,
) -> Position:
    suits = max(suits, -(-4 * n // 13))
    hands = deal_hands(rng, n, suits)
    lead = rng.randrange(4) if leader is None else leader
    trick = play_random(rng, hands, lead, mid_trick)
    return Position((hands[0], hands[1], hands[2], hands[3]), trick, lead, trump, misere, aces_low)


def best(pos: Position, cards: dict[int, int]) -> int:
    """The position's value from every card's value."""
    if not cards:
        return 0
    return min(cards.values()) if pos.misere else max(cards.values())
