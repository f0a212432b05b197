"""The expert's CPU time per decision under two settings, on the same positions.

Usage: python benchmarks/expert_cpu.py [--games G] [--seed S] [--anchor 'key=value:...']

Positions: every card decision with two or more legal cards in G whole Félagsvist games
played by the default expert at all four seats. At each, the default expert and the
anchor (``ExpertBot`` with the ``--anchor`` settings, Python literals, e.g.
``respond='club'``: the look-ahead's answers before issue 35's change) choose from the
same view with the same seed, and the process's CPU time of each choice is taken (the
solver's threads included). CPU time moves less than wall time on a shared machine, and
both settings are measured in turn in one run, so their ratio is the figure to read; the
whole-game wall times of ``benchmarks/bots.py --skip-ladder`` need a quiet machine.
Printed: median, p95 and total per setting, by tricks left too, and the share of
decisions where the two chose the same card.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import machine  # benchmarks/machine.py, beside this script
from paired import expert_settings  # benchmarks/paired.py, beside this script
from whistkit.bots.pimc import ExpertBot
from whistkit.state import View


def positions(games: int, seed: int) -> list[View]:
    bot = ExpertBot(time_budget=None)
    out = []
    for g in range(seed, seed + games):
        game = machine.felagsvist_decisions(
            random.Random(f"expert-cpu:{g}"),
            lambda v, g=g: bot.choose(v, random.Random(f"{g}:{len(out)}")),
        )
        for _, view in game:
            if len([a for a in view.legal if type(a) is int]) > 1:
                out.append(view)
    return out


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--anchor", default="respond='club'")
    args = parser.parse_args()
    print(machine.describe(), flush=True)
    views = positions(args.games, args.seed)
    bots = {
        "default": ExpertBot(time_budget=None),
        args.anchor: ExpertBot(**expert_settings("--anchor", args.anchor)),
    }
    times: dict[str, list[float]] = {name: [] for name in bots}
    chose: dict[str, list[Any]] = {name: [] for name in bots}
    for i, view in enumerate(views):
        for name, bot in bots.items():
            start = time.process_time()
            chose[name].append(bot.choose(view, random.Random(i)))
            times[name].append(time.process_time() - start)
    print(f"{len(views)} decisions of {args.games} game(s), seed {args.seed}\n")
    print("| expert | median | p95 | total | ratio of totals |")
    print("|---|---|---|---|---|")
    anchor_total = sum(times[args.anchor])
    for name, ts in times.items():
        print(
            f"| {name} | {1000 * statistics.median(ts):.0f} ms | {1000 * pct(ts, 0.95):.0f} ms"
            f" | {sum(ts):.1f} s | {sum(ts) / anchor_total:.2f} |"
        )
    same = sum(a == b for a, b in zip(*chose.values(), strict=True))
    print(f"\nsame card at {same} of {len(views)} decisions")
    print("\nby tricks left (median ms, default / anchor):")
    for left in range(13, 1, -1):
        idx = [i for i, v in enumerate(views) if v.hand_sizes[v.seat] == left]
        if idx:
            a = statistics.median(times["default"][i] for i in idx)
            b = statistics.median(times[args.anchor][i] for i in idx)
            print(f"  {left:2d}: {1000 * a:.0f} / {1000 * b:.0f} ({len(idx)})")


if __name__ == "__main__":
    main()
