"""An online evening that gathers its players through the join link, in the browser: the
organiser's form with nobody entered, the host's room while people join (who is here,
the Start button), a person's page waiting for the start, a start refused with one
player, then the start that seats everyone at hand 1 by itself. Screenshots at 390x844
and 1280x800 in English and Icelandic go to $WHISTKIT_SHOTS if set, else the test's
folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from .conftest import DESKTOP, PHONE, ServerProcess
from .pages import get_json, open_page, post_json, shots_dir

SIZES = (("phone", PHONE), ("desktop", DESKTOP))


@pytest.fixture(scope="module")
def gather_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = ServerProcess(tmp_path_factory.mktemp("gather") / "games.sqlite3", bot_delay=0).start()
    yield srv
    srv.stop()


def open_form(page: Page) -> None:
    page.wait_for_selector("#dlg-new[open]")
    page.locator("#new-evening").click()
    page.wait_for_selector("#dlg-evening[open]")


def create_gathering(page: Page, title: str) -> str:
    """In the organiser's form: an evening that gathers, nobody entered; its id."""
    page.locator("#ev-title").fill(title)
    page.locator("#ev-gather").check()
    # gathering needs the join link: checked, and not to be unchecked meanwhile
    assert page.locator("#ev-open-join").is_checked()
    assert page.locator("#ev-open-join").is_disabled()
    assert page.locator("#ev-players-gather").is_visible()
    assert not page.locator("#ev-players-join").is_visible()
    page.locator("#ev-create").click()
    page.wait_for_selector("#room-start:visible")
    link = str(page.locator("#room-join-link").text_content())
    return link.split("?join-evening=")[1]


def test_the_form_and_the_room_of_an_evening_that_gathers(
    browser: Browser, gather_server: ServerProcess, tmp_path: Path
) -> None:
    shots = shots_dir(tmp_path)
    for lang in ("en", "is"):
        for label, viewport in SIZES:
            context = browser.new_context(viewport=viewport)
            page = context.new_page()
            open_page(page, gather_server.url, lang=lang)
            open_form(page)
            page.locator("#ev-gather").check()
            page.locator("#ev-players-gather").scroll_into_view_if_needed()
            page.screenshot(path=str(shots / f"organise-gather-{lang}-{label}.png"))
            page.locator("#ev-gather").uncheck()
            assert page.locator("#ev-open-join").is_enabled()
            evening = create_gathering(page, "Sunnudagsvist")
            # the host's room: waiting, nobody here yet, the join link to send
            assert page.locator("#room-join-link").is_visible()
            assert not page.locator("#room-end-hand").is_visible()
            assert not page.locator("#room-boards").is_visible()
            assert page.locator("#room-gathering").is_visible()
            # the join link's QR code, for phones in the same room as the host's screen
            page.wait_for_function("() => document.querySelector('#room-join-qr').naturalWidth > 0")
            page.screenshot(path=str(shots / f"room-gather-{lang}-{label}.png"))
            room = get_json(f"{gather_server.url}api/online-evenings/{evening}/room")
            assert room["gathering"] and room["players"] == []
            context.close()


def test_people_join_then_the_host_starts_the_evening(
    browser: Browser, gather_server: ServerProcess, tmp_path: Path
) -> None:
    shots = shots_dir(tmp_path)
    host_context = browser.new_context(viewport=DESKTOP)
    host = host_context.new_page()
    open_page(host, gather_server.url, lang="en")
    open_form(host)
    evening = create_gathering(host, "Sunday whist")
    join_url = f"{gather_server.url}?join-evening={evening}"
    people = []
    for n, (name, lang) in enumerate([("Anna", "is"), ("Bjarni", "en")]):
        context = browser.new_context(viewport=PHONE)
        page = context.new_page()
        open_page(page, join_url, lang=lang)
        page.wait_for_selector("#ej-name")
        note = str(page.locator("#ej-note").text_content())
        assert ("first hand" if lang == "en" else "fyrsta spili") in note, note
        page.locator("#ej-name").fill(name)
        page.locator("#ej-submit").click()
        page.wait_for_url("**/?evening=*")
        # no table yet: the page says the host starts the evening, and how many are in
        page.wait_for_function(
            f"() => document.querySelector('#status').textContent.includes('{n + 1}')"
        )
        people.append((context, page))
        if n == 0:
            page.screenshot(path=str(shots / "gather-wait-is-phone.png"))
            # the host presses Start with one player: asked twice, then refused by name
            host.wait_for_function(
                "() => document.querySelector('#room-joined').textContent.includes('Anna')"
            )
            host.locator("#room-start").click()
            assert "1" in str(host.locator("#room-start").text_content())
            host.locator("#room-start").click()
            host.wait_for_function(
                "() => document.querySelector('#room-status').textContent.includes('two')"
            )
            host.screenshot(path=str(shots / "room-gather-too-few-en-desktop.png"))
    # one joins twice, as "Anna 2": the host removes that one; its page says so and
    # leads back to the join link, which in that browser asks a name again
    extra = browser.new_context(viewport=PHONE)
    twice = extra.new_page()
    open_page(twice, join_url, lang="en")
    twice.wait_for_selector("#ej-name")
    twice.locator("#ej-name").fill("Anna 2")
    twice.locator("#ej-submit").click()
    twice.wait_for_url("**/?evening=*")
    twice.wait_for_function("() => document.querySelector('#status').textContent.includes('3')")
    host.wait_for_function(
        "() => document.querySelector('#room-joined').textContent.includes('Anna 2')"
    )
    host.screenshot(path=str(shots / "room-gather-joined-en-desktop.png"))
    remove = host.locator("#room-joined li", has_text="Anna 2").locator("button[data-remove]")
    remove.click()
    assert "Anna 2?" in str(remove.text_content())
    remove.click()
    host.wait_for_function(
        "() => !document.querySelector('#room-joined').textContent.includes('Anna 2')"
    )
    twice.wait_for_function(
        "() => document.querySelector('#status').textContent.includes('removed you')"
    )
    twice.screenshot(path=str(shots / "gather-removed-en-phone.png"))
    again = twice.locator("#evening-room")
    assert "join-evening=" in str(again.get_attribute("href"))
    again.click()
    twice.wait_for_selector("#ej-name")
    extra.close()
    host.wait_for_function(
        "() => document.querySelector('#room-joined').textContent.includes('Bjarni')"
    )
    open_page(host, f"{gather_server.url}?room={evening}", lang="is")  # (its key is kept)
    host.wait_for_selector("#room-joined li")
    host.set_viewport_size(PHONE)
    host.screenshot(path=str(shots / "room-gather-joined-is-phone.png"))
    host.set_viewport_size(DESKTOP)
    host.locator("#room-start").click()
    host.locator("#room-start").click()
    # each person's page sits at their hand 1 table by itself; the room shows the hand
    for _context, page in people:
        page.wait_for_selector('#table[data-evening-hand="1"][data-evening-table]', timeout=60_000)
        page.wait_for_selector("#hand .card")
    people[0][1].screenshot(path=str(shots / "gather-started-is-phone.png"))
    host.wait_for_selector("#room-boards:visible")
    assert not host.locator("#room-start").is_visible()
    assert host.locator("#room-end-hand").is_visible()
    room = get_json(f"{gather_server.url}api/online-evenings/{evening}/room")
    assert room["current"] == 1 and not room["gathering"]
    assert sorted(p["name"] for p in room["players"]) == ["Anna", "Bjarni"]
    for context, _page in people:
        context.close()
    host_context.close()


def test_the_room_says_who_of_those_entered_has_come(
    browser: Browser, gather_server: ServerProcess, tmp_path: Path
) -> None:
    """The host entered Anna and Bjarni and Dóra joined through the link: the room lists
    all three, Anna and Bjarni as not here yet, and "joined so far" counts Dóra alone;
    once Anna opens her link she is here and the count is two."""
    shots = shots_dir(tmp_path)
    players = [{"name": "Anna", "group": "A"}, {"name": "Bjarni", "group": "B"}]
    body = {
        "title": "Entered and joined",
        "hands": 2,
        "gather": True,
        "groups": True,
        "open_join": True,
        "level": "beginner",
        "players": players,
    }
    made = post_json(f"{gather_server.url}api/online-evenings", body)
    api = f"{gather_server.url}api/online-evenings/{made['id']}"
    post_json(f"{api}/join", {"name": "Dóra", "group": "B"})
    context = browser.new_context(viewport=PHONE)
    host = context.new_page()
    open_page(host, made["host_url"], lang="en")
    host.wait_for_function(
        "() => document.querySelector('#room-joined').textContent.includes('Dóra')"
    )
    rows = [str(t) for t in host.locator("#room-joined li").all_text_contents()]
    assert ["not here yet" in r for r in rows] == [True, True, False], rows
    assert "joined so far: 1" in str(host.locator("#room-status").text_content())
    host.screenshot(path=str(shots / "room-gather-entered-en-phone.png"))
    get_json(f"{api}/me?t={made['players'][0]['url'].split('#t=')[1]}")  # Anna comes
    host.wait_for_function(
        "() => document.querySelector('#room-status').textContent.includes('so far: 2')",
        timeout=15000,
    )
    rows = [str(t) for t in host.locator("#room-joined li").all_text_contents()]
    assert ["not here yet" in r for r in rows] == [False, True, False], rows
    context.close()
