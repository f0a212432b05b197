"""The bundle's program without arguments (a double-click): the evening organiser for
the hall, and ``whistkit evening --browser`` that it runs (whistkit.bundled)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from whistkit import bundled

SRC = Path(__file__).resolve().parents[2] / "src"


def test_no_arguments_serve_the_hall_on_port_8000_or_any_free_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as busy:
        busy.bind(("0.0.0.0", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        assert bundled.hall_arguments(taken) == [
            "evening", "--host", "0.0.0.0", "--port", "0", "--browser"
        ]  # fmt: skip
    with socket.socket() as probe:
        probe.bind(("0.0.0.0", 0))
        free = probe.getsockname()[1]
    assert bundled.hall_arguments(free)[3:5] == ["--port", str(free)]

    calls: list[list[str]] = []
    monkeypatch.setattr(bundled, "cli_main", lambda argv: calls.append(list(argv)) or 0)
    monkeypatch.setattr(bundled, "HALL_PORT", free)
    assert bundled.main([]) == 0
    assert calls == [["evening", "--host", "0.0.0.0", "--port", str(free), "--browser"]]
    assert bundled.main(["play", "--text"]) == 0  # with arguments: the whistkit command
    assert calls[-1] == ["play", "--text"]


def test_a_failed_start_waits_for_enter_in_its_own_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Terminal:
        def isatty(self) -> bool:
            return True

    asked: list[str] = []
    monkeypatch.setattr(bundled, "cli_main", lambda argv: 2)
    monkeypatch.setattr(sys, "stdin", Terminal())
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "")
    assert bundled.main([]) == 2
    assert asked == ["Press Enter to close this window."]


def test_the_browser_gets_the_library_path_the_bundle_was_started_with() -> None:
    from whistkit.server.lan import outside_environment

    bundle = {"LD_LIBRARY_PATH": "/opt/whistkit/_internal:/usr/local/lib", "HOME": "/h"}
    started = bundle | {"LD_LIBRARY_PATH_ORIG": "/usr/local/lib"}
    assert outside_environment(started) == {"LD_LIBRARY_PATH": "/usr/local/lib", "HOME": "/h"}
    assert outside_environment(bundle) == {"HOME": "/h"}  # it had none
    assert started["LD_LIBRARY_PATH"].startswith("/opt/whistkit")  # its own is untouched


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0"])
def test_evening_browser_opens_the_organiser_on_this_machine(tmp_path: Path, host: str) -> None:
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\necho "$1" > {opened}\n')
    browser.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=str(SRC), BROWSER=f"{browser} %s")
    args = [sys.executable, "-m", "whistkit.cli", "evening", "--host", host, "--port", "0"]
    proc = subprocess.Popen(
        [*args, "--db", str(tmp_path / "e.sqlite3"), "--browser"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        port = line.split(" at http://")[1].split("/")[0].rsplit(":", 1)[1]
        while not opened.exists() or not opened.read_text():
            assert proc.poll() is None, "the organiser stopped"
            time.sleep(0.1)
        assert opened.read_text().strip() == f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        proc.wait(10)
