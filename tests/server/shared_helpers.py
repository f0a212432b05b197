"""Shared tables in tests: the server in process, each person or watcher a
:class:`whistkit.server.app.Connection` with its own outbox, driven on one event loop
(no sockets, no sleeps: bots of level beginner or club choose on the loop)."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from whistkit.server import shared
from whistkit.server.app import Connection, Server
from whistkit.server.limits import Outbox
from whistkit.server.table import Table, choose
from whistkit.state import Action, View

from .helpers import has_view


async def inline_think(level: str, view: View, seed: int) -> Action:
    """Bots choose on the event loop (beginner and club take well under a millisecond)."""
    return choose(level, view, seed)


def make_server(db: Path, turn_scale: float = 1.0) -> Server:
    """A server on ``db`` whose bots choose at once on the loop; its commits skip the
    disk's flush (a test's database need not survive a power cut, and a whole game
    then takes a third of the time)."""
    server = Server(db, 0.0, 1000, think=inline_think, turn_scale=turn_scale, idle_seconds=3600)
    server.store._writer_db.execute("PRAGMA synchronous=OFF")  # before anything is written
    return server


class Client:
    """One person's or watcher's connection and everything it was sent."""

    def __init__(self, server: Server, name: str = "") -> None:
        self.server = server
        self.name = name
        self.out = Outbox(64 * 1024 * 1024)
        self.conn = Connection(server.tables, self.out)
        self.conn.base = "http://127.0.0.1:8000/"
        self.log: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None
        self.v = 0
        self.acted_at = -1
        self.seat: str | None = None

    def drain(self) -> list[dict[str, Any]]:
        """The messages that came since the last drain (kept in :attr:`log`)."""
        new = []
        while not self.out.empty():
            msg = self.out.get_nowait()
            self.out.task_done()
            new.append(msg)
            self.log.append(msg)
            if has_view(msg):
                self.view, self.v = msg["view"], msg["v"]
        return new

    async def send(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        """Send a message; what came back meanwhile (the answer included)."""
        await self.conn.handle(json.dumps(msg))
        return self.drain()

    async def ask(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send a message; its answer (``ack``, ``state`` or ``error``)."""
        for m in reversed(await self.send(msg)):
            if m["type"] in ("ack", "error", "state", "pong"):
                return m
        raise AssertionError(f"no answer to {msg}")

    async def join(
        self, game: str, seat: str, token: str, since: int = 0, name: str | None = None
    ) -> dict[str, Any]:
        msg: dict[str, Any] = {
            "type": "join",
            "game": game,
            "seat": seat,
            "token": token,
            "since": since,
        }
        if name is not None:
            msg["name"] = name
        answer = await self.ask(msg)
        if answer["type"] != "error":
            self.seat = seat
        return answer

    async def watch(self, game: str, token: str, since: int = 0) -> dict[str, Any]:
        return await self.ask({"type": "watch", "game": game, "token": token, "since": since})

    def seats(self) -> dict[str, Any]:
        """The latest ``seats`` message."""
        return next(m for m in reversed(self.log) if m["type"] == "seats")

    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.log if m["type"] == "error"]


async def new_table(
    server: Server, deals: int | None = 1, **body: Any
) -> tuple[shared.SharedTable, dict[str, Any]]:
    """A shared table made as ``POST /api/tables`` makes it, and that answer. A shared
    table's deals come from the operating system; here, for a test that must not depend
    on luck, they come from ``random.Random(deals)`` and its bots' randomness from a
    fixed secret (the table is not marked as seeded: nothing else changes)."""
    new = shared.read_new_table({"level": "beginner", "name": "Host", **body}, "beginner")
    if deals is None:
        table = await shared.create(server.tables, new)
    else:
        real = secrets.SystemRandom
        secrets.SystemRandom = lambda: random.Random(deals)  # type: ignore[assignment,misc]
        try:
            table = await shared.create(server.tables, new)
        finally:
            secrets.SystemRandom = real  # type: ignore[misc]
        table.secret = bytes(32)
    return table, shared.created_json(table, "http://127.0.0.1:8000/")


async def settle(rounds: int = 20) -> None:
    """Let the loop run the bots' tasks and the store's answers a while."""
    for _ in range(rounds):
        await asyncio.sleep(0)
    await asyncio.sleep(0.001)


async def play_out(
    table: Table,
    people: list[Client],
    watchers: list[Client],
    rng: random.Random,
    until: Callable[[Table], bool] | None = None,
    choose_action: Callable[[Client, dict[str, Any]], Awaitable[dict[str, Any] | None]]
    | None = None,
    steps: int = 200_000,
    stale_ok: bool = False,
) -> None:
    """Every person plays a random lawful action (with the version it saw) whenever its
    latest view says it is to act, until the game is over (or ``until``). With
    ``stale_ok`` an action refused as stale is let go (a stand-in acted first: the table
    has a turn time)."""
    for _ in range(steps):
        for c in people + watchers:
            c.drain()
        if table.state.is_over or (until is not None and until(table)):
            # the last action is applied before it is stored and published: wait for it
            while table.busy:
                await settle(2)
            await settle()
            for c in people + watchers:
                c.drain()
            return
        acted = False
        for c in people:
            view = c.view
            if (
                view is None
                or view["to_play"] != c.seat
                or not view["legal"]
                or c.v <= c.acted_at
                or c.v != table.version
            ):
                continue
            msg = None if choose_action is None else await choose_action(c, view)
            if msg is None:
                msg = dict(rng.choice(view["legal"]))
            msg["v"] = c.v
            c.acted_at = c.v
            answer = await c.ask(msg)
            if not (stale_ok and answer.get("code") == "stale"):
                assert answer["type"] == "ack", (answer, msg)
            acted = True
        if not acted:
            await settle(2)
    raise AssertionError("the game did not end")
