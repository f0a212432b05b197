"""An online evening in the browser (issue 34): 8 players at 2 tables over 3 hands, 4 of
them in real browser pages and 4 WebSocket clients; every page goes to its next table
by itself, and each player's total is what the hall organiser's rules give for the
tables' records. Then the room and a player's page, looked at on a phone and a desktop
in English and Icelandic (screenshots under the test's folder)."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from websockets.sync.client import connect

from whistkit.evening import Evening, Result, derive
from whistkit.record import loads, replay

from .conftest import DESKTOP, PHONE, ServerProcess
from .pages import get_json, open_page, post_json, shots_dir

NAMES = ["Anna", "Bjarni", "Dóra", "Einar", "Fríða", "Gunnar", "Helga", "Ingi"]


@pytest.fixture(scope="module")
def evening_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = ServerProcess(tmp_path_factory.mktemp("online") / "games.sqlite3", bot_delay=0).start()
    yield srv
    srv.stop()


def create(srv: ServerProcess, hands: int = 3) -> dict[str, Any]:
    players = [{"name": n, "group": "A" if i % 2 == 0 else "B"} for i, n in enumerate(NAMES)]
    body = {
        "title": "Félagsvist á netinu",
        "hands": hands,
        "players": players,
        "seconds_per_hand": 900,
        "duplicate": False,
    }
    made: dict[str, Any] = post_json(srv.url + "api/online-evenings", body)
    return made


class SocketPlayer(threading.Thread):
    """A player on a WebSocket (no browser): follows their link's state from table to
    table as the page does, and plays the first lawful card whenever it is their turn."""

    def __init__(self, srv: ServerProcess, evening: str, name: str, url: str) -> None:
        super().__init__(daemon=True)
        self.srv = srv
        self.evening = evening
        self.name = name
        self.token = url.split("#t=")[1]
        self.hands: list[int] = []
        self.error: BaseException | None = None

    def me(self) -> dict[str, Any]:
        me: dict[str, Any] = get_json(
            f"{self.srv.url}api/online-evenings/{self.evening}/me?t={self.token}"
        )
        return me

    def run(self) -> None:
        try:
            self.play()
        except BaseException as e:  # reported by the test
            self.error = e

    def play(self) -> None:
        done: set[str] = set()
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            me = self.me()
            now = me.get("now")
            if me["finished"]:
                return
            if now is None or now["game"] in done:
                time.sleep(0.2)
                continue
            self.hands.append(now["hand"])
            self.play_table(now)
            done.add(now["game"])
        raise AssertionError(f"{self.name}: the evening did not end")

    def play_table(self, now: dict[str, Any]) -> None:
        with connect(f"ws://127.0.0.1:{self.srv.port}/ws?game={now['game']}") as ws:
            ws.send(
                json.dumps(
                    {
                        "type": "join",
                        "game": now["game"],
                        "seat": now["seat"],
                        "token": now["token"],
                        "name": self.name,
                    }
                )
            )
            acted = -1
            while True:
                msg = json.loads(ws.recv(timeout=120))
                assert msg["type"] != "error" or msg["code"] == "stale", msg
                view = msg.get("view")
                if msg["type"] not in ("state", "event") or view is None:
                    continue
                if view["winner"]:
                    return
                if view["to_play"] == now["seat"] and view["legal"] and msg["v"] > acted:
                    ws.send(json.dumps({**view["legal"][0], "v": msg["v"]}))
                    acted = msg["v"]


# a browser page's look at its table: its seat, whose turn, a legal card, the evening's marks
LOOK = """() => {
  const t = document.querySelector('#table');
  const me = document.querySelector('#me');
  const legal = document.querySelector('#hand [data-legal="true"]');
  return {
    seat: me ? me.dataset.seat || '' : '', turn: t.dataset.turn || '',
    version: t.dataset.version || '', card: legal ? legal.dataset.card : null,
    hand: t.dataset.eveningHand || '', table: t.dataset.eveningTable || '',
    move: document.querySelector('#evening-move:not([hidden]):not([data-over])') ?
      document.querySelector('#evening-move-text').textContent : '',
  };
}"""


def browser_turns(pages: dict[str, Page], sockets: list[SocketPlayer]) -> dict[str, Any]:
    """Click a lawful card on each page whose turn it is until every page says the
    evening is over; what each page showed (its hands and tables, the moves' texts)."""
    acted: dict[str, str] = {}
    seen: dict[str, dict[str, Any]] = {n: {"hands": [], "moves": set()} for n in pages}
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        for s in sockets:
            assert s.error is None, (s.name, s.error)
        over = 0
        for name, page in pages.items():
            look = page.evaluate(LOOK)
            mine = seen[name]
            if look["hand"] and (not mine["hands"] or mine["hands"][-1] != look["hand"]):
                mine["hands"].append(look["hand"])
            if look["move"]:
                mine["moves"].add(look["move"])
            if page.locator('#evening-move[data-over="true"]').count():
                over += 1
                continue
            if look["card"] and look["turn"] == look["seat"] and acted.get(name) != look["version"]:
                try:
                    page.locator(f'#hand [data-card="{look["card"]}"]').click(
                        force=True, timeout=3000
                    )
                    acted[name] = look["version"]
                except PlaywrightTimeout:
                    pass  # the table moved on meanwhile: looked at again
        if over == len(pages):
            return seen
        time.sleep(0.05)
    raise AssertionError("the evening did not end in the browsers")


def organiser_totals(srv: ServerProcess, state: dict[str, Any]) -> dict[int, float]:
    """The organiser's totals for the tables' records (read from the server's record
    download), with the evening's config and players (its whistkit-evening/1 document)."""
    results = []
    for hand in state["hands"]:
        for t in hand["tables"]:
            with urllib.request.urlopen(f"{srv.url}api/games/{t['game']}/record") as r:
                final = replay(loads(r.read().decode()))
            results.append(Result(hand["hand"], t["table"], final.results[0].tricks[0]))
    organiser = Evening.from_json(state["evening"])
    truth = Evening(organiser.config, organiser.players, tuple(results), (), True)
    done = derive(truth)
    # the seating the organiser gives for these records is the one played
    for hand in state["hands"]:
        for t in hand["tables"]:
            seats = done.hand(hand["hand"]).table(t["table"]).seat_map()
            assert {k: v["id"] for k, v in t["seats"].items()} == seats
    return dict(done.totals)


def test_eight_players_four_browsers_four_sockets_three_hands(
    browser: Browser, evening_server: ServerProcess
) -> None:
    made = create(evening_server)
    links = {p["name"]: p["url"] for p in made["players"]}
    in_browser = NAMES[:4]
    contexts = []
    pages: dict[str, Page] = {}
    for i, name in enumerate(in_browser):
        context = browser.new_context(viewport=PHONE if i % 2 else DESKTOP)
        contexts.append(context)
        page = context.new_page()
        open_page(page, links[name], lang="is" if i == 1 else "en")
        pages[name] = page
    sockets = [SocketPlayer(evening_server, made["id"], n, links[n]) for n in NAMES[4:]]
    for s in sockets:
        s.start()
    # the table element carries the evening's table and hand
    for page in pages.values():
        page.wait_for_selector('#table[data-evening-hand="1"][data-evening-table]')
        page.wait_for_selector("#hand .card")
    seen = browser_turns(pages, sockets)
    for s in sockets:
        s.join(60)
        assert s.error is None and s.hands == [1, 2, 3], (s.name, s.error, s.hands)
    # every page went to each next table by itself, with the move's words between
    for name, what in seen.items():
        assert what["hands"] == ["1", "2", "3"], (name, what)
        assert len(what["moves"]) >= 1, (name, what)
        assert all("table" in m or "borð" in m for m in what["moves"]), what["moves"]
    key = made["host_url"].split("#k=")[1]
    state = get_json(f"{evening_server.url}api/online-evenings/{made['id']}?key={key}")
    assert state["finished"]
    totals = organiser_totals(evening_server, state)
    assert {int(k): v for k, v in state["totals"].items()} == totals
    # each page's last word is the player's total
    for name, page in pages.items():
        pid = next(p["id"] for p in state["players"] if p["name"] == name)
        text = str(page.locator("#evening-move-text").text_content())
        total = totals[pid]
        assert (str(int(total)) if total == int(total) else f"{total:.1f}") in text
    # the room: the leaderboard of each group, and the prizes at the end
    room_page = contexts[0].new_page()
    open_page(room_page, made["room_url"])
    room_page.wait_for_selector('.room-board[data-group="A"] tr[data-player]')
    assert room_page.locator("#room-prizes li").count() >= 1
    for c in contexts:
        c.close()


def test_pages_on_phone_and_desktop_in_english_and_icelandic(
    browser: Browser, evening_server: ServerProcess, tmp_path: Path
) -> None:
    """The room (as the host sees it) and a player's page mid-evening, and the move's
    panel, at 390x844 and 1280x800 in English and Icelandic (the screenshots go to
    $WHISTKIT_SHOTS if set, else the test's folder)."""
    shots = Path(os.environ.get("WHISTKIT_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    made = create(evening_server, hands=2)
    for lang in ("en", "is"):
        for label, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            context = browser.new_context(viewport=viewport)
            page = context.new_page()
            open_page(page, made["players"][0]["url"], lang=lang)
            page.wait_for_selector('#table[data-evening-hand="1"]')
            page.wait_for_selector("#hand .card")
            page.screenshot(path=str(shots / f"player-{lang}-{label}.png"))
            # the move's panel, as it shows between hands
            page.evaluate(
                """() => { const b = document.querySelector('#evening-move');
                b.hidden = false; b.dataset.won = 'true';
                document.querySelector('#evening-move-text').textContent =
                  document.documentElement.lang === 'is'
                    ? 'Þú vannst: farðu að borði 2, Austur, makker Dóra'
                    : 'You won: move to table 2, East, partner Dóra'; }"""
            )
            page.screenshot(path=str(shots / f"move-{lang}-{label}.png"))
            room = context.new_page()
            open_page(room, made["host_url"], lang=lang)
            room.wait_for_selector('.room-board[data-group="B"] tr[data-player]')
            assert room.locator("#room-end-hand").is_visible()
            # the host's room lists the players' own links
            assert room.locator("#room-links a[data-player-link]").count() == len(NAMES)
            room.screenshot(path=str(shots / f"room-{lang}-{label}.png"), full_page=True)
            context.close()


def test_duplicate_comparison_page(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A duplicate evening nobody comes to (stand-ins play it all, the turn's time
    scaled): at the end the room shows how every table played each hand, and a table's
    review opens with the deal's double-dummy par."""
    monkeypatch.setenv("WHISTKIT_TURN_TIME_SCALE", "0.01")
    srv = ServerProcess(tmp_path / "dup.sqlite3", bot_delay=0).start()
    try:
        players = [{"name": n, "group": None} for n in NAMES]
        made = post_json(
            srv.url + "api/online-evenings",
            {"title": "Duplicate", "hands": 2, "players": players, "duplicate": True},
        )
        shots = Path(os.environ.get("WHISTKIT_SHOTS") or tmp_path)
        for lang, viewport, label in (("en", DESKTOP, "desktop"), ("is", PHONE, "phone")):
            context = browser.new_context(viewport=viewport)
            page = context.new_page()
            open_page(page, made["room_url"], lang=lang)
            page.wait_for_selector('[data-compare-hand="2"] button[data-review]', timeout=120_000)
            assert page.locator("[data-compare-hand] li").count() == 4  # 2 hands, 2 tables
            page.locator('[data-compare-hand="1"] button[data-review]').first.click()
            page.wait_for_selector("#dlg-review[open] #review-body table", timeout=120_000)
            page.screenshot(path=str(shots / f"compare-review-{lang}-{label}.png"))
            page.locator("#dlg-review .close").click()
            page.screenshot(path=str(shots / f"compare-{lang}-{label}.png"), full_page=True)
            context.close()
    finally:
        srv.stop()


def test_organiser_dialog_creates_an_evening(
    browser: Browser, evening_server: ServerProcess, tmp_path: Path
) -> None:
    """From the new-game dialog: the organiser's form, players pasted with their groups;
    a line without its group is refused by name; creating opens the host's room with
    every player's link."""
    shots = Path(os.environ.get("WHISTKIT_SHOTS") or tmp_path)
    for lang, viewport, label in (
        ("en", DESKTOP, "desktop"),
        ("is", PHONE, "phone"),
        ("en", PHONE, "phone"),
        ("is", DESKTOP, "desktop"),
    ):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        open_page(page, evening_server.url, lang=lang)
        page.wait_for_selector("#dlg-new[open]")
        page.locator("#new-evening").click()
        page.wait_for_selector("#dlg-evening[open]")
        page.locator("#ev-title").fill("Vist")
        page.select_option("#ev-hands", "18")
        page.locator("#ev-players").fill("Anna, A\nBjarni, B\nDóra\nEinar, B")
        page.screenshot(path=str(shots / f"organise-{lang}-{label}.png"))
        page.locator("#ev-create").click()
        page.wait_for_function("document.querySelector('#ev-error').textContent.includes('3')")
        lines = "\n".join(f"{n}, {'AB'[i % 2]}" for i, n in enumerate(NAMES))
        page.locator("#ev-players").fill(lines)
        page.locator("#ev-create").click()
        page.wait_for_selector("#room-links a[data-player-link]")
        assert page.locator("#room-links a[data-player-link]").count() == len(NAMES)
        assert "18" in str(page.locator("#room-status").text_content())
        context.close()


# -- the room at the end: score cards, the tables' records, the Games list ------------------

REVIEW_WORDS = {
    "en": {"all": "Cards that cost tricks", "own": "Your cards that cost tricks"},
    "is": {"all": "Spil sem kostuðu slagi", "own": "Spil þín sem kostuðu slagi"},
}
SIZES = (
    ("en", DESKTOP, "desktop"),
    ("is", PHONE, "phone"),
    ("en", PHONE, "phone"),
    ("is", DESKTOP, "desktop"),
)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A duplicate evening of 8 players and 2 hands nobody came to, played to its end by
    stand-ins (the turn's time scaled): the server, the evening's answer, its room and
    its API's address."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WHISTKIT_TURN_TIME_SCALE", "0.01")
        srv = ServerProcess(tmp_path_factory.mktemp("ended") / "games.sqlite3", bot_delay=0)
        srv.start()
    try:
        players = [{"name": n, "group": None} for n in NAMES]
        made = post_json(
            srv.url + "api/online-evenings",
            {"title": "Vist", "hands": 2, "players": players, "duplicate": True},
        )
        base = f"{srv.url}api/online-evenings/{made['id']}"
        deadline = time.monotonic() + 240
        while not get_json(f"{base}/room")["finished"]:
            assert time.monotonic() < deadline, "the evening did not end"
            time.sleep(0.5)
        yield {
            "srv": srv,
            "made": made,
            "room": get_json(f"{base}/room"),
            "base": base,
        }
    finally:
        srv.stop()


def test_finished_room_lists_records_and_score_cards(
    browser: Browser, finished: dict[str, Any], tmp_path: Path
) -> None:
    """At the end the room lists every table of every hand with its record and review,
    and a download of all the records; a name in the leaderboard opens the player's
    score card (hand by hand what the server's card gives)."""
    made, room = finished["made"], finished["room"]
    anna = get_json(f"{finished['base']}/card/1")
    games = [t["game"] for h in room["hands"] for t in h["tables"]]
    assert [line["hand"] for line in anna["lines"]] == [1, 2]
    shots = shots_dir(tmp_path)
    for lang, viewport, label in SIZES:
        context = browser.new_context(viewport=viewport, accept_downloads=True)
        page = context.new_page()
        open_page(page, made["host_url"], lang=lang)
        page.wait_for_selector('#room-records [data-records-hand="2"]')
        page.locator('#room-records [data-records-hand="2"] summary').click()
        hrefs = page.locator("#room-records a[data-record]").evaluate_all(
            "els => els.map(a => a.getAttribute('href'))"
        )
        assert hrefs == [f"/api/games/{g}/record" for g in games]
        assert page.locator("#room-records button[data-review]").count() == len(games)
        with page.expect_download() as got:
            page.locator("#room-records a[data-all-records]").click()
        document = json.loads(Path(got.value.path()).read_text())
        assert [r["game"] for r in document["records"]] == games
        assert all(r["record"]["format"] == "whistkit-record/1" for r in document["records"])
        page.screenshot(path=str(shots / f"room-end-{lang}-{label}.png"), full_page=True)
        # a name in the leaderboard: the player's score card
        page.locator('.room-board button[data-card-of="1"]').click()
        page.wait_for_selector('#dlg-card[open] .score-card tr[data-hand="2"]')
        for line in anna["lines"]:
            cells = page.locator(f'#dlg-card tr[data-hand="{line["hand"]}"] td').all_text_contents()
            assert cells[1] == str(line["table"]) and cells[3] == line["partner"], cells
            assert cells[4] == ", ".join(line["opponents"]), cells
            assert cells[5:8] == [str(line["tricks"]), str(line["points"]), str(line["total"])]
        page.screenshot(path=str(shots / f"score-card-{lang}-{label}.png"))
        context.close()


def test_review_from_the_room_names_the_seats_players(
    browser: Browser, finished: dict[str, Any], tmp_path: Path
) -> None:
    """A review opened from the room: its visitor sat at no seat of that table, so the
    costly cards are every seat's, each with its player's name (not "your cards")."""
    made, room = finished["made"], finished["room"]
    shots = shots_dir(tmp_path)
    seats = room["hands"][0]["tables"][0]["seats"]
    for lang, viewport, label in SIZES[:2]:
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        open_page(page, made["room_url"], lang=lang)
        page.locator('[data-compare-hand="1"] button[data-review]').first.click()
        page.wait_for_selector("#dlg-review[open] #review-body table", timeout=120_000)
        head = page.locator("#review-body th.col-given").text_content()
        assert head == REVIEW_WORDS[lang]["all"], head
        for li in page.locator("#review-body li[data-card]").all():
            seat = str(li.get_attribute("data-seat"))
            assert str(li.text_content()).startswith(seats[seat]["name"] + " ("), seat
        page.screenshot(path=str(shots / f"room-review-{lang}-{label}.png"))
        context.close()


def test_player_page_ends_on_their_score_card(
    browser: Browser, finished: dict[str, Any], tmp_path: Path
) -> None:
    """A player's own page at the end: their total and their score card, whose reviews
    speak of their own cards."""
    made = finished["made"]
    anna = get_json(f"{finished['base']}/card/1")
    shots = shots_dir(tmp_path)
    for lang, viewport, label in SIZES:
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        open_page(page, made["players"][0]["url"], lang=lang)
        page.wait_for_selector('#evening-card .score-card tr[data-hand="2"]')
        totals = page.locator("#evening-card td.total").all_text_contents()
        assert totals == [str(line["total"]) for line in anna["lines"]]
        assert str(anna["total"]) in str(page.locator("#evening-move-text").text_content())
        page.screenshot(path=str(shots / f"player-end-{lang}-{label}.png"))
        page.locator("#evening-card button[data-review]").first.click()
        page.wait_for_selector("#dlg-review[open] #review-body table", timeout=120_000)
        head = page.locator("#review-body th.col-given").text_content()
        assert head == REVIEW_WORDS[lang]["own"], head
        context.close()


def test_games_list_keeps_the_evenings(
    browser: Browser, finished: dict[str, Any], tmp_path: Path
) -> None:
    """The Games list holds the evening this browser hosts (its host link) and the one it
    plays in (a player's link), each opening its page again."""
    srv, made = finished["srv"], finished["made"]
    shots = shots_dir(tmp_path)

    def games_list(page: Page) -> None:
        page.goto(srv.url)
        page.wait_for_selector("body[data-ready]")
        page.keyboard.press("Escape")  # the new-game dialog
        page.locator("#btn-games").click()
        page.wait_for_selector("#dlg-games[open] li[data-evening]")

    for lang, viewport, label in SIZES:
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        open_page(page, made["host_url"], lang=lang)
        page.wait_for_selector("#room-links a[data-player-link]")
        open_page(page, made["players"][0]["url"], lang=lang)
        page.wait_for_selector('#evening-move[data-over="true"]')
        games_list(page)
        entries = page.locator("#dlg-games li[data-evening]")
        roles = entries.evaluate_all("els => els.map(e => e.dataset.role)")
        assert roles == ["player", "host"]  # the newest first
        assert all("Vist" in text for text in entries.all_text_contents())
        assert "Anna" in str(page.locator('#dlg-games li[data-role="player"]').text_content())
        page.screenshot(path=str(shots / f"games-evenings-{lang}-{label}.png"))
        page.locator('#dlg-games li[data-role="player"] a[data-open-evening]').click()
        page.wait_for_selector('#evening-move[data-over="true"]')
        assert "?evening=" in page.url
        games_list(page)
        page.locator('#dlg-games li[data-role="host"] a[data-open-evening]').click()
        page.wait_for_selector("#room-links a[data-player-link]")
        context.close()
