"""``whistkit variants``: every variant's rule options, as ``--option`` takes them."""

from __future__ import annotations

import json

import pytest

from whistkit.cli import main
from whistkit.variants import VARIANTS, describe, get_variant


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["variants", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_listing_names_every_variant_and_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert code == 0 and err == ""
    for cls in VARIANTS.values():
        assert f"{cls.name}: {cls.title}" in out
        for opt in describe(cls)["options"]:
            assert f"--option {opt['key']}=" in out
    assert "--option nolo_aces_low=true|false\n      Aces low in Nóló; default false\n" in out
    assert "laws mode only" in out


def test_every_value_listed_is_one_the_game_takes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--json")
    assert code == 0
    listed = json.loads(out)
    assert [v["name"] for v in listed] == list(VARIANTS)
    for v in listed:
        assert v["options"], v["name"]
        for opt in v["options"]:
            values = {"bool": [False, True], "int": [opt["default"], 3]}.get(
                opt["kind"], opt.get("choices")
            )
            assert opt["default"] in values, opt
            for value in values:
                game = get_variant(v["name"], {opt["key"]: value})
                assert getattr(game.options, opt["key"]) == value


def test_one_variant_by_its_alias(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "svensk")
    assert code == 0
    assert out.startswith("swedish: Swedish whist")
    assert "felagsvist" not in out and "--option sw_target=N" in out


def test_an_unknown_variant_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "bridge")
    assert code == 2 and out == ""
    assert (
        err == "whistkit variants: unknown variant 'bridge'; known: " + ", ".join(VARIANTS) + "\n"
    )
