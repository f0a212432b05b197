"""A whole game in the terminal per variant, with piped input, and its record replays."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")
# card numbers 1..13 again and again: each refused number is simply retried
ANSWERS = "\n".join(str(k) for _ in range(600) for k in range(1, 14)) + "\n"


def run(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "whistkit.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("variant", "options", "expect"),
    [
        ("swedish", [], ["reveals", "bottom card", "(game to 13)"]),
        ("english", [], ["turned:", "Honours:", "Rubber to", "Rubber:"]),
        ("american", [], ["turned:", "Game to"]),
        ("american", ["--option", "american_match=rubber"], ["Rubber:"]),
    ],
)
def test_text_game_to_the_end(tmp_path, variant, options, expect):
    records = tmp_path / "records"
    proc = run(
        [
            "play",
            "--text",
            "--variant",
            variant,
            "--seed",
            "1",
            "--records",
            str(records),
            *options,
        ],
        ANSWERS,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Game over. Final score" in out
    assert "win (" in out
    for text in expect:
        assert text in out, text
    files = sorted(records.glob("*.json"))
    assert len(files) == 1
    rep = run(["replay", str(files[0])], "")
    assert rep.returncode == 0, rep.stderr
    summary = json.loads(rep.stdout)
    assert summary["variant"] == variant
    assert summary["winner"] in ("NS", "EW")
    final = out.split("Game over. Final score: ")[1].splitlines()[0]
    assert final == f"NS {summary['score']['NS']}, EW {summary['score']['EW']}."
