"""Partner judged double-dummy in the drawing (``ExpertBot(partner_dd=...)``)."""

from __future__ import annotations

import random
import re

import pytest
from helpers_bots import club_hand

from whistkit import solver
from whistkit.bots.inference import partner_dd_weight
from whistkit.bots.pimc import ExpertBot
from whistkit.bots.sampling import sampler_for
from whistkit.solver.position import position_for
from whistkit.state import Deal, View, new_game


def _misses(view: View, world: tuple[int, ...], number: int, dealer: int) -> int:
    """Partner's cards with at most 8 tricks left that are not among its double-dummy
    best in ``world``, found by replaying the hand from the deal the world implies (each
    seat's cards now plus all it played) and solving each of partner's positions."""
    partner = (view.seat + 2) & 3
    plays = list(view.plays())
    dealt = [world[s] for s in range(4)]
    dealt[view.seat] = view.hand
    for seat, card in plays:
        dealt[seat] |= 1 << card
    state = new_game("felagsvist", dealer=dealer).replace(hand_number=number)
    state = state.apply(Deal((dealt[0], dealt[1], dealt[2], dealt[3])))
    misses = 0
    for seat, card in plays:
        assert state.to_play == seat
        assert state.contract is not None
        legal = state.legal_mask()
        if seat == partner and state.holdings[seat].bit_count() <= 8 and legal & (legal - 1):
            pos = position_for(solver, state.holdings, state.trick, state.leader, state.contract)
            values = solver.solve_cards(pos)
            best = min(values.values()) if state.contract.misere else max(values.values())
            misses += values[card] != best
        state = state.apply(card)
    return misses


def test_a_world_weighs_partner_dd_per_card_partner_did_not_play_double_dummy_best() -> None:
    # four club bots, 10 tricks played: in each world drawn for the seat to play, the
    # factor is partner_dd to the number of partner's cards (played with 8 tricks left
    # or fewer) that were not double-dummy best in that world, as a replay of the whole
    # hand from the world's deal finds; worlds of both kinds occur
    rng = random.Random(4)
    counts = {True: 0, False: 0}
    for number in (1, 3, 6):  # hearts, Grand, Nóló
        for seed in range(3):
            state = club_hand(number, seed, 40)
            view = state.view(state.to_play)
            assert partner_dd_weight(view, solver, 1.0) is None  # off
            weight = partner_dd_weight(view, solver, 0.5, node_limit=None)
            assert weight is not None
            sampler = sampler_for(view)
            for _ in range(12):
                world = sampler.sample(rng)
                misses = _misses(view, world, number, seed % 4)
                assert weight(world) == 0.5**misses, (number, seed)
                counts[misses == 0] += 1
    assert counts[True] >= 10 and counts[False] >= 10, counts


def test_partner_dd_changes_the_worlds_the_expert_draws() -> None:
    # with partner_dd the expert's worlds put partner's cards among its double-dummy best
    # far more often than the default's (which judge partner by the club rules only)
    misses = {0.01: 0, 1.0: 0}
    for number in (1, 3, 6):
        for seed in range(3):
            state = club_hand(number, seed, 40)
            view = state.view(state.to_play)
            for setting in misses:
                # (the opponents judged softly, as when this was measured: the sharp
                # mixture leaves fewer worlds for partner's term to tell apart)
                bot = ExpertBot(partner_dd=setting, club_prior=0.0)
                draw, _ = bot._drawer(view, random.Random(seed))
                for _ in range(12):
                    misses[setting] += _misses(view, tuple(draw()), number, seed % 4) > 0
    assert misses[1.0] >= 10, misses
    assert misses[0.01] * 3 <= misses[1.0], misses


def test_partner_dd_setting_is_checked() -> None:
    for bad in (0.0, 1.5, -1, "0.5", None):
        message = f"partner_dd must be a likelihood above 0 and at most 1, not {bad!r}"
        with pytest.raises(ValueError, match=re.escape(message)):
            ExpertBot(partner_dd=bad)  # type: ignore[arg-type]
    assert ExpertBot(partner_dd=1).partner_dd == 1.0
