"""A real ``whistkit play`` server in a subprocess, for the tests of the server's edge:
limits that only a real socket shows (frame sizes, connections, file descriptors, slow
readers) and the protocol fuzz test. It binds 127.0.0.1 on a free port (``--port 0``),
writes its log to a file the test reads, and is stopped by the test."""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

# WHISTKIT_TEST_SRC: another checkout's src, to see a test fail on the code before a fix
SRC = Path(os.environ.get("WHISTKIT_TEST_SRC") or Path(__file__).resolve().parents[2] / "src")
URL_RE = re.compile(r"http://127\.0\.0\.1:(\d+)/")
# what a server log must never hold after hostile input
BAD_LOG = re.compile(r"Traceback|ERROR|Exception|Too many open files")


class LiveServer:
    """``whistkit play --no-browser --port 0`` with a temporary database; ``log`` is what
    it wrote to stderr."""

    def __init__(
        self,
        tmp: Path,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        open_files: int | None = None,
    ) -> None:
        self.tmp = tmp
        self.db = tmp / "games.sqlite3"
        self.args = list(args)
        self.env = dict(env or {})
        self.open_files = open_files  # RLIMIT_NOFILE (soft and hard) of the server
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = tmp / "server.log"
        self.out_path = tmp / "server.out"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.host}/"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}/ws"

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def _limit_files(self) -> None:  # in the child, before exec
        if self.open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))

    def start(self) -> LiveServer:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
        env.setdefault("WHISTKIT_BOT_DELAY", "0")
        env.update(self.env)
        with open(self.log_path, "wb") as err, open(self.out_path, "wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "whistkit.cli", "play", "--no-browser"]
                + ["--port", "0", "--db", str(self.db), *self.args],
                env=env,
                stdout=out,
                stderr=err,
                preexec_fn=self._limit_files,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            found = URL_RE.search(self.out_path.read_text(errors="replace"))
            if found:
                self.port = int(found.group(1))
                try:  # the URL is printed once bound; this waits for it to listen
                    with urllib.request.urlopen(self.url + "api/meta", timeout=2):
                        return self
                except OSError:
                    pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: {self.log}")
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("server did not start in 30 s")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        """Ctrl-C, as a person stops it; SIGKILL if it does not stop."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def bad_log_lines(log: str) -> list[str]:
    """The lines of a server log that show a failure (a traceback, an ERROR)."""
    return [line for line in log.splitlines() if BAD_LOG.search(line)]
