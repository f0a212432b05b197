"""The host's page of the evening organiser, as a new user's walkthrough found it: the
correction form, early leavers, panels across live updates, the import report, a phone's
entry waiting for confirmation, the create form, links only this laptop can open, and
counts in the plural. One evening server for the module; each test its own evening."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import DESKTOP, PHONE
from .test_e2e_evening import A_NAMES, B_NAMES, EveningProcess, open_page


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EveningProcess]:
    srv = EveningProcess(tmp_path_factory.mktemp("host") / "games.sqlite3").start()
    yield srv
    srv.stop()


@pytest.fixture
def ctx(browser: Any) -> Iterator[Any]:
    c = browser.new_context(viewport=DESKTOP)
    yield c
    c.close()


def evening(
    ctx: Any, server: EveningProcess, n_a: int = 6, n_b: int = 6, start: bool = True
) -> str:
    """A félagsvist evening made through the API with this context's host cookie."""
    api = ctx.request
    base = server.url
    made = api.post(base + "api/evenings", data={"title": "Kvöld", "config": {"hands": 6}})
    eid: str = made.json()["id"]
    if not start:
        return eid
    players = "\n".join([f"{n}, A" for n in A_NAMES[:n_a]] + [f"{n}, B" for n in B_NAMES[:n_b]])
    for path, body in (
        ("import", {"text": players}),
        ("seat", {"seed": 3}),
        ("status", {"action": "start"}),
    ):
        r = api.post(f"{base}api/e/{eid}/{path}", data=body)
        assert r.ok, r.text()
    return eid


def post(ctx: Any, url: str, body: dict[str, Any]) -> Any:
    r = ctx.request.post(url, data=body)
    assert r.ok, r.text()
    return r.json()


def state(ctx: Any, server: EveningProcess, eid: str) -> dict[str, Any]:
    data: dict[str, Any] = ctx.request.get(f"{server.url}api/e/{eid}").json()
    return data


def wait_text(page: Any, selector: str, text: str) -> None:
    page.wait_for_function(
        "([s, t]) => { const e = document.querySelector(s); return e && e.textContent.includes(t); }",
        arg=[selector, text],
    )


def test_a_correction_with_an_empty_tricks_field_is_named_and_saves_nothing(
    ctx: Any, server: EveningProcess
) -> None:
    eid = evening(ctx, server)
    post(ctx, f"{server.url}api/e/{eid}/result", {"hand": 1, "table": 1, "ns": 6})
    host = open_page(ctx, f"{server.url}e/{eid}/host")
    host.wait_for_selector("#correct-form")
    host.locator("#corr-hand").fill("1")
    host.locator("#corr-table").fill("1")
    host.locator("#corr-reason").fill("card mislaid")
    host.locator("#corr-save").click()
    error = host.locator("#error")
    error.wait_for(state="visible")
    assert "“N–S tricks” needs a whole number from 0 to 13" in error.inner_text()
    assert host.evaluate("document.activeElement.id") == "corr-ns"
    tb = state(ctx, server, eid)["hand_states"][0]["tables"][0]
    assert tb["result"]["ns"] == 6
    assert host.locator("#results-grid tbody tr").first.locator("td").first.inner_text() == "6"


def test_an_early_leaver_is_asked_for_and_can_be_undone(ctx: Any, server: EveningProcess) -> None:
    eid = evening(ctx, server)
    host = open_page(ctx, f"{server.url}e/{eid}/host")
    host.locator("#players-panel > summary").click()
    first = state(ctx, server, eid)["players"][0]
    button = host.locator(f"#leave-{first['id']}")
    label = button.inner_text()
    assert label.startswith("Mark as leaving after hand 1"), label
    asked: list[str] = []

    def answer(accept: bool) -> Any:
        def on(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        return on

    host.once("dialog", answer(False))
    button.click()
    assert first["name"] in asked[0] and "after hand 1" in asked[0], asked
    assert state(ctx, server, eid)["players"][0]["leaves"] is None
    host.once("dialog", answer(True))
    button.click()
    stay = host.locator(f"#stay-{first['id']}")
    stay.wait_for()
    assert state(ctx, server, eid)["players"][0]["leaves"] == 1
    assert "leaves after hand 1" in host.locator("#players tbody tr").first.inner_text()
    stay.click()
    host.locator(f"#leave-{first['id']}").wait_for()
    assert state(ctx, server, eid)["players"][0]["leaves"] is None


def test_open_panels_focus_and_typed_text_survive_live_updates(
    ctx: Any, server: EveningProcess
) -> None:
    eid = evening(ctx, server)
    post(ctx, f"{server.url}api/e/{eid}/result", {"hand": 1, "table": 1, "ns": 6})
    host = open_page(ctx, f"{server.url}e/{eid}/host")
    host.locator("#players-panel > summary").click()
    host.locator("#audit > summary").click()
    host.locator("#players-panel details > summary").click()
    host.locator("#import-text").fill("Sól Björk, B")
    host.locator("#add-group").select_option("B")
    host.locator("#add-name").fill("Sigga")
    host.locator("#add-name").focus()
    # a phone's result arrives meanwhile
    post(ctx, f"{server.url}api/e/{eid}/result", {"hand": 1, "table": 2, "ns": 9})
    host.wait_for_selector('#table-states [data-table="2"][data-state="done"]')
    opened = host.evaluate(
        "['#players-panel', '#audit', '#players-panel details'].map((s) => document.querySelector(s).open)"
    )
    assert opened == [True, True, True]
    assert host.evaluate("document.activeElement.id") == "add-name"
    assert host.locator("#add-name").input_value() == "Sigga"
    assert host.locator("#add-group").input_value() == "B"
    assert host.locator("#import-text").input_value() == "Sól Björk, B"
    # and after an Add (a late arrival): the panel stays open, the name field takes the next
    host.keyboard.press("Enter")
    host.wait_for_function("() => document.querySelectorAll('#players tbody tr').length === 13")
    host.wait_for_function("() => document.getElementById('add-name').value === ''")
    assert host.evaluate("document.getElementById('players-panel').open")
    assert host.evaluate("document.activeElement.id") == "add-name"


def test_a_pasted_list_is_read_line_by_line_and_the_host_sees_what_was_taken(
    ctx: Any, server: EveningProcess
) -> None:
    eid = evening(ctx, server, start=False)
    host = open_page(ctx, f"{server.url}e/{eid}/host")
    host.locator("#import-text").fill("name,group\nAnna\tB\nAri Þór, A\nAnna Jónsdóttir B")
    host.locator("#btn-import").click()
    note = host.locator("#import-note")
    note.wait_for()
    text = note.inner_text()
    assert "Nothing imported" in text and "line 4 ('Anna Jónsdóttir B'): no group" in text, text
    assert state(ctx, server, eid)["players"] == []
    assert "Anna Jónsdóttir B" in host.locator("#import-text").input_value()
    host.locator("#import-text").fill("name,group\nAnna\tB\nAri Þór, A\nAnna Jónsdóttir, B")
    host.locator("#btn-import").click()
    wait_text(host, "#import-note", "Imported 3 players")
    assert "Ari Þór (A)" in host.locator("#import-note").inner_text()
    players = [(p["name"], p["group"]) for p in state(ctx, server, eid)["players"]]
    assert players == [("Anna", "B"), ("Ari Þór", "A"), ("Anna Jónsdóttir", "B")]


def test_a_pending_phone_entry_shows_and_is_replaced_only_knowingly(
    ctx: Any, server: EveningProcess
) -> None:
    eid = evening(ctx, server)
    st = state(ctx, server, eid)
    tb = st["hand_states"][0]["tables"][0]
    token_url = st["tables"][0]["url"].replace("/t/", "/api/t/")
    n = tb["seats"]["N"]
    name = next(p["name"] for p in st["players"] if p["id"] == n)
    assert ctx.request.get(token_url).ok  # the table's view gives the phone its session
    post(ctx, f"{token_url}/enter", {"hand": 1, "side": "NS", "tricks": 8, "by": n})
    host = open_page(ctx, f"{server.url}e/{eid}/host")
    wait_text(host, "#pending-1", f"{name} entered N–S 8")
    assert host.locator("#entry-1").get_attribute("placeholder") == "8"
    asked: list[str] = []
    host.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    host.locator("#entry-1").fill("5")
    host.locator("#entry-1").press("Enter")
    host.wait_for_function("() => true")
    assert asked and "N–S 8" in asked[0] and "N–S 5" in asked[0], asked
    assert state(ctx, server, eid)["hand_states"][0]["tables"][0]["result"] is None
    host.once("dialog", lambda d: d.accept())
    host.locator("#entry-1").press("Enter")
    wait_text(host, '#table-states [data-table="1"]', "N–S 5")
    assert state(ctx, server, eid)["hand_states"][0]["tables"][0]["result"]["ns"] == 5


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_the_create_form_shows_whole_choices_and_the_absence_credit(
    browser: Any, server: EveningProcess, size: dict[str, int]
) -> None:
    c = browser.new_context(viewport=size)
    try:
        page = open_page(c, server.url)
        page.wait_for_selector("#create")
        cut = page.evaluate(
            """() => [...document.querySelectorAll('#f-preset label, #f-sitout label')]
              .filter((l) => l.scrollWidth > l.clientWidth + 1
                || l.getBoundingClientRect().right > innerWidth)
              .map((l) => l.textContent)"""
        )
        labels = page.locator("#f-preset label, #f-sitout label").all_inner_texts()
        assert len(labels) == 7 and any("winners move" in x for x in labels), labels
        assert cut == []
        box = page.locator("#f-credit-absence")
        assert not box.is_checked()  # the documented default: as halls score (issue 33)
        box.check()
        page.locator("#f-sitout-room_average").check()
        page.locator("#f-create").click()
        page.wait_for_url(re.compile(r"/e/[0-9a-f]+/host$"))
        eid = page.url.split("/")[-2]
        config = c.request.get(f"{server.url}api/e/{eid}").json()["config"]
        assert config["credit_absence"] is True and config["sit_out"] == "room_average"
    finally:
        c.close()


def test_links_only_this_laptop_can_open_are_warned_about(ctx: Any, server: EveningProcess) -> None:
    eid = evening(ctx, server, n_a=2, n_b=2)
    host = open_page(ctx, f"{server.url}e/{eid}/host")
    warning = host.locator("#local-links")
    assert "127.0.0.1" in warning.inner_text() and "--host 0.0.0.0" in warning.inner_text()
    cards = open_page(ctx, f"{server.url}e/{eid}/print/tables")
    assert "--host 0.0.0.0" in cards.locator("#local-links").inner_text()
    # on screen only: the printed card carries no warning
    assert (
        cards.evaluate("getComputedStyle(document.getElementById('local-links')).display") != "none"
    )
    cards.emulate_media(media="print")
    assert (
        cards.evaluate("getComputedStyle(document.getElementById('local-links')).display") == "none"
    )


@pytest.mark.parametrize(
    ("lang", "line", "summary"),
    [
        ("en", "1 table to report", "4 players · 1 table"),
        ("is", "1 borð á eftir að skila", "4 spilarar · 1 borð"),
        ("ru", "1 стол ещё не сдал результат", "4 игрока · 1 стол"),
        ("fr", "1 table à rendre", "4 joueurs · 1 table"),
    ],
)
def test_counts_take_the_plural_form(
    ctx: Any, server: EveningProcess, lang: str, line: str, summary: str
) -> None:
    eid = evening(ctx, server, n_a=2, n_b=2)
    host = ctx.new_page()
    host.add_init_script(f"localStorage.setItem('whistkit.lang', '{lang}')")
    host.goto(f"{server.url}e/{eid}/host")
    host.wait_for_selector("#status-line")
    assert line in host.locator("#status-line").inner_text()
    assert summary in host.locator(".status .sub").first.inner_text()
