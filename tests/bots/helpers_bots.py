"""Shared helpers of the bot tests: positions reached by seeded play."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from whistkit.bots import BeginnerBot
from whistkit.cards import SUIT_MASKS, iter_cards
from whistkit.deal import deal_cards
from whistkit.state import PLAY, Contract, Deal, State, new_game, trick_winner_index


def positions(variant: str, n: int, seed: int) -> Iterator[State]:
    """``n`` play positions of ``variant``: seeded deals, seeded random-ish play to a stop.

    Hands are dealt in every hand number of the cycle, and play stops at a random card
    (trick 1 included), so every contract kind and trick position is covered.
    """
    rng = random.Random(seed)
    bot = BeginnerBot()
    made = 0
    while made < n:
        state = new_game(variant, dealer=rng.randrange(4))
        # skip to a random hand of the cycle by scoring-free fast forward: play whole hands
        target_hand = rng.randrange(1, 13)
        while True:
            state = state.apply(Deal(deal_cards(rng, state.dealer).hands))
            stop = rng.randrange(52) if state.hand_number == target_hand else 52
            for _ in range(stop):
                seat = state.to_play
                if rng.random() < 0.3:
                    state = state.apply(rng.choice(state.legal_actions()))
                else:
                    state = state.apply(bot.choose(state.view(seat), rng))
            if state.phase == PLAY:
                break
        made += 1
        yield state


def late_positions(variant: str, n: int, seed: int, tricks_left: int) -> Iterator[State]:
    """Positions with at most ``tricks_left`` tricks to go (for the tiny solver)."""
    rng = random.Random(seed)
    bot = BeginnerBot()
    made = 0
    while made < n:
        state = new_game(variant, dealer=rng.randrange(4))
        target_hand = rng.randrange(1, 13)
        while True:
            state = state.apply(Deal(deal_cards(rng, state.dealer).hands))
            stop = (
                52 - rng.randrange(1, 4 * tricks_left) if state.hand_number == target_hand else 52
            )
            for _ in range(stop):
                state = state.apply(bot.choose(state.view(state.to_play), rng))
            if state.phase == PLAY:
                break
        made += 1
        yield state


@dataclass(frozen=True)
class TinyPosition:
    """The solver API's Position, for the tiny test solver."""

    hands: tuple[int, int, int, int]
    trick: tuple[int, ...] = ()
    leader: int = 0
    trump: int | None = None
    misere: bool = False
    aces_low: bool = False


class TinySolver:
    """A brute-force double-dummy solver with the API of ``whistkit.solver`` (short endings).

    Values are the tricks the side to play takes from here, the current trick included.
    """

    Position = TinyPosition

    def __init__(self) -> None:
        self.calls = 0

    def solve_cards(self, pos: TinyPosition) -> dict[int, int]:
        self.calls += 1
        contract = Contract("X", pos.trump, pos.misere, aces_low=pos.aces_low)
        to_play = (pos.leader + len(pos.trick)) & 3
        side = to_play & 1

        @cache
        def ns(hands: tuple[int, int, int, int], trick: tuple[int, ...], leader: int) -> int:
            if len(trick) == 4:
                w = (leader + trick_winner_index(trick, contract)) & 3
                won = 1 if w & 1 == 0 else 0
                if not any(hands):
                    return won
                return won + ns(hands, (), w)
            seat = (leader + len(trick)) & 3
            values = [ns(*_after(hands, trick, leader, c)) for c in _legal(hands[seat], trick)]
            maximise = (seat & 1 == 0) != contract.misere
            return max(values) if maximise else min(values)

        left = pos.hands[to_play].bit_count()
        out = {}
        for c in _legal(pos.hands[to_play], pos.trick):
            v = ns(*_after(pos.hands, pos.trick, pos.leader, c))
            out[c] = v if side == 0 else left - v
        return out

    def solve_batch(
        self, positions: list[TinyPosition], *, cards: bool = False, threads: int = 2
    ) -> list[dict[int, int]]:
        assert cards
        return [self.solve_cards(p) for p in positions]


def _legal(hand: int, trick: tuple[int, ...]) -> list[int]:
    if trick:
        follow = hand & SUIT_MASKS[trick[0] // 13]
        if follow:
            hand = follow
    return list(iter_cards(hand))


def _after(
    hands: tuple[int, int, int, int], trick: tuple[int, ...], leader: int, card: int
) -> tuple[tuple[int, int, int, int], tuple[int, ...], int]:
    seat = (leader + len(trick)) & 3
    h = list(hands)
    h[seat] &= ~(1 << card)
    return (h[0], h[1], h[2], h[3]), (*trick, card), leader
