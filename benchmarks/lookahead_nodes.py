"""The expert's look-ahead: search nodes per decision (exact, machine-independent),
against its node budget (``pimc.LOOKAHEAD_NODES``).

Each of ``--deals`` Félagsvist hands of the ``--contract`` (seeds 0, 1, ...; the dealer
rotating) is played by the club rules until the seat to play holds ``--tricks-left``
cards; the default expert then decides for each seat of that trick in turn (its card
played), and the nodes its look-ahead's solves searched are taken (decisions where it
did not look ahead, or had one legal card, are left out). Printed: decisions, median,
p95 and most nodes, and how many went over the budget (plain PIMC then decided).

    python benchmarks/lookahead_nodes.py [--contract NT] [--tricks-left 9]
        [--deals 60]
"""

from __future__ import annotations

import argparse
import random
from typing import Any

import machine  # benchmarks/machine.py, beside this script
from whistkit.bots import ExpertBot
from whistkit.bots.club import ClubBot
from whistkit.bots.lookahead import Lookahead, OverBudget
from whistkit.bots.pimc import LOOKAHEAD_NODES
from whistkit.deal import deal_cards
from whistkit.state import Deal, State, new_game
from whistkit.variants.felagsvist import CYCLE


def hand_of(contract: str) -> int:
    """The first hand number of Félagsvist's cycle that plays ``contract``."""
    codes = [c.code for c in CYCLE]
    if contract not in codes:
        raise SystemExit(f"--contract must be one of {', '.join(codes)}, not {contract!r}")
    return codes.index(contract) + 1


def reach(deal: int, hand: int, tricks_left: int) -> State:
    state = new_game("felagsvist", dealer=deal % 4, hand_number=hand)
    state = state.apply(Deal(deal_cards(random.Random(deal), state.dealer).hands))
    rng = random.Random(deal)
    while state.phase == "play" and state.holdings[state.to_play].bit_count() > tricks_left:
        state = state.apply(ClubBot().choose(state.view(state.to_play), rng))
    return state


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--contract", default="NT", help="a Félagsvist contract code")
    ap.add_argument("--tricks-left", type=int, default=9)
    ap.add_argument("--deals", type=int, default=60)
    args = ap.parse_args()
    if not 1 <= args.tricks_left <= 13:
        raise SystemExit(f"--tricks-left must be 1 to 13, not {args.tricks_left}")
    hand = hand_of(args.contract)
    print(machine.describe(), flush=True)

    spent: list[int] = []  # the nodes of the current decision's look-ahead
    over = 0
    values = Lookahead.values

    def counted(self: Lookahead, *a: Any, **k: Any) -> dict[int, float]:
        nonlocal over
        try:
            return values(self, *a, **k)
        except OverBudget:
            over += 1
            raise
        finally:
            spent.append(self.spent)

    Lookahead.values = counted  # type: ignore[method-assign]
    bot = ExpertBot(time_budget=None)
    nodes = []
    for deal in range(args.deals):
        state = reach(deal, hand, args.tricks_left)
        for _ in range(4):
            if (
                state.phase != "play"
                or state.holdings[state.to_play].bit_count() != args.tricks_left
            ):
                break
            spent.clear()
            card = bot.choose(state.view(state.to_play), random.Random(deal))
            if spent:
                nodes.append(max(spent))
            state = state.apply(card)
    if not nodes:
        raise SystemExit("no decision looked ahead: the default schedule has no look-ahead there")
    nodes.sort()
    print(
        f"{args.contract} at {args.tricks_left} tricks left, {args.deals} hands:"
        f" {len(nodes)} decisions looked ahead; nodes median {nodes[len(nodes) // 2] / 1e6:.1f} M,"
        f" p95 {nodes[min(len(nodes) - 1, int(0.95 * len(nodes)))] / 1e6:.1f} M,"
        f" most {nodes[-1] / 1e6:.1f} M; budget {LOOKAHEAD_NODES / 1e6:.0f} M,"
        f" {over} over it"
    )


if __name__ == "__main__":
    main()
