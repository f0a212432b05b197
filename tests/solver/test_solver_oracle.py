"""The compiled solver against the pure-Python oracle on random short endings."""

from __future__ import annotations

import random

import pytest
from solver_testlib import best, random_position

import whistkit.solver as solver
from whistkit.solver import Position, reference

# (trump, misere, aces_low): every contract kind
KINDS = [
    (None, False, False),
    (0, False, False),
    (2, False, False),
    (None, True, False),
    (1, True, False),
    (None, True, True),
    (3, False, True),
    (None, False, True),
]


def _check(pos: Position, rng: random.Random) -> None:
    want = reference.solve_cards(pos)
    got = solver.solve_cards(pos)
    assert got == want, pos
    value = solver.solve(pos)
    assert value == best(pos, want), pos
    k = rng.randint(0, pos.tricks_left + 1)
    assert solver.can_take(pos, k) == (value >= k), (pos, k)


def test_core_is_built() -> None:
    assert solver.has_core()


# the core's debugging switches (see _dd.c): each pruning can be turned off, and the
# portable build can be forced; values must not change
SWITCHES = {
    "no-bounds": 1,
    "exact-tt": 2,
    "no-tt": 4,
    "no-misere-force": 64,
    "no-trick-start-force": 128,
    "coarse-force-rw": 256,
    "no-two-trick-force": 512,
    "no-side-claim": 8192,
    "no-misere-trump-count": 16384,
    "lower-card-skip-only": 32768,
    "no-misere-etc": 1 << 24,
    "whole-quick-trick-runs": 65536,
    "no-partners-top-trumps": 131072,
    "no-greedy-length-wins": 262144,
    "portable-core": 2048,
    "plain": 1 | 4 | 64,
}


@pytest.mark.parametrize("flags", SWITCHES.values(), ids=SWITCHES.keys())
def test_switches_keep_values(flags: int) -> None:
    from whistkit.solver import _dd  # type: ignore[attr-defined]

    rng = random.Random(flags)
    positions = [
        random_position(
            rng,
            1 + i % 5,
            trump=KINDS[i % len(KINDS)][0],
            misere=KINDS[i % len(KINDS)][1],
            aces_low=KINDS[i % len(KINDS)][2],
            mid_trick=i % 4,
        )
        for i in range(240)
    ]
    want = [reference.solve_cards(p) for p in positions]
    _dd.set_flags(flags)
    try:
        got = [solver.solve_cards(p) for p in positions]
    finally:
        _dd.set_flags(0)
    for p, w, g in zip(positions, want, got, strict=True):
        assert g == w, p


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: f"t{k[0]}-m{int(k[1])}-al{int(k[2])}")
def test_small_endings_exhaustive_kinds(kind: tuple[int | None, bool, bool]) -> None:
    trump, misere, aces_low = kind
    rng = random.Random(hash(kind) & 0xFFFF)
    for i in range(250):
        n = 1 + i % 4
        pos = random_position(
            rng, n, trump=trump, misere=misere, aces_low=aces_low, mid_trick=i % 4, suits=2
        )
        _check(pos, rng)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20))
def test_random_endings(seed: int) -> None:
    """20 x 1,050 = 21,000 endings of 1-5 cards, all kinds, three quarters mid-trick."""
    rng = random.Random(1000 + seed)
    for i in range(1050):
        trump, misere, aces_low = KINDS[i % len(KINDS)]
        n = rng.randint(1, 5)
        pos = random_position(
            rng,
            n,
            trump=trump,
            misere=misere,
            aces_low=aces_low,
            mid_trick=rng.randrange(4),
            suits=rng.choice((2, 3, 4, 4)),
        )
        _check(pos, rng)


def test_two_threads_match_one() -> None:
    """solve(pos, threads=2): two searches proving bounds at once give the same value,
    on short endings of every kind (against the oracle) and on 8-card deals (against the
    one-thread search)."""
    rng = random.Random(2020)
    for i in range(120):
        kind = KINDS[i % len(KINDS)]
        pos = random_position(
            rng, 1 + i % 4, trump=kind[0], misere=kind[1], aces_low=kind[2], mid_trick=i % 3
        )
        assert solver.solve(pos, threads=2) == reference.solve(pos), pos
    for i in range(6):
        kind = KINDS[(2 * i + 1) % len(KINDS)]
        pos = random_position(rng, 8, trump=kind[0], misere=kind[1], aces_low=kind[2])
        assert solver.solve(pos, threads=2) == solver.solve(pos), pos
    with pytest.raises(ValueError, match="threads"):
        solver.solve(pos, threads=3)


def test_two_threads_within_a_budget_give_true_ranges() -> None:
    """With a node budget (half for each thread) the two threads' range holds the value;
    a budget large enough gives it exactly."""
    rng = random.Random(2021)
    for i in range(120):
        kind = KINDS[i % len(KINDS)]
        pos = random_position(
            rng, 4 + i % 4, trump=kind[0], misere=kind[1], aces_low=kind[2], mid_trick=i % 4
        )
        exact = solver.solve(pos)
        got = solver.solve(pos, node_limit=1 + (i * 37) % 400, threads=2)
        assert got.lo <= exact <= got.hi, (pos, got, exact)
        assert solver.solve(pos, node_limit=10**8, threads=2) == solver.Bounds(exact, exact)
