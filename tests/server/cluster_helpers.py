"""Several real ``whistkit play`` processes on one private PostgreSQL and one Redis, and
players whose sockets land on a random process (again at each reconnect): the tests of
issue 31 (docs/deploy.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from .liveserver import LiveServer, bad_log_lines

NGINX_CONF = """
worker_processes 1;
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 512; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    upstream whistkit {{
        hash $arg_game consistent;
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://whistkit;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_read_timeout 1h;
            add_header X-Upstream $upstream_addr always;
        }}
    }}
}}
"""


@contextlib.contextmanager
def nginx(prefix: Path, servers: list[LiveServer], port: int = 0) -> Iterator[str]:
    """nginx in front of ``servers`` (``hash $arg_game consistent``, as docs/deploy.md
    has it), on ``port`` (0: a free one) of 127.0.0.1: its ``host:port``; stopped
    afterwards."""
    from services import _wait_port, free_port

    exe = shutil.which("nginx") or "/usr/sbin/nginx"
    prefix.mkdir()
    port = port or free_port()
    conf = prefix / "nginx.conf"
    lines = "\n".join(f"        server 127.0.0.1:{s.port};" for s in servers)
    conf.write_text(NGINX_CONF.format(prefix=prefix, servers=lines, port=port))
    proc = subprocess.Popen([exe, "-p", str(prefix), "-c", str(conf)])
    try:
        _wait_port(port, "nginx")
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


# a socket that hears nothing for this long (pings unanswered) is taken for dead: a
# stopped process keeps its sockets open, and only silence shows it
SILENCE = 3.0


@contextlib.contextmanager
def cluster(
    tmp: Path,
    db: str,
    bus: str,
    count: int = 3,
    env: dict[str, str] | None = None,
    args: tuple[str, ...] = (),
) -> Iterator[list[LiveServer]]:
    """``count`` server processes on ``db`` and ``bus`` (with more ``args`` of
    ``whistkit play``), stopped afterwards."""
    servers: list[LiveServer] = []
    try:
        for i in range(count):
            folder = tmp / f"server{i}"
            folder.mkdir()
            server = LiveServer(folder, ["--bus", bus, *args], env=env)
            server.db = db  # type: ignore[assignment]
            servers.append(server.start())
        yield servers
    finally:
        for server in servers:
            with contextlib.suppress(Exception):
                server.proc.send_signal(18)  # type: ignore[union-attr]  # SIGCONT
            server.stop()


def clean_logs(servers: list[LiveServer]) -> None:
    for server in servers:
        bad = [line for line in bad_log_lines(server.log) if "lease" not in line]
        assert not bad, bad


def owner_of(bus: str, game: str, servers: list[LiveServer]) -> LiveServer | None:
    """The process that holds the game's lease now (its node name carries its pid)."""
    client = redis.Redis.from_url(bus)
    try:
        value = client.get(f"wk:lease:{game}")
    finally:
        client.close()
    if value is None:
        return None
    node = value.decode().rsplit("|", 1)[0]
    for server in servers:
        assert server.proc is not None
        if f"-{server.proc.pid}-" in node:
            return server
    raise AssertionError(f"the lease is held by {node}, none of the servers")


def new_game(server: LiveServer, variant: str, options: dict[str, Any] | None = None) -> Any:
    body = {"variant": variant, "options": options or {}, "level": "club"}
    r = httpx.post(server.url + "api/games", json=body, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def new_table(server: LiveServer, body: dict[str, Any]) -> Any:
    r = httpx.post(server.url + "api/tables", json=body, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


@dataclass
class Player:
    """A person at ``seat`` of ``game``: plays a legal action whenever it may, on a
    socket to a random live process, and moves to another one now and then (or when its
    socket closes or falls silent)."""

    servers: list[LiveServer]
    game: str
    seat: str
    token: str
    rng: random.Random
    name: str | None = None
    moves: tuple[int, int] = (3, 25)  # messages between two moves to another process
    version: int = 0
    view: dict[str, Any] | None = None
    acked: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    reconnects: int = 0
    unanswered: int = 0  # actions that got no answer (the socket was then moved)
    paused: asyncio.Event = field(default_factory=asyncio.Event)
    history: list[tuple[float, str, int]] = field(default_factory=list)  # (time, port, v)

    def alive(self) -> list[LiveServer]:
        return [s for s in self.servers if s.alive() and not getattr(s, "stopped", False)]

    async def _open(self) -> tuple[ClientConnection, LiveServer]:
        while True:
            server = self.rng.choice(self.alive())
            try:
                ws = await connect(f"{server.ws_url}?game={self.game}", open_timeout=5)
            except (OSError, TimeoutError, ConnectionClosed, Exception):
                await asyncio.sleep(0.2)
                continue
            join: dict[str, Any] = {
                "type": "join",
                "game": self.game,
                "seat": self.seat,
                "token": self.token,
                "since": self.version,
            }
            if self.name is not None:
                join["name"] = self.name
            await ws.send(json.dumps(join))
            return ws, server

    async def play(self, done: Callable[[Player], bool], seconds: float = 300) -> None:
        """Play until ``done(self)`` (checked at each view) or the game ends."""
        deadline = time.monotonic() + seconds
        pending: dict[str, Any] | None = None  # the action sent, not yet answered
        sent = 0.0
        while time.monotonic() < deadline:
            ws, server = await self._open()
            self.reconnects += 1
            budget = self.rng.randint(*self.moves)
            try:
                while budget > 0 and time.monotonic() < deadline:
                    if pending is not None and time.monotonic() - sent > SILENCE:
                        self.unanswered += 1
                        break  # an action with no answer: look again from elsewhere
                    try:
                        raw = await asyncio.wait_for(ws.recv(), SILENCE / 2)
                    except TimeoutError:
                        await ws.send('{"type": "ping"}')
                        raw = await asyncio.wait_for(ws.recv(), SILENCE / 2)
                    msg = json.loads(raw)
                    budget -= 1
                    kind = msg["type"]
                    if kind in ("event", "state") and msg.get("v") is not None:
                        self.version = max(self.version, msg["v"]) if kind == "event" else msg["v"]
                    if kind == "ack" and pending is not None:
                        self.acked.append((msg["v"], pending))
                        pending = None
                    elif kind == "error":
                        self.errors.append(msg)
                        pending = None
                    if "view" in msg:
                        self.view = msg["view"]
                        self.history.append((time.monotonic(), server.host, self.version))
                        if done(self) or self.view["winner"]:
                            return
                    # act on the latest view once the last action is answered (its own
                    # event, with the next view, comes before its ack)
                    view = self.view
                    if (
                        view is not None
                        and pending is None
                        and not self.paused.is_set()
                        and view["to_play"] == self.seat
                        and view["legal"]
                    ):
                        action = self.rng.choice(view["legal"])
                        pending = action
                        sent = time.monotonic()
                        await ws.send(json.dumps({**action, "v": self.version}))
                        budget = max(budget, 2)  # wait for its answer here
            except (ConnectionClosed, TimeoutError, OSError):
                pass
            finally:
                pending = None  # unanswered: the state after joining again tells
                with contextlib.suppress(Exception):
                    await ws.close()
        raise AssertionError(
            f"{self.seat} did not finish in {seconds} s: {self.view}; errors {self.errors[-5:]},"
            f" {self.reconnects} connections, {self.unanswered} unanswered, last"
            f" {self.history[-5:]}"
        )


def actions_in_store(db: str, game: str) -> list[str]:
    from whistkit.server.database import open_store

    store = open_store(db)
    try:
        return store.actions(game)
    finally:
        store.close()


def check_acked(db: str, game: str, players: list[Player]) -> Any:
    """Every action a player had acknowledged is in the stored log, once, in order; the
    log replays to a table (every action legal, no gap, none twice). The table."""
    from whistkit.server.database import open_store
    from whistkit.server.shared import SharedTable
    from whistkit.server.table import event_public

    store = open_store(db)
    try:
        row = store.get(game)
        assert row is not None
        table, _ = SharedTable.load(store, row)
    finally:
        store.close()
    assert table.version == row.version
    plays = [
        (e[0], pub["seat"], pub["card"])
        for e in table.events
        if (pub := event_public(e)) is not None and pub.get("type") == "play"
    ]
    for player in players:
        last = 0
        for acked_v, action in player.acked:
            if action.get("type") != "play":
                continue
            # the ack carries the version right after the action's own events (a hand's
            # end, the next deal): the last card played by then is the acknowledged one
            v, seat, card = [p for p in plays if p[0] <= acked_v][-1]
            assert (seat, card) == (player.seat, action["card"]), (acked_v, action, v)
            assert v > last, (player.seat, acked_v, action, v, last)  # once, in order
            last = v
    return table
