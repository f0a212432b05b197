"""The table at phone and desktop size, and in every language."""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from whistkit.server.app import STATIC_DIR

from .conftest import DESKTOP, PHONE, ServerProcess
from .pages import (
    open_new_by_key,
    open_page,
    start_by_clicks,
    start_by_keyboard,
    trick_cards,
    version,
    wait_my_turn,
)

LANGS = ["en", "is", "sv", "it", "fr", "ru"]
SHOTS = Path(os.environ.get("WHISTKIT_E2E_SHOTS", "/tmp/whistkit-e2e-shots"))

# what must stay inside the viewport and clear of every other item
ITEMS = (
    "#hand [data-card], [data-trick] [data-card], .seat [data-card], #me [data-card],"
    " .seat .name, .seat .count, .seat .badge, #me .name, #me .badge,"
    " #hand-info, .scores .score, #roles, #public-info, .tools > *, #status,"
    " #actions > *, #result-banner"
)

GEOMETRY = """(sel) => {
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    if (el.closest('[hidden]') || el.closest('dialog')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const label = el.dataset.card || el.id || el.className || el.tagName;
    out.push({label: String(label), x: r.left, y: r.top, w: r.width, h: r.height,
              text: (el.textContent || '').trim().slice(0, 30)});
  }
  return {items: out, vw: innerWidth, vh: innerHeight,
          sw: document.documentElement.scrollWidth, sh: document.documentElement.scrollHeight};
}"""


def check_layout(page: Page, where: str, items: str = ITEMS) -> None:
    geo: dict[str, Any] = page.evaluate(GEOMETRY, items)
    vw, vh = geo["vw"], geo["vh"]
    assert geo["sw"] <= vw and geo["sh"] <= vh, f"{where}: the page scrolls {geo}"
    items = geo["items"]
    assert len(items) > 20
    for it in items:
        assert it["x"] >= 0 and it["y"] >= 0, f"{where}: {it} leaves the viewport"
        assert it["x"] + it["w"] <= vw + 0.5 and it["y"] + it["h"] <= vh + 0.5, (
            f"{where}: {it} leaves the viewport"
        )
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            overlap_x = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
            overlap_y = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
            assert overlap_x <= 0.5 or overlap_y <= 0.5, f"{where}: {a} overlaps {b}"


def check_dialog_fits(page: Page, dialog: str, where: str) -> None:
    box = page.locator(dialog).bounding_box()
    assert box is not None
    size = page.viewport_size
    assert size is not None
    assert box["x"] >= 0 and box["y"] >= 0, f"{where}: {dialog} leaves the viewport"
    assert box["x"] + box["width"] <= size["width"], f"{where}: {dialog} too wide"
    assert box["y"] + box["height"] <= size["height"], f"{where}: {dialog} too tall"
    overflow = page.locator(dialog).evaluate("d => d.scrollWidth - d.clientWidth")
    assert overflow <= 0, f"{where}: {dialog} content is {overflow}px too wide"


def play_until_trick_on_table(page: Page, cards: int) -> None:
    """Click legal cards until S is to play with ``cards`` cards in the trick."""
    last = ""
    for _ in range(60):
        assert wait_my_turn(page, last)
        if len(trick_cards(page)) == cards and not page.locator("[data-trick].done").count():
            return
        last = version(page)
        page.locator('#hand [data-legal="true"]').first.click()
    raise AssertionError(f"never saw {cards} cards in the trick")


@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_layout_fits(
    browser: Browser, server: ServerProcess, size: str, viewport: dict[str, int]
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for lang in ("en", "ru"):  # Russian has the longest words
        page = browser.new_page(viewport=viewport)
        open_page(page, server.url, lang)
        start_by_keyboard(page, seed=21)
        play_until_trick_on_table(page, 2)
        where = f"{size}/{lang}"
        page.screenshot(path=str(SHOTS / f"table-{size}-{lang}.png"))
        check_layout(page, where)
        for key, dialog in (("l", "#dlg-last"), ("s", "#dlg-sheet"), ("?", "#dlg-help")):
            page.keyboard.press(key)
            page.wait_for_selector(f"{dialog}[open]")
            check_dialog_fits(page, dialog, where)
            page.screenshot(path=str(SHOTS / f"{dialog[5:]}-{size}-{lang}.png"))
            page.keyboard.press("Escape")
        open_new_by_key(page)
        check_dialog_fits(page, "#dlg-new", where)
        page.screenshot(path=str(SHOTS / f"new-{size}-{lang}.png"))
        page.keyboard.press("Escape")
        page.close()


def strings(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC_DIR / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


@pytest.mark.parametrize("variant", ["felagsvist", "swedish", "english"])
@pytest.mark.parametrize("lang", LANGS)
def test_table_in_each_language(
    browser: Browser, server: ServerProcess, lang: str, variant: str
) -> None:
    en, tr = strings("en"), strings(lang)
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url, lang)
    if variant == "felagsvist":
        start_by_keyboard(page, seed=8)
    else:  # Swedish: revealed bottom cards; English (laws mode): the turned card, games
        start_by_clicks(page, variant, {"play_mode": "laws"} if variant == "english" else {}, 8)
    play_until_trick_on_table(page, 1)
    assert page.evaluate("document.documentElement.lang") == lang
    texts = [page.locator("body").inner_text()]
    for key, dialog in (("l", "#dlg-last"), ("s", "#dlg-sheet"), ("?", "#dlg-help")):
        page.keyboard.press(key)
        page.wait_for_selector(f"{dialog}[open]")
        texts.append(page.locator(dialog).inner_text())
        page.keyboard.press("Escape")
    open_new_by_key(page)
    texts.append(page.locator("#dlg-new").inner_text())
    page.keyboard.press("Escape")
    labels = page.locator("[data-card]").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    page.close()
    # the language menu names every language in its own tongue; leave it out
    names = {strings(x)["lang_name"] for x in LANGS}
    shown = "\n".join(line for line in "\n".join(texts).split("\n") if line not in names)
    if lang != "en":
        # no English text that this language translates differently
        for key, english in en.items():
            if tr[key] != english and len(english) > 3 and "{" not in english:
                assert english not in shown.split("\n"), f"{lang}: {key!r} shows {english!r}"
        for words in ("Your turn", "Dealer", "Score sheet", "New game", "Last trick"):
            assert words not in shown, f"{lang}: English {words!r} on the page"
    rank_words = {tr[f"rank_{r}"].lower() for r in "AKQJT98765432"}
    for label in labels:
        assert label and any(w in label.lower() for w in rank_words), (lang, label)


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_a_trick_you_won_is_said_in_the_second_person(
    browser: Browser, server: ServerProcess, lang: str
) -> None:
    # "{seat} remporte le pli" is third person: with "Vous" it needs "remportez"
    tr = strings(lang)
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url, lang)
    start_by_keyboard(page, seed=3)
    last = ""
    for _ in range(60):
        assert wait_my_turn(page, last)
        if page.locator('[data-trick].done .winner[data-seat="S"]').count():
            break
        last = version(page)
        page.locator('#hand [data-legal="true"]').first.click()
    else:
        raise AssertionError("S never won a trick")
    wrong = tr["trick_won_by"].replace("{seat}", tr["you"])
    assert tr["you_won_trick"] in page.locator("#status").inner_text()
    page.keyboard.press("l")
    page.wait_for_selector("#dlg-last[open]")
    assert tr["you_won_trick"] in page.locator("#dlg-last").inner_text()
    assert wrong not in page.locator("body").inner_text()
    page.close()


def test_language_is_switchable_and_remembered(browser: Browser, server: ServerProcess) -> None:
    page = browser.new_page(viewport=DESKTOP, locale="fr-FR")
    page.goto(server.url)
    page.wait_for_selector("body[data-ready]")
    assert page.evaluate("document.documentElement.lang") == "fr"  # from the browser
    page.keyboard.press("Escape")
    page.select_option("#lang", "is")
    page.wait_for_function("() => document.documentElement.lang === 'is'")
    page.reload()
    page.wait_for_selector("body[data-ready]")
    assert page.evaluate("document.documentElement.lang") == "is"
    assert page.locator("#btn-sheet").inner_text() == strings("is")["btn_sheet"]
    page.close()


def check_game_over_on_a_phone(page: Page) -> None:
    """At a finished game, the page at phone size: the result dialog fits, the table with
    its result banner too, and the full score sheet of twelve hands fits. Called by the
    steady-table test at the end of its English game (a whole game of its own here
    would cost a minute of the run)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size(PHONE)
    page.wait_for_selector("#dlg-result[open]")
    check_dialog_fits(page, "#dlg-result", "phone/result")
    page.screenshot(path=str(SHOTS / "result-phone-en.png"))
    page.keyboard.press("Escape")
    check_layout(page, "phone/over")  # the result banner included
    assert page.locator("#result-banner[data-result]").is_visible()
    page.keyboard.press("s")
    page.wait_for_selector("#dlg-sheet[open]")
    assert page.locator("#dlg-sheet tbody tr").count() == 12
    check_dialog_fits(page, "#dlg-sheet", "phone/sheet")
    page.screenshot(path=str(SHOTS / "sheet-full-phone-en.png"))
    page.keyboard.press("Escape")


@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_score_sheet_with_honours_and_a_revoke_fits(
    browser: Browser, server: ServerProcess, size: str, viewport: dict[str, int]
) -> None:
    """English laws mode: S revokes once; the first hand's row then names honours,
    penalties and the revoke, and the sheet still fits with its Score column."""
    page = browser.new_page(viewport=viewport)
    open_page(page, server.url)
    start_by_clicks(page, "english", {"play_mode": "laws"}, seed=11)
    revoked = False
    last = ""
    while (
        wait_my_turn(page, last) and page.locator("[data-hand]").get_attribute("data-hand") == "1"
    ):
        last = version(page)
        revoke = page.locator('#hand [data-irregular="true"]')
        if not revoked and revoke.count():
            bad = revoke.first.get_attribute("data-card")
            revoke.first.click()
            page.locator(f'#hand [data-card="{bad}"][data-armed="true"]').click()  # twice
            revoked = True
        else:
            page.locator('#hand [data-legal="true"]').first.click()
    assert revoked
    page.keyboard.press("s")
    page.wait_for_selector("#dlg-sheet[open]")
    row = page.locator("#dlg-sheet tbody tr").first.inner_text()
    assert "Honours" in row and "Penalties" in row and "revoke: You" in row, row
    check_dialog_fits(page, "#dlg-sheet", f"{size}/sheet")
    score = page.locator("#dlg-sheet tbody tr td.col-score").first
    assert score.is_visible()
    box, dlg = score.bounding_box(), page.locator("#dlg-sheet").bounding_box()
    assert box is not None and dlg is not None
    assert box["x"] + box["width"] <= dlg["x"] + dlg["width"], "the Score column is cut off"
    page.screenshot(path=str(SHOTS / f"sheet-revoke-{size}-en.png"))
    page.close()


@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
@pytest.mark.parametrize("variant", ["swedish", "english"])
def test_variant_tables_fit(
    browser: Browser, server: ServerProcess, variant: str, size: str, viewport: dict[str, int]
) -> None:
    """Swedish revealed bottom cards and the English turned-up card, at both sizes."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport=viewport)
    open_page(page, server.url)
    start_by_clicks(page, variant, {}, seed=6)
    where = f"{size}/{variant}"
    last = ""
    for _ in range(60):
        page.wait_for_function(
            """(last) => {
              const t = document.querySelector('#table');
              return t.dataset.turn === 'S' && t.dataset.version !== String(last)
                && document.querySelector('#hand [data-legal="true"]') !== null;
            }""",
            arg=last,
        )
        phase = page.locator("#table").get_attribute("data-phase")
        public = page.locator("[data-public] [data-card], #trump-mark [data-card]").count()
        if phase == "play" and public and len(trick_cards(page)) >= 1:
            break
        last = version(page)
        page.locator('#hand [data-legal="true"]').first.click()
    else:
        raise AssertionError(f"{where}: never saw a public card with a trick on the table")
    page.screenshot(path=str(SHOTS / f"table-{size}-{variant}.png"))
    check_layout(page, where)
    page.close()


def test_new_game_dialog_starts_from_the_command_line(browser: Browser, tmp_path: Path) -> None:
    # `whistkit play --variant swedish --level club --option play_mode=laws`: the dialog
    # that opens on the first visit offers those, and starting takes them
    args = ["--variant", "swedish", "--level", "club", "--option", "play_mode=laws"]
    srv = ServerProcess(tmp_path / "games.sqlite3", args=args).start()
    try:
        page = browser.new_page(viewport=DESKTOP)
        open_page(page, srv.url)
        page.wait_for_selector("#dlg-new[open]")
        assert page.input_value("#new-variant") == "swedish"
        assert page.input_value("#new-level") == "club"
        assert page.input_value('[data-option="play_mode"]') == "laws"
        page.click("#new-start")
        page.wait_for_selector("#dlg-new[open]", state="detached")
        page.wait_for_function("() => localStorage.getItem('whistkit.game') !== null")
        game = page.evaluate("() => localStorage.getItem('whistkit.game')")
        page.close()
        with urllib.request.urlopen(srv.url + f"api/games?ids={game}", timeout=5) as r:
            games = json.loads(r.read())
        assert [g["variant"] for g in games] == ["swedish"]
    finally:
        srv.stop()
