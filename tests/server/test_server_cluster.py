"""Several server processes on one PostgreSQL and one Redis (issue 31): whole games of
every variant with each socket on a random process, a killed owner's table taken over,
and a stopped owner fenced off. Real ``whistkit play`` processes, a private PostgreSQL
and a private Redis (Debian's packages, free ports); no mocks."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from whistkit.record import loads, replay

from .cluster_helpers import (
    Player,
    actions_in_store,
    check_acked,
    clean_logs,
    cluster,
    new_game,
    new_table,
    owner_of,
)

pytestmark = pytest.mark.slow

GAMES = [
    ("felagsvist", {}),
    ("swedish", {}),
    ("english", {}),
    ("american", {}),
    ("english", {"play_mode": "laws"}),
]


def test_three_processes_play_whole_games_of_every_variant(
    tmp_path: Path, db: str, bus: str
) -> None:
    rng = random.Random(31)
    with cluster(tmp_path, db, bus, 3) as servers:
        games = [new_game(rng.choice(servers), v, o) for v, o in GAMES]
        # and a shared table: two people (on sockets of their own) and two bots
        table = new_table(
            rng.choice(servers),
            {"variant": "felagsvist", "seats": {"N": "person"}, "level": "club", "name": "Ann"},
        )
        players = [
            Player(servers, g["id"], "S", g["token"], random.Random(i)) for i, g in enumerate(games)
        ]
        host = Player(servers, table["game"], "S", table["token"], random.Random(90), "Ann")
        friend = Player(servers, table["game"], "N", table["tokens"]["N"], random.Random(91), "Bo")

        async def main() -> None:
            await asyncio.gather(
                *(p.play(lambda p: False, seconds=600) for p in [*players, host, friend])
            )

        asyncio.run(main())
        ports = {h for p in players for _, h, _ in p.history}
        assert len(ports) == 3  # the sockets landed on every process
        assert all(p.reconnects > 3 for p in players)
        for player in [*players, host]:
            game = player.game
            r = httpx.get(rng.choice(servers).url + f"api/games/{game}/record", timeout=30)
            assert r.status_code == 200, r.text
            record = r.text
            table_now = check_acked(db, game, [player] + ([friend] if player is host else []))
            # the action log equals the finished record: the same game replayed
            assert table_now.state.is_over
            assert replay(loads(record)).actions() == table_now.state.actions()
            assert loads(record) == loads(table_now.record_json())
        # the shared table's summary, from its owner and, relayed, from the others
        summaries = [
            httpx.get(s.url + f"api/tables/{table['game']}?t={table['token']}", timeout=10)
            for s in servers
        ]
        assert [r.status_code for r in summaries] == [200, 200, 200]
        assert all(r.json()["finished"] and r.json()["you"] == "S" for r in summaries)
        wrong = httpx.get(servers[1].url + f"api/tables/{table['game']}?t=nope", timeout=10)
        assert wrong.status_code == 404
        clean_logs(servers)


def _shared_table(servers: list[Any], rng: random.Random) -> tuple[Any, Player, Player]:
    table = new_table(
        servers[0],
        {
            "variant": "felagsvist",
            "seats": {"N": "person"},
            "level": "club",
            "name": "Ann",
            "timeout": 0,
        },
    )
    ann = Player(servers, table["game"], "S", table["token"], random.Random(1), "Ann", (1000, 1000))
    bo = Player(
        servers, table["game"], "N", table["tokens"]["N"], random.Random(2), "Bo", (1000, 1000)
    )
    return table, ann, bo


def test_a_killed_owner_s_table_goes_on_elsewhere(tmp_path: Path, db: str, bus: str) -> None:
    env = {"WHISTKIT_BOT_DELAY": "0.05"}
    with cluster(tmp_path, db, bus, 3, env) as servers:
        table, ann, bo = _shared_table(servers, random.Random(5))
        game = table["game"]

        async def main() -> tuple[float, int, int]:
            # play into the first hand, then kill the owner mid-hand
            played = asyncio.gather(
                ann.play(lambda p: p.version >= 25), bo.play(lambda p: p.version >= 25)
            )
            await played
            owner = owner_of(bus, game, servers)
            assert owner is not None
            before = max(ann.version, bo.version)
            hand = ann.view["hand_number"] if ann.view else 0
            killed = time.monotonic()
            assert owner.proc is not None
            owner.proc.send_signal(signal.SIGKILL)
            owner.proc.wait()
            # both people play on, from wherever their sockets land
            await asyncio.gather(
                ann.play(lambda p: p.version >= before + 30),
                bo.play(lambda p: p.version >= before + 30),
            )
            taken = min(t for t, _, v in ann.history + bo.history if t > killed)
            new_owner = owner_of(bus, game, servers)
            assert new_owner is not None and new_owner is not owner
            # the same card: each person's first view after the kill is at the version
            # they had (nothing acknowledged was lost), in the same hand
            for person in (ann, bo):
                first = min((t, v) for t, _, v in person.history if t > killed)
                assert first[1] >= before, (first, before)
            return taken - killed, before, hand

        took, _before, _hand = asyncio.run(main())
        assert took < 10, f"the table was served again {took:.1f} s after the kill"
        check_acked(db, game, [ann, bo])
        clean_logs([s for s in servers if s.alive()])


def test_a_stopped_owner_is_fenced_off(tmp_path: Path, db: str, bus: str) -> None:
    env = {"WHISTKIT_BOT_DELAY": "0.3"}
    with cluster(tmp_path, db, bus, 3, env) as servers:
        table, ann, bo = _shared_table(servers, random.Random(6))
        game = table["game"]

        async def main() -> None:
            await asyncio.gather(
                ann.play(lambda p: p.version >= 20), bo.play(lambda p: p.version >= 20)
            )
            owner = owner_of(bus, game, servers)
            assert owner is not None and owner.proc is not None
            # a watcher whose socket stays on the stopped owner: it must hear nothing
            # from it once it is let go on
            from websockets.asyncio.client import connect

            watcher = await connect(owner.ws_url)
            await watcher.send(
                f'{{"type": "watch", "game": "{game}", "token": "{table["watch_token"]}"}}'
            )
            await asyncio.sleep(0.5)
            owner.proc.send_signal(signal.SIGSTOP)
            owner.stopped = True  # type: ignore[attr-defined]
            stopped_at = max(ann.version, bo.version)
            try:
                # the lease lapses; another process takes the table; play goes on
                await asyncio.gather(
                    ann.play(lambda p: p.version >= stopped_at + 20),
                    bo.play(lambda p: p.version >= stopped_at + 20),
                )
                new_owner = owner_of(bus, game, servers)
                assert new_owner is not None and new_owner is not owner
                heard_before = []
                while True:  # what the watcher got before the stop
                    try:
                        heard_before.append(await asyncio.wait_for(watcher.recv(), 0.2))
                    except TimeoutError:
                        break
                logged = len(actions_in_store(db, game))
            finally:
                owner.proc.send_signal(signal.SIGCONT)
                owner.stopped = False  # type: ignore[attr-defined]
            # the old owner wakes: nothing it does reaches the store or any client
            heard_after: list[Any] = []
            closed = None
            try:
                while True:
                    heard_after.append(await asyncio.wait_for(watcher.recv(), 8))
            except Exception as e:  # the socket is closed by the old owner
                closed = e
            assert heard_after == [], heard_after[:3]
            assert getattr(closed, "rcvd", None) is not None and closed.rcvd.code == 1012  # type: ignore[union-attr]
            await asyncio.gather(
                ann.play(lambda p: p.version >= stopped_at + 40),
                bo.play(lambda p: p.version >= stopped_at + 40),
            )
            assert len(actions_in_store(db, game)) > logged
            assert owner_of(bus, game, servers) is not owner
            assert f"the lease of game {game} was lost" in owner.log

        asyncio.run(main())
        check_acked(db, game, [ann, bo])


def test_a_relayed_socket_meets_the_same_checks_and_limits(
    tmp_path: Path, db: str, bus: str
) -> None:
    """A socket on a process that does not own its table is checked as any: its frames
    by its own process's limit, its messages by the owner's schema, its seat by the
    owner's tokens."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    with cluster(tmp_path, db, bus, 2, {"WHISTKIT_MAX_FRAME_BYTES": "4096"}) as servers:
        game = new_game(servers[0], "felagsvist")
        join = {"type": "join", "game": game["id"], "seat": "S", "token": game["token"]}

        async def main() -> None:
            async with connect(f"{servers[0].ws_url}?game={game['id']}") as owner_ws:
                await owner_ws.send(json.dumps(join))  # the table is now servers[0]'s
                assert json.loads(await owner_ws.recv())["type"] == "state"
                assert owner_of(bus, game["id"], servers) is servers[0]
            async with connect(servers[1].ws_url) as ws:  # relayed to servers[0]
                await ws.send(json.dumps({**join, "token": "wrong"}))
                reply = json.loads(await ws.recv())
                assert reply["type"] == "error" and reply["code"] == "forbidden"
                await ws.send(json.dumps(join))
                assert json.loads(await ws.recv())["type"] == "state"
                await ws.send('{"type": "play", "card": "XX"}')
                reply = json.loads(await ws.recv())
                assert reply["code"] == "malformed" and "XX" in reply["message"]
                await ws.send('{"type": "play", "card": "QH", "extra": 1}')
                assert json.loads(await ws.recv())["code"] == "malformed"
                await ws.send(json.dumps({"type": "chat", "text": "x" * 5000}))
                with pytest.raises(ConnectionClosed) as closed:
                    await asyncio.wait_for(ws.recv(), 10)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
            assert owner_of(bus, game["id"], servers) is servers[0]

        asyncio.run(main())
        clean_logs(servers)
