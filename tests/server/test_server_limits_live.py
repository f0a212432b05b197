"""Issue 18, defect 4 on a real server (a subprocess on 127.0.0.1): frames and bodies
refused before they are read whole, connections per client address and in all, idle
connections closed, a slow reader disconnected while the game goes on, and running out
of file descriptors refused gracefully. Each server's log must stay free of tracebacks."""

from __future__ import annotations

import base64
import json
import os
import socket
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from .liveserver import LiveServer, bad_log_lines

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]


@pytest.fixture
def live(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    args = list(getattr(request, "param", ()))  # `whistkit play` arguments
    srv = LiveServer(tmp_path, args).start()
    yield srv
    srv.stop()
    assert bad_log_lines(srv.log) == [], srv.log[-3000:]


def new_game(srv: LiveServer) -> dict[str, Any]:
    req = urllib.request.Request(
        srv.url + "api/games",
        data=json.dumps({"seed": 11}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        game: dict[str, Any] = json.load(r)
        return game


def ws_connect(srv: LiveServer, **kwargs: Any) -> ClientConnection:
    return connect(srv.ws_url, open_timeout=10, close_timeout=2, **kwargs)


def until(ws: ClientConnection, types: tuple[str, ...]) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=30))
        if msg["type"] in types:
            return msg


def join(ws: ClientConnection, game: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps({"type": "join", "game": game["id"], "seat": "S", "token": game["token"]}))
    return until(ws, ("state", "error"))


def still_serves(srv: LiveServer) -> None:
    with ws_connect(srv) as ws:
        ws.send('{"type": "ping"}')
        assert until(ws, ("pong",)) == {"type": "pong"}


def raw_http(srv: LiveServer, head: bytes, body: bytes = b"") -> bytes:
    """Send a request by hand; everything the server answers until it closes."""
    with socket.create_connection(("127.0.0.1", srv.port), timeout=30) as s:
        s.sendall(head + body)
        s.shutdown(socket.SHUT_WR) if not body and b"chunked" not in head else None
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            out += chunk
        return out


@pytest.mark.parametrize(
    "live",
    [
        (
            "--max-frame-bytes",
            "4096",
        )
    ],
    indirect=True,
)
def test_a_frame_over_the_limit_closes_the_socket_unread(live: LiveServer) -> None:
    """Before: 16 MiB frames were read and a 10 MiB string echoed in the error."""
    with ws_connect(live, max_size=None) as ws:
        ws.send(json.dumps({"type": "ping", "x": "a" * 3000}))  # under the limit: answered
        assert until(ws, ("error",))["code"] == "malformed"
        ws.send("x" * 5000)
        with pytest.raises(ConnectionClosed) as e:
            ws.recv(timeout=30)
        assert e.value.rcvd is not None and e.value.rcvd.code == 1009
    still_serves(live)


def test_a_large_frame_is_refused_by_default(live: LiveServer) -> None:
    with ws_connect(live, max_size=None) as ws:
        with suppress(ConnectionClosed):
            ws.send("x" * (1024 * 1024))
        with pytest.raises(ConnectionClosed) as e:
            ws.recv(timeout=30)
        assert e.value.rcvd is not None and e.value.rcvd.code == 1009
    still_serves(live)


def test_a_body_over_the_limit_is_refused_before_it_is_read(live: LiveServer) -> None:
    """Before: a 100 MiB body was read whole before the 400. Now its Content-Length is
    enough for a 413, with none of it sent."""
    head = (
        f"POST /api/games HTTP/1.1\r\nHost: {live.host}\r\n"
        "Content-Type: application/json\r\nContent-Length: 104857600\r\n\r\n"
    ).encode()
    answer = raw_http(live, head)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"larger than 65536 bytes" in answer


def test_a_streamed_body_over_the_limit_is_refused(live: LiveServer) -> None:
    head = (
        f"POST /api/games HTTP/1.1\r\nHost: {live.host}\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode()
    chunk = b"4000\r\n" + b" " * 0x4000 + b"\r\n"
    answer = raw_http(live, head, chunk * 8)  # 128 KiB, never finished
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    still_serves(live)


def connect_once_room(srv: LiveServer, stack: ExitStack) -> ClientConnection:
    """A WebSocket, as soon as the server has seen a closed one go (polls up to 20 s)."""
    deadline = time.monotonic() + 20
    while True:
        try:
            return stack.enter_context(ws_connect(srv))
        except (InvalidStatus, ConnectionError, OSError, AssertionError):
            # a refused handshake; websockets asserts when the 503 comes before its request
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def refusal(srv: LiveServer) -> bytes:
    """What a connection over the limits gets: a 503 at once, before its request."""
    with socket.create_connection(("127.0.0.1", srv.port), timeout=30) as s:
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 503 Service Unavailable"), answer[:200]
    assert b"content-security-policy" in answer
    return answer


@pytest.mark.parametrize("live", [("--max-connections-per-client", "3")], indirect=True)
def test_connections_per_client_address(live: LiveServer) -> None:
    """Before: 1,014 idle sockets from one client exhausted the open-files limit."""
    with ExitStack() as stack:
        held = [stack.enter_context(ws_connect(live)) for _ in range(3)]
        assert b"too many connections from your address" in refusal(live)
        held[0].close()
        connect_once_room(live, stack)  # room again


@pytest.mark.parametrize(
    "live", [("--max-connections", "4", "--max-connections-per-client", "100")], indirect=True
)
def test_connections_in_all(live: LiveServer) -> None:
    with ExitStack() as stack:
        held = [stack.enter_context(ws_connect(live)) for _ in range(4)]
        assert b"the server is full" in refusal(live)
        held[0].close()
        connect_once_room(live, stack)


@pytest.mark.parametrize(
    "live",
    [
        (
            "--header-timeout",
            "1",
        )
    ],
    indirect=True,
)
def test_a_connection_that_sends_nothing_is_closed(live: LiveServer) -> None:
    with socket.create_connection(("127.0.0.1", live.port), timeout=30) as s:
        assert s.recv(1024) == b""  # closed by the server, not by this timeout
    with ws_connect(live) as ws:  # an open WebSocket is not a silent connection
        time.sleep(1.5)
        ws.send('{"type": "ping"}')
        assert until(ws, ("pong",)) == {"type": "pong"}


def test_running_out_of_file_descriptors_is_refused_gracefully(tmp_path: Path) -> None:
    """Before: at the open-files limit the server spun at 100% CPU writing a "Too many
    open files" traceback per accept. With 512 descriptors and 700 connections from one
    address (the per-address limit lifted), the excess is refused with a 503 and the
    log stays clean; once they close, the server serves again."""
    srv = LiveServer(tmp_path, ["--max-connections-per-client", "10000"], open_files=512)
    with srv:
        socks: list[socket.socket] = []
        try:
            for _ in range(700):
                socks.append(socket.create_connection(("127.0.0.1", srv.port), timeout=30))
            refused = 0
            for s in socks:
                s.setblocking(False)
                try:
                    data = s.recv(4096)
                except BlockingIOError:
                    continue
                except ConnectionResetError:
                    data = b"HTTP/1.1 503"
                if data.startswith(b"HTTP/1.1 503") or data == b"":
                    refused += 1
            assert refused > 0
        finally:
            for s in socks:
                s.close()
        time.sleep(0.5)
        still_serves(srv)
        assert srv.alive()
    assert bad_log_lines(srv.log) == [], srv.log[-3000:]


def _ws_frame(text: str) -> bytes:
    """A masked client text frame."""
    payload = text.encode()
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (
        bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
    )
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


@pytest.mark.parametrize(
    "live",
    [
        (
            "--max-outbox-bytes",
            "4096",
            # the joins must be read as they come (the rate is tested elsewhere)
            "--max-messages-per-second",
            "100000",
            "--max-bytes-per-second",
            "100000000",
        )
    ],
    indirect=True,
)
def test_a_reader_that_never_reads_is_disconnected_and_the_game_goes_on(
    live: LiveServer,
) -> None:
    """Before: a client that never read grew the server by 256 MB in 3 s."""
    game = new_game(live)
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.connect(("127.0.0.1", live.port))
    key = base64.b64encode(os.urandom(16)).decode()
    slow.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: {live.host}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += slow.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    join_frame = _ws_frame(
        json.dumps({"type": "join", "game": game["id"], "seat": "S", "token": game["token"]})
    )
    slow.settimeout(2)
    sent = 0
    try:
        for _ in range(20_000):  # each join answers the whole view; none is read
            slow.sendall(join_frame)
            sent += 1
    except (TimeoutError, OSError):
        pass  # the server stopped reading this socket: it dropped it
    # the game goes on for a client that reads
    with ws_connect(live) as ws:
        view = join(ws, game)
        assert view["type"] == "state"
        while not (view.get("view") and view["view"]["to_play"] == "S" and view["view"]["legal"]):
            view = json.loads(ws.recv(timeout=30))  # the bots play up to S's turn
        ws.send(json.dumps(view["view"]["legal"][0]))
        assert until(ws, ("ack", "error"))["type"] == "ack"
        until(ws, ("event",))
    # the slow socket got far fewer answers than it asked for, then the server's close
    slow.settimeout(30)
    data = b""
    while True:
        try:
            chunk = slow.recv(1 << 20)
        except (ConnectionResetError, TimeoutError):
            break
        if not chunk:
            break
        data += chunk
    slow.close()
    states = data.count(b'"type": "state"')
    assert states < sent, (states, sent)
