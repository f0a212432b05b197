"""Issue 33, part 3: what the organisers of a real evening saw and missed."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from evening_web.drive import Driver, hall_client, player_lines
from whistkit.evening.web import create_app


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with hall_client(create_app(tmp_path / "e.sqlite3")) as c:
        yield c


def evening_with(client: TestClient, extra: list[dict[str, Any]], hands: int = 12) -> Driver:
    """Eight players of the paste and ``extra`` (late arrivals, early leavers), started."""
    host = Driver(client)  # type: ignore[arg-type]
    host.create({"preset": "felagsvist", "hands": hands})
    host.post(f"/api/e/{host.id}/import", {"text": player_lines(4, 4)})
    players = host.state()["players"] + extra
    host.post(f"/api/e/{host.id}/players", {"players": players})
    host.post(f"/api/e/{host.id}/seat", {"mode": "random", "seed": 3})
    host.post(f"/api/e/{host.id}/status", {"action": "start"})
    return host


# -- 3. leavers and players not come yet are not "sitting out" ------------------------------


def test_leavers_go_home_and_late_arrivals_are_not_sitting_out(client: TestClient) -> None:
    """Before: a leaver's move after their last hand was "sits out", as was a player who
    had not come yet; nothing told them apart."""
    host = evening_with(
        client,
        [
            {"name": "Seinn", "group": "A", "arrives": 3},
            {"name": "Fer", "group": "B", "leaves": 1},
        ],
    )
    ids = {p["name"]: p["id"] for p in host.state()["players"]}
    first = host.state()["hand_states"][0]
    reasons = {s["player"]: s["reason"] for s in first["sitting_out"]}
    assert reasons[ids["Seinn"]] == "absent"
    host.play_hand(random.Random(1))
    moves = {m["player"]: m for m in host.state()["moves"]["moves"]}
    assert moves[ids["Fer"]]["to"] is None and moves[ids["Fer"]]["leaves"] is True
    assert not any(m["leaves"] for p, m in moves.items() if p != ids["Fer"])
    # the score cards: hands not in the hall are "not here", not "sat out"
    cards = {c["player"]: c["lines"] for c in client.get(f"/api/e/{host.id}/cards").json()["cards"]}
    assert [ln["absent"] for ln in cards[ids["Seinn"]][:2]] == [True, True]
    assert cards[ids["Fer"]][0]["absent"] is False


# -- 6. refused pages are pages in the user's language ---------------------------------------


def test_refused_pages_are_pages_in_the_browsers_language(client: TestClient) -> None:
    """Before: a wrong host key, and the print and export pages without the host's key,
    answered raw English JSON."""
    host = Driver(client)  # type: ignore[arg-type]
    host.create({"preset": "felagsvist", "hands": 12})
    stranger = hall_client(client.app)
    icelandic = {"accept-language": "is-IS,is;q=0.9,en;q=0.5"}
    r = stranger.get(f"/e/{host.id}/host?key=wrong", headers=icelandic, follow_redirects=False)
    assert r.status_code == 403 and r.headers["content-type"].startswith("text/html")
    assert (
        '<html lang="is">' in r.text and "Lykillinn í þessum stjórnandatengli er rangur" in r.text
    )
    for path in ("print/cards", "export.csv", "export.json"):
        r = stranger.get(f"/e/{host.id}/{path}", headers={"accept-language": "sv"})
        assert r.status_code == 403 and r.headers["content-type"].startswith("text/html"), path
        assert "Sidan är värdens" in r.text, path
    r = stranger.get(f"/e/{host.id}/export.csv", headers={"accept-language": "de, fr;q=0.4"})
    assert "Cette page est celle de l&#x27;organisateur" in r.text  # French: the first it has
    r = stranger.get("/e/nosuch/print/cards")
    assert r.status_code == 404 and '<html lang="en">' in r.text
    # the host's own pages still are what they were
    assert client.get(f"/e/{host.id}/export.csv").headers["content-type"].startswith("text/csv")


# -- 7. an early leaver's missed hands score nothing by default ----------------------------


def test_a_leaver_is_not_credited_for_the_hands_missed_by_default(client: TestClient) -> None:
    """Before: absence credit was on by default, and a leaver who played 5 of 12 hands
    tied for 4th on the average of those five."""
    host = evening_with(client, [{"name": "Fer", "group": "B", "leaves": 1}], hands=4)
    assert host.state()["config"]["credit_absence"] is False
    ids = {p["name"]: p["id"] for p in host.state()["players"]}
    rng = random.Random(4)
    for _ in range(3):
        host.play_hand(rng)
    st = host.state()
    first = st["hand_states"][0]
    table = next(t for t in first["tables"] if ids["Fer"] in t["seats"].values())
    seat = next(s for s, p in table["seats"].items() if p == ids["Fer"])
    played = table["result"]["points"][0 if seat in "NS" else 1]
    fer = next(s for s in st["standings"] if s["player"] == ids["Fer"])
    assert float(fer["total"]) == played  # hand 1 only: hands 2 and 3 add nothing


# -- 5. an import names every problem by its pasted line; a player can be renamed ---------


def test_an_import_names_every_problem_by_its_line(client: TestClient) -> None:
    """Before: only the first problem was reported, as "player 20" (its place in the
    list, not the pasted line)."""
    host = Driver(client)  # type: ignore[arg-type]
    host.create({"preset": "felagsvist", "hands": 12})
    host.post(f"/api/e/{host.id}/import", {"text": "Gunna, A\nHelgi, B"})
    pasted = "\n".join(
        [
            "Anna, A",
            "Bjarni, B",
            "x" * 41 + ", A",
            "anna, B",
            "Gunna, B",
            "Dóri\x07, A",
            "Edda, B",
        ]
    )
    r = client.post(f"/api/e/{host.id}/import", json={"text": pasted})
    assert r.status_code == 400
    lines = r.json()["error"].splitlines()
    assert lines[0].startswith("Nothing imported: 4 lines not understood")
    assert lines[1].startswith("line 3 ('xxxx") and "41 characters long; at most 40" in lines[1]
    assert lines[2] == "line 4 ('anna, B'): anna is there twice (line 1 too)"
    assert lines[3] == "line 5 ('Gunna, B'): Gunna is on the list already"
    assert lines[4].startswith("line 6 (") and "control character" in lines[4]
    assert [p["name"] for p in host.state()["players"]] == ["Gunna", "Helgi"]


def test_a_player_is_renamed_after_the_import_and_the_start(client: TestClient) -> None:
    host = evening_with(client, [])
    players = host.state()["players"]
    old = players[2]["name"]
    players[2] = {**players[2], "name": "Sigríður Á. Jónsdóttir"}
    host.post(f"/api/e/{host.id}/players", {"players": players})
    st = host.state()
    assert st["players"][2]["name"] == "Sigríður Á. Jónsdóttir"
    assert old not in {p["name"] for p in st["players"]}
    seated = {pid for t in st["hand_states"][0]["tables"] for pid in t["seats"].values()}
    assert players[2]["id"] in seated  # the same player, the same seat


# -- 8. a lowest total per group, one prize per person -------------------------------------


def test_lowest_of_each_group_and_one_prize_per_person(client: TestClient) -> None:
    """Before: neither could be asked for (an unknown prize field)."""
    host = evening_with(client, [], hands=6)
    rng = random.Random(8)
    for _ in range(6):
        host.play_hand(rng)
    config = host.state()["config"]
    prizes = {**config["prizes"], "lowest_per_group": True, "longest_at_table": True}
    host.post(f"/api/e/{host.id}/config", {"config": {**config, "prizes": prizes}})
    st = host.state()
    group = {s["player"]: s["group"] for s in st["standings"]}
    total = {s["player"]: float(s["total"]) for s in st["standings"]}
    by = {p["category"]: p for p in st["prizes"]}
    for g in "AB":
        low = by[f"lowest_{g}"]
        assert {group[p] for p in low["players"]} == {g}
        assert low["value"] == min(t for p, t in total.items() if group[p] == g)
    twice = [p for p in group if sum(p in x["players"] for x in st["prizes"]) > 1]
    assert twice  # without the option a winner takes more than one prize here
    host.post(
        f"/api/e/{host.id}/config",
        {"config": {**config, "prizes": {**prizes, "one_each": True}}},
    )
    won = [p for x in host.state()["prizes"] for p in x["players"]]
    assert len(won) == len(set(won))
    assert set(twice) <= set(won)  # they keep their first prize


# -- 8. a player's own running total on the table's phone ----------------------------------


def test_each_seat_on_the_phone_has_its_players_running_total(client: TestClient) -> None:
    """Before: a player saw their total only on the projector."""
    host = evening_with(client, [])
    host.play_hand(random.Random(9))
    st = host.state()
    total = {s["player"]: s["total"] for s in st["standings"]}
    for tb in st["hand_states"][1]["tables"]:
        seats = client.get(host.token_path(tb["table"])).json()["hand"]["seats"]
        assert {v["id"]: v["total"] for v in seats.values()} == {
            pid: total[pid] for pid in tb["seats"].values()
        }
    # hidden standings are hidden on the phones too
    host.post(f"/api/e/{host.id}/hide", {"hidden": True})
    seats = client.get(host.token_path(1)).json()["hand"]["seats"]
    assert all(v["total"] is None for v in seats.values())


# -- 8. half-time standings ------------------------------------------------------------------


def test_the_half_time_standings_once_the_first_half_is_reported(client: TestClient) -> None:
    """Before: the standings at the break were gone once the next hand was reported."""
    host = evening_with(client, [], hands=4)
    rng = random.Random(10)
    host.play_hand(rng)
    assert host.state()["half_time"] is None  # hand 2 not reported yet
    host.play_hand(rng)
    half = host.state()["half_time"]
    at_half = {s["player"]: s["total"] for s in host.state()["standings"]}
    host.play_hand(rng)
    st = host.state()
    assert st["half_time"] == half and half["after"] == 2
    rows = half["standings"]["A"] + half["standings"]["B"]
    assert {r["player"]: r["total"] for r in rows} == at_half
    assert {s["player"]: s["total"] for s in st["standings"]} != at_half
    for g in "AB":
        totals = [r["total"] for r in half["standings"][g]]
        assert totals == sorted(totals, reverse=True)
        assert half["standings"][g][0]["rank"] == 1


# -- 8. a running total over a series of evenings ------------------------------------------


def test_a_running_total_over_the_evenings_of_a_series(client: TestClient) -> None:
    """Before: each evening stood alone (an unknown config field 'series')."""
    rng = random.Random(13)
    done: list[dict[str, float]] = []
    hosts = []
    for title in ("Fyrsta kvöld", "Annað kvöld"):
        host = Driver(client)  # type: ignore[arg-type]
        host.create({"preset": "felagsvist", "hands": 2, "series": "Vetur 2026"}, title=title)
        host.setup(4, 4, seed=len(hosts) + 1)
        host.play_hand(rng)
        host.play_hand(rng)
        host.post(f"/api/e/{host.id}/status", {"action": "finish"})
        done.append({s["name"]: float(s["total"]) for s in host.state()["standings"]})
        hosts.append(host)
    other = Driver(client)  # type: ignore[arg-type]
    other.create({"preset": "felagsvist", "hands": 2, "series": "Sumar"})
    other.setup(4, 4)
    other.play_hand(rng)
    series = hosts[1].state()["series"]
    assert series["name"] == "Vetur 2026"
    assert [e["title"] for e in series["evenings"]] == ["Fyrsta kvöld", "Annað kvöld"]
    got = {r["name"]: (float(r["total"]), r["evenings"]) for r in series["standings"]}
    assert got == {n: (done[0][n] + done[1][n], 2) for n in done[0]}  # not the summer's
    for g in "AB":
        rows = [r for r in series["standings"] if r["group"] == g]
        assert rows[0]["rank"] == 1 and [r["total"] for r in rows] == sorted(
            (r["total"] for r in rows), reverse=True
        )
    assert other.state()["series"]["evenings"] == [{"id": other.id, "title": "Test evening"}]
    r = client.post("/api/evenings", json={"config": {"series": "x\x07"}})
    assert r.status_code == 400 and "series" in r.json()["error"]
