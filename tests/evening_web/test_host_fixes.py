"""The host's side of the organiser, as a new user's walkthrough found it wanting: a
correction without a tricks count, pasted player lines read line by line and never guessed
at, a phone's entry waiting for confirmation replaced only knowingly, an early leaver
kept on until their last hand is played, and counts in the right plural form."""

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
from whistkit.evening.web import create_app, parse_player_lines

STATIC = Path(__file__).resolve().parents[2] / "src/whistkit/evening/static"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with hall_client(create_app(tmp_path / "e.sqlite3")) as c:
        yield c


def running(client: TestClient) -> Driver:
    host = Driver(client)  # type: ignore[arg-type]
    host.create({"preset": "felagsvist", "hands": 6})
    host.setup(6, 6, seed=7)
    return host


def error(r: Any, status: int) -> str:
    assert r.status_code == status, r.text
    message: str = r.json()["error"]
    return message


# -- 1. a correction needs a tricks count --------------------------------------------------


def test_a_correction_without_a_valid_tricks_count_is_refused_and_changes_nothing(
    client: TestClient,
) -> None:
    host = running(client)
    host.post(f"/api/e/{host.id}/result", {"hand": 1, "table": 1, "ns": 6})
    path = f"/api/e/{host.id}/correct"
    for bad in ({}, {"ns": None}, {"ns": ""}, {"ns": "6"}, {"ns": 6.5}, {"ns": -1}):
        r = client.post(path, json={"hand": 1, "table": 1, "reason": "x", **bad})
        assert "'ns' must be a whole number from 0 to 13" in error(r, 400), bad
    tb = host.state()["hand_states"][0]["tables"][0]
    assert tb["result"]["ns"] == 6
    assert [a["action"] for a in host.state()["audit"]].count("correct") == 0


# -- 4. pasted player lines ----------------------------------------------------------------


def test_each_pasted_line_is_split_by_its_own_separator() -> None:
    # a tab in one line no longer makes every line tab-separated
    players, problems = parse_player_lines("Anna\tB\nAri Þór, A\nGunna; b\nDóri, a, fixed")
    assert problems == []
    assert players == [
        {"name": "Anna", "group": "B", "fixed": False},
        {"name": "Ari Þór", "group": "A", "fixed": False},
        {"name": "Gunna", "group": "B", "fixed": False},
        {"name": "Dóri", "group": "A", "fixed": True},
    ]


@pytest.mark.parametrize(
    "header", ["name,group", "Name;Group;fixed", "nafn\thópur", "\nname, group", "Name"]
)
def test_a_header_line_is_skipped(header: str) -> None:
    players, problems = parse_player_lines(f"{header}\nAnna\tB\nAri Þór, A")
    assert problems == []
    assert [p["name"] for p in players] == ["Anna", "Ari Þór"]


def test_a_line_without_a_group_is_named_not_guessed() -> None:
    players, problems = parse_player_lines("Ari Þór, A\nAnna Jónsdóttir B\nBjarni\nEdda, C")
    assert [p["name"] for p in players] == ["Ari Þór"]
    assert problems == [
        "line 2 ('Anna Jónsdóttir B'): no group; write the name, a comma and A or B"
        " (e.g. 'Anna, B')",
        "line 3 ('Bjarni'): no group; write the name, a comma and A or B (e.g. 'Anna, B')",
        "line 4 ('Edda, C'): the group must be A or B, not 'C'",
    ]


def test_an_import_says_what_it_took_and_takes_nothing_from_a_bad_paste(
    client: TestClient,
) -> None:
    host = Driver(client)  # type: ignore[arg-type]
    host.create({"preset": "felagsvist", "hands": 6})
    path = f"/api/e/{host.id}/import"
    r = client.post(path, json={"text": "name,group\nAri Þór, A\nAnna Jónsdóttir B"})
    message = error(r, 400)
    assert message.startswith("Nothing imported: 1 line not understood.")
    assert "line 3 ('Anna Jónsdóttir B'): no group" in message
    assert host.state()["players"] == []
    made = host.post(path, {"text": "name\tgroup\nAri Þór, A\nAnna Jónsdóttir, B, fixed"})
    assert made["imported"] == [["Ari Þór", "A", False], ["Anna Jónsdóttir", "B", True]]
    assert [(p["name"], p["group"]) for p in host.state()["players"]] == [
        ("Ari Þór", "A"),
        ("Anna Jónsdóttir", "B"),
    ]
    assert "no player lines" in error(client.post(path, json={"text": "name,group\n\n"}), 400)


# -- 5. an entry waiting for confirmation is replaced knowingly ----------------------------


def test_a_pending_phone_entry_is_replaced_only_knowingly(client: TestClient) -> None:
    host = running(client)
    seats = host.state()["hand_states"][0]["tables"][0]["seats"]
    path = host.token_path(1)
    host.post(f"{path}/enter", {"hand": 1, "side": "NS", "tricks": 8, "by": seats["N"]})
    # a second phone (the other side, or the partner) is told, not obeyed
    for by, side, tricks in ((seats["E"], "EW", 6), (seats["S"], "NS", 9)):
        r = client.post(f"{path}/enter", json={"hand": 1, "side": side, "tricks": tricks, "by": by})
        assert "has already entered N–S 8 · E–W 5" in error(r, 409)
    assert client.get(path).json()["hand"]["pending"] == {"ns": 8, "by": seats["N"], "mine": False}
    # the same entry sent again (a retry) is fine
    host.post(f"{path}/enter", {"hand": 1, "side": "NS", "tricks": 8, "by": seats["N"]})
    # the host's paper entry: the same figures confirm it, others need "replace"
    result = f"/api/e/{host.id}/result"
    r = client.post(result, json={"hand": 1, "table": 1, "ns": 5})
    message = error(r, 409)
    assert "table 1 has an entry waiting for confirmation (N–S 8, by" in message
    assert host.state()["hand_states"][0]["tables"][0]["result"] is None
    host.post(result, {"hand": 1, "table": 1, "ns": 5, "replace": True})
    assert host.state()["hand_states"][0]["tables"][0]["result"]["ns"] == 5
    seats2 = host.state()["hand_states"][0]["tables"][1]["seats"]
    path2 = host.token_path(2)
    host.post(f"{path2}/enter", {"hand": 1, "side": "NS", "tricks": 7, "by": seats2["N"]})
    host.post(result, {"hand": 1, "table": 2, "ns": 7})
    assert host.state()["hand_states"][0]["tables"][1]["result"]["ns"] == 7


# -- 2. an early leaver can be kept on until their last hand is played ---------------------


def test_an_early_leaver_is_undone_until_that_hand_is_played(client: TestClient) -> None:
    host = running(client)
    path = f"/api/e/{host.id}/players"
    players = host.state()["players"]
    players[0]["leaves"] = 1
    host.post(path, {"players": players})
    assert host.state()["players"][0]["leaves"] == 1
    players[0]["leaves"] = None  # undone while hand 1 is in play
    host.post(path, {"players": players})
    assert host.state()["players"][0]["leaves"] is None
    players[0]["leaves"] = 1
    host.post(path, {"players": players})
    host.play_hand(random.Random(3))
    players = host.state()["players"]
    players[0]["leaves"] = None  # hand 2 is seated without them: too late
    assert error(client.post(path, json={"players": players}), 400)
    assert host.state()["players"][0]["leaves"] == 1


# -- 8. counts in each language's plural forms ---------------------------------------------

# CLDR plural categories of whole numbers the pages show, by language
CATEGORIES = {
    "en": {"one", "other"},
    "is": {"one", "other"},
    "sv": {"one", "other"},
    "it": {"one", "other"},
    "fr": {"one", "other"},
    "ru": {"one", "few", "many", "other"},
}
PLURAL = re.compile(r"\{(\w+)\|([^{}]*)\}")


def strings(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


@pytest.mark.parametrize("lang", sorted(CATEGORIES))
def test_counts_take_every_plural_form_of_the_language(lang: str) -> None:
    texts = strings(lang)
    for key in ("tables_to_report", "summary", "imported_n"):
        assert PLURAL.search(texts[key]), key
    for key, text in texts.items():
        for _, body in PLURAL.findall(text):
            forms = dict(f.split(":", 1) for f in body.split("|"))
            assert set(forms) == CATEGORIES[lang], (key, forms)
            assert all("#" in f for f in forms.values()), (key, forms)
