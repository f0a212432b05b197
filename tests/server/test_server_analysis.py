"""``GET /api/games/{id}/analysis``: a finished game's double-dummy review."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from stored_games import store_bot_game
from whistkit import analysis
from whistkit.server.app import create_app

from .helpers import server_of

pytestmark = pytest.mark.timeout(120)

NODE_LIMIT = 20_000  # small: positions beyond it are left unjudged, quickly


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    app = create_app(db_path, bot_delay=0, node_limit=NODE_LIMIT)
    with TestClient(app) as c:
        yield c


def store_finished_game(client: TestClient, game_id: str = "done1", seed: int = 4) -> str:
    """A whole Félagsvist game played by bots, stored as a finished web game."""
    store_bot_game(server_of(client).store, game_id, seed)
    return game_id


def test_finished_game_review_shape(client: TestClient) -> None:
    game = store_finished_game(client)
    r = client.get(f"/api/games/{game}/analysis")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    assert body["variant"] == "felagsvist" and body["node_limit"] == NODE_LIMIT
    assert [h["number"] for h in body["hands"]] == list(range(1, 13))
    assert [h["contract"] for h in body["hands"][:6]] == ["H", "S", "NT", "D", "C", "NOLO"]
    judged = lost = unsettled = 0
    for h in body["hands"]:
        assert 0 <= h["tricks_ns"] <= 13
        assert h["par_ns"] is None or 0 <= h["par_ns"] <= 13
        # every hand has a par, exact or the range the search proved
        lo, hi = h["par_ns_range"]
        assert 0 <= lo <= hi <= 13 and (h["par_ns"] is None) == (lo < hi)
        for c in h["cards"]:
            assert {"trick", "seat", "card"} <= set(c)
            if c.get("solved") is False:
                unsettled += 1
                blo, bhi = c["best_range"]
                assert 0 <= blo <= bhi <= 13 and c["card"] in c["ranges"]
                assert c["value_range"] == c["ranges"][c["card"]]
                continue
            judged += 1
            assert set(c) >= {"value", "best_value", "best", "loss", "values"}
            assert c["card"] in c["values"] and c["best"]
            assert all(c["values"][b] == c["best_value"] for b in c["best"])
            lost += c["loss"]
    assert judged > 100 and unsettled > 0
    assert set(body["seats"]) == {"N", "E", "S", "W"}
    for v in body["seats"].values():
        assert set(v) == {"judged", "mistakes", "tricks_lost", "unsolved"}
    assert sum(v["judged"] for v in body["seats"].values()) == judged
    assert sum(v["tricks_lost"] for v in body["seats"].values()) == lost


def test_unfinished_and_unknown_games_are_refused(client: TestClient) -> None:
    assert client.get("/api/games/zzz/analysis").status_code == 404
    r = client.post("/api/games", json={"seed": 7})
    game = r.json()["id"]
    r = client.get(f"/api/games/{game}/analysis")
    assert r.status_code == 409 and "not finished" in r.json()["error"]
    # refused exactly as the record download is
    assert client.get(f"/api/games/{game}/record").status_code == 409


@pytest.mark.usefixtures("in_threads")
def test_second_request_is_served_from_memory(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = analysis.analyse

    def counting(*args: Any, **kwargs: Any) -> analysis.GameAnalysis:
        calls.append(kwargs["node_limit"])
        return real(*args, **kwargs)

    monkeypatch.setattr(analysis, "analyse", counting)
    # the first review only (the background refinement has its own test)
    monkeypatch.setattr(server_of(client), "refined", lambda game, record, first: first)
    game = store_finished_game(client)
    first = client.get(f"/api/games/{game}/analysis")
    second = client.get(f"/api/games/{game}/analysis")
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert calls == [NODE_LIMIT]
    other = store_finished_game(client, "done2", seed=5)
    assert client.get(f"/api/games/{other}/analysis").status_code == 200
    assert len(calls) == 2  # cached per game


@pytest.mark.usefixtures("in_threads")
def test_a_failed_analysis_is_not_cached(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> analysis.GameAnalysis:
        raise RuntimeError("the analysis needs the solver's compiled core")

    monkeypatch.setattr(analysis, "analyse", broken)
    game = store_finished_game(client)
    r = client.get(f"/api/games/{game}/analysis")
    assert r.status_code == 503 and "compiled core" in r.json()["error"]
    monkeypatch.undo()
    assert client.get(f"/api/games/{game}/analysis").status_code == 200


def test_node_limit_from_the_environment(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WHISTKIT_ANALYSIS_NODE_LIMIT", "1234")
    server = create_app(db_path, bot_delay=0).state.server
    assert server.node_limit == 1234
    server.store.close()
    monkeypatch.setenv("WHISTKIT_ANALYSIS_NODE_LIMIT", "lots")
    with pytest.raises(ValueError, match="whole number"):
        create_app(db_path, bot_delay=0)


@pytest.mark.usefixtures("in_threads")
def test_review_progress_while_it_is_worked_out(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``?wait=0`` answers at once: 202 with the cards judged so far, then the review."""

    release = threading.Event()
    real = analysis.analyse

    def slow(*args: Any, **kwargs: Any) -> analysis.GameAnalysis:
        kwargs["progress"](5, 40)  # some cards judged ...
        assert release.wait(30)  # ... and the rest waits for the test
        return real(*args, **kwargs)

    monkeypatch.setattr(analysis, "analyse", slow)
    game = store_finished_game(client)
    r = client.get(f"/api/games/{game}/analysis?wait=0")
    assert r.status_code == 202
    assert set(r.json()["progress"]) == {"done", "total"}
    seen = r.json()["progress"]
    for _ in range(2000):  # the thread reports soon; no timing is asserted
        if seen == {"done": 5, "total": 40}:
            break
        seen = client.get(f"/api/games/{game}/analysis?wait=0").json()["progress"]
    assert seen == {"done": 5, "total": 40}
    release.set()
    done = client.get(f"/api/games/{game}/analysis")  # waits for the review
    assert done.status_code == 200 and len(done.json()["hands"]) == 12
    again = client.get(f"/api/games/{game}/analysis?wait=0")
    # the same review (its background refinement's progress aside)
    assert again.status_code == 200
    assert {k: v for k, v in again.json().items() if k != "refining"} == {
        k: v for k, v in done.json().items() if k != "refining"
    }


@pytest.mark.usefixtures("in_threads")
def test_a_failed_review_is_told_to_the_next_poll(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> analysis.GameAnalysis:
        raise RuntimeError("the analysis needs the solver's compiled core")

    monkeypatch.setattr(analysis, "analyse", broken)
    game = store_finished_game(client)
    codes = [client.get(f"/api/games/{game}/analysis?wait=0").status_code]
    for _ in range(2000):  # 202 until the failure is known, then the error, once
        if codes[-1] != 202:
            break
        codes.append(client.get(f"/api/games/{game}/analysis?wait=0").status_code)
    assert codes[-1] == 503 and set(codes[:-1]) <= {202}


def _ranges(review: dict[str, Any]) -> dict[tuple[int, int], tuple[int, int]]:
    """(hand, card index) -> the [lo, hi] of the card played; (hand, -1) -> the par."""
    out: dict[tuple[int, int], tuple[int, int]] = {}
    for h in review["hands"]:
        out[(h["number"], -1)] = tuple(h["par_ns_range"])
        for i, c in enumerate(h["cards"]):
            if "value" in c:
                out[(h["number"], i)] = (c["value"], c["value"])
            elif "value_range" in c:
                out[(h["number"], i)] = tuple(c["value_range"])
    return out


@pytest.mark.slow
def test_a_review_with_ranges_is_refined_in_the_background(client: TestClient) -> None:
    """The first review comes with ranges and ``refining`` (progress); the server then
    works it out again with REFINE_FACTOR times the node limit, once, and serves that:
    each range meets the first one (both are proven: the value lies in both), and the
    ranges are narrower in all (the budgets are node counts: the same on any machine)."""
    from whistkit.server.app import REFINE_FACTOR, unsettled

    game = store_finished_game(client)
    first = client.get(f"/api/games/{game}/analysis").json()
    assert unsettled(first), "the small node limit leaves Nóló positions unsettled"
    refining = first["refining"]
    assert refining["node_limit"] == NODE_LIMIT * REFINE_FACTOR
    assert 0 <= refining["done"] <= refining["total"] or refining["total"] == 0
    server = server_of(client)
    body = first
    for _ in range(3000):  # the refinement finishes; no timing is asserted
        # one refinement per game, however often the page asks
        assert sum(1 for k in server.analyses.running if k.startswith(game)) <= 1
        r = client.get(f"/api/games/{game}/analysis?wait=0")
        assert r.status_code == 200
        body = r.json()
        if "refining" not in body:
            break
        p = body["refining"]
        assert 0 <= p["done"] <= p["total"] or p["total"] == 0
        threading.Event().wait(0.05)
    assert "refining" not in body and body["node_limit"] == NODE_LIMIT * REFINE_FACTOR
    before, after = _ranges(first), _ranges(body)
    assert before.keys() == after.keys()
    for key, (lo, hi) in after.items():
        blo, bhi = before[key]
        assert max(lo, blo) <= min(hi, bhi), key
    width = sum(hi - lo for lo, hi in after.values())
    assert width < sum(hi - lo for lo, hi in before.values())
    # served from memory from now on, and not refined again
    assert client.get(f"/api/games/{game}/analysis?wait=0").json() == body
    assert not server.analyses.in_flight(game + "#refined")


def test_a_settled_review_is_not_refined() -> None:
    from whistkit.server.app import unsettled

    settled = {"hands": [{"par_ns": 7, "par_ns_range": [7, 7], "cards": [{"value": 3}]}]}
    assert not unsettled(settled) and not unsettled({"record": "x"})
    card = {"solved": False, "value_range": [1, 2]}
    assert unsettled({"hands": [{"par_ns": 7, "par_ns_range": [7, 7], "cards": [card]}]})
    assert unsettled({"hands": [{"par_ns": None, "par_ns_range": [6, 8], "cards": []}]})


@pytest.mark.usefixtures("in_threads")
def test_a_failed_refinement_leaves_the_first_review(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from whistkit.server import app as app_module
    from whistkit.server import workers as workers_module

    first = {"hands": [{"par_ns": None, "par_ns_range": [6, 8], "cards": []}], "node_limit": 9}
    limits: list[int] = []

    def fake(record: str, node_limit: int, progress: Any = None) -> dict[str, Any]:
        limits.append(node_limit)
        if node_limit > NODE_LIMIT:
            raise RuntimeError("out of memory")
        return first

    monkeypatch.setattr(workers_module, "analyse_json", fake)
    game = store_finished_game(client)
    body = client.get(f"/api/games/{game}/analysis").json()
    assert body["refining"]["node_limit"] == NODE_LIMIT * app_module.REFINE_FACTOR
    for _ in range(2000):  # until the refinement has failed; no timing is asserted
        body = client.get(f"/api/games/{game}/analysis?wait=0").json()
        if "refining" not in body:
            break
        threading.Event().wait(0.01)
    assert body == first  # the first review stands, and is not refined again
    assert client.get(f"/api/games/{game}/analysis?wait=0").json() == first
    assert limits == [NODE_LIMIT, NODE_LIMIT * app_module.REFINE_FACTOR]
