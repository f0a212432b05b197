"""The double-dummy review of a finished game, from the Finished games list."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser

from stored_games import store_bot_game
from whistkit.server.store import Store

from .conftest import DESKTOP, PHONE, ServerProcess
from .pages import open_page


def store_finished_game(db: Path, game_id: str = "reviewme") -> None:
    """A whole Félagsvist game played by bots, stored as a finished web game."""
    store = Store(db)
    try:
        store_bot_game(store, game_id, 4)
    finally:
        store.close()


@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_review_of_a_finished_game(
    browser: Browser,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: str,
    viewport: dict[str, int],
) -> None:
    db = tmp_path / "games.sqlite3"
    store_finished_game(db)
    monkeypatch.setenv("WHISTKIT_ANALYSIS_NODE_LIMIT", "20000")
    server = ServerProcess(db).start()
    try:
        page = browser.new_page(viewport=viewport)
        open_page(page, server.url, games=["reviewme"])
        if page.locator("#dlg-new[open]").count():
            page.keyboard.press("Escape")
        page.locator("#btn-games").click()
        page.wait_for_selector("#dlg-games[open] [data-review]")
        page.locator('[data-review="reviewme"]').click()
        page.wait_for_selector("#dlg-review[open]", timeout=60_000)
        rows = page.locator("#dlg-review tbody tr")
        assert rows.count() == 12
        assert rows.first.locator("td").first.inner_text() == "1"
        assert "Hearts" in rows.first.inner_text()
        summary = page.locator("#dlg-review [data-summary]").inner_text()
        assert summary.startswith("Tricks cost: N–S ")
        # S's costly cards, each naming the trick, the card, its loss and the best card
        given = page.locator("#dlg-review .given li")
        assert given.count() > 0
        assert "trick " in given.first.inner_text() and "(best " in given.first.inner_text()
        box = page.locator("#dlg-review").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
        overflow = page.locator("#dlg-review").evaluate("d => d.scrollWidth - d.clientWidth")
        assert overflow <= 0, f"{size}: the review is {overflow}px too wide"
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.keyboard.press("Escape")
        assert page.locator("#dlg-review[open]").count() == 0
        page.close()
    finally:
        server.stop()
