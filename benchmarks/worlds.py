"""How well and how fast the expert draws its worlds, against the rejection sampler's
stand-ins (the anchor, measured in the same run).

Usage: python benchmarks/worlds.py [--games G] [--seed S] [--tricks LO-HI] [--worlds N]

Positions: every card decision with two or more legal cards of N-S in G whole Félagsvist
games played by the club rules (seeds S..S+G-1), with LO to HI tricks left. At each the
expert draws N worlds as it would for a decision, and the benchmark prints the share of
the hidden cards that the worlds place with the seat that truly holds them (the better
the inference, the higher; uniform worlds are the floor) and the CPU time of the drawing
per decision, beside the same for

- ``uniform``: no inference (every consistent deal alike);
- ``rejection``: the policy model by rejection sampling alone, 100 draws per world, the
  likeliest drawn standing in where none is kept (the expert before the chain);
- ``expert``: the expert's default (MAX_TRIES draws per world, then the chain).

The CPU time is the process's (no threads are involved in drawing), so a shared machine
moves it less than wall time; the ratio to ``rejection`` is the figure to read.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import machine  # benchmarks/machine.py, beside this script
from whistkit.bots import make_bot
from whistkit.bots.pimc import ExpertBot
from whistkit.state import State, View

CONFIGS: dict[str, dict[str, Any]] = {
    "uniform": {"infer": False},
    "rejection": {"max_tries": 100, "chain_thin": 0},
    "expert": {},
}


def positions(games: int, seed: int, lo: int, hi: int) -> list[tuple[View, State]]:
    club = make_bot("club")
    out = []
    for g in range(seed, seed + games):
        bot_rng = random.Random(g)
        game = machine.felagsvist_decisions(
            random.Random(f"worlds:{g}"), lambda v, r=bot_rng: club.choose(v, r)
        )
        for state, view in game:
            left = view.hand_sizes[view.to_play]
            if lo <= left <= hi and len(view.legal) > 1 and state.to_play % 2 == 0:
                out.append((view, state))
    return out


def measure(
    bot: ExpertBot, cases: list[tuple[View, State]], worlds: int
) -> tuple[float, list[float]]:
    placed: list[float] = []
    times: list[float] = []
    for i, (view, state) in enumerate(cases):
        rng = random.Random(i)
        start = time.process_time()
        draw, _ = bot._drawer(view, rng)
        drawn = [draw() for _ in range(worlds)]
        times.append(time.process_time() - start)
        others = [s for s in range(4) if s != view.seat]
        hidden = sum(state.holdings[s].bit_count() for s in others)
        right = sum((w[s] & state.holdings[s]).bit_count() for w in drawn for s in others)
        placed.append(right / (hidden * worlds))
    return statistics.mean(placed), times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tricks", default="3-8", help="tricks left at the decisions, LO-HI")
    parser.add_argument("--worlds", type=int, default=96, help="worlds per decision")
    args = parser.parse_args()
    lo, _, hi = args.tricks.partition("-")
    print(machine.describe(), flush=True)
    cases = positions(args.games, args.seed, int(lo), int(hi or lo))
    print(
        f"{len(cases)} N-S decisions at {args.tricks} tricks left of {args.games} club-played"
        f" Félagsvist games (seed {args.seed}), {args.worlds} worlds each\n"
    )
    print(
        "| sampler | cards placed right | draw CPU median / p95 (ms) | total CPU | vs rejection |"
    )
    print("|---|---|---|---|---|")
    anchor = None
    for name, kwargs in CONFIGS.items():
        placed, times = measure(ExpertBot(**kwargs), cases, args.worlds)
        total = sum(times)
        if name == "rejection":
            anchor = total
        ratio = f"{total / anchor:.2f}" if anchor else "-"
        times.sort()
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(
            f"| {name} | {placed:.4f} | {1000 * statistics.median(times):.0f} /"
            f" {1000 * p95:.0f} | {total:.1f} s | {ratio} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
