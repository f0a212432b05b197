"""Normal-play search nodes (exact, machine-independent): the tuning gauge for issue 20.

For the seeded deals of benchmarks/solver.py (same seed, same size) solves normal play
(the leader rotating from North) in no trump and with spades trump, the position's value
or, with ``--cards``, every card's, and prints the total and median search nodes per
strain. ``--flags F`` switches prunings off through ``_dd.set_flags``.

    PYTHONPATH=src python benchmarks/normal_nodes.py [--cards 13] [--deals 40] [--seed 11]
        [--every-card] [--flags 0]
"""

from __future__ import annotations

import argparse
import statistics
import time

import machine  # benchmarks/machine.py, beside this script
import whistkit.solver as solver
from solver import make_deals
from whistkit.solver import Position, _dd  # type: ignore[attr-defined]


def nodes_now() -> int:
    st = _dd.nodes()
    return int(st[0]) if st else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=13, help="cards per hand (default 13)")
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--every-card", action="store_true", help="every card's value")
    ap.add_argument("--flags", type=int, default=0)
    args = ap.parse_args()
    print(machine.describe(), flush=True)
    _dd.set_flags(args.flags)
    deals = make_deals(args.cards, args.deals, args.seed)
    fn = solver.solve_cards if args.every_card else solver.solve
    for trump, name in ((None, "NT"), (0, "spades")):
        nodes = []
        t0 = time.process_time()
        for i, h in enumerate(deals):
            before = nodes_now()
            fn(Position(h, (), i % 4, trump))
            nodes.append(nodes_now() - before)
        print(
            f"{args.cards} cards {name}: {len(nodes)} deals, total {sum(nodes) / 1e6:.3f} M"
            f" nodes, median {statistics.median(nodes) / 1e3:.1f} k;"
            f" {time.process_time() - t0:.2f} s CPU",
            flush=True,
        )


if __name__ == "__main__":
    main()
