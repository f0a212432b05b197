"""Shared helpers for the solver tests: random positions and the DDS (endplay) bridge."""

from __future__ import annotations

import random

from endplay import _dds

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


def to_dds(pos: Position) -> _dds.deal:
    """The DDS deal struct of a normal-play position (aces high)."""
    assert not pos.misere and not pos.aces_low
    d = _dds.deal()
    d.trump = 4 if pos.trump is None else pos.trump
    d.first = pos.leader
    for i in range(3):
        d.currentTrickSuit[i] = 0
        d.currentTrickRank[i] = 0
    for i, c in enumerate(pos.trick):
        d.currentTrickSuit[i] = c // 13
        d.currentTrickRank[i] = c % 13 + 2
    for seat in range(4):
        for s in range(4):
            d.remainCards[seat][s] = ((pos.hands[seat] >> (13 * s)) & SUIT) << 2
    return d


def dds_cards(pos: Position) -> dict[int, int]:
    """DDS's value of every legal card (tricks of the side to play, current trick in)."""
    fut = _dds.futureTricks()
    _dds.SolveBoard(to_dds(pos), 0, 3, 1, fut, 0)
    return _cards_of(fut)


def dds_value(pos: Position) -> int:
    fut = _dds.futureTricks()
    _dds.SolveBoard(to_dds(pos), -1, 1, 1, fut, 0)
    return int(fut.score[0])


def _cards_of(fut: _dds.futureTricks) -> dict[int, int]:
    out: dict[int, int] = {}
    for i in range(fut.cards):
        holding = (1 << fut.rank[i]) | fut.equals[i]
        for r in range(2, 15):
            if holding >> r & 1:
                out[fut.suit[i] * 13 + r - 2] = int(fut.score[i])
    return out


def _dds_batch(positions: list[Position], solutions: int) -> list[_dds.futureTricks]:
    out: list[_dds.futureTricks] = []
    chunk = _dds.MAXNOOFBOARDS
    for start in range(0, len(positions), chunk):
        part = positions[start : start + chunk]
        bop = _dds.boards()
        bop.noOfBoards = len(part)
        for i, p in enumerate(part):
            bop.deals[i] = to_dds(p)
            bop.target[i] = 0 if solutions == 3 else -1
            bop.solutions[i] = solutions
            bop.mode[i] = 1
        solved = _dds.solvedBoards()
        _dds.SolveAllBoardsBin(bop, solved)
        out.extend(solved.solvedBoard[i] for i in range(len(part)))
    return out


def dds_cards_batch(positions: list[Position]) -> list[dict[int, int]]:
    """Every card's value for many positions through DDS's threaded batch call."""
    return [_cards_of(f) for f in _dds_batch(positions, 3)]


def dds_values_batch(positions: list[Position]) -> list[int]:
    """The value (tricks of the side to play) of many positions, DDS batch call."""
    return [int(f.score[0]) for f in _dds_batch(positions, 1)]


def best(pos: Position, cards: dict[int, int]) -> int:
    """The position's value from every card's value."""
    if not cards:
        return 0
    return min(cards.values()) if pos.misere else max(cards.values())
