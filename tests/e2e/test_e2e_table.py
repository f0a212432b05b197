"""The card table, finished (issue 21): one test per finding of the trial, bots at pace 0.

Each test names the finding it covers; they drive the page as a player does, by mouse or
keyboard, and read only what the page shows (and its data attributes).
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

from whistkit.server.app import STATIC_DIR

from .conftest import DESKTOP, PHONE, ServerProcess
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

RED = {"S": False, "H": True, "D": True, "C": False}


def en(key: str, lang: str = "en") -> str:
    data: dict[str, str] = json.loads((STATIC_DIR / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data[key]


def hand_number(page: Page) -> int:
    return int(page.locator("#hand-info").get_attribute("data-hand") or 0)


def tricks(page: Page) -> tuple[int, int]:
    ns = int(page.locator("[data-tricks-ns]").inner_text())
    ew = int(page.locator("[data-tricks-ew]").inner_text())
    return ns, ew


def play_one(page: Page, last: str) -> str | None:
    """Wait for S's turn after ``last`` and click the first legal card; None at game end."""
    if not wait_my_turn(page, last):
        return None
    now = version(page)
    page.locator('#hand [data-legal="true"]').first.click()
    return now


def play_to_hand(page: Page, number: int) -> int:
    """Click legal cards until hand ``number`` has begun; returns the clicks made."""
    last, clicks = "", 0
    while True:
        assert wait_my_turn(page, last), "the game ended first"
        if hand_number(page) >= number:
            return clicks
        last, clicks = version(page), clicks + 1
        page.locator('#hand [data-legal="true"]').first.click()


def test_finding_01_trick_counts_always_show_this_hands_tricks(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    start_by_keyboard(page, seed=11)
    assert tricks(page) == (0, 0)
    last, seen = "", set()
    while hand_number(page) == 1:
        if not wait_my_turn(page, last):
            break
        if hand_number(page) != 1:
            break
        # at S's turn the tricks taken so far are those S's hand has lost cards to
        ns, ew = tricks(page)
        assert ns + ew == 13 - len(hand_cards(page)), (ns, ew, hand_cards(page))
        seen.add(ns + ew)
        last = version(page)
        page.locator('#hand [data-legal="true"]').first.click()
    assert len(seen) >= 6  # (a single legal card is played for S, unseen)
    # the next hand starts from 0-0, and the sheet has the last hand's tricks
    assert tricks(page) == (0, 0)
    page.keyboard.press("s")
    row = page.locator("#dlg-sheet tbody tr").first
    assert row.locator(".col-tricks").inner_text().count("–") == 1
    page.close()


def test_finding_02_a_corrected_revoke_leaves_the_table(browser: Browser, tmp_path: Path) -> None:
    """Laws mode: the revoking card, once corrected, is back in the hand and off the table
    (also when it had completed the trick)."""
    srv = ServerProcess(tmp_path / "laws.sqlite3", bot_delay=1.5).start()
    try:
        page = browser.new_page(viewport=DESKTOP)
        open_page(page, srv.url)
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
        revoke = page.locator(f'#hand [data-card="{bad}"]')
        revoke.click()  # the second click plays it (finding 13)
        pick = page.locator('#actions [data-pick="Correct"]')
        pick.wait_for()
        assert bad in trick_cards(page)
        pick.click()
        good = legal_cards(page)[0]
        page.locator(f'#hand [data-card="{good}"]').click()
        page.wait_for_function(
            "(c) => document.querySelector(`#hand [data-card='${c}']`) !== null", arg=bad
        )
        assert bad not in trick_cards(page)
        assert page.locator(f'[data-trick] [data-card="{bad}"]').count() == 0
        page.close()
    finally:
        srv.stop()


def test_finding_03_and_04_hand_end_panel_and_a_clean_new_game(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=PHONE)
    # at a pace the end of a hand holds the next deal back until a click, as a player
    # meets it (at pace 0 the panel goes with the next card, whoever plays it). The
    # first tricks at pace 0, the last three at the fast pace (the page reads the pace
    # as it shows each event): the hand's end is met at a pace, a minute sooner
    open_page(page, server.url)
    start_by_keyboard(page, seed=3)
    panel = page.locator("#hand-end")
    turn_or_panel = (
        f"(last) => !document.querySelector('#hand-end').hidden || ({MY_TURN_OR_END})(last)"
    )
    last = ""
    paced = False
    while True:
        page.wait_for_function(turn_or_panel, arg=last, timeout=60_000)
        if panel.is_visible():
            break
        last = version(page)
        if not paced and len(hand_cards(page)) <= 3:
            page.evaluate("localStorage.setItem('whistkit.pace', 'fast')")
            paced = True
        page.locator('#hand [data-legal="true"]').first.click()
    assert paced, "the end of the hand came before the pace was set"
    # the end of hand 1: contract, tricks, points and totals of both sides, labelled
    assert panel.get_attribute("data-ended") == "1"
    text = panel.inner_text()
    for key in ("col_tricks", "col_points", "col_score"):
        assert en(key) in text
    rows = panel.locator("tbody tr")
    assert rows.count() == 2
    ns_tricks = int(rows.nth(0).locator("td").nth(1).inner_text())
    ew_tricks = int(rows.nth(1).locator("td").nth(1).inner_text())
    assert ns_tricks + ew_tricks == 13
    # a click puts it away
    panel.click()
    assert page.locator("#hand-end[hidden]").count() == 1
    # a new game starts clean: no hand of the last game in the status line or the panel
    page.keyboard.press("n")
    page.wait_for_selector("#dlg-confirm[open]")
    page.locator("#confirm-yes").click()
    page.wait_for_selector("#dlg-new[open]")
    page.locator("#new-start").click()
    page.wait_for_function("() => document.querySelector('#hand-info').dataset.hand === '1'")
    assert "Hand" not in page.locator("#status").inner_text()
    assert page.locator("#hand-end[hidden]").count() == 1
    page.close()


def geometry(page: Page) -> dict[str, list[float]]:
    out: dict[str, list[float]] = page.evaluate(
        """() => {
      const out = {};
      const sel = {trick: '[data-trick]', hand: '#hand', bar: '#bar', tally: '#tally',
                   N: '.seat[data-seat="N"]', E: '.seat[data-seat="E"]',
                   W: '.seat[data-seat="W"]', S: '#me'};
      for (const [k, s] of Object.entries(sel)) {
        const r = document.querySelector(s).getBoundingClientRect();
        out[k] = [r.left, r.top, r.width, r.height];
      }
      return out;
    }"""
    )
    return out


def header_is_one_row(page: Page) -> bool:
    return bool(
        page.evaluate(
            """() => {
      const bar = document.querySelector('#bar');
      const kids = [...bar.querySelectorAll('.info > *')].filter((e) => e.getBoundingClientRect().width > 0);
      const tops = kids.map((e) => Math.round(e.getBoundingClientRect().top));
      const line = parseFloat(getComputedStyle(bar).fontSize) * 2;
      return Math.max(...tops) - Math.min(...tops) <= 4
        && bar.getBoundingClientRect().height <= line && bar.scrollHeight <= bar.clientHeight + 1;
    }"""
        )
    )


def test_finding_05_a_steady_layout(browser: Browser, server: ServerProcess) -> None:
    """The header is one row; the trick area, the hand and the seats stay put between
    hands and when badges come and go (Italian, French and Russian wrapped before)."""
    for lang, viewport in (("it", DESKTOP), ("fr", PHONE), ("ru", PHONE), ("ru", DESKTOP)):
        page = browser.new_page(viewport=viewport)
        open_page(page, server.url, lang)
        start_by_keyboard(page, seed=8)
        assert wait_my_turn(page, "")
        first = geometry(page)
        assert header_is_one_row(page), f"{lang} {viewport}: the header wraps"
        play_to_hand(page, 2)
        assert wait_my_turn(page, "")
        second = geometry(page)
        assert header_is_one_row(page), f"{lang} {viewport}: the header wraps"
        for key in first:
            moved = max(abs(a - b) for a, b in zip(first[key], second[key], strict=True))
            assert moved <= 2, f"{lang} {viewport}: {key} moved {moved}px {first} {second}"
        page.close()


# the cards in which a CSS transition starts, noted as they start
NOTE_TRANSITIONS = """() => {
  window.transitions = [];
  document.addEventListener('transitionrun', (e) => {
    const card = e.target.closest('[data-card]');
    if (card) window.transitions.push(card.dataset.card);
  });
}"""


def test_finding_06_cards_travel_and_a_trick_is_gathered(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    # the page notes each gather (towards whom) as it happens
    page.add_init_script(
        """addEventListener('DOMContentLoaded', () => {
          window.gathers = [];
          const area = document.querySelector('[data-trick]');
          new MutationObserver(() => {
            if (area.classList.contains('gather')) window.gathers.push(area.className);
          }).observe(area, {attributes: true, attributeFilter: ['class']});
        })"""
    )
    open_page(page, server.url, pace="fast")
    start_by_keyboard(page, seed=5)
    # a finished trick is gathered towards its winner: the trick area says where
    last = ""
    for _ in range(4):
        assert wait_my_turn(page, last)
        last = version(page)
        page.locator('#hand [data-legal="true"]').first.click()
    page.wait_for_function("() => window.gathers.length > 0")
    classes = str(page.evaluate("window.gathers[0]"))
    assert any(f"gather-{p}" in classes for p in ("top", "left", "right", "bottom"))
    # a card played travels: an animation runs on it in the trick (S's next turn: with
    # "" the wait could return before the last click was taken, and the card read
    # then was the one already played)
    assert wait_my_turn(page, last)
    card = legal_cards(page)[0]
    # and the legal card under the pointer lifts, in a short transition
    page.evaluate(NOTE_TRANSITIONS)
    page.locator(f'#hand [data-card="{card}"]').hover()
    page.wait_for_function("(c) => window.transitions.includes(c)", arg=card)
    page.locator(f'#hand [data-card="{card}"]').click()
    page.wait_for_function(
        """(c) => {
          const el = document.querySelector(`[data-trick] [data-card='${c}']`);
          return el !== null && el.getAnimations().length > 0;
        }""",
        arg=card,
    )
    page.close()
    # none of it when the player asks for reduced motion
    page = browser.new_page(viewport=DESKTOP, reduced_motion="reduce")
    open_page(page, server.url, pace="fast")
    start_by_keyboard(page, seed=5)
    last = ""
    page.evaluate(NOTE_TRANSITIONS)
    for _ in range(3):
        assert wait_my_turn(page, last)
        last = version(page)
        assert page.evaluate("document.getAnimations().length") == 0
        assert page.locator("[data-trick].gather").count() == 0
        # the legal card under the pointer lifts at once: no transition, even a short one
        card = legal_cards(page)[0]
        page.locator(f'#hand [data-card="{card}"]').hover()
        lifted = page.evaluate(
            """async (c) => {
              // two frames: a transition started by the hover has been announced by then
              for (let i = 0; i < 2; i++) await new Promise(r => requestAnimationFrame(r));
              const el = document.querySelector(`#hand [data-card='${c}']`);
              return el.matches(':hover') && getComputedStyle(el).transform !== 'none';
            }""",
            card,
        )
        assert lifted, f"{card} under the pointer is not lifted"
        assert page.evaluate("window.transitions") == []
        page.locator(f'#hand [data-card="{card}"]').click()
    page.close()


def best_order(suits: list[str], trump: str | None) -> int:
    """The fewest same-colour neighbours of any order of ``suits`` with the trump first."""
    best = 99
    for order in itertools.permutations(suits):
        if trump in suits and order[0] != trump:
            continue
        best = min(best, sum(RED[a] == RED[b] for a, b in itertools.pairwise(order)))
    return best


def test_finding_07_hand_sorted_trump_first_colours_alternating(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    start_by_keyboard(page, seed=2)
    for hand in (1, 2, 3):  # hearts, spades, Grand
        play_to_hand(page, hand)
        assert wait_my_turn(page, "")
        cards = hand_cards(page)
        suits = [c for c, _ in itertools.groupby(x[1] for x in cards)]
        assert len(suits) == len(set(suits)), f"suits not grouped: {cards}"
        trump = {1: "H", 2: "S", 3: None}[hand]
        if trump in suits:
            assert suits[0] == trump
            marked = page.locator("#hand .card.trump").evaluate_all(
                "els => els.map(e => e.dataset.card)"
            )
            assert marked and all(c[1] == trump for c in marked)
        clashes = sum(RED[a] == RED[b] for a, b in itertools.pairwise(suits))
        assert clashes == best_order(suits, trump), f"hand {hand}: {suits}"
        ranks = "AKQJT98765432"
        for s in suits:
            of = [c[0] for c in cards if c[1] == s]
            assert of == sorted(of, key=ranks.index)
    page.close()


def test_finding_08_new_game_mid_game_asks_and_the_game_can_be_continued(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    start_by_keyboard(page, seed=6)
    first = page.evaluate("localStorage.getItem('whistkit.game')")
    assert wait_my_turn(page, "")
    page.locator('#hand [data-legal="true"]').first.click()
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 12")
    # N then Enter: the question, answered "keep playing"; nothing is lost
    page.keyboard.press("n")
    page.wait_for_selector("#dlg-confirm[open]")
    assert page.evaluate("document.activeElement.id") == "confirm-no"
    page.keyboard.press("Enter")
    assert page.locator("#dlg-confirm[open]").count() == 0
    assert page.evaluate("localStorage.getItem('whistkit.game')") == first
    # a new game after all; the first one is listed under Games with Continue
    page.locator("#btn-new").click()
    page.locator("#confirm-yes").click()
    page.wait_for_selector("#dlg-new[open]")
    assert page.evaluate("document.activeElement.id") != "new-start"
    page.locator("#new-start").click()
    page.wait_for_function(
        "(g) => localStorage.getItem('whistkit.game') !== g && "
        "document.querySelectorAll('#hand .card').length === 13",
        arg=first,
    )
    page.locator("#btn-games").click()
    cont = page.locator(f'#dlg-games [data-continue="{first}"]')
    cont.wait_for()
    cont.click()
    page.wait_for_function(
        "(g) => localStorage.getItem('whistkit.game') === g && "
        "document.querySelectorAll('#hand .card').length === 12",
        arg=first,
    )
    page.close()


def test_finding_09_nolo_is_explained_where_the_player_looks(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=PHONE)
    open_page(page, server.url)
    start_by_keyboard(page, seed=9)
    # Grand: the trump mark says there is no trump
    play_to_hand(page, 3)
    assert wait_my_turn(page, "")
    assert en("no_trump") in page.locator("#trump-mark").inner_text()
    play_to_hand(page, 6)
    assert wait_my_turn(page, "")
    assert page.locator("#hand-info").get_attribute("data-contract") == "NOLO"
    assert en("nolo_advice") in page.locator("#status").inner_text()
    assert page.locator("#tally-note").inner_text() == en("fewer_better")
    # How to play, from the table, in the page's language: text, and Nóló explained
    page.locator("#btn-rules").click()
    page.wait_for_selector("#dlg-rules[open] #rules-body p")
    assert page.locator("#rules-variant").input_value() == "felagsvist"
    assert "Nóló" in page.locator("#rules-body").inner_text()
    # closed, the dialog may leave the focus on its select for a frame: N still asks
    page.keyboard.press("Escape")
    page.wait_for_selector("#dlg-rules[open]", state="detached")
    page.locator("#rules-variant").dispatch_event("keydown", {"key": "n", "bubbles": True})
    page.wait_for_selector("#dlg-confirm[open]", timeout=5_000)
    page.close()


def test_finding_10_trump_stands_out_and_lies_on_the_table(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    start_by_keyboard(page, seed=4)
    assert wait_my_turn(page, "")
    mark = page.locator("#trump-mark")
    assert mark.get_attribute("data-trump") == "H"
    sym = page.locator("#hand-info .suit-H")
    assert sym.inner_text() == "♥"
    color = sym.evaluate("e => getComputedStyle(e).color")
    red, green, blue = (int(x) for x in color[color.index("(") + 1 : -1].split(",")[:3])
    assert red > 200 and green < 160 and blue < 160, color
    assert mark.locator(".suit-H").count() == 1
    page.close()


def selected(page: Page) -> str:
    return str(page.locator("#hand .card.selected").get_attribute("data-card"))


def test_finding_11_keyboard_selection_only_rests_on_playable_cards(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    start_by_keyboard(page, seed=12)
    last, checked = "", 0
    for _ in range(13):
        if not wait_my_turn(page, last):
            break
        last = version(page)
        legal = legal_cards(page)
        assert selected(page) in legal, (selected(page), legal)
        if len(legal) < len(hand_cards(page)):
            for _ in range(len(hand_cards(page)) + 1):
                page.keyboard.press("ArrowRight")
                assert selected(page) in legal
            checked += 1
        page.keyboard.press("Enter")
    assert checked >= 1
    # H: the selection moves to the hinted card
    assert wait_my_turn(page, last)
    page.keyboard.press("h")
    page.wait_for_selector('#hand [data-hint="true"]', timeout=60_000)
    hinted = page.locator('#hand [data-hint="true"]').get_attribute("data-card")
    assert selected(page) == hinted
    page.close()


def test_finding_12_english_rubber_sheet_and_recap(browser: Browser, server: ServerProcess) -> None:
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    start_by_clicks(page, "english", {"english_rubber": True, "english_target": 1}, seed=4)
    last = ""
    while (got := play_one(page, last)) is not None:
        last = got
    page.wait_for_selector("#dlg-result[open]")
    games = page.locator("#result-recap li[data-game]")
    assert games.count() >= 2
    # its winner and both sides' points, N–S first (issue 32): "Game 1 to E–W (N–S 0, E–W 3)"
    assert re.match(r"Game 1 to (N–S|E–W) \(N–S \d+, E–W \d+\), worth \d", games.first.inner_text())
    assert "net" in page.locator("#result-score").inner_text()
    page.locator("#result-sheet").click()
    page.wait_for_selector("#dlg-sheet[open]")
    lines = page.locator("#dlg-sheet .game-line[data-game]")
    assert lines.count() == games.count()
    assert page.locator("#dlg-sheet [data-rubber]").count() == 1
    assert "net" in page.locator("#dlg-sheet [data-rubber]").inner_text()
    page.close()


def test_finding_13_a_revoke_needs_a_second_click(browser: Browser, tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path / "laws.sqlite3").start()
    try:
        page = browser.new_page(viewport=DESKTOP)
        open_page(page, srv.url)
        start_by_clicks(page, "english", {"play_mode": "laws"}, seed=5)
        last = ""
        for _ in range(13):
            assert wait_my_turn(page, last)
            last = version(page)
            revoke = page.locator('#hand [data-irregular="true"]')
            if revoke.count():
                break
            page.locator('#hand [data-legal="true"]').first.click()
        else:
            raise AssertionError("S never could revoke in the first hand")
        bad = str(revoke.first.get_attribute("data-card"))
        look = revoke.first.evaluate("e => getComputedStyle(e.querySelector('img')).outlineStyle")
        assert look == "dashed"  # not dimmed like an illegal card
        revoke.first.click()
        page.wait_for_selector(f'#hand [data-card="{bad}"][data-armed="true"]')
        assert version(page) == last and bad in hand_cards(page)
        assert "revoke" in page.locator("#status").inner_text()
        page.locator(f'#hand [data-card="{bad}"]').click()
        page.wait_for_function(
            "(c) => document.querySelector(`#hand [data-card='${c}']`) === null", arg=bad
        )
        page.close()
    finally:
        srv.stop()


def test_finding_14_other_hands_as_card_backs_at_the_edges(
    browser: Browser, server: ServerProcess
) -> None:
    for viewport in (DESKTOP, PHONE):
        page = browser.new_page(viewport=viewport)
        open_page(page, server.url)
        start_by_keyboard(page, seed=1)
        assert wait_my_turn(page, "")
        sizes: dict[str, Any] = page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll('.seat[data-seat]')]
              .map((s) => [s.dataset.pos, s.querySelectorAll('.backs img').length]))"""
        )
        played = len(trick_cards(page))
        assert sum(sizes.values()) == 39 - played and set(sizes) == {"top", "left", "right"}
        width = viewport["width"]
        left = page.locator('.seat[data-pos="left"]').bounding_box()
        right = page.locator('.seat[data-pos="right"]').bounding_box()
        assert left is not None and right is not None
        assert left["x"] < 0.06 * width, left
        assert right["x"] + right["width"] > 0.94 * width, right
        page.close()


def test_finding_16_an_unticked_checkbox_looks_empty(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    page.wait_for_selector("#dlg-new[open]")
    page.select_option("#new-variant", "english")
    box = page.locator('[data-option="english_rubber"]')
    box.set_checked(False)
    off = box.evaluate("e => getComputedStyle(e).backgroundColor")
    box.set_checked(True)
    on = box.evaluate("e => getComputedStyle(e).backgroundColor")

    def light(css: str) -> float:
        r, g, b = (int(x) for x in css[css.index("(") + 1 : -1].split(",")[:3])
        return (r + g + b) / 3

    assert light(off) > 200, off  # an empty, light box
    assert light(on) < 150, on  # a filled one when ticked
    page.close()


def test_finding_17_swedish_says_who_chose_and_what_is_needed(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    start_by_clicks(page, "swedish", {}, seed=7)
    page.wait_for_selector('#actions [data-action], #hand [data-legal="true"]')
    assert "Bottom card chosen:" not in page.locator("#public-info").inner_text()
    # choose a red bottom card (or any) until the play starts
    last = ""
    for _ in range(4):
        if page.locator("#table").get_attribute("data-phase") == "play":
            break
        assert wait_my_turn(page, last)
        last = version(page)
        if page.locator("#table").get_attribute("data-phase") != "bid":
            break
        page.locator('#hand [data-legal="true"]').first.click()
    page.wait_for_function("() => document.querySelector('#table').dataset.phase === 'play'")
    labels = page.locator('.public[data-public="revealed"] .label').all_inner_texts()
    assert labels and all(x == en("public_revealed_one") for x in labels)
    contract = page.locator("#hand-info").get_attribute("data-contract")
    note = page.locator("#tally-note").inner_text()
    if contract == "SPEL":
        assert "7" in note
    else:
        assert note == en("fewer_better")
    page.close()


def test_finding_19_your_only_card_is_played_for_you(
    browser: Browser, server: ServerProcess
) -> None:
    page = browser.new_page(viewport=PHONE)
    open_page(page, server.url)
    start_by_keyboard(page, seed=13)
    clicks = play_to_hand(page, 2)
    # 13 cards were played from S's hand, the last one (at least) for S
    assert clicks <= 12
    page.keyboard.press("s")
    assert page.locator("#dlg-sheet tbody tr").count() == 1
    page.close()


def test_finding_19_not_in_laws_mode(browser: Browser, server: ServerProcess) -> None:
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    start_by_clicks(page, "english", {"play_mode": "laws"}, seed=2)
    last = ""
    for _ in range(12):
        got = play_one(page, last)
        assert got is not None
        last = got
    # the 13th trick: one card left, and it waits for S
    assert wait_my_turn(page, last)
    assert len(hand_cards(page)) == 1 and len(legal_cards(page)) == 1
    assert page.locator("#hand [data-auto]").count() == 0
    page.close()


def test_finding_18_review_progress_coloured_suits_winner_and_unsolved(
    browser: Browser, tmp_path: Path, monkeypatch: Any
) -> None:
    from .test_e2e_review import store_finished_game

    db = tmp_path / "games.sqlite3"
    store_finished_game(db)
    monkeypatch.setenv("WHISTKIT_ANALYSIS_NODE_LIMIT", "3000")  # some hands left unsolved
    srv = ServerProcess(db).start()
    try:
        page = browser.new_page(viewport=DESKTOP)
        open_page(page, srv.url, games=["reviewme"])
        page.keyboard.press("Escape")
        page.locator("#btn-games").click()
        item = page.locator('#dlg-games li[data-game="reviewme"]')
        item.wait_for()
        text = item.inner_text()
        assert "won by us" in text or "won by them" in text or "a draw" in text, text
        page.locator('[data-review="reviewme"]').click()
        page.wait_for_selector("#games-status progress", state="attached")
        page.wait_for_selector("#dlg-review[open]", timeout=120_000)
        body = page.locator("#review-body")
        assert body.locator(".suit-H").count() >= 1
        hearts = body.locator(".suit-H").first.evaluate("e => getComputedStyle(e).color")
        assert hearts.startswith("rgb(") and int(hearts[4:].split(",")[0]) > 150, hearts
        assert "?" not in body.locator("tbody").inner_text()
        unsolved = body.locator("[data-unsolved]")
        if unsolved.count():
            assert unsolved.first.inner_text() == en("not_solved")
        # a par left as a range shows it; the server settles the ranges in the
        # background (progress shown) and the refined review replaces the first
        assert body.locator("[data-range]").count() >= 1
        first_ranges = body.locator("[data-range]").all_inner_texts()
        assert all("–" in r for r in first_ranges), first_ranges
        refining = body.locator("[data-refining]")
        assert refining.locator("progress").count() == 1
        assert en("review_refining") in refining.inner_text()
        refining.wait_for(state="detached", timeout=120_000)
        assert body.locator("tbody tr").count() == 12
        assert body.locator("[data-range]").count() <= len(first_ranges)
        page.close()
    finally:
        srv.stop()


def test_bots_pace_is_a_remembered_setting(browser: Browser, server: ServerProcess) -> None:
    page = browser.new_page(viewport=PHONE)
    page.goto(server.url)  # no pace chosen yet: normal
    page.wait_for_selector("body[data-ready]")
    assert page.locator("#pace").input_value() == "normal"
    options = page.locator("#pace option").evaluate_all("els => els.map(e => e.value)")
    assert options == ["slow", "normal", "fast"]
    page.select_option("#pace", "slow")
    page.reload()
    page.wait_for_selector("#dlg-new[open]")
    assert page.locator("#pace").input_value() == "slow"
    assert page.evaluate("localStorage.getItem('whistkit.pace')") == "slow"
    page.close()


def test_how_to_play_from_the_new_game_dialog(browser: Browser, server: ServerProcess) -> None:
    page = browser.new_page(viewport=PHONE)
    open_page(page, server.url, "is")
    page.wait_for_selector("#dlg-new[open]")
    page.select_option("#new-variant", "swedish")
    page.locator("#new-rules").click()
    page.wait_for_selector("#dlg-rules[open] #rules-body p")
    assert page.locator("#rules-variant").input_value() == "swedish"
    help_is = json.loads((STATIC_DIR / "help" / "is.json").read_text("utf-8"))
    assert help_is["swedish"]["title"] in page.locator("#rules-body").inner_text()
    # the guide is text, never markup, and the new-game dialog is still beneath it
    assert page.locator("#rules-body script, #rules-body a, #rules-body img").count() == 0
    page.locator("#dlg-rules .close").click()
    assert page.locator("#dlg-new[open]").count() == 1
    page.close()
