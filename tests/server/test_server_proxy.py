"""Sticky routing at the proxy (issue 31, docs/deploy.md): nginx in front of two server
processes, ``hash $arg_game consistent``, so that every socket of a game lands on the
process that owns it (the page's WebSocket URL carries ``?game=ID``). Real nginx, real
processes, a private PostgreSQL and Redis."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from .cluster_helpers import cluster, new_game, nginx, owner_of
from .liveserver import LiveServer

pytestmark = pytest.mark.slow


@pytest.fixture
def nginx_for(tmp_path: Path) -> Iterator[Any]:
    with contextlib.ExitStack() as stack:
        yield lambda servers: stack.enter_context(nginx(tmp_path / "nginx", servers))


def test_nginx_routes_every_socket_of_a_game_to_its_owner(
    tmp_path: Path, postgres: Any, redis_server: Any, nginx_for: Any
) -> None:
    db = postgres.fresh_database("proxy")
    with cluster(tmp_path, db, redis_server.url, 2) as servers:
        proxy = nginx_for(servers)
        by_port = {s.port: s for s in servers}
        front = LiveServer(tmp_path)  # only its URL helpers: the proxy's address
        front.port = int(proxy.split(":")[1])
        games = [new_game(front, "felagsvist") for _ in range(16)]

        async def play(game: dict[str, Any]) -> str:
            """Join through the proxy, play three cards; the upstream it was sent to."""
            r = httpx.get(f"http://{proxy}/api/meta?game={game['id']}", timeout=10)
            upstream = r.headers["x-upstream"]
            async with connect(f"ws://{proxy}/ws?game={game['id']}") as ws:
                join = {"type": "join", "game": game["id"], "seat": "S", "token": game["token"]}
                await ws.send(json.dumps(join))
                played = 0
                view: dict[str, Any] | None = None
                pending = False  # a card sent, its ack not yet come
                while played < 3:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
                    assert msg["type"] != "error", msg
                    view = msg.get("view", view)
                    if msg["type"] == "ack":
                        played += 1
                        pending = False
                    # act on the latest view once the last card is answered: its own
                    # event, with the next view, comes before its ack
                    if view and view["to_play"] == "S" and view["legal"] and not pending:
                        pending = True
                        await ws.send(json.dumps({**view["legal"][0], "v": msg["v"]}))
            return str(upstream)

        async def main() -> list[str]:
            return await asyncio.gather(*(play(g) for g in games))

        upstreams = asyncio.run(main())
        for game, upstream in zip(games, upstreams, strict=True):
            owner = owner_of(redis_server.url, game["id"], servers)
            # the socket landed where the table lives: nothing was relayed
            assert owner is by_port[int(upstream.rsplit(":", 1)[1])], (game["id"], upstream)
        assert len(set(upstreams)) == 2  # and the games are spread over both
