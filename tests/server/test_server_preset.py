"""``whistkit play --variant/--level/--option`` preset the web game's new-game dialog."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from whistkit.bots import DEFAULT_LEVEL
from whistkit.cli import main
from whistkit.server.app import Preset, create_app


def meta(db: Path, preset: Preset | None) -> dict[str, object]:
    with TestClient(create_app(db, bot_delay=0, preset=preset)) as c:
        data: dict[str, object] = c.get("/api/meta").json()
    return data


def option_defaults(data: dict[str, object], variant: str) -> dict[str, object]:
    variants = data["variants"]
    assert isinstance(variants, list)
    entry = next(v for v in variants if v["name"] == variant)
    return {o["key"]: o["default"] for o in entry["options"]}


def test_without_a_preset_the_dialog_offers_the_defaults(tmp_path: Path) -> None:
    data = meta(tmp_path / "g.db", None)
    assert data["default_variant"] == "felagsvist" and data["default_level"] == DEFAULT_LEVEL
    assert option_defaults(data, "swedish")["play_mode"] == "strict"


def test_the_preset_is_offered_first(tmp_path: Path) -> None:
    preset = Preset("swedish", "club", {"play_mode": "laws"})
    data = meta(tmp_path / "g.db", preset)
    assert data["default_variant"] == "swedish" and data["default_level"] == "club"
    assert option_defaults(data, "swedish")["play_mode"] == "laws"
    assert option_defaults(data, "english")["play_mode"] == "strict"  # other variants as they are


@pytest.mark.parametrize(
    ("preset", "message"),
    [
        (Preset(level="grandmaster"), "unknown level 'grandmaster'"),
        (Preset(variant="chess"), "unknown variant"),
        (Preset(options={"play_mode": "anything"}), "play_mode"),
    ],
)
def test_a_bad_preset_is_refused(tmp_path: Path, preset: Preset, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        create_app(tmp_path / "g.db", bot_delay=0, preset=preset)


def test_a_bad_level_for_the_web_game_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["play", "--no-browser", "--port", "0", "--db", str(tmp_path / "g.db")]
    assert main([*args, "--level", "grandmaster"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown level 'grandmaster'" in err
    assert not (tmp_path / "g.db").exists()  # refused before the database was made
