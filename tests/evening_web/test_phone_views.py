"""What the phones and the projector are told: the table that reports a hand last still
sees where its movers go, late arrivals are named as new, no moves once every hand is
reported, and every refusal a page can meet carries a code with a string in every
language (the pages show it in theirs)."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from evening_web.drive import Driver, hall_client
from whistkit.evening.web import create_app

SRC = Path(__file__).resolve().parents[2] / "src/whistkit/evening"
LANGS = ["en", "is", "sv", "it", "fr", "ru"]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with hall_client(create_app(tmp_path / "e.sqlite3")) as c:
        yield c


def running(client: TestClient, players: tuple[int, int] = (6, 6)) -> Driver:
    host = Driver(client)  # type: ignore[arg-type]
    host.create({"preset": "felagsvist", "hands": 12})
    host.setup(*players, seed=7)
    return host


def report(host: Driver, table: int, ns: int) -> None:
    """Table ``table`` enters (N) and confirms (E) ``ns`` tricks of the hand in play."""
    st = host.state()
    hand = st["current"]["number"]
    seats = st["hand_states"][hand - 1]["tables"][table - 1]["seats"]
    path = host.token_path(table)
    host.post(f"{path}/enter", {"hand": hand, "side": "NS", "tricks": ns, "by": seats["N"]})
    host.post(f"{path}/confirm", {"hand": hand, "by": seats["E"], "ns": ns})


def test_the_last_table_to_report_sees_where_its_movers_go(client: TestClient) -> None:
    host = running(client)
    before = host.state()["hand_states"][0]["tables"]
    report(host, 1, 8)
    report(host, 2, 5)
    # table 1 reported before the hand was over: its result shows its moves
    first = client.get(host.token_path(1)).json()
    assert first["hand"]["number"] == 1 and first["moves"]
    report(host, 3, 9)  # the last table: its page goes straight to hand 2
    view = client.get(host.token_path(3)).json()
    assert view["hand"]["number"] == 2
    seats2 = host.state()["hand_states"][1]["tables"]
    where = {pid: t["table"] for t in seats2 for pid in t["seats"].values()}
    were_here = set(before[2]["seats"].values())
    leaving = {pid for pid in were_here if where.get(pid) != 3}
    assert leaving, "somebody leaves table 3 after hand 1"
    assert {m["player"] for m in view["left"]} == leaving
    for m in view["left"]:
        assert m["from"] == 3 and m["to"] == where[m["player"]] and m["after"] == 1
        assert m["seat"] in ("N", "E", "S", "W")
    # and who comes in, as before
    assert {m["player"] for m in view["arrived"]} == set(seats2[2]["seats"].values())


def test_a_late_arrival_is_named_as_new_not_as_back_from_sitting_out(client: TestClient) -> None:
    host = running(client, players=(7, 7))
    sat_out = {s["player"] for s in host.state()["hand_states"][0]["sitting_out"]}
    assert len(sat_out) == 2
    host.post(f"/api/e/{host.id}/import", {"text": "Sól, A\nKári, B"})
    late = {p["id"] for p in host.state()["players"] if p["name"] in ("Sól", "Kári")}
    host.play_hand(random.Random(2))
    coming: dict[int, dict[str, Any]] = {}
    for t in host.state()["tables"]:
        for m in client.get(host.token_path(t["number"])).json()["arrived"]:
            if m["from"] is None:
                coming[m["player"]] = m
    assert late <= set(coming)
    for pid, m in coming.items():
        assert m["new"] is (pid in late), m


def test_the_projector_shows_no_moves_once_every_hand_is_reported(client: TestClient) -> None:
    host = running(client)
    rng = random.Random(3)
    host.play_hand(rng)
    assert client.get(f"/api/e/{host.id}/projector").json()["moves"]["after"] == 1
    for _ in range(11):
        host.play_hand(rng)
    view = client.get(f"/api/e/{host.id}/projector").json()
    assert view["current"] is None and view["moves"] is None


def test_the_projector_page_without_the_host_key_is_a_page(client: TestClient) -> None:
    host = running(client)
    stranger = hall_client(client.app)
    r = stranger.get(f"/e/{host.id}/projector")
    assert r.status_code == 403 and r.headers["content-type"].startswith("text/html")
    api = stranger.get(f"/api/e/{host.id}/projector")
    assert api.status_code == 403 and api.json()["code"] == "host_only"


def codes(r: Any, status: int) -> str:
    assert r.status_code == status, r.text
    code: str = r.json()["code"]
    return code


def test_the_refusals_a_phone_meets_carry_a_code(client: TestClient) -> None:
    host = running(client)
    st = host.state()
    seats = st["hand_states"][0]["tables"][0]["seats"]
    path = host.token_path(1)
    assert codes(client.get(f"/api/t/{host.id}/{'A' * 22}"), 404) == "no_table"
    assert codes(client.get(f"/api/t/nosuch/{'A' * 22}"), 404) == "no_evening"
    enter = {"hand": 2, "side": "NS", "tricks": 7, "by": seats["N"]}
    assert codes(client.post(f"{path}/enter", json=enter), 400) == "not_in_play"
    enter["hand"] = 1
    other = st["hand_states"][0]["tables"][1]["seats"]["N"]
    assert codes(client.post(f"{path}/enter", json={**enter, "by": other}), 400) == "not_at_table"
    assert codes(client.post(f"{path}/enter", json={**enter, "side": "EW"}), 400) == "own_side"
    confirm = {"hand": 1, "by": seats["E"], "ns": 7}
    assert codes(client.post(f"{path}/confirm", json=confirm), 400) == "no_entry"
    host.post(f"{path}/enter", enter)
    assert codes(client.post(f"{path}/confirm", json={**confirm, "by": seats["S"]}), 400) == (
        "opponent_confirms"
    )
    assert codes(client.post(f"{path}/confirm", json={**confirm, "ns": 6}), 409) == "changed"
    host.post(f"/api/e/{host.id}/status", {"action": "pause"})
    assert codes(client.post(f"{path}/confirm", json=confirm), 409) == "not_running"


def test_every_error_code_has_a_string_in_every_language() -> None:
    found: set[str] = set()
    for name in ("web.py", "live.py", "store.py", "model.py"):
        code = (SRC / name).read_text("utf-8")
        found |= set(re.findall(r'code="([a-z_]+)"', code))
    assert {"no_table", "host_only", "not_in_play", "not_running", "busy"} <= found
    for lang in LANGS:
        strings = json.loads((SRC / "static/i18n" / f"{lang}.json").read_text("utf-8"))
        assert [c for c in sorted(found) if f"err_{c}" not in strings] == [], lang
        assert "{text}" in strings["not_sent"] and strings["not_sent_offline"], lang
        assert ("{a}" in strings["pair_and"] and "&" not in strings["pair_and"]) or lang == "en"
