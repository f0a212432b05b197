"""Property tests over many seeded evenings (issue 19, done-when 1): 4 to 520 players,
balanced and unbalanced groups, every preset, sit-out policy and tie rule, late arrivals,
early leavers and fixed seats; checked by the referee in evening_checks."""

from __future__ import annotations

from dataclasses import replace

import pytest
from evening_checks import check_all, check_rotation_literal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from whistkit.evening import (
    CONTRACTS,
    PRESETS,
    SIT_OUT_POLICIES,
    TIE_RULES,
    Config,
    Evening,
    Player,
    Prizes,
    derive,
    simulate,
    simulated_players,
)

SIZES = st.one_of(
    st.integers(4, 40), st.integers(4, 40), st.integers(41, 140), st.sampled_from([519, 520])
)


@st.composite
def prizes(draw: st.DrawFn) -> Prizes:
    return Prizes(
        top=draw(st.integers(0, 5)),
        top_per_group=draw(st.integers(0, 5)),
        lowest=draw(st.booleans()),
        longest_at_table=draw(st.booleans()),
        ten_tricks=draw(st.booleans()),
        ties=draw(st.sampled_from(TIE_RULES)),
        group_by=draw(st.sampled_from(["playing", "registered"])),
    )


@st.composite
def configs(draw: st.DrawFn, preset: str | None = None) -> Config:
    preset = preset or draw(st.sampled_from(PRESETS))
    trumps = None
    if preset != "felagsvist" and draw(st.booleans()):
        trumps = tuple(draw(st.permutations(CONTRACTS))[: draw(st.integers(1, 6))])
    return Config(
        preset=preset,
        trump_order=trumps,
        hands=draw(st.sampled_from([12, 18, 24]) | st.integers(1, 30)),
        hands_per_move=draw(st.sampled_from([1, 4])),
        sit_out=draw(st.sampled_from(SIT_OUT_POLICIES)),
        credit_absence=draw(st.booleans()),
        seating=draw(st.sampled_from(["random", "as_entered"])),
        prizes=draw(prizes()),
        seed=draw(st.integers(0, 2**63 - 1)),
    )


@st.composite
def groups(draw: st.DrawFn, size: int) -> tuple[int, int]:
    if draw(st.booleans()):
        return (size - size // 2, size // 2)  # balanced
    a = draw(st.integers(0, size))
    return (a, size - a)


@st.composite
def players(draw: st.DrawFn, hands: int, *, extras: bool) -> tuple[Player, ...]:
    size = draw(SIZES)
    out = list(simulated_players(size, draw(groups(size))))
    if not extras:
        return tuple(out)
    # some play in the other group, arrive late, leave early or keep a fixed seat
    changed = draw(st.lists(st.integers(0, size - 1), max_size=6, unique=True))
    for n in changed:
        kind = draw(st.sampled_from(["other_group", "late", "early", "both", "fixed"]))
        p = out[n]
        if kind == "other_group":
            p = replace(p, other_group=True)
        elif kind == "fixed":
            p = replace(p, fixed_seat=True)
        else:
            arrives = draw(st.integers(1, hands)) if kind in ("late", "both") else 1
            leaves = draw(st.integers(arrives, hands)) if kind in ("early", "both") else None
            p = replace(p, arrives=arrives, leaves=leaves)
        out[n] = p
    return tuple(out)


@pytest.mark.slow  # about 50 s: started first when run on several cores
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_evening_keeps_the_rules(data: st.DataObject) -> None:
    config = data.draw(configs())
    people = data.draw(players(config.hands, extras=True))
    done = simulate(config, people)
    assert done.finished and len(done.hands) == config.hands
    check_all(done, movement=not any(p.fixed_seat for p in people))
    # the stored truth alone gives the same evening again
    again = derive(Evening.from_json(done.evening.to_json()))
    assert again.hands == done.hands and again.totals == done.totals
    assert again.prizes == done.prizes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_movement_is_exactly_the_rule(data: st.DataObject) -> None:
    # everyone there all evening, no fixed seats: every hand's movement can be checked
    config = data.draw(configs(preset=data.draw(st.sampled_from(PRESETS))))
    people = data.draw(players(config.hands, extras=False))
    done = simulate(config, people)
    check_all(done, movement=True)
    if config.hands_per_move == 1:
        check_rotation_literal(done)


@settings(max_examples=40, deadline=None)
@given(st.integers(8, 60), st.integers(0, 2**32), st.sampled_from(SIT_OUT_POLICIES))
def test_felagsvist_default_evening(size: int, seed: int, policy: str) -> None:
    config = Config(seed=seed, sit_out=policy)
    done = simulate(config, simulated_players(size))
    check_all(done, movement=True)
    check_rotation_literal(done)
    assert [h.contract for h in done.hands[:7]] == ["H", "S", "NT", "D", "C", "NOLO", "H"]


@settings(max_examples=25, deadline=None)
@given(st.integers(16, 80), st.integers(0, 2**32), st.sampled_from(PRESETS))
def test_fixed_seat_players_are_moved_around(size: int, seed: int, preset: str) -> None:
    people = list(simulated_players(size))
    people[0] = replace(people[0], fixed_seat=True)  # group A
    people[-1] = replace(people[-1], fixed_seat=True)  # group B
    done = simulate(Config(preset=preset, seed=seed, hands=12), tuple(people))
    check_all(done, movement=False)
    tables = {h.table_of(p.id).table for p in people[:1] for h in done.hands}  # type: ignore[union-attr]
    assert len(tables) == 1
