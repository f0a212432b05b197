"""The evening's phone (table) page and projector as people see them: the projector's
moves readable from the back of a hall at 1920x1080 and 1280x720 (large, the table number
never cut off, pages taking turns), the prizes beside the standings; the table that
reports last sees where its movers go; errors next to the action, in the page's
language, an unsent entry sent again when the server is back; names broken between words
only, at 320 px and with 150 % text; the tricks in view after a tap on a name.

One evening server for the module; each test creates its own evening through the API."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from evening_web.drive import Driver

from .test_e2e_evening import EveningProcess

LONG_A = [
    "Guðmundur Gunnarsson",
    "Sigurbjörn Tómasson",
    "Hallgrímur Þorsteinsson",
    "Jón Jónsson",
    "Steingrímur Hermannsson",
    "Kári Stefánsson",
]
LONG_B = [
    "Halla Tómasdóttir",
    "Vigdís Finnbogadóttir",
    "Jóhanna Sigurðardóttir",
    "Anna Jónsdóttir",
    "Guðrún Helgadóttir",
    "Ingibjörg Sólrún Gísladóttir",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EveningProcess]:
    srv = EveningProcess(tmp_path_factory.mktemp("evening") / "e.sqlite3").start()
    yield srv
    srv.stop()


class Evening:
    """An evening made through the API, its host cookie, its tables' links."""

    def __init__(self, server: EveningProcess, lines: list[str], hands: int = 12) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.url, timeout=60)
        self.host = Driver(self.http)
        self.id = self.host.create({"preset": "felagsvist", "hands": hands}, title="Spilakvöld")
        self.host.post(f"/api/e/{self.id}/import", {"text": "\n".join(lines)})
        self.host.post(f"/api/e/{self.id}/seat", {"mode": "random", "seed": 5})
        self.host.post(f"/api/e/{self.id}/status", {"action": "start"})
        st = self.host.state()
        self.links = {t["number"]: t["url"].split("/t/", 1)[1] for t in st["tables"]}

    def table_url(self, n: int) -> str:
        return f"{self.server.url}t/{self.links[n]}"

    def api(self, n: int) -> str:
        return f"/api/t/{self.links[n]}"

    def cookie(self) -> dict[str, Any]:
        name = f"wk_host_{self.id}"
        return {"name": name, "value": self.http.cookies[name], "url": self.server.url}

    def report(self, table: int, ns: int) -> None:
        st = self.host.state()
        hand = st["current"]["number"]
        seats = st["hand_states"][hand - 1]["tables"][table - 1]["seats"]
        self.host.post(
            f"{self.api(table)}/enter", {"hand": hand, "side": "NS", "tricks": ns, "by": seats["N"]}
        )
        self.host.post(f"{self.api(table)}/confirm", {"hand": hand, "by": seats["E"], "ns": ns})

    def play_hand(self, rng: random.Random) -> None:
        self.host.play_hand(rng)


def many(n_tables: int) -> list[str]:
    """2n A and 2n B players with long, unique Icelandic names."""
    first_a = [
        "Guðmundur",
        "Sigurbjörn",
        "Hallgrímur",
        "Steingrímur",
        "Kristján",
        "Þorsteinn",
        "Ragnar",
    ]
    first_b = ["Vigdís", "Jóhanna", "Ingibjörg", "Guðrún", "Sigríður", "Halldóra", "Kristín"]
    last_a = ["Gunnarsson", "Tómasson", "Hermannsson", "Stefánsson", "Björnsson", "Árnason"]
    last_b = ["Finnbogadóttir", "Sigurðardóttir", "Helgadóttir", "Tómasdóttir", "Gísladóttir"]
    out = []
    for i in range(2 * n_tables):
        out.append(f"{first_a[i % 7]} {last_a[i // 7 % 6]} {i + 1}, A")
        out.append(f"{first_b[i % 7]} {last_b[i // 7 % 5]} {i + 1}, B")
    return out


def open_page(context: Any, url: str, lang: str = "en") -> Any:
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('whistkit.lang', '{lang}')")
    page.goto(url)
    page.wait_for_selector("body[data-ready]")
    return page


def projector(browser: Any, ev: Evening, width: int, height: int, lang: str = "en") -> Any:
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.add_cookies([ev.cookie()])
    return open_page(ctx, f"{ev.server.url}e/{ev.id}/projector", lang)


def phone(browser: Any, width: int = 390, height: int = 844, scale: float = 2) -> Any:
    return browser.new_context(
        viewport={"width": width, "height": height},
        is_mobile=True,
        has_touch=True,
        device_scale_factor=scale,
    )


# what the projector's moves look like: every shown entry inside the screen, its table
# number whole, its name whole where the screen allows, its type size
MOVES_SEEN = """() => {
  const box = document.querySelector('#p-moves .move-list');
  const out = { shown: 0, total: 0, cut: [], cutNames: 0, outside: 0, size: 0, pages: 0,
    scroll: document.documentElement.scrollHeight - innerHeight };
  if (!box) return out;
  out.pages = Number(box.dataset.pages || 0);
  for (const e of box.querySelectorAll('.mv')) {
    out.total += 1;
    if (e.hidden) continue;
    out.shown += 1;
    const to = e.querySelector('.to'), nm = e.querySelector('.nm');
    const r = to.getBoundingClientRect();
    if (to.scrollWidth > to.clientWidth + 1 || r.right > innerWidth || r.bottom > innerHeight) out.cut.push(e.textContent);
    if (nm.scrollWidth > nm.clientWidth + 1) out.cutNames += 1;
    out.size = parseFloat(getComputedStyle(e).fontSize);
  }
  return out;
}"""


@pytest.mark.parametrize(("width", "height", "smallest"), [(1920, 1080, 36), (1280, 720, 24)])
def test_the_projector_moves_are_large_whole_and_take_turns(
    browser: Any, server: EveningProcess, width: int, height: int, smallest: int
) -> None:
    ev = Evening(server, many(30))
    ev.play_hand(random.Random(1))
    page = projector(browser, ev, width, height)
    page.wait_for_selector("#p-moves .mv")
    seen = page.evaluate(MOVES_SEEN)
    assert seen["total"] >= 60
    assert seen["cut"] == [] and seen["cutNames"] == 0, seen
    assert seen["size"] >= smallest, seen
    assert seen["scroll"] <= 0, "the projector never scrolls"
    # what does not fit is on further pages, each shown in turn
    assert seen["pages"] >= 2 and seen["shown"] * seen["pages"] >= seen["total"], seen
    first = page.eval_on_selector_all(
        "#p-moves .mv:not([hidden])", "es => es.map(e => e.dataset.player)"
    )
    page.wait_for_function(
        "() => document.querySelector('#p-moves .move-list').dataset.page === '2'", timeout=12000
    )
    second = page.eval_on_selector_all(
        "#p-moves .mv:not([hidden])", "es => es.map(e => e.dataset.player)"
    )
    assert second and not set(first) & set(second)
    assert page.evaluate(MOVES_SEEN)["cut"] == []
    page.context.close()


def test_the_projector_after_the_last_hand_and_its_prizes(
    browser: Any, server: EveningProcess
) -> None:
    ev = Evening(server, [f"{n}, A" for n in LONG_A] + [f"{n}, B" for n in LONG_B], hands=4)
    rng = random.Random(4)
    for _ in range(4):
        ev.play_hand(rng)
    page = projector(browser, ev, 1920, 1080)
    page.wait_for_selector("#p-board table.board")
    # every hand reported: no moves are shown any more
    assert page.locator("#p-moves").count() == 0
    ev.host.post(f"/api/e/{ev.id}/status", {"action": "finish"})
    page.wait_for_selector("#p-prizes li")
    boxes = page.evaluate("""() => {
      const board = document.querySelector('#p-board').getBoundingClientRect();
      return [...document.querySelectorAll('#p-prizes li')].map(li => {
        const r = li.getBoundingClientRect();
        const line = parseFloat(getComputedStyle(li).lineHeight) || 40;
        return { right: r.right, bottom: r.bottom, lines: Math.round(r.height / line), left: board.left };
      });
    }""")
    assert boxes
    for b in boxes:
        assert b["right"] <= b["left"], "a prize overlaps the standings"
        assert b["lines"] <= 2 and b["bottom"] <= 1080, b
    page.context.close()


def test_the_last_table_to_report_sees_where_its_movers_go(
    browser: Any, server: EveningProcess
) -> None:
    ev = Evening(server, [f"{n}, A" for n in LONG_A] + [f"{n}, B" for n in LONG_B])
    ctx = phone(browser)
    page = open_page(ctx, ev.table_url(3))
    page.wait_for_selector('body[data-stage="enter"]')
    ev.report(1, 7)
    ev.report(2, 6)
    ev.report(3, 8)  # the last: the page goes straight to hand 2
    page.wait_for_selector('body[data-hand="2"]')
    left = page.locator("#arrived [data-left]").all_inner_texts()
    assert len(left) >= 1 and all("→ table" in x for x in left), left
    page.context.close()


def test_an_unsent_entry_is_said_next_to_send_and_sent_when_the_server_is_back(
    browser: Any, server: EveningProcess
) -> None:
    ev = Evening(server, [f"{n}, A" for n in LONG_A] + [f"{n}, B" for n in LONG_B])
    ctx = phone(browser)
    page = open_page(ctx, ev.table_url(1), "is")
    page.wait_for_selector('body[data-stage="enter"]')
    page.locator("[data-by]").first.click()
    page.locator('[data-tricks="8"]').click()
    page.route("**/api/t/**", lambda route: route.abort())  # the server is down
    page.locator("#btn-send").click()
    box = page.locator("#act-error")
    box.wait_for()
    assert "Ekki sent" in box.inner_text() and "Failed to fetch" not in page.inner_text("body")
    # next to Send, on screen
    send, err = page.locator("#btn-send").bounding_box(), box.bounding_box()
    assert err["y"] >= send["y"] and err["y"] + err["height"] <= 844
    page.unroute("**/api/t/**")  # back: the entry goes without another tap
    page.wait_for_selector('body[data-stage="pending"]', timeout=15000)
    assert page.locator("#act-error").count() == 0
    page.context.close()


def test_refusals_are_in_the_page_language(browser: Any, server: EveningProcess) -> None:
    ev = Evening(server, [f"{n}, A" for n in LONG_A] + [f"{n}, B" for n in LONG_B])
    ctx = phone(browser)
    page = ctx.new_page()
    page.add_init_script("localStorage.setItem('whistkit.lang', 'is')")
    page.goto(f"{server.url}t/{ev.id}/{'A' * 22}")
    page.wait_for_selector("#error:not([hidden])")
    assert "borðspjaldinu" in page.inner_text("#error")
    # the projector without the host key says so, in words, not as JSON
    stranger = browser.new_context(viewport={"width": 1280, "height": 720})
    pr = open_page(stranger, f"{server.url}e/{ev.id}/projector")
    pr.wait_for_selector("#error:not([hidden])")
    assert "host link" in pr.inner_text("#error") and "{" not in pr.inner_text("body")
    ctx.close()
    stranger.close()


# words of the names split over two lines (a name broken mid-word)
BROKEN_WORDS = """() => {
  const out = [];
  for (const e of document.querySelectorAll('.compass .who, .names button')) {
    const text = e.firstChild;
    if (!text || text.nodeType !== 3) continue;
    let at = 0;
    for (const word of text.data.split(' ')) {
      const r = document.createRange();
      r.setStart(text, at); r.setEnd(text, at + word.length);
      const tops = new Set([...r.getClientRects()].map(q => Math.round(q.top)));
      if (tops.size > 1) out.push(word);
      at += word.length + 1;
    }
  }
  return out;
}"""


@pytest.mark.parametrize(
    ("width", "height", "scale"), [(390, 844, 2), (320, 640, 2), (214, 427, 3)]
)
def test_names_break_between_words_and_nothing_overflows(
    browser: Any, server: EveningProcess, width: int, height: int, scale: float
) -> None:
    """214x427 at scale 3 is a 320 px phone with the text at 150 %."""
    ev = Evening(server, [f"{n}, A" for n in LONG_A] + [f"{n}, B" for n in LONG_B])
    page = open_page(phone(browser, width, height, scale), ev.table_url(1), "is")
    page.wait_for_selector('body[data-stage="enter"]')
    assert page.evaluate(BROKEN_WORDS) == []
    page.locator("[data-by]").first.click()
    assert page.evaluate(BROKEN_WORDS) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    sizes = page.eval_on_selector_all(
        "[data-tricks]",
        "es => es.map(e => [e.getBoundingClientRect().width, e.getBoundingClientRect().height])",
    )
    assert len(sizes) == 14 and min(min(w, h) for w, h in sizes) >= 44, sizes
    page.context.close()


def test_a_tap_on_a_name_brings_the_tricks_into_view_and_pairs_join_in_the_language(
    browser: Any, server: EveningProcess
) -> None:
    ev = Evening(server, [f"{n}, A" for n in LONG_A] + [f"{n}, B" for n in LONG_B])
    page = open_page(phone(browser), ev.table_url(1), "is")
    page.wait_for_selector('body[data-stage="enter"]')
    page.locator("[data-by]").nth(3).click()
    seen = page.evaluate("""() => {
      const grid = document.querySelector('.tricks-grid').getBoundingClientRect();
      const send = document.querySelector('#btn-send').getBoundingClientRect();
      return { top: grid.top, bottom: send.bottom, h: innerHeight };
    }""")
    assert seen["top"] >= 0 and seen["bottom"] <= seen["h"] + 1, seen
    said = page.locator(".tricks-grid").evaluate("g => g.previousElementSibling.textContent")
    assert " og " in said and "&" not in said, said
    page.context.close()
