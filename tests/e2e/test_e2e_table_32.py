"""The table's behaviour (issue 32, items 1, 2, 4, 5, 7, 8, 9, 11): one test per item.

Each test drives the page as a player does and reads only what the page shows (and its
data attributes); each failed on the code before its fix.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from whistkit.server.app import STATIC_DIR

from .conftest import DESKTOP, ServerProcess
from .pages import (
    MY_TURN_OR_END,
    hand_cards,
    legal_cards,
    open_page,
    start_by_clicks,
    start_by_keyboard,
    trick_cards,
    version,
    wait_my_turn,
)
from .test_e2e_friends import close_all, create_table, join, new_person, play_until_turn


def strings(lang: str = "en") -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC_DIR / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


def tally(page: Page) -> tuple[int, int]:
    ns = int(page.locator("[data-tricks-ns]").inner_text())
    ew = int(page.locator("[data-tricks-ew]").inner_text())
    return ns, ew


PANEL_OR_TURN = f"(last) => !document.querySelector('#hand-end').hidden || ({MY_TURN_OR_END})(last)"


def play_to_panel(page: Page) -> None:
    """Click legal cards until the end-of-hand panel is up. The last three tricks at a
    person's pace (the page reads the pace as it shows each event), where the panel waits
    for the player: at pace 0 it goes with the next card, a bot's lead too."""
    panel = page.locator("#hand-end")
    last = ""
    paced = False
    while True:
        page.wait_for_function(PANEL_OR_TURN, arg=last, timeout=60_000)
        if panel.is_visible():
            return
        last = version(page)
        if not paced and len(hand_cards(page)) <= 3:
            page.evaluate("localStorage.setItem('whistkit.pace', 'fast')")
            paced = True
        page.locator('#hand [data-legal="true"]').first.click()


def test_item_11_enter_after_a_refused_click_plays_the_selected_card(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    start_by_keyboard(page, seed=4)
    last = ""
    for _ in range(13):
        assert wait_my_turn(page, last)
        last = version(page)
        illegal = page.locator('#hand .card[aria-disabled="true"]')
        if illegal.count() and legal_cards(page):
            break
        page.locator('#hand [data-legal="true"]').first.click()
    else:
        raise AssertionError("S never had a card it may not play")
    held = len(hand_cards(page))
    illegal.first.click(force=True)  # (Playwright waits for an aria-disabled one)
    assert page.locator("#status").inner_text() != ""  # says why it was refused
    # the selection stayed on a card S may play: Enter plays it
    assert page.locator("#hand .card.selected").get_attribute("data-legal") == "true"
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(n) => document.querySelectorAll('#hand .card').length < n", arg=held, timeout=10_000
    )
    page.close()


def test_item_2_space_puts_the_end_of_hand_panel_away(
    browser: Browser, server: ServerProcess
) -> None:
    """At a person's pace the end of a hand waits with its panel up: Space goes on (as
    docs/web.md says: a click, a key or your next card), and the next deal comes."""
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    start_by_keyboard(page, seed=3)
    panel = page.locator("#hand-end")
    last = ""
    paced = False
    while True:
        page.wait_for_function(PANEL_OR_TURN, arg=last, timeout=60_000)
        if panel.is_visible():
            break
        last = version(page)
        if not paced and len(hand_cards(page)) <= 3:
            page.evaluate("localStorage.setItem('whistkit.pace', 'fast')")
            paced = True
        page.locator('#hand [data-legal="true"]').first.click()
    page.keyboard.press(" ")
    page.wait_for_selector("#hand-end[hidden]", state="attached")
    assert page.locator("#status").inner_text() != strings()["refused_turn"]
    # the next hand is dealt
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 13")
    assert panel.is_hidden()
    page.close()


def test_item_4_the_panel_comes_after_the_last_trick_is_shown(
    browser: Browser, server: ServerProcess
) -> None:
    """At a person's pace the end-of-hand panel comes once the last trick is on the table:
    no card left in any hand, the tally and the header agree with the panel."""
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    start_by_keyboard(page, seed=3)
    panel = page.locator("#hand-end")
    last = ""
    paced = False
    while True:
        page.wait_for_function(PANEL_OR_TURN, arg=last, timeout=60_000)
        if panel.is_visible():
            break
        last = version(page)
        if not paced and len(hand_cards(page)) <= 3:
            page.evaluate("localStorage.setItem('whistkit.pace', 'fast')")
            paced = True
        page.locator('#hand [data-legal="true"]').first.click()
    assert paced
    # what is under the panel, at the moment it came
    seen = page.evaluate(
        """() => ({
          backs: document.querySelectorAll('.seat .backs img').length,
          hand: document.querySelectorAll('#hand .card').length,
          trick: document.querySelectorAll('[data-trick] [data-card]').length,
          status: document.querySelector('#status').textContent,
          ns: document.querySelector('[data-tricks-ns]').textContent,
          ew: document.querySelector('[data-tricks-ew]').textContent,
          scoreNs: document.querySelector('[data-score-ns]').textContent,
          scoreEw: document.querySelector('[data-score-ew]').textContent,
          rows: [...document.querySelectorAll('#hand-end tbody tr')]
            .map((r) => [...r.cells].map((c) => c.textContent)),
        })"""
    )
    assert seen["backs"] == 0 and seen["hand"] == 0, seen
    assert seen["trick"] == 4, seen  # the last trick, on the table
    assert "to play" not in seen["status"], seen
    ns_row, ew_row = seen["rows"]
    assert (seen["ns"], seen["ew"]) == (ns_row[1], ew_row[1]), seen
    assert (seen["scoreNs"], seen["scoreEw"]) == (ns_row[3], ew_row[3]), seen
    page.close()


def revoke_in_first_hand(page: Page) -> str:
    """Laws mode, English, seed 5: play legal cards until S may revoke, then revoke (two
    clicks); the revoking card."""
    start_by_clicks(page, "english", {"play_mode": "laws"}, seed=5)
    last = ""
    for _ in range(13):
        assert wait_my_turn(page, last, timeout=60_000)
        last = version(page)
        revoke = page.locator('#hand [data-irregular="true"]')
        if revoke.count():
            break
        page.locator('#hand [data-legal="true"]').first.click()
    else:
        raise AssertionError("S never could revoke in the first hand")
    bad = str(revoke.first.get_attribute("data-card"))
    revoke.first.click()
    page.locator(f'#hand [data-card="{bad}"][data-armed="true"]').click()
    return bad


def short(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[card[1]]


def test_item_1_an_established_revoke_is_announced_with_the_hand_end(
    browser: Browser, tmp_path: Path
) -> None:
    srv = ServerProcess(tmp_path / "laws.sqlite3").start()
    try:
        page = browser.new_page(viewport=DESKTOP)
        open_page(page, srv.url)
        bad = revoke_in_first_hand(page)
        # play on without correcting: the revoke is established, the hand goes to its end
        panel = page.locator("#hand-end")
        play_to_panel(page)
        assert panel.get_attribute("data-ended") == "1"
        text = panel.inner_text()
        en = strings()
        said = page.locator("#hand-end p.revoke").all_inner_texts()
        assert len(said) == 2, text
        assert said[0].startswith(en["revoke_established_you"].split("{")[0]), said
        assert short(bad) in said[0], said  # the card, and its trick
        # who claimed (E-W, the bots, automatically) and what it cost them (English: points)
        assert said[1].startswith(en["revoke_claimed"].format(side="E–W")), said
        assert "E–W +3" in said[1], said
        page.close()
    finally:
        srv.stop()


def test_item_8_a_corrected_revoke_says_what_happened(browser: Browser, tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path / "laws.sqlite3", bot_delay=1.5).start()
    try:
        page = browser.new_page(viewport=DESKTOP)
        open_page(page, srv.url)
        bad = revoke_in_first_hand(page)
        pick = page.locator('#actions [data-pick="Correct"]')
        pick.wait_for()
        pick.click()
        good = legal_cards(page)[0]
        page.locator(f'#hand [data-card="{good}"]').click()
        page.wait_for_function(
            "(c) => document.querySelector(`#hand [data-card='${c}']`) !== null", arg=bad
        )
        status = page.locator("#status").inner_text()
        en = strings()
        want = en["corrected_you"].format(old=short(bad), card=short(good))
        assert want in status, status
        assert good in trick_cards(page)
        page.close()
    finally:
        srv.stop()


def test_item_5_a_friend_who_leaves_is_shown_counting_down_and_back(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the table's time scaled (30 s -> 15 s): the countdown is in real seconds
    monkeypatch.setenv("WHISTKIT_TURN_TIME_SCALE", "0.5")
    srv = ServerProcess(tmp_path / "away.sqlite3", bot_delay=0).start()
    try:
        host = new_person(browser, "S", srv.url)
        links = create_table(host, "felagsvist", {"N": "person", "E": "club", "W": "club"})
        north = join(browser, "N", links["N"], "Nina")
        host.page.locator("#dlg-invite .close").click()
        # play until it is North's turn; North closes their page then
        play_until_turn([host, north], north)
        north.context.close()
        en = strings()
        status = host.page.locator("#status")
        counting = en["away_standin_in"].split("{s}")[0].format(name="Nina")
        host.page.wait_for_function(
            "(t) => document.querySelector('#status').textContent.includes(t)", arg=counting
        )
        first = status.inner_text()
        # it counts down: the seconds change while the table waits
        host.page.wait_for_function(
            "([t, was]) => { const s = document.querySelector('#status').textContent;"
            " return !s.includes(t) || s !== was; }",
            arg=[counting, first],
        )
        # then the stand-in plays, and the status says so
        host.page.wait_for_function(
            "(t) => document.querySelector('#status').textContent.includes(t)",
            arg=en["away_standin"].format(name="Nina"),
            timeout=60_000,
        )
        # North comes back: said once, and the away line goes
        back = join(browser, "N", links["N"], "Nina")
        host.page.wait_for_function(
            "(t) => document.querySelector('#status').textContent.includes(t)",
            arg=en["person_back"].format(name="Nina"),
        )
        assert "Nina has left" not in status.inner_text()
        close_all([host, back])
    finally:
        srv.stop()


STATUS_SEEN = """
addEventListener('DOMContentLoaded', () => {
  window.__status = [];
  const s = document.querySelector('#status');
  new MutationObserver(() => window.__status.push(
    [document.querySelector('#table').dataset.phase || '', document.querySelector('#table').dataset.turn || '', s.textContent]
  )).observe(s, { childList: true, characterData: true, subtree: true });
});
"""


def test_item_9_swedish_bidding_reveal_and_outcome_are_said(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.add_init_script(STATUS_SEEN)
    open_page(page, server.url)
    start_by_clicks(page, "swedish", {}, seed=7)
    en = strings()
    last = ""
    while page.locator("#table").get_attribute("data-phase") != "play":
        assert wait_my_turn(page, last)
        last = version(page)
        if page.locator("#table").get_attribute("data-phase") != "bid":
            break
        page.locator('#hand [data-legal="true"]').first.click()
    page.wait_for_function("() => document.querySelector('#table').dataset.phase === 'play'")
    # while a bot chose its bottom card, the status said so (not "West to play")
    seen = page.evaluate("() => window.__status")
    bidding = [text for phase, turn, text in seen if phase == "bid" and turn not in ("", "S")]
    assert bidding, seen
    choosing = en["choosing_bottom"].split("{seat}")[1]
    assert all(choosing in text for text in bidding), bidding
    # the bottom cards turned up, together, with their colours and what they made
    info = page.locator("#public-info").inner_text()
    contract = page.locator("#hand-info").get_attribute("data-contract")
    lead = en["bottoms_spel" if contract == "SPEL" else "bottoms_nollspel"].split("{cards}")[0]
    assert lead in info, info
    assert en["colour_red"] in info or en["colour_black"] in info, info
    if contract == "SPEL":
        assert en["colour_red"] in info
    else:
        assert en["colour_red"] not in info
    # the end of the hand says whether the declarer made it
    play_to_panel(page)
    assert page.locator("#hand-end").get_attribute("data-ended") == "1"
    made = page.locator("#hand-end p.made").inner_text()
    ns, ew = (int(x) for x in page.locator("#hand-end tbody tr td:nth-child(2)").all_inner_texts())
    if contract == "SPEL":
        word = en["spel_made"].split(":")[0], en["spel_failed"].split(":")[0]
        assert made.split(":")[0] in word, made
    else:
        assert en["nollspel_made"].split(":")[0] in made, made
    assert str(ns) in made or str(ew) in made, made
    page.close()


def test_item_7_an_invite_says_what_comes_and_no_tool_acts_without_a_game(
    browser: Browser, server: ServerProcess
) -> None:
    host = new_person(browser, "S", server.url)
    links = create_table(host, "felagsvist", {"N": "person", "E": "club", "W": "club"})
    host.page.locator("#dlg-invite .close").click()
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    open_page(page, links["N"])
    page.wait_for_selector("#dlg-join[open]")
    en = strings()
    # what happens next, and how to play from the form itself
    page.wait_for_function("() => document.querySelector('#join-next').textContent !== ''")
    assert page.locator("#join-next").inner_text() == en["join_next"].format(host="Anna")
    page.locator("#join-rules").click()
    page.wait_for_selector("#dlg-rules[open]")
    assert page.locator("#dlg-join[open]").count() == 1  # the form stays beneath
    page.locator("#dlg-rules .close").first.click()
    # the game's tools do nothing without a game: disabled, and their keys too
    for tool in ("#btn-new", "#btn-hint", "#btn-last", "#btn-sheet"):
        assert page.locator(tool).is_disabled(), tool
    page.locator("#player-name").fill("Nina")
    page.locator("#player-name").press("Enter")
    page.wait_for_selector('#me[data-seat="N"][data-player="Nina"]')
    for tool in ("#btn-new", "#btn-hint", "#btn-last", "#btn-sheet"):
        assert page.locator(tool).is_enabled(), tool
    # a watcher gets no Hint and no New game (the last trick is theirs to look at)
    watch = browser.new_context(viewport=DESKTOP)
    wpage = watch.new_page()
    open_page(wpage, links["watch"])
    wpage.wait_for_selector('#table[data-role="watch"][data-version]')
    assert wpage.locator("#btn-hint").is_hidden() and wpage.locator("#btn-new").is_hidden()
    assert wpage.locator("#btn-last").is_visible()
    wpage.keyboard.press("n")
    wpage.keyboard.press("h")
    assert wpage.locator("dialog[open]").count() == 0
    close_all([host])
    context.close()
    watch.close()
