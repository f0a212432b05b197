"""Online evenings (issue 34, docs/online.md): a restart in the middle of an evening, the
open join link and the prizes chosen by the host.

The restarts use a real ``whistkit play`` in a subprocess (tests/server/liveserver.py),
stopped and started again on the same SQLite file; what the restarted server did is read
from the file itself, without asking the server about the evening (asking would take it
up again by itself)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
import urllib.request
from pathlib import Path
from typing import Any

from whistkit.server import online
from whistkit.server.shared import SharedTable

from .liveserver import LiveServer
from .shared_helpers import make_server, settle

NAMES = ["Anna", "Bjarni", "Dóra", "Einar", "Fríða", "Gunnar", "Helga", "Ingi"]


def body(**extra: Any) -> dict[str, Any]:
    players = [{"name": n, "group": "A" if i % 2 == 0 else "B"} for i, n in enumerate(NAMES)]
    return {
        "title": "Test evening",
        "hands": 2,
        "players": players,
        "seconds_per_hand": 60,
        "level": "beginner",
        **extra,
    }


def post(url: str, data: Any) -> Any:
    request = urllib.request.Request(
        url, json.dumps(data).encode(), {"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def stored(db: Path, evening_id: str) -> online.OnlineEvening:
    """The evening's state as the file holds it now."""
    with sqlite3.connect(db) as con:
        row = con.execute(
            "SELECT state FROM online_evenings WHERE id = ?", (evening_id,)
        ).fetchone()
    return online.OnlineEvening.from_json(row[0])


def wait_for(db: Path, evening_id: str, done: Any, seconds: float = 60) -> online.OnlineEvening:
    """The stored state once ``done(state)`` holds (bounded: a server that never does it
    fails the test after ``seconds``, whatever the machine's speed up to that)."""
    deadline = time.monotonic() + seconds
    while True:
        ev = stored(db, evening_id)
        if done(ev) or time.monotonic() > deadline:
            return ev
        time.sleep(0.05)


def test_a_restart_resumes_the_hands_clock(tmp_path: Path) -> None:
    """The first server makes the evening and stops with hand 1 in play; the second
    starts with the hand's time long past (its time scaled down) and, asked nothing,
    has stand-ins finish hand 1 and seats hand 2."""
    first = LiveServer(tmp_path).start()
    try:
        made = post(first.url + "api/online-evenings", body())
    finally:
        first.stop()
    before = stored(first.db, made["id"])
    assert before.in_play() == 1 and before.evening.results == ()
    # 60 s a hand, scaled: 0.06 s, long past since hand 1 was seated
    second = LiveServer(tmp_path, env={"WHISTKIT_TURN_TIME_SCALE": "0.001"}).start()
    try:
        after = wait_for(first.db, made["id"], lambda ev: len(ev.hands) >= 2)
    finally:
        second.stop()
    assert len(after.hands) >= 2, "the restarted server did not take the evening up"
    assert after.hands[0].finishing
    assert sorted(r.table for r in after.evening.results if r.hand == 1) == [1, 2]


def test_a_table_over_without_its_result_gets_it_at_restart(tmp_path: Path) -> None:
    """Table 1 of hand 1 ends while its result does not reach the evening (the server
    stops in between: here its hook is off); the next server, asked nothing, records
    it from the table's own game, and hand 1 goes on at table 2."""
    db = tmp_path / "games.sqlite3"
    server = make_server(db, turn_scale=1.0)
    made: dict[str, Any] = {}

    async def main() -> None:
        server.tables.on_over = None  # the result never reaches the evening
        ev = await server.evenings.create(online.read_new_evening(body(), "beginner"))
        made["id"] = ev.id
        game = ev.hands[0].games[0]
        table = server.tables.loaded(game)
        assert isinstance(table, SharedTable) and table.shared is not None
        table.shared.finish = True  # stand-ins play it to the end
        await table._save()
        table.wake_bots()
        for _ in range(10_000):
            if table.state.is_over:
                break
            await settle()
        assert table.state.is_over
        made["tricks"] = table.state.results[-1].tricks[0]
        await server.close()

    asyncio.run(main())
    assert stored(db, made["id"]).evening.results == ()
    with LiveServer(tmp_path):
        after = wait_for(db, made["id"], lambda ev: bool(ev.evening.results))
    assert [(r.hand, r.table, r.ns_tricks) for r in after.evening.results] == [
        (1, 1, made["tricks"])
    ]
    assert after.in_play() == 1 and not after.hands[0].finishing
