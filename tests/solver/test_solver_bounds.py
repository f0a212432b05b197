"""Searches within a budget give bounds: every range must hold the exact value.

Small endings are checked against the pure-Python oracle, larger ones (4-6 cards) against the
unbudgeted solver; tight node budgets force ranges. 10,000 positions of each contract
kind (trump, no trump, misère, misère with trumps, aces-low misère), a quarter of them
in mid-trick.
"""

from __future__ import annotations

import random

import pytest
from solver_testlib import best, random_position

import whistkit.solver as solver
from whistkit.solver import Bounds, Position, reference

# (trump, misere, aces_low)
KINDS = [
    (0, False, False),
    (None, False, False),
    (None, True, False),
    (2, True, False),
    (None, True, True),
]
PER_KIND = 10_000
ORACLE = 1_000  # of them small enough for the oracle (1-3 cards)


def _positions(kind: tuple[int | None, bool, bool], seed: int) -> list[Position]:
    trump, misere, aces_low = kind
    rng = random.Random(seed)
    out = []
    for i in range(PER_KIND):
        n = 1 + i % 3 if i < ORACLE else rng.randint(4, 6)
        out.append(
            random_position(
                rng, n, trump=trump, misere=misere, aces_low=aces_low, mid_trick=rng.randrange(4)
            )
        )
    return out


def _budgets(rng: random.Random, n: int) -> list[int]:
    """Node budgets from a handful of nodes to a few thousand (most searches of 5-8 cards
    need more than the small ones)."""
    return [rng.choice((1, 2, 5, 10, 30, 100, 300, 1000, 3000)) for _ in range(n)]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: f"t{k[0]}-m{int(k[1])}-al{int(k[2])}")
def test_ranges_hold_the_exact_value(kind: tuple[int | None, bool, bool]) -> None:
    seed = 7 + KINDS.index(kind)
    positions = _positions(kind, seed)
    rng = random.Random(seed)
    exact_cards = [reference.solve_cards(p) for p in positions[:ORACLE]]
    exact_cards += solver.solve_batch(positions[ORACLE:], cards=True)
    budgets = _budgets(rng, len(positions))
    ranged = wide = 0
    # positions grouped by budget: one batch call per budget
    by_budget: dict[int, list[int]] = {}
    for i, b in enumerate(budgets):
        by_budget.setdefault(b, []).append(i)
    for budget, idx in by_budget.items():
        batch = [positions[i] for i in idx]
        # values only, and every card's value (half of the positions each)
        values = solver.solve_batch(batch[::2], node_limit=budget)
        cards = solver.solve_batch(batch[1::2], cards=True, node_limit=budget)
        for i, got in zip(idx[::2], values, strict=True):
            v = best(positions[i], exact_cards[i])
            assert v in got, (positions[i], budget, got, v)
            ranged += not got.exact
            wide += got.hi - got.lo >= 2
        for i, (value, every) in zip(idx[1::2], cards, strict=True):
            pos, exact = positions[i], exact_cards[i]
            assert best(pos, exact) in value, (pos, budget, value, best(pos, exact))
            assert set(every) == set(exact), pos
            for c, cb in every.items():
                assert exact[c] in cb, (pos, budget, c, cb, exact[c])
            ranged += not value.exact
    # the budgets were tight enough to leave many positions open, and bounds were found
    assert ranged > PER_KIND // 10
    assert wide < ranged


def test_an_ample_budget_is_exact() -> None:
    rng = random.Random(3)
    for i in range(60):
        trump, misere, aces_low = KINDS[i % len(KINDS)]
        pos = random_position(rng, 6, trump=trump, misere=misere, aces_low=aces_low)
        want = solver.solve_cards(pos)
        assert solver.solve(pos, node_limit=10**9) == Bounds(best(pos, want), best(pos, want))
        got = solver.solve_cards(pos, node_limit=10**9)
        assert got == {c: Bounds(v, v) for c, v in want.items()}


def test_a_time_budget_gives_bounds_too() -> None:
    rng = random.Random(4)
    positions = [random_position(rng, 8, misere=True) for _ in range(40)]
    want = solver.solve_batch(positions)
    # a microsecond: most searches stop at once, but what they give is still true
    got = solver.solve_batch(positions, time_limit=1e-6)
    for p, w, g in zip(positions, want, got, strict=True):
        assert w in g, p
    assert solver.solve(positions[0], time_limit=60.0) == Bounds(want[0], want[0])


@pytest.mark.parametrize("share", [1, 4, 16])
def test_every_share_of_the_budget_keeps_bounds_true(share: int) -> None:
    from whistkit.solver import _dd  # type: ignore[attr-defined]

    rng = random.Random(share)
    positions = [random_position(rng, 7, misere=bool(i % 2)) for i in range(300)]
    want = solver.solve_batch(positions)
    _dd.set_share(share)
    try:
        got = solver.solve_batch(positions, node_limit=200)
    finally:
        _dd.set_share(8)
    for p, w, g in zip(positions, want, got, strict=True):
        assert w in g, p


def test_bounds_type() -> None:
    b = Bounds(2, 4)
    assert str(b) == "2–4" and not b.exact and b.value is None
    assert 3 in b and 5 not in b and 1 not in b
    assert str(Bounds(3, 3)) == "3" and Bounds(3, 3).exact and Bounds(3, 3).value == 3
    with pytest.raises(ValueError, match="lo <= hi"):
        Bounds(4, 2)


def test_budget_arguments_are_checked() -> None:
    pos = random_position(random.Random(1), 3)
    with pytest.raises(ValueError, match="node_limit"):
        solver.solve(pos, node_limit=0)
    with pytest.raises(TypeError, match="node_limit"):
        solver.solve(pos, node_limit=1.5)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="time_limit"):
        solver.solve(pos, time_limit=-1.0)
    with pytest.raises(TypeError, match="time_limit"):
        solver.solve_cards(pos, time_limit="1")  # type: ignore[call-overload]
