"""The evening organiser's speed: `whistkit evening simulate` of 130 tables and 24 hands.

Usage: python benchmarks/evening.py [--seed S] [--repeat N]

Goal (issue 19, done-when 5): the simulate command of 130 tables (520 players) and 24
hands in under 2 s. Anchor, measured in the same run: the same work for 12 tables, the
smallest evening the issue names. Also: one derive() of a finished 520-player evening
(what each page or result costs the server) and of one mid-evening (hand 12 in play,
half its tables reported), which is what the projector page renders from.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace

from whistkit.evening import Config, Evening, derive, simulate, simulated_players

GOAL_SECONDS = 2.0


def best_of(repeat: int, work: Callable[[], object]) -> tuple[float, float]:
    """The fastest of ``repeat`` runs: (wall seconds, CPU seconds). On a shared machine
    the CPU time is the better guide to what an idle laptop would take."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        work()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu


def played_evening(players: int, seed: int, hands: int = 24) -> Evening:
    """A finished félagsvist evening with random results."""
    return simulate(Config(hands=hands, seed=seed), simulated_players(players)).evening


def mid_evening(players: int = 520, seed: int = 1, hand: int = 12) -> Evening:
    """An evening with hand ``hand`` in play and half its tables reported: the state a
    projector page shows mid-evening (for the projector benchmark of the web part)."""
    full = played_evening(players, seed)
    tables = players // 4
    keep = [r for r in full.results if r.hand < hand or (r.hand == hand and r.table <= tables // 2)]
    return replace(full, results=tuple(keep))


def command_seconds(players: int, seed: int) -> tuple[float, float]:
    """(wall, CPU) seconds of the command itself, interpreter start-up and JSON included."""
    args = [sys.executable, "-m", "whistkit", "evening", "simulate", "--preset", "felagsvist"]
    args += ["--players", str(players), "--hands", "24", "--seed", str(seed), "--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    seed, repeat = args.seed, args.repeat

    def sim(players: int) -> Callable[[], object]:
        return lambda: simulate(Config(hands=24, seed=seed), simulated_players(players))

    anchor = best_of(repeat, sim(48))
    big = best_of(repeat, sim(520))
    finished = played_evening(520, seed)
    derive_full = best_of(repeat, lambda: derive(finished))
    middle = mid_evening(520, seed)
    derive_mid = best_of(repeat, lambda: derive(middle))
    cmd_small = min(command_seconds(48, seed) for _ in range(3))
    cmd_big = min(command_seconds(520, seed) for _ in range(3))

    print(f"evening organiser, félagsvist, 24 hands, seed {seed} (best of {repeat})")
    print(f"{'':<46}{'wall s':>8}{'CPU s':>8}{'CPU vs anchor':>15}")
    rows = [
        ("anchor: simulate 12 tables (48 players)", anchor),
        ("simulate 130 tables (520 players)", big),
        ("derive() a finished 130-table evening", derive_full),
        ("derive() 130 tables, hand 12 half reported", derive_mid),
        ("command, 12 tables (Python start-up incl.)", cmd_small),
        ("command, 130 tables (Python start-up incl.)", cmd_big),
    ]
    for name, (wall, cpu) in rows:
        print(f"{name:<46}{wall:>8.3f}{cpu:>8.3f}{cpu / anchor[1]:>14.1f}x")
    wall, cpu = cmd_big
    load = os.getloadavg()[0]
    print(
        f"goal: the 130-table command under {GOAL_SECONDS:g} s: wall {wall:.2f} s"
        f" ({'met' if wall < GOAL_SECONDS else 'NOT met'}), CPU {cpu:.2f} s"
        f" ({'met' if cpu < GOAL_SECONDS else 'NOT met'}); load average {load:.1f}"
        f" on {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
