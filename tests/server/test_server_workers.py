"""Issue 31, item 4: bots' decisions, hints and reviews run in the server's pool of worker
processes, never on the event loop nor in a thread of the server's process; what waits
for the pool is bounded, a review's progress comes back from its process, and a worker
process that dies fails the jobs in it and leaves a new pool for the next ones.

The jobs' stand-ins below are module-level, so that a worker process finds them by name
as it finds the real ones; they tell the test where they ran (a file with the process's
id) and wait while the test holds them (a file), in a directory named by
``$WHISTKIT_TEST_WORKER_DIR`` (a spawned process inherits the environment)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import random
import signal
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from stored_games import store_bot_game
from whistkit.bots import make_bot
from whistkit.game import Game
from whistkit.server import workers as workers_module
from whistkit.server.app import create_app
from whistkit.server.limits import Limits
from whistkit.server.protocol import action_to_json
from whistkit.server.store import Store
from whistkit.server.workers import BOTS_PER_PROCESS, WORKERS_ENV, BotWorkers
from whistkit.state import Action, View

from .helpers import play_actions, receive_until, server_of
from .liveserver import LiveServer
from .test_server_analysis import store_finished_game
from .test_server_protocol import join, new_game

pytestmark = pytest.mark.timeout(120)

DIR_ENV = "WHISTKIT_TEST_WORKER_DIR"
HOLD_SECONDS = 60  # a stand-in held longer lets go (a failed test must not hang the run)


# -- stand-ins, run in the worker processes -----------------------------------------------


def _ran(kind: str) -> None:
    """Leave this process's id in ``<kind>.pid``, then wait while ``<kind>.hold`` exists."""
    where = Path(os.environ[DIR_ENV])
    part = where / f"{kind}.pid.part"
    part.write_text(str(os.getpid()))
    part.rename(where / f"{kind}.pid")  # whole, or not there
    deadline = time.monotonic() + HOLD_SECONDS
    while (where / f"{kind}.hold").exists() and time.monotonic() < deadline:
        time.sleep(0.01)


def hint_here(level: str, view: View, seed: str) -> Action:
    """:func:`whistkit.server.workers.hint_choice`, telling where it ran."""
    _ran("hint")
    return workers_module.hint_choice(level, view, seed)


def review_here(
    record: str, node_limit: int, progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """A review that reports 5 of 40 cards judged, tells where it ran, and answers
    ``{"pid": ...}`` (no hands: nothing to refine)."""
    if progress is not None:
        progress(5, 40)
    _ran("review")
    return {"pid": os.getpid(), "node_limit": node_limit}


def choose_here(level: str, view: View, seed: int) -> Action:
    """A bot's decision (the first legal action) that tells where it ran."""
    _ran(f"bot-{seed}")
    return view.legal[0]


# -- helpers -------------------------------------------------------------------------------


@pytest.fixture
def work_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The stand-ins' directory, and worker processes (one, besides the reviews') for the
    servers made from now on, whatever the machine."""
    where = tmp_path / "work"
    where.mkdir()
    monkeypatch.setenv(DIR_ENV, str(where))
    monkeypatch.setenv(WORKERS_ENV, "1")
    return where


def hold(where: Path, kind: str) -> Path:
    flag = where / f"{kind}.hold"
    flag.touch()
    return flag


def pid_of(where: Path, kind: str) -> int:
    """The id of the process the ``kind`` stand-in ran in (waits for it to start)."""
    path = where / f"{kind}.pid"
    for _ in range(12_000):  # no timing is asserted: only that it comes
        if path.exists():
            return int(path.read_text())
        time.sleep(0.01)
    raise AssertionError(f"the {kind} never started")


def kill(pid: int) -> None:
    assert pid != os.getpid()
    os.kill(pid, signal.SIGKILL)


@pytest.fixture
def app(db_path: Path, work_dir: Path) -> Iterator[TestClient]:
    """The app with hints by the club level (quick), and the pool of its own."""
    with TestClient(create_app(db_path, bot_delay=0, hint_level="club", node_limit=20_000)) as c:
        yield c


def ask_hint(ws: Any) -> dict[str, Any]:
    ws.send_json({"type": "hint"})
    msg: dict[str, Any] = receive_until(ws, lambda m: m["type"] in ("hint", "error"))
    return msg


# -- hints -------------------------------------------------------------------------------


def test_a_hint_is_worked_out_in_a_worker_process_as_before(
    app: TestClient, work_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: a hint ran in a thread of the server's process (sharing its interpreter
    lock with the event loop). The hint is the one of before: a new bot of the hint's
    level, its randomness seeded by the game, the seat and the version."""
    monkeypatch.setattr(workers_module, "hint_choice", hint_here)
    game = new_game(app, level="beginner")
    with app.websocket_connect("/ws") as ws:
        at = play_actions(ws, 2, join(ws, game))
        hint = ask_hint(ws)
    assert hint["type"] == "hint", hint
    pid = pid_of(work_dir, "hint")
    server = server_of(app)
    assert pid != os.getpid() and pid in server.workers.pids
    view = server.tables.get(game).state.view(2)
    before = make_bot("club").choose(view, random.Random(f"{game}:hint:S:{at['v']}"))
    assert hint["action"] == action_to_json(before)


def test_a_full_hint_queue_still_answers_busy(
    db_path: Path, work_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hint queue's bounds hold in front of the pool: one hint in a worker process,
    none waiting, so a second one is refused at once."""
    monkeypatch.setattr(workers_module, "hint_choice", hint_here)
    held = hold(work_dir, "hint")
    limits = Limits(hint_workers=1, hint_queue=0)
    with TestClient(create_app(db_path, bot_delay=0, hint_level="club", limits=limits)) as client:
        games = [new_game(client, level="beginner") for _ in range(2)]
        with client.websocket_connect("/ws") as ws1, client.websocket_connect("/ws") as ws2:
            play_actions(ws1, 0, join(ws1, games[0]))
            play_actions(ws2, 0, join(ws2, games[1]))
            ws1.send_json({"type": "hint"})
            assert pid_of(work_dir, "hint") in server_of(client).workers.pids
            answer = ask_hint(ws2)
            held.unlink()
            assert answer["type"] == "error" and answer["code"] == "busy", answer
            assert receive_until(ws1, lambda m: m["type"] in ("error", "hint"))["type"] == "hint"


def test_a_hint_whose_worker_is_killed_fails_and_the_next_one_is_answered(
    app: TestClient, work_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers_module, "hint_choice", hint_here)
    held = hold(work_dir, "hint")
    game = new_game(app, level="beginner")
    with app.websocket_connect("/ws") as ws:
        at = play_actions(ws, 0, join(ws, game))
        ws.send_json({"type": "hint"})
        killed = pid_of(work_dir, "hint")
        kill(killed)
        failed = receive_until(ws, lambda m: m["type"] in ("hint", "error"))
        assert failed["type"] == "error" and failed["code"] == "hint_failed", failed
        assert "worker process died" in failed["message"]
        held.unlink()
        (work_dir / "hint.pid").unlink()
        hint = ask_hint(ws)  # the same position: a new pool works it out
        assert hint["type"] == "hint" and hint["v"] == at["v"], hint
        pid = pid_of(work_dir, "hint")
        assert pid != killed and pid in server_of(app).workers.pids


# -- reviews -----------------------------------------------------------------------------


def test_a_review_runs_in_a_worker_process_and_reports_its_progress(
    app: TestClient, work_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the review ran in a thread of the server's process; its progress now
    comes back from the worker process (``?wait=0`` shows it)."""
    monkeypatch.setattr(workers_module, "analyse_json", review_here)
    held = hold(work_dir, "review")
    game = store_finished_game(app)
    r = app.get(f"/api/games/{game}/analysis?wait=0")
    assert r.status_code == 202, r.text
    seen = r.json()["progress"]
    for _ in range(12_000):  # the worker reports soon; no timing is asserted
        if seen == {"done": 5, "total": 40}:
            break
        time.sleep(0.01)
        r = app.get(f"/api/games/{game}/analysis?wait=0")
        assert r.status_code == 202, r.text
        seen = r.json()["progress"]
    assert seen == {"done": 5, "total": 40}
    held.unlink()
    body = app.get(f"/api/games/{game}/analysis").json()
    server = server_of(app)
    assert body["pid"] != os.getpid() and body["pid"] in server.workers.pids
    assert body["pid"] == pid_of(work_dir, "review")
    assert server.progress == {}  # a report that came late does not linger


def test_a_full_review_queue_still_answers_503(
    db_path: Path, work_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers_module, "analyse_json", review_here)
    held = hold(work_dir, "review")
    limits = Limits(review_workers=1, review_queue=0)
    with TestClient(create_app(db_path, bot_delay=0, limits=limits)) as client:
        first = store_finished_game(client, "done1", seed=4)
        second = store_finished_game(client, "done2", seed=5)
        assert client.get(f"/api/games/{first}/analysis?wait=0").status_code == 202
        assert pid_of(work_dir, "review") in server_of(client).workers.pids
        r = client.get(f"/api/games/{second}/analysis?wait=0")
        assert r.status_code == 503 and r.headers["retry-after"] == "30", r.text
        held.unlink()
        assert client.get(f"/api/games/{first}/analysis").status_code == 200


def test_a_review_whose_worker_is_killed_fails_and_the_next_one_is_worked_out(
    app: TestClient, work_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers_module, "analyse_json", review_here)
    held = hold(work_dir, "review")
    game = store_finished_game(app)
    assert app.get(f"/api/games/{game}/analysis?wait=0").status_code == 202
    killed = pid_of(work_dir, "review")
    kill(killed)
    for _ in range(12_000):  # 202 until the failure is known; no timing is asserted
        r = app.get(f"/api/games/{game}/analysis?wait=0")
        if r.status_code != 202:
            break
        time.sleep(0.01)
    assert r.status_code == 503 and "worker process died" in r.json()["error"], r.text
    held.unlink()
    body = app.get(f"/api/games/{game}/analysis").json()  # asked again: a new pool
    assert body["pid"] != killed and body["pid"] in server_of(app).workers.pids


# -- bots --------------------------------------------------------------------------------


def a_view() -> View:
    state = Game("felagsvist", seed=1, bots={}).state
    return state.view(state.to_play)


def test_bots_in_the_pool_are_bounded_and_the_others_wait_their_turn(
    work_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: every expert's decision went into the pool's unbounded queue at once, so a
    hint waited behind all of them."""
    monkeypatch.setattr(workers_module, "choose", choose_here)
    submitted: list[object] = []
    real_submit = concurrent.futures.ProcessPoolExecutor.submit

    def counting(self: Any, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        submitted.append(fn)
        return real_submit(self, fn, *args, **kwargs)

    monkeypatch.setattr(concurrent.futures.ProcessPoolExecutor, "submit", counting)
    view = a_view()
    bound = BOTS_PER_PROCESS * 1  # one process
    seeds = range(bound + 2)
    flags = [hold(work_dir, f"bot-{seed}") for seed in seeds]
    workers = BotWorkers(1)

    async def main() -> list[Action]:
        tasks = [asyncio.ensure_future(workers.think("expert", view, s)) for s in seeds]
        for _ in range(10):  # let every task run as far as it can (no timing involved)
            await asyncio.sleep(0)
        assert len(submitted) == bound and workers.bots.locked()
        # the first decision is under way in a worker process (held there, as all are)
        assert await asyncio.to_thread(pid_of, work_dir, "bot-0") in workers.pids
        assert not any(task.done() for task in tasks)
        for flag in flags:
            flag.unlink()
        return list(await asyncio.gather(*tasks))

    try:
        assert asyncio.run(main()) == [view.legal[0]] * len(seeds)
    finally:
        workers.close()
    assert len(submitted) == len(seeds)


def test_a_bots_decision_whose_worker_is_killed_is_asked_again(
    work_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot cannot be answered with an error: its decision is worked out again in a
    new pool (a hint or a review fails instead, above)."""
    monkeypatch.setattr(workers_module, "choose", choose_here)
    view = a_view()
    held = hold(work_dir, "bot-7")
    workers = BotWorkers(1)

    async def main() -> Action:
        task = asyncio.ensure_future(workers.think("expert", view, 7))
        killed = await asyncio.to_thread(pid_of, work_dir, "bot-7")
        (work_dir / "bot-7.pid").unlink()  # held: it writes no other
        kill(killed)
        held.unlink()
        action = await task
        pid = pid_of(work_dir, "bot-7")
        assert pid != killed and pid in workers.pids
        return action

    try:
        assert asyncio.run(main()) == view.legal[0]
    finally:
        workers.close()


def test_more_reviews_at_once_make_a_larger_pool_and_the_jobs_under_way_finish(
    work_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``--review-workers 2`` the pool gets a process for each review: a pool made
    for one (by a bot, first) is let go, and its decision under way still answers."""
    monkeypatch.setattr(workers_module, "choose", choose_here)
    monkeypatch.setattr(workers_module, "analyse_json", review_here)
    view = a_view()
    held = hold(work_dir, "bot-3")
    workers = BotWorkers(1)

    async def main() -> None:
        bot = asyncio.ensure_future(workers.think("expert", view, 3))
        first = await asyncio.to_thread(pid_of, work_dir, "bot-3")
        review = await workers.review("{}", 5, lambda done, total: None, at_once=2)
        assert review["pid"] != first and review["pid"] in workers.pids
        assert workers.reviews == 2 and first not in workers.pids  # a pool of its own
        held.unlink()
        assert await bot == view.legal[0]  # answered by the pool let go

    try:
        asyncio.run(main())
    finally:
        workers.close()


# -- the processes end with the server -----------------------------------------------------


def children(pid: int) -> list[int]:
    """The worker processes (spawned by multiprocessing) whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"spawn_main" in cmdline:
            found.append(int(entry.name))
    return found


def gone(pid: int) -> bool:
    """Has process ``pid`` exited (a zombie counts: it runs nothing)?"""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.parametrize("how", ["ctrl-c", "kill -9"])
def test_the_worker_processes_end_with_the_server(tmp_path: Path, how: str) -> None:
    """Before: a worker process outlived a server stopped by a signal that skips Python's
    exit handlers (uvicorn ends on SIGTERM so, and SIGKILL always), waiting for jobs for
    ever; and a server stopped by Ctrl-C waited for the review under way to finish."""
    store = Store(tmp_path / "games.sqlite3")
    try:
        store_bot_game(store, "long", 4)
    finally:
        store.close()
    # a review of minutes: it is still under way when the server stops
    env = {"WHISTKIT_ANALYSIS_NODE_LIMIT": "200000000", WORKERS_ENV: "1"}
    srv = LiveServer(tmp_path, env=env).start()
    workers: list[int] = []
    try:
        with urllib.request.urlopen(srv.url + "api/games/long/analysis?wait=0") as r:
            assert r.status == 202
        assert srv.proc is not None
        for _ in range(600):  # the review starts soon after it is asked for
            workers = children(srv.proc.pid)
            if workers:
                break
            time.sleep(0.05)
        assert workers, "the review has no worker process"
        if how == "kill -9":
            srv.proc.kill()
            srv.proc.wait(10)
        else:
            srv.stop()  # SIGINT; SIGKILL after 15 s
            assert srv.proc.returncode != -signal.SIGKILL, srv.log[-3000:]
        for _ in range(6000):  # no timing is asserted: only that they end
            if all(gone(pid) for pid in workers):
                break
            time.sleep(0.01)
        assert all(gone(pid) for pid in workers)
    finally:
        srv.stop()
        for pid in workers:  # a failed test leaves no process behind
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)
