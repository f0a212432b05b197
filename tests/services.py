"""Private PostgreSQL and Redis servers for the tests and benchmarks: started from
Debian's packages (``postgresql``, ``redis-server``) on free ports in a temporary folder,
and stopped by whoever started them. No mocks: what the store and the cluster do is done
against the real engines.

PostgreSQL refuses to run as root; run as root (CI), the cluster is made and started as
the ``postgres`` user the Debian package creates. Its data is in the folder given,
``fsync`` is off (a test's database dies with the test; durability is PostgreSQL's own,
not what the tests measure), and it listens on 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _pg_bin(name: str) -> str:
    """A PostgreSQL server program: on the PATH, else Debian's versioned folder."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not versions:
        raise RuntimeError(
            f"PostgreSQL's {name} is not installed: apt-get install postgresql (./run test"
            " installs it when it runs as root)"
        )
    return versions[-1]


def _as_postgres(cmd: Sequence[str]) -> list[str]:
    if os.geteuid() != 0:
        return list(cmd)
    return ["runuser", "-u", "postgres", "--", *cmd]


def _wait_port(port: int, what: str, seconds: float = 30.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {seconds:g} s")


class Postgres:
    """A private PostgreSQL cluster; :attr:`url` is a ``postgresql://`` URL of its
    database ``whistkit`` (user ``whistkit``, trusted on loopback)."""

    def __init__(self, *, fsync: bool = False) -> None:
        # a folder of its own under the system's temporary folder: the postgres user
        # must be able to reach it, and pytest's and tempfile's folders are root's alone
        self.folder = Path(tempfile.mkdtemp(prefix="whistkit-pg-"))
        self.folder.chmod(0o755)
        self.data = self.folder / "pgdata"
        self.port = free_port()
        self.fsync = fsync
        self.log = self.folder / "postgres.log"

    @property
    def url(self) -> str:
        return f"postgresql://whistkit@127.0.0.1:{self.port}/whistkit"

    def start(self) -> Postgres:
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        subprocess.run(
            _as_postgres(
                [
                    _pg_bin("initdb"),
                    "-D",
                    str(self.data),
                    "-U",
                    "whistkit",
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--no-sync",
                ]
            ),
            check=True,
            capture_output=True,
        )
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder}"
            f" -c fsync={'on' if self.fsync else 'off'} -c max_connections=200"
            " -c shared_buffers=64MB"
        )
        subprocess.run(
            _as_postgres(
                [
                    _pg_bin("pg_ctl"),
                    "-D",
                    str(self.data),
                    "-l",
                    str(self.log),
                    "-o",
                    options,
                    "-w",
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
        )
        _wait_port(self.port, "PostgreSQL")
        subprocess.run(
            [
                _pg_bin("createdb") if shutil.which("createdb") else "createdb",
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                "whistkit",
                "whistkit",
            ],
            check=True,
            capture_output=True,
        )
        return self

    def fresh_database(self, name: str) -> str:
        """A new empty database in this cluster; its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://whistkit@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError, FileNotFoundError):
            subprocess.run(
                _as_postgres(
                    [_pg_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"]
                ),
                check=True,
                capture_output=True,
            )
        shutil.rmtree(self.folder, ignore_errors=True)


class Redis:
    """A private ``redis-server`` (no persistence) on a free port; :attr:`url`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> Redis:
        exe = shutil.which("redis-server") or shutil.which("valkey-server")
        if exe is None:
            raise RuntimeError(
                "redis-server is not installed: apt-get install redis-server (./run test"
                " installs it when it runs as root)"
            )
        self.folder.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                exe,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
                "--loglevel",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_port(self.port, "redis-server")
        return self

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


@contextlib.contextmanager
def services(folder: Path | None = None) -> Iterator[tuple[Postgres, Redis]]:
    """A private PostgreSQL and Redis for the duration of the block."""
    with contextlib.ExitStack() as stack:
        if folder is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="whistkit-")))
        pg = Postgres().start()
        stack.callback(pg.stop)
        rd = Redis(folder / "redis").start()
        stack.callback(rd.stop)
        yield pg, rd


__all__ = ["Postgres", "Redis", "free_port", "services"]
