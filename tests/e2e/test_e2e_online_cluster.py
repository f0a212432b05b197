"""An online evening in the browser on two server processes behind nginx (docs/deploy.md:
``--bus``, PostgreSQL and Redis, ``hash $arg_game consistent``): the host's room, two
people who join by the link on phones, the start, a hand played at tables whose sockets
may land on the process that does not own them (relayed), the host ending the hand, and
every page moving to its hand 2 table by itself. Real nginx, processes, PostgreSQL and
Redis from Debian's packages, on free ports."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser
from playwright.sync_api import Error as PlaywrightError

from .conftest import DESKTOP, PHONE
from .pages import get_json, open_page, shots_dir

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """nginx's URL in front of two processes sharing a private PostgreSQL and Redis."""
    from server.cluster_helpers import clean_logs, cluster, nginx
    from services import Postgres, Redis, free_port

    tmp = tmp_path_factory.mktemp("cluster")
    pg = Postgres().start()
    try:
        with tempfile.TemporaryDirectory(prefix="whistkit-redis-") as folder:
            rd = Redis(Path(folder)).start()
            try:
                db = pg.fresh_database("e2e_cluster")
                # the pages' origin is nginx's: the processes know it as their public URL
                port = free_port()
                public = ("--public-url", f"http://127.0.0.1:{port}/")
                with (
                    cluster(tmp, db, rd.url, 2, args=public) as servers,
                    nginx(tmp / "nginx", servers, port) as host,
                ):
                    yield f"http://{host}/"
                    clean_logs(servers)
            finally:
                rd.stop()
    finally:
        pg.stop()


def test_an_evening_through_nginx_on_two_processes(
    browser: Browser, front: str, tmp_path: Path
) -> None:
    shots = shots_dir(tmp_path)
    host_context = browser.new_context(viewport=DESKTOP)
    host = host_context.new_page()
    open_page(host, front, lang="en")
    host.wait_for_selector("#dlg-new[open]")
    host.locator("#new-evening").click()
    host.wait_for_selector("#dlg-evening[open]")
    host.locator("#ev-title").fill("Two processes")
    host.locator("#ev-gather").check()
    host.locator("#ev-create").click()
    host.wait_for_selector("#room-start:visible")
    join_url = str(host.locator("#room-join-link").text_content())
    evening = join_url.split("?join-evening=")[1]
    people: list[tuple[Any, Any]] = []
    for name, lang in [("Anna", "is"), ("Bjarni", "sv")]:
        context = browser.new_context(viewport=PHONE)
        page = context.new_page()
        open_page(page, join_url, lang=lang)
        page.wait_for_selector("#ej-name")
        page.locator("#ej-name").fill(name)
        page.locator("#ej-submit").click()
        page.wait_for_url("**/?evening=*")
        people.append((context, page))
    host.wait_for_function(
        "() => document.querySelector('#room-joined').textContent.includes('Bjarni')"
    )
    host.locator("#room-start").click()
    host.locator("#room-start").click()
    for _context, page in people:
        page.wait_for_selector('#table[data-evening-hand="1"][data-evening-table]', timeout=60_000)
        page.wait_for_selector("#hand .card")
    # each person plays a card on their turn (their socket may be relayed to the owner)
    played = [False, False]
    deadline = time.monotonic() + 90
    while not all(played) and time.monotonic() < deadline:
        for n, (_context, page) in enumerate(people):
            if played[n] or page.locator("#hand [data-card]").count() == 12:
                played[n] = True
                continue
            cards = page.locator('#hand [data-legal="true"]')
            if cards.count():
                # a click on a hand being redrawn (another card arriving) may miss, as a
                # person's would: the next pass clicks again while the card is in hand
                with suppress(PlaywrightError):
                    cards.first.click(timeout=5_000)
        time.sleep(0.2)
    # what each page showed (a failure says whose turn the table was at, and where)
    shown = [
        page.evaluate(
            """() => {
              const t = document.querySelector('#table');
              return {url: location.href, turn: t.dataset.turn, mine: t.dataset.myTurn,
                      version: t.dataset.version, phase: t.dataset.phase,
                      table: t.dataset.eveningTable, hand: t.dataset.eveningHand,
                      cards: document.querySelectorAll('#hand [data-card]').length,
                      legal: document.querySelectorAll('#hand [data-legal="true"]').length,
                      status: (document.querySelector('#status') || {}).textContent};
            }"""
        )
        for _context, page in people
    ]
    assert all(played), f"a person's turn never came: {played}, {shown}"
    people[0][1].screenshot(path=str(shots / "cluster-hand1-is-phone.png"))
    # the host ends hand 1 (stand-ins finish it); every page moves on by itself
    host.wait_for_selector("#room-end-hand:visible")
    host.locator("#room-end-hand").click()
    host.locator("#room-end-hand").click()
    for _context, page in people:
        page.wait_for_selector('#table[data-evening-hand="2"][data-evening-table]', timeout=90_000)
        page.wait_for_selector("#hand .card")
    people[1][1].screenshot(path=str(shots / "cluster-hand2-sv-phone.png"))
    # the process answering the room compares its copy with the store every 0.5 s
    for _ in range(50):
        room = get_json(f"{front}api/online-evenings/{evening}/room")
        if room["current"] == 2:
            break
        time.sleep(0.1)
    assert room["current"] == 2 and room["hands"][0]["complete"], room["current"]
    for context, _page in people:
        context.close()
    host_context.close()
