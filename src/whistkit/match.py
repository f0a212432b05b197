"""Duplicate bot-vs-bot matches: every deal is played twice with the sides' cards swapped.

At table ``a`` the ``ns`` level sits N-S and the ``ew`` level E-W; at table ``b`` the
same cards are dealt to the same seats with the levels swapped. A deal's score is the
mean of the ``ns`` level's two margins (its side's points minus the other side's), so
the luck of the cards cancels; a deterministic bot against itself scores exactly 0.

**What a deal is.** One hand (13 tricks) with a given dealer and contract. Félagsvist's
contract depends on the hand number, so its deals are grouped into games: deals
``12g .. 12g+11`` are hands 1-12 of game ``g``, played as a real game, so the contracts
cycle evenly (each of the six kinds twice per twelve deals), the dealer rotates as the
rules say and each table's game is a valid record that ``whistkit replay`` accepts.
Variants without a hand cycle play each deal as the first hand of its own game.

**One kind of contract.** With ``contracts`` (``whistkit match --contracts NOLO``) the
``ns`` level plays only the cards of hands in those contracts; all else, the bidding and
the other hands, is the ``ew`` level's at all four seats of both tables. Those hands are
then played alike at both tables and score nothing, and the result holds the deals of the
chosen contracts only: how much better one level plays, say, Nóló.

Every random thing is seeded: the cards of deal ``i`` by ``(seed, i)``, each bot's RNG
by ``(seed, i, seat)`` (the same at both tables), the first dealer of game ``g`` by
``(seed, g)``. Games are independent, so ``jobs`` processes give the same result as one.
"""

from __future__ import annotations

import json
import math
import os
import random
import statistics
import sys
from collections.abc import Callable, Collection, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ._checks import counted, is_whole, kind_of
from .bots import LEVELS, Bot, ExpertBot, OracleBot
from .deal import deal_cards
from .record import dumps
from .seats import SEATS, Seat
from .state import BID, PLAY, Action, Deal, State, new_game
from .variants import Variant, get_variant
from .variants.felagsvist import HANDS_PER_GAME, Felagsvist

TABLES = ("a", "b")


class Player(Protocol):
    """What a match seats: acts on the full state but (except ``oracle``) reads a view."""

    name: str

    def act(self, state: State, seat: Seat, rng: random.Random) -> Action: ...


class ViewPlayer:
    """A :class:`~whistkit.bots.Bot` at a match table: it gets only its seat's view."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name

    def act(self, state: State, seat: Seat, rng: random.Random) -> Action:
        return self.bot.choose(state.view(seat), rng)


class _OnlyIn:
    """A seat that plays as ``own`` only the cards of hands in ``contracts``; every other
    decision, the bidding included, is ``other``'s."""

    def __init__(self, own: Player, other: Player, contracts: Collection[str]) -> None:
        self.own, self.other, self.contracts = own, other, contracts
        self.name = own.name

    def act(self, state: State, seat: Seat, rng: random.Random) -> Action:
        contract = state.contract
        if state.phase == PLAY and contract is not None and contract.code in self.contracts:
            return self.own.act(state, seat, rng)
        return self.other.act(state, seat, rng)


def _view_player(make: Callable[[], Bot]) -> Callable[[], Player]:
    return lambda: ViewPlayer(make())


def _expert(bidding: str, weigh: bool | None = None) -> Callable[[], Bot]:
    # no time budget: the expert's choices depend on the seed alone, so a match gives
    # the same result on any machine and with any number of jobs
    if weigh is None:
        return lambda: ExpertBot(time_budget=None, bidding=bidding)
    return lambda: ExpertBot(time_budget=None, bidding=bidding, weigh=weigh)


def match_levels() -> dict[str, Callable[[], Player]]:
    """The levels a match can seat: the players' levels plus measuring sticks.

    The match ``expert`` never has a time budget, so results are reproducible.
    ``oracle`` plays double-dummy with every hand open (the ceiling); ``expert-red`` and
    ``expert-black`` are the expert's card play with a fixed Swedish bottom-card colour
    (the baselines its bidding is measured against); ``expert-weighted`` and
    ``expert-unweighted`` are the expert with and without the weighted worlds
    (``ExpertBot(weigh=...)``, docs/bots.md), whichever is the default.
    """
    out = {name: _view_player(make) for name, make in LEVELS.items()}
    out["expert"] = _view_player(_expert("simulate"))
    out["expert-red"] = _view_player(_expert("red"))
    out["expert-black"] = _view_player(_expert("black"))
    out["expert-weighted"] = _view_player(_expert("simulate", weigh=True))
    out["expert-unweighted"] = _view_player(_expert("simulate", weigh=False))
    out["oracle"] = OracleBot
    return out


def make_player(level: str) -> Player:
    """A match player of ``level`` (any of :func:`match_levels`)."""
    levels = match_levels()
    if level not in levels:
        raise ValueError(f"unknown bot level {level!r}; known: {', '.join(levels)}")
    return levels[level]()


def deals_per_game(variant: Variant) -> int:
    """How many consecutive deals share one game (Félagsvist's cycle of 12 hands)."""
    return HANDS_PER_GAME if isinstance(variant, Felagsvist) else 1


@dataclass(frozen=True)
class DealResult:
    """One deal at both tables. Margins are N-S points minus E-W points at each table."""

    index: int
    game: int
    hand_number: int
    contract: str
    dealer: Seat
    margin_a: int
    margin_b: int
    tricks_ns: tuple[int, int]  # N-S tricks at tables a and b

    @property
    def score(self) -> float:
        """The ``ns`` level's duplicate score: the mean of its two margins."""
        return (self.margin_a - self.margin_b) / 2


@dataclass(frozen=True)
class MatchResult:
    """A finished duplicate match."""

    variant: str
    ns: str
    ew: str
    seed: int
    deals: list[DealResult] = field(repr=False)
    records: Path | None = None
    contracts: tuple[str, ...] | None = None  # the ns level played only these

    @property
    def scores(self) -> list[float]:
        return [d.score for d in self.deals]

    @property
    def mean_diff(self) -> float:
        """Mean points per hand of the ``ns`` level minus the ``ew`` level."""
        return statistics.fmean(self.scores)

    @property
    def ci95(self) -> tuple[float, float]:
        """Normal 95% confidence interval of :attr:`mean_diff` (paired deals)."""
        scores = self.scores
        half = 1.96 * statistics.stdev(scores) / math.sqrt(len(scores)) if len(scores) > 1 else 0
        m = self.mean_diff
        return (m - half, m + half)

    def by_contract(self) -> dict[str, tuple[int, float]]:
        """Number of deals and mean score per contract code."""
        groups: dict[str, list[float]] = {}
        for d in self.deals:
            groups.setdefault(d.contract, []).append(d.score)
        return {k: (len(v), statistics.fmean(v)) for k, v in groups.items()}

    def to_json(self) -> dict[str, Any]:
        """Everything the text report says, unrounded, and every deal's result."""
        lo, hi = self.ci95
        return {
            "variant": self.variant,
            "seed": self.seed,
            "deals": len(self.deals),
            "contracts": None if self.contracts is None else list(self.contracts),
            "ns": self.ns,
            "ew": self.ew,
            "mean_diff": self.mean_diff,
            "ci95": [lo, hi],
            "by_contract": {
                k: {"deals": n, "mean_diff": m} for k, (n, m) in sorted(self.by_contract().items())
            },
            "records": None if self.records is None else str(self.records),
            "per_deal": [
                {
                    "index": d.index,
                    "game": d.game,
                    "hand": d.hand_number,
                    "contract": d.contract,
                    "dealer": SEATS[d.dealer],
                    "margin_a": d.margin_a,
                    "margin_b": d.margin_b,
                    "tricks_ns": list(d.tricks_ns),
                    "score": d.score,
                }
                for d in self.deals
            ],
        }

    def report(self) -> str:
        lo, hi = self.ci95
        lines = [
            f"Duplicate match, {self.variant}, {len(self.deals)} deals"
            f" ({2 * len(self.deals)} hands), seed {self.seed}",
            f"  N-S {self.ns} vs E-W {self.ew}",
        ]
        if self.contracts is not None:
            lines.append(
                f"  {self.ns} played only {', '.join(self.contracts)}; {self.ew} played"
                " the rest at every seat (alike at both tables, left out)"
            )
        lines += [
            f"  mean points per hand, {self.ns} minus {self.ew}: {self.mean_diff:+.3f}"
            f"  (95% CI {lo:+.3f} .. {hi:+.3f})",
            "  by contract: "
            + ", ".join(f"{k} {m:+.2f} ({n})" for k, (n, m) in sorted(self.by_contract().items())),
        ]
        if self.records is not None:
            lines.append(f"  records: {self.records}")
        return "\n".join(lines)


@dataclass(frozen=True)
class _GameSpec:
    variant: str
    options: Mapping[str, Any]
    ns: str
    ew: str
    seed: int
    game: int
    first_deal: int
    n_deals: int
    records: str | None
    contracts: tuple[str, ...] | None = None


def _play_table(
    variant: Variant,
    players: Mapping[Seat, Player],
    spec: _GameSpec,
) -> State:
    dealer = random.Random(f"whistkit-match:{spec.seed}:game:{spec.game}").randrange(4)
    state = new_game(variant, dealer=dealer)
    for k in range(spec.n_deals):
        index = spec.first_deal + k
        dealt = deal_cards(random.Random(f"whistkit-match:{spec.seed}:deal:{index}"), state.dealer)
        turned = dealt.last_card if variant.uses_turned_card else None
        state = state.apply(Deal(dealt.hands, turned))
        rngs = {s: random.Random(f"whistkit-match:{spec.seed}:{index}:{s}") for s in range(4)}
        while state.phase in (BID, PLAY):
            seat = state.to_play
            state = state.apply(players[seat].act(state, seat, rngs[seat]))
        if state.is_over:
            break
    return state


def _play_game(spec: _GameSpec) -> list[DealResult]:
    variant = get_variant(spec.variant, spec.options)
    states = []
    for table in TABLES:
        first, second = (spec.ns, spec.ew) if table == "a" else (spec.ew, spec.ns)
        a, b = make_player(first), make_player(second)
        if spec.contracts is not None:  # the ns level plays these contracts' cards only
            if table == "a":
                a = _OnlyIn(a, b, spec.contracts)
            else:
                b = _OnlyIn(b, a, spec.contracts)
        players: dict[Seat, Player] = {0: a, 1: b, 2: a, 3: b}
        state = _play_table(variant, players, spec)
        states.append(state)
        if spec.records is not None:
            names = {s: players[s].name for s in range(4)}
            path = Path(spec.records) / f"game{spec.game:04d}{table}.json"
            path.write_text(dumps(state, names) + "\n", encoding="utf-8")
    out = []
    for k, (ra, rb) in enumerate(zip(states[0].results, states[1].results, strict=True)):
        out.append(
            DealResult(
                index=spec.first_deal + k,
                game=spec.game,
                hand_number=ra.number,
                contract=ra.contract.code,
                dealer=ra.dealer,
                margin_a=ra.points[0] - ra.points[1],
                margin_b=rb.points[0] - rb.points[1],
                tricks_ns=(ra.tricks[0], rb.tricks[0]),
            )
        )
    return out


def _specs(
    variant: Variant,
    options: Mapping[str, Any],
    ns: str,
    ew: str,
    deals: int,
    seed: int,
    records: Path | None,
    contracts: tuple[str, ...] | None,
) -> Iterator[_GameSpec]:
    per_game = deals_per_game(variant)
    for g, first in enumerate(range(0, deals, per_game)):
        yield _GameSpec(
            variant=variant.name,
            options=dict(options),
            ns=ns,
            ew=ew,
            seed=seed,
            game=g,
            first_deal=first,
            n_deals=min(per_game, deals - first),
            records=None if records is None else str(records),
            contracts=contracts,
        )


def match_records(folder: Path) -> list[Path]:
    """The match records (``game0000a.json``, ...) already in ``folder``."""
    return sorted(folder.glob("game*.json"))


def _whole(name: str, value: object, least: int, why: str = "") -> int:
    """``value`` if it is a whole number (an int) of at least ``least``; else a
    ``TypeError`` (not an int) or ``ValueError`` (too small) naming ``name``."""
    message = f"{name} must be a whole number of at least {least}{why}, got {value!r}"
    if not is_whole(value):
        raise TypeError(message)
    if value < least:
        raise ValueError(message)
    return value


def run_match(
    variant: str = "felagsvist",
    *,
    ns: str,
    ew: str,
    deals: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    jobs: int = 1,
    records: str | os.PathLike[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    contracts: Collection[str] | None = None,
) -> MatchResult:
    """Play a duplicate match of ``deals`` deals of ``variant`` between the levels ``ns``
    and ``ew`` (:func:`match_levels`), in ``jobs`` processes; write every game's record to
    the folder ``records`` (none by default).

    ``progress(done, total)`` is called as deals finish. With ``contracts`` (record
    codes, e.g. ``["NOLO"]``) the ``ns`` level plays only the cards of those contracts'
    hands and the result holds only those deals (the module's docstring). Raises ``TypeError`` for an
    argument of the wrong type (``deals=12.5``), ``ValueError`` naming a bad value
    (unknown variant, level or contract, fewer than 2 deals, fewer than 1 job, a records
    folder that already holds match records, fewer than 2 deals of ``contracts``
    played) and ``RuntimeError`` if a level needs the solver
    and it is missing.

    >>> result = run_match(ns="club", ew="beginner", deals=2, seed=1)
    >>> len(result.deals), result.ns
    (2, 'club')
    """
    for name, value in (("variant", variant), ("ns", ns), ("ew", ew)):
        if not isinstance(value, str):
            what = "a variant name" if name == "variant" else "a level name"
            raise TypeError(f"{name} must be {what} (a str), got {kind_of(value)}")
    if options is not None and not isinstance(options, Mapping):
        raise TypeError(f"options must be a mapping of option: value, got {kind_of(options)}")
    if not is_whole(seed):
        raise TypeError(f"seed must be a whole number, got {seed!r}")
    if records is not None and not isinstance(records, (str, os.PathLike)):
        raise TypeError(f"records must be a folder's path, got {kind_of(records)}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a function of (done, total), got {kind_of(progress)}")
    v = get_variant(variant, options)
    levels = match_levels()
    for side, level in (("ns", ns), ("ew", ew)):
        if level not in levels:
            raise ValueError(f"unknown level {level!r} for {side}; known: {', '.join(levels)}")
    _whole("deals", deals, 2, " (a confidence interval needs two deals)")
    only = None if contracts is None else _contract_codes(v, contracts)
    _whole("jobs", jobs, 1)
    for level in (ns, ew):
        make_player(level)  # fail before any play (e.g. a level that needs the solver)
    folder = None if records is None else Path(records)
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ValueError(
                f"cannot use {folder} as the records folder: {e.strerror or e}"
            ) from None
        earlier = len(match_records(folder))
        if earlier:
            # never overwrite or mix with another match's records
            raise ValueError(
                f"the records folder {folder} already holds"
                f" {counted(earlier, 'match record')};"
                " give --records a new or empty folder"
            )
    specs = list(_specs(v, options or {}, ns, ew, deals, seed, folder, only))
    results: list[list[DealResult]] = []
    done = 0
    if jobs == 1 or len(specs) == 1:
        for spec in specs:
            results.append(_play_game(spec))
            done += spec.n_deals
            if progress:
                progress(done, deals)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for spec, res in zip(specs, pool.map(_play_game, specs), strict=True):
                results.append(res)
                done += spec.n_deals
                if progress:
                    progress(done, deals)
    flat = [d for game in results for d in game]
    if only is not None:
        flat = [d for d in flat if d.contract in only]
        if len(flat) < 2:
            found = "none" if not flat else "only 1"
            raise ValueError(
                f"{found} of the {deals} deals played was in {', '.join(only)};"
                " a confidence interval needs two: play more deals"
            )
    return MatchResult(
        variant=v.name, ns=ns, ew=ew, seed=seed, deals=flat, records=folder, contracts=only
    )


def _contract_codes(variant: Variant, contracts: object) -> tuple[str, ...]:
    """``contracts`` as the variant's record codes, in the variant's order; a
    ``TypeError`` or ``ValueError`` naming what is wrong."""
    if isinstance(contracts, (str, bytes)) or not isinstance(contracts, Collection):
        raise TypeError(
            f"contracts must be a collection of contract codes, got {kind_of(contracts)}"
        )
    known = variant.contract_codes
    for code in contracts:
        if code not in known:
            raise ValueError(
                f"unknown contract {code!r} for {variant.name}; its contracts: {', '.join(known)}"
            )
    if not contracts:
        raise ValueError(f"contracts names none; {variant.name}'s: {', '.join(known)}")
    return tuple(c for c in known if c in contracts)


def terminal_progress(label: str) -> Callable[[int, int], None]:
    """A progress bar on standard error (drawn only when it is a terminal)."""
    tty = sys.stderr.isatty()

    def show(done: int, total: int) -> None:
        if not tty:
            return
        width = 30
        filled = width * done // total
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def main_json(result: MatchResult) -> str:
    """The one-line JSON of ``whistkit match --json``."""
    return json.dumps(result.to_json())


__all__ = [
    "DealResult",
    "MatchResult",
    "Player",
    "ViewPlayer",
    "deals_per_game",
    "main_json",
    "make_player",
    "match_levels",
    "match_records",
    "run_match",
    "terminal_progress",
]
