"""Environment steps per second with observations, against the raw public API.

Usage: python benchmarks/env.py [--steps N] [--rounds R] [--seed S] [--variant V]

Both loops play random legal actions through whole games of one variant. The raw loop
uses whistkit.state (legal_actions + apply, dealing as whistkit.game does); the env loop
is PettingZoo's AEC loop: env.last() (the observation vector and action mask of the seat
to act), a random legal index, env.step(). The two alternate for R rounds of N/R steps
each and the best round of each counts, so that a busy shared machine disturbs the ratio
less. Goal: at least 20,000 env steps/s.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from whistkit.env import make
from whistkit.env.aec import deal_next
from whistkit.state import new_game

GOAL = 20_000


def raw_api(variant: str, steps: int, seed: int) -> float:
    rng = random.Random(seed)
    state = deal_next(new_game(variant, dealer=0), rng)
    start = time.process_time()
    for _ in range(steps):
        state = state.apply(rng.choice(state.legal_actions()))
        if state.needs_deal:
            state = deal_next(state, rng)
        elif state.is_over:
            state = deal_next(new_game(variant, dealer=0), rng)
    return steps / (time.process_time() - start)


def env_loop(variant: str, steps: int, seed: int) -> float:
    env = make(variant, seed=seed)
    env.reset()
    rng = random.Random(seed)
    start = time.process_time()
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset()
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return steps / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", default="felagsvist")
    args = parser.parse_args()
    raw_api(args.variant, 2_000, args.seed + 1)  # warm up: the tables built on first use
    env_loop(args.variant, 2_000, args.seed + 1)
    per_round = max(1, args.steps // args.rounds)
    raw = env = 0.0
    for r in range(args.rounds):
        raw = max(raw, raw_api(args.variant, per_round, args.seed + 10 * r))
        env = max(env, env_loop(args.variant, per_round, args.seed + 10 * r))
    print(
        f"{args.variant}: {args.rounds} rounds of {per_round:,} steps, random legal actions"
        " (the best round of each)"
    )
    print(f"  raw public API (legal_actions + apply):   {raw:>10,.0f} steps/s")
    print(f"  PettingZoo env (last + observation + step): {env:>8,.0f} steps/s")
    print(
        f"  env / raw: {env / raw:.2f}; goal {GOAL:,} env steps/s: {'met' if env >= GOAL else 'not met'}"
    )


if __name__ == "__main__":
    main()
