"""benchmarks/partner_model.py, the calibration of the club-rule model of partner."""

from __future__ import annotations

import json
from pathlib import Path

from helpers_bots import run_benchmark


def test_the_club_level_is_always_its_own_club_card_and_the_worlds_vary(tmp_path: Path) -> None:
    # North-South by the club rules: in its real hand each card is the club rules' card
    # (a = 1 at every decision, which checks the judge replays them right); in the
    # hands partner imagines it is not always (b < 1)
    out = tmp_path / "rows.json"
    done = run_benchmark(
        "partner_model.py", "--level", "club", "--hands", "2", "--worlds", "6",
        "--jobs", "1", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text(encoding="utf-8"))
    judged = [r for r in rows if r["a"] is not None and r["b"] is not None]
    assert len(judged) >= 20
    assert all(r["a"] is True for r in judged)
    assert sum(r["b"] for r in judged) / len(judged) < 0.95
    assert "club, seed 11, 2 hands each, 6 worlds a decision" in done.stdout
    assert "leads, trumps and Grand" in done.stdout
    first = judged[0]  # the decision itself, kept for fitting other models
    assert first["hand"] >> first["card"] & 1 and first["contract"] == "H"


def test_bad_settings_are_named() -> None:
    done = run_benchmark("partner_model.py", "--hands", "0")
    assert done.returncode != 0 and "--hands must be at least 1, not 0" in done.stderr
    done = run_benchmark("partner_model.py", "--level", "nope")
    assert done.returncode != 0 and "unknown bot level 'nope'" in done.stderr
