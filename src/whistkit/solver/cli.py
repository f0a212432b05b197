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
from . import Bounds

CONTRACTS = ("S", "H", "D", "C", "NT", "NOLO")  # also --table's rows, in this order
# misère positions with this many tricks left may take seconds to a minute (docs/solver.md)
SLOW_MISERE = 10

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
        default=None,
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
    p.add_argument(
        "--table",
        action="store_true",
        help="the tricks N-S take in every contract (S H D C NT NOLO) with each seat on "
        "lead, for a deal with no card played yet",
    )
    p.add_argument(
        "--node-limit",
        type=_node_limit,
        default=None,
        metavar="N",
        help="search each position for at most N nodes; where that does not settle a "
        "value, print the proven range, e.g. 2-4 (a whole misère deal can take a minute "
        "without a limit); default: no limit",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)
    return p


def _kind(contract: str) -> tuple[int | None, bool]:
    """The trump suit (None: no trump) and misère flag of a contract code."""
    return (None if contract in ("NT", "NOLO") else SUITS.index(contract)), contract == "NOLO"


def _node_limit(text: str) -> int:
    try:
        n = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


def _values(positions: list[Any], node_limit: int | None) -> list[Bounds]:
    from . import solve_batch

    if node_limit is None:
        return [Bounds(v, v) for v in solve_batch(positions)]
    return solve_batch(positions, node_limit=node_limit)


def _card_values(pos: Any, node_limit: int | None) -> tuple[Bounds, dict[int, Bounds]]:
    """The position's value and every card's, as bounds (exact without a limit)."""
    from . import solve_batch, solve_cards

    if node_limit is None:
        every = solve_cards(pos)
        v = (min if pos.misere else max)(every.values())
        return Bounds(v, v), {c: Bounds(x, x) for c, x in every.items()}
    return solve_batch([pos], cards=True, threads=1, node_limit=node_limit)[0]


def _json_value(b: Bounds) -> int | list[int]:
    """A value in JSON: the number, or [lo, hi] when only bounds are known."""
    return b.lo if b.exact else [b.lo, b.hi]


def _note(msg: str) -> None:
    """A word on stderr before a long search, for a person at a terminal only."""
    if sys.stderr.isatty():
        print(f"whistkit solve: {msg}…", file=sys.stderr, flush=True)


def _fail(msg: str) -> int:
    print(f"whistkit solve: error: {msg}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Run ``whistkit solve``; return the exit status (2 for bad input)."""
    from . import Position

    text: str = args.deal
    try:
        hands = parse_pbn(text)
        leader = parse_seat(args.leader) if args.leader else SEATS.index(text.strip()[0].upper())
        played = tuple(parse_card(t) for t in args.played.replace(",", " ").split())
    except (CardError, SeatError) as exc:
        return _fail(str(exc))
    if args.table:
        return _table(args, hands, played)
    contract: str = args.contract or "NT"
    trump, misere = _kind(contract)
    if args.aces_low and not misere:
        # no variant ranks aces low outside misère (docs/rules.md: nolo_aces_low)
        return _fail(f"--aces-low applies to --contract NOLO only, not {contract}")
    try:
        pos = Position(hands, played, leader, trump, misere, bool(args.aces_low))
    except ValueError as exc:
        return _fail(str(exc))
    if pos.tricks_left == 0:
        return _fail("no cards left to play")
    if misere and pos.tricks_left >= SLOW_MISERE:
        _note(
            f"solving a misère position with {pos.tricks_left} tricks left: this can take a minute"
        )
    tricks, cards = _card_values(pos, args.node_limit)
    seat = pos.to_play
    order = sorted_for_display(sum(1 << c for c in cards))
    if args.json:
        out = {
            "to_play": SEATS[seat],
            "side": SIDES[seat & 1],
            "tricks": _json_value(tricks),
            "cards": {card_name(c): _json_value(cards[c]) for c in order},
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
        mark = "  *" if tricks.exact and cards[c] == tricks else ""
        print(f"{card_name(c):<5} {cards[c]!s:>6}{mark}")
    if not all(b.exact for b in cards.values()) or not tricks.exact:
        print()
        print(f"2–4 and the like: the proven range, not settled within {args.node_limit:,} nodes")
    return 0


def _table(
    args: argparse.Namespace, hands: tuple[int, int, int, int], played: tuple[int, ...]
) -> int:
    """``--table``: N-S tricks in every contract with each seat on lead."""
    from . import Position

    if args.contract:
        return _fail("--table solves every contract: drop --contract")
    if played:
        return _fail("--table solves a deal before its first card: drop --played")
    if args.leader:
        return _fail("--table puts each seat on lead in turn: drop --leader")
    if args.aces_low:
        return _fail("--table ranks aces high: drop --aces-low")
    kinds = [(c, *_kind(c)) for c in CONTRACTS]
    try:
        positions = [
            Position(hands, (), seat, trump, misere)
            for _, trump, misere in kinds
            for seat in range(4)
        ]
    except ValueError as exc:
        return _fail(str(exc))
    if positions[0].tricks_left == 0:
        return _fail("no cards left to play")
    if positions[0].tricks_left >= SLOW_MISERE:
        _note("solving 24 positions: the NOLO row of a long deal can take a minute")
    found = _values(positions, args.node_limit)
    n = positions[0].tricks_left
    table: dict[str, dict[str, Bounds]] = {}
    for i, (name, _, _) in enumerate(kinds):
        row: dict[str, Bounds] = {}
        for seat in range(4):
            side = found[4 * i + seat]  # the leader's side
            row[SEATS[seat]] = side if seat & 1 == 0 else Bounds(n - side.hi, n - side.lo)
        table[name] = row
    if args.json:
        out = {k: {s: _json_value(b) for s, b in row.items()} for k, row in table.items()}
        print(json.dumps({"tricks_of": "NS", "table": out}))
        return 0
    print("Tricks for N-S with best play, by contract and opening leader")
    print()
    print("Contract    " + "".join(f"{s:>6}" for s in SEATS))
    for name, row in table.items():
        cells = "".join(f"{v!s:>6}" for v in row.values())
        print(f"{name:<11} {cells}")
    if any(not v.exact for row in table.values() for v in row.values()):
        print()
        print(f"2–4 and the like: the proven range, not settled within {args.node_limit:,} nodes")
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
