"""The ``whistkit`` command wires every subcommand (solve through the main entry point)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from whistkit.cli import build_parser, main


def test_subcommands_are_registered() -> None:
    text = build_parser().format_help()
    for command in ("play", "replay", "solve"):
        assert command in text


def test_solve_through_main(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "W:AK... Q2... J3... T4...", "--contract", "NT", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"to_play": "W", "side": "EW", "tricks": 2, "cards": {"AS": 2, "KS": 2}}


def test_solve_bad_deal_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "W:AK.. Q2.. J3.. T4.."]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "4 suits" in captured.err


def test_python_dash_m_whistkit_runs_the_command() -> None:
    # the same entry point as the console script: arguments, output and exit code
    done = subprocess.run(
        [sys.executable, "-m", "whistkit", "solve", "W:AK... Q2... J3... T4...", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tricks"] == 2
    bad = subprocess.run(
        [sys.executable, "-m", "whistkit", "replay", "no-such-file.json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("whistkit replay: cannot read no-such-file.json")
