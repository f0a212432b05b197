"""Driving the page: waiting for the seat's turn, reading the table, playing."""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

MY_TURN_OR_END = """(last) => {
  if (document.querySelector('[data-result]')) return true;
  const t = document.querySelector('#table');
  return t.dataset.turn === 'S' && t.dataset.version !== String(last)
    && document.querySelector('#hand [data-legal="true"]') !== null;
}"""


def open_page(
    page: Page, url: str, lang: str = "en", pace: str = "0", games: Sequence[str] = ()
) -> None:
    """Load the page with a language already chosen, and the bots' pace (``"0"``: every
    event shown at once, no motion, as the tests want; or slow, normal, fast). ``games``:
    stored games this browser took part in (as if played here), for its games list.

    At pace 0 the page also asks for reduced motion, which stills the CSS transitions
    too (a card lifting under the pointer): a click waits until its card stands still,
    and waited for that lift at most of S's turns.
    """
    if pace == "0":
        page.emulate_media(reduced_motion="reduce")
    page.add_init_script(f"localStorage.setItem('whistkit.lang', '{lang}')")
    page.add_init_script(f"localStorage.setItem('whistkit.pace', '{pace}')")
    if games:
        page.add_init_script(
            "const k = 'whistkit.games'; const had = JSON.parse(localStorage.getItem(k) || '{}');"
            f" for (const g of {json.dumps(list(games))}) if (!(g in had)) had[g] = 'stored';"
            " localStorage.setItem(k, JSON.stringify(had));"
        )
    page.goto(url)
    page.wait_for_selector("body[data-ready]")


def open_new_by_key(page: Page) -> None:
    """N: the new-game dialog; in the middle of a game N asks first, and Enter on
    "Start a new game" says yes."""
    page.keyboard.press("n")
    page.wait_for_selector("#dlg-new[open], #dlg-confirm[open]")
    if page.locator("#dlg-confirm[open]").count():
        page.locator("#confirm-yes").focus()
        page.keyboard.press("Enter")
    page.wait_for_selector("#dlg-new[open]")


def start_by_keyboard(page: Page, seed: int | None = None) -> None:
    """N, (a seed), Enter: a new default game (Félagsvist)."""
    if not page.locator("#dlg-new[open]").count():
        open_new_by_key(page)
    page.wait_for_selector("#dlg-new[open]")
    if seed is not None:
        page.locator("#new-seed").fill(str(seed))
        page.locator("#new-start").focus()
    if page.locator("#new-warn:not([hidden])").count():
        page.locator("#new-start").focus()  # leaving a game: the focus starts on Cancel
    page.keyboard.press("Enter")
    page.wait_for_selector("#hand .card")


def start_by_clicks(page: Page, variant: str, options: dict[str, Any], seed: int) -> None:
    """The new-game dialog by mouse: variant, options, seed, Start."""
    if not page.locator("#dlg-new[open]").count():
        page.locator("#btn-new").click()
        page.wait_for_selector("#dlg-new[open], #dlg-confirm[open]")
        if page.locator("#dlg-confirm[open]").count():
            page.locator("#confirm-yes").click()
    page.wait_for_selector("#dlg-new[open]")
    page.select_option("#new-variant", variant)
    for key, value in options.items():
        el = page.locator(f'[data-option="{key}"]')
        if isinstance(value, bool):
            el.set_checked(value)
        elif el.evaluate("e => e.tagName") == "SELECT":
            el.select_option(str(value))
        else:
            el.fill(str(value))
    page.locator("#new-seed").fill(str(seed))
    page.locator("#new-start").click()
    page.wait_for_selector("#hand .card")


def version(page: Page) -> str:
    return str(page.locator("#table").get_attribute("data-version") or "")


def wait_my_turn(page: Page, last_version: str, timeout: float = 30_000) -> bool:
    """Wait until S is to act at a version after ``last_version``; False once the game ended."""
    page.wait_for_function(MY_TURN_OR_END, arg=last_version, timeout=timeout)
    return page.locator("[data-result]").count() == 0


def hand_cards(page: Page) -> list[str]:
    return [
        str(c)
        for c in page.locator("#hand [data-card]").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
    ]


def legal_cards(page: Page) -> list[str]:
    return [
        str(c)
        for c in page.locator('#hand [data-legal="true"]').evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
    ]


def trick_cards(page: Page) -> list[str]:
    return [
        str(c)
        for c in page.locator("[data-trick] [data-card]").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
    ]


def get_json(url: str) -> Any:
    """A GET answered with JSON (a server the test started)."""
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def post_json(url: str, body: Any) -> Any:
    """A POST of JSON answered with JSON."""
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def shots_dir(tmp_path: Path) -> Path:
    """Where a test's screenshots go: $WHISTKIT_SHOTS if set, else the test's folder."""
    shots = Path(os.environ.get("WHISTKIT_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    return shots


def host_shared_table(page: Page, name: str = "Anna") -> None:
    """From the new-game dialog: a table with friends hosted by ``name``, started at once
    (bots in the seats nobody took), the invite dialog closed."""
    page.wait_for_selector("#dlg-new[open]")
    page.locator("#new-friends").check()
    page.locator("#host-name").fill(name)
    page.locator("#new-start").click()
    page.wait_for_selector("#dlg-invite[open] [data-invite='N']")
    page.locator("#host-start").click()
    page.wait_for_selector("#hand .card")
    page.keyboard.press("Escape")
    page.wait_for_selector("#dlg-invite[open]", state="detached")
