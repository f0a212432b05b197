"""Counted tests (perft): the number of legal play sequences from fixed deals.

The counts were computed once by the slow string-based reference below and are asserted
against the engine forever, so any change in what is legal shows up as a changed number.
"""

from __future__ import annotations

import random

import pytest

from whisthelp import referee_trick_winner
from whistkit.deal import deal_cards
from whistkit.state import Deal, State, new_game


def engine_count(state: State, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(engine_count(state.apply(a), depth - 1) for a in state.legal_actions())


def reference_count(hands: list[set[str]], leader: int, trick: list[str], depth: int) -> int:
    """Every sequence from card strings alone, in hand 1 (hearts are trump)."""
    if depth == 0:
        return 1
    seat = (leader + len(trick)) % 4
    hand = hands[seat]
    legal = [c for c in hand if trick and c[1] == trick[0][1]] or list(hand)
    total = 0
    for card in legal:
        hands[seat] = hand - {card}
        if len(trick) == 3:
            winner = (leader + referee_trick_winner([*trick, card], "H")) % 4
            total += reference_count(hands, winner, [], depth - 1)
        else:
            total += reference_count(hands, leader, [*trick, card], depth - 1)
        hands[seat] = hand
    return total


def start(seed: int) -> State:
    rng = random.Random(seed)
    s = new_game("felagsvist", dealer=3)
    return s.apply(Deal(deal_cards(rng, 3).hands))


# (seed, depth) -> number of legal sequences of the first `depth` cards of hand 1
PERFT = {(1, 4): 402, (2, 4): 1154, (3, 3): 123, (4, 6): 11928}


@pytest.mark.parametrize(("seed", "depth"), sorted(PERFT))
def test_perft(seed: int, depth: int) -> None:
    assert engine_count(start(seed), depth) == PERFT[seed, depth]
