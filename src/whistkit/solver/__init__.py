"""Double-dummy solver for the whist family (trump, no-trump, misère, aces low).

A :class:`Position` holds each seat's remaining cards, the cards already played to the
current trick and the contract. :func:`solve` gives the tricks the side to play takes
from here (the current trick included) with best play by both sides; :func:`solve_cards`
gives that value for every legal card; :func:`can_take` answers "can the side to play
take at least ``k`` tricks?"; :func:`solve_batch` solves many positions in one call
with the GIL released.

In misère (``misere=True``) each side tries to take as few tricks as possible; the
numbers are still the tricks the side to play takes.

The work is done by the compiled core ``whistkit.solver._dd`` (built by setup.py),
imported lazily on first use. Where it is missing, a pure-Python oracle
(:mod:`whistkit.solver.reference`) answers instead: correct, but only practical for
short endings.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any, Literal, overload

from .._checks import is_whole
from . import reference
from .position import Position, position_for

_core: ModuleType | None = None
_core_checked = False


# the core counts nodes in a signed 64-bit integer
_NODE_LIMIT_MAX = 2**62


def _check_position(pos: object) -> None:
    if not isinstance(pos, Position):
        raise TypeError(f"expected a whistkit.solver.Position, got {type(pos).__name__}")


def _check_batch(positions: object, threads: object) -> None:
    if isinstance(positions, Position) or not isinstance(positions, Sequence):
        raise TypeError(
            f"positions must be a sequence (list or tuple) of Position,"
            f" got {type(positions).__name__}"
        )
    for i, p in enumerate(positions):
        if not isinstance(p, Position):
            raise TypeError(f"positions[{i}] must be a Position, got {type(p).__name__}")
    if not (is_whole(threads) and threads >= 1):
        raise ValueError(f"threads must be a whole number of at least 1, got {threads!r}")


def _load_core() -> ModuleType | None:
    global _core, _core_checked
    if not _core_checked:
        _core_checked = True
        try:
            from . import _dd  # type: ignore[attr-defined]
        except ImportError:
            _core = None
        else:
            _core = _dd
    return _core


def has_core() -> bool:
    """Is the compiled core available (otherwise the slow pure-Python oracle runs)?"""
    return _load_core() is not None


def _args(pos: Position) -> tuple[Any, ...]:
    return (
        pos.hands,
        pos.trick,
        pos.leader,
        -1 if pos.trump is None else pos.trump,
        pos.misere,
        pos.aces_low,
    )


def solve(pos: Position) -> int:
    """Tricks the side to play takes from here (the current trick included)."""
    _check_position(pos)
    core = _load_core()
    if core is None:
        return reference.solve(pos)
    return int(core.solve(*_args(pos), 0, 0))


def solve_cards(pos: Position) -> dict[int, int]:
    """The value (as in :func:`solve`) of every legal card of the seat to play."""
    _check_position(pos)
    core = _load_core()
    if core is None:
        return reference.solve_cards(pos)
    result: dict[int, int] = core.solve(*_args(pos), 1, 0)
    return result


def can_take(pos: Position, k: int) -> bool:
    """Is the value of :func:`solve` at least ``k``: with best play by both sides, does
    the side to play take at least ``k`` of the remaining tricks?

    In normal play that is "can it take ``k``". In misère, where both sides try to take
    as few tricks as possible, it is "must it take ``k``" (it cannot keep below ``k``),
    so a card worth ``k`` in :func:`solve_cards` does not make it true.
    """
    _check_position(pos)
    if not is_whole(k):
        raise TypeError(f"k must be a whole number of tricks, got {k!r}")
    if k <= 0:
        return True
    if k > pos.tricks_left:
        return False
    core = _load_core()
    if core is None:
        return reference.can_take(pos, k)
    return bool(core.solve(*_args(pos), 2, k))


@overload
def solve_batch(
    positions: Sequence[Position], *, cards: Literal[False] = ..., threads: int = ...
) -> list[int]: ...


@overload
def solve_batch(
    positions: Sequence[Position], *, cards: Literal[True], threads: int = ...
) -> list[dict[int, int]]: ...


def solve_batch(
    positions: Sequence[Position], *, cards: bool = False, threads: int = 2
) -> list[int] | list[dict[int, int]]:
    """Solve many positions in one call (values, or every card's value with ``cards``).

    The compiled core releases the GIL and spreads the positions over ``threads``
    worker threads.
    """
    _check_batch(positions, threads)
    core = _load_core()
    if core is None:
        if cards:
            return [reference.solve_cards(p) for p in positions]
        return [reference.solve(p) for p in positions]
    args = [_args(p) for p in positions]
    result: list[int] | list[dict[int, int]] = core.solve_batch(
        args, 1 if cards else 0, min(threads, 64)
    )
    return result


@overload
def solve_batch_limited(
    positions: Sequence[Position],
    node_limit: int,
    *,
    cards: Literal[True] = ...,
    threads: int = ...,
) -> list[dict[int, int] | None]: ...


@overload
def solve_batch_limited(
    positions: Sequence[Position],
    node_limit: int,
    *,
    cards: Literal[False],
    threads: int = ...,
) -> list[int | None]: ...


def solve_batch_limited(
    positions: Sequence[Position], node_limit: int, *, cards: bool = True, threads: int = 2
) -> list[dict[int, int] | None] | list[int | None]:
    """Every card's value for each position (with ``cards=False``: the position's value,
    as in :func:`solve`), or None where the search gave up.

    Each position's search may visit at most ``node_limit`` nodes; one that would need
    more is abandoned and gives None. Node counts do not depend on the machine or on the
    threads, so the same positions and limit always give the same results (a time bound
    that keeps a caller deterministic). Without the compiled core every position is
    solved by the pure-Python oracle, which has no node budget.
    """
    _check_batch(positions, threads)
    if not is_whole(node_limit):
        raise TypeError(f"node_limit must be a whole number, got {node_limit!r}")
    if not 1 <= node_limit <= _NODE_LIMIT_MAX:
        raise ValueError(
            f"node_limit must be between 1 and {_NODE_LIMIT_MAX:,}, not {node_limit:,}"
        )
    core = _load_core()
    if core is None:
        if cards:
            every: list[dict[int, int] | None] = [reference.solve_cards(p) for p in positions]
            return every
        values: list[int | None] = [reference.solve(p) for p in positions]
        return values
    args = [_args(p) for p in positions]
    result: list[dict[int, int] | None] | list[int | None] = core.solve_batch(
        args, 1 if cards else 0, min(threads, 64), node_limit
    )
    return result


__all__ = [
    "Position",
    "can_take",
    "has_core",
    "position_for",
    "solve",
    "solve_batch",
    "solve_batch_limited",
    "solve_cards",
]
