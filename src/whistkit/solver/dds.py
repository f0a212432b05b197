"""The bridge to DDS (through endplay) for the solver's tests and benchmark.

DDS is the bridge world's double-dummy solver; whistkit's own solver is checked against
it and timed against it. endplay is a test and benchmark extra only
(``pip install -e '.[test]'``): nothing in whistkit imports this module at run time.
DDS knows normal play with aces high only, so misère and aces-low positions are refused.
"""

from __future__ import annotations

try:
    from endplay import _dds
except ImportError as exc:  # pragma: no cover - the extra is part of the test setup
    raise ImportError(
        "whistkit.solver.dds needs endplay, a test extra: pip install -e '.[test]'"
    ) from exc

from .position import Position

SUIT = 0x1FFF


def to_dds(pos: Position) -> _dds.deal:
    """The DDS deal struct of a normal-play position (aces high), current trick included."""
    if pos.misere or pos.aces_low:
        raise ValueError("DDS solves normal play with aces high only")
    d = _dds.deal()
    d.trump = 4 if pos.trump is None else pos.trump
    d.first = pos.leader
    for i in range(3):
        d.currentTrickSuit[i] = 0
        d.currentTrickRank[i] = 0
    for i, c in enumerate(pos.trick):
        d.currentTrickSuit[i] = c // 13
        d.currentTrickRank[i] = c % 13 + 2
    for seat in range(4):
        for s in range(4):
            d.remainCards[seat][s] = ((pos.hands[seat] >> (13 * s)) & SUIT) << 2
    return d


def solve_board(pos: Position, solutions: int) -> _dds.futureTricks:
    """DDS's answer for one position: ``solutions`` 1 the value, 3 every card's value."""
    fut = _dds.futureTricks()
    _dds.SolveBoard(to_dds(pos), -1 if solutions == 1 else 0, solutions, 1, fut, 0)
    return fut


def cards_of(fut: _dds.futureTricks) -> dict[int, int]:
    """Every card's value from DDS's answer (it gives one entry per run of equal cards)."""
    out: dict[int, int] = {}
    for i in range(fut.cards):
        holding = (1 << fut.rank[i]) | fut.equals[i]
        for r in range(2, 15):
            if holding >> r & 1:
                out[fut.suit[i] * 13 + r - 2] = int(fut.score[i])
    return out


def _batch(positions: list[Position], solutions: int) -> list[_dds.futureTricks]:
    out: list[_dds.futureTricks] = []
    chunk = _dds.MAXNOOFBOARDS
    for start in range(0, len(positions), chunk):
        part = positions[start : start + chunk]
        bop = _dds.boards()
        bop.noOfBoards = len(part)
        for i, p in enumerate(part):
            bop.deals[i] = to_dds(p)
            bop.target[i] = 0 if solutions == 3 else -1
            bop.solutions[i] = solutions
            bop.mode[i] = 1
        solved = _dds.solvedBoards()
        _dds.SolveAllBoardsBin(bop, solved)
        out.extend(solved.solvedBoard[i] for i in range(len(part)))
    return out


def dds_cards_batch(positions: list[Position]) -> list[dict[int, int]]:
    """Every card's value for many positions through DDS's threaded batch call."""
    return [cards_of(f) for f in _batch(positions, 3)]


def dds_values_batch(positions: list[Position]) -> list[int]:
    """The value (tricks of the side to play) of many positions, DDS batch call."""
    return [int(f.score[0]) for f in _batch(positions, 1)]
