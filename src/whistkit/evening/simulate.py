"""Random evenings: ``whistkit evening simulate`` and the benchmarks."""

from __future__ import annotations

import random
from typing import Any

from .derive import Derivation, _digest, play_out
from .model import MAX_PLAYERS, Config, Evening, EveningError, Player, Prizes


def simulated_players(count: int, groups: tuple[int, int] | None = None) -> tuple[Player, ...]:
    """Players 1..count named "Player n": the first ``groups[0]`` in group A, the rest in
    B (default: half each, A taking the odd one)."""
    if groups is None:
        groups = (count - count // 2, count // 2)
    a, b = groups
    if a < 0 or b < 0 or a + b != count:
        raise EveningError(f"the groups ({a} and {b}) must add up to the {count} players")
    if not 1 <= count <= MAX_PLAYERS:
        raise EveningError(f"players must be 1 to {MAX_PLAYERS}, not {count}")
    return tuple(Player(n, f"Player {n}", "A" if n <= a else "B") for n in range(1, count + 1))


def random_tricks(seed: int) -> Any:
    """A supply of results for :func:`play_out`: N-S tricks as 13 fair coin tosses."""
    rng = random.Random(_digest(seed, "results"))

    def supply(hand: int, tables: int) -> list[int]:
        return [bin(rng.getrandbits(13)).count("1") for _ in range(tables)]

    return supply


def simulate(
    config: Config, players: tuple[Player, ...], *, result_seed: int | None = None
) -> Derivation:
    """An evening of ``players`` played to the end with random results (seeded by
    ``result_seed``, default the config's seed); ``.evening`` holds the results."""
    evening = Evening(config, players)
    seed = config.seed if result_seed is None else result_seed
    return play_out(evening, random_tricks(seed))


def simulate_simple(
    preset: str = "felagsvist",
    players: int = 40,
    hands: int = 24,
    seed: int = 0,
    groups: tuple[int, int] | None = None,
    sit_out: str = "own_average",
    **options: Any,
) -> Derivation:
    """:func:`simulate` from the command's arguments; ``options`` are further Config
    fields (hands_per_move, trump_order, prizes, ...)."""
    config = Config(preset=preset, hands=hands, seed=seed, sit_out=sit_out, **options)
    return simulate(config, simulated_players(players, groups))


def to_json(done: Derivation) -> dict[str, Any]:
    """The contract's JSON object (issue 19): preset, tables, players with totals, every
    hand's tables and sit-outs, prizes."""
    ev = done.evening
    return {
        "preset": ev.config.preset,
        "tables": max((len(h.tables) for h in done.hands), default=0),
        "players": [
            {
                "id": p.id,
                "name": p.name,
                "group": done.prize_group[p.id],
                "total": done.totals[p.id],
            }
            for p in ev.players
        ],
        "hands": [
            {
                "number": h.number,
                "contract": h.contract,
                "tables": [
                    {
                        "table": t.table,
                        "seats": t.seat_map(),
                        "points": None
                        if t.points is None
                        else {"NS": t.points[0], "EW": t.points[1]},
                    }
                    for t in h.tables
                ],
                "sitting_out": [{"player": s.player, "points": s.points} for s in h.sitting_out],
            }
            for h in done.hands
        ],
        "prizes": [
            {"category": p.category, "place": p.place, "players": list(p.players)}
            for p in done.prizes
        ],
    }


DEFAULT_PRIZES = Prizes()
