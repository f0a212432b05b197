"""Issue 32, item 18 in real Chromium: invite links carry their token in the fragment,
the page reads it (and an older link's ``&t=``, which it moves to the fragment at once),
asks for the table's summary with the token in a header, and no request the page makes
has a token in its URL, the host's QR codes included."""

from __future__ import annotations

import json
import urllib.request
from typing import Any
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Browser, Page, Request

from .conftest import DESKTOP, ServerProcess
from .pages import open_page
from .test_e2e_friends import create_table, new_person, shared_server

__all__ = ["shared_server"]  # the module's server fixture, shared with the friends tests


def watch_requests(page: Page) -> list[str]:
    urls: list[str] = []

    def seen(request: Request) -> None:
        urls.append(request.url)

    page.on("request", seen)
    page.on("websocket", lambda ws: urls.append(ws.url))
    return urls


def new_table(server: ServerProcess) -> dict[str, Any]:
    body = {"name": "Anna", "seats": {"N": "person", "E": "person", "W": "club"}}
    req = urllib.request.Request(
        server.url + "api/tables",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        made: dict[str, Any] = json.load(r)
        return made


def sit(page: Page, seat: str, name: str) -> None:
    page.wait_for_selector("#dlg-join[open]")
    page.wait_for_function("() => document.querySelector('#join-summary').textContent !== ''")
    assert page.locator("#join-error").text_content() == ""
    page.locator("#player-name").fill(name)
    page.locator("#join-sit").click()
    page.wait_for_selector(f'#me[data-seat="{seat}"][data-player="{name}"]')


def test_a_link_with_the_token_in_the_fragment_and_an_older_one(
    browser: Browser, shared_server: ServerProcess
) -> None:
    made = new_table(shared_server)
    token_n, token_e = made["tokens"]["N"], made["tokens"]["E"]
    assert "#t=" in made["invites"]["N"]
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    urls = watch_requests(page)
    link = shared_server.url + made["invites"]["N"].split("/", 3)[3]
    open_page(page, link)
    sit(page, "N", "Björk")
    assert urlsplit(page.url).fragment == "" and urlsplit(page.url).query == ""
    context.close()
    # an older link: &t= in the query, moved to the fragment as the page arrives
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    urls += watch_requests(page)
    old = f"{shared_server.url}?join={made['game']}&seat=E&t={token_e}"
    open_page(page, old)
    parts = urlsplit(page.url)
    assert parse_qs(parts.query) == {"join": [made["game"]], "seat": ["E"]}
    assert parse_qs(parts.fragment) == {"t": [token_e]}
    sit(page, "E", "Chloé")
    context.close()
    leaked = [u for u in urls if token_n in u or (token_e in u and u != old)]
    assert leaked == [], leaked


def test_the_host_s_page_asks_for_qr_codes_without_tokens_in_urls(
    browser: Browser, shared_server: ServerProcess
) -> None:
    host = new_person(browser, "S", shared_server.url)
    urls = watch_requests(host.page)
    links = create_table(host, "felagsvist", {"N": "person", "E": "person", "W": "club"})
    tokens = [parse_qs(urlsplit(u).fragment)["t"][0] for u in links.values()]
    assert len(tokens) == 3  # N, E and the watch link
    for kind in ("N", "E", "watch"):
        host.page.wait_for_function(
            "(k) => { const i = document.querySelector(`img[data-qr='${k}']`);"
            " return i.complete && i.naturalWidth > 0; }",
            arg=kind,
        )
    assert any(u.endswith("/api/qr") for u in urls)
    leaked = [u for u in urls if any(t in u for t in tokens)]
    assert leaked == [], leaked
    host.context.close()


def test_a_name_taken_at_the_table_asks_for_another(
    browser: Browser, shared_server: ServerProcess
) -> None:
    """Issue 32, item 17 at the page: the server refuses "ANNA" (the host is Anna); the
    join form comes back saying so, in the page's language, and another name sits."""
    made = new_table(shared_server)
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    open_page(page, shared_server.url + made["invites"]["N"].split("/", 3)[3], lang="sv")
    page.wait_for_selector("#dlg-join[open]")
    page.locator("#player-name").fill("ANNA")
    page.locator("#join-sit").click()
    page.wait_for_function(
        "() => document.querySelector('#join-error').textContent.includes('heter redan')"
    )
    assert page.locator("#dlg-join[open]").count() == 1
    page.locator("#player-name").fill("Björk")
    page.locator("#join-sit").click()
    page.wait_for_selector('#me[data-seat="N"][data-player="Björk"]')
    context.close()


def test_a_page_that_hears_much_and_says_nothing_still_pings(
    browser: Browser, shared_server: ServerProcess
) -> None:
    """Issue 32, item 14 at the page: the server closes a socket that sends nothing for
    --idle-timeout (150 s), so the page must speak even while it hears plenty (a person
    at a table where the others chat and play, a watcher). Before, it pinged only when it
    heard nothing for 10 s. The page's clock is driven by the test (no waiting): with a
    chat line heard every 5 s for 40 s, it sends a ping within 25 s of its last message."""
    from websockets.sync.client import connect

    made = new_table(shared_server)
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.clock.install()
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda data: sent.append(str(data))))
    open_page(page, shared_server.url + made["invites"]["N"].split("/", 3)[3])
    sit(page, "N", "Björk")
    join = {"type": "join", "game": made["game"], "seat": "S", "token": made["token"]}
    with connect(shared_server.url.replace("http", "ws") + "ws", open_timeout=10) as host:
        host.send(json.dumps({**join, "name": "Anna"}))
        for i in range(8):  # 40 s of the page's time, a chat line every 5 s
            host.send(json.dumps({"type": "chat", "text": f"line {i}"}))
            page.wait_for_function(
                "(n) => [...document.querySelectorAll('#chat-log *')]"
                ".some((e) => e.textContent.includes(n))",
                arg=f"line {i}",
            )
            page.clock.run_for(5000)
    pings = [m for m in sent if '"ping"' in m]
    assert pings, sent
    context.close()
