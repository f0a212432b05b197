"""Hypothesis properties of the solver."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from solver_testlib import random_position

import whistkit.solver as solver
from whistkit.solver import Position

SUIT = 0x1FFF


@st.composite
def positions(draw: st.DrawFn) -> Position:
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(1, 7))
    trump = draw(st.sampled_from([None, 0, 1, 2, 3]))
    misere = draw(st.booleans())
    aces_low = draw(st.booleans())
    mid = draw(st.integers(0, 3))
    suits = draw(st.sampled_from([2, 3, 4]))
    return random_position(
        random.Random(seed),
        n,
        trump=trump,
        misere=misere,
        aces_low=aces_low,
        mid_trick=mid,
        suits=suits,
    )


def _relabel(pos: Position, perm: list[int]) -> Position:
    def hand(h: int) -> int:
        return sum(((h >> (13 * s)) & SUIT) << (13 * perm[s]) for s in range(4))

    hs = tuple(hand(h) for h in pos.hands)
    return Position(
        (hs[0], hs[1], hs[2], hs[3]),
        tuple(perm[c // 13] * 13 + c % 13 for c in pos.trick),
        pos.leader,
        None if pos.trump is None else perm[pos.trump],
        pos.misere,
        pos.aces_low,
    )


@settings(max_examples=300, deadline=None)
@given(positions(), st.permutations([0, 1, 2, 3]))
def test_relabelling_suits_changes_nothing(pos: Position, perm: list[int]) -> None:
    other = _relabel(pos, perm)
    assert solver.solve(other) == solver.solve(pos)
    cards = solver.solve_cards(pos)
    moved = {perm[c // 13] * 13 + c % 13: v for c, v in cards.items()}
    assert solver.solve_cards(other) == moved


def _winner(pos: Position, trick: list[int]) -> int:
    def key(c: int) -> tuple[int, int]:
        r = c % 13
        strength = (r + 1) % 13 if pos.aces_low else r
        if c // 13 == pos.trump:
            return (2, strength)
        return (1 if c // 13 == trick[0] // 13 else 0, strength)

    i = max(range(4), key=lambda j: key(trick[j]))
    return (pos.leader + i) & 3


@settings(max_examples=300, deadline=None)
@given(positions())
def test_sides_add_up(pos: Position) -> None:
    """After each legal card the two sides' tricks add up to the tricks left."""
    me = pos.to_play & 1
    cards = solver.solve_cards(pos)
    for c, v in cards.items():
        hands = list(pos.hands)
        hands[pos.to_play] ^= 1 << c
        trick = [*pos.trick, c]
        mine = 0
        leader = pos.leader
        if len(trick) == 4:
            leader = _winner(pos, trick)
            mine = int(leader & 1 == me)
            trick = []
        child = Position(
            (hands[0], hands[1], hands[2], hands[3]),
            tuple(trick),
            leader,
            pos.trump,
            pos.misere,
            pos.aces_low,
        )
        cv = solver.solve(child)
        theirs_left = child.tricks_left - cv if child.to_play & 1 == me else cv
        mine += child.tricks_left - theirs_left
        theirs = theirs_left + (1 if len(pos.trick) == 3 and leader & 1 != me else 0)
        assert mine == v, (pos, c)
        assert mine + theirs == pos.tricks_left


@settings(max_examples=300, deadline=None)
@given(positions())
def test_cards_bound_the_value(pos: Position) -> None:
    value = solver.solve(pos)
    cards = solver.solve_cards(pos)
    assert set(cards) == set(pos.legal_cards())
    if pos.misere:
        # each side minimises its own tricks
        assert all(v >= value for v in cards.values())
    else:
        assert all(v <= value for v in cards.values())
    assert value in cards.values()
    for k in range(pos.tricks_left + 2):
        assert solver.can_take(pos, k) == (value >= k)
