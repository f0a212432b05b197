"""The table at the four sizes of issue 32 (a small phone, a phone, a small laptop, a
desktop) in English, Icelandic and Russian (the longest words): nothing leaves the page or
overlaps, the toolbar is named and big enough to touch, the end of a hand fits its panel."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from .conftest import DESKTOP, PHONE, ServerProcess
from .pages import (
    MY_TURN_OR_END,
    hand_cards,
    host_shared_table,
    open_page,
    start_by_keyboard,
    version,
)
from .test_e2e_layout import (
    GEOMETRY,
    ITEMS,
    SHOTS,
    check_layout,
    play_until_trick_on_table,
    strings,
)

SIZES = {
    "320": {"width": 320, "height": 640},
    "390": PHONE,
    "1024": {"width": 1024, "height": 700},
    "1280": DESKTOP,
}
LANGS = ("en", "is", "ru")
# the corner boxes too: the Tricks box once overlapped "North (Partner)" at 320 px
MORE_ITEMS = ITEMS + ", #tally, #trump-mark"

# each visible tool: its box, its tooltip and accessible name, the text it shows
TOOLS = """() => [...document.querySelectorAll('.tools > button')]
  .filter((b) => !b.hidden && b.getClientRects().length)
  .map((b) => {
    const r = b.getBoundingClientRect();
    const lbl = b.querySelector('.lbl');
    // text drawn at a readable size: not a visually hidden name for screen readers
    const shown = [...b.querySelectorAll('.lbl, .short')].filter((e) => {
      const box = e.getBoundingClientRect();
      return box.width > 4 && box.height > 6 && getComputedStyle(e).clip === 'auto';
    }).map((e) => e.textContent.trim()).join(' ');
    return {id: b.id, w: r.width, h: r.height, title: b.title,
            name: lbl ? lbl.textContent.trim() : '', shown};
  })"""

# the language menu shows its whole text: the chosen language's name in the select, or
# on a phone the code in the box over which the (unseen) select lies
LANGUAGE_MENU = """() => {
  const sel = document.querySelector('#lang');
  const box = sel.closest('label');
  const r = box.getBoundingClientRect();
  const out = {right: r.right, left: r.left, vw: innerWidth};
  if (getComputedStyle(sel).opacity === '0') {
    const after = getComputedStyle(box, '::after').content;
    return {...out, shown: after, fits: box.scrollWidth <= box.clientWidth, coded: true};
  }
  const cs = getComputedStyle(sel);
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  const text = sel.selectedOptions[0].textContent;
  const room = sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 16;
  return {...out, shown: text, fits: ctx.measureText(text).width <= room, coded: false};
}"""

# every cell of the end-of-hand panel's table inside the panel
PANEL_CELLS = """() => {
  const panel = document.querySelector('#hand-end');
  const p = panel.getBoundingClientRect();
  const cells = [...panel.querySelectorAll('th, td')].map((c) => {
    const r = c.getBoundingClientRect();
    return {text: c.textContent, left: r.left, right: r.right};
  });
  // what it must leave in view: the side seats' names, badges, counts and backs
  const seats = [...document.querySelectorAll(
    '.seat .name, .seat .badge, .seat .count, .seat .backs')].map((e) => {
    const r = e.getBoundingClientRect();
    return {label: e.className, text: e.textContent.slice(0, 20),
            left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  }).filter((r) => r.right > r.left && r.bottom > r.top);
  return {left: p.left, right: p.right, top: p.top, bottom: p.bottom,
          overflow: panel.scrollWidth - panel.clientWidth, cells, seats,
          vw: innerWidth, vh: innerHeight};
}"""


def check_tools(page: Page, where: str) -> None:
    width = (page.viewport_size or {"width": 0})["width"]
    tools: list[dict[str, Any]] = page.evaluate(TOOLS)
    assert len(tools) >= 7, f"{where}: {tools}"
    for tool in tools:
        # WCAG 2.5.5: 44x44 px; below 380 px a row of eight has room for 24 px (2.5.8)
        assert tool["h"] >= 44, f"{where}: {tool} is lower than 44 px"
        assert tool["w"] >= (44 if width >= 380 else 24), f"{where}: {tool} is too narrow"
        # the whole name as a tooltip at every width, and shown text where room allows
        assert tool["name"] and tool["title"] == tool["name"], f"{where}: {tool} has no tooltip"
        if width >= 380:
            assert tool["shown"], f"{where}: {tool} shows an icon only"
    menu = page.evaluate(LANGUAGE_MENU)
    assert menu["left"] >= 0 and menu["right"] <= menu["vw"], f"{where}: {menu}"
    assert menu["fits"], f"{where}: the language menu is cut: {menu}"


def check_hand_info(page: Page, where: str) -> None:
    """The contract line is whole, not cut to "1/12 · ..."."""
    cut = page.locator("#hand-info").evaluate("e => e.scrollWidth - e.clientWidth")
    assert cut <= 0, f"{where}: the contract line is {cut} px too long"


def check_panel(page: Page, where: str) -> None:
    geo: dict[str, Any] = page.evaluate(PANEL_CELLS)
    assert geo["cells"], f"{where}: an empty panel"
    assert geo["left"] >= 0 and geo["right"] <= geo["vw"], f"{where}: panel {geo}"
    assert geo["overflow"] <= 0, f"{where}: the panel's table is {geo['overflow']} px too wide"
    for seat in geo["seats"]:  # over the table's middle, not over a seat
        apart = (
            seat["right"] <= geo["left"] + 0.5
            or seat["left"] >= geo["right"] - 0.5
            or seat["bottom"] <= geo["top"] + 0.5
            or seat["top"] >= geo["bottom"] - 0.5
        )
        assert apart, f"{where}: the panel covers {seat}"
    for cell in geo["cells"]:
        assert cell["left"] >= geo["left"] and cell["right"] <= geo["right"] + 0.5, (
            f"{where}: {cell} spills out of the panel {geo['left']}..{geo['right']}"
        )


def play_to_hand_end(page: Page) -> None:
    """Click on to the end of the first hand; the last cards at the fast pace, at which the
    end-of-hand panel stays until a click (at pace 0 it goes with the next card)."""
    turn_or_panel = (
        f"(last) => !document.querySelector('#hand-end').hidden || ({MY_TURN_OR_END})(last)"
    )
    last = ""
    paced = False
    for _ in range(40):
        page.wait_for_function(turn_or_panel, arg=last, timeout=60_000)
        if page.locator("#hand-end").is_visible():
            return
        last = version(page)
        if not paced and len(hand_cards(page)) <= 2:
            page.evaluate("localStorage.setItem('whistkit.pace', 'fast')")
            paced = True
        page.locator('#hand [data-legal="true"]').first.click()
    raise AssertionError("the end of the hand never came")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", list(SIZES))
def test_table_at_each_size(browser: Browser, server: ServerProcess, size: str, lang: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    viewport = SIZES[size]
    page = browser.new_page(viewport=viewport)
    open_page(page, server.url, lang)
    start_by_keyboard(page, seed=21)
    where = f"{size}/{lang}"
    # the page is as wide as the screen: no sideways scrolling (it was 369 px at 320)
    geo = page.evaluate(GEOMETRY, MORE_ITEMS)
    assert geo["sw"] == geo["vw"], f"{where}: the page is {geo['sw']} px wide"
    # a whole hand: on one row beside a phone, every card whole (1024x700 cut the 13th)
    assert len(hand_cards(page)) == 13
    tops = {
        round(float(y))
        for y in page.locator("#hand [data-card]").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect().top)"
        )
    }
    assert len(tops) == (1 if viewport["width"] > 700 else 2), f"{where}: hand rows at {tops}"
    check_layout(page, where, MORE_ITEMS)
    play_until_trick_on_table(page, 2)
    page.screenshot(path=str(SHOTS / f"size-table-{size}-{lang}.png"))
    check_layout(page, where, MORE_ITEMS)
    check_tools(page, where)
    check_hand_info(page, where)
    if lang == "is":  # the words of issue 32: "Þú átt leik", "Nýr leikur" as "Leikir"
        tr = strings("is")
        assert page.locator("#status").inner_text() == "Þú átt leik"
        assert page.locator("#btn-new").get_attribute("title") == "Nýr leikur"
        assert tr["btn_games"] == "Leikir" and tr["new_title"] == "Nýr leikur"
    play_to_hand_end(page)
    page.screenshot(path=str(SHOTS / f"size-hand-end-{size}-{lang}.png"))
    check_panel(page, where)
    page.close()


# the card back drawn at the size of a hand of backs: the spread of its pixels' lightness
# inside the border, and how far from grey they are (a fine black lattice averaged to a
# flat grey slab there)
BACK_PIXELS = """async (width) => {
  const img = new Image();
  img.src = '/static/cards/back.svg';
  await img.decode();
  const height = Math.round(width * 1.4);
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0, width, height);
  const m = Math.ceil(width * 0.12);
  const data = ctx.getImageData(m, m, width - 2 * m, height - 2 * m).data;
  const light = [];
  let colour = 0;
  for (let i = 0; i < data.length; i += 4) {
    const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
    light.push(0.299 * r + 0.587 * g + 0.114 * b);
    colour += Math.max(r, g, b) - Math.min(r, g, b);
  }
  const mean = light.reduce((a, x) => a + x, 0) / light.length;
  const spread = Math.sqrt(light.reduce((a, x) => a + (x - mean) ** 2, 0) / light.length);
  return {spread, colour: colour / light.length};
}"""


@pytest.mark.parametrize("width", [22, 30, 40])
def test_card_backs_show_a_pattern(browser: Browser, server: ServerProcess, width: int) -> None:
    """At the backs' widths (22 px on a phone, 30 and 40 on wider screens) the back shows a
    pattern (its lightness varies) in colour, not a flat grey."""
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url)
    got = page.evaluate(BACK_PIXELS, width)
    assert got["spread"] >= 20, f"{width} px: a flat back {got}"
    assert got["colour"] >= 40, f"{width} px: a grey back {got}"
    page.close()


@pytest.mark.parametrize(
    ("lang", "line", "game"),
    [
        (
            "en",
            "Games won: N–S 1 (worth 1), E–W 1 (worth 3)",
            "Game 1 to E–W (N–S 0, E–W 6), worth 3",
        ),
        ("en", "Games won: N–S 0, E–W 1 (worth 3)", None),
        (
            "ru",
            "Выиграно игр: С–Ю 1 (стоимость 1), В–З 1 (стоимость 3)",
            "Игра 1: выиграли В–З (С–Ю 0, В–З 6), стоимость 3",
        ),
    ],
)
def test_games_of_a_rubber_in_words(
    browser: Browser, server: ServerProcess, lang: str, line: str, game: str | None
) -> None:
    """English and American whist (the same games in the view): the games line above the
    table names each side with the games it won, N–S first as in the end-of-hand panel
    and the sheet; not "Games: E–W 6–0 (3)" in the winner's order."""
    games: list[dict[str, Any]] = [{"winner": "EW", "score": {"NS": 0, "EW": 6}, "value": 3}]
    if game is not None:
        games.append({"winner": "NS", "score": {"NS": 5, "EW": 2}, "value": 1})
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server.url, lang)
    got = page.evaluate(
        """async (games) => {
          const m = await import('/static/sheet.js');
          return [m.gamesWonText(games), m.gameLine(1, games[0])];
        }""",
        games,
    )
    assert got[0] == line
    if game is not None:
        assert got[1] == game
    page.close()


@pytest.mark.parametrize("size", ["320", "390"])
def test_shared_table_tools_fit_a_phone(browser: Browser, server: ServerProcess, size: str) -> None:
    """A table with friends has two more tools (Table, Chat): on a phone the nine are
    icons, still 44 px high and at least 24 px wide, and the page no wider than the screen."""
    page = browser.new_page(viewport=SIZES[size])
    open_page(page, server.url, "ru")
    host_shared_table(page)
    where = f"shared {size}/ru"
    geo = page.evaluate(GEOMETRY, MORE_ITEMS)
    assert geo["sw"] == geo["vw"], f"{where}: the page is {geo['sw']} px wide"
    tools: list[dict[str, Any]] = page.evaluate(TOOLS)
    assert len(tools) == 9, f"{where}: {tools}"
    for tool in tools:
        assert tool["h"] >= 44 and tool["w"] >= 24, f"{where}: {tool} is too small"
        assert tool["name"] and tool["title"] == tool["name"], f"{where}: {tool} has no tooltip"
    page.screenshot(path=str(SHOTS / f"size-shared-{size}-ru.png"))
    page.close()
