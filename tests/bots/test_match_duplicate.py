"""Duplicate matches: determinism, symmetry, records, the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from whistkit.cli import main
from whistkit.match import run_match
from whistkit.record import loads, replay


def test_same_level_scores_exactly_zero() -> None:
    result = run_match(ns="club", ew="club", deals=14, seed=3)
    assert all(d.score == 0 for d in result.deals)
    assert result.ci95 == (0, 0)


def test_jobs_give_the_same_result_and_contracts_cycle(tmp_path: Path) -> None:
    one = run_match(ns="club", ew="beginner", deals=26, seed=7, records=tmp_path / "one")
    two = run_match(ns="club", ew="beginner", deals=26, seed=7, jobs=2)
    assert one.deals == two.deals
    assert [d.contract for d in one.deals[:12]] == ["H", "S", "NT", "D", "C", "NOLO"] * 2
    assert len(one.deals) == 26


def test_sides_swap_between_tables(tmp_path: Path) -> None:
    result = run_match(ns="club", ew="beginner", deals=12, seed=5, records=tmp_path)
    a = replay(loads((tmp_path / "game0000a.json").read_text()))
    b = replay(loads((tmp_path / "game0000b.json").read_text()))
    assert loads((tmp_path / "game0000a.json").read_text()).players[0] == "club"
    assert loads((tmp_path / "game0000b.json").read_text()).players[0] == "beginner"
    for d, ra, rb in zip(result.deals, a.results, b.results, strict=True):
        assert ra.dealer == rb.dealer and ra.contract == rb.contract
        assert d.margin_a == ra.points[0] - ra.points[1]
        assert d.margin_b == rb.points[0] - rb.points[1]
    assert a.actions()[0] == b.actions()[0]  # the same first deal at both tables


def test_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "match",
            "--ns",
            "club",
            "--ew",
            "beginner",
            "--deals",
            "12",
            "--seed",
            "2",
            "--json",
            "--records",
            str(tmp_path),
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {
        "variant",
        "seed",
        "deals",
        "ns",
        "ew",
        "mean_diff",
        "ci95",
        "by_contract",
        "records",
        "per_deal",
        "contracts",
    }
    assert out["contracts"] is None
    assert out["deals"] == 12 and out["ns"] == "club" and out["ew"] == "beginner"
    assert out["variant"] == "felagsvist" and out["seed"] == 2
    assert out["records"] == str(tmp_path)
    lo, hi = out["ci95"]
    assert lo <= out["mean_diff"] <= hi
    # every deal, and the summaries follow from them
    deals = out["per_deal"]
    assert [d["index"] for d in deals] == list(range(12))
    assert all(d["score"] == (d["margin_a"] - d["margin_b"]) / 2 for d in deals)
    assert out["mean_diff"] == pytest.approx(sum(d["score"] for d in deals) / 12)
    assert sum(c["deals"] for c in out["by_contract"].values()) == 12
    for code, c in out["by_contract"].items():
        mine = [d["score"] for d in deals if d["contract"] == code]
        assert c["deals"] == len(mine) and c["mean_diff"] == pytest.approx(sum(mine) / len(mine))
    assert len(list(tmp_path.glob("*.json"))) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ns", "wizard", "--ew", "club", "--deals", "4"], "unknown level 'wizard'"),
        (
            ["--ns", "club", "--ew", "club", "--deals", "1"],
            "deals must be a whole number of at least 2 (a confidence interval needs two deals),"
            " got 1",
        ),
        (["--ns", "club", "--ew", "club", "--deals", "4", "--variant", "poker"], "poker"),
        (["--ns", "club", "--ew", "club", "--deals", "4", "--seed", "-5"], "--seed must be"),
        (
            ["--ns", "club", "--ew", "club", "--deals", "4", "--contracts", "spel"],
            "unknown contract 'SPEL' for felagsvist; its contracts: H, S, NT, D, C, NOLO",
        ),
        (
            ["--ns", "club", "--ew", "club", "--deals", "5", "--contracts", "nolo"],
            "none of the 5 deals played was in NOLO; a confidence interval needs two",
        ),
        (
            ["--ns", "club", "--ew", "club", "--deals", "6", "--contracts", "nolo"],
            "only 1 of the 6 deals played was in NOLO",
        ),
    ],
)
def test_cli_errors_name_the_problem(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["match", *args, "--records", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def played(folder: Path, game: int, table: str) -> list[tuple[object, list[int]]]:
    """Every hand of a match record: its bottom cards (Swedish) and the cards played."""
    record = loads((folder / f"game{game:04d}{table}.json").read_text())
    return [(h.bottom, h.play) for h in record.hands]


def test_contracts_the_ns_level_plays_only_their_cards(tmp_path: Path) -> None:
    full = run_match(ns="club", ew="beginner", deals=24, seed=3)
    only = run_match(
        ns="club", ew="beginner", deals=24, seed=3, contracts=["NOLO", "NT"], records=tmp_path
    )
    # the chosen contracts are played as in the whole match (the cards, the bots' seeds,
    # the leader do not depend on the hands before), and only they are reported
    assert only.deals == [d for d in full.deals if d.contract in ("NT", "NOLO")]
    assert only.contracts == ("NT", "NOLO") and len(only.deals) == 8
    assert "club played only NT, NOLO; beginner played the rest" in only.report()
    # every other hand: the E-W level at all four seats, card for card alike at both
    # tables; Grand (hands 3, 9) and Nóló (6, 12) are played apart
    for game in (0, 1):
        a, b = played(tmp_path, game, "a"), played(tmp_path, game, "b")
        alike = [x == y for x, y in zip(a, b, strict=True)]
        assert alike == [number % 3 != 0 for number in range(1, 13)], game


def test_contracts_in_swedish_leave_the_bidding_to_the_ew_level(tmp_path: Path) -> None:
    kwargs: dict[str, Any] = {"ns": "club", "ew": "beginner", "deals": 8, "seed": 2}
    only = run_match("swedish", **kwargs, contracts=["SPEL"], records=tmp_path / "only")
    run_match("swedish", **kwargs, records=tmp_path / "full")
    assert {d.contract for d in only.deals} == {"SPEL"} and len(only.deals) >= 2

    def bottoms(match: str, table: str) -> list[object]:
        return [played(tmp_path / match, game, table)[0][0] for game in range(8)]

    # the two levels commit other bottom cards on some of these deals, but with
    # contracts the E-W level bids at every seat of both tables
    assert bottoms("full", "a") != bottoms("full", "b")
    assert bottoms("only", "a") == bottoms("only", "b")


def test_short_ladder_club_beats_beginner() -> None:
    result = run_match(ns="club", ew="beginner", deals=240, seed=11, jobs=2)
    lo, _ = result.ci95
    assert lo > 0, result.report()


@pytest.mark.parametrize("variant", ["swedish", "english", "american"])
def test_other_variants_play_one_hand_games(variant: str, tmp_path: Path) -> None:
    result = run_match(variant, ns="club", ew="beginner", deals=6, seed=1, records=tmp_path)
    assert len(result.deals) == 6
    assert {d.hand_number for d in result.deals} == {1}
    for d in result.deals:
        rec = replay(loads((tmp_path / f"game{d.game:04d}a.json").read_text()))
        assert rec.results[0].points[0] - rec.results[0].points[1] == d.margin_a


def test_missing_solver_is_reported_before_play(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import whistkit.bots.pimc as pimc

    def missing() -> None:
        raise RuntimeError("the expert and oracle levels need the double-dummy solver")

    monkeypatch.setattr(pimc, "default_solver", missing)
    args = ["match", "--ns", "expert", "--ew", "club", "--deals", "4"]
    assert main([*args, "--records", str(tmp_path)]) == 2
    assert "need the double-dummy solver" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.json"))


def test_records_are_never_overwritten_or_mixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["match", "--ns", "Club", "--ew", "BEGINNER", "--deals", "2", "--json"]
    assert main([*args, "--records", str(tmp_path)]) == 0  # levels in any case
    kept = {p: p.read_text() for p in tmp_path.glob("*.json")}
    assert len(kept) == 2
    capsys.readouterr()
    assert main([*args, "--records", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"whistkit match: the records folder {tmp_path} already holds 2 match records;"
        " give --records a new or empty folder\n"
    )
    assert {p: p.read_text() for p in tmp_path.glob("*.json")} == kept
    # without --records each run gets a new folder under the user data directory
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert main(args) == 0 and main(args) == 0
    runs = sorted(p.name for p in (tmp_path / "data").glob("*/matches/*"))
    base = "felagsvist-club-vs-beginner-2-seed1"
    assert runs == [base, f"{base}-2"]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"deals": 12.5},
            TypeError,
            "deals must be a whole number of at least 2 (a confidence interval needs two"
            " deals), got 12.5",
        ),
        ({"deals": "12"}, TypeError, "deals must be a whole number of at least 2"),
        ({"deals": True}, TypeError, "got True"),
        ({"jobs": 0}, ValueError, "jobs must be a whole number of at least 1, got 0"),
        ({"jobs": 2.0}, TypeError, "jobs must be a whole number of at least 1, got 2.0"),
        ({"seed": "1"}, TypeError, "seed must be a whole number, got '1'"),
        ({"ns": None}, TypeError, "ns must be a level name (a str), got None"),
        ({"variant": 3}, TypeError, "variant must be a variant name (a str), got an int"),
        ({"options": ["a=1"]}, TypeError, "options must be a mapping of option: value, got a list"),
        ({"records": 5}, TypeError, "records must be a folder's path, got an int"),
        ({"progress": "bar"}, TypeError, "progress must be a function of (done, total), got a str"),
        ({"variant": "poker"}, ValueError, "unknown variant 'poker'"),
        (
            {"contracts": "NOLO"},
            TypeError,
            "contracts must be a collection of contract codes, got a str",
        ),
        ({"contracts": []}, ValueError, "contracts names none; felagsvist's: H, S, NT, D, C"),
        ({"contracts": ["nolo"]}, ValueError, "unknown contract 'nolo' for felagsvist"),
    ],
)
def test_run_match_names_a_bad_argument(
    kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    args: dict[str, object] = {"ns": "club", "ew": "beginner", "deals": 2, "seed": 1}
    with pytest.raises(error) as e:
        run_match(**{**args, **kwargs})  # type: ignore[arg-type]
    assert message in str(e.value)


def test_run_match_takes_a_records_folder_as_a_str(tmp_path: Path) -> None:
    result = run_match(ns="club", ew="beginner", deals=2, seed=1, records=str(tmp_path / "m"))
    assert result.records == tmp_path / "m"
    assert sorted(p.name for p in (tmp_path / "m").glob("*.json")) == [
        "game0000a.json",
        "game0000b.json",
    ]
