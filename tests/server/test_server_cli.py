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


def test_on_all_interfaces_play_prints_the_network_address_and_its_qr_code(
    tmp_path: Path,
) -> None:
    """``whistkit play --host 0.0.0.0``: the address on the network with a QR code of it in
    the terminal; a shared table's invite links carry that address, and its QR code is
    served for them."""
    import os
    import subprocess
    import sys

    import httpx

    from whistkit.server.lan import lan_address

    src = Path(__file__).resolve().parents[2] / "src"
    env = dict(os.environ, PYTHONPATH=str(src))
    args = ["play", "--no-browser", "--host", "0.0.0.0", "--port", "0"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "whistkit.cli", *args, "--db", str(tmp_path / "g.db")],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("whistkit: the web game is at http://"), first
        url = first.split(" at ")[1].split()[0]
        assert "0.0.0.0" not in url and url.startswith(f"http://{lan_address() or '127.0.0.1'}:")
        local = first.split(" on this network, ")[1].split()[0]
        assert local.startswith("http://127.0.0.1:")
        assert proc.stdout.readline().startswith("Friends on the same network open this address")
        qr = [proc.stdout.readline() for _ in range(12)]
        assert all("█" in line or "▀" in line or "▄" in line for line in qr[1:-1])
        r = httpx.post(local + "api/tables", json={"seats": {"N": "person"}, "name": "Ann"})
        assert r.status_code == 200, r.text
        invite = r.json()["invites"]["N"]
        assert invite.startswith(url + "?join=")
        r = httpx.get(local + "api/qr", params={"u": invite})
        assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
        # the network address is one of the server's own names (a phone's Host header)
        host = url.split("//")[1].rstrip("/")
        r = httpx.get(local + "api/meta", headers={"Host": host})
        assert r.status_code == 200
    finally:
        proc.terminate()
        proc.wait(10)


class _Stop(Exception):
    """Raised by a ready callback to end the server before it serves."""


def test_the_address_is_answered_once_ready_announces_it(tmp_path: Path) -> None:
    # `whistkit play` prints its address (and a browser opens it) from `ready`: a
    # connection made then must be queued, not refused (the bundle's test met it refused)
    from whistkit.server import Listening, serve

    def ready(where: Listening) -> None:
        with socket.create_connection(("127.0.0.1", where.port), timeout=10):
            pass
        raise _Stop

    with pytest.raises(_Stop):
        serve(tmp_path / "g.sqlite3", host="127.0.0.1", port=0, ready=ready)
