"""Issue 33 in the browser: the phone that entered a result leaves the confirming to
another phone; the "cannot be reached" banner never covers the seats; the host page
without its key says so in the page's language and stops asking; leavers and players not
come yet are not "sitting out". Screenshots (EVH_SHOTS=dir) of the changed screens at
390x844 and 1280x720/1920x1080, in English and Icelandic."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .test_e2e_evening import EveningProcess
from .test_e2e_evening_phone import LONG_A, LONG_B, Evening, open_page, phone

SHOTS = os.environ.get("EVH_SHOTS")


def shot(page: Any, name: str) -> None:
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=False)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EveningProcess]:
    srv = EveningProcess(tmp_path_factory.mktemp("evening") / "e.sqlite3").start()
    yield srv
    srv.stop()


def lines() -> list[str]:
    return [f"{n}, A" for n in LONG_A] + [f"{n}, B" for n in LONG_B]


@pytest.mark.parametrize("lang", ["en", "is"])
def test_the_phone_that_entered_does_not_confirm(
    browser: Any, server: EveningProcess, lang: str
) -> None:
    ev = Evening(server, lines())
    entering = open_page(phone(browser), ev.table_url(1), lang)
    other = open_page(phone(browser), ev.table_url(1), lang)
    entering.wait_for_selector('body[data-stage="enter"]')
    entering.locator("[data-by]").first.click()
    entering.locator('[data-tricks="8"]').click()
    entering.locator("#btn-send").click()
    entering.wait_for_selector('body[data-stage="pending"] #other-phone')
    assert entering.locator("[data-confirm]").count() == 0
    assert entering.locator("#btn-reject").count() == 1  # it may still take it back
    shot(entering, f"phone-sent-{lang}-390")
    other.wait_for_selector('body[data-stage="pending"] [data-confirm]')
    shot(other, f"phone-confirm-{lang}-390")
    other.locator("[data-confirm]").first.click()
    other.wait_for_selector('body[data-stage="done"]')
    entering.wait_for_selector('body[data-stage="done"]')
    entering.context.close()
    other.context.close()


@pytest.mark.parametrize("size", [(390, 844), (320, 640)])
def test_the_cannot_be_reached_banner_does_not_cover_the_seats(
    browser: Any, server: EveningProcess, size: tuple[int, int]
) -> None:
    """Before: the banner stuck to the top of the screen over the seat diagram."""
    ev = Evening(server, lines())
    page = open_page(phone(browser, *size), ev.table_url(1), "is")
    page.wait_for_selector('body[data-stage="enter"]')
    page.route("**/api/t/**", lambda route: route.abort())  # the server is down
    ev.report(2, 6)  # another table's result: this page's poll is answered, the next fails
    page.wait_for_selector("#error:not([hidden])", timeout=30000)
    for seat in "NESW":
        covered = page.evaluate(
            """(seat) => {
              const e = document.querySelector(`.seat-${seat}`);
              e.scrollIntoView({ block: 'start' });
              const r = e.getBoundingClientRect();
              const banner = document.getElementById('error');
              const points = [[r.left + 2, r.top + 2], [r.right - 2, r.top + 2],
                [r.left + r.width / 2, r.top + r.height / 2]];
              return points.some(([x, y]) => banner.contains(document.elementFromPoint(x, y)));
            }""",
            seat,
        )
        assert not covered, seat
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, f"phone-offline-is-{size[0]}")
    page.unroute("**/api/t/**")
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "is"])
def test_the_host_page_without_its_key_says_so_and_stops(
    browser: Any, server: EveningProcess, lang: str
) -> None:
    """Before: the host page without its key asked the server again and again."""
    ev = Evening(server, lines())
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    page = open_page(ctx, f"{server.url}e/{ev.id}/host", lang)
    page.wait_for_selector('body[data-stopped="host_only"]', timeout=30000)
    text = page.inner_text("#error")
    assert ("This page is the host's" if lang == "en" else "Þessi síða er stjórnandans") in text
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/e/" in r.url else None)
    page.wait_for_timeout(3000)  # a page still polling asks again within 0.5-1.5 s
    assert asked == []
    shot(page, f"host-nokey-{lang}-1280")
    # a wrong key is a page in the browser's language
    refused = ctx.new_page()
    refused.set_extra_http_headers({"accept-language": "is" if lang == "is" else "en"})
    r = refused.goto(f"{server.url}e/{ev.id}/host?key=wrong")
    assert r is not None and r.status == 403
    assert refused.locator("#refused").get_attribute("data-code") == "wrong_key"
    shot(refused, f"host-wrongkey-{lang}-1280")
    ctx.close()


@pytest.mark.parametrize("lang", ["en", "is"])
def test_leavers_and_late_arrivals_on_the_host_page_and_projector(
    browser: Any, server: EveningProcess, lang: str
) -> None:
    ev = Evening(server, lines())
    st = ev.host.state()
    players = st["players"] + [
        {"name": "Ólafur Ragnar Grímsson", "group": "A", "arrives": 3},
        {"name": "Dorrit Moussaieff", "group": "B", "arrives": 3},
    ]
    players[0] = {**players[0], "leaves": 1}
    ev.host.post(f"/api/e/{ev.id}/players", {"players": players})
    ev.host.play_hand(random.Random(2))
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    ctx.add_cookies([ev.cookie()])
    host = open_page(ctx, f"{server.url}e/{ev.id}/host", lang)
    host.wait_for_selector('[data-out="not_here"]')
    not_here = host.locator('#table-states ~ [data-out="not_here"]').inner_text()
    assert "Ólafur Ragnar Grímsson" in not_here and players[0]["name"] in not_here
    sitting = host.locator('[data-out="sitting_out"]')
    if sitting.count():
        assert "Ólafur" not in sitting.first.inner_text()
    shot(host, f"host-tables-{lang}-1280")
    ctx.close()
    big = browser.new_context(viewport={"width": 1920, "height": 1080})
    big.add_cookies([ev.cookie()])
    proj = open_page(big, f"{server.url}e/{ev.id}/projector", lang)
    leaver = proj.locator(f'.mv[data-player="{players[0]["id"]}"]')
    leaver.wait_for()
    assert (
        leaver.inner_text().replace("\n", " ").endswith("goes home" if lang == "en" else "fer heim")
    )
    shot(proj, f"projector-{lang}-1920")
    big.close()


def test_a_player_is_renamed_on_the_host_page(browser: Any, server: EveningProcess) -> None:
    """Before: a name mistyped in the pasted list could not be mended after the import."""
    ev = Evening(server, lines())
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    ctx.add_cookies([ev.cookie()])
    host = open_page(ctx, f"{server.url}e/{ev.id}/host", "is")
    first = ev.host.state()["players"][0]
    host.locator("#players-panel > summary").click()  # the list, folded once started
    host.once("dialog", lambda d: d.accept("Guðmundur Gunnarsson yngri"))
    host.locator(f"#rename-{first['id']}").click()
    host.wait_for_function(
        "() => document.querySelector('#players').textContent.includes('Gunnarsson yngri')"
    )
    assert ev.host.state()["players"][0]["name"] == "Guðmundur Gunnarsson yngri"
    # leavers score nothing for the hands missed (the default, issue 33)
    assert "fá engin stig" in host.locator("#late-help").inner_text()
    shot(host, "host-players-is-1280")
    ctx.close()


@pytest.mark.parametrize("lang", ["en", "is"])
def test_a_table_opened_late_has_its_link_and_card_on_the_host_page(
    browser: Any, server: EveningProcess, lang: str
) -> None:
    """Before: a table opened for late arrivals had its link and QR code only on the
    print page, with every other table's card."""
    ev = Evening(server, lines())
    late = "Ari Seinni, A\nBirna Seinni, B\nKalli Seinni, A\nLína Seinni, B"
    ev.host.post(f"/api/e/{ev.id}/import", {"text": late})
    ev.host.play_hand(random.Random(5))  # they play from hand 2, at a fourth table
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    ctx.add_cookies([ev.cookie()])
    host = open_page(ctx, f"{server.url}e/{ev.id}/host", lang)
    card = host.locator('#cards-panel[open] .link-card.new[data-table="4"]')
    card.wait_for()
    assert host.locator("#table-links .link-card").count() == 4
    assert card.locator("a[href*='/t/']").inner_text().startswith(server.url + "t/")
    assert host.evaluate(
        "() => document.querySelector('.link-card[data-table=\"4\"] img').decode().then(() => true)"
    )
    card.scroll_into_view_if_needed()
    shot(host, f"host-late-table-{lang}-1280")
    href = host.locator("#print-card-4").get_attribute("href")
    assert href == f"/e/{ev.id}/print/tables?table=4"
    printed = open_page(ctx, server.url + href.lstrip("/"), lang)
    assert printed.locator(".table-card").count() == 1
    assert printed.locator(".table-card").get_attribute("data-table") == "4"
    ctx.close()


BOARD_SEEN = """() => {
  const board = document.getElementById('p-board');
  const bottom = Math.min(innerHeight, board.getBoundingClientRect().bottom);
  const out = { page: Number(board.dataset.page || 1), pages: Number(board.dataset.pages || 1),
    shown: [], cut: [] };
  for (const tr of board.querySelectorAll('tr[data-player]')) {
    if (tr.hidden) continue;
    out.shown.push(Number(tr.dataset.player));
    if (tr.getBoundingClientRect().bottom > bottom + 1) out.cut.push(tr.textContent);
  }
  return out;
}"""


def board_pages(page: Any) -> set[int]:
    """Every player the leaderboard shows, page by page (a key turns the page); no row
    is cut off on any page."""
    seen: set[int] = set()
    first = page.evaluate(BOARD_SEEN)
    for _ in range(first["pages"]):
        now = page.evaluate(BOARD_SEEN)
        assert now["cut"] == [], now
        seen |= set(now["shown"])
        page.keyboard.press("PageDown")
    return seen


def winners_cut(page: Any) -> list[str]:
    """The projector's prizes whose line runs past the bottom of its panel or screen."""
    cut: list[str] = page.evaluate(
        """() => {
          const box = document.getElementById('p-prizes').getBoundingClientRect();
          return [...document.querySelectorAll('#p-prizes li')]
            .filter((li) => li.getBoundingClientRect().bottom > Math.min(box.bottom, innerHeight) + 1)
            .map((li) => li.textContent);
        }"""
    )
    return cut


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_projector_leaderboard_pages_through_every_player(
    browser: Any, server: EveningProcess, size: tuple[int, int]
) -> None:
    """Before: with 22-23 players the last rows were cut off all evening and never shown,
    the more so under the "cannot be reached" line, and after Finish the lowest total's
    winner never appeared."""
    names_a = [f"{n} {s}" for s in ("eldri", "yngri") for n in LONG_A]
    names_b = [f"{n} {s}" for s in ("eldri", "yngri") for n in LONG_B][:11]
    ev = Evening(server, [f"{n}, A" for n in names_a] + [f"{n}, B" for n in names_b])
    ev.host.play_hand(random.Random(7))
    everyone = {p["id"] for p in ev.host.state()["players"]}
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    ctx.add_cookies([ev.cookie()])
    page = open_page(ctx, f"{server.url}e/{ev.id}/projector", "is")
    page.wait_for_selector("#p-moves")
    assert board_pages(page) == everyone
    shot(page, f"projector-board-is-{size[0]}")
    # the server cannot be reached: the line takes room, the pages are measured again
    page.route("**/projector?since=**", lambda route: route.abort())
    ev.report(1, 5)
    page.wait_for_selector("#error:not([hidden])", timeout=30000)
    assert board_pages(page) == everyone
    shot(page, f"projector-offline-is-{size[0]}")
    page.unroute("**/projector?since=**")
    page.wait_for_selector("#error[hidden]", state="attached", timeout=30000)
    # after Finish: the prizes with what they were won with, every winner on a page
    ev.host.post(f"/api/e/{ev.id}/status", {"action": "finish"})
    page.wait_for_selector("#p-prizes")
    prizes = ev.host.state()["prizes"]
    lowest = next(p for p in prizes if p["category"] == "lowest")
    item = page.locator('#p-prizes li[data-category="lowest"]').inner_text()
    assert item.startswith("Lægsta skor (skammarverðlaun): "), item  # no "1" of one place
    assert item.endswith(f"({lowest['value']})"), item
    assert set(lowest["players"]) <= board_pages(page) == everyone
    shot(page, f"projector-final-is-{size[0]}")
    ctx.close()


@pytest.mark.parametrize("lang", ["en", "is"])
def test_half_time_on_the_host_page_and_own_totals_on_the_phone(
    browser: Any, server: EveningProcess, lang: str
) -> None:
    ev = Evening(server, lines())
    rng = random.Random(11)
    for _ in range(6):
        ev.play_hand(rng)
    st = ev.host.state()
    assert st["half_time"]["after"] == 6
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    ctx.add_cookies([ev.cookie()])
    host = open_page(ctx, f"{server.url}e/{ev.id}/host", lang)
    host.locator("#half-panel > summary").click()
    host.locator("#half-time").scroll_into_view_if_needed()
    first = st["half_time"]["standings"]["A"][0]
    cell = host.locator(f'#half-time td[data-player="{first["player"]}"]')
    assert cell.inner_text() == str(first["total"])
    lowest = host.locator('#prizes li[data-category="lowest"]').inner_text()
    assert ":" in lowest and " 1:" not in lowest and lowest.endswith(")")
    shot(host, f"host-half-time-{lang}-1280")
    ctx.close()
    page = open_page(phone(browser), ev.table_url(1), lang)
    page.wait_for_selector('body[data-stage="enter"]')
    totals = {s["player"]: s["total"] for s in st["standings"]}
    seats = st["hand_states"][6]["tables"][0]["seats"]
    n_total = page.locator(".seat-N .total").get_attribute("data-total")
    assert n_total == str(totals[seats["N"]])
    shot(page, f"phone-totals-{lang}-390")
    page.context.close()


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_52_players_on_the_projector_every_one_within_the_page_turns(
    browser: Any, server: EveningProcess, size: tuple[int, int]
) -> None:
    """Issue 33's hall: 52 players at 13 tables; the leaderboard shows each of them on
    one of its pages, beside the moves and then on its own after the last hand."""
    from .test_e2e_evening_phone import many

    ev = Evening(server, many(13))
    ev.play_hand(random.Random(12))
    everyone = {p["id"] for p in ev.host.state()["players"]}
    assert len(everyone) == 52
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    ctx.add_cookies([ev.cookie()])
    page = open_page(ctx, f"{server.url}e/{ev.id}/projector", "en")
    page.wait_for_selector("#p-moves")
    grid = page.locator(".p-grid")
    if "p-rotate" in (grid.get_attribute("class") or ""):  # the standings a turn of their own
        page.wait_for_selector('.p-grid[data-show="board"]', timeout=120_000)
    assert board_pages(page) == everyone
    shot(page, f"projector-52-en-{size[0]}")
    ev.host.post(f"/api/e/{ev.id}/status", {"action": "finish"})
    page.wait_for_selector("#p-prizes")
    assert board_pages(page) == everyone
    assert winners_cut(page) == []  # every winner is on the screen
    shot(page, f"projector-52-final-en-{size[0]}")
    ctx.close()


@pytest.mark.parametrize("lang", ["en", "is"])
def test_the_series_running_total_on_the_host_page(
    browser: Any, server: EveningProcess, lang: str
) -> None:
    series = f"Vetur {lang}"
    evs = []
    for _ in range(2):
        ev = Evening(server, lines(), hands=2)
        config = ev.host.state()["config"]
        ev.host.post(f"/api/e/{ev.id}/config", {"config": {**config, "series": series}})
        rng = random.Random(14)
        ev.play_hand(rng)
        ev.play_hand(rng)
        evs.append(ev)
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    ctx.add_cookies([evs[1].cookie()])
    host = open_page(ctx, f"{server.url}e/{evs[1].id}/host", lang)
    host.locator("#series-panel > summary").click()
    host.locator("#series").scroll_into_view_if_needed()
    assert host.locator("#series tr").count() == 12
    shot(host, f"host-series-{lang}-1280")
    ctx.close()
