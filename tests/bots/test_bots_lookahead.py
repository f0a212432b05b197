"""The expert's look-ahead (own moves held consistent across worlds) against plain PIMC."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from helpers_bots import late_positions

from whistkit import solver
from whistkit.bots import ExpertBot
from whistkit.bots.lookahead import OBSERVE, Lookahead
from whistkit.bots.pimc import hand_scorer
from whistkit.bots.sampling import sample_deals
from whistkit.seats import side_of
from whistkit.state import View
from whistkit.variants import VARIANTS


def _cases(
    variant: str, n: int, worlds: int, tricks_left: int = 4
) -> Iterator[tuple[View, list[int], list[list[int]]]]:
    """Play decisions with 2+ legal cards and ``worlds`` sampled worlds each."""
    for i, state in enumerate(late_positions(variant, n, seed=7, tricks_left=tricks_left)):
        view = state.view(state.to_play)
        cards = [a for a in view.legal if type(a) is int]
        if view.contract is None or len(cards) < 2:
            continue
        drawn = [list(w) for w in sample_deals(view, worlds, random.Random(i))]
        for w in drawn:
            w[view.seat] = view.hand
        yield view, cards, drawn


def _pimc(view: View, cards: list[int], worlds: list[list[int]]) -> dict[int, float]:
    """Plain PIMC: each world's double-dummy value of each card, scored and summed."""
    assert view.contract is not None
    score = hand_scorer(view.variant, view.contract, side_of(view.seat), view.tricks)
    totals = dict.fromkeys(cards, 0.0)
    for w in worlds:
        pos = solver.Position(
            hands=(w[0], w[1], w[2], w[3]),
            trick=tuple(view.trick),
            leader=view.leader,
            trump=view.contract.trump,
            misere=view.contract.misere,
            aces_low=view.contract.aces_low,
        )
        values = solver.solve_cards(pos)
        for c in cards:
            totals[c] += score(values[c])
    return totals


def _lookahead(
    view: View, worlds: list[list[int]], cards: list[int], depth: int, observe: str = "coarse"
) -> dict[int, float]:
    assert view.contract is not None
    score = hand_scorer(view.variant, view.contract, side_of(view.seat), view.tricks)
    return Lookahead(solver, view, score, observe=observe).values(worlds, cards, depth)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_one_world_leaves_nothing_to_fuse(variant: str) -> None:
    # in a single world every line is its own group: the look-ahead is double-dummy play,
    # so it must give each card exactly plain PIMC's value (misère and Swedish scoring too)
    n = 0
    for view, cards, worlds in _cases(variant, 40, 1):
        n += 1
        expected = _pimc(view, cards, worlds)
        for observe in OBSERVE:
            assert _lookahead(view, worlds, cards, 2, observe) == expected
            assert _lookahead(view, worlds, cards, 3, observe) == expected
    assert n >= 20


def test_holding_own_moves_consistent_only_lowers_values() -> None:
    # one card per group instead of each world's best: never more than PIMC, and a deeper
    # look-ahead never more than a shallower one; strictly less where a later guess hides.
    # A coarse group is a union of exact ones, so seeing less never raises a value either.
    fused = coarser = 0
    kinds = set()
    for view, cards, worlds in _cases("felagsvist", 150, 12, tricks_left=6):
        assert view.contract is not None
        pimc = _pimc(view, cards, worlds)
        two = _lookahead(view, worlds, cards, 2, "cards")
        three = _lookahead(view, worlds, cards, 3, "cards")
        coarse = _lookahead(view, worlds, cards, 2, "coarse")
        coarse3 = _lookahead(view, worlds, cards, 3, "coarse")
        for c in cards:
            assert three[c] <= two[c] + 1e-9 <= pimc[c] + 2e-9
            assert coarse3[c] <= coarse[c] + 1e-9 <= two[c] + 2e-9
            assert coarse3[c] <= three[c] + 1e-9
        if any(two[c] < pimc[c] - 1e-9 for c in cards):
            fused += 1
            kinds.add(view.contract.misere)
        coarser += any(coarse[c] < two[c] - 1e-9 for c in cards)
    assert fused >= 5
    assert kinds == {False, True}  # found in trumps/Grand and in Nóló
    assert coarser >= 5


def test_expert_plays_the_best_card_of_its_look_ahead() -> None:
    worlds = 12
    bot = ExpertBot(worlds=lambda left, misere: worlds, lookahead=lambda left, misere: 2)
    for i, state in enumerate(late_positions("felagsvist", 40, seed=3, tricks_left=4)):
        view = state.view(state.to_play)
        cards = [a for a in view.legal if type(a) is int]
        if view.contract is None or len(cards) < 2:
            continue
        draw = bot._drawer(view, random.Random(i))
        drawn = [draw() for _ in range(worlds)]
        values = _lookahead(view, drawn, cards, 2)
        card = bot.choose(view, random.Random(i))
        assert values[card] == max(values.values())
        assert bot.last_worlds == worlds


def test_a_look_ahead_of_one_move_is_refused() -> None:
    view, cards, worlds = next(_cases("felagsvist", 5, 2))
    with pytest.raises(ValueError, match="at least 2 own moves"):
        _lookahead(view, worlds, cards, 1)


def test_an_unknown_observation_is_refused() -> None:
    view, cards, worlds = next(_cases("felagsvist", 5, 2))
    with pytest.raises(ValueError, match="observe must be one of coarse, cards, not 'suits'"):
        _lookahead(view, worlds, cards, 2, "suits")
    with pytest.raises(ValueError, match="observe must be one of coarse, cards, not 'all'"):
        ExpertBot(observe="all")
