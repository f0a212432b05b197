"""``whistkit solve``: double-dummy analysis of a deal or an ending from the command line.

Wired into the main ``whistkit`` command through :func:`add_parser` and :func:`run`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..cards import SUITS, CardError, card_name, parse_card, sorted_for_display
from ..deal import parse_pbn
from ..seats import SEATS, SIDES, SeatError, parse_seat

CONTRACTS = ("S", "H", "D", "C", "NT", "NOLO")

_HELP = """\
Solve a deal double dummy: the tricks the side to play takes from here with best play
by both sides (the current trick included), and the same for each legal card.

DEAL is a PBN deal string, e.g. "N:AK.2.. QJ.3.. T9.4.. 87.5..", whose hands may hold
fewer than 13 cards (an ending); it holds the cards still in the hands, so cards already
played to the current trick (--played) must not appear in it. The leader of the
current trick defaults to the first seat of the PBN string. In NOLO (misère) each side
tries to take as few tricks as possible; the numbers are still the tricks taken by the
side to play.
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``solve`` subcommand on an argparse subparsers object."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "solve",
        help="double-dummy analysis of a deal or an ending",
        description=_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("deal", metavar="DEAL", help="PBN deal string (hands may be short)")
    p.add_argument(
        "--contract",
        default="NT",
        type=str.upper,
        choices=CONTRACTS,
        help="trump suit S/H/D/C, NT (no trump) or NOLO (misère, no trump); default NT",
    )
    p.add_argument(
        "--leader",
        default=None,
        help="seat (N/E/S/W) that led or leads the current trick; "
        "default: the first seat of the PBN string",
    )
    p.add_argument(
        "--played",
        default="",
        help='cards already played to the current trick, from its leader, e.g. "QH 2H"',
    )
    p.add_argument(
        "--aces-low",
        action="store_true",
        help="aces rank below twos (the nolo_aces_low option; with --contract NOLO only)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)
    return p


def _fail(msg: str) -> int:
    print(f"whistkit solve: error: {msg}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Run ``whistkit solve``; return the exit status (2 for bad input)."""
    from . import Position, solve_cards

    text: str = args.deal
    try:
        hands = parse_pbn(text)
        leader = parse_seat(args.leader) if args.leader else SEATS.index(text.strip()[0].upper())
        played = tuple(parse_card(t) for t in args.played.replace(",", " ").split())
    except (CardError, SeatError) as exc:
        return _fail(str(exc))
    contract: str = args.contract
    trump = SUITS.index(contract) if contract in ("S", "H", "D", "C") else None
    misere = contract == "NOLO"
    if args.aces_low and not misere:
        # no variant ranks aces low outside misère (RULES.md: nolo_aces_low)
        return _fail(f"--aces-low applies to --contract NOLO only, not {contract}")
    try:
        pos = Position(hands, played, leader, trump, misere, bool(args.aces_low))
    except ValueError as exc:
        return _fail(str(exc))
    if pos.tricks_left == 0:
        return _fail("no cards left to play")
    cards = solve_cards(pos)
    tricks = (min if misere else max)(cards.values())
    seat = pos.to_play
    order = sorted_for_display(sum(1 << c for c in cards))
    if args.json:
        out = {
            "to_play": SEATS[seat],
            "side": SIDES[seat & 1],
            "tricks": tricks,
            "cards": {card_name(c): cards[c] for c in order},
        }
        print(json.dumps(out))
        return 0
    trick_txt = " ".join(card_name(c) for c in played) or "-"
    print(f"Contract: {contract}{' (aces low)' if args.aces_low else ''}")
    print(f"Trick led by {SEATS[leader]}: {trick_txt}")
    print(f"To play: {SEATS[seat]} ({SIDES[seat & 1]}), {pos.tricks_left} tricks left")
    print(f"Tricks for {SIDES[seat & 1]} with best play: {tricks}")
    print()
    print("Card  Tricks")
    for c in order:
        mark = "  *" if cards[c] == tricks else ""
        print(f"{card_name(c):<5} {cards[c]:>6}{mark}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point (``python -m whistkit.solver.cli solve ...``)."""
    parser = argparse.ArgumentParser(prog="whistkit")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = parser.parse_args(argv)
    status: int = args.func(args)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
