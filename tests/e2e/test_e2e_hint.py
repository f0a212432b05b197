"""The hint in the browser: H or the Hint button on your turn outlines a card."""

from __future__ import annotations

from playwright.sync_api import Browser, Page

from .conftest import DESKTOP, ServerProcess
from .pages import hand_cards, legal_cards, open_page, start_by_keyboard, version, wait_my_turn

SUIT = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def short(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + SUIT[card[1]]


def hinted(page: Page) -> str:
    """Wait for the hint's card in the hand; return it."""
    page.wait_for_selector("#hand .card.hint", timeout=30_000)
    cards = page.locator("#hand .card.hint")
    assert cards.count() == 1
    return str(cards.get_attribute("data-card"))


def play_hinted(page: Page, card: str) -> None:
    page.locator(f'#hand [data-card="{card}"]').click()
    page.wait_for_function(
        "(c) => !document.querySelector(`#hand [data-card='${c}']`)", arg=card, timeout=30_000
    )
    assert page.locator("#hand .card.hint").count() == 0  # the highlight went with it


def test_hint_by_key_and_button(browser: Browser, server: ServerProcess) -> None:
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    start_by_keyboard(page, seed=11)
    assert wait_my_turn(page, "")
    assert page.locator("#hand .card.hint").count() == 0  # none before it is asked for
    last = version(page)
    page.keyboard.press("h")
    card = hinted(page)
    assert card in legal_cards(page)
    status = page.locator("#status").inner_text()
    assert status.startswith("Hint: ") and short(card) in status, status
    assert version(page) == last  # asking changed nothing
    play_hinted(page, card)
    # the next turn, by the toolbar's button
    assert wait_my_turn(page, last)
    before = hand_cards(page)
    page.locator("#btn-hint").click()
    card = hinted(page)
    assert card in before and card in legal_cards(page)
    assert f"Hint: {short(card)}" in page.locator("#status").inner_text()
    play_hinted(page, card)
    # the keys help lists H
    page.keyboard.press("?")
    assert "Hint" in page.locator("#dlg-help").inner_text()
    page.close()
