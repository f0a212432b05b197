"""A whole Félagsvist game in each of the six languages, seen at phone and desktop size.

At every card S plays, one look at the page in each size (all boxes measured in one
``evaluate``): this hand's trick counts (``[data-tricks-ns]``, ``[data-tricks-ew]``) are the tricks each
side has taken so far, checked afterwards against the game's own record; the header is
one row; the trick area, the hand and the seats stand where they stood at the same
moment of the first hand (within 2 px); nothing overlaps anything else or leaves the
viewport. A screenshot of one mid-hand table per size and language goes to
``artifacts/`` for a person to look at.

Both sizes look at the same moments of one game (the viewport is resized between the
two looks), which costs half the games of one game per size. The six cases are
independent (each its own server and page), so ``pytest -n 2
tests/e2e/test_e2e_steady_table.py`` runs them in parallel.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PageTimeout

from whistkit.analysis import positions
from whistkit.record import loads

from .conftest import DESKTOP, PHONE, ServerProcess
from .pages import open_page, start_by_keyboard
from .test_e2e_layout import check_game_over_on_a_phone


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    """The game server with club bots, the web game's default level (``DEFAULT_LEVEL``),
    named so that a stronger default would not slow this test: the layout does not depend
    on the bots' strength, and club bots answer at once where the expert thinks for a
    fifth of a second a card."""
    srv = ServerProcess(tmp_path / "games.sqlite3", args=["--level", "club"]).start()
    yield srv
    srv.stop()


LANGS = ["en", "is", "sv", "fr", "it", "ru"]
SIZES = {"desktop": DESKTOP, "phone": PHONE}
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
SEED = 21
MOVE = 2.0  # px a steady box may move between hands
SHOT_AT = (2, 7)  # the mid-hand table of the screenshot: hand 2, S to play to trick 7

# what must stay inside the viewport and clear of every other item (an item may hold
# another: a count inside a seat's label is not an overlap)
ITEMS = ", ".join(
    [
        "#hand [data-card]",
        "[data-trick] [data-card]",
        ".seat [data-card]",
        ".seat .backs",
        "#me [data-card]",
        ".seat .name",
        ".seat .count",
        ".seat .badge",
        "#me .name",
        "#me .badge",
        "[data-tricks-ns]",
        "[data-tricks-ew]",
        "#tally",
        "#trump-mark",
        "#hand-end",
        "#hand-info",
        ".scores .score",
        "#public-info",
        ".tools > *",
        "#status",
        "#actions > *",
        "#result-banner",
    ]
)
# the parts of the table that must not move between hands
STEADY = {
    "top bar": ".topbar",
    "trick area": "[data-trick]",
    "hand": "#hand",
    "seat top": '.seat[data-pos="top"]',
    "seat left": '.seat[data-pos="left"]',
    "seat right": '.seat[data-pos="right"]',
    "seat bottom": "#me",
}
# the header (the hand, its trump, the scores) and the tools: each one row, i.e. one
# horizontal line crosses all its items (on a phone the tools are a row of their own)
HEADER = {"header": "#bar .info > *, #bar > :not(.info)", "tools": "#tools > *"}

LOOK = """async ([items, steady, header, last, timeout]) => {
  // with `last` (a table version), first wait (polled each frame, as Playwright's
  // wait_for_function) until S is to act at another version with a legal card, or the
  // game is over: the wait and the look in one call, not four
  if (last !== null) {
    const table = document.querySelector('#table');
    const deadline = performance.now() + timeout;
    const ready = () => document.querySelector('[data-result]') !== null
      || (table.dataset.turn === 'S' && table.dataset.version !== last
          && document.querySelector('#hand [data-legal="true"]') !== null);
    while (!ready()) {
      if (performance.now() > deadline)
        return {timedOut: true, turn: table.dataset.turn, version: table.dataset.version};
      await new Promise(r => requestAnimationFrame(r));
    }
    if (document.querySelector('[data-result]') !== null) return {over: true};
  }
  // let finite transitions and animations (a card travelling, a trick gathered) end,
  // and their end be rendered (the layout is CSS alone: with nothing running, the boxes
  // read below are already those of the page at rest)
  const running = document.getAnimations().filter(a => {
    const t = a.effect && a.effect.getComputedTiming();
    return t && Number.isFinite(t.endTime);
  });
  if (running.length) {
    await Promise.all(running.map(a => a.finished.catch(() => null)));
    await new Promise(r => requestAnimationFrame(r));
  }
  const shown = el => {
    if (el.closest('[hidden]') || el.closest('dialog')) return null;
    const s = getComputedStyle(el);
    if (s.visibility === 'hidden' || s.display === 'none') return null;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? r : null;
  };
  const name = el => el.dataset.card || el.id || (el.className && String(el.className))
    || el.tagName.toLowerCase();
  const boxOf = r => [r.left, r.top, r.right, r.bottom].map(v => Math.round(v * 10) / 10);
  const vw = innerWidth, vh = innerHeight;
  const els = [];
  for (const el of document.querySelectorAll(items)) {
    const r = shown(el);
    if (r) els.push([el, r]);
  }
  const outside = [], overlaps = [];
  for (const [el, r] of els) {
    if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5)
      outside.push({item: name(el), box: boxOf(r)});
  }
  for (let i = 0; i < els.length; i++) {
    for (let j = i + 1; j < els.length; j++) {
      const [a, ra] = els[i], [b, rb] = els[j];
      if (a.contains(b) || b.contains(a)) continue;
      const x = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const y = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (x > 0.5 && y > 0.5)
        overlaps.push({a: name(a), b: name(b), by: [Math.round(x), Math.round(y)],
                       boxes: [boxOf(ra), boxOf(rb)]});
    }
  }
  const boxes = {};
  for (const [label, sel] of Object.entries(steady)) {
    const el = document.querySelector(sel);
    const r = el && shown(el);
    boxes[label] = r ? boxOf(r) : null;
  }
  const head = {};
  for (const [label, sel] of Object.entries(header)) {
    head[label] = [];
    for (const el of document.querySelectorAll(sel)) {
      const r = shown(el);
      if (r) head[label].push({item: name(el), top: r.top, bottom: r.bottom});
    }
  }
  const text = sel => {
    const el = document.querySelector(sel);
    return el ? el.textContent.trim() : null;
  };
  // where to click S's first legal card, if a click there reaches it
  let target = null;
  const card = document.querySelector('#hand [data-legal="true"]');
  const cr = card && shown(card);
  if (cr) {
    const x = cr.left + Math.min(cr.width / 2, 12), y = cr.top + cr.height / 2;
    const hit = document.elementFromPoint(x, y);
    if (hit && card.contains(hit)) target = [x, y];
  }
  return {
    target,
    version: document.querySelector('#table').dataset.version || '',
    hand: document.querySelector('[data-hand]').dataset.hand,
    cards: document.querySelectorAll('#hand [data-card]').length,
    legal: document.querySelectorAll('#hand [data-legal="true"]').length,
    ns: text('[data-tricks-ns]'), ew: text('[data-tricks-ew]'),
    outside, overlaps: overlaps.slice(0, 8), overlapCount: overlaps.length, boxes, head,
    scroll: [document.documentElement.scrollWidth - vw,
             document.documentElement.scrollHeight - vh],
    items: els.length,
  };
}"""


def look(page: Page) -> dict[str, Any]:
    """The page as it is now."""
    found: dict[str, Any] = page.evaluate(LOOK, [ITEMS, STEADY, HEADER, None, 0])
    return found


def look_at_my_turn(page: Page, last: str, timeout: float = 30_000) -> dict[str, Any] | None:
    """As :func:`pages.wait_my_turn` then :func:`look`, in one call: the look once S is to
    act at a version after ``last``; None once the game is over."""
    found: dict[str, Any] = page.evaluate(LOOK, [ITEMS, STEADY, HEADER, last, timeout])
    assert not found.get("timedOut"), f"S not to act after version {last!r} in time: {found}"
    return None if found.get("over") else found


def check_look(seen: dict[str, Any], where: str) -> None:
    """The checks that need nothing but this one look."""
    assert seen["items"] > 20, f"{where}: only {seen['items']} items on the table"
    assert seen["scroll"][0] <= 0 and seen["scroll"][1] <= 0, (
        f"{where}: the page scrolls by {seen['scroll']} px (x, y)"
    )
    assert not seen["outside"], f"{where}: outside the viewport: {seen['outside']}"
    assert not seen["overlaps"], (
        f"{where}: {seen['overlapCount']} overlaps, the first: {seen['overlaps']}"
    )
    for part, head in seen["head"].items():
        assert head, f"{where}: no {part} items"
        lowest_top = max(h["top"] for h in head)
        highest_bottom = min(h["bottom"] for h in head)
        assert lowest_top < highest_bottom, (
            f"{where}: the {part} wraps: {[h for h in head if h['top'] >= highest_bottom]}"
            f" start below {[h for h in head if h['bottom'] == highest_bottom]}"
        )
    for label in ("top bar", "trick area", "hand", "seat top", "seat left", "seat right"):
        assert seen["boxes"][label] is not None, f"{where}: no {label} on the table"
    assert seen["ns"] is not None and seen["ew"] is not None, (
        f"{where}: no [data-tricks-ns] / [data-tricks-ew] on the table"
    )


def moved(before: list[float], now: list[float]) -> float:
    return max(abs(a - b) for a, b in zip(before, now, strict=True))


def play_one(page: Page, seen: dict[str, Any], last: str) -> None:
    """Click S's first legal card; a single legal card the page may play by itself.

    The mouse clicks where the look found the card uncovered (cheaper than a locator's
    checks); when something covers it, the locator's click waits for it to clear.
    """
    if seen["legal"] == 1:
        try:
            page.wait_for_function(
                "(v) => document.querySelector('#table').dataset.version !== v",
                arg=last,
                timeout=3_000,
            )
            return
        except PageTimeout:  # not played for S: S plays it
            pass
    if seen["target"] is not None:
        page.mouse.click(*seen["target"])
    else:
        page.locator('#hand [data-legal="true"]').first.click()


# a whole game looked at in two sizes: on a busy machine more than the five minutes of
# the other browser tests
@pytest.mark.timeout(900)
@pytest.mark.parametrize("lang", LANGS)
def test_whole_game_steady_table(browser: Browser, server: ServerProcess, lang: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    # the layout at rest is what must hold still: without motion no card is caught in
    # flight, and no look waits for one (the look still lets any running animation end)
    sizes = list(SIZES)
    page = browser.new_page(viewport=SIZES[sizes[0]], reduced_motion="reduce")
    open_page(page, server.url, lang)
    start_by_keyboard(page, seed=SEED)
    shown_tricks: dict[tuple[int, int], tuple[str, str]] = {}
    # per size: trick -> the steady boxes at that moment of the first hand
    first_hand: dict[str, dict[int, dict[str, list[float] | None]]] = {s: {} for s in sizes}
    moves: list[str] = []
    last = ""
    shots: set[str] = set()
    seen = look_at_my_turn(page, last)
    while seen is not None:
        last = seen["version"]
        # both sizes at every turn, the size the page is at first (one resize a turn)
        for i, size in enumerate(sizes):
            if i:
                page.set_viewport_size(SIZES[size])
                seen = look(page)
            assert page.viewport_size == SIZES[size]
            hand, trick = int(seen["hand"]), 14 - seen["cards"]
            where = f"{size}/{lang} hand {hand} trick {trick}"
            check_look(seen, where)
            counts = shown_tricks.setdefault((hand, trick), (seen["ns"], seen["ew"]))
            assert counts == (seen["ns"], seen["ew"]), f"{where}: counts differ by size"
            before = first_hand[size].setdefault(trick, seen["boxes"])
            for label, box in seen["boxes"].items():
                if before.get(label) is None or box is None:
                    assert (before.get(label) is None) == (box is None), f"{where}: {label} shown?"
                    continue
                by = moved(before[label], box)
                if by > MOVE:
                    moves.append(f"{label} by {by:.1f} px ({before[label]} -> {box}) at {where}")
            if (hand, trick) == SHOT_AT and size not in shots:
                page.screenshot(path=str(ARTIFACTS / f"table-{size}-{lang}.png"))
                shots.add(size)
        sizes.reverse()
        play_one(page, seen, last)
        seen = look_at_my_turn(page, last)
    assert not moves, f"{len(moves)} moves, the first: {moves[:5]}"
    # S's turns in every hand (a single legal card the page plays by itself)
    hands = {h for h, _ in shown_tricks}
    assert shots == set(SIZES) and hands == set(range(1, 13)), (
        f"S's turns seen in hands {sorted(hands)}, screenshots at {sorted(shots)}"
    )
    assert len(shown_tricks) >= 12 * 6, f"only {len(shown_tricks)} of S's turns seen"
    if lang == "en":  # the finished game at phone size, its result and its whole sheet
        check_game_over_on_a_phone(page)

    # the trick counts against the record: the tricks each side had taken before S's card
    game = page.evaluate("() => localStorage.getItem('whistkit.game')")
    r = page.request.get(f"{server.url}api/games/{game}/record")
    assert r.ok, f"the record of the finished game: HTTP {r.status}"
    record = loads(r.text())
    truth = {
        (p.hand, p.trick): (str(p.state.tricks[0]), str(p.state.tricks[1]))
        for p in positions(record)
        if p.seat == 2
    }
    wrong = [
        f"hand {h} trick {t}: shows {shown_tricks[(h, t)]}, taken {truth[(h, t)]}"
        for (h, t) in sorted(shown_tricks)
        if shown_tricks[(h, t)] != truth[(h, t)]
    ]
    assert not wrong, f"{lang}: {len(wrong)} wrong trick counts: {wrong[:5]}"
    page.close()
