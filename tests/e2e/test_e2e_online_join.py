"""An online evening's open join link and the host's prizes in the browser (issue 34):
the organiser's form with the join link's checkbox and the hall organiser's prize
choices; a person opening the join link, refused a name already taken, then joining and
kept on their own player's link, seated by itself at the next hand; the host closing
the link. Screenshots at 390x844 and 1280x800 in English and Icelandic go to
$WHISTKIT_SHOTS if set, else the test's folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from .conftest import DESKTOP, PHONE, ServerProcess
from .pages import get_json, open_page, post_json, shots_dir

NAMES = ["Anna", "Bjarni", "Dóra", "Einar", "Fríða", "Gunnar", "Helga", "Ingi"]
SIZES = (("phone", PHONE), ("desktop", DESKTOP))


@pytest.fixture(scope="module")
def join_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = ServerProcess(tmp_path_factory.mktemp("join") / "games.sqlite3", bot_delay=0).start()
    yield srv
    srv.stop()


def test_organisers_form_opens_the_join_link_with_chosen_prizes(
    browser: Browser, join_server: ServerProcess, tmp_path: Path
) -> None:
    """The form's join link checkbox and prize choices reach the evening; the host's
    room shows the join link with the button that closes it."""
    shots = shots_dir(tmp_path)
    for lang in ("en", "is"):
        for label, viewport in SIZES:
            context = browser.new_context(viewport=viewport)
            page = context.new_page()
            open_page(page, join_server.url, lang=lang)
            page.wait_for_selector("#dlg-new[open]")
            page.locator("#new-evening").click()
            page.wait_for_selector("#dlg-evening[open]")
            page.locator("#ev-open-join").check()
            assert page.locator("#ev-players-join").is_visible()
            page.locator("#ev-top").fill("2")
            page.locator("#ev-ten").check()
            page.locator("#ev-lowest").uncheck()
            page.select_option("#ev-ties", "countback")
            page.screenshot(path=str(shots / f"organise-{lang}-{label}.png"))
            page.locator("#ev-prizes").scroll_into_view_if_needed()
            page.screenshot(path=str(shots / f"organise-prizes-{lang}-{label}.png"))
            # without groups the group prizes are not offered
            page.locator("#ev-groups").uncheck()
            assert not page.locator("#ev-top-group").is_visible()
            page.locator("#ev-groups").check()
            assert page.locator("#ev-top-group").is_visible()
            lines = "\n".join(f"{n}, {'AB'[i % 2]}" for i, n in enumerate(NAMES))
            page.locator("#ev-players").fill(lines)
            page.locator("#ev-create").click()
            page.wait_for_selector("#room-links a[data-player-link]")
            page.wait_for_selector("#room-join-link")
            assert page.locator("#room-join-link").is_visible()
            link = str(page.locator("#room-join-link").text_content())
            assert "?join-evening=" in link
            assert page.locator("#room-join-toggle").is_visible()
            page.screenshot(path=str(shots / f"room-join-{lang}-{label}.png"))
            evening = link.split("?join-evening=")[1]
            key = page.evaluate(f"sessionStorage.getItem('whistkit.room.{evening}')")
            state = get_json(f"{join_server.url}api/online-evenings/{evening}?key={key}")
            prizes = state["evening"]["config"]["prizes"]
            assert state["open_join"] is True
            assert (prizes["top"], prizes["top_per_group"], prizes["lowest"]) == (2, 3, False)
            assert prizes["ten_tricks"] is True and prizes["ties"] == "countback"
            # the host closes the link: the room says so
            page.locator("#room-join-toggle").click()
            page.wait_for_function(
                "() => !document.querySelector('#room-join-link').checkVisibility()"
            )
            assert not get_json(f"{join_server.url}api/online-evenings/{evening}/room")["open_join"]
            context.close()


def test_a_person_joins_by_the_link_and_plays_from_the_next_hand(
    browser: Browser, join_server: ServerProcess, tmp_path: Path
) -> None:
    shots = shots_dir(tmp_path)
    players = [{"name": n, "group": "AB"[i % 2]} for i, n in enumerate(NAMES)]
    made = post_json(
        join_server.url + "api/online-evenings",
        {"title": "Vist á netinu", "hands": 2, "players": players, "open_join": True},
    )
    key = made["host_url"].split("#k=")[1]
    # the join page, looked at on a phone and a desktop in English and Icelandic
    for lang in ("en", "is"):
        for label, viewport in SIZES:
            context = browser.new_context(viewport=viewport)
            page = context.new_page()
            open_page(page, made["join_url"], lang=lang)
            page.wait_for_selector("#ej-name")
            assert page.locator("#ej-title").text_content() == "Vist á netinu"
            assert page.locator("#ej-group").is_visible()  # the evening has groups
            page.locator("#ej-name").fill("anna")
            page.locator("#ej-submit").click()
            page.wait_for_function(
                "() => document.querySelector('#ej-error').textContent.includes('anna')"
            )
            page.screenshot(path=str(shots / f"join-{lang}-{label}.png"))
            context.close()
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    open_page(page, made["join_url"], lang="is")
    page.wait_for_selector("#ej-name")
    page.locator("#ej-name").fill("Jón")
    page.select_option("#ej-group", "B")
    page.locator("#ej-submit").click()
    page.wait_for_url("**/?evening=*")
    assert "#t=" in page.url
    # no table before hand 2: the page says so
    page.wait_for_function("() => document.querySelector('#status').textContent.includes('2')")
    page.screenshot(path=str(shots / "joined-wait-is-phone.png"))
    own = page.url
    # the join link again, in the same browser: back to their own link, no second join
    page.goto(made["join_url"])
    page.wait_for_url("**/?evening=*")
    assert page.url == own
    room = get_json(f"{join_server.url}api/online-evenings/{made['id']}/room")
    assert [p["name"] for p in room["players"]].count("Jón") == 1
    # the host ends hand 1: the joiner's page sits at their hand 2 table by itself
    post_json(f"{join_server.url}api/online-evenings/{made['id']}/end-hand?key={key}", {})
    page.wait_for_selector('#table[data-evening-hand="2"][data-evening-table]', timeout=60_000)
    page.wait_for_selector("#hand .card")
    page.screenshot(path=str(shots / "joined-hand2-is-phone.png"))
    context.close()
    # the host closes the link: the join page says it is closed
    post_json(
        f"{join_server.url}api/online-evenings/{made['id']}/join-link?key={key}",
        {"open": False},
    )
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    open_page(page, made["join_url"], lang="en")
    page.wait_for_function("() => document.querySelector('#ej-error').textContent.length > 0")
    assert "closed" in str(page.locator("#ej-error").text_content())
    assert page.locator("#ej-submit").is_disabled()
    context.close()
