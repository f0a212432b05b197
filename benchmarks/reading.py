"""How much of partner's hand the expert's drawn worlds hold: its reading, measured.

Usage:
  python benchmarks/reading.py DATA.json [--level expert ...] [--left 4 10]
      [--decisions 60] [--worlds 32]

``DATA.json`` is ``benchmarks/partner_model.py --out``'s file (rows with ``seed`` and
``deal``). Of its decisions with ``--left`` cards in the seat's hand (both bounds
included), ``--decisions`` spread evenly over the file are replayed; at each, every
``--level`` (``expert`` or ``expert:key=value:...``, ``benchmarks/paired.py``'s settings)
draws ``--worlds`` worlds as it would to choose its card (its chain, seeded 1), and the
script prints, per level, the mean share of partner's real cards that lie in partner's
hand in a drawn world, and the same for the next opponent (the seat after). Drawing
every hidden card at random from what is public gives about a third; seeing partner's
hand gives 1.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from lead_model import _state  # benchmarks/lead_model.py, beside this script
from paired import expert_settings  # benchmarks/paired.py
from whistkit.bots import ExpertBot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data")
    parser.add_argument("--level", nargs="+", default=["expert"])
    parser.add_argument("--left", type=int, nargs=2, default=[4, 10], metavar=("LO", "HI"))
    parser.add_argument("--decisions", type=int, default=60)
    parser.add_argument("--worlds", type=int, default=32)
    opts = parser.parse_args()
    for name in ("decisions", "worlds"):
        if getattr(opts, name) < 1:
            parser.error(f"--{name} must be at least 1, not {getattr(opts, name)}")
    lo, hi = opts.left
    if not 1 <= lo <= hi <= 13:
        parser.error(f"--left must be two numbers 1 <= LO <= HI <= 13, not {lo} {hi}")
    bots = {}
    for level in opts.level:
        name, _, text = level.partition(":")
        try:
            if name != "expert":
                raise ValueError(f"{level!r}: not expert or expert:key=value:...")
            bots[level] = ExpertBot(**expert_settings(level, text))
        except (ValueError, TypeError) as exc:
            parser.error(str(exc))
    try:
        rows = json.loads(Path(opts.data).read_text(encoding="utf-8"))
    except FileNotFoundError:
        parser.error(f"{opts.data}: no such file")
    rows = [r for r in rows if lo <= r["left"] <= hi and "deal" in r]
    if not rows:
        parser.error(f"{opts.data}: no decisions with {lo}-{hi} cards in hand (and a deal)")
    step = max(1, len(rows) // opts.decisions)
    rows = rows[::step][: opts.decisions]
    print(f"{len(rows)} decisions with {lo}-{hi} cards in hand, {opts.worlds} worlds each")
    for level, bot in bots.items():
        partner_share = opponent_share = 0.0
        for row in rows:
            state = _state(row["seed"], row["deal"], row["played"])
            seat = row["seat"]
            draw, _ = bot._drawer(state.view(seat), random.Random(1))
            worlds = [draw() for _ in range(opts.worlds)]
            for other, total in ((seat ^ 2, "partner"), ((seat + 1) % 4, "opponent")):
                real = state.holdings[other]
                share = sum((w[other] & real).bit_count() for w in worlds)
                share /= len(worlds) * real.bit_count()
                if total == "partner":
                    partner_share += share
                else:
                    opponent_share += share
        n = len(rows)
        print(
            f"{level:50s} partner's cards held {partner_share / n:.3f}, "
            f"next opponent's {opponent_share / n:.3f}"
        )


if __name__ == "__main__":
    main()
