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
