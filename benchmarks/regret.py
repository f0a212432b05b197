"""Levels' cards measured one decision at a time: double-dummy regret on the same positions.

Usage:
  python benchmarks/regret.py --levels expert "expert:lookahead={8: 3, 7: 3}" club
      --seed 1 --games 300:324 --contracts C,D,H,S --tricks 8:4 --leads --jobs 2
      [--reach expert] [--out FILE.json]

The positions come from ``whistkit match``'s duplicate games of ``--seed`` (games
``first:last``; Félagsvist 12 deals a game) of the level ``--reach`` against the club
rules (the default: the club rules at all four seats): every decision of ``--reach``'s
seats with two or more legal cards, in the contracts ``--contracts`` (codes as in the
ladder: C, D, H, S, NT, NOLO; all when left out), with ``--tricks hi:lo`` cards in the
hand of the seat to play (both ends included), leads only with ``--leads``. Misère
positions with more than 10 cards in hand are left out (beyond the solver's reach).

Each level (``benchmarks/paired.py``'s: any ``whistkit match`` level, ``expert:key=value``
and so on; ``club`` is the club rules' card) decides each position with the same random
stream (``random.Random(f"regret:{seed}:{position}")``), a fresh player each time, so a
level's card depends only on the position and the seed. The real deal is then solved
double-dummy: a card's *regret* is how much less the side to play scores (margin points,
the variant's scoring, as the expert's own sums) after it than after the best card. Regret
in the real deal counts a guess that went wrong as a loss too (the solver sees every
card), so it screens candidates and points where to look; a paired match decides. A
screen that finds nothing saves a match; a gain here has not always held in play (96
worlds at 11-9 tricks left: 0.016 less regret a decision, and no gain on the ladder's
deals; docs/bots.md, issue 35's eighth pass).

``--playout LEVEL`` measures each card in play as well: where a level's card differs
from the first level's, both cards are played in the real deal and the hand is played
out to its end, the side to play by ``LEVEL`` (the level the ladder fields) and the other
side by the club rules (each seat with a random stream of its own, the same for both
cards). A level's *gain* at a position is its card's margin so played out minus the
first level's (zero where the cards are the same): what the ladder would score for that
one decision changed, the rest of the hand played by the ladder's players, not
double-dummy.

It prints each level's regret per decision, and each level against the first paired
position by position (mean difference with its normal 95% interval, mean ± 1.96·sd/√n,
and how many positions differ), also by contract, by the seat's place in the trick and
by the cards in its hand. The intervals' half-widths seen so far: ±0.045 margin points a
decision on 833 positions, ±0.011 on 2,091 (most cards the same).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import whistkit.match as match
from paired import _ci, make_player  # benchmarks/paired.py, beside this script
from whistkit.bots.pimc import ORACLE_MISERE_FROM, card_scores, default_solver, hand_scorer
from whistkit.match import _GameSpec, _play_game, deals_per_game
from whistkit.seats import Seat, side_of
from whistkit.state import Action, State
from whistkit.variants import get_variant


class _Recorder:
    """A match player that keeps the positions at its turns that pass ``keep``."""

    def __init__(self, player: match.Player, keep: Any, found: list[tuple[State, Seat]]) -> None:
        self.player = player
        self.name = player.name
        self.keep = keep
        self.found = found

    def act(self, state: State, seat: Seat, rng: random.Random) -> Action:
        if self.keep(state, seat):
            self.found.append((state, seat))
        return self.player.act(state, seat, rng)


def positions(opts: argparse.Namespace) -> list[tuple[State, Seat]]:
    """The positions of ``--reach``'s seats (against the club rules) that pass the
    filters, in game and play order."""
    contracts = None if opts.contracts is None else set(opts.contracts.split(","))
    hi, _, lo = opts.tricks.partition(":")
    most, least = int(hi), int(lo or hi)

    def keep(state: State, seat: Seat) -> bool:
        if state.phase != "play" or state.contract is None:
            return False
        if contracts is not None and state.contract.code not in contracts:
            return False
        held = state.holdings[seat].bit_count()
        if not least <= held <= most or (opts.leads and state.trick):
            return False
        if state.contract.misere and held > ORACLE_MISERE_FROM:
            return False
        return sum(type(a) is int for a in state.legal_actions()) >= 2

    found: list[tuple[State, Seat]] = []
    saved = match.make_player

    def player(level: str) -> match.Player:
        if level == "reach":
            return _Recorder(make_player(opts.reach), keep, found)
        return saved(level)

    match.make_player = player
    try:
        per_game = deals_per_game(get_variant(opts.variant))
        first, _, last = opts.games.partition(":")
        for g in range(int(first), int(last)):
            spec = _GameSpec(
                variant=opts.variant,
                options={},
                ns="reach",
                ew="club",
                seed=opts.seed,
                game=g,
                first_deal=g * per_game,
                n_deals=per_game,
                records=None,
                contracts=None,
            )
            start = len(found)
            _play_game(spec)
            # each game's positions in the order of its play: the hands in turn, the
            # cards within a hand (table a's seats and table b's interleaved)
            found[start:] = sorted(
                found[start:], key=lambda f: (f[0].hand_number, len(f[0].played))
            )
    finally:
        match.make_player = saved
    return found


# the positions, set before the worker processes fork (a state's history is too deep a
# chain to pickle)
_FOUND: list[tuple[State, Seat]] = []


def _values(index: int) -> dict[int, float]:
    """Each legal card's double-dummy score for the side of the seat to play."""
    state, seat = _FOUND[index]
    return card_scores(default_solver(), state, seat)


def _choice(task: tuple[str, int, int]) -> tuple[str, int, int, float]:
    """A level's card at a position, and the CPU seconds it took."""
    level, seed, index = task
    state, seat = _FOUND[index]
    match.make_player = make_player  # this process's players may be configured levels
    player = make_player(level)
    start = time.process_time()
    card = player.act(state, seat, random.Random(f"regret:{seed}:{index}"))
    assert type(card) is int
    return level, index, card, time.process_time() - start


def _playout(task: tuple[str, int, int, int]) -> tuple[int, int, float]:
    """A card's margin for the side to play when, after it, the hand is played out by
    ``level`` for that side and the club rules for the other."""
    level, seed, index, card = task
    state, seat = _FOUND[index]
    assert state.contract is not None
    match.make_player = make_player
    side = side_of(seat)
    players = {s: make_player(level if side_of(s) == side else "club") for s in range(4)}
    rngs = {s: random.Random(f"playout:{seed}:{index}:{s}") for s in range(4)}
    score = hand_scorer(state.variant.name, state.contract, side, state.tricks)
    hand = len(state.results)
    after = state.apply(card)
    while len(after.results) == hand:
        to_play = after.to_play
        after = after.apply(players[to_play].act(after, to_play, rngs[to_play]))
    taken = after.results[hand].tricks[side] - state.tricks[side]
    return index, card, score(taken)


def report(rows: list[dict[str, Any]], levels: list[str]) -> None:
    """Regret per decision by level, and each level paired with the first."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups["all"].append(row)
        groups[f"contract {row['contract']}"].append(row)
        groups[f"place {row['place']}"].append(row)
        groups[f"cards in hand {row['cards_in_hand']:2d}"].append(row)
    anchor = levels[0]
    for name in ["all", *sorted(k for k in groups if k != "all")]:
        group = groups[name]
        print(f"{name}: {len(group)} positions")
        for level in levels:
            regret = [r["regret"][level] for r in group]
            line = f"  {level:<40} regret {statistics.fmean(regret):.3f}"
            if level != anchor:
                diffs = [r["regret"][level] - r["regret"][anchor] for r in group]
                differ = sum(r["card"][level] != r["card"][anchor] for r in group)
                mean, lo, hi = _ci(diffs)
                line += f"  against {anchor}: {mean:+.3f} [{lo:+.3f}, {hi:+.3f}]"
                line += f" ({differ} cards differ)"
            print(line)
        if "gain" not in group[0]:
            continue
        for level in levels[1:]:
            gains = [r["gain"][level] for r in group]
            mean, lo, hi = _ci(gains)
            print(f"  {level:<40} played out, gain on {anchor}: {mean:+.3f} [{lo:+.3f}, {hi:+.3f}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--levels", nargs="+", required=True, help="the first is the anchor")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", default="300:304", help="first:last")
    parser.add_argument(
        "--reach", default="club", help="the level whose seats reach the positions (against club)"
    )
    parser.add_argument("--variant", default="felagsvist")
    parser.add_argument("--contracts", help="e.g. C,D,H,S or NOLO (all when left out)")
    parser.add_argument("--tricks", default="13:1", help="cards in hand, most:least")
    parser.add_argument("--leads", action="store_true", help="leads only")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (at least 1)")
    parser.add_argument(
        "--playout",
        metavar="LEVEL",
        help="play the differing cards out: LEVEL for the side to play, club for the other",
    )
    parser.add_argument("--out", help="write every position's cards and regrets here")
    opts = parser.parse_args()
    if opts.jobs < 1:
        sys.exit(f"--jobs {opts.jobs}: give at least 1 worker process")
    if len(set(opts.levels)) != len(opts.levels):
        sys.exit("--levels: a level is given twice")
    for level in (*opts.levels, opts.reach, *([opts.playout] if opts.playout else [])):
        try:
            make_player(level)  # an unknown level fails before any play
        except ValueError as exc:
            sys.exit(str(exc))
    try:
        first, sep, last = opts.games.partition(":")
        if not sep or int(first) >= int(last) or int(first) < 0:
            raise ValueError
        hi, _, lo = opts.tricks.partition(":")
        if not 1 <= int(lo or hi) <= int(hi) <= 13:
            raise ValueError
    except ValueError:
        sys.exit(f"--games {opts.games!r} / --tricks {opts.tricks!r}: give first:last, most:least")
    try:
        codes = get_variant(opts.variant).contract_codes
    except ValueError as exc:
        sys.exit(f"--variant {opts.variant!r}: {exc}")
    unknown = sorted(set(opts.contracts.split(",")) - set(codes)) if opts.contracts else []
    if unknown:
        sys.exit(f"--contracts: {', '.join(unknown)} not of {opts.variant} ({', '.join(codes)})")
    start = time.perf_counter()
    found = positions(opts)
    if not found:
        sys.exit("no position passes the filters: more games, or other --contracts/--tricks")
    print(f"{len(found)} positions from games {opts.games} of seed {opts.seed}", flush=True)
    tasks = [(level, opts.seed, i) for i in range(len(found)) for level in opts.levels]
    _FOUND[:] = found
    fork = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=opts.jobs, mp_context=fork) as pool:
        values = list(pool.map(_values, range(len(found)), chunksize=8))
        chosen = list(pool.map(_choice, tasks))
        margins: dict[tuple[int, int], float] = {}
        if opts.playout:
            cards: dict[int, set[int]] = defaultdict(set)
            for _, i, card, _ in chosen:
                cards[i].add(card)
            jobs = [
                (opts.playout, opts.seed, i, card)
                for i in sorted(cards)
                if len(cards[i]) > 1
                for card in sorted(cards[i])
            ]
            margins = {(i, c): m for i, c, m in pool.map(_playout, jobs)}
    seconds = time.perf_counter() - start
    rows: list[dict[str, Any]] = []
    for i, (state, seat) in enumerate(found):
        assert state.contract is not None
        rows.append(
            {
                "position": i,
                "seat": seat,
                "played": len(state.played),
                "contract": state.contract.code,
                "cards_in_hand": state.holdings[seat].bit_count(),
                "place": len(state.trick) + 1,
                "card": {},
                "value": {},
                "regret": {},
                "cpu": {},
            }
        )
    for level, i, card, cpu in chosen:
        top = max(values[i].values())
        rows[i]["card"][level] = card
        rows[i]["value"][level] = values[i][card]
        rows[i]["regret"][level] = top - values[i][card]
        rows[i]["cpu"][level] = cpu
    if opts.playout:
        for row in rows:
            i, anchor = row["position"], row["card"][opts.levels[0]]
            if any(card != anchor for card in row["card"].values()):
                row["margin"] = {lv: margins[i, card] for lv, card in row["card"].items()}
            row["gain"] = {
                lv: row["margin"][lv] - row["margin"][opts.levels[0]] if "margin" in row else 0.0
                for lv in row["card"]
            }
    print(f"{seconds:.0f} s; CPU seconds per level:", end="")
    for level in opts.levels:
        print(f" {level} {sum(r['cpu'][level] for r in rows):.1f}", end="")
    print()
    report(rows, opts.levels)
    if opts.out:
        doc = {"seed": opts.seed, "games": opts.games, "levels": opts.levels, "rows": rows}
        Path(opts.out).write_text(json.dumps(doc) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
