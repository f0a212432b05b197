"""Two levels against one opponent on the same deals, paired deal by deal.

Usage:
  python benchmarks/paired.py run --a expert-weighted --b expert-unweighted --ew club
      --seed 1 --games 10:20 --jobs 2 --out FILE.json
  python benchmarks/paired.py run --a 'expert:miss=0.01' --seed 1 --games 0:10 --out F.json
  python benchmarks/paired.py pair FILE.json [FILE.json ...]

A level is any of ``whistkit match``'s, or ``expert:key=value:...``: the match expert
(no time budget) with those ``ExpertBot`` keyword arguments (values are Python
literals), e.g. ``expert:miss=0.01:partner_miss=0.3``. With ``--b`` left out a run plays
``--a`` alone, to be paired with the scores of an earlier run (the other level's scores
on the same deals do not change: a level's play depends only on the seed and the deal).

``run`` plays games ``first:last`` (Félagsvist: 12 deals each, deals ``12·first`` on) of
``whistkit match``'s duplicate match with each of the levels ``a`` and ``b`` N-S against
``ew``, exactly as ``whistkit match --deals ... --seed ...`` plays them (a game's play
depends only on the seed and its number), so a run can extend an earlier match without
playing its deals again. It writes every deal's score per level.

``pair`` reads such files and ``whistkit match --json`` outputs (each a level's scores on
some deals), pairs the two levels' scores deal by deal on the deals both have, and prints
each level's mean against the opponent, the paired difference ``a - b`` with its normal
95% interval (mean ± 1.96·sd/√n), the deals that score differently and the difference by
contract (``--below 400``: only the ladder's 400 deals of games ``0:34``). Files of
different variants or seeds are refused, and so is one level name scoring a deal two ways
(runs of different code). The decisions of a match level do not depend on
time, so the machine's load changes how long a run takes, not its figures.

A run records the commit that played it. ``benchmarks/baselines/`` keeps the default
expert's scores on the ladder's deals (``felagsvist-seed1.json``, ``-seed2.json``), so a
candidate run with ``--a`` alone pairs with them (``pair CAND.json
benchmarks/baselines/felagsvist-seed1.json --a CAND --b expert --below 400``) as long as
the default plays as at the baseline's commit.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import math
import random
import re
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import whistkit.match as match
from whistkit.bots.lookahead import touching_runs
from whistkit.bots.pimc import (
    ExpertBot,
    OracleBot,
    _club_card,
    card_scores,
    default_lookahead,
    default_worlds,
    hand_scorer,
)
from whistkit.cards import Card, cards_of
from whistkit.match import _GameSpec, _play_game, deals_per_game
from whistkit.seats import SEATS, Seat, side_of
from whistkit.state import Action, State, trick_winner_index
from whistkit.variants import get_variant

_make_player = match.make_player


def expert_settings(level: str, text: str) -> dict[str, Any]:
    """``ExpertBot`` keyword arguments from ``key=value:...`` (values: Python literals),
    the match expert's ``time_budget=None`` first; ``level`` names them in errors."""
    kwargs: dict[str, Any] = {"time_budget": None}
    for item in re.split(r":(?=[A-Za-z_]\w*=)", text) if text else []:
        key, eq, value = item.partition("=")
        if not eq or not key.isidentifier():
            raise ValueError(f"{level!r}: {item!r} is not key=value")
        try:
            kwargs[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise ValueError(f"{level!r}: the value of {key} is not a Python literal") from None
    return _schedules(kwargs)


def _schedules(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` with the dicts of tricks left (``worlds``, ``misere_worlds``,
    ``lookahead``, ``misere_lookahead``) made into the schedules ``ExpertBot`` takes,
    each over the default schedule."""
    if isinstance(settings.get("worlds"), dict):
        table = {int(k): int(v) for k, v in settings["worlds"].items()}

        def worlds(left: int, misere: bool) -> int:
            return (
                default_worlds(left, misere)
                if misere
                else table.get(left, default_worlds(left, misere))
            )

        settings["worlds"] = worlds
    extra = settings.pop("misere_worlds", None)
    if extra is not None:
        misere_table = {int(k): int(v) for k, v in dict(extra).items()}
        base_worlds = settings.get("worlds", default_worlds)

        def with_misere(left: int, misere: bool) -> int:
            if misere and left in misere_table:
                return misere_table[left]
            return int(base_worlds(left, misere))

        settings["worlds"] = with_misere
    ahead = settings.pop("lookahead", None)
    misere_ahead = settings.pop("misere_lookahead", None)
    if ahead is not None or misere_ahead is not None:
        both = {int(k): int(v) for k, v in dict(ahead or {}).items()}
        misere_only = {int(k): int(v) for k, v in dict(misere_ahead or {}).items()}

        def lookahead(left: int, misere: bool) -> int:
            if misere and left in misere_only:
                return misere_only[left]
            return both.get(left, default_lookahead(left, misere))

        settings["lookahead"] = lookahead
    return settings


class Hybrid:
    """``hybrid:K``: the match expert until K tricks are left in a hand, the oracle from
    there (where the gap between them lies)."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.name = f"hybrid:{k}"
        self.expert = match.ViewPlayer(ExpertBot(time_budget=None))
        self.oracle = OracleBot()

    def act(self, state: State, seat: Seat, rng: random.Random) -> Action:
        if state.phase == "play" and state.holdings[seat].bit_count() <= self.k:
            return self.oracle.act(state, seat, rng)
        return self.expert.act(state, seat, rng)


class OracleClub(OracleBot):
    """``oracle-club``: all hands open, each card valued by playing the hand out in the
    real deal with its side double-dummy and the opponents by the club rules (so it plays
    for the club bots' mistakes); the cards played out are those within a trick of the
    double-dummy best, one per run of touching cards. A measuring stick: how much the
    club bots' errors are worth to one who sees every card."""

    name = "oracle-club"
    side = 0  # the side whose card is being chosen

    def _best(self, state: State) -> Card:
        """The next card of the play-out: the club rules' for an opponent, the lowest of
        the double-dummy best for the own side."""
        side = self.side
        legal = state.legal_mask()
        cards = cards_of(legal)
        if len(cards) == 1:
            return cards[0]
        assert state.contract is not None
        if side_of(state.to_play) != side or (
            state.contract.misere and state.holdings[state.to_play].bit_count() > self.misere_from
        ):
            return _club_card(state.view(state.to_play), random.Random(0))
        dd = card_scores(self.solver, state, state.to_play)
        top = max(dd.values())
        return min(c for c in cards if dd[c] == top)

    def _play_out(self, state: State, side: int) -> int:
        """The tricks ``side`` takes from ``state`` to the end of the hand."""
        won = 0
        while True:
            assert state.contract is not None
            if len(state.trick_winners) == 12 and len(state.trick) == 3:
                last = state.holdings[state.to_play].bit_length() - 1
                winner = state.leader + trick_winner_index((*state.trick, last), state.contract)
                return won + (side_of(winner & 3) == side)
            before = len(state.trick_winners)
            state = state.apply(self._best(state))
            if len(state.trick_winners) > before:
                won += side_of(state.trick_winners[-1]) == side

    def act(self, state: State, seat: Seat, rng: random.Random) -> Action:
        cards = [a for a in state.legal_actions() if type(a) is int]
        if state.phase != "play" or len(cards) < 2 or state.contract is None:
            return super().act(state, seat, rng)
        if state.contract.misere and state.holdings[seat].bit_count() > self.misere_from:
            return super().act(state, seat, rng)
        self.side = side = side_of(seat)
        score = hand_scorer(state.variant.name, state.contract, side, state.tricks)
        dd = card_scores(self.solver, state, seat)
        top = max(dd.values())
        out = 0  # the cards still out: in the other hands or the current trick
        for other in range(4):
            if other != seat:
                out |= state.holdings[other]
        for c in state.trick:
            out |= 1 << c
        # one card per run of touching cards within a trick of the best
        near = [c for c in cards if dd[c] >= top - 2]
        runs = [run[0] for run in touching_runs(near, out, state.contract.aces_low)]
        if len(runs) == 1:
            return super().act(state, seat, rng)
        played = {c: score(self._play_out(state.apply(c), side)) for c in runs}
        best = max(played.values())
        good = [c for c in runs if played[c] == best]
        return max(good, key=lambda c: (dd[c], -c))


class SeesPartner:
    """``sees-partner``: the match expert (``sees-partner:key=value`` with settings, as
    ``expert:``) with its partner's hand placed face up in its view, so it draws its worlds
    knowing partner's cards and infers only the opponents'. A measuring stick: how much of
    the gap to the oracle a perfect model of partner could close."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.bot = ExpertBot(**settings)
        self.name = "sees-partner"

    def act(self, state: State, seat: Seat, rng: random.Random) -> Action:
        view = state.view(seat)
        if state.phase == "play":
            partner = (seat + 2) & 3
            public = dict(view.public)
            revealed = dict(public.get("revealed") or {})
            revealed[SEATS[partner]] = cards_of(state.holdings[partner])
            public["revealed"] = revealed
            view = dataclasses.replace(view, public=public)
        return self.bot.choose(view, rng)


def make_player(level: str) -> match.Player:
    """A match level, ``expert:key=value:...`` (the match expert with those settings;
    ``worlds`` may be a dict of tricks left to worlds in normal contracts, over the
    default schedule, ``misere_worlds`` the same in misère; ``lookahead`` a dict of tricks
    left to own moves searched, over Félagsvist's default (``pimc.LOOKAHEAD``; Swedish
    spel's, ``LOOKAHEAD_SPEL``, has two own moves at 8-4: give those tricks too; Grand's
    ``grand_lookahead``, by default ``LOOKAHEAD_GRAND``, stays over it: give
    ``grand_lookahead={}`` to drop it), ``misere_lookahead`` in misère only),
    ``hybrid:K``, ``oracle-club`` or ``sees-partner[:key=value...]``."""
    name, _, rest = level.partition(":")
    if name == "hybrid" and rest.isdigit():
        return Hybrid(int(rest))
    if level == "oracle-club":
        return OracleClub()
    if name == "sees-partner":
        return SeesPartner(expert_settings(level, rest))
    if name != "expert" or not rest:
        return _make_player(level)
    settings = expert_settings(level, rest)
    try:
        bot = ExpertBot(**settings)
    except TypeError as exc:
        raise ValueError(f"{level!r}: {exc}") from None
    return match.ViewPlayer(bot)


def _game(
    args: tuple[str, str, str, int, int, int, tuple[str, ...] | None],
) -> tuple[str, list[dict[str, Any]]]:
    variant, level, ew, seed, game, per_game, contracts = args
    match.make_player = make_player  # this process's games may seat configured levels
    spec = _GameSpec(
        variant=variant,
        options={},
        ns=level,
        ew=ew,
        seed=seed,
        game=game,
        first_deal=game * per_game,
        n_deals=per_game,
        records=None,
        contracts=contracts,
    )
    return level, [
        {"index": d.index, "game": d.game, "contract": d.contract, "score": d.score}
        for d in _play_game(spec)
        if contracts is None or d.contract in contracts
    ]


def run(opts: argparse.Namespace) -> None:
    first, _, last = opts.games.partition(":")
    games = range(int(first), int(last))
    if not games:
        sys.exit(f"--games {opts.games!r}: give first:last with first < last")
    levels = [opts.a] if opts.b is None else [opts.a, opts.b]
    if len(set(levels)) != len(levels):
        sys.exit("--a and --b are the same level")
    for level in (*levels, opts.ew):
        try:
            make_player(level)  # an unknown level fails before any play
        except ValueError as exc:
            sys.exit(str(exc))
    per_game = deals_per_game(get_variant(opts.variant))
    contracts = tuple(opts.contracts.split(",")) if opts.contracts else None
    tasks = [
        (opts.variant, level, opts.ew, opts.seed, g, per_game, contracts)
        for g in games
        for level in levels
    ]
    start = time.perf_counter()
    out: dict[str, list[dict[str, Any]]] = {level: [] for level in levels}
    with ProcessPoolExecutor(max_workers=opts.jobs) as pool:
        for level, rows in pool.map(_game, tasks):
            out[level].extend(rows)
    seconds = time.perf_counter() - start
    for level in out:
        out[level].sort(key=lambda d: d["index"])
    doc = {
        "variant": opts.variant,
        "seed": opts.seed,
        "ew": opts.ew,
        "games": opts.games,
        "seconds": seconds,
        "contracts": opts.contracts,
        "commit": _commit(),
        "levels": out,
    }
    Path(opts.out).write_text(json.dumps(doc) + "\n", encoding="utf-8")
    print(f"{len(tasks)} games in {seconds:.0f} s -> {opts.out}")


def _commit() -> str | None:
    """The checkout's commit (a stored run says which code played it), or None."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def _load(paths: list[str]) -> tuple[dict[str, dict[int, dict[str, Any]]], set[str]]:
    """Per level, per deal index, the deal's row; and the opponents seen. Files of
    different variants or seeds (deal indices that name different deals) are refused."""
    levels: dict[str, dict[int, dict[str, Any]]] = {}
    opponents: set[str] = set()
    dealt: dict[tuple[str, int], list[str]] = {}
    for p in paths:
        try:
            doc = json.loads(Path(p).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            sys.exit(f"{p}: not a run's scores ({exc})")
        if not isinstance(doc, dict) or not {"variant", "seed", "ew"} <= doc.keys():
            sys.exit(f"{p}: not a run's scores (no variant, seed and ew)")
        dealt.setdefault((doc["variant"], doc["seed"]), []).append(p)
        opponents.add(doc["ew"])
        if "levels" in doc:
            found = doc["levels"]
        else:  # whistkit match --json
            found = {doc["ns"]: doc["per_deal"]}
        for level, rows in found.items():
            seen = levels.setdefault(level, {})
            for row in rows:
                before = seen.get(row["index"])
                if before is not None and before["score"] != row["score"]:
                    sys.exit(
                        f"{p}: {level} scores deal {row['index']} {row['score']:+g}, another"
                        f" file {before['score']:+g}: runs of different code under one name"
                    )
                seen[row["index"]] = row
    if len(dealt) > 1:
        sys.exit(
            "the files deal different deals: "
            + "; ".join(f"{v} seed {sd}: {', '.join(ps)}" for (v, sd), ps in dealt.items())
        )
    return levels, opponents


def _ci(xs: list[float]) -> tuple[float, float, float]:
    m = statistics.fmean(xs)
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return m, m - half, m + half


def pair(opts: argparse.Namespace) -> None:
    levels, opponents = _load(opts.files)
    if opts.b is not None:
        missing = [x for x in (opts.a, opts.b) if x not in levels]
        if missing:
            sys.exit(f"no scores of {', '.join(missing)} in the files (they hold {sorted(levels)})")
        levels = {x: levels[x] for x in (opts.a, opts.b)}
    if len(opponents) != 1:
        sys.exit(f"the files are against different opponents: {sorted(opponents)}")
    if len(levels) != 2:
        sys.exit(f"pairing needs exactly two levels, the files hold {sorted(levels)}")
    a, b = sorted(levels, key=lambda name: (name != opts.a, name))
    common = sorted(set(levels[a]) & set(levels[b]))
    if opts.below is not None:
        common = [i for i in common if i < opts.below]
    if len(common) < 2:
        sys.exit("fewer than two deals in common")
    sa = [levels[a][i]["score"] for i in common]
    sb = [levels[b][i]["score"] for i in common]
    diffs = [x - y for x, y in zip(sa, sb, strict=True)]
    (opp,) = opponents
    for name, xs in ((a, sa), (b, sb)):
        m, lo, hi = _ci(xs)
        print(f"{name} - {opp}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    m, lo, hi = _ci(diffs)
    changed = sum(1 for d in diffs if d)
    print(
        f"paired {a} - {b}, {len(common)} deals: {m:+.3f} [{lo:+.3f}, {hi:+.3f}]"
        f" ({changed} deals score differently)"
    )
    by: dict[str, list[float]] = {}
    for i, d in zip(common, diffs, strict=True):
        by.setdefault(levels[a][i]["contract"], []).append(d)
    print(
        "by contract: "
        + ", ".join(f"{k} {statistics.fmean(v):+.2f} ({len(v)})" for k, v in sorted(by.items()))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="play games with both levels")
    r.add_argument("--a", required=True, help="the first level (e.g. expert-weighted)")
    r.add_argument("--b", help="the second level (e.g. expert-unweighted); none: --a alone")
    r.add_argument("--ew", default="club", help="the opponent of both (default club)")
    r.add_argument("--variant", default="felagsvist")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--games", required=True, help="first:last game numbers (last excluded)")
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--out", required=True, help="JSON file to write")
    r.add_argument(
        "--contracts",
        help="the levels play only these contracts' hands (e.g. NOLO), the rest by --ew;"
        " only their deals are kept (whistkit match --contracts)",
    )
    p = sub.add_parser("pair", help="pair two levels' scores deal by deal")
    p.add_argument("files", nargs="+")
    p.add_argument("--a", default="expert-weighted", help="the level listed first")
    p.add_argument("--b", help="the other level (needed when the files hold more than two)")
    p.add_argument(
        "--below",
        type=int,
        help="only deals numbered below this (400: the ladder's deals of games 0:34)",
    )
    opts = parser.parse_args()
    if opts.command == "run":
        run(opts)
    else:
        pair(opts)


if __name__ == "__main__":
    main()
