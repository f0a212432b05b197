"""Random full hands per second: through the public API, and the same loop on raw ints.

Usage: python benchmarks/playouts.py [--hands N] [--seed S]

Anchors (from the issue, this machine): a lean pure-Python loop does about 22,000
hands/s; OpenSpiel's C++ engine driven from Python about 20,000. The goal for the public
API is at least 5,000 hands/s.
"""

from __future__ import annotations

import argparse
import random
import time

import machine  # benchmarks/machine.py, beside this script
from whistkit.cards import SUIT_MASKS
from whistkit.deal import deal_cards
from whistkit.state import Deal, new_game

ANCHOR_LEAN = 22_000
ANCHOR_OPENSPIEL = 20_000
GOAL = 5_000


def public_api(hands: int, seed: int) -> float:
    """Deal, then legal_actions + apply with random choices, via whistkit.state."""
    rng = random.Random(seed)
    state = new_game("felagsvist", dealer=0)
    start = time.perf_counter()
    for _ in range(hands):
        if state.is_over:
            state = new_game("felagsvist", dealer=0)
        state = state.apply(Deal(deal_cards(rng, state.dealer).hands))
        for _ in range(52):
            state = state.apply(rng.choice(state.legal_actions()))
    return hands / (time.perf_counter() - start)


def raw_ints(hands: int, seed: int) -> float:
    """The same random hands on bare masks: no state objects, no checks."""
    rng = random.Random(seed)
    start = time.perf_counter()
    for _ in range(hands):
        holdings = list(deal_cards(rng, 0).hands)
        leader = 1
        trump = 1
        for _ in range(13):
            trick: list[int] = []
            seat = leader
            for _ in range(4):
                hand = holdings[seat]
                if trick:
                    follow = hand & SUIT_MASKS[trick[0] // 13]
                    if follow:
                        hand = follow
                options = []
                while hand:
                    low = hand & -hand
                    options.append(low.bit_length() - 1)
                    hand ^= low
                card = rng.choice(options)
                holdings[seat] ^= 1 << card
                trick.append(card)
                seat = (seat + 1) & 3
            best = 0
            for i in range(1, 4):
                c, b = trick[i], trick[best]
                if c // 13 == b // 13:
                    if c > b:
                        best = i
                elif c // 13 == trump:
                    best = i
            leader = (leader + best) & 3
    return hands / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(machine.describe(), flush=True)
    public_api(200, args.seed)  # warm up
    api = public_api(args.hands, args.seed)
    raw = raw_ints(args.hands, args.seed)
    print(f"random Félagsvist hands per second ({args.hands} hands, seed {args.seed})")
    print(f"{'loop':<38}{'hands/s':>10}{'vs lean anchor':>16}{'vs OpenSpiel':>14}")
    for name, value in (
        ("whistkit public API (legal + apply)", api),
        ("raw-int loop, same play", raw),
    ):
        print(
            f"{name:<38}{value:>10,.0f}{value / ANCHOR_LEAN:>15.2f}x{value / ANCHOR_OPENSPIEL:>13.2f}x"
        )
    print(f"{'anchor: lean pure-Python loop':<38}{ANCHOR_LEAN:>10,}")
    print(f"{'anchor: OpenSpiel C++ from Python':<38}{ANCHOR_OPENSPIEL:>10,}")
    print(
        f"public API / raw ints: {api / raw:.2f}; goal >= {GOAL:,} hands/s: "
        f"{'met' if api >= GOAL else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
