"""Normal play against DDS (endplay): 1,000 seeded deals per size and strain.

Leaders are spread evenly over the deals (deal i is led by seat i % 4), so each leader
gets 250 deals per size and strain. The position's value is compared on every deal;
every card's value on every deal at 5 and 8 cards and on every tenth deal at 13 cards
(DDS's and our every-card solves are the slow part). Aces-low is checked against DDS by
relabelling ranks (A->2, 2->3, ..., K->A), which is an isomorphism.
"""

from __future__ import annotations

import random

import pytest
from solver_testlib import random_position

import whistkit.solver as solver
from whistkit.solver import Position
from whistkit.solver.dds import dds_cards_batch, dds_values_batch

DEALS = 1000
# whole 13-card deals cost the two solvers about 0.2 s each: 300 of them here (every card
# of 30), the benchmark (benchmarks/solver.py) counts mismatches on its own 200 as well
DEALS_13 = 300


def _positions(n: int, trump: int | None, seed: int) -> list[Position]:
    rng = random.Random(seed)
    deals = DEALS_13 if n == 13 else DEALS
    return [random_position(rng, n, trump=trump, leader=i % 4) for i in range(deals)]


# the 13-card deals in parts, each its own test, so that the workers of a parallel run
# (pytest-xdist) share them: whole, one strain's 300 took a worker about 50 s
PARTS_13 = 4
CASES = [
    pytest.param(
        n, trump, part, parts, id=f"{n}-{strain}" + (f"-{part + 1}of{parts}" * (parts > 1))
    )
    for n in (5, 8, 13)
    for trump, strain in ((None, "NT"), (0, "S"))
    for parts in [PARTS_13 if n == 13 else 1]
    for part in range(parts)
]


@pytest.mark.slow
@pytest.mark.parametrize(("n", "trump", "part", "parts"), CASES)
def test_against_dds(n: int, trump: int | None, part: int, parts: int) -> None:
    """Part ``part`` of ``parts`` of the deals of a size and strain (a slice of them, in
    order; every tenth deal at 13 cards counted over all the deals, as unsplit)."""
    positions = _positions(n, trump, 7000 + n)
    lo, hi = len(positions) * part // parts, len(positions) * (part + 1) // parts
    mine = positions[lo:hi]
    assert solver.solve_batch(mine) == dds_values_batch(mine)
    every = mine if n < 13 else [p for i, p in enumerate(mine, lo) if i % 10 == 0]
    got = solver.solve_batch(every, cards=True)
    for p, w, g in zip(every, dds_cards_batch(every), got, strict=True):
        assert g == w, p


def _relabel_aces_low(p: Position) -> Position:
    """The aces-high position whose ranks are those of ``p`` under aces low."""

    def card(c: int) -> int:
        s, r = divmod(c, 13)
        return s * 13 + (r + 1) % 13

    def hand(h: int) -> int:
        return sum(1 << card(c) for c in range(52) if h >> c & 1)

    hs = tuple(hand(h) for h in p.hands)
    trick = tuple(card(c) for c in p.trick)
    return Position((hs[0], hs[1], hs[2], hs[3]), trick, p.leader, p.trump)


@pytest.mark.parametrize("n", [5, 8])
def test_aces_low_against_dds(n: int) -> None:
    rng = random.Random(31 + n)
    positions = [
        random_position(rng, n, trump=rng.choice([None, 1]), aces_low=True, mid_trick=i % 4)
        for i in range(200)
    ]
    got = solver.solve_batch(positions, cards=True)
    want = dds_cards_batch([_relabel_aces_low(p) for p in positions])
    for p, g, w in zip(positions, got, want, strict=True):
        back = {s * 13 + (r - 1) % 13: v for c, v in w.items() for s, r in [divmod(c, 13)]}
        assert g == back, p


def test_mid_trick_against_dds() -> None:
    rng = random.Random(99)
    positions = [
        random_position(rng, 1 + i % 9, trump=rng.choice([None, 0, 3]), mid_trick=1 + i % 3)
        for i in range(300)
    ]
    assert solver.solve_batch(positions, cards=True) == dds_cards_batch(positions)
