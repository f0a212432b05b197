"""Issue 33, part 2 on a real ``whistkit evening`` (a subprocess on 127.0.0.1 with 1,024
open files, as a laptop has): 1,100 connections that send half a request head, from one
address and then from many, must neither lock the phones out nor fill the log; a request
head or body sent a byte at a time is cut off after the header timeout, also on a
connection that has already been answered.

Loopback has a whole /8 of addresses: the attacker connects from 127.0.0.2 (or
127.0.1.x), the phones from 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

import pytest

from evening_web.drive import player_lines

# EVENING_TEST_SRC: another checkout's src, to see these tests fail on the code before
SRC = Path(os.environ.get("EVENING_TEST_SRC") or Path(__file__).resolve().parents[2] / "src")
URL = re.compile(r"the organiser is at http://127\.0\.0\.1:(\d+)/")
BAD_LOG = re.compile(r"Traceback|ERROR|Exception|Too many open files")
OPEN_FILES = 1024

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]


class Evening:
    """``whistkit evening --port 0`` with ``open_files`` descriptors; ``log`` is its
    stderr."""

    def __init__(self, tmp: Path, limits: dict[str, str]) -> None:
        self.log_path = tmp / "evening.log"
        out = tmp / "evening.out"
        # the limits as variables (WHISTKIT_HEADER_TIMEOUT...): the code before ignores them
        env = dict(os.environ, PYTHONPATH=str(SRC), **limits)

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))

        with open(self.log_path, "wb") as err, open(out, "wb") as so:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "whistkit.cli", "evening", "--port", "0"]
                + ["--db", str(tmp / "e.sqlite3")],
                env=env,
                stdout=so,
                stderr=err,
                preexec_fn=limit,
            )
        deadline = time.monotonic() + 60
        while True:
            found = URL.search(out.read_text(errors="replace"))
            if found:
                self.port = int(found.group(1))
                break
            assert self.proc.poll() is None, self.log
            assert time.monotonic() < deadline, "whistkit evening did not start"
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.port}/"

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def evening(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Evening]:
    srv = Evening(tmp_path, dict(getattr(request, "param", {})))
    yield srv
    srv.stop()


def call(srv: Evening, path: str, body: dict[str, Any] | None = None) -> Any:
    """A phone's (or the laptop's) request from 127.0.0.1, given 30 s: the phones'
    pages give up long before."""
    req = urllib.request.Request(
        srv.url + path.lstrip("/"),
        data=None if body is None else json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def running_evening(srv: Evening) -> str:
    """An evening started, its first table's view path. The laptop's cookie is not kept
    here, so the host's calls carry it by hand."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())

    def post(path: str, body: dict[str, Any]) -> Any:
        req = urllib.request.Request(
            srv.url + path,
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
        )
        with opener.open(req, timeout=30) as r:
            return json.load(r)

    eid = post("api/evenings", {"title": "Kvöld", "config": {"hands": 12}})["id"]
    post(f"api/e/{eid}/import", {"text": player_lines(4, 4)})
    post(f"api/e/{eid}/seat", {"seed": 1})
    post(f"api/e/{eid}/status", {"action": "start"})
    with opener.open(srv.url + f"api/e/{eid}", timeout=30) as r:
        state = json.load(r)
    return "api/t/" + state["tables"][0]["url"].split("/t/", 1)[1]


def half_heads(srv: Evening, sources: list[str], stack: ExitStack) -> list[socket.socket]:
    """A connection from each of ``sources`` that sends half a request head and waits."""
    head = f"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nX-Slow: ".encode()
    out = []
    for source in sources:
        s = stack.enter_context(socket.socket())
        s.bind((source, 0))
        s.settimeout(60)
        s.connect(("127.0.0.1", srv.port))
        with suppress(OSError):  # refused and closed already
            s.sendall(head)
        out.append(s)
    return out


def answer(s: socket.socket) -> bytes:
    """What the server sends on ``s`` until it closes it (60 s at most)."""
    data = b""
    while True:
        try:
            chunk = s.recv(4096)
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        data += chunk


# the header timeout longer than opening 1,100 sockets can take on a loaded machine: at
# the default 10 s the first 32 were closed while the rest were still being opened, so
# some of the last 50 were let in (and closed unanswered) instead of refused
@pytest.mark.parametrize("evening", [{"WHISTKIT_HEADER_TIMEOUT": "200"}], indirect=True)
def test_1100_half_heads_from_one_address_do_not_lock_the_phones_out(evening: Evening) -> None:
    """Before: the phones' requests timed out while the 1,100 stayed open, and the log
    got a traceback per accept (56 MB in 30 s)."""
    table = running_evening(evening)
    with ExitStack() as stack:
        socks = half_heads(evening, ["127.0.0.2"] * 1100, stack)
        # a phone at a table is answered while every one of them is still open
        view = call(evening, table)
        assert view["hand"]["number"] == 1
        assert call(evening, "api/meta")["max_players"] > 0
        # the excess was refused at once, with a 503 saying why
        for s in socks[-50:]:
            refused = answer(s)
            assert refused.startswith(b"HTTP/1.1 503"), refused[:100]
            assert b"too many connections from your address" in refused
    log = evening.log
    assert [x for x in log.splitlines() if BAD_LOG.search(x)] == [], log[-3000:]
    said = [x for x in log.splitlines() if "refusing connections from 127.0.0.2" in x]
    assert len(said) == 1, log[-3000:]


@pytest.mark.parametrize(
    "evening",
    [{"WHISTKIT_MAX_CONNECTIONS": "300", "WHISTKIT_HEADER_TIMEOUT": "10"}],
    indirect=True,
)
def test_1100_half_heads_from_many_addresses_are_refused_gracefully(evening: Evening) -> None:
    """Spread over 44 addresses (25 each, under the limit per address) they pass the
    limit in all: beyond it a connection gets a 503 at once, never a hang; the half
    heads are closed after the header timeout and the phones are answered again. (The
    limit in all is 300 here so that it is reached while this machine opens them: by
    default it is what the open-files limit leaves, 704 of 1,024.)"""
    table = running_evening(evening)
    sources = [f"127.0.1.{1 + i // 25}" for i in range(1100)]
    with ExitStack() as stack:
        socks = half_heads(evening, sources, stack)
        answers = [answer(s) for s in socks]  # every one ends: a 503, or closed unanswered
        full = [a for a in answers if b"the server is full" in a]
        assert full and all(a.startswith(b"HTTP/1.1 503") for a in full)
        assert all(a == b"" or a in full for a in answers)
    assert call(evening, table)["hand"]["number"] == 1
    log = evening.log
    assert [x for x in log.splitlines() if BAD_LOG.search(x)] == [], log[-3000:]
    assert len([x for x in log.splitlines() if "refusing connections: " in x]) == 1


@pytest.mark.parametrize("evening", [{"WHISTKIT_HEADER_TIMEOUT": "2"}], indirect=True)
def test_a_head_or_body_sent_slowly_is_cut_off(evening: Evening) -> None:
    """Before: once one request was answered, the next head could trickle in forever
    (the keep-alive timer stops at the first byte), and so could a body."""
    host = f"Host: 127.0.0.1:{evening.port}\r\n"
    with socket.create_connection(("127.0.0.1", evening.port), timeout=60) as s:
        s.sendall(f"GET /api/meta HTTP/1.1\r\n{host}\r\n".encode())
        first = b""
        while b"max_players" not in first:
            first += s.recv(65536)
        s.sendall(f"GET /api/meta HTTP/1.1\r\n{host}".encode())  # never finished
        assert answer(s) == b""  # closed by the server, not by this socket's 60 s
    with socket.create_connection(("127.0.0.1", evening.port), timeout=60) as s:
        s.sendall(
            f"POST /api/evenings HTTP/1.1\r\n{host}Content-Type: application/json\r\n"
            'Content-Length: 100\r\n\r\n{"title": '.encode()
        )
        assert answer(s) == b""
    assert call(evening, "api/meta")["max_players"] > 0
    log = evening.log
    assert [x for x in log.splitlines() if BAD_LOG.search(x)] == [], log[-3000:]
