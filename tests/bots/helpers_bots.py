"""Shared helpers of the bot tests: positions reached by seeded play, the benchmark
scripts run as a person runs them."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from whistkit.bots import BeginnerBot
from whistkit.cards import SUIT_MASKS, iter_cards
from whistkit.deal import deal_cards
from whistkit.state import BID, PLAY, Contract, Deal, State, new_game, trick_winner_index


def _step(state: State, rng: random.Random, bot: BeginnerBot) -> State:
    """One action by a mix of the beginner bot and uniformly random legal play."""
    if rng.random() < 0.3:
        return state.apply(rng.choice(state.legal_actions()))
    return state.apply(bot.choose(state.view(state.to_play), rng))


def _deal(state: State, rng: random.Random) -> Deal:
    dealt = deal_cards(rng, state.dealer)
    return Deal(dealt.hands, dealt.last_card if state.variant.uses_turned_card else None)


def _positions(
    variant: str, n: int, seed: int, cards_to_go: Callable[[random.Random], int] | None
) -> Iterator[State]:
    rng = random.Random(seed)
    bot = BeginnerBot()
    made = 0
    while made < n:
        state = new_game(variant, dealer=rng.randrange(4))
        skip = rng.randrange(12)  # whole hands first: every hand of Félagsvist's cycle
        while made < n and not state.is_over:
            state = state.apply(_deal(state, rng))
            if skip:
                skip -= 1
                while state.phase in (BID, PLAY):
                    state = _step(state, rng, bot)
                continue
            if cards_to_go is None:
                for _ in range(rng.randrange(56)):  # bidding included (Swedish)
                    if state.phase not in (BID, PLAY):
                        break
                    state = _step(state, rng, bot)
            else:
                while state.phase == BID:
                    state = _step(state, rng, bot)
                for _ in range(52 - cards_to_go(rng)):
                    state = _step(state, rng, bot)
            if state.phase in (BID, PLAY):
                made += 1
                yield state
                break
            # the hand ended before the stop: try the next one


def positions(variant: str, n: int, seed: int) -> Iterator[State]:
    """``n`` decision positions of ``variant`` (bidding and play, trick 1 included).

    Seeded deals, seeded mixed play; whole hands are skipped first so that every hand
    of Félagsvist's cycle (every contract kind) comes up.
    """
    return _positions(variant, n, seed, None)


def club_hand(number: int, seed: int, cards: int) -> State:
    """A Félagsvist hand of ``number`` played ``cards`` cards deep by four club bots."""
    from whistkit.bots.club import ClubBot

    rng = random.Random(seed)
    state = new_game("felagsvist", dealer=seed % 4).replace(hand_number=number)
    state = state.apply(Deal(deal_cards(rng, state.dealer).hands))
    bot = ClubBot()
    for _ in range(cards):
        state = state.apply(bot.choose(state.view(state.to_play), rng))
    return state


def late_positions(variant: str, n: int, seed: int, tricks_left: int) -> Iterator[State]:
    """Play positions with at most ``tricks_left`` tricks to go (for the tiny solver)."""
    return _positions(variant, n, seed, lambda rng: rng.randrange(1, 4 * tricks_left))


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


BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def run_benchmark(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python benchmarks/SCRIPT ARGS...``; its errors are messages, never tracebacks."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done
