"""kill -9 under load (issue 18): 20 games in play, the server killed mid-play and
restarted on the same database; no acknowledged action is lost and every game goes on
with its event numbers unbroken."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from whistkit.cards import parse_card
from whistkit.server.log import loads_action

pytestmark = pytest.mark.timeout(300)

GAMES = 20
SERVER = """
import sys
from whistkit.server import serve
def ready(where):
    print(where.port, flush=True)
serve(sys.argv[1], host="127.0.0.1", port=0, bot_delay=0.0, ready=ready)
"""


def start_server(db: Path) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(db)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip(), "the server did not start"
    port = int(line)
    for _ in range(500):  # bound, and serving once it answers
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/meta", timeout=5).raise_for_status()
            break
        except httpx.HTTPError:
            time.sleep(0.02)
    return proc, port


@dataclass
class Game:
    id: str
    token: str
    acked: list[tuple[int, str]] = field(default_factory=list)  # (version, card)
    versions: list[int] = field(default_factory=list)  # event numbers seen, in order
    last: int = 0  # the last version seen


async def play(
    port: int, game: Game, since: int, until_acks: int, after: list[Any], killed: bool = False
) -> None:
    """Play S in ``game`` from version ``since`` until it has ``until_acks`` acks (or,
    when the server is to be ``killed``, the socket drops); ``after`` gets the join's
    first answers."""
    join = {"type": "join", "game": game.id, "seat": "S", "token": game.token, "since": since}
    pending: str | None = None
    latest: dict[str, Any] = {}
    try:
        async with connect(f"ws://127.0.0.1:{port}/ws", compression=None) as ws:
            await ws.send(json.dumps(join))
            joined = False
            while len(game.acked) < until_acks:
                msg = json.loads(await ws.recv())
                if not joined:
                    after.append(msg)
                assert msg["type"] != "error", msg
                if msg["type"] == "ack":
                    assert pending is not None
                    game.acked.append((msg["v"], pending))
                    pending = None
                    msg = latest  # the view that came before the ack may be S's turn
                elif msg["type"] == "event":
                    game.versions.append(msg["v"])
                    game.last = msg["v"]
                elif msg["type"] == "state":
                    joined = True
                    game.last = msg["v"]
                if "view" in msg:
                    latest = msg
                view = msg.get("view")
                if view is None or view["winner"] or pending is not None:
                    continue
                if view["to_play"] == "S" and view["legal"] and msg["v"] == game.last:
                    action = view["legal"][0]
                    pending = action["card"]
                    await ws.send(json.dumps({**action, "v": msg["v"]}))
    except Exception as e:
        if not killed:
            raise
        if not isinstance(e, OSError | EOFError) and "ConnectionClosed" not in type(e).__name__:
            raise


async def first_run(port: int, games: list[Game], proc: subprocess.Popen[str]) -> None:
    tasks = [asyncio.create_task(play(port, g, 0, 10**6, [], killed=True)) for g in games]
    # kill -9 once every game has had a few actions acknowledged, in the middle of play
    while min(len(g.acked) for g in games) < 4:
        await asyncio.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    await asyncio.wait_for(asyncio.gather(*tasks), 60)


def test_kill_9_under_load_loses_no_acknowledged_action(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    proc, port = start_server(db)
    try:
        games = []
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
            for _ in range(GAMES):
                body = http.post("/api/games", json={"level": "club"}).json()
                games.append(Game(body["id"], body["token"]))
        asyncio.run(first_run(port, games, proc))
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert sum(len(g.acked) for g in games) >= 4 * GAMES
    # the database after the kill: every acknowledged card is in its game's log
    with sqlite3.connect(db) as con:
        for g in games:
            logged = [
                loads_action(a)
                for (a,) in con.execute(
                    "SELECT action FROM actions WHERE game = ? ORDER BY seq", (g.id,)
                )
            ]
            for _, card in g.acked:
                assert parse_card(card) in logged, (g.id, card)
    proc, port = start_server(db)
    try:
        answers: dict[str, list[Any]] = {g.id: [] for g in games}
        seen_before = {g.id: g.last for g in games}
        acked_before = {g.id: max(v for v, _ in g.acked) for g in games}
        versions_before = {g.id: len(g.versions) for g in games}

        async def second_run() -> None:
            await asyncio.gather(
                *(play(port, g, g.last, len(g.acked) + 3, answers[g.id]) for g in games)
            )

        asyncio.run(asyncio.wait_for(second_run(), 120))
    finally:
        proc.terminate()
        proc.wait(10)
    for g in games:
        state = next(m for m in answers[g.id] if m["type"] == "state")
        # the restarted server is at or past every version the client saw or was acked
        assert state["v"] >= seen_before[g.id] >= acked_before[g.id]
        # the events after the reconnection continue the ones before, without a gap
        after = g.versions[versions_before[g.id] :]
        assert after == list(range(seen_before[g.id] + 1, seen_before[g.id] + 1 + len(after)))
        # and the game went on: three more actions acknowledged after the restart
        assert len(g.acked) >= 7
        assert [v for v, _ in g.acked] == sorted(v for v, _ in g.acked)
