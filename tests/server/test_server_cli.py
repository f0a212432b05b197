"""``whistkit play`` for the web game: a busy port is a clear one-line error."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from whistkit.cli import main


def test_busy_port_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        code = main(["play", "--no-browser", "--port", str(port), "--db", str(tmp_path / "g.db")])
    assert code == 2
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err and "--port" in err


def test_bad_variant_is_refused_before_serving(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--no-browser", "--variant", "chess"]) == 2
    assert "unknown variant" in capsys.readouterr().err


def test_bad_bot_delay_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("WHISTKIT_BOT_DELAY", "soon")
    code = main(["play", "--no-browser", "--port", str(port), "--db", str(tmp_path / "g.db")])
    assert code == 2
    assert "WHISTKIT_BOT_DELAY must be a number of seconds, not 'soon'" in capsys.readouterr().err


def test_limit_and_public_url_flags_are_checked_before_serving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "g.db")
    base = ["play", "--no-browser", "--port", "0", "--db", db]
    assert main([*base, "--max-frame-bytes", "10"]) == 2
    assert "--max-frame-bytes must be at least 256, not 10" in capsys.readouterr().err
    assert main([*base, "--public-url", "cards.example.org"]) == 2
    assert "--public-url must be an http:// or https:// URL" in capsys.readouterr().err
    monkeypatch.setenv("WHISTKIT_MAX_CONNECTIONS", "many")
    assert main(base) == 2
    assert "WHISTKIT_MAX_CONNECTIONS must be a whole number" in capsys.readouterr().err


def test_web_flags_are_refused_with_text(capsys: pytest.CaptureFixture[str]) -> None:
    for flags in (["--public-url", "https://a.example/"], ["--max-connections", "5"]):
        assert main(["play", "--text", *flags]) == 2
        assert f"{flags[0]} is for the web game, not the terminal game" in capsys.readouterr().err
