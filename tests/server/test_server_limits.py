"""Issue 18, defect 4 (in the server's process): hints one at a time per seat and cached,
reviews queued with a bounded cache, a bounded outgoing queue, the limits' settings.
The limits only a real socket shows are in test_server_limits_live.py."""

from __future__ import annotations

import argparse
import asyncio
import gc
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.testclient import TestClient

from whistkit.server import app as app_module
from whistkit.server import collector, serve
from whistkit.server import workers as workers_module
from whistkit.server.app import Server, create_app
from whistkit.server.limits import LRU, Busy, Limits, Outbox, WorkQueue, default_max_connections
from whistkit.state import Action, View

from .helpers import play_actions, receive_until, server_of
from .test_server_analysis import store_finished_game
from .test_server_protocol import TOKENS, join, new_game

pytestmark = pytest.mark.timeout(120)


# -- the settings -----------------------------------------------------------------------


def test_limits_come_from_the_environment_and_the_flags() -> None:
    env = {"WHISTKIT_MAX_FRAME_BYTES": "4096", "WHISTKIT_HINT_WORKERS": " 3 "}
    limits = Limits.from_env(env)
    assert limits.max_frame_bytes == 4096 and limits.hint_workers == 3
    assert limits.max_body_bytes == Limits().max_body_bytes
    parser = argparse.ArgumentParser()
    Limits.add_arguments(parser)
    args = parser.parse_args(["--max-frame-bytes", "8192", "--review-cache", "0"])
    both = Limits.from_args(args, env)
    assert both.max_frame_bytes == 8192 and both.hint_workers == 3 and both.review_cache == 0
    assert Limits.flags_given(args) == ["--max-frame-bytes", "--review-cache"]
    for bad, words in [
        ({"WHISTKIT_MAX_BODY_BYTES": "lots"}, "WHISTKIT_MAX_BODY_BYTES must be a whole number"),
        ({"WHISTKIT_MAX_BODY_BYTES": "9" * 5000}, "must be a whole number"),
        ({"WHISTKIT_HINT_WORKERS": "0"}, "WHISTKIT_HINT_WORKERS must be at least 1"),
    ]:
        with pytest.raises(ValueError, match=words):
            Limits.from_env(bad)
    with pytest.raises(ValueError, match="--max-frame-bytes must be at least 256"):
        Limits(max_frame_bytes=10)


def test_the_connection_limit_leaves_file_descriptors() -> None:
    limits = Limits()
    assert 8 <= limits.connections <= 10_000
    assert limits.connections == default_max_connections(limits.backlog)
    assert Limits(max_connections=5).connections == 5


# -- the garbage collector --------------------------------------------------------------


def test_serve_applies_the_garbage_collection_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def run(self: uvicorn.Server, sockets: Any = None) -> None:  # instead of serving
        seen.update(
            threshold=gc.get_threshold(),
            frozen=gc.get_freeze_count() > 0,
            period=self.config.app.state.full_gc_seconds,
        )

    monkeypatch.setattr(uvicorn.Server, "run", run)
    old = gc.get_threshold()
    try:
        limits = Limits(gc_young=1234, gc_middle=7, gc_full_seconds=42)
        serve(tmp_path / "g.db", port=0, limits=limits)
    finally:
        gc.unfreeze()
        gc.set_threshold(*old)
    assert seen == {"threshold": (1234, 7, collector.FULL_BACKSTOP), "frozen": True, "period": 42}
    assert Limits.from_env({"WHISTKIT_GC_YOUNG": "500"}).gc_young == 500
    with pytest.raises(ValueError, match="WHISTKIT_GC_YOUNG must be at least 100"):
        Limits.from_env({"WHISTKIT_GC_YOUNG": "5"})


def test_the_lifespan_runs_full_collections_on_the_timer(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    periods: list[float] = []
    cancelled = threading.Event()

    async def fake(seconds: float) -> None:
        periods.append(seconds)
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    monkeypatch.setattr(app_module, "full_collections", fake)
    app = create_app(db_path)
    with TestClient(app):  # no period set (not served by serve()): no timer
        pass
    assert periods == []
    app.state.full_gc_seconds = 42
    with TestClient(app):
        pass
    assert periods == [42] and cancelled.is_set()

    collections: list[int] = []
    monkeypatch.setattr(collector.gc, "collect", lambda: collections.append(1))

    async def three() -> None:
        task = asyncio.create_task(collector.full_collections(0.001))
        while len(collections) < 3:
            await asyncio.sleep(0.001)
        task.cancel()

    asyncio.run(asyncio.wait_for(three(), 30))
    assert len(collections) >= 3


# -- the outgoing queue -------------------------------------------------------------------


def test_the_outbox_drops_a_slow_reader_not_the_publisher() -> None:
    async def main() -> None:
        calls: list[int] = []
        box = Outbox(4096, lambda: calls.append(1))
        message = {"type": "event", "v": 1, "event": {"x": "y" * 1000}}
        for _ in range(3):
            box.put_nowait(message)  # ~3 KiB: fits
        assert not box.overflowed and box.qsize() == 3
        box.put_nowait(message)  # would pass 4 KiB: the connection is to go
        assert box.overflowed and calls == [1]
        for _ in range(100):
            box.put_nowait(message)  # the publisher never fails nor blocks
        assert calls == [1] and box.waiting_bytes == 0
        fresh = Outbox(4096)
        fresh.put_nowait({"type": "pong"})
        assert await fresh.next_text() == '{"type": "pong"}' and fresh.waiting_bytes == 0

    asyncio.run(main())


# -- work queues --------------------------------------------------------------------------


def test_the_lru_forgets_the_least_recently_used() -> None:
    cache: LRU[str, int] = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1
    cache.put("c", 3)
    assert "b" not in cache and cache.get("a") == 1 and len(cache) == 2
    empty: LRU[str, int] = LRU(0)
    empty.put("a", 1)
    assert len(empty) == 0


def test_a_work_queue_bounds_runs_and_waits_and_shares_identical_requests() -> None:
    async def main() -> None:
        queue: WorkQueue[str, str] = WorkQueue(workers=1, waiting=1, cache=1)
        gate = asyncio.Event()
        runs: list[str] = []
        running = 0
        most = 0

        def job(key: str) -> Any:
            async def run() -> str:
                nonlocal running, most
                runs.append(key)
                running += 1
                most = max(most, running)
                await gate.wait()
                running -= 1
                return key.upper()

            return run

        a1 = asyncio.ensure_future(queue.run("a", job("a")))
        a2 = asyncio.ensure_future(queue.run("a", job("a")))  # the same: shares the run
        b = asyncio.ensure_future(queue.run("b", job("b")))  # waits for the worker
        await asyncio.sleep(0.01)
        with pytest.raises(Busy):
            await queue.run("c", job("c"))  # one running, one waiting: full
        gate.set()
        assert await asyncio.gather(a1, a2, b) == ["A", "A", "B"]
        assert runs == ["a", "b"] and most == 1
        assert await queue.run("b", job("b")) == "B" and runs == ["a", "b"]  # cached
        assert await queue.run("a", job("a")) == "A" and runs == ["a", "b", "a"]  # evicted

    asyncio.run(main())


@pytest.mark.usefixtures("in_threads")
def test_reviews_are_queued_and_their_cache_is_bounded(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: 12 concurrent reviews ran at once (107 s, 1.67 GB), and every review
    stayed in memory for good."""
    started = threading.Semaphore(0)
    release = threading.Event()
    runs: list[str] = []

    def fake_analyse(
        record: str, node_limit: int, progress: Callable[[int, int], None] | None = None
    ) -> dict[str, Any]:
        runs.append(record)
        started.release()
        release.wait(30)
        return {"record": record}

    monkeypatch.setattr(workers_module, "analyse_json", fake_analyse)
    limits = Limits(review_workers=1, review_queue=1, review_cache=2)
    server = Server(db_path, 0.0, 1000, "club", limits=limits)

    async def main() -> None:
        first = asyncio.ensure_future(server.analysis_of("g1", "r1"))
        same = asyncio.ensure_future(server.analysis_of("g1", "r1"))
        second = asyncio.ensure_future(server.analysis_of("g2", "r2"))
        # a review that never starts fails the test instead of hanging it
        assert await asyncio.to_thread(started.acquire, True, 30), first.exception()
        with pytest.raises(Busy):
            await server.analysis_of("g3", "r3")
        release.set()
        assert [r["record"] for r in await asyncio.gather(first, same, second)] == [
            "r1",
            "r1",
            "r2",
        ]
        assert runs == ["r1", "r2"]
        await server.analysis_of("g3", "r3")
        await server.analysis_of("g2", "r2")  # kept
        assert runs == ["r1", "r2", "r3"]
        await server.analysis_of("g1", "r1")  # forgotten (two kept): worked out again
        assert runs == ["r1", "r2", "r3", "r1"] and len(server.analyses.cache) == 2

    asyncio.run(main())
    server.store.close()


def test_a_full_review_queue_is_a_503(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with TestClient(create_app(db_path, bot_delay=0)) as client:
        game = store_finished_game(client)
        server = server_of(client)

        async def busy(game_id: str, record: str, wait: bool = True) -> dict[str, Any]:
            raise Busy("full")

        monkeypatch.setattr(server, "analysis_of", busy)
        r = client.get(f"/api/games/{game}/analysis")
        assert r.status_code == 503 and r.headers["retry-after"] == "30"
        assert "busy with other reviews" in r.json()["error"]


# -- hints --------------------------------------------------------------------------------


class SlowBot:
    """A hint bot that waits for ``release`` and counts its calls."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0

    def choose(self, view: View, rng: Any) -> Action:
        self.calls += 1
        self.release.wait(30)
        return view.legal[0]


def hints_by(bot: SlowBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hints (level ``club``) by ``bot`` (in a thread: the server must use
    ``in_threads``); the games' own bots (``beginner``) stay real."""
    real = workers_module.make_bot
    monkeypatch.setattr(
        workers_module, "make_bot", lambda level: bot if level == "club" else real(level)
    )


@pytest.fixture
def slow_hints(
    in_threads: None, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[TestClient, SlowBot]]:
    bot = SlowBot()
    hints_by(bot, monkeypatch)
    with TestClient(create_app(db_path, bot_delay=0, hint_level="club")) as client:
        yield client, bot
        bot.release.set()


def test_identical_hints_share_one_run_and_then_the_cache(
    slow_hints: tuple[TestClient, SlowBot],
) -> None:
    """Before: 150 hints from one socket ran 150 searches (1.1 GB, 79 threads)."""
    client, bot = slow_hints
    game = new_game(client, level="beginner")
    with client.websocket_connect("/ws") as ws:
        at = play_actions(ws, 1, join(ws, game))
        for _ in range(20):
            ws.send_json({"type": "hint"})
        bot.release.set()
        hints = [receive_until(ws, lambda m: m["type"] in ("hint", "error")) for _ in range(20)]
        assert {m["type"] for m in hints} == {"hint"}
        assert {m["v"] for m in hints} == {at["v"]} and bot.calls == 1
        ws.send_json({"type": "hint"})  # the same position later: from the cache
        assert receive_until(ws, lambda m: m["type"] == "hint")["v"] == at["v"]
        assert bot.calls == 1


def test_one_hint_in_flight_per_seat(slow_hints: tuple[TestClient, SlowBot]) -> None:
    client, bot = slow_hints
    game = new_game(client, level="beginner")
    with client.websocket_connect("/ws") as ws:
        at = play_actions(ws, 1, join(ws, game))
        ws.send_json({"type": "hint"})  # stays in flight until released
        again = play_actions(ws, 1, at)  # S plays; the bots play; S is to act again
        assert again["v"] > at["v"]
        ws.send_json({"type": "hint"})
        refused = receive_until(ws, lambda m: m["type"] in ("error", "hint"))
        assert refused["type"] == "error" and refused["code"] == "busy", refused
        bot.release.set()
        first = receive_until(ws, lambda m: m["type"] == "hint")
        assert first["v"] == at["v"] and bot.calls == 1
        ws.send_json({"type": "hint"})  # now it may be worked out
        assert receive_until(ws, lambda m: m["type"] == "hint")["v"] == again["v"]
        assert bot.calls == 2


@pytest.mark.usefixtures("in_threads")
def test_a_full_hint_queue_answers_busy(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = SlowBot()
    limits = Limits(hint_workers=1, hint_queue=0)
    with TestClient(create_app(db_path, bot_delay=0, hint_level="club", limits=limits)) as client:
        games = [new_game(client, level="beginner") for _ in range(2)]
        hints_by(bot, monkeypatch)
        with client.websocket_connect("/ws") as ws1, client.websocket_connect("/ws") as ws2:
            play_actions(ws1, 0, join(ws1, games[0]))  # S to act in both games
            play_actions(ws2, 0, join(ws2, games[1]))
            for ws in (ws1, ws2):
                ws.send_json({"type": "hint"})
            answer = receive_until(ws2, lambda m: m["type"] in ("error", "hint"))
            bot.release.set()
            assert answer["type"] == "error" and answer["code"] == "busy", answer
            assert receive_until(ws1, lambda m: m["type"] in ("error", "hint"))["type"] == "hint"


def test_a_hint_asked_before_a_join_is_still_answered(
    slow_hints: tuple[TestClient, SlowBot],
) -> None:
    """Found by the fuzz test: a join cancelled the socket's hints under way, so a hint
    asked just before it was never answered."""
    client, bot = slow_hints
    game = new_game(client, level="beginner")
    with client.websocket_connect("/ws") as ws:
        at = play_actions(ws, 1, join(ws, game))  # S to act
        ws.send_json({"type": "hint"})
        ws.send_json({"type": "join", "game": game, "seat": "S", "token": TOKENS[game, "S"]})
        assert receive_until(ws, lambda m: m["type"] in ("state", "error"))["type"] == "state"
        bot.release.set()
        hint = receive_until(ws, lambda m: m["type"] in ("hint", "error"))
        assert hint["type"] == "hint" and hint["v"] == at["v"], hint
