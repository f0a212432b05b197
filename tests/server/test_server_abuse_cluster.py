"""Issue 32, items 14-16 with several server processes on one PostgreSQL and one Redis:
the bounds on new games hold for all the processes together (kept in Redis), and a
socket relayed to another process is rated and timed by the process it is connected to.
Real ``whistkit play`` processes, a private PostgreSQL and a private Redis."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import httpx
import pytest

from .cluster_helpers import clean_logs, cluster, new_game, owner_of

pytestmark = pytest.mark.slow


def test_the_rate_of_new_games_is_shared_by_the_processes(
    tmp_path: Path, db: str, bus: str
) -> None:
    """A burst of two new games a minute (--new-games-per-minute 1) from one address, in
    all: the third is refused by whichever process it comes to."""
    env = {"WHISTKIT_NEW_GAMES_PER_MINUTE": "1"}
    with cluster(tmp_path, db, bus, 2, env) as servers:
        new_game(servers[0], "felagsvist")
        new_game(servers[1], "felagsvist")
        for server in servers:
            r = httpx.post(server.url + "api/games", json={}, timeout=30)
            assert r.status_code == 429, r.text
            assert "--new-games-per-minute" in r.json()["error"]
        clean_logs(servers)


def test_unfinished_games_per_address_are_counted_by_all_the_processes(
    tmp_path: Path, db: str, bus: str
) -> None:
    env = {"WHISTKIT_MAX_LIVE_GAMES_PER_CLIENT": "2"}
    with cluster(tmp_path, db, bus, 2, env) as servers:
        new_game(servers[0], "felagsvist")
        new_game(servers[1], "felagsvist")
        for server in servers:
            r = httpx.post(server.url + "api/games", json={}, timeout=30)
            assert r.status_code == 429, r.text
            assert "--max-live-games-per-client" in r.json()["error"]
        clean_logs(servers)


def test_a_relayed_socket_is_rated_and_timed_where_it_is_connected(
    tmp_path: Path, db: str, bus: str
) -> None:
    """A socket on the process that does not own its table: its messages are read at
    --max-messages-per-second there, and it is closed when it goes silent."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    env = {"WHISTKIT_MAX_MESSAGES_PER_SECOND": "5", "WHISTKIT_IDLE_TIMEOUT": "3"}
    with cluster(tmp_path, db, bus, 2, env) as servers:
        game = new_game(servers[0], "felagsvist")
        join = {"type": "join", "game": game["id"], "seat": "S", "token": game["token"]}

        async def main() -> None:
            async with connect(servers[0].ws_url) as owner_ws:
                await owner_ws.send(json.dumps(join))  # the table is now servers[0]'s
                assert json.loads(await owner_ws.recv())["type"] == "state"
            assert owner_of(bus, game["id"], servers) is servers[0]
            async with connect(servers[1].ws_url) as ws:  # relayed to servers[0]
                await ws.send(json.dumps(join))
                while json.loads(await ws.recv())["type"] != "state":
                    pass
                start = time.monotonic()
                for _ in range(100):
                    await ws.send('{"type": "ping"}')
                pongs = 0
                end = start + 2.0
                while (left := end - time.monotonic()) > 0:
                    try:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), left))
                    except TimeoutError:
                        break
                    pongs += msg["type"] == "pong"
                elapsed = time.monotonic() - start
                # the burst (10, less the join) and 5 a second
                assert 5 <= pongs <= 10 + 5 * elapsed + 1, (pongs, elapsed)
                # then silent: the rest of the pings are read, and 3 s later it is closed
                with pytest.raises(ConnectionClosed) as closed:
                    while True:
                        await asyncio.wait_for(ws.recv(), 60)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001

        asyncio.run(main())
        clean_logs(servers)
