"""Helpers shared by the variant tests (deals with chosen cards, bot games)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from whistkit.bots import make_bot
from whistkit.cards import parse_card
from whistkit.deal import deal_cards
from whistkit.game import Game
from whistkit.state import Deal, State


def deal_with(
    required: Mapping[int, Sequence[str]], seed: int = 0, dealer: int = 0
) -> tuple[int, int, int, int]:
    """A random deal in which each seat holds the cards named for it."""
    hands = list(deal_cards(random.Random(seed), dealer).hands)
    for seat, names in required.items():
        for name in names:
            card = parse_card(name)
            owner = next(s for s in range(4) if hands[s] >> card & 1)
            if owner == seat:
                continue
            # swap with a card of ``seat`` that is not itself required
            keep = {parse_card(n) for n in required.get(seat, ())}
            keep |= {parse_card(n) for n in required.get(owner, ())}
            give = next(c for c in range(52) if hands[seat] >> c & 1 and c not in keep)
            hands[seat] ^= (1 << give) | (1 << card)
            hands[owner] ^= (1 << give) | (1 << card)
    for seat, names in required.items():
        assert all(hands[seat] >> parse_card(n) & 1 for n in names)
    return hands[0], hands[1], hands[2], hands[3]


def bot_game(variant: str, seed: int, options: Mapping[str, Any] | None = None) -> State:
    """A whole game of four beginner bots."""
    g = Game(variant, options, seed=seed, bots={s: make_bot() for s in range(4)})
    g.run_bots()
    assert g.state.is_over
    return g.state


def deal_action(hands: tuple[int, int, int, int], turned: str | None = None) -> Deal:
    return Deal(hands, None if turned is None else parse_card(turned))
