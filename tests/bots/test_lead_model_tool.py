"""benchmarks/lead_model.py: the model of the expert's leads fitted and measured on
partner_model.py's decisions."""

from __future__ import annotations

import json
from pathlib import Path

from helpers_bots import run_benchmark

from whistkit.bots.leads import FEATURES, FREE_FEATURES


def test_it_fits_on_the_decisions_and_prints_the_coefficients(tmp_path: Path) -> None:
    # North-South by the club rules over six hands of two seeds (every contract once):
    # their leads are fitted, each seed held out in turn, and the coefficients printed
    out = tmp_path / "rows.json"
    done = run_benchmark(
        "partner_model.py", "--level", "club", "--seed", "3", "4", "--hands", "6",
        "--worlds", "2", "--jobs", "2", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text(encoding="utf-8"))
    assert {(r["seed"], r["deal"]) for r in rows} >= {(3, 0), (4, 5)}
    done = run_benchmark("lead_model.py", str(out), "--worlds", "4")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "seed 3 held out" in text and "seed 4 held out" in text
    in_sample = [line for line in text.splitlines() if "in sample" in line]
    assert len(in_sample) == 2
    # the club rules lead by rule: in sample the model beats leading any card alike
    trumps = in_sample[0]
    loss = float(trumps.split("log-loss ")[1].split(" ")[0])
    uniform = float(trumps.split("(uniform ")[1].split(")")[0])
    assert loss < uniform
    coef = [line for line in text.splitlines() if line.startswith("COEF_TRUMPS = (")]
    assert len(coef) == 1 and coef[0].count(",") == len(FEATURES) - 1
    # the free model: leads, discards and follows, the club rules' verdict a feature (the club
    # level plays it always, so its coefficient is large in sample)
    done = run_benchmark("lead_model.py", str(out), "--worlds", "4", "--free")
    assert done.returncode == 0, done.stderr
    assert "discards, trumps and Grand" in done.stdout
    entries = [line for line in done.stdout.splitlines() if line.startswith('    ("')]
    assert len(entries) == 6  # leads, discards and follows; trumps and misère
    assert all(e.count(",") == len(FREE_FEATURES) + 1 for e in entries)
    club = [line for line in done.stdout.splitlines() if line.startswith("    club ")]
    assert club and float(club[0].split()[1]) > 1.0


def test_bad_input_is_named(tmp_path: Path) -> None:
    done = run_benchmark("lead_model.py", str(tmp_path / "none.json"), "--worlds", "0")
    assert done.returncode != 0 and "--worlds must be at least 1, not 0" in done.stderr
    done = run_benchmark("lead_model.py", str(tmp_path / "none.json"))
    assert done.returncode != 0 and "none.json: no such file" in done.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("[{", encoding="utf-8")
    done = run_benchmark("lead_model.py", str(broken))
    assert done.returncode != 0 and "broken.json: not JSON" in done.stderr
    old = tmp_path / "old.json"
    old.write_text(json.dumps([{"lead": True, "hand": 3, "played": []}]), encoding="utf-8")
    done = run_benchmark("lead_model.py", str(old))
    assert done.returncode != 0 and "rows without 'seed' and 'deal'" in done.stderr
