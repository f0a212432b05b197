"""Phones, issue 32's leftovers: the Swedish bottom cards' labels beside the seats, and a
shared table's seat names at 320 px. Each test failed on the code before its fix."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from .conftest import ServerProcess
from .pages import host_shared_table, open_page, start_by_clicks, version, wait_my_turn
from .test_e2e_layout import ITEMS, SHOTS, check_layout

SIZES: dict[str, ViewportSize] = {
    "320": {"width": 320, "height": 640},
    "360": {"width": 360, "height": 740},
    "390": {"width": 390, "height": 844},
    "1280": {"width": 1280, "height": 800},
}

# every revealed bottom card's label and card, against what lies around the seats: each
# must keep clear of the others, stay on the screen, and show its label whole (no word
# running out of its box); the status is its text, not its full-width box
BOTTOMS = """() => {
  const box = (e, label) => {
    const r = e.getBoundingClientRect();
    return {label, text: e.textContent.trim().slice(0, 24), x: r.left, y: r.top, r: r.right, b: r.bottom};
  };
  const where = (e) => { const s = e.closest('.seat, #me'); return s.dataset.pos || 'me'; };
  const publics = [];
  for (const p of document.querySelectorAll('.public[data-public="revealed"]')) {
    const label = p.querySelector('.label');
    publics.push({...box(label, 'label@' + where(p)), over: label.scrollWidth - label.clientWidth});
    publics.push(box(p.querySelector('.cards'), 'card@' + where(p)));
  }
  const others = [...document.querySelectorAll(
    '.seat .name, .seat .count, .seat .backs, .seat .badge, #me .name, #me .badge,'
    + ' [data-trick] [data-card], #public-info, #tally, #trump-mark')]
    .filter((e) => e.getClientRects().length)
    .map((e) => box(e, e.className + (e.closest('.seat') ? '@' + where(e) : '')));
  const range = document.createRange();
  range.selectNodeContents(document.querySelector('#status'));
  const s = range.getBoundingClientRect();
  others.push({label: 'status', text: '', x: s.left, y: s.top, r: s.right, b: s.bottom});
  return {publics, others, vw: innerWidth, vh: innerHeight};
}"""


def apart(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return bool(
        min(a["r"], b["r"]) - max(a["x"], b["x"]) <= 0.5
        or min(a["b"], b["b"]) - max(a["y"], b["y"]) <= 0.5
    )


def play_to_revealed(page: Page) -> None:
    """Choose bottom cards (and play) until the play has begun."""
    last = ""
    for _ in range(20):
        assert wait_my_turn(page, last)
        if page.locator("#table").get_attribute("data-phase") == "play":
            return
        last = version(page)
        page.locator('#hand [data-legal="true"]').first.click()
    raise AssertionError("the play never began")


@pytest.mark.parametrize("lang", ["fr", "ru", "sv"])
@pytest.mark.parametrize("size", list(SIZES))
def test_swedish_bottom_cards_clear_of_the_seats(
    browser: Browser, server: ServerProcess, size: str, lang: str
) -> None:
    """Seed 2: all four bottom cards turned up (North, West, East and yours); French and
    Russian have the longest labels, Swedish the longest word."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport=SIZES[size])
    open_page(page, server.url, lang)
    start_by_clicks(page, "swedish", {}, seed=2)
    play_to_revealed(page)
    where = f"{size}/{lang}"
    geo: dict[str, Any] = page.evaluate(BOTTOMS)
    page.screenshot(path=str(SHOTS / f"bottoms-{size}-{lang}.png"))
    seats = {p["label"].split("@")[1] for p in geo["publics"]}
    assert seats == {"top", "left", "right", "me"}, f"{where}: {geo['publics']}"
    for pub in geo["publics"]:
        assert pub.get("over", 0) <= 0, f"{where}: the label is cut: {pub}"
        assert pub["x"] >= 0 and pub["r"] <= geo["vw"], f"{where}: {pub} leaves the screen"
        for other in geo["others"]:
            assert apart(pub, other), f"{where}: {pub} overlaps {other}"
    page.close()


NAMES = """() => [...document.querySelectorAll('.seat .name, #me .name')].map((e) => ({
  seat: (e.closest('.seat, #me')).dataset.seat, text: e.textContent,
  over: e.scrollWidth - e.clientWidth, title: e.title}))"""


@pytest.mark.parametrize("lang", ["ru"])
def test_shared_table_seat_names_whole_at_320(
    browser: Browser, server: ServerProcess, lang: str
) -> None:
    """A table with friends at 320 px: every seat's name shown whole (East's was cut to
    "Вост…" in Russian: North's name widened the middle column), its tooltip the name;
    the corner boxes, names and badges still apart."""
    page = browser.new_page(viewport=SIZES["320"])
    open_page(page, server.url, lang)
    host_shared_table(page)
    names: list[dict[str, Any]] = page.evaluate(NAMES)
    page.screenshot(path=str(SHOTS / f"shared-names-320-{lang}.png"))
    assert len(names) == 4, names
    for name in names:
        assert name["over"] <= 0, f"320/{lang}: the name is cut: {name}"
        assert name["title"] == name["text"], name
    check_layout(page, f"shared 320/{lang}", ITEMS + ", #tally, #trump-mark")
    page.close()
