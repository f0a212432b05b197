"""axe-core on the table, every dialog and the review: no serious or critical violation.

axe-core comes with ``axe-playwright-python`` (its ``axe.min.js`` is in the package), so
the check runs offline. Every ``dialog`` of the page must have been checked at least once:
a new dialog without a way to open it here fails the test by name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.base import AXE_SCRIPT
from axe_playwright_python.sync_playwright import DEFAULT_OPTIONS
from playwright.sync_api import Browser, Page

from .conftest import DESKTOP, ServerProcess
from .pages import open_new_by_key, open_page, start_by_keyboard, trick_cards, version, wait_my_turn
from .test_e2e_review import store_finished_game
from .test_e2e_sizes import SIZES as ISSUE_32_SIZES
from .test_e2e_sizes import play_to_hand_end

# the four sizes of issue 32: a small phone, a phone, a small laptop, a desktop
SIZES = {f"{v['width']}x{v['height']}": v for v in ISSUE_32_SIZES.values()}
BAD = ("serious", "critical")
# axe.run as axe-playwright-python's Axe().run calls it (its options, the context only
# when given), or null when the document has no axe yet
RUN_AXE = """async ([context, options]) => {
  if (typeof window.axe === 'undefined') return null;
  return context === null ? await axe.run(options) : await axe.run(context, options);
}"""


def violations(page: Page, context: str | None = None) -> list[str]:
    """axe's serious and critical violations in ``context`` (the whole page if None).

    axe-core (570 kB) is put into a document once, on the first run there: Axe().run sent
    and evaluated it again at every run, 32 times in this test. A page that loaded a new
    document has no axe, which the run tells, and gets it again."""
    found: Any = page.evaluate(RUN_AXE, [context, DEFAULT_OPTIONS])
    if found is None:
        page.evaluate(AXE_SCRIPT)
        found = page.evaluate(RUN_AXE, [context, DEFAULT_OPTIONS])
    out = []
    for v in found["violations"]:
        if v.get("impact") not in BAD:
            continue
        nodes = "; ".join(
            f"{n['target']}: {n.get('failureSummary', '').splitlines()[-1].strip()}"
            for n in v["nodes"][:3]
        )
        out.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])} nodes): {v['help']}: {nodes}")
    return out


class Checker:
    """Runs axe where asked, at each size in turn (the viewport resized between them), and
    keeps every finding, so one run reports them all."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.found: list[str] = []
        self.dialogs: set[str] = set()

    def check(self, what: str, context: str | None = None) -> None:
        for size, viewport in SIZES.items():
            self.page.set_viewport_size(viewport)
            self.found += [f"{size} {what}: {v}" for v in violations(self.page, context)]

    def dialog(self, dialog_id: str, opener: str) -> None:
        """Open ``#dialog_id`` by a key or a click on a selector, check it, close it."""
        page = self.page
        if len(opener) == 1:
            page.keyboard.press(opener)
        else:
            page.locator(opener).first.click()
        page.wait_for_selector(f"#{dialog_id}[open]", timeout=60_000)
        self.check(f"dialog #{dialog_id}", f"#{dialog_id}")
        self.dialogs.add(dialog_id)
        page.keyboard.press("Escape")
        page.wait_for_selector(f"#{dialog_id}[open]", state="detached")


def play(page: Page, until_trick_cards: int | None = None) -> None:
    """Click S's legal cards: until the trick holds that many cards, or to the end."""
    last = ""
    while wait_my_turn(page, last):
        if until_trick_cards is not None and len(trick_cards(page)) == until_trick_cards:
            return
        last = version(page)
        page.locator('#hand [data-legal="true"]').first.click()


def shared_table(browser: Browser, axe: Checker) -> None:
    """Play with friends (#22): the dialog's seats, the invite panel, the join form of an
    invite link, and the table with names and the chat open."""
    page = axe.page
    page.locator("#btn-new").click()  # the game is over: no question first
    page.wait_for_selector("#dlg-new[open]")
    page.locator("#new-friends").check()
    axe.check("dialog #dlg-new, play with friends", "#dlg-new")
    page.locator("#host-name").fill("Anna")
    page.locator("#new-start").click()
    page.wait_for_selector("#dlg-invite[open] [data-invite='N']")
    axe.check("dialog #dlg-invite", "#dlg-invite")
    axe.dialogs.add("dlg-invite")
    link = str(page.locator("[data-invite='N']").get_attribute("href"))
    context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    guest = Checker(context.new_page())
    open_page(guest.page, link)
    guest.page.wait_for_selector("#dlg-join[open]")
    guest.check("dialog #dlg-join", "#dlg-join")
    axe.dialogs.add("dlg-join")
    guest.page.locator("#player-name").fill("Björk")
    guest.page.locator("#join-sit").click()
    guest.page.wait_for_selector('#me[data-seat="N"][data-player="Björk"]')
    guest.page.locator("#btn-chat").click()
    guest.page.locator('[data-phrase="hello"]').click()
    guest.page.wait_for_selector("#chat-log .chat-line")
    guest.check("shared table with the chat open")
    axe.found += guest.found
    context.close()
    page.keyboard.press("Escape")


def online_evening(browser: Browser, server: ServerProcess, axe: Checker) -> None:
    """An online evening (#34): the organiser's dialog, the host's room, the open join
    link's page and a player's page at their table."""
    context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    host = Checker(context.new_page())
    page = host.page
    open_page(page, server.url)
    page.wait_for_selector("#dlg-new[open]")
    page.locator("#new-evening").click()
    page.wait_for_selector("#dlg-evening[open]")
    host.check("dialog #dlg-evening", "#dlg-evening")
    axe.dialogs.add("dlg-evening")
    names = ["Anna, A", "Bjarni, B", "Dóra, A", "Einar, B"]
    page.locator("#ev-players").fill("\n".join(names))
    page.locator("#ev-open-join").check()
    page.locator("#ev-create").click()
    page.wait_for_selector("#room-links a[data-player-link]")
    host.check("the online evening's room (host)")
    joiner = Checker(context.new_page())
    open_page(joiner.page, str(page.locator("#room-join-link").get_attribute("href")))
    joiner.page.wait_for_selector("#ej-name")
    joiner.check("an online evening's join page")
    # a name in the leaderboard: the player's score card (no hand over yet)
    page.locator(".room-board button[data-card-of]").first.click()
    page.wait_for_selector("#dlg-card[open] .score-card")
    host.check("dialog #dlg-card", "#dlg-card")
    axe.dialogs.add("dlg-card")
    page.keyboard.press("Escape")
    link = str(page.locator("#room-links a[data-player-link]").first.get_attribute("href"))
    player = Checker(context.new_page())
    open_page(player.page, link)
    player.page.wait_for_selector("#table[data-evening-hand] ~ *, #hand .card")
    player.check("an online evening's player at their table")
    axe.found += host.found + joiner.found + player.found
    context.close()


def test_no_serious_or_critical_violation(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One game, each look at both sizes: a game per size would cost twice the clicks."""
    db = tmp_path / "games.sqlite3"
    store_finished_game(db)  # a finished game to review
    monkeypatch.setenv("WHISTKIT_ANALYSIS_NODE_LIMIT", "20000")
    server = ServerProcess(db).start()
    try:
        page = browser.new_page(viewport=DESKTOP, reduced_motion="reduce")
        axe = Checker(page)
        open_page(page, server.url, games=["reviewme"])
        page.wait_for_selector("#dlg-new[open]")  # the new-game dialog greets a first visit
        axe.check("dialog #dlg-new", "#dlg-new")
        axe.dialogs.add("dlg-new")
        start_by_keyboard(page, seed=12)
        play(page, until_trick_cards=2)
        axe.check("table mid-trick")
        for dialog_id, key in (
            ("dlg-last", "l"),
            ("dlg-sheet", "s"),
            ("dlg-help", "?"),
            ("dlg-rules", "r"),  # how to play
            ("dlg-confirm", "n"),  # N in the middle of a game asks first
        ):
            axe.dialog(dialog_id, key)
        axe.dialog("dlg-games", "#btn-games")
        play(page)  # to the end of the game
        page.wait_for_selector("#dlg-result[open]")
        axe.check("dialog #dlg-result", "#dlg-result")
        axe.dialogs.add("dlg-result")
        page.keyboard.press("Escape")
        axe.check("table at game over")
        axe.dialog("dlg-sheet", "s")
        # the review of a finished game, from the games list
        page.locator("#btn-games").click()
        page.wait_for_selector('#dlg-games[open] [data-review="reviewme"]')
        axe.dialog("dlg-review", '[data-review="reviewme"]')
        shared_table(browser, axe)
        online_evening(browser, server, axe)
        every = set(page.locator("dialog[id]").evaluate_all("ds => ds.map(d => d.id)"))
        assert every - axe.dialogs == set(), f"dialogs never checked: {every - axe.dialogs}"
        assert not axe.found, f"{len(axe.found)} findings:\n" + "\n".join(axe.found)
        page.close()
    finally:
        server.stop()


@pytest.mark.parametrize("lang", ["is", "ru"])
def test_no_serious_or_critical_violation_in_other_languages(
    browser: Browser, server: ServerProcess, lang: str
) -> None:
    """Icelandic and Russian (the longest words): the table, its dialogs and the end of a
    hand, at the four sizes (the English test above sees every dialog and the rest)."""
    page = browser.new_page(viewport=DESKTOP, reduced_motion="reduce")
    axe = Checker(page)
    open_page(page, server.url, lang)
    page.wait_for_selector("#dlg-new[open]")
    axe.check(f"{lang} dialog #dlg-new", "#dlg-new")
    start_by_keyboard(page, seed=12)
    play(page, until_trick_cards=2)
    axe.check(f"{lang} table mid-trick")
    for dialog_id, key in (
        ("dlg-last", "l"),
        ("dlg-sheet", "s"),
        ("dlg-help", "?"),
        ("dlg-rules", "r"),
        ("dlg-confirm", "n"),
    ):
        axe.dialog(dialog_id, key)
    axe.dialog("dlg-games", "#btn-games")
    play_to_hand_end(page)
    axe.check(f"{lang} the end of a hand")
    open_new_by_key(page)
    axe.check(f"{lang} dialog #dlg-new in a game", "#dlg-new")
    assert not axe.found, f"{len(axe.found)} findings:\n" + "\n".join(axe.found)
    page.close()


def test_online_evening_at_its_end(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An online evening at its end (#34; nobody came, stand-ins played it, the turn's
    time scaled): the room with the tables' records, a score card, a review from the
    room, a player's last page with their card, and the Games list with the evenings."""
    monkeypatch.setenv("WHISTKIT_TURN_TIME_SCALE", "0.01")
    server = ServerProcess(tmp_path / "games.sqlite3", bot_delay=0).start()
    try:
        context = browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
        page = context.new_page()
        axe = Checker(page)
        players = [{"name": n} for n in ("Anna", "Bjarni", "Dóra", "Einar")]
        made = page.request.post(
            server.url + "api/online-evenings", data={"hands": 1, "players": players}
        ).json()
        open_page(page, made["host_url"])
        page.wait_for_selector("#room-records [data-records-hand]", timeout=120_000)
        axe.check("the online evening's room at its end (host)")
        page.locator('.room-board button[data-card-of="1"]').click()
        page.wait_for_selector("#dlg-card[open] .score-card tr[data-hand]")
        axe.check("dialog #dlg-card with a hand", "#dlg-card")
        page.keyboard.press("Escape")
        page.locator("#room-records button[data-review]").first.click()
        page.wait_for_selector("#dlg-review[open] #review-body table", timeout=120_000)
        axe.check("dialog #dlg-review from the room", "#dlg-review")
        page.keyboard.press("Escape")
        open_page(page, made["players"][0]["url"])
        page.wait_for_selector("#evening-card .score-card tr[data-hand]")
        axe.check("an online evening's player at its end")
        open_page(page, server.url)
        page.keyboard.press("Escape")
        page.locator("#btn-games").click()
        page.wait_for_selector("#dlg-games[open] li[data-evening] a[data-open-evening]")
        axe.check("dialog #dlg-games with the evenings", "#dlg-games")
        assert not axe.found, f"{len(axe.found)} findings:\n" + "\n".join(axe.found)
        context.close()
    finally:
        server.stop()
