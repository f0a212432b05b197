"""Bot decision times and the Félagsvist strength ladder (duplicate matches).

Usage: python benchmarks/bots.py [--deals N] [--games G] [--jobs J] [--seed S]
       [--skip-times] [--skip-ladder] [--swedish] [--levels expert] [--nolo-cpu DEALS]

Decision times: whole Félagsvist games with the level at all four seats, every card
decision timed (median and p95 at trick 1 and overall, and at tricks 1-2 of Nóló). The
expert is timed as players get it (with its time budget). ``--nolo-cpu D``: the expert's
CPU time at Nóló tricks 1-2 on D deals, with trick 1 of Hearts as the anchor.

Ladder: duplicate matches of N deals, each level against the one below and against
``oracle``; the fraction of the gap closed is (expert - club) / (oracle - club), in tricks
per hand (in Félagsvist a trick moves the points margin by two). With ``--swedish``:
the expert's bottom-card bidding against always-red and always-black bidding with the
same expert card play, in Swedish whist.

Anchors (from the issue, this machine): PIMC with DDS at 32 worlds takes 0.95 s median
at trick 1 and 13 ms with 8 cards left. Goals: expert median <= 300 ms and p95 <= 1 s
over whole games; club beats beginner and expert beats club with the 95% interval above
zero; expert closes at least half of the gap from club to oracle (400+ deals).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import time
from collections.abc import Callable

import machine  # benchmarks/machine.py, beside this script
from whistkit.bots import make_bot
from whistkit.deal import deal_cards
from whistkit.match import MatchResult, run_match
from whistkit.state import Deal, new_game

ANCHOR_TRICK1 = 0.95
ANCHOR_8_LEFT = 0.013
GOAL_MEDIAN = 0.300
GOAL_P95 = 1.0


def p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


def decision_times(
    level: str, games: int, seed: int
) -> tuple[list[float], list[float], list[float]]:
    """Seconds per card decision (two or more legal cards) over whole games.

    Returns the times at trick 1, at every trick, and at tricks 1-2 of Nóló.
    """
    bot = make_bot(level)
    first: list[float] = []
    every: list[float] = []
    nolo: list[float] = []
    for g in range(games):
        rng = random.Random(f"bench:{seed}:{g}")
        bot_rng = random.Random(f"bench-bot:{seed}:{g}")
        state = new_game("felagsvist", dealer=rng.randrange(4))
        while not state.is_over:
            if state.needs_deal:
                state = state.apply(Deal(deal_cards(rng, state.dealer).hands))
                continue
            trick = state.trick_number
            view = state.view(state.to_play)
            start = time.perf_counter()
            card = bot.choose(view, bot_rng)
            took = time.perf_counter() - start
            state = state.apply(card)
            if len(view.legal) == 1:
                continue  # a forced card is no decision
            every.append(took)
            if trick == 1:
                first.append(took)
            if trick <= 2 and view.contract is not None and view.contract.misere:
                nolo.append(took)
    return first, every, nolo


def ms(x: float) -> str:
    return f"{1000 * x:.2f}"


def print_times(levels: list[str], games: int, seed: int) -> None:
    print(f"Decision time per card, {games} whole Félagsvist game(s) per level (ms)")
    print(
        "| level | trick 1 median | trick 1 p95 | median | p95 | decisions"
        " | Nóló tricks 1-2 median | p95 | max |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for level in levels:
        first, every, nolo = decision_times(level, games, seed)
        print(
            f"| {level} | {ms(statistics.median(first))} | {ms(p95(first))}"
            f" | {ms(statistics.median(every))} | {ms(p95(every))} | {len(every)}"
            f" | {ms(statistics.median(nolo))} | {ms(p95(nolo))} | {ms(max(nolo))} |",
            flush=True,
        )
    print(
        f"anchor: PIMC+DDS at 32 worlds {ms(ANCHOR_TRICK1)} ms median at trick 1,"
        f" {ms(ANCHOR_8_LEFT)} ms with 8 cards left; goal for expert: median <="
        f" {ms(GOAL_MEDIAN)} ms, p95 <= {ms(GOAL_P95)} ms"
    )


def print_nolo_cpu(deals: int, seed: int) -> None:
    """CPU time (every thread of the process) of the expert's decisions at Nóló tricks
    1-2 and, as the anchor in the same run, at trick 1 of Hearts (plain PIMC): figures
    that a saturated machine distorts far less than wall time."""
    bot = make_bot("expert")
    times: dict[str, list[float]] = {"Nóló tricks 1-2": [], "Hearts trick 1 (anchor)": []}
    for d in range(deals):
        for hand, key, last in ((6, "Nóló tricks 1-2", 2), (1, "Hearts trick 1 (anchor)", 1)):
            rng = random.Random(f"bench-nolo:{seed}:{d}:{hand}")
            state = new_game("felagsvist", dealer=d % 4, hand_number=hand)
            state = state.apply(Deal(deal_cards(rng, state.dealer).hands))
            while state.phase == "play" and state.trick_number <= last:
                view = state.view(state.to_play)
                start = time.process_time()
                card = bot.choose(view, rng)
                took = time.process_time() - start
                if len(view.legal) > 1:
                    times[key].append(took)
                state = state.apply(card)
    print(f"\nExpert CPU time per decision, {deals} deals per row (ms)")
    print("| decisions | n | median | p95 | max |")
    print("|---|---|---|---|---|")
    for key, xs in times.items():
        print(
            f"| {key} | {len(xs)} | {ms(statistics.median(xs))} | {ms(p95(xs))} | {ms(max(xs))} |",
            flush=True,
        )


def ladder_row(result: MatchResult, seconds: float) -> str:
    lo, hi = result.ci95
    # a Félagsvist trick moves the points margin by two; other scorings are not linear
    tricks = f"{result.mean_diff / 2:+.3f}" if result.variant == "felagsvist" else "-"
    return (
        f"| {result.ns} | {result.ew} | {len(result.deals)} | {result.mean_diff:+.3f}"
        f" | [{lo:+.3f}, {hi:+.3f}] | {tricks} | {seconds:.0f} |"
    )


def print_ladder(pairs: list[tuple[str, str]], deals: int, seed: int, jobs: int) -> None:
    print(f"\nFélagsvist ladder: duplicate matches, {deals} deals each, seed {seed}")
    print("| N-S | E-W | deals | points/hand N-S minus E-W | 95% CI | tricks/hand | seconds |")
    print("|---|---|---|---|---|---|---|")
    tricks: dict[tuple[str, str], float] = {}
    by_contract: list[str] = []
    for ns, ew in pairs:
        start = time.perf_counter()
        result = run_match("felagsvist", ns=ns, ew=ew, deals=deals, seed=seed, jobs=jobs)
        tricks[(ns, ew)] = result.mean_diff / 2
        print(ladder_row(result, time.perf_counter() - start), flush=True)
        contracts = sorted(result.by_contract().items())
        by_contract.append(
            f"{ns} - {ew}: " + ", ".join(f"{k} {m:+.2f} ({n})" for k, (n, m) in contracts)
        )
    print("\nPoints per hand by contract (deals):")
    for line in by_contract:
        print(f"- {line}")
    if ("expert", "club") in tricks and ("oracle", "club") in tricks:
        gap = tricks[("oracle", "club")]
        closed = tricks[("expert", "club")] / gap if gap else float("nan")
        print(
            f"fraction of the club-to-oracle gap closed by expert: {closed:.2f}"
            f" ({tricks[('expert', 'club')]:+.3f} of {gap:+.3f} tricks/hand; goal >= 0.5)"
        )


def cap_expert_worlds(cap: int) -> None:
    """Seat every expert of a match with at most ``cap`` worlds per card decision.

    For the Swedish bidding comparison the card play only has to be the same at both
    tables; a cap makes the 400-deal matches affordable. (Matches fork their worker
    processes, which inherit the patched levels.)
    """
    from whistkit import match
    from whistkit.bots.pimc import ExpertBot, default_worlds

    def worlds(tricks_left: int, misere: bool) -> int:
        return min(cap, default_worlds(tricks_left, misere))

    base = match.match_levels

    def player(bidding: str) -> Callable[[], match.Player]:
        def make() -> match.Player:
            bot = ExpertBot(time_budget=None, bidding=bidding, worlds=worlds, min_worlds=cap)
            return match.ViewPlayer(bot)

        return make

    def levels() -> dict[str, Callable[[], match.Player]]:
        out = base()
        out["expert"] = player("simulate")
        out["expert-red"] = player("red")
        out["expert-black"] = player("black")
        return out

    match.match_levels = levels


def print_swedish(deals: int, seed: int, jobs: int, cap: int | None) -> None:
    if cap is not None:
        cap_expert_worlds(cap)
    how = "" if cap is None else f", card play capped at {cap} worlds at both tables"
    print(
        f"\nSwedish bottom cards: expert bidding vs a fixed colour, {deals} deals, seed {seed}{how}"
    )
    print("| N-S | E-W | deals | points/hand N-S minus E-W | 95% CI | tricks/hand | seconds |")
    print("|---|---|---|---|---|---|---|")
    for ew in ("expert-red", "expert-black"):
        start = time.perf_counter()
        result = run_match("swedish", ns="expert", ew=ew, deals=deals, seed=seed, jobs=jobs)
        print(ladder_row(result, time.perf_counter() - start), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=24, help="deals per ladder match")
    parser.add_argument("--games", type=int, default=1, help="games per level for the times")
    parser.add_argument("--jobs", type=int, default=2, help="processes for the matches")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-times", action="store_true")
    parser.add_argument(
        "--levels", help="time only these levels (comma-separated, e.g. expert)", default=None
    )
    parser.add_argument("--skip-ladder", action="store_true")
    parser.add_argument(
        "--swedish", action="store_true", help="also measure the expert's bottom-card bidding"
    )
    parser.add_argument(
        "--swedish-worlds",
        type=int,
        default=None,
        help="cap the card play's worlds per decision in the Swedish matches (both tables)",
    )
    parser.add_argument(
        "--nolo-cpu",
        type=int,
        default=0,
        metavar="DEALS",
        help="CPU time of the expert at Nóló tricks 1-2 against Hearts trick 1 (anchor)",
    )
    args = parser.parse_args()
    print(machine.describe(), flush=True)
    has_solver = importlib.util.find_spec("whistkit.solver") is not None
    levels = ["beginner", "club"] + (["expert"] if has_solver else [])
    pairs = [("club", "beginner")]
    if has_solver:
        pairs += [("expert", "club"), ("oracle", "club")]
    else:
        print("whistkit.solver is not available: expert and oracle are left out\n")
    if args.levels:
        levels = [name for name in args.levels.split(",") if name]
    if not args.skip_times:
        print_times(levels, args.games, args.seed)
    if args.nolo_cpu and has_solver:
        print_nolo_cpu(args.nolo_cpu, args.seed)
    if not args.skip_ladder:
        print_ladder(pairs, args.deals, args.seed, args.jobs)
    if args.swedish and has_solver:
        print_swedish(args.deals, args.seed, args.jobs, args.swedish_worlds)


if __name__ == "__main__":
    main()
