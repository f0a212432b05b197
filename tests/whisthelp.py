"""Shared test helpers: random games through the public API, and an independent referee."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from whistkit.deal import deal_cards
from whistkit.state import Deal, State, new_game

SUITS = "SHDC"
RANKS = "23456789TJQKA"


def random_game(
    variant: str, seed: int, options: Mapping[str, Any] | None = None, max_hands: int = 100
) -> State:
    """A whole game with uniformly random legal actions, seeded."""
    rng = random.Random(seed)
    state = new_game(variant, options, dealer=rng.randrange(4))
    hands = 0
    while not state.is_over and hands <= max_hands:
        if state.needs_deal:
            dealt = deal_cards(rng, state.dealer)
            turned = dealt.last_card if state.variant.uses_turned_card else None
            state = state.apply(Deal(dealt.hands, turned))
            hands += 1
        else:
            state = state.apply(rng.choice(state.legal_actions()))
    return state


def referee_trick_winner(cards: list[str], trump: str | None, aces_low: bool = False) -> int:
    """Index of the winning card, computed from card strings alone (not the engine's code)."""
    order = "A23456789TJQK" if aces_low else RANKS

    def power(card: str) -> int:
        rank, suit = card[0], card[1]
        if trump is not None and suit == trump:
            return 200 + order.index(rank)
        if suit == cards[0][1]:
            return 100 + order.index(rank)
        return -1

    powers = [power(c) for c in cards]
    return powers.index(max(powers))
