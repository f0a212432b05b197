"""benchmarks/reading.py: how much of partner's hand the expert's drawn worlds hold."""

from __future__ import annotations

from pathlib import Path

from helpers_bots import run_benchmark


def test_it_measures_each_level_s_reading(tmp_path: Path) -> None:
    out = tmp_path / "rows.json"
    done = run_benchmark(
        "partner_model.py", "--level", "club", "--hands", "1", "--worlds", "2",
        "--jobs", "1", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = run_benchmark(
        "reading.py", str(out), "--level", "expert", "expert:infer=False",
        "--left", "3", "9", "--decisions", "4", "--worlds", "6",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "4 decisions with 3-9 cards in hand, 6 worlds each"
    assert len(lines) == 3 and lines[2].startswith("expert:infer=False ")
    for line in lines[1:]:
        partner = float(line.split("partner's cards held ")[1].split(",")[0])
        opponent = float(line.split("next opponent's ")[1])
        assert 0.0 < partner < 1.0 and 0.0 < opponent < 1.0


def test_bad_input_is_named(tmp_path: Path) -> None:
    missing = str(tmp_path / "none.json")
    done = run_benchmark("reading.py", missing, "--left", "9", "3")
    assert done.returncode != 0 and "--left must be two numbers" in done.stderr
    done = run_benchmark("reading.py", missing, "--level", "club")
    assert done.returncode != 0 and "not expert or expert:key=value" in done.stderr
    done = run_benchmark("reading.py", missing, "--level", "expert:nope=1")
    assert done.returncode != 0 and "nope" in done.stderr
    done = run_benchmark("reading.py", missing)
    assert done.returncode != 0 and "none.json: no such file" in done.stderr
