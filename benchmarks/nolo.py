"""Nóló alone: single-hand duplicate deals of Félagsvist's hand 6, paired comparisons.

Usage: python benchmarks/nolo.py [--deals 120] [--seed 7] [--jobs 2] [--ns expert]
       [--ew club] [--hand 6] [--pimc NAME=VALUE ...] [--out FILE] [--against FILE ...]
       [--partial FILE]
       python benchmarks/nolo.py --pair NEW OLD

Each deal is hand ``--hand`` of a Félagsvist game (hand 6 is Nóló) played at two tables,
``--ns`` at N-S at table a and E-W at table b, the same cards, dealer and bot seeds
(the cards of deal ``i`` from ``(seed, i)``, the dealer from ``(seed, i)``, each seat's
RNG from ``(seed, i, seat)``). A deal's score is the mean of the ``--ns`` level's two
margins (points per hand), so the luck of the cards cancels. ``--out`` writes the
per-deal scores as JSON; ``--against`` prints the paired difference (mean and 95%
interval, deal by deal) to each earlier run on the same deals: the way to compare two
versions of a bot on few deals. ``--pimc NAME=VALUE`` sets a constant of
``whistkit.bots.pimc`` (a number or JSON) in this run, for trying schedules.
``--partial`` appends each deal's result as it finishes, and ``--pair NEW OLD`` gives
the paired difference of two runs over the deals both finished (either file kind).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import machine  # benchmarks/machine.py, beside this script
from whistkit.deal import deal_cards
from whistkit.match import make_player
from whistkit.state import BID, PLAY, Deal, new_game
from whistkit.variants import get_variant


def play_deal(args: tuple[int, int, int, str, str]) -> dict[str, Any]:
    """One deal at both tables: the ``ns`` level's margins and the tricks."""
    index, seed, hand, ns, ew = args
    variant = get_variant("felagsvist")
    margins = []
    contract = ""
    for table in ("a", "b"):
        first, second = (ns, ew) if table == "a" else (ew, ns)
        a, b = make_player(first), make_player(second)
        players = {0: a, 1: b, 2: a, 3: b}
        dealer = random.Random(f"nolo-bench:{seed}:dealer:{index}").randrange(4)
        state = new_game(variant, dealer=dealer, hand_number=hand)
        dealt = deal_cards(random.Random(f"nolo-bench:{seed}:deal:{index}"), state.dealer)
        state = state.apply(Deal(dealt.hands))
        rngs = {s: random.Random(f"nolo-bench:{seed}:{index}:{s}") for s in range(4)}
        while state.phase in (BID, PLAY):
            seat = state.to_play
            state = state.apply(players[seat].act(state, seat, rngs[seat]))
        result = state.results[-1]
        contract = result.contract.code
        margins.append(result.points[0] - result.points[1])
    return {"index": index, "contract": contract, "score": (margins[0] - margins[1]) / 2}


def interval(xs: list[float]) -> tuple[float, float, float]:
    m = statistics.fmean(xs)
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return m, m - half, m + half


def load_rows(path: str) -> dict[int, float]:
    """Deal index -> score from an --out file (JSON) or a --partial file (JSON lines)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.startswith("{") and '"per_deal"' in text:
        return {r["index"]: r["score"] for r in json.loads(text)["per_deal"]}
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return {r["index"]: r["score"] for r in rows}


def pair(new: str, old: str) -> None:
    """Paired difference ``new - old`` over the deals both runs finished."""
    a, b = load_rows(new), load_rows(old)
    both = sorted(set(a) & set(b))
    for name, rows in ((new, a), (old, b)):
        m, lo, hi = interval([rows[i] for i in both])
        print(f"{name}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}] over {len(both)} deals")
    diffs = [a[i] - b[i] for i in both]
    m, lo, hi = interval(diffs)
    changed = sum(1 for d in diffs if d)
    print(f"paired difference: {m:+.3f} [{lo:+.3f}, {hi:+.3f}] ({changed} deals changed)")


def set_pimc(assignments: list[str]) -> None:
    from whistkit.bots import pimc

    for item in assignments:
        name, _, text = item.partition("=")
        if not hasattr(pimc, name):
            sys.exit(f"whistkit.bots.pimc has no {name}")
        value = json.loads(text)
        if isinstance(value, dict):  # JSON keys are strings; the schedules use ints
            value = {int(k): v for k, v in value.items()}
        setattr(pimc, name, value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=120)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--hand", type=int, default=6, help="hand of the cycle (6: Nóló)")
    parser.add_argument("--ns", default="expert")
    parser.add_argument("--ew", default="club")
    parser.add_argument("--pimc", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--out", help="write the per-deal scores here (JSON)")
    parser.add_argument("--against", action="append", default=[], metavar="FILE")
    parser.add_argument("--label", default="", help="a name for this run in --out")
    parser.add_argument("--partial", help="append each deal's result here as it finishes")
    parser.add_argument(
        "--pair", nargs=2, metavar=("NEW", "OLD"), help="only compare two runs' files"
    )
    args = parser.parse_args()
    print(machine.describe(), flush=True)
    if args.pair:
        pair(*args.pair)
        return
    set_pimc(args.pimc)  # before the workers fork, so they inherit it
    start = time.perf_counter()
    work = [(i, args.seed, args.hand, args.ns, args.ew) for i in range(args.deals)]
    rows: list[dict[str, Any]] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        # deals in order, each written as it finishes (--partial): a run cut short still
        # pairs deal by deal with another
        for row in pool.map(play_deal, work):
            rows.append(row)
            if args.partial:
                with open(args.partial, "a", encoding="utf-8") as f:
                    f.write(json.dumps(row) + "\n")
    seconds = time.perf_counter() - start
    scores = [r["score"] for r in rows]
    m, lo, hi = interval(scores)
    print(
        f"{args.ns} - {args.ew}, {args.deals} deals of hand {args.hand}, seed {args.seed}"
        f" {' '.join(args.pimc)}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}] ({seconds:.0f} s)",
        flush=True,
    )
    for path in args.against:
        with open(path, encoding="utf-8") as f:
            other = json.load(f)
        if other["seed"] != args.seed or other["hand"] != args.hand:
            sys.exit(f"{path}: other deals (seed {other['seed']}, hand {other['hand']})")
        theirs = {r["index"]: r["score"] for r in other["per_deal"]}
        diffs = [r["score"] - theirs[r["index"]] for r in rows if r["index"] in theirs]
        changed = sum(1 for d in diffs if d)
        dm, dlo, dhi = interval(diffs)
        print(
            f"  paired with {other.get('label') or path}: {dm:+.3f} [{dlo:+.3f}, {dhi:+.3f}]"
            f" over {len(diffs)} deals ({changed} changed)"
        )
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "label": args.label,
                    "ns": args.ns,
                    "ew": args.ew,
                    "seed": args.seed,
                    "hand": args.hand,
                    "pimc": args.pimc,
                    "mean_diff": m,
                    "ci95": [lo, hi],
                    "seconds": seconds,
                    "per_deal": rows,
                },
                f,
            )


if __name__ == "__main__":
    main()
