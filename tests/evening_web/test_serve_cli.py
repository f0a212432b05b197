"""`whistkit evening`: where it listens, what it prints, its one-line errors."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from whistkit.cli import main
from whistkit.evening.serve import public_url, terminal_qr

SRC = Path(__file__).resolve().parents[2] / "src"


def test_bad_port_and_bad_database_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["evening", "--port", "70000", "--db", str(tmp_path / "e.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert err == "whistkit evening: --port must be from 0 to 65535, not 70000\n"
    not_db = tmp_path / "notes.txt"
    not_db.write_text("shopping list\n" * 100)
    assert main(["evening", "serve", "--port", "0", "--db", str(not_db)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"whistkit evening: {not_db} is not a whistkit database")
    assert not_db.read_text() == "shopping list\n" * 100


def test_the_hall_address_and_its_qr_code() -> None:
    url = public_url("0.0.0.0", 8123)
    assert url.startswith("http://") and url.endswith(":8123/")
    assert "0.0.0.0" not in url
    assert public_url("127.0.0.1", 80) == "http://127.0.0.1:80/"
    out = io.StringIO()
    terminal_qr(url, out)
    lines = out.getvalue().splitlines()
    assert len(lines) > 10 and any("█" in line or "▀" in line for line in lines)


def test_on_all_interfaces_it_prints_the_address_a_qr_code_and_host_links(
    tmp_path: Path,
) -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    db = tmp_path / "e.sqlite3"
    args = [sys.executable, "-m", "whistkit.cli", "evening", "--db", str(db), "--port", "0"]
    # a first run on 127.0.0.1 to create an evening
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("whistkit evening: the organiser is at http://127.0.0.1:")
        url = line.split(" at ")[1].split()[0]
        r = httpx.post(url + "api/evenings", json={"title": "Kvöld"})
        assert r.status_code == 200
    finally:
        proc.terminate()
        proc.wait(10)
    proc = subprocess.Popen(
        [*args, "--host", "0.0.0.0"], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(2)]
        assert "the organiser is at http://" in lines[0] and "0.0.0.0" not in lines[0]
        assert lines[1].startswith("Phones in the hall open this address")
        deadline = time.monotonic() + 20
        rest = []
        while time.monotonic() < deadline:
            rest.append(proc.stdout.readline())
            if rest[-1].startswith("host link of Kvöld: http"):
                break
        assert rest[-1].startswith("host link of Kvöld: http")
        assert "/host?key=" in rest[-1]
        assert any("█" in x or "▀" in x for x in rest)
        # only this laptop creates evenings, or a device that opens the printed link
        assert any("to create one from another device, open http" in x for x in rest)
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_evenings_share_the_web_games_database() -> None:
    from whistkit.cli import default_data_dir
    from whistkit.evening.serve import default_db

    assert default_db() == default_data_dir() / "games.sqlite3"


def test_the_connection_limits_are_flags_and_variables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game server's limits (issue 18) hold for the organiser too (issue 33)."""
    import argparse

    from whistkit.evening.serve import add_serve_arguments, limits_of

    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    monkeypatch.setenv("WHISTKIT_HEADER_TIMEOUT", "7")
    limits = limits_of(parser.parse_args(["--max-connections-per-client", "5"]))
    assert (limits.max_connections_per_client, limits.header_timeout) == (5, 7)
    db = str(tmp_path / "e.sqlite3")
    assert main(["evening", "--max-connections-per-client", "0", "--db", db]) == 2
    err = capsys.readouterr().err
    assert err == "whistkit evening: --max-connections-per-client must be at least 1, not 0\n"
    monkeypatch.setenv("WHISTKIT_HEADER_TIMEOUT", "soon")
    assert main(["evening", "serve", "--db", db]) == 2
    assert "WHISTKIT_HEADER_TIMEOUT must be a whole number" in capsys.readouterr().err
