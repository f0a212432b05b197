"""benchmarks/regret.py, the decision screen: the oracle never regrets a card, the
filters hold, and bad arguments are named."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from helpers_bots import run_benchmark


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_benchmark("regret.py", *args)


def test_the_oracle_has_no_regret_and_the_filters_hold(tmp_path: Path) -> None:
    out = tmp_path / "regret.json"
    done = _run(
        "--levels", "oracle", "club", "--seed", "3", "--games", "0:1",
        "--tricks", "6:2", "--contracts", "H,NT,NOLO", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text(encoding="utf-8"))["rows"]
    assert rows, "no position was screened"
    assert {r["contract"] for r in rows} == {"H", "NT", "NOLO"}
    assert all(2 <= r["cards_in_hand"] <= 6 for r in rows)
    # the oracle plays a double-dummy best card: no regret, anywhere
    assert all(r["regret"]["oracle"] == 0.0 for r in rows)
    # the club rules give something away somewhere in a game's last tricks
    assert all(r["regret"]["club"] >= 0.0 for r in rows)
    assert any(r["regret"]["club"] > 0.0 for r in rows)
    assert "against oracle" in done.stdout


def test_the_positions_are_those_the_reach_level_came_to(tmp_path: Path) -> None:
    # --reach: the positions of that level's seats, at both tables, against the club rules
    found = {}
    for reach in ("club", "beginner"):
        out = tmp_path / f"{reach}.json"
        done = _run(
            "--levels", "club", "--reach", reach, "--seed", "3", "--games", "0:1",
            "--tricks", "3:2", "--contracts", "H,S", "--out", str(out),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        rows = json.loads(out.read_text(encoding="utf-8"))["rows"]
        assert {r["seat"] for r in rows} == {0, 1, 2, 3}  # N-S at one table, E-W at the other
        found[reach] = [(r["seat"], r["played"], r["card"]["club"]) for r in rows]
    assert found["club"] != found["beginner"]


def test_bad_arguments_are_named() -> None:
    done = _run("--levels", "club", "--tricks", "2:4")
    assert done.returncode != 0 and "--tricks '2:4'" in done.stderr
    done = _run("--levels", "club", "--games", "5:5")
    assert done.returncode != 0 and "--games '5:5'" in done.stderr
    done = _run("--levels", "club", "nosuchlevel")
    assert done.returncode != 0 and "nosuchlevel" in done.stderr
    done = _run("--levels", "club", "--contracts", "NT,XX")
    assert done.returncode != 0 and "--contracts: XX not of felagsvist" in done.stderr
    done = _run("--levels", "club", "--reach", "nosuchlevel")
    assert done.returncode != 0 and "nosuchlevel" in done.stderr
    done = _run("--levels", "club", "--variant", "nosuchgame")
    assert done.returncode != 0 and "nosuchgame" in done.stderr


def test_the_cards_played_out(tmp_path: Path) -> None:
    # --playout: where the levels' cards differ, each is played out in the real deal, the
    # side to play by the playout level, the other by the club rules
    out = tmp_path / "playout.json"
    done = _run(
        "--levels", "oracle", "club", "--seed", "3", "--games", "0:1", "--tricks", "7:2",
        "--contracts", "S,NT,NOLO", "--playout", "oracle", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text(encoding="utf-8"))["rows"]
    differ = [r for r in rows if r["card"]["oracle"] != r["card"]["club"]]
    assert differ, "no position where the club rules' card differs"
    for r in rows:
        if r in differ:
            # the oracle's side never ends below a card's double-dummy value, whatever the
            # club rules do against it, and the gain is the two cards' margins apart
            for level in ("oracle", "club"):
                assert r["margin"][level] >= r["value"][level]
            assert r["gain"]["club"] == r["margin"]["club"] - r["margin"]["oracle"]
        else:
            assert "margin" not in r and r["gain"] == {"oracle": 0.0, "club": 0.0}
    assert "played out, gain on oracle" in done.stdout
    done = _run("--levels", "club", "--playout", "nosuchlevel")
    assert done.returncode != 0 and "nosuchlevel" in done.stderr
