"""The ``whistkit`` command wires every subcommand (solve through the main entry point)."""

from __future__ import annotations

import json

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
