"""The organiser's HTTP API: the host's key, the tables' tokens, every input checked with a
message naming what is wrong, the result flow (enter, an opponent confirms), corrections
with an audit log, exports."""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from evening_web.drive import Driver, hall_client, player_lines
from whistkit.evening.web import create_app, parse_player_lines


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with hall_client(create_app(tmp_path / "e.sqlite3")) as c:
        yield c


def running(client: TestClient, players: tuple[int, int] = (6, 6), **config: Any) -> Driver:
    host = Driver(client)  # type: ignore[arg-type]
    host.create({"preset": "felagsvist", "hands": 12, **config})
    host.setup(*players, seed=7)
    return host


def error(r: Any, status: int) -> str:
    assert r.status_code == status, r.text
    message: str = r.json()["error"]
    return message


def test_the_host_pages_need_the_host_key(client: TestClient, tmp_path: Path) -> None:
    host = running(client)
    key = client.cookies.get(f"wk_host_{host.id}")
    assert key and len(key) >= 32
    # another browser (not entered: the app's lifespan is the fixture's)
    stranger = hall_client(client.app)
    if True:
        assert "host" in error(stranger.get(f"/api/e/{host.id}"), 403)
        assert stranger.get(f"/e/{host.id}/projector").status_code == 403
        r = stranger.get(f"/e/{host.id}/export.json")  # a page saying so (issue 33)
        assert r.status_code == 403 and 'data-code="host_only"' in r.text
        assert error(stranger.post(f"/api/e/{host.id}/status", json={"action": "pause"}), 403)
        stranger.cookies.set(f"wk_host_{host.id}", "x" * len(key))
        assert error(stranger.get(f"/api/e/{host.id}"), 403)
        r = stranger.get(f"/e/{host.id}/host?key=nope")
        assert r.status_code == 403 and "wrong" in r.text
        # the printed host link sets the cookie and leaves the key out of the address
        r = stranger.get(f"/e/{host.id}/host?key={key}", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == f"/e/{host.id}/host"
        assert "httponly" in r.headers["set-cookie"].lower()
        assert stranger.get(f"/api/e/{host.id}").status_code == 200
    assert error(client.get("/api/e/nosuch"), 404) == "unknown evening 'nosuch'"


def test_table_links_are_unguessable_and_checked(client: TestClient) -> None:
    host = running(client)
    tables = host.state()["tables"]
    tokens = [t["url"].rsplit("/", 1)[1] for t in tables]
    assert len(set(tokens)) == len(tokens) == 3
    assert all(len(tok) >= 20 for tok in tokens)
    assert "table card" in error(client.get(f"/api/t/{host.id}/{'A' * 22}"), 404)
    view = client.get(host.token_path(1)).json()
    assert view["table"] == 1 and view["hand"]["number"] == 1
    # a table's page shows names and results, never the host key
    assert host.state()["host_link"].split("key=")[1] not in json.dumps(view)


def test_requests_are_checked(client: TestClient) -> None:
    assert "JSON" in error(client.post("/api/evenings", content=b"title=x"), 415)
    r = client.post("/api/evenings", content=b"[", headers={"content-type": "application/json"})
    assert error(r, 400) == "the request body must be JSON"
    big = {"title": "x" * (300 * 1024)}
    r = client.post("/api/evenings", json=big)  # refused at the edge, from its length
    assert r.status_code == 413 and "larger than 262144 bytes" in r.text
    assert "unknown field 'colour'" in error(client.post("/api/evenings", json={"colour": 1}), 400)
    bad = {"config": {"preset": "bridge"}}
    assert "unknown preset 'bridge'" in error(client.post("/api/evenings", json=bad), 400)
    bad = {"config": {"hands": 0}}
    assert "hands" in error(client.post("/api/evenings", json=bad), 400)
    bad = {"config": {"prizes": {"top": 1, "bottom": 2}}}
    assert "unknown prize field 'bottom'" in error(client.post("/api/evenings", json=bad), 400)
    bad = {"config": {"preset": "progressive", "trump_order": ["H", "X"]}}
    assert "'X'" in error(client.post("/api/evenings", json=bad), 400)
    assert "title" in error(client.post("/api/evenings", json={"title": "a\x07b"}), 400)
    host = Driver(client)  # type: ignore[arg-type]
    host.create({"preset": "felagsvist", "hands": 12})
    path = f"/api/e/{host.id}"
    long_name = [{"name": "x" * 41, "group": "A"}]
    assert "at most 40" in error(client.post(f"{path}/players", json={"players": long_name}), 400)
    twice = [{"name": "Anna"}, {"name": "anna"}]
    assert "twice" in error(client.post(f"{path}/players", json={"players": twice}), 400)
    many = [{"name": f"P{i}"} for i in range(521)]
    assert "at most 520" in error(client.post(f"{path}/players", json={"players": many}), 400)
    bad_group = [{"name": "Anna", "group": "C"}]
    assert "A or B" in error(client.post(f"{path}/players", json={"players": bad_group}), 400)
    r = client.post(f"{path}/import", json={"text": "Anna, A\nBjarni, Q"})
    assert error(r, 400) == (
        "Nothing imported: 1 line not understood. Mend them and import again.\n"
        "line 2 ('Bjarni, Q'): the group must be A or B, not 'Q'"
    )
    assert "four players" in error(client.post(f"{path}/seat", json={}), 409)
    assert "seat the players" in error(client.post(f"{path}/status", json={"action": "start"}), 409)
    r = client.post(f"{path}/status", json={"action": "explode"})
    assert "'action' must be one of" in error(r, 400)
    assert "'since'" in error(client.get(f"{path}?since=x"), 400)


def test_pasted_players_lines_csv_and_tabs() -> None:
    players, problems = parse_player_lines(
        "name,group,fixed\nAnna Jónsdóttir, B\n\nBjarni,A,fixed\n  Gunna  ;b\n"
    )
    assert problems == []
    # the separator is decided line by line: "Gunna ;b" is split at its semicolon
    assert [p["name"] for p in players] == ["Anna Jónsdóttir", "Bjarni", "Gunna"]
    players, _ = parse_player_lines("Anna\tB\nBjarni\tA\tfast")
    assert players == [
        {"name": "Anna", "group": "B", "fixed": False},
        {"name": "Bjarni", "group": "A", "fixed": True},
    ]
    players, _ = parse_player_lines("Anna;B\nBjarni;A;x")
    assert [p["fixed"] for p in players] == [False, True]
    _, problems = parse_player_lines("Anna, A, maybe")
    assert problems == [
        "line 1 ('Anna, A, maybe'): the third column must be 'fixed' or empty, not 'maybe'"
    ]


def test_enter_and_confirm_by_an_opponent(client: TestClient) -> None:
    host = running(client)
    hand = host.state()["hand_states"][0]["tables"][0]
    n, e, s, w = (hand["seats"][x] for x in "NESW")
    path = host.token_path(1)
    enter = {"hand": 1, "side": "NS", "tricks": 8, "by": n}
    assert "own partnership" in error(client.post(f"{path}/enter", json={**enter, "by": e}), 400)
    assert "not in play" in error(client.post(f"{path}/enter", json={**enter, "hand": 2}), 400)
    r = client.post(f"{path}/enter", json={**enter, "tricks": 14})
    assert error(r, 400) == "'tricks' must be a whole number from 0 to 13, not 14"
    r = client.post(f"{path}/enter", json={**enter, "tricks": True})
    assert "whole number" in error(r, 400)
    r = client.post(f"{path}/enter", json={**enter, "by": 999})
    assert "does not sit at table 1" in error(r, 400)
    assert "no entry" in error(
        client.post(f"{path}/confirm", json={"hand": 1, "by": e, "ns": 8}), 400
    )
    host.post(f"{path}/enter", enter)
    assert client.get(path).json()["hand"]["pending"] == {"ns": 8, "by": n, "mine": False}
    r = client.post(f"{path}/confirm", json={"hand": 1, "by": s, "ns": 8})
    assert "opponent" in error(r, 400)
    r = client.post(f"{path}/confirm", json={"hand": 1, "by": e, "ns": 5})
    assert "changed" in error(r, 409)
    # E-W may enter their own tricks instead, knowingly; the latest entry waits
    ew_entry = {"hand": 1, "side": "EW", "tricks": 6, "by": w}
    r = client.post(f"{path}/enter", json=ew_entry)
    assert "has already entered N–S 8 · E–W 5" in error(r, 409)
    assert client.get(path).json()["hand"]["pending"] == {"ns": 8, "by": n, "mine": False}
    host.post(f"{path}/enter", {**ew_entry, "replace": True})
    host.post(f"{path}/confirm", {"hand": 1, "by": n, "ns": 7})
    view = client.get(path).json()
    assert view["hand"]["result"] == {"ns": 7}
    # the winners' moves are known at once; the others' tables still play
    assert {m["player"] for m in view["moves"]} == {n, e, s, w}
    assert view["waiting"] == [2, 3]
    r = client.post(f"{path}/enter", json=enter)
    assert "already has a confirmed result" in error(r, 409)
    audit = host.state()["audit"]
    assert [a["action"] for a in audit[:3]] == ["result", "enter", "enter"]


def test_pause_holds_the_tables_but_not_the_host(client: TestClient) -> None:
    host = running(client)
    host.post(f"/api/e/{host.id}/status", {"action": "pause"})
    tb = host.state()["hand_states"][0]["tables"][1]
    path = host.token_path(2)
    r = client.post(
        f"{path}/enter", json={"hand": 1, "side": "NS", "tricks": 3, "by": tb["seats"]["N"]}
    )
    assert "paused" in error(r, 409)
    host.post(f"/api/e/{host.id}/result", {"hand": 1, "table": 2, "ns": 3})
    assert host.state()["hand_states"][0]["tables"][1]["result"]["ns"] == 3
    host.post(f"/api/e/{host.id}/status", {"action": "resume"})
    assert host.state()["status"] == "running"


def test_a_correction_changes_totals_not_the_moves(client: TestClient) -> None:
    host = running(client)
    rng = random.Random(3)
    first = host.play_hand(rng)
    host.play_hand(rng)
    before = host.state()
    r = client.post(f"/api/e/{host.id}/correct", json={"hand": 3, "table": 1, "ns": 5})
    assert "not been played" in error(r, 400) or "not reported" in error(r, 400)
    ns = 13 - first[1]
    host.post(f"/api/e/{host.id}/correct", {"hand": 1, "table": 1, "ns": ns, "reason": "card"})
    after = host.state()
    assert [h["tables"] and [t["seats"] for t in h["tables"]] for h in after["hand_states"]] == [
        [t["seats"] for t in h["tables"]] for h in before["hand_states"]
    ]
    t1 = after["hand_states"][0]["tables"][0]
    assert t1["result"]["ns"] == ns and t1["result"]["moved_ns"] == first[1]
    totals = {r["player"]: r["total"] for r in after["standings"]}
    old = {r["player"]: r["total"] for r in before["standings"]}
    delta = ns - first[1]  # hand 1 is hearts: N-S score their tricks
    for seat, pid in t1["seats"].items():
        assert totals[pid] == old[pid] + (delta if seat in "NS" else -delta)
    correction = after["audit"][0]
    assert correction["action"] == "correct"
    assert correction["detail"] == {
        "hand": 1,
        "table": 1,
        "from": first[1],
        "to": ns,
        "reason": "card",
    }


def test_exports(client: TestClient) -> None:
    host = running(client)
    host.play_hand(random.Random(1))
    rows = list(csv.reader(io.StringIO(client.get(f"/e/{host.id}/export.csv").text)))
    assert rows[0][:3] == ["hand", "contract", "table"]
    hands = rows[1 : rows.index([])]
    hand1 = [r for r in hands if r[0] == "1"]
    assert len(hand1) == 12 and all(r[1] == "H" for r in hand1)
    for r in hand1:
        assert int(r[7]) == int(r[8])  # hearts: points are the partnership's tricks
    standings = rows[rows.index([]) + 1 :]
    assert standings[0] == ["place", "player", "name", "group", "total", "hands played"]
    assert len(standings) == 13
    data = client.get(f"/e/{host.id}/export.json").json()
    assert data["format"] == "whistkit-evening/1"
    assert len(data["players"]) == 12 and len(data["results"]) == 3
    assert "host_key" not in json.dumps(data) and "token" not in json.dumps(data)
    svg = client.get(f"/e/{host.id}/qr/1.svg")
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.text.lstrip().startswith("<svg")
    assert client.get(f"/e/{host.id}/qr/9.svg").status_code == 404


def test_a_late_arrival_plays_from_the_next_hand(client: TestClient) -> None:
    host = running(client, players=(7, 7))
    seated = sum(len(t["seats"]) for t in host.state()["hand_states"][0]["tables"])
    assert seated == 12
    host.post(f"/api/e/{host.id}/import", {"text": "Sól, A\nKári, B"})
    st_ = host.state()
    late = [p for p in st_["players"] if p["name"] in ("Sól", "Kári")]
    assert [p["arrives"] for p in late] == [2, 2]
    host.play_hand(random.Random(2))
    hand2 = host.state()["hand_states"][1]
    assert sum(len(t["seats"]) for t in hand2["tables"]) == 16
    assert len(host.state()["tables"]) == 4  # a new table got its link


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    body=st.dictionaries(
        st.sampled_from(["hand", "side", "tricks", "by", "ns", "x"]),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(-(2**70), 2**70),
            st.floats(allow_nan=True),
            st.text(max_size=5),
            st.lists(st.integers(), max_size=3),
        ),
        max_size=5,
    ),
    endpoint=st.sampled_from(["enter", "confirm", "reject"]),
)
def test_hostile_table_input_is_refused_with_a_message(
    shared_evening: tuple[TestClient, str], body: dict[str, Any], endpoint: str
) -> None:
    client, path = shared_evening
    # sent as Python writes it: infinities and NaN as the non-JSON words Infinity and NaN
    # (the test client's own encoder refuses them)
    r = client.post(
        f"{path}/{endpoint}",
        content=json.dumps(body),
        headers={"content-type": "application/json"},
    )
    assert r.status_code < 500
    if r.status_code >= 400:
        assert r.json()["error"]


@pytest.fixture(scope="module")
def shared_evening(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str]]:
    with hall_client(create_app(tmp_path_factory.mktemp("e") / "e.sqlite3")) as c:
        host = Driver(c)  # type: ignore[arg-type]
        host.create({"preset": "felagsvist", "hands": 12})
        c.post(f"/api/e/{host.id}/import", json={"text": player_lines(4, 4)})
        c.post(f"/api/e/{host.id}/seat", json={"seed": 1})
        c.post(f"/api/e/{host.id}/status", json={"action": "start"})
        yield c, host.token_path(1)


def test_balancing_the_groups_and_an_early_leaver(client: TestClient) -> None:
    host = Driver(client)  # type: ignore[arg-type]
    host.create({"preset": "felagsvist", "hands": 12})
    host.post(f"/api/e/{host.id}/import", {"text": player_lines(10, 6)})
    host.post(f"/api/e/{host.id}/balance", {})
    players = host.state()["players"]
    assert sum(p["other_group"] for p in players) == 2
    host.post(f"/api/e/{host.id}/seat", {"seed": 4})
    host.post(f"/api/e/{host.id}/status", {"action": "start"})
    assert "before the start" in error(client.post(f"/api/e/{host.id}/balance", json={}), 409)
    # the first player leaves after hand 1: from hand 2 on they sit out (absent)
    players = host.state()["players"]
    players[0]["leaves"] = 1
    host.post(f"/api/e/{host.id}/players", {"players": players})
    host.play_hand(random.Random(5))
    hand2 = host.state()["hand_states"][1]
    assert players[0]["id"] in {o["player"] for o in hand2["sitting_out"]}
    # a list that would reseat a hand already played is refused
    players = host.state()["players"]
    r = client.post(f"/api/e/{host.id}/players", json={"players": players[1:]})
    assert r.status_code == 400


def test_the_projector_hides_the_standings_until_the_end(client: TestClient) -> None:
    host = running(client)
    host.play_hand(random.Random(9))
    shown = client.get(f"/api/e/{host.id}/projector").json()
    assert sorted(shown["standings"]) == ["A", "B"]
    assert sum(len(rows) for rows in shown["standings"].values()) == 12
    assert shown["current"] == {"number": 2, "contract": "S", "waiting": [1, 2, 3]}
    assert shown["moves"]["after"] == 1
    assert shown["prizes"] == []
    host.post(f"/api/e/{host.id}/hide", {"hidden": True})
    hidden = client.get(f"/api/e/{host.id}/projector").json()
    assert hidden["standings"] == {} and hidden["hide_standings"] is True
    host.post(f"/api/e/{host.id}/status", {"action": "finish"})
    final = client.get(f"/api/e/{host.id}/projector").json()
    assert sum(len(rows) for rows in final["standings"].values()) == 12
    assert final["prizes"] and all(p["names"] for p in final["prizes"])


def test_a_table_page_waits_for_its_own_table(client: TestClient) -> None:
    import threading

    host = running(client)
    tables = host.state()["hand_states"][0]["tables"]
    mine, other = host.token_path(1), host.token_path(2)
    view = client.get(mine).json()
    got: list[dict[str, Any]] = []
    waiter = threading.Thread(
        target=lambda: got.append(client.get(f"{mine}?since={view['etag']}").json())
    )
    waiter.start()
    # another table's entry changes the evening, not this table's view: the page waits on
    other_n = tables[1]["seats"]["N"]
    host.post(f"{other}/enter", {"hand": 1, "side": "NS", "tricks": 4, "by": other_n})
    assert client.get(f"{mine}?since=x").json()["etag"] == view["etag"]
    host.post(
        f"{mine}/enter", {"hand": 1, "side": "NS", "tricks": 9, "by": tables[0]["seats"]["N"]}
    )
    waiter.join(30)
    assert got and got[0]["etag"] != view["etag"]
    assert got[0]["hand"]["pending"] == {"ns": 9, "by": tables[0]["seats"]["N"], "mine": False}
    assert "etag" in error(client.get(f"{mine}?since=a-b"), 400)
