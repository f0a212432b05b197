"""The solver's Python API, fallback, batch call and command line."""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys

import pytest
from solver_testlib import random_position

import whistkit.solver as solver
from whistkit.cards import parse_card, parse_hand
from whistkit.deal import parse_pbn
from whistkit.solver import Position, cli, reference


def test_position_validation() -> None:
    h = parse_pbn("N:AK... QJ... T9... 87...")
    Position(h)
    with pytest.raises(ValueError, match=r"equal numbers of cards.*: N 2, E 2, S 2, W 3$"):
        Position((h[0], h[1], h[2], h[3] | parse_hand("2C")))
    # the odd hand is named whoever leads (was blamed on the others when it led)
    with pytest.raises(ValueError, match=r": N 3, E 2, S 2, W 2$"):
        Position((h[0] | parse_hand("2C"), h[1], h[2], h[3]))
    with pytest.raises(ValueError, match="shares"):
        Position((h[0], h[0], h[2], h[3]))
    with pytest.raises(ValueError, match="leader"):
        Position(h, leader=4)
    with pytest.raises(ValueError, match="trump"):
        Position(h, trump=4)
    n = h[0] ^ parse_hand("AS")
    with pytest.raises(ValueError, match="AS is twice in the trick"):
        Position((n, h[1], h[2], h[3]), (parse_card("AS"), parse_card("AS")))
    with pytest.raises(ValueError, match="QS is also in E's hand"):
        Position((n, h[1], h[2], h[3]), (parse_card("AS"), parse_card("QS")))
    p = Position((n, h[1], h[2], h[3]), (parse_card("AS"),))
    assert p.to_play == 1
    assert p.tricks_left == 2
    # a discard while still holding the led suit is a revoke
    e = parse_hand("QS")
    s = parse_hand("TS")
    with pytest.raises(ValueError, match=r"^E played 2H but holds a spade \(must follow suit\)$"):
        Position((n, e, s, h[3]), (parse_card("AS"), parse_card("2H"), parse_card("9S")))


def test_simple_values() -> None:
    h = parse_pbn("N:AK... QJ... T9... 87...")
    assert solver.solve(Position(h)) == 2
    assert solver.solve(Position(h, leader=1)) == 0
    assert solver.solve(Position(h, misere=True)) == 2
    # aces low: N leads the ace, now the lowest spade, and loses it
    assert solver.solve(Position(h, misere=True, aces_low=True)) == 1
    assert solver.solve_cards(Position(h, aces_low=True)) == {
        parse_card("KS"): 1,
        parse_card("AS"): 1,
    }
    assert solver.solve(Position((0, 0, 0, 0))) == 0
    assert solver.solve_cards(Position((0, 0, 0, 0))) == {}


def test_batch_matches_single_calls() -> None:
    rng = random.Random(5)
    positions = [
        random_position(
            rng,
            1 + i % 8,
            trump=rng.choice([None, 0, 1]),
            misere=i % 3 == 0,
            aces_low=i % 5 == 0,
            mid_trick=i % 4,
        )
        for i in range(120)
    ]
    values = [solver.solve(p) for p in positions]
    cards = [solver.solve_cards(p) for p in positions]
    assert solver.solve_batch(positions) == values
    assert solver.solve_batch(positions, threads=1) == values
    assert solver.solve_batch(positions, cards=True) == cards
    assert solver.solve_batch(positions, cards=True, threads=3) == cards
    assert solver.solve_batch([]) == []


def _mixed_positions(seed: int) -> list[Position]:
    """Twelve 9-card positions: no-trump and trumps, misère every other, mid-trick too."""
    rng = random.Random(seed)
    return [
        random_position(rng, 9, trump=rng.choice([None, 2]), misere=i % 2 == 1, mid_trick=i % 4)
        for i in range(12)
    ]


def test_node_budget_gives_up_on_hard_positions_only() -> None:
    positions = _mixed_positions(11)
    full = solver.solve_batch(positions, cards=True)
    # a generous budget solves everything, exactly
    assert solver.solve_batch_limited(positions, 10**9) == full
    # a small one gives up on some positions; the others are exact; the same positions
    # give up whatever the number of threads (node counts, not time)
    small = solver.solve_batch_limited(positions, 3000, threads=2)
    assert small == solver.solve_batch_limited(positions, 3000, threads=1)
    assert None in small
    assert any(r is not None for r in small)
    for got, want in zip(small, full, strict=True):
        assert got is None or got == want
    # the budget is per position: a later position is not charged for an earlier one
    assert solver.solve_batch_limited(positions[::-1], 3000) == small[::-1]
    with pytest.raises(ValueError, match="node_limit"):
        solver.solve_batch_limited(positions, 0)


def test_counted_batch_spends_one_budget_over_its_positions() -> None:
    positions = _mixed_positions(12)
    full = solver.solve_batch(positions, cards=True)
    found, spent = solver.solve_batch_counted(positions, 10**9)
    assert found == full
    # the count is the sum of the positions' own counts, the same on one or two threads
    alone = [solver.solve_batch_counted([p], 10**9)[1] for p in positions]
    assert all(n > 0 for n in alone)
    assert spent == sum(alone)
    assert solver.solve_batch_counted(positions, 10**9, threads=1) == (full, spent)
    values, value_spent = solver.solve_batch_counted(positions, 10**9, cards=False)
    assert values == solver.solve_batch(positions)
    assert value_spent > 0
    # a budget far below what they need: over it on any number of threads, and once it
    # is spent the positions left are not searched (at most two searches, not twelve)
    budget = max(alone) // 4
    for threads in (1, 2):
        short, used = solver.solve_batch_counted(positions, budget, threads=threads)
        assert short.count(None) >= 2
        assert used < 3 * budget
        for got, want in zip(short, full, strict=True):
            assert got is None or got == want
    with pytest.raises(ValueError, match="node_limit"):
        solver.solve_batch_counted(positions, 0)
    with pytest.raises(TypeError, match="node_limit"):
        solver.solve_batch_counted(positions, 2.5)  # type: ignore[arg-type]


def test_fallback_without_core(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(8)
    positions = [random_position(rng, 3, trump=1, mid_trick=i % 4) for i in range(20)]
    expected = [solver.solve_cards(p) for p in positions]
    monkeypatch.setattr(solver, "_core", None)
    monkeypatch.setattr(solver, "_core_checked", True)
    assert not solver.has_core()
    assert [solver.solve_cards(p) for p in positions] == expected
    assert solver.solve_batch(positions, cards=True) == expected
    assert solver.solve_batch(positions) == [reference.solve(p) for p in positions]
    assert solver.solve_batch_limited(positions, 1) == expected  # the oracle has no budget
    assert solver.solve_batch_counted(positions, 1) == (expected, 0)
    assert solver.can_take(positions[0], 1) == (reference.solve(positions[0]) >= 1)


def test_import_is_lazy() -> None:
    """``import whistkit, whistkit.solver`` loads neither the compiled core nor anything
    heavy (what it loads is checked, not how long it takes: a timed assertion fails on a
    loaded machine for reasons that have nothing to do with the import)."""
    heavy = ["whistkit.solver._dd", "endplay", "numpy", "starlette", "uvicorn", "httpx"]
    heavy += ["whistkit.bots", "whistkit.server", "whistkit.env", "whistkit.evening"]
    code = (
        "import sys; import whistkit, whistkit.solver; "
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]", f"imported at once: {run.stdout.strip()}"


def _run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="whistkit")
    sub = parser.add_subparsers(dest="command", required=True)
    cli.add_parser(sub)
    args = parser.parse_args(argv)
    status = args.func(args)
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run_cli(
        ["solve", "W:AK... QJ... T9... 87...", "--contract", "NT", "--json"], capsys
    )
    assert status == 0
    assert json.loads(out) == {
        "to_play": "W",
        "side": "EW",
        "tricks": 2,
        "cards": {"AS": 2, "KS": 2},
    }


def test_cli_played_and_nolo(capsys: pytest.CaptureFixture[str]) -> None:
    # N leads; the deal holds the remaining cards; N already played AS
    status, out, _ = _run_cli(
        ["solve", "N:K... QJ... T9... 87...", "--played", "AS", "--contract", "nolo", "--json"],
        capsys,
    )
    assert status == 0
    data = json.loads(out)
    assert data["to_play"] == "E"
    assert data["side"] == "EW"
    assert data["tricks"] == 0
    assert data["cards"] == {"QS": 0, "JS": 0}


def test_cli_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run_cli(["solve", "N:AK.2.. QJ.3.. T9.4.. 87.5..", "--contract", "H"], capsys)
    assert status == 0
    assert "Tricks for NS with best play: 2" in out
    assert "AS" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "N:AK... QJ..."],
        ["solve", "X:AK... QJ... T9... 87..."],
        ["solve", "N:AZ... QJ... T9... 87..."],
        ["solve", "N:AK... QJ... T9... 87..2"],
        ["solve", "N:AK... QJ... T9... 87...", "--played", "XX"],
        ["solve", "N:AK... QJ... T9... 87...", "--played", "AS"],
        ["solve", "N:AK... QJ... T9... 87...", "--leader", "Q"],
        ["solve", "N:... ... ... ..."],
    ],
)
def test_cli_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run_cli(argv, capsys)
    assert status == 2
    assert out == ""
    assert err.startswith("whistkit solve: error: ")
    assert err.count("\n") == 1


def test_cli_module_entry() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "whistkit.solver.cli", "solve", "S:A... K... Q... J...", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["tricks"] == 1


def test_position_fields_of_the_wrong_type() -> None:
    h = parse_pbn("N:AK... QJ... T9... 87...")
    # True and False are ints to Python, but not seats or suits
    with pytest.raises(ValueError, match=re.escape("trump must be a suit 0..3 or None, got True")):
        Position(h, trump=True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=re.escape("leader must be a seat 0..3, got True")):
        Position(h, leader=True)
    with pytest.raises(TypeError, match="misere must be True or False, got 'no'"):
        Position(h, misere="no")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="trick must be a tuple or list, got int"):
        Position(h, trick=5)  # type: ignore[arg-type]
    # lists are taken as tuples: the position stays hashable and equal
    p = Position(list(h), [])  # type: ignore[arg-type]
    assert p == Position(h) and hash(p) == hash(Position(h))


def test_entry_points_name_bad_arguments() -> None:
    p = Position(parse_pbn("N:AK... QJ... T9... 87..."))
    with pytest.raises(TypeError, match=re.escape("expected a whistkit.solver.Position, got str")):
        solver.solve("N:AK...")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"positions\[1\] must be a Position, got int"):
        solver.solve_batch([p, 1])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="positions must be a sequence"):
        solver.solve_batch(p)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="threads must be a whole number of at least 1"):
        solver.solve_batch([p], threads=0)
    with pytest.raises(ValueError, match="node_limit must be between 1 and"):
        solver.solve_batch_limited([p], 10**30)
    with pytest.raises(TypeError, match=re.escape("k must be a whole number of tricks, got 1.5")):
        solver.can_take(p, 1.5)  # type: ignore[arg-type]
    # more threads than the core runs are fine
    assert solver.solve_batch([p], threads=10**9) == [solver.solve(p)]


def test_can_take_in_misere_asks_whether_the_side_must_take_k() -> None:
    p = Position(parse_pbn("N:.5.J6. A.3..8 ..T.AQ .A..93"), misere=True)
    cards = solver.solve_cards(p)
    value = solver.solve(p)
    assert value == min(cards.values()) < max(cards.values())
    worst = max(cards.values())
    # a card worth `worst` exists, but best play keeps the side below it
    assert not solver.can_take(p, worst)
    for k in range(p.tricks_left + 2):
        assert solver.can_take(p, k) == (value >= k)


def test_limited_batch_of_values() -> None:
    rng = random.Random(5)
    ps = [random_position(rng, rng.randint(1, 4)) for _ in range(40)]
    assert solver.solve_batch_limited(ps, 10**9, cards=False) == [solver.solve(p) for p in ps]
    assert solver.solve_batch_limited(ps, 10**9) == [solver.solve_cards(p) for p in ps]


def test_cli_dd_table(capsys: pytest.CaptureFixture[str]) -> None:
    deal = "N:AK.2.. QJ.3.. T9.4.. 87.5.."
    status, out, _ = _run_cli(["solve", deal, "--table", "--json"], capsys)
    assert status == 0
    data = json.loads(out)
    assert data["tricks_of"] == "NS"
    hands = parse_pbn(deal)
    for name, row in data["table"].items():
        trump = "SHDC".index(name) if name in ("S", "H", "D", "C") else None
        for seat, tricks in row.items():
            leader = "NESW".index(seat)
            v = solver.solve(Position(hands, (), leader, trump, name == "NOLO"))
            assert tricks == (v if leader % 2 == 0 else 3 - v), (name, seat)
    assert list(data["table"]) == ["S", "H", "D", "C", "NT", "NOLO"]
    status, out, _ = _run_cli(["solve", deal, "--table"], capsys)
    assert status == 0 and out.splitlines()[2].split() == ["Contract", "N", "E", "S", "W"]


def test_cli_node_limit(capsys: pytest.CaptureFixture[str]) -> None:
    deal = "N:KQT8.J953.63.A92 A64.A62.J94.QT65 J753.KT4.A72.KJ7 92.Q87.KQT85.843"
    status, out, err = _run_cli(["solve", deal, "--contract", "NOLO", "--node-limit", "50"], capsys)
    assert status == 0 and err == ""
    # the exact value is 7 (the NOLO row of --table without a limit)
    found = re.search(r"Tricks for NS with best play: (\d+)–(\d+)\n", out)
    assert found and int(found[1]) <= 7 <= int(found[2]) and found[1] != found[2]
    assert "2–4 and the like: the proven range, not settled within 50 nodes" in out
    status, out, _ = _run_cli(
        ["solve", deal, "--contract", "NOLO", "--node-limit", "50", "--json"], capsys
    )
    lo, hi = json.loads(out)["tricks"]
    assert lo <= 7 <= hi and lo < hi
    status, out, _ = _run_cli(["solve", deal, "--table", "--node-limit", "30000"], capsys)
    assert status == 0
    assert "not settled within 30,000 nodes" in out
    assert any("–" in cell for cell in out.split())
    status, out, _ = _run_cli(["solve", deal, "--table", "--node-limit", "30000", "--json"], capsys)
    table = json.loads(out)["table"]
    exact = {"N": 8, "E": 8, "S": 8, "W": 8}  # NT: no limit
    for seat, cell in table["NT"].items():
        assert cell == exact[seat] or (isinstance(cell, list) and cell[0] <= 8 <= cell[1])
    assert any(isinstance(cell, list) for cell in table["NOLO"].values())


@pytest.mark.parametrize(
    "extra", [["--played", "AS"], ["--leader", "E"], ["--aces-low"], ["--contract", "H"]]
)
def test_cli_table_errors(extra: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run_cli(["solve", "N:AK... QJ... T9... 87...", "--table", *extra], capsys)
    assert status == 2 and out == ""
    assert err.startswith("whistkit solve: error: --table ") and err.count("\n") == 1


@pytest.mark.parametrize("limit", ["0", "lots"])
def test_cli_bad_node_limit(limit: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        _run_cli(["solve", "N:AK... QJ... T9... 87...", "--node-limit", limit], capsys)
    assert exc.value.code == 2
    assert "--node-limit" in capsys.readouterr().err


def test_cli_says_a_long_misere_solve_may_take_a_while(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    deal = "N:AK.2.. QJ.3.. T9.4.. 87.5.."
    monkeypatch.setattr(cli, "SLOW_MISERE", 3)
    status, _, err = _run_cli(["solve", deal, "--contract", "NOLO"], capsys)
    assert status == 0 and err == ""  # not a terminal: nothing on stderr
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    status, _, err = _run_cli(["solve", deal, "--contract", "NOLO"], capsys)
    assert status == 0
    assert err == (
        "whistkit solve: solving a misère position with 3 tricks left: this can take a minute…\n"
    )
    status, _, err = _run_cli(["solve", deal, "--contract", "NT"], capsys)
    assert err == ""
    status, _, err = _run_cli(["solve", deal, "--table"], capsys)
    assert "the NOLO row of a long deal can take a minute" in err
