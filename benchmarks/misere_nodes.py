"""Misère search nodes (exact, machine-independent) at a few deal sizes: the tuning gauge.

For seeded deals (the deals of benchmarks/solver.py) solves misère no trump exactly
(value only, the leader rotating) and prints the median, mean and total search nodes
and the time per size; with ``--normal`` also normal no trump on the same deals (the
anchor). ``--flags F`` switches prunings off through ``_dd.set_flags`` (compare a new
idea with its switch on and off). 13-card deals may take minutes: use ``--cap`` (nodes
per solve; a deal over it counts as the cap and is marked).

    PYTHONPATH=src python benchmarks/misere_nodes.py [--sizes 8,10] [--deals 100]
        [--seed 11] [--flags 0] [--cap 0] [--normal]
"""

from __future__ import annotations

import argparse
import statistics
import time

import machine  # benchmarks/machine.py, beside this script
import whistkit.solver as solver
from misere import make_deals
from whistkit.solver import Position, _dd  # type: ignore[attr-defined]


def nodes_now() -> int:
    st = _dd.nodes()
    return int(st[0]) if st else 0


def run_size(n: int, deals: int, seed: int, misere: bool, cap: int) -> tuple[list[int], float, int]:
    out = []
    over = 0
    t0 = time.process_time()
    for i, h in enumerate(make_deals(n, deals, seed)):
        p = Position(h, (), i % 4, None, misere)
        a = nodes_now()
        if cap:
            b = solver.solve(p, node_limit=cap)
            over += not b.exact
        else:
            solver.solve(p)
        out.append(nodes_now() - a)
    return out, time.process_time() - t0, over


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="8,10")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--flags", type=int, default=0)
    ap.add_argument("--cap", type=int, default=0, help="node cap per solve (0: none)")
    ap.add_argument("--normal", action="store_true", help="also normal no trump")
    args = ap.parse_args()
    print(machine.describe(), flush=True)
    _dd.set_flags(args.flags)
    for n in [int(x) for x in args.sizes.split(",")]:
        kinds = [True, False] if args.normal else [True]
        for mis in kinds:
            nodes, dt, over = run_size(n, args.deals, args.seed, mis, args.cap)
            print(
                f"{n:>2} cards {'misère' if mis else 'normal'}: {len(nodes)} deals,"
                f" nodes median {statistics.median(nodes):,.0f} mean {statistics.mean(nodes):,.0f}"
                f" total {sum(nodes):,}; {dt:.2f} s CPU"
                + (f"; {over} over the cap" if over else ""),
                flush=True,
            )


if __name__ == "__main__":
    main()
