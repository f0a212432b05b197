"""Browser tests: the real server as a subprocess and Debian's headless Chromium.

Run them in their own pytest process (``pytest tests/e2e``): sync Playwright and asyncio
tests do not share one process well. Never ``playwright install``; the browser is
``/usr/bin/chromium``.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("WHISTKIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# WHISTKIT_TEST_SRC: another checkout's src, to see a test fail on the code before a fix
SRC = Path(os.environ.get("WHISTKIT_TEST_SRC") or Path(__file__).resolve().parents[2] / "src")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(pytest.mark.e2e)
        item.add_marker(pytest.mark.timeout(300))


class ServerProcess:
    """``whistkit play --no-browser`` on a free port and a given database.

    Without a ``port`` the server binds port 0 and the port is read from the URL it
    announces, so that tests running side by side (``pytest -n``) never race for a port
    chosen in advance; a restart passes the port it had.
    """

    def __init__(
        self,
        db: Path,
        port: int | None = None,
        bot_delay: float = 0.0,
        args: Sequence[str] = (),
    ) -> None:
        self.db = db
        self.port = port or 0  # the real one once started
        self.bot_delay = bot_delay
        self.args = list(args)  # more `whistkit play` arguments (--variant, --level, ...)
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> ServerProcess:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
        env["WHISTKIT_BOT_DELAY"] = str(self.bot_delay)
        # every page of the browser tests is 127.0.0.1, creating games in quick
        # succession: the per-address bounds on new games (tested in tests/server) are
        # lifted unless a test sets them
        env.setdefault("WHISTKIT_NEW_GAMES_PER_MINUTE", "100000")
        env.setdefault("WHISTKIT_MAX_LIVE_GAMES_PER_CLIENT", "100000")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "whistkit.cli", "play", "--no-browser"]
            + ["--port", str(self.port), "--db", str(self.db), *self.args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 20
        self.port = self._announced_port(deadline)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(self._exited())
            try:
                with urllib.request.urlopen(self.url + "api/meta", timeout=1):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not start in 20 s")

    def _exited(self) -> str:
        assert self.proc is not None
        err = self.proc.stderr.read().decode() if self.proc.stderr else ""
        return f"server exited with {self.proc.returncode}: {err}"

    def _announced_port(self, deadline: float) -> int:
        """The port in the line ``whistkit play`` prints once it is bound."""
        assert self.proc is not None and self.proc.stdout is not None
        out = self.proc.stdout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([out], [], [], 0.1)
            if ready:
                line = out.readline().decode()
                found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
                if found:
                    return int(found.group(1))
                if not line and self.proc.poll() is not None:
                    raise RuntimeError(self._exited())
        raise RuntimeError("server did not announce its address in 20 s")

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, as in a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for a module's tests (a start costs about 2 s; there were 53 a run). The
    tests stay independent: each opens its own page (a new browser context, its own
    localStorage) and plays its own games, and a page's games list holds only the games
    played in it. A test that needs a server of its own (a killed server, other options,
    a prepared database) starts one."""
    srv = ServerProcess(tmp_path_factory.mktemp("server") / "games.sqlite3").start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        # a missing browser must fail the run, never pass it quietly
        pytest.fail(f"{CHROMIUM} is missing (apt-get install chromium)", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
