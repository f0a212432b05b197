"""Benchmark whistkit's double-dummy solver against DDS (through endplay).

The same seeded deals at 5, 8 and 13 cards per hand go through whistkit and DDS, one
solve at a time on one thread: the position's value and every card's value, in no
trump and with spades trump. Then misère (no trump) against whistkit's own
normal-play time on the same deals. Prints median and p95 milliseconds per solve and
the ratios (whistkit / DDS; misère / normal).

    PYTHONPATH=src python benchmarks/solver.py [--deals 200] [--seed 1] [--sizes 5,8,13]
        [--interleave] [--misere-deals N] [--no-misere]

endplay is a benchmark and test extra only, reached through whistkit.solver.dds, which
nothing in whistkit imports at run time.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import machine  # benchmarks/machine.py, beside this script
import whistkit.solver as solver
from whistkit.solver import Position
from whistkit.solver.dds import cards_of, solve_board


def make_deals(n: int, count: int, seed: int) -> list[tuple[int, int, int, int]]:
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


def timed(fn: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    result = fn(*args)
    return (time.perf_counter() - t0) * 1000.0, result


def _pass(
    fn: Callable[..., Any], positions: list[Position], *args: Any
) -> tuple[list[float], list[Any]]:
    times, results = [], []
    for p in positions:
        t, r = timed(fn, p, *args)
        times.append(t)
        results.append(r)
    return times, results


def _pair_pass(
    fn: Callable[..., Any], ref: Callable[..., Any], positions: list[Position], mode: int
) -> tuple[list[float], list[Any], list[float], list[Any]]:
    """Both solvers deal by deal (whistkit, then DDS), so that a change in the machine's
    load hits both alike; DDS still never solves the same deal twice in a row."""
    wt, wr, rt, rr = [], [], [], []
    for p in positions:
        t, r = timed(fn, p)
        wt.append(t)
        wr.append(r)
        t, r = timed(ref, p, mode)
        rt.append(t)
        rr.append(r)
    return wt, wr, rt, rr


def p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(0.95 * (len(s) - 1)))]


def summary(wk: list[float], ref: list[float]) -> dict[str, float]:
    wm, rm = statistics.median(wk), statistics.median(ref)
    wp, rp = p95(wk), p95(ref)
    return {
        "median_ms": wm,
        "p95_ms": wp,
        "ref_median_ms": rm,
        "ref_p95_ms": rp,
        "median_ratio": wm / rm,
        "p95_ratio": wp / rp,
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"deals": args.deals, "seed": args.seed, "rows": []}
    rows = results["rows"]
    print(
        f"{'cards':>5} {'strain':>6} {'what':>10} | {'wk med':>8} {'wk p95':>8} | "
        f"{'ref med':>8} {'ref p95':>8} | {'ratio med':>9} {'ratio p95':>9}  ref"
    )
    mismatches = 0
    for n in args.sizes:
        deals = make_deals(n, args.deals, args.seed)
        normal_nt: list[float] = []
        for trump, strain in ((None, "NT"), (0, "S")):
            positions = [Position(h, (), i % 4, trump) for i, h in enumerate(deals)]
            # one pass per solver and mode, so that DDS never re-solves the deal it
            # has just solved (it would reuse its transposition table)
            if args.interleave:
                wk_v, values, dds_v, futs = _pair_pass(solver.solve, solve_board, positions, 1)
            else:
                wk_v, values = _pass(solver.solve, positions)
                dds_v, futs = _pass(solve_board, positions, 1)
            mismatches += sum(v != f.score[0] for v, f in zip(values, futs, strict=True))
            wk_c: list[float] = []
            dds_c: list[float] = []
            if not args.no_cards:
                if args.interleave:
                    wk_c, cards, dds_c, futs = _pair_pass(
                        solver.solve_cards, solve_board, positions, 3
                    )
                else:
                    wk_c, cards = _pass(solver.solve_cards, positions)
                    dds_c, futs = _pass(solve_board, positions, 3)
                mismatches += sum(c != cards_of(f) for c, f in zip(cards, futs, strict=True))
            if trump is None:
                normal_nt = wk_v
            for what, wk, ref in (("value", wk_v, dds_v), ("cards", wk_c, dds_c)):
                if not wk:
                    continue
                row = {"cards": n, "strain": strain, "what": what, "ref": "DDS"}
                row.update(summary(wk, ref))
                rows.append(row)
                _print_row(row)
        if args.misere:
            count = args.deals if args.misere_deals is None else args.misere_deals
            mis = [Position(h, (), i % 4, None, True) for i, h in enumerate(deals[:count])]
            wk_m, _ = _pass(solver.solve, mis)
            row = {"cards": n, "strain": "NOLO", "what": "value", "ref": "normal"}
            row.update(summary(wk_m, normal_nt[:count]))
            rows.append(row)
            _print_row(row)
        sys.stdout.flush()
    results["mismatches"] = mismatches
    print(f"value mismatches against DDS: {mismatches}")
    return results


def _print_row(r: dict[str, Any]) -> None:
    print(
        f"{r['cards']:>5} {r['strain']:>6} {r['what']:>10} | {r['median_ms']:8.3f} "
        f"{r['p95_ms']:8.2f} | {r['ref_median_ms']:8.3f} {r['ref_p95_ms']:8.2f} | "
        f"{r['median_ratio']:9.2f} {r['p95_ratio']:9.2f}  {r['ref']}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=200, help="deals per size (default 200)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the deals (default 1)")
    ap.add_argument(
        "--sizes",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[5, 8, 13],
        help="cards per hand, comma-separated (default 5,8,13)",
    )
    ap.add_argument("--no-cards", action="store_true", help="skip every-card solves")
    ap.add_argument(
        "--interleave",
        action="store_true",
        help="time whistkit and DDS deal by deal instead of in two passes (ratios then "
        "hold better on a machine whose load changes)",
    )
    ap.add_argument("--no-misere", dest="misere", action="store_false", help="skip misère")
    ap.add_argument(
        "--misere-deals",
        type=int,
        default=None,
        help="misère on the first N deals only (default: all)",
    )
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    print(machine.describe(), flush=True)
    if not solver.has_core():
        print("the compiled core whistkit.solver._dd is missing", file=sys.stderr)
        return 1
    results = run(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
