"""Rule tests of the evening model: the worked example of docs/evening.md, scoring,
corrections, the changes the host can and cannot make, ties, and the CLI contract."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from fractions import Fraction

import pytest
from evening_checks import check_all

from whistkit.cli import main
from whistkit.evening import (
    PRESETS,
    Config,
    Evening,
    EveningError,
    Player,
    Prizes,
    Result,
    add_correction,
    add_result,
    balance_groups,
    derive,
    new_evening,
    simulate,
    simulated_players,
    start,
    with_config,
    with_players,
)
from whistkit.evening.prizes import countback_key, places

NAMES = ["Jón", "Páll", "Ari", "Óli", "Siggi", "Kári", "Dóri"]
NAMES += ["Anna", "Sigga", "Gunna", "Rósa", "Lilja", "Edda"]
EXAMPLE_RESULTS = [[8, 4, 6], [3, 10, 7], [5, 6, 9]]


def example_players() -> tuple[Player, ...]:
    return tuple(Player(i + 1, n, "A" if i < 7 else "B") for i, n in enumerate(NAMES))


def play(evening: Evening, results: list[list[int]], first: int = 1) -> Evening:
    for hand, row in enumerate(results, start=first):
        for table, tricks in enumerate(row, start=1):
            evening = add_result(evening, Result(hand, table, tricks))
    return evening


def example() -> Evening:
    config = Config(hands=3, seating="as_entered", sit_out="own_average", seed=1)
    return play(start(new_evening(config, example_players())), EXAMPLE_RESULTS)


def named(seats: dict[str, int]) -> dict[str, str]:
    return {seat: NAMES[pid - 1] for seat, pid in seats.items()}


def test_worked_example_of_the_docs() -> None:
    done = derive(example())
    h1, h2, h3 = done.hands
    assert [h.contract for h in done.hands] == ["H", "S", "NT"]
    assert named(h1.tables[0].seat_map()) == {"N": "Jón", "E": "Páll", "S": "Anna", "W": "Sigga"}
    assert named(h1.tables[1].seat_map()) == {"N": "Óli", "E": "Siggi", "S": "Gunna", "W": "Rósa"}
    assert [NAMES[s.player - 1] for s in h1.sitting_out] == ["Ari"]
    moves = {NAMES[m.player - 1]: (m.from_table, m.to_table) for m in h1.moves if not m.stays}
    # table 1: N-S (Jón, Anna) won 8-5, Jón up to 2, Anna down to 3 (round the circle);
    # table 2: E-W (Siggi, Rósa) won, Siggi's turn to sit out, Rósa down to 1; Ari comes in
    assert moves == {
        "Jón": (1, 2),
        "Anna": (1, 3),
        "Siggi": (2, None),
        "Rósa": (2, 1),
        "Dóri": (3, 1),
        "Edda": (3, 2),
        "Ari": (None, 3),
    }
    # the losers Páll and Sigga stay, split, each partners an arrival; Páll deals
    t1 = h2.tables[0]
    assert named(t1.seat_map()) == {"N": "Páll", "E": "Dóri", "S": "Rósa", "W": "Sigga"}
    assert NAMES[t1.dealer - 1] == "Páll"
    assert h3.moves == ()
    totals = {NAMES[pid - 1]: total for pid, total in done.totals.items()}
    assert totals["Ari"] == 22.5  # sat out hand 1: credited his average 15/2
    assert totals["Siggi"] == 24.0 and totals["Páll"] == 13.0
    prizes = [(p.category, p.place, [NAMES[x - 1] for x in p.players]) for p in done.prizes]
    assert prizes == [
        ("top_A", 1, ["Siggi"]),
        ("top_A", 2, ["Dóri"]),
        ("top_A", 3, ["Ari"]),
        ("top_B", 1, ["Sigga"]),
        ("top_B", 2, ["Anna", "Edda"]),  # shared: no third place
        ("lowest", 1, ["Páll", "Gunna"]),
        ("longest_at_table", 1, ["Páll", "Gunna", "Lilja"]),
    ]
    check_all(done, movement=True)


def test_nolo_scores_the_other_sides_tricks() -> None:
    config = Config(hands=6, seating="as_entered")
    ev = play(start(new_evening(config, simulated_players(8))), [[7, 7]] * 5 + [[4, 9]])
    hand6 = derive(ev).hand(6)
    assert hand6.contract == "NOLO"
    assert hand6.tables[0].points == (9, 4) and hand6.tables[1].points == (4, 9)
    # the winner is the side with more points: N-S at table 1, with 4 tricks
    assert hand6.tables[0].winner == 0


def test_correction_changes_points_not_the_movement() -> None:
    ev = example()
    before = derive(ev)
    fixed = add_correction(ev, Result(1, 1, 2))  # N-S took 2, not 8: E-W won after all
    after = derive(fixed)
    assert [[t.seats for t in h.tables] for h in after.hands] == [
        [t.seats for t in h.tables] for h in before.hands
    ]
    table = after.hand(1).tables[0]
    assert table.corrected and table.confirmed_tricks == 8 and table.ns_tricks == 2
    anna, pall, jon = 8, 2, 1
    assert after.totals[anna] == before.totals[anna] - 6
    assert after.totals[pall] == before.totals[pall] + 6
    # Jón sat out hand 3: his credit, his own average, follows the correction (11/2 -> 5/2)
    assert after.totals[jon] == before.totals[jon] - 6 - 3
    again = derive(add_correction(fixed, Result(1, 1, 8)))  # the last correction counts
    assert again.totals == before.totals


def test_what_the_host_cannot_do() -> None:
    config = Config(hands=3, seating="as_entered")
    ev = new_evening(config, example_players())
    with pytest.raises(EveningError, match="not started"):
        add_result(ev, Result(1, 1, 7))
    ev = start(ev)
    with pytest.raises(EveningError, match="already started"):
        start(ev)
    with pytest.raises(EveningError, match="hand 2 is not in play"):
        add_result(ev, Result(2, 1, 7))
    with pytest.raises(EveningError, match="tables 1 to 3, not 4"):
        add_result(ev, Result(1, 4, 7))
    with pytest.raises(EveningError, match="tricks must be 0 to 13"):
        add_result(ev, Result(1, 1, 14))
    ev = add_result(ev, Result(1, 1, 7))
    with pytest.raises(EveningError, match="has reported; correct it"):
        add_result(ev, Result(1, 1, 6))
    with pytest.raises(EveningError, match="has not reported"):
        add_correction(ev, Result(1, 2, 6))
    with pytest.raises(EveningError, match="has not been played"):
        add_correction(ev, Result(3, 1, 6))
    with pytest.raises(EveningError, match="only the prizes"):
        with_config(ev, replace(config, hands=4))
    assert with_config(ev, replace(config, sit_out="nothing")).config.sit_out == "nothing"
    with pytest.raises(EveningError, match="two confirmed results"):
        derive(replace(ev, results=(*ev.results, Result(1, 1, 3))))
    with pytest.raises(EveningError, match="not seated"):
        derive(replace(ev, results=(*ev.results, Result(3, 1, 3))))


def test_arrivals_and_departures_only_ahead_of_play() -> None:
    ev = start(new_evening(Config(hands=6, seating="as_entered"), example_players()))
    ev = play(ev, [[7, 7, 7], [6, 6, 6]])  # hand 3 in play
    people = list(ev.players)
    late = Player(14, "Bára", "B", arrives=4)
    ev2 = with_players(ev, [*people, late])
    assert derive(ev2).hands[2].tables == derive(ev).hands[2].tables
    leaving = replace(people[0], leaves=3)
    ev3 = with_players(ev2, [leaving, *people[1:], late])
    assert derive(ev3).hands[2].table_of(1) is not None  # plays hand 3, then goes
    with pytest.raises(EveningError, match="reseat hand 3"):
        with_players(ev, [replace(people[0], leaves=2), *people[1:]])
    with pytest.raises(EveningError, match="instead of removing"):
        with_players(ev, people[1:])
    with pytest.raises(EveningError, match="reseat hand 3"):
        with_players(ev, [*people, Player(14, "Bára", "B", arrives=3)])
    # the hands a late arrival missed are credited as sit-outs ("absent")
    ev4 = play(ev2, [[5, 8, 6], [7, 7, 7], [6, 6, 6], [9, 9, 9]], first=3)
    done = derive(ev4)
    assert done.finished
    absent = [s for h in done.hands for s in h.sitting_out if s.reason == "absent"]
    assert [s.player for s in absent] == [14, 14, 14]
    check_all(done, movement=False)


def test_provisional_moves_are_the_final_moves() -> None:
    # a table's moves are announced as soon as it reports: later reports never change them
    for preset in PRESETS:
        for seed in range(4):
            size = random.Random(seed).randint(8, 41)
            per_move = 4 if seed % 2 else 1
            config = Config(preset=preset, hands=9, hands_per_move=per_move, seed=seed)
            rng = random.Random(seed)
            ev = start(new_evening(config, simulated_players(size)))
            for h in range(1, 10):
                tables = list(range(1, len(derive(ev).hand(h).tables) + 1))
                rng.shuffle(tables)
                announced: set[tuple[int, int | None, int | None]] = set()
                for t in tables:
                    ev = replace(ev, results=(*ev.results, Result(h, t, rng.randint(0, 13))))
                    moves = derive(ev).hand(h).moves
                    now = {(m.player, m.from_table, m.to_table) for m in moves}
                    assert announced <= now, (preset, seed, h, t)
                    announced = now


def test_four_hand_rounds_tie_goes_to_the_last_hand() -> None:
    config = Config(preset="progressive", hands=8, hands_per_move=4, seating="as_entered")
    ev = start(new_evening(config, simulated_players(8)))
    # table 1: N-S 7+6+7+6 = 26 = E-W 26, and E-W won the last hand: E-W moves
    ev = play(ev, [[7, 13], [6, 13], [7, 13], [6, 13]])
    done = derive(ev)
    t1 = done.hand(4).tables[0]
    north, east, south, west = t1.seats
    nxt = done.hand(5)
    assert nxt.table_of(north).table == 1 and nxt.table_of(south).table == 1  # type: ignore[union-attr]
    assert nxt.table_of(east).table == 2 and nxt.table_of(west).table == 2  # type: ignore[union-attr]
    # within the round the seats are kept and the deal passes to the left
    dealers = [done.hand(h).tables[0].dealer for h in range(1, 5)]
    assert dealers == [north, east, south, west]


def test_countback_and_lots() -> None:
    assert countback_key([Fraction(7), Fraction(6), Fraction(9)]) == (9, 15, 22)
    value = {1: 20, 2: 20, 3: 22, 4: 20}
    later = {1: (9, 15), 2: (6, 13), 3: (0, 0), 4: (9, 15)}
    share = places([1, 2, 3, 4], value, highest_first=True, ties="share", tiebreak=None, lot=int)
    assert share == [(1, [3]), (2, [1, 2, 4])]
    cb = places(
        [1, 2, 3, 4],
        value,
        highest_first=True,
        ties="countback",
        tiebreak=lambda p: later[p],
        lot=int,
    )
    assert cb == [(1, [3]), (2, [1, 4]), (4, [2])]
    lots = places(
        [1, 2, 3, 4], value, highest_first=True, ties="lots", tiebreak=None, lot=lambda p: -p
    )
    assert lots == [(1, [3]), (2, [4]), (3, [2]), (4, [1])]


def test_lots_follow_the_seed() -> None:
    def winners(seed: int) -> list[tuple[int, ...]]:
        config = Config(hands=1, seed=seed, prizes=Prizes(top=40, top_per_group=0, ties="lots"))
        return [p.players for p in simulate(config, simulated_players(40)).prizes]

    assert winners(3) == winners(3)
    assert any(winners(s) != winners(3) for s in range(4, 10))


def test_balance_groups() -> None:
    people = simulated_players(40, (18, 22))
    balanced = balance_groups(people)
    assert sum(p.plays_as == "A" for p in balanced) == 20
    assert [p.id for p in balanced if p.other_group] == [39, 40]  # the last entered
    done = simulate(Config(hands=6), balanced)
    assert all(not h.sitting_out for h in done.hands)
    check_all(done, movement=True)


def test_bad_configs_and_players_are_named() -> None:
    cases = [
        (Config(preset="bridge"), "unknown preset 'bridge'"),
        (Config(hands=0), "hands must be"),
        (Config(hands_per_move=2), "hands_per_move must be 1 or 4"),
        (Config(trump_order=("H", "C")), "felagsvist preset plays the Félagsvist cycle"),
        (Config(preset="progressive", trump_order=("H", "X")), "unknown contract 'X'"),
        (Config(sit_out="half"), "sit_out must be"),
        (Config(prizes=Prizes(top=-1)), "prizes.top must be"),
    ]
    for config, message in cases:
        with pytest.raises(EveningError, match=message):
            new_evening(config, simulated_players(8))
    bad_players = [
        ((Player(1, "a"), Player(1, "b")), "player id 1 is used twice"),
        ((Player(1, ""),), "name must be"),
        ((Player(1, "a", "C"),), "group must be A or B"),
        ((Player(1, "a", arrives=30),), "arrives must be a hand from 1 to 24"),
        ((Player(1, "a", arrives=5, leaves=4),), "leaves must be a hand from 5"),
    ]
    for people, message in bad_players:
        with pytest.raises(EveningError, match=message):
            new_evening(Config(), people)


def test_trump_order_of_the_progressive_preset() -> None:
    config = Config(preset="progressive", hands=6, trump_order=("H", "C", "D", "S", "NT"))
    done = simulate(config, simulated_players(16))
    assert [h.contract for h in done.hands] == ["H", "C", "D", "S", "NT", "H"]
    assert Config(preset="partner").contracts == ("H", "C", "D", "S", "NT")


def test_json_round_trip_and_hostile_input() -> None:
    ev = example()
    data = json.loads(json.dumps(ev.to_json()))
    assert Evening.from_json(data) == ev
    for bad, message in [
        ([], "not a whistkit-evening/1"),
        ({**data, "extra": 1}, "unknown field 'extra'"),
        ({**data, "players": [{"id": 1}]}, "incomplete evening"),
        ({**data, "players": [{"id": 1, "name": "a", "admin": True}]}, "unknown field 'admin'"),
        ({**data, "results": [[1, 1]]}, r"\[hand, table, ns_tricks\]"),
        ({**data, "results": [[1, 1, "7"]]}, "tricks must be 0 to 13"),
        ({**data, "config": {**data["config"], "hands": True}}, "hands must be"),
        ({**data, "started": "yes"}, "started must be"),
    ]:
        with pytest.raises(EveningError, match=message):
            Evening.from_json(bad)


def test_standings_and_card() -> None:
    done = derive(example())
    board = done.standings("B")
    assert [s.place for s in board] == [1, 2, 2, 4, 5, 6]
    assert all(s.group == "B" for s in board)
    card = done.card(3)  # Ari sat out hand 1
    assert card[0].sat_out and card[0].points == 7.5
    assert [line.table for line in card] == [None, 3, 3]
    assert sum(line.points or 0 for line in card) == done.totals[3]


def test_simulate_command_prints_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["evening", "simulate", "--preset", "felagsvist", "--players", "41"]
    assert main([*args, "--hands", "6", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"preset", "tables", "players", "hands", "prizes"}
    assert out["preset"] == "felagsvist" and out["tables"] == 10
    assert set(out["players"][0]) == {"id", "name", "group", "total"}
    assert out["players"][40] == {
        "id": 41,
        "name": "Player 41",
        "group": "B",
        "total": out["players"][40]["total"],
    }
    hand = out["hands"][0]
    assert set(hand) == {"number", "contract", "tables", "sitting_out"}
    assert hand["number"] == 1 and hand["contract"] == "H"
    assert set(hand["tables"][0]) == {"table", "seats", "points"}
    assert set(hand["tables"][0]["seats"]) == {"N", "E", "S", "W"}
    assert sum(hand["tables"][0]["points"].values()) == 13
    assert len(hand["sitting_out"]) == 1 and set(hand["sitting_out"][0]) == {"player", "points"}
    assert set(out["prizes"][0]) == {"category", "place", "players"}
    # the same seed gives the same evening
    assert main([*args, "--hands", "6", "--seed", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == out


def test_simulate_command_groups_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["evening", "simulate", "--hands", "4", "--json"]
    assert main([*base, "--groups", "18,20", "--sit-out", "room_average"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sum(p["group"] == "A" for p in out["players"]) == 18 and out["tables"] == 9
    assert all(s["points"] == 6.5 for h in out["hands"] for s in h["sitting_out"])
    assert main([*base, "--players", "30", "--groups", "18,20"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "must add up to the 30 players" in err
    assert main([*base, "--players", "3"]) == 2
    assert "--players must be 4 to 1000" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*base, "--groups", "18"])
    assert "sizes of groups A and B" in capsys.readouterr().err
    # bare `evening` serves the organiser (tests/evening_web); its help names simulate
    with pytest.raises(SystemExit):
        main(["evening", "--help"])
    assert "simulate" in capsys.readouterr().out
