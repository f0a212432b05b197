"""Double-dummy solver for the whist family (trump, no-trump, misère, aces low).

A :class:`Position` holds each seat's remaining cards, the cards already played to the
current trick and the contract. :func:`solve` gives the tricks the side to play takes
from here (the current trick included) with best play by both sides; :func:`solve_cards`
gives that value for every legal card; :func:`can_take` answers "can the side to play
take at least ``k`` tricks?"; :func:`solve_batch` solves many positions in one call
with the GIL released.

In misère (``misere=True``) each side tries to take as few tricks as possible; the
numbers are still the tricks the side to play takes.

With a budget (``node_limit``, ``time_limit``) :func:`solve`, :func:`solve_cards` and
:func:`solve_batch` answer with :class:`Bounds`: the value proven to lie between ``lo``
and ``hi`` (equal when the search finished).

The work is done by the compiled core ``whistkit.solver._dd`` (built by setup.py),
imported lazily on first use. Where it is missing, a pure-Python oracle
(:mod:`whistkit.solver.reference`) answers instead: correct, but only practical for
short endings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal, overload

from .._checks import is_whole
from . import reference
from .position import Position, position_for


@dataclass(frozen=True)
class Bounds:
    """A value proven to lie in ``lo..hi`` (tricks of the side to play): what a search
    within a budget gives. ``lo == hi`` when the search settled it."""

    lo: int
    hi: int

    def __post_init__(self) -> None:
        if not (is_whole(self.lo) and is_whole(self.hi) and 0 <= self.lo <= self.hi <= 13):
            raise ValueError(f"bounds must satisfy 0 <= lo <= hi <= 13, got {self.lo}..{self.hi}")

    @property
    def exact(self) -> bool:
        """Did the search settle the value (``lo == hi``)?"""
        return self.lo == self.hi

    @property
    def value(self) -> int | None:
        """The value when exact, else None."""
        return self.lo if self.lo == self.hi else None

    def __contains__(self, v: object) -> bool:
        return is_whole(v) and self.lo <= v <= self.hi

    def __str__(self) -> str:
        """``"3"`` when exact, else the range: ``"2–4"`` (an en dash)."""
        return str(self.lo) if self.lo == self.hi else f"{self.lo}–{self.hi}"


_core: ModuleType | None = None
_core_checked = False


# the core counts nodes in a signed 64-bit integer
NODE_LIMIT_MAX = 2**62  # the largest node budget a search takes


def _check_position(pos: object) -> None:
    if not isinstance(pos, Position):
        raise TypeError(f"expected a whistkit.solver.Position, got {type(pos).__name__}")


def _check_node_limit(node_limit: object) -> None:
    if not is_whole(node_limit):
        raise TypeError(f"node_limit must be a whole number, got {node_limit!r}")
    if not 1 <= node_limit <= NODE_LIMIT_MAX:
        raise ValueError(f"node_limit must be between 1 and {NODE_LIMIT_MAX:,}, not {node_limit:,}")


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


CORE_BUILDS = ("portable", "BMI2 with pext/pdep", "popcnt/lzcnt/BMI1, no pext")


def core_build() -> str:
    """Which build of the compiled core runs on this processor (``_dd.FAST`` named), or
    "none" without the core: speed figures depend on it (docs/solver.md, "Speed").
    ``_dd.set_flags(2048)`` runs the portable build whatever this says."""
    core = _load_core()
    if core is None:
        return "none (the pure-Python oracle)"
    return CORE_BUILDS[int(getattr(core, "FAST", 0))]


def _args(pos: Position) -> tuple[Any, ...]:
    return (
        pos.hands,
        pos.trick,
        pos.leader,
        -1 if pos.trump is None else pos.trump,
        pos.misere,
        pos.aces_low,
    )


def _check_budget(node_limit: object, time_limit: object) -> None:
    if node_limit is not None:
        if not is_whole(node_limit):
            raise TypeError(f"node_limit must be a whole number, got {node_limit!r}")
        if not 1 <= node_limit <= NODE_LIMIT_MAX:
            raise ValueError(
                f"node_limit must be between 1 and {NODE_LIMIT_MAX:,}, not {node_limit:,}"
            )
    if time_limit is not None:
        if isinstance(time_limit, bool) or not isinstance(time_limit, int | float):
            raise TypeError(f"time_limit must be a number of seconds, got {time_limit!r}")
        if not 0 < time_limit <= 1e6:
            raise ValueError(
                f"time_limit must be above 0 and at most 1e6 seconds, not {time_limit}"
            )


def _bounded(
    positions: Sequence[Position],
    cards: bool,
    threads: int,
    node_limit: int | None,
    time_limit: float | None,
) -> list[Any]:
    """Bounds (mode 0) or (Bounds, {card: Bounds}) (mode 1) for each position."""
    core = _load_core()
    if core is None:
        from . import reference

        if cards:
            out: list[Any] = []
            for p in positions:
                every = reference.solve_cards(p)
                best = (min if p.misere else max)(every.values())
                out.append((Bounds(best, best), {c: Bounds(v, v) for c, v in every.items()}))
            return out
        return [Bounds(v, v) for v in (reference.solve(p) for p in positions)]
    args = [_args(p) for p in positions]
    raw = core.solve_batch(
        args, 1 if cards else 0, min(threads, 64), node_limit or 0, float(time_limit or 0), True
    )
    if not cards:
        return [Bounds(lo, hi) for lo, hi in raw]
    return [
        (Bounds(lo, hi), {c: Bounds(a, b) for c, (a, b) in every.items()}) for lo, hi, every in raw
    ]


@overload
def solve(pos: Position, *, threads: int = ...) -> int: ...


@overload
def solve(pos: Position, *, node_limit: int, time_limit: float | None = ...) -> Bounds: ...


@overload
def solve(pos: Position, *, node_limit: None = ..., time_limit: float) -> Bounds: ...


@overload
def solve(
    pos: Position,
    *,
    node_limit: int | None = ...,
    time_limit: float | None = ...,
    threads: int = ...,
) -> int | Bounds: ...


def solve(
    pos: Position,
    *,
    node_limit: int | None = None,
    time_limit: float | None = None,
    threads: int = 1,
) -> int | Bounds:
    """Tricks the side to play takes from here (the current trick included).

    With a budget, ``node_limit`` search nodes and/or ``time_limit`` seconds, the answer
    is :class:`Bounds` (exact when the search finished within it). Node counts are the
    same on every machine, so a node budget gives the same answer everywhere; a time
    budget does not. ``threads=2`` searches on two cores at once, each proving other
    bounds with its own table (each with half of a node budget): worth it for whole
    misère deals.
    """
    _check_position(pos)
    if threads not in (1, 2) or isinstance(threads, bool):
        raise ValueError(f"threads must be 1 or 2, got {threads!r}")
    budget = node_limit is not None or time_limit is not None
    if budget:
        _check_budget(node_limit, time_limit)
    core = _load_core()
    if threads == 2 and core is not None:
        lo, hi = core.solve_split(*_args(pos), node_limit or 0, float(time_limit or 0))[:2]
        return Bounds(lo, hi) if budget else int(lo)
    if budget:
        found: Bounds = _bounded([pos], False, 1, node_limit, time_limit)[0]
        return found
    if core is None:
        return reference.solve(pos)
    return int(core.solve(*_args(pos), 0, 0))


@overload
def solve_cards(pos: Position) -> dict[int, int]: ...


@overload
def solve_cards(
    pos: Position, *, node_limit: int, time_limit: float | None = ...
) -> dict[int, Bounds]: ...


@overload
def solve_cards(
    pos: Position, *, node_limit: None = ..., time_limit: float
) -> dict[int, Bounds]: ...


@overload
def solve_cards(
    pos: Position, *, node_limit: int | None = ..., time_limit: float | None = ...
) -> dict[int, int] | dict[int, Bounds]: ...


def solve_cards(
    pos: Position, *, node_limit: int | None = None, time_limit: float | None = None
) -> dict[int, int] | dict[int, Bounds]:
    """The value (as in :func:`solve`) of every legal card of the seat to play; within a
    budget (as in :func:`solve`) the :class:`Bounds` of each."""
    _check_position(pos)
    if node_limit is not None or time_limit is not None:
        _check_budget(node_limit, time_limit)
        every: dict[int, Bounds] = _bounded([pos], True, 1, node_limit, time_limit)[0][1]
        return every
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


@overload
def solve_batch(
    positions: Sequence[Position],
    *,
    cards: Literal[False] = ...,
    threads: int = ...,
    node_limit: int,
    time_limit: float | None = ...,
) -> list[Bounds]: ...


@overload
def solve_batch(
    positions: Sequence[Position],
    *,
    cards: Literal[False] = ...,
    threads: int = ...,
    node_limit: None = ...,
    time_limit: float,
) -> list[Bounds]: ...


@overload
def solve_batch(
    positions: Sequence[Position],
    *,
    cards: Literal[True],
    threads: int = ...,
    node_limit: int,
    time_limit: float | None = ...,
) -> list[tuple[Bounds, dict[int, Bounds]]]: ...


@overload
def solve_batch(
    positions: Sequence[Position],
    *,
    cards: Literal[True],
    threads: int = ...,
    node_limit: None = ...,
    time_limit: float,
) -> list[tuple[Bounds, dict[int, Bounds]]]: ...


def solve_batch(
    positions: Sequence[Position],
    *,
    cards: bool = False,
    threads: int = 2,
    node_limit: int | None = None,
    time_limit: float | None = None,
) -> list[int] | list[dict[int, int]] | list[Bounds] | list[tuple[Bounds, dict[int, Bounds]]]:
    """Solve many positions in one call (values, or every card's value with ``cards``).

    The compiled core releases the GIL and spreads the positions over ``threads``
    worker threads. With a budget per position (``node_limit`` nodes and/or
    ``time_limit`` seconds, as in :func:`solve`) each answer is :class:`Bounds`, with
    ``cards`` a pair (the position's bounds, each card's bounds).
    """
    _check_batch(positions, threads)
    if node_limit is not None or time_limit is not None:
        _check_budget(node_limit, time_limit)
        return _bounded(positions, cards, threads, node_limit, time_limit)
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
    _check_node_limit(node_limit)
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


def solve_batch_counted(
    positions: Sequence[Position], node_limit: int, *, cards: bool = True, threads: int = 2
) -> tuple[list[dict[int, int] | None] | list[int | None], int]:
    """For a caller that spends one budget of ``node_limit`` nodes over many batches: the
    answers of :func:`solve_batch_limited` with that limit per position, and the nodes
    the whole batch searched (the abandoned searches included). Once the finished
    searches have used more than ``node_limit`` together, the positions not yet started
    are skipped (None). Whether the batch is within the budget (every answer given, the
    count at most ``node_limit``) is the same on every machine and with any ``threads``,
    and so is the count of a batch within it; which positions a batch over it skipped,
    and its count, may differ from run to run. Without the compiled core the pure-Python
    oracle solves every position and the count is 0."""
    _check_batch(positions, threads)
    _check_node_limit(node_limit)
    core = _load_core()
    if core is None:
        if cards:
            return solve_batch_limited(positions, node_limit, threads=threads), 0
        return solve_batch_limited(positions, node_limit, cards=False, threads=threads), 0
    args = [_args(p) for p in positions]
    found, spent = core.solve_batch(
        args, 1 if cards else 0, min(threads, 64), node_limit, 0.0, False, True, node_limit
    )
    return found, int(spent)


__all__ = [
    "NODE_LIMIT_MAX",
    "Bounds",
    "Position",
    "can_take",
    "core_build",
    "has_core",
    "position_for",
    "solve",
    "solve_batch",
    "solve_batch_counted",
    "solve_batch_limited",
    "solve_cards",
]
