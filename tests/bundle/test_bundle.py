"""The self-contained bundle (``./run bundle``) on a machine without Python: unpacked
into a minimal Debian root (debootstrap --variant=minbase, which has no Python), where
it runs an evening through its HTTP API, the web game's server and the bots in worker
processes with the compiled solver (issue 33, docs/install.md).

Needs root (chroot, a private mount namespace) and Debian's debootstrap, which
``./run test`` and ``.ci/run`` install; the root is made once and kept under
``~/.cache/whistkit-tests`` (it needs the Debian mirror the first time).
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import re
import shutil
import signal
import subprocess
import tarfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import httpx
import pytest
from starlette.testclient import TestClient
from websockets.sync.client import connect

from evening_web.drive import Driver, hall_client
from whistkit.evening.web import create_app

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[2]
MIRROR = os.environ.get("WHISTKIT_DEBIAN_MIRROR", "http://deb.debian.org/debian")


def codename() -> str:
    """This Debian's release (the root's: the bundle needs no newer C library than it)."""
    text = Path("/etc/os-release").read_text()
    found = re.search(r"^VERSION_CODENAME=(\w+)", text, re.M)
    assert found, "/etc/os-release names no VERSION_CODENAME: the bundle test needs Debian"
    return found.group(1)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (other test processes wait)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def debian_root() -> Path:
    """A minimal Debian root of this release with no Python, made once and kept."""
    assert os.geteuid() == 0, "the bundle test runs the bundle in a chroot: run it as root"
    debootstrap = shutil.which("debootstrap") or "/usr/sbin/debootstrap"
    assert Path(debootstrap).exists(), "needs Debian's debootstrap: apt-get install debootstrap"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "whistkit-tests"
    release = codename()
    root = cache / f"{release}-minbase"
    with locked(cache / f"{release}-minbase.lock"):
        if not (root / "usr/sbin/chroot").exists():
            part = cache / f"{release}-minbase.part"
            shutil.rmtree(part, ignore_errors=True)
            made = subprocess.run(
                [debootstrap, "--variant=minbase", release, str(part), MIRROR],
                capture_output=True,
                text=True,
            )
            assert made.returncode == 0, f"debootstrap failed:\n{made.stdout[-3000:]}"
            shutil.rmtree(root, ignore_errors=True)
            part.rename(root)
    return root


@pytest.fixture(scope="session")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packed bundle, built once by ``./run bundle``."""
    out = tmp_path_factory.mktemp("bundle")
    built = subprocess.run(
        ["./run", "bundle", "--dist", str(out / "dist"), "--work", str(out / "work")],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (tarball,) = (out / "dist").glob("whistkit-*-linux-x86_64.tar.gz")
    return tarball


class Minimal:
    """The bundle unpacked in a private folder of the minimal root, run there."""

    def __init__(self, root: Path, tarball: Path) -> None:
        self.root = root
        self.own = Path("/opt") / f"whistkit-test-{uuid.uuid4().hex[:12]}"
        (root / self.own.relative_to("/")).mkdir(parents=True)
        with tarfile.open(tarball) as t:
            t.extractall(root / self.own.relative_to("/"), filter="tar")
        (folder,) = (root / self.own.relative_to("/")).iterdir()
        self.program = self.own / folder.name / "whistkit"
        self.home = self.own / "home"
        (root / self.home.relative_to("/")).mkdir()
        self.procs: list[subprocess.Popen[str]] = []

    def command(self, *args: str) -> list[str]:
        # a private mount namespace: /proc and /dev inside the root go away with it
        script = 'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && exec /usr/sbin/chroot "$0" "$@"'
        return ["unshare", "--mount", "--fork", "--", "sh", "-c", script, str(self.root), *args]

    def env(self) -> dict[str, str]:
        # nothing of this machine's Python: a bare environment, as a double-click gives
        return {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(self.home), "LANG": "C"}

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.command(str(self.program), *args),
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=600,
        )

    def start(
        self, *args: str, bot_delay: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.Popen[str]:
        env = self.env() | (env or {})
        if bot_delay is not None:  # one worker process for the bots, which play at once
            env |= {"WHISTKIT_BOT_DELAY": bot_delay, "WHISTKIT_BOT_WORKERS": "1"}
        proc = subprocess.Popen(
            self.command(str(self.program), *args),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # unshare waits on a TERM: the group gets it
        )
        self.procs.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen[str]) -> None:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(30)

    def close(self) -> None:
        for proc in self.procs:
            self.stop(proc)
        shutil.rmtree(self.root / self.own.relative_to("/"), ignore_errors=True)


def read_until(out: IO[str], pattern: str) -> tuple[re.Match[str], list[str]]:
    """Read lines until one matches ``pattern``; the match and every line read."""
    lines: list[str] = []
    while True:
        line = out.readline()
        assert line, "the program ended; it printed:\n" + "".join(lines)
        lines.append(line)
        found = re.search(pattern, line)
        if found:
            return found, lines


def evening_through(client: httpx.Client | TestClient, seed: int) -> dict[str, Any]:
    """A 12-hand evening of 12 players, every result entered and confirmed at the
    tables, then finished; its final state."""
    host = Driver(client)  # type: ignore[arg-type]
    host.create({"preset": "felagsvist", "hands": 12})
    host.setup(6, 6, seed=seed)
    rng = random.Random(seed)
    for _ in range(12):
        host.play_hand(rng)
    host.post(f"/api/e/{host.id}/status", {"action": "finish"})
    return host.state()


def play_a_hand(base: str) -> dict[str, Any]:
    """A new web game against expert bots, its first hand played through the WebSocket
    as S (the first legal card each time); the last view."""
    origin = base.rstrip("/")
    made = httpx.post(
        base + "api/games", json={"level": "expert", "seed": 11}, headers={"Origin": origin}
    )
    assert made.status_code == 200, made.text
    game = made.json()
    url = origin.replace("http", "ws", 1) + f"/ws?game={game['id']}"
    with connect(url, origin=origin, open_timeout=60) as ws:  # type: ignore[arg-type]
        join = {"type": "join", "game": game["id"], "seat": "S", "token": game["token"]}
        ws.send(json.dumps(join))
        acted = 0
        acted_at = -1
        while acted < 13:
            msg = json.loads(ws.recv(timeout=180))
            assert msg["type"] != "error", msg
            view: dict[str, Any] | None = msg.get("view")
            if view and view["to_play"] == "S" and view["legal"] and msg["v"] > acted_at:
                ws.send(json.dumps(view["legal"][0]))
                acted_at = msg["v"]
                acted += 1
        while True:  # the bots finish the last trick
            msg = json.loads(ws.recv(timeout=180))
            view = msg.get("view")
            if view and (view["hand_number"] == 2 or view["winner"]):
                return view


def worker_processes(program: Path) -> list[str]:
    """The command lines of the bundled program's worker processes (multiprocessing's)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        line = " ".join(a.decode(errors="replace") for a in args)
        if line.startswith(str(program)) and "--multiprocessing-fork" in line:
            found.append(line)
    return found


def test_the_bundle_runs_an_evening_and_the_game_without_python(
    bundle: Path, tmp_path: Path
) -> None:
    root = debian_root()
    assert not list((root / "usr/bin").glob("python*")), "the minimal root has a Python"
    here = Minimal(root, bundle)
    try:
        # the compiled solver is in the bundle and in use
        version = here.run("--version")
        assert version.returncode == 0, version.stderr
        assert "solver core:" in version.stdout and "pure-Python" not in version.stdout
        solved = here.run("solve", "N:AK.2.. QJ.3.. T9.4.. 87.5..", "--contract", "NT")
        assert solved.returncode == 0 and "Tricks for NS with best play: 2" in solved.stdout

        # no arguments, as a double-click: the organiser on the hall's network, its
        # address and QR code in the terminal; the host's pages on this machine
        hall = here.start()
        assert hall.stdout is not None
        found, lines = read_until(hall.stdout, r"the organiser is at (http://\S+:(\d+)/) ")
        hall_url, port = found.group(1), found.group(2)
        assert "0.0.0.0" not in hall_url
        assert f"{here.home}/.local/share/whistkit/games.sqlite3" in lines[-1]
        _, lines = read_until(hall.stdout, r"▀▀▀▀▀▀▀▀▀▀")
        assert lines[0].startswith("Phones in the hall open this address")
        assert sum(1 for line in lines if "█" in line) > 15  # the QR code
        local = f"http://127.0.0.1:{port}/"
        with httpx.Client(base_url=local, timeout=60) as client:
            final = evening_through(client, seed=5)
            assert client.get("/").status_code == 200
            page = client.get(f"/e/{final['id']}/projector")
            assert page.status_code == 200 and "<html" in page.text.lower()
            for lang in ("en", "is", "sv", "it", "fr", "ru"):
                strings = client.get(f"/static/i18n/{lang}.json")
                assert strings.status_code == 200 and strings.json()
            table = final["tables"][0]["url"]
            assert table.startswith(hall_url)  # the cards carry the hall's address
            assert client.get("/t/" + table.split("/t/", 1)[1]).status_code == 200
        assert httpx.get(hall_url, timeout=60).status_code == 200  # a phone's address
        # the same evening run from the sources gives the same standings
        with hall_client(create_app(tmp_path / "reference.sqlite3")) as c:
            reference = evening_through(c, seed=5)
        assert final["status"] == "finished"
        assert len(final["standings"]) == 12
        assert final["standings"] == reference["standings"]
        here.stop(hall)

        # the web game's server with its pages, cards and help, and a hand against expert
        # bots who think in a worker process of the bundled program (the compiled solver)
        game = here.start(
            "play", "--no-browser", "--port", "0", "--db", f"{here.home}/g.db", bot_delay="0"
        )
        assert game.stdout is not None
        found, _ = read_until(game.stdout, r"the web game is at (http://\S+/) ")
        with httpx.Client(base_url=found.group(1), timeout=60) as client:
            assert "<html" in client.get("/").text.lower()
            assert "<svg" in client.get("/static/cards/QH.svg").text
            for lang in ("en", "is", "sv", "it", "fr", "ru"):
                assert client.get(f"/static/help/{lang}.json").json()
                assert client.get(f"/static/i18n/{lang}.json").json()
        view = play_a_hand(found.group(1))
        assert view["hand_number"] == 2 or view["winner"]
        assert worker_processes(here.program), "the bots thought in no worker process"
        here.stop(game)

        # bots in worker processes of the bundled program (a duplicate match)
        match = here.run(
            "match", "--ns", "club", "--ew", "beginner", "--deals", "2", "--jobs", "2",
            "--records", f"{here.home}/records", "--json",
        )  # fmt: skip
        assert match.returncode == 0, match.stdout + match.stderr
        assert '"deals": 2' in match.stdout
    finally:
        here.close()
