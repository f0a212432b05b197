"""Misère at 13 cards: exact times, and what a node budget settles.

For seeded whole deals (no trump, misère; the leader rotates), solves each within a node
budget (default 1,000,000) and prints the proven range, then sums up how many came out
exact, within one trick and within two. ``--exact N`` also solves the first N deals
without a budget and prints their times, beside the normal no-trump time of the same
deals (the anchor, measured in the same run).

    PYTHONPATH=src python benchmarks/misere.py [--deals 40] [--seed 5] [--budget 1000000]
        [--exact 0] [--threads 1]

``--threads 2`` searches each position on two cores at once (``solve(pos, threads=2)``:
each thread has half of the node budget).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import machine  # benchmarks/machine.py, beside this script
import whistkit.solver as solver
from whistkit.solver import Position


def make_deals(n: int, count: int, seed: int) -> list[tuple[int, int, int, int]]:
    """The deals of benchmarks/solver.py (same seed, same deals)."""
    rng = random.Random(seed * 1000 + n)
    deals = []
    for _ in range(count):
        deck = list(range(52))
        rng.shuffle(deck)
        hands = [0, 0, 0, 0]
        for i in range(4):
            for c in deck[i * n : (i + 1) * n]:
                hands[i] |= 1 << c
        deals.append((hands[0], hands[1], hands[2], hands[3]))
    return deals


def _q(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--budget", type=int, default=1_000_000)
    ap.add_argument("--exact", type=int, default=0, help="deals to solve without a node budget")
    ap.add_argument(
        "--cap", type=float, default=120.0, help="seconds at most per exact solve (then '>')"
    )
    ap.add_argument("--threads", type=int, default=1, choices=(1, 2))
    args = ap.parse_args()
    print(machine.describe(), flush=True)
    deals = make_deals(13, args.deals, args.seed)
    positions = [Position(h, (), i % 4, None, True) for i, h in enumerate(deals)]
    widths, times = [], []
    for i, p in enumerate(positions):
        t0 = time.perf_counter()
        b = solver.solve(p, node_limit=args.budget, threads=args.threads)
        dt = time.perf_counter() - t0
        widths.append(b.hi - b.lo)
        times.append(dt)
        print(f"deal {i:>3}: {b!s:>5}  {dt * 1000:8.0f} ms", flush=True)
    n = len(widths)
    print(
        f"budget {args.budget:,} nodes, {n} deals (seed {args.seed}): exact {widths.count(0)},"
        f" range <= 1: {sum(w <= 1 for w in widths)}, <= 2: {sum(w <= 2 for w in widths)}"
        f" ({100 * sum(w <= 2 for w in widths) / n:.0f}%); median width"
        f" {statistics.median(widths)}; time median {statistics.median(times) * 1000:.0f} ms,"
        f" p95 {_q(times, 0.95) * 1000:.0f} ms"
    )
    if args.exact:
        mt, nt = [], []
        for i, p in enumerate(positions[: args.exact]):
            t0 = time.perf_counter()
            b = solver.solve(p, time_limit=args.cap, threads=args.threads)
            dt = time.perf_counter() - t0
            v = str(b) if b.exact else f">{args.cap:.0f}s ({b})"
            t1 = time.perf_counter()
            solver.solve(Position(p.hands, (), p.leader, None, False))
            dn = time.perf_counter() - t1
            nt.append(dn)
            print(f"exact deal {i:>3}: {v:>2}  misère {dt:7.2f} s  normal NT {dn * 1000:6.1f} ms")
            mt.append(dt if b.exact else float("inf"))
        print(
            f"exact misère, {len(mt)} deals (inf: over --cap): median {statistics.median(mt):.2f} s,"
            f" p95 {_q(mt, 0.95):.2f} s; normal NT median {statistics.median(nt) * 1000:.1f} ms"
        )


if __name__ == "__main__":
    main()
