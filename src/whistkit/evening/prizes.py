"""Prizes from the totals: places, ties shared, countback or drawn lots (docs/evening.md)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from .model import Config

Number = Fraction | int


@dataclass(frozen=True)
class Prize:
    # one of PRIZE_CATEGORIES
    category: str
    place: int
    players: tuple[int, ...]
    # the figure the prize is for: a total, a number of hands
    value: float


def _lot(seed: int, category: str, player: int) -> int:
    text = f"{seed}:lots:{category}:{player}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def countback_key(per_hand: Sequence[Number]) -> tuple[Number, ...]:
    """The player's points over the last hand, the last two, the last three, ... : the
    better later hands, compared in that order."""
    out: list[Number] = []
    running: Number = 0
    for points in reversed(per_hand):
        running += points
        out.append(running)
    return tuple(out)


def places(
    players: Sequence[int],
    value: Mapping[int, Number],
    *,
    highest_first: bool,
    ties: str,
    tiebreak: Callable[[int], tuple[Number, ...]] | None,
    lot: Callable[[int], int],
) -> list[tuple[int, list[int]]]:
    """``(place, players)`` from the best: equal values share a place (1, 1, 3), unless
    ``ties`` is "countback" (``tiebreak`` decides, higher better when ``highest_first``;
    still equal: shared) or "lots" (one place each, in the order of ``lot``)."""
    sign = -1 if highest_first else 1
    ordered = sorted(players, key=lambda p: (sign * value[p], p))
    out: list[tuple[int, list[int]]] = []
    n = 0
    while n < len(ordered):
        end = n
        while end < len(ordered) and value[ordered[end]] == value[ordered[n]]:
            end += 1
        tied = ordered[n:end]
        if len(tied) > 1 and ties == "lots":
            for k, p in enumerate(sorted(tied, key=lot)):
                out.append((n + k + 1, [p]))
        elif len(tied) > 1 and ties == "countback" and tiebreak is not None:
            keyed = sorted(tied, key=lambda p: (tuple(sign * x for x in tiebreak(p)), p))
            k = 0
            while k < len(keyed):
                j = k
                while j < len(keyed) and tiebreak(keyed[j]) == tiebreak(keyed[k]):
                    j += 1
                out.append((n + k + 1, keyed[k:j]))
                k = j
        else:
            out.append((n + 1, tied))
        n = end
    return out


def award(
    config: Config,
    players: Sequence[int],
    totals: Mapping[int, Number],
    per_hand: Callable[[], Mapping[int, Sequence[Number]]],
    played: Mapping[int, int],
    longest: Mapping[int, int],
    ten: Mapping[int, int],
    group_of: Mapping[int, str],
) -> tuple[Prize, ...]:
    """Every prize of the config's categories. Only players who played a hand take part;
    a top-N category gives every place up to N (a tie on place N gives more prizes). With
    ``one_each`` a player who has won passes over later categories (the order of
    PRIZE_CATEGORIES): the next in line takes that prize."""
    rules = config.prizes
    eligible = [p for p in players if played[p] > 0]
    out: list[Prize] = []
    won: set[int] = set()

    points: list[Mapping[int, Sequence[Number]]] = []  # computed on the first countback

    def cb(p: int) -> tuple[Number, ...]:
        if not points:
            points.append(per_hand())
        return countback_key(points[0][p])

    def add(
        category: str,
        among: list[int],
        value: Mapping[int, Number],
        *,
        highest_first: bool,
        top: int,
        tiebreak: Callable[[int], tuple[Number, ...]] | None,
    ) -> None:
        if rules.one_each:
            among = [p for p in among if p not in won]
        if not among or top <= 0:
            return
        ranked = places(
            among,
            value,
            highest_first=highest_first,
            ties=rules.ties,
            tiebreak=tiebreak,
            lot=lambda p: _lot(config.seed, category, p),
        )
        for place, who in ranked:
            if place > top:
                break
            out.append(Prize(category, place, tuple(sorted(who)), float(value[who[0]])))
            won.update(who)

    add("top", eligible, totals, highest_first=True, top=rules.top, tiebreak=cb)
    for g in ("A", "B"):
        among = [p for p in eligible if group_of[p] == g]
        add(f"top_{g}", among, totals, highest_first=True, top=rules.top_per_group, tiebreak=cb)
    # the lowest total: countback gives it to the worse later hands
    add("lowest", eligible, totals, highest_first=False, top=int(rules.lowest), tiebreak=cb)
    for g in ("A", "B"):
        among = [p for p in eligible if group_of[p] == g]
        top = int(rules.lowest_per_group)
        add(f"lowest_{g}", among, totals, highest_first=False, top=top, tiebreak=cb)
    # counts of hands: countback has nothing to compare, so ties are shared (or lots)
    if rules.longest_at_table:
        add("longest_at_table", eligible, longest, highest_first=True, top=1, tiebreak=None)
    if rules.ten_tricks:
        among = [p for p in eligible if ten[p] > 0]
        add("ten_tricks", among, ten, highest_first=True, top=1, tiebreak=None)
    return tuple(out)
