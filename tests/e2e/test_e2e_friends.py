"""Play with friends (#22) in real Chromium: one browser context per person, all driven by
clicks from one loop; names, connection and stand-ins on the seats; the chat."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import DESKTOP, PHONE, ServerProcess
from .pages import hand_cards, open_page

# what one page shows, read in one call: whose turn, what may be clicked; with a number
# n, also where a click reaches the legal card n (modulo their number), if one does
LOOK = """(n) => {
  const t = document.querySelector('#table');
  const cards = [...document.querySelectorAll('#hand [data-legal="true"]')];
  const legal = cards.map(e => e.dataset.card);
  const actions = [...document.querySelectorAll('#actions button[data-action]')]
    .filter(b => !b.dataset.pick).map(b => b.dataset.action);
  let target = null;
  if (Number.isInteger(n) && cards.length) {
    const card = cards[n % cards.length], r = card.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const hit = r.width > 0 && r.height > 0 && x >= 0 && y >= 0 && x < innerWidth
      && y < innerHeight ? document.elementFromPoint(x, y) : null;
    if (hit && card.contains(hit)) target = [x, y];
  }
  return {
    over: document.querySelector('#result-banner[data-result]') !== null,
    mine: t.dataset.myTurn === 'true',
    version: t.dataset.version || '',
    legal, actions, target,
  };
}"""


@dataclass
class Person:
    """One person at the table: their own browser context and page, at their seat."""

    seat: str
    context: BrowserContext
    page: Page
    acted_at: str = ""  # the table version at which this page last acted
    acted_when: float = 0.0
    clicks: int = 0
    seen: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for the module's tests, the bots playing without pause."""
    srv = ServerProcess(tmp_path_factory.mktemp("friends") / "games.sqlite3", bot_delay=0).start()
    yield srv
    srv.stop()


def new_person(
    browser: Browser, seat: str, url: str, lang: str = "en", viewport: Any = None
) -> Person:
    context = browser.new_context(viewport=viewport or DESKTOP)
    page = context.new_page()
    open_page(page, url, lang=lang)
    return Person(seat, context, page)


def create_table(
    host: Person,
    variant: str,
    seats: dict[str, str],
    options: dict[str, Any] | None = None,
    timeout: int = 0,
    name: str = "Anna",
) -> dict[str, str]:
    """The new-game dialog by clicks with "Play with friends": the invite links by seat."""
    page = host.page
    page.wait_for_selector("#dlg-new[open]")
    page.select_option("#new-variant", variant)
    for key, value in (options or {}).items():
        el = page.locator(f'[data-option="{key}"]')
        if isinstance(value, bool):
            el.set_checked(value)
        else:
            el.select_option(str(value))
    page.locator("#new-friends").check()
    page.locator("#host-name").fill(name)
    for seat, choice in seats.items():
        page.select_option(f'[data-seat-choice="{seat}"]', choice)
    page.select_option("#new-timeout", str(timeout))
    page.locator("#new-start").click()
    page.wait_for_selector("#dlg-invite[open]")
    links = {}
    for a in page.locator("[data-invite]").all():
        links[str(a.get_attribute("data-invite"))] = str(a.get_attribute("href"))
    return links


def join(browser: Browser, seat: str, url: str, name: str, lang: str = "en") -> Person:
    """A person opens their invite link, gives their name and sits down."""
    person = new_person(browser, seat, url, lang=lang)
    page = person.page
    page.wait_for_selector("#dlg-join[open]")
    page.locator("#player-name").fill(name)
    page.locator("#join-sit").click()
    page.wait_for_selector(f'#me[data-seat="{seat}"][data-player="{name}"]')
    return person


# the table as one page sees it: whose turn, at which version, over or not
TURN = """() => {
  const t = document.querySelector('#table');
  return {
    over: document.querySelector('#result-banner[data-result]') !== null,
    turn: t.dataset.turn || '', version: t.dataset.version || '',
  };
}"""
# wait in the page until its table changes from the version given (or the game ends)
CHANGED = """(v) => document.querySelector('#result-banner[data-result]') !== null
  || document.querySelector('#table').dataset.version !== v"""


STOP = "stop"


def act(p: Person, claim: bool = False, until: str | None = None) -> str | None:
    """If it is ``p``'s turn at a version it has not acted at: click a legal card, or the
    decision asked of them (a claim first when ``claim``). What was clicked, None, or
    :data:`STOP` when ``until`` is among the decisions offered (nothing clicked)."""
    look = p.page.evaluate(LOOK, p.clicks)
    if look["over"] or not look["mine"]:
        return None
    if until is not None and until in look["actions"]:
        return STOP
    # one action per version; the same version again only after a while (a refusal)
    if look["version"] == p.acted_at and time.monotonic() - p.acted_when < 5:
        return None
    if look["legal"]:
        what = look["legal"][p.clicks % len(look["legal"])]
        if look["target"] is not None:  # the mouse where the look found the card uncovered
            p.page.mouse.click(*look["target"])
        else:
            p.page.locator(f'#hand [data-card="{what}"]').click(force=True)
    elif look["actions"]:
        actions = look["actions"]
        what = "ClaimRevoke" if claim and "ClaimRevoke" in actions else actions[0]
        try:
            p.page.locator(f'#actions button[data-action="{what}"]').first.click(timeout=5000)
        except PlaywrightTimeout:
            return None  # gone meanwhile: the table moved on
    else:
        return None
    p.acted_at = look["version"]
    p.acted_when = time.monotonic()
    p.clicks += 1
    return what


def play_together(
    people: list[Person], steps: int = 100_000, claim: bool = False, until: str | None = None
) -> int:
    """Each person clicks a legal card (or the one decision asked of them) whenever it is
    their turn, until the game is over on every page or ``steps`` actions were made.
    The first page says whose turn it is; while a bot is to play, the loop waits in that
    page for the table to change; ``until``: stop when a page offers that decision.
    Returns the number of clicks."""
    by_seat = {p.seat: p for p in people}
    watcher = people[0].page
    done = 0
    while done < steps:
        look = watcher.evaluate(TURN)
        if look["over"]:
            if all(p.page.evaluate(TURN)["over"] for p in people):
                return done
            watcher.wait_for_timeout(20)
            continue
        person = by_seat.get(look["turn"])
        what = act(person, claim, until) if person is not None else None
        if what == STOP:
            return done
        if person is not None and what:
            done += 1
            # the click's answer, in the page that clicked (a refusal: looked at again)
            with contextlib.suppress(PlaywrightTimeout):
                person.page.wait_for_function(CHANGED, arg=person.acted_at, timeout=5000)
            continue
        try:
            watcher.wait_for_function(CHANGED, arg=look["version"], timeout=1000)
        except PlaywrightTimeout:
            # nothing changed here: someone else may be asked (a choice made by several
            # seats at once, a claim): every page is looked at
            acted = [act(p, claim, until) for p in people]
            if STOP in acted:
                return done
            done += sum(1 for what in acted if what)
    return done


def play_until_turn(people: list[Person], person: Person, choice: bool = False) -> dict[str, Any]:
    """Play on (:func:`play_together`) until it is ``person``'s turn at a version their
    page has not acted at (so no click of theirs is still on its way to the server),
    with more than one legal card when ``choice``; their page's look then."""
    while True:
        look = person.page.evaluate(LOOK)
        if (
            look["mine"]
            and look["version"] != person.acted_at
            and (not choice or len(look["legal"]) > 1)
        ):
            return look
        play_together(people, steps=1)


def final_score(page: Page) -> tuple[str, str]:
    return (
        str(page.locator("[data-score-ns]").text_content()),
        str(page.locator("[data-score-ew]").text_content()),
    )


def close_all(people: list[Person]) -> None:
    for p in people:
        p.context.close()


def seat_el(page: Page, seat: str) -> str:
    return f'.seat[data-seat="{seat}"], #me[data-seat="{seat}"]'


@pytest.mark.slow
@pytest.mark.timeout(600)  # four pages and 576 clicks: slow on a machine shared by others
def test_four_people_play_a_whole_felagsvist_game(
    browser: Browser, shared_server: ServerProcess
) -> None:
    host = new_person(browser, "S", shared_server.url)
    links = create_table(host, "felagsvist", {"N": "person", "E": "person", "W": "person"})
    assert set(links) == {"N", "E", "W", "watch"}
    assert all(f"seat={s}" in links[s] and "join=" in links[s] for s in "NEW")
    # every link has its QR code, from the server
    for kind in ("N", "E", "W", "watch"):
        qr = host.page.locator(f'img[data-qr="{kind}"]')
        qr.wait_for()
        host.page.wait_for_function(
            "(k) => { const i = document.querySelector(`img[data-qr='${k}']`);"
            " return i.complete && i.naturalWidth > 0; }",
            arg=kind,
        )
    names = {"S": "Anna", "N": "Björk", "E": "Chloé", "W": "Dmitri"}
    people = [host] + [join(browser, s, links[s], names[s]) for s in "NEW"]
    host.page.locator("#dlg-invite .close").click()
    # everyone sees their own hand at the bottom, their partner at the top, and the names
    for p in people:
        page = p.page
        page.wait_for_selector("#hand .card")
        partner = "NESW"["NESW".index(p.seat) ^ 2]
        assert page.locator(".seat.top").get_attribute("data-seat") == partner
        for seat, name in names.items():
            el = page.locator(seat_el(page, seat))
            el.first.wait_for()
            page.wait_for_function(
                "([s, n]) => { const e = document.querySelector("
                "`.seat[data-seat='${s}'], #me[data-seat='${s}']`);"
                " return e && e.dataset.player === n && e.dataset.connected === 'true'; }",
                arg=[seat, name],
            )
            assert name in str(el.first.text_content())
    clicks = play_together(people)
    scores = {final_score(p.page) for p in people}
    assert len(scores) == 1, scores  # one final score on every page
    ns, ew = scores.pop()
    assert max(int(ns), int(ew)) > 0
    assert clicks >= 4 * 12 * 8  # twelve hands, most cards clicked by their people
    close_all(people)


@pytest.mark.slow
def test_a_swedish_game_with_two_people_and_two_bots(
    browser: Browser, shared_server: ServerProcess
) -> None:
    host = new_person(browser, "S", shared_server.url, lang="sv")
    links = create_table(
        host, "swedish", {"N": "club", "E": "person", "W": "beginner"}, name="Astrid"
    )
    assert set(links) == {"E", "watch"}
    guest = join(browser, "E", links["E"], "Erik", lang="sv")
    host.page.locator("#dlg-invite .close").click()
    people = [host, guest]
    for p in people:
        page = p.page
        page.wait_for_function(
            "() => document.querySelector('.seat[data-seat=\"N\"]').dataset.kind === 'bot'"
        )
        assert page.locator('.seat[data-seat="W"][data-kind="bot"] .badge.bot').count() == 1
    assert play_together(people) > 0
    assert final_score(host.page) == final_score(guest.page)
    # the end in Swedish
    assert host.page.locator("html").get_attribute("lang") == "sv"
    close_all(people)


@pytest.mark.slow
def test_an_english_rubber_in_laws_mode_a_person_claims_the_others_revoke(
    browser: Browser, shared_server: ServerProcess
) -> None:
    """S and W are people (opponents), N and E bots; a revoke by one is claimed by the other
    at the end of the hand (S claims for N-S, W for E-W)."""
    host = new_person(browser, "S", shared_server.url)
    links = create_table(
        host,
        "english",
        {"N": "club", "E": "club", "W": "person"},
        options={"play_mode": "laws", "auto_claim": False},
    )
    guest = join(browser, "W", links["W"], "Wendy")
    host.page.locator("#dlg-invite .close").click()
    people = [host, guest]
    revoked: tuple[Person, str] | None = None
    while revoked is None:
        play_together(people, steps=1)
        for p in people:
            look = p.page.evaluate(LOOK)
            bad = p.page.locator('#hand [data-irregular="true"]')
            if look["mine"] and bad.count():
                card = str(bad.first.get_attribute("data-card"))
                bad.first.click()
                p.page.locator(f'#hand [data-card="{card}"]').click()  # the second click plays it
                p.page.wait_for_function(
                    "(c) => !document.querySelector(`#hand [data-card='${c}']`)", arg=card
                )
                revoked = (p, card)
                p.acted_at = look["version"]
                break
        assert host.page.locator("[data-result]").count() == 0, "nobody could revoke"
    offender, _ = revoked
    claimant = guest if offender is host else host
    # the hand is played out; at its end the claimant is asked, and claims
    play_together(people, until="ClaimRevoke")
    claim = claimant.page.locator('#actions button[data-action="ClaimRevoke"]')
    assert offender.page.locator('#actions button[data-action="ClaimRevoke"]').count() == 0
    at = claimant.page.evaluate(TURN)["version"]
    claim.click()
    claimant.page.wait_for_function(CHANGED, arg=at)
    assert claim.count() == 0
    play_together(people)
    for p in people:
        rubber = p.page.locator("#result-score")
        assert "rubber" in str(rubber.text_content()).lower()
    assert final_score(host.page) == final_score(guest.page)
    # the claimed revoke is on the claimant's score sheet, by the offender's name
    claimant.page.locator("#result-sheet").click()
    offender_name = "Anna" if offender is host else "Wendy"
    sheet = str(claimant.page.locator("#sheet-body").text_content())
    assert f"revoke: {offender_name}" in sheet
    close_all(people)


# every card North plays, as the host's page sees it (kept in the page)
WATCH_NORTH = """() => {
  window.__north = [];
  new MutationObserver(() => {
    for (const c of document.querySelectorAll('[data-trick] [data-card][data-seat="N"]')) {
      if (!window.__north.includes(c.dataset.card)) window.__north.push(c.dataset.card);
    }
  }).observe(document.querySelector('[data-trick]'), { childList: true, subtree: true });
}"""


@pytest.mark.slow
def test_away_on_their_turn_a_bot_plays_then_they_come_back(
    browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the server's test hook: a table's time scaled down (30 s -> 3 s)
    monkeypatch.setenv("WHISTKIT_TURN_TIME_SCALE", "0.1")
    srv = ServerProcess(tmp_path / "away.sqlite3", bot_delay=0).start()
    try:
        host = new_person(browser, "S", srv.url)
        links = create_table(
            host, "felagsvist", {"N": "person", "E": "club", "W": "club"}, timeout=30
        )
        north = join(browser, "N", links["N"], "Nina")
        host.page.locator("#dlg-invite .close").click()
        # play until it is North's turn with a choice of cards
        play_until_turn([host, north], north, choice=True)
        held = hand_cards(north.page)
        page = host.page
        page.evaluate(WATCH_NORTH)
        north.context.close()  # North closes their page on their turn
        north_seat = '.seat[data-seat="N"]'
        # after the table's time a bot plays North's card, and the seat says so
        page.wait_for_selector(f'{north_seat}[data-connected="false"][data-standin="true"]')
        page.wait_for_function("() => window.__north.length > 0")
        first = str(page.evaluate("() => window.__north[0]"))
        assert first in held
        assert page.locator(f"{north_seat} .badge.standin").count() == 1
        # the host plays on meanwhile (the stand-in plays North's cards)
        play_together([host], steps=1)
        # North reopens the link in a new context: the same seat, the hand less the
        # cards the stand-in played
        back = join(browser, "N", links["N"], "Nina")
        page.wait_for_selector(f'{north_seat}[data-connected="true"]:not([data-standin])')
        # (read again until both pages agree: North's page may play a lone legal card
        # for North meanwhile, and the host's page sees it a moment later)
        deadline = time.monotonic() + 30
        while True:
            gone = page.evaluate("() => window.__north")
            mine = hand_cards(back.page)
            if sorted(mine) == sorted(c for c in held if c not in gone):
                break
            assert time.monotonic() < deadline, (mine, gone, held)
            back.page.wait_for_timeout(100)
        # and plays on from there: North clicks a card of their own. (A turn with one legal
        # card is played by North's page without a click, so the loop runs until a click:
        # the deals are secret, and which turn offers a choice differs from run to run.)
        while back.clicks == 0:
            assert not page.evaluate(TURN)["over"], "North was never asked to choose a card"
            play_together([host, back], steps=1)
        assert back.page.locator("#me").get_attribute("data-standin") is None
        close_all([host, back])
    finally:
        srv.stop()


def test_chat_is_text_and_refuses_too_long_and_too_many(
    browser: Browser, shared_server: ServerProcess
) -> None:
    host = new_person(browser, "S", shared_server.url)
    links = create_table(host, "felagsvist", {"N": "person", "E": "club", "W": "club"})
    north = join(browser, "N", links["N"], "Nils")
    host.page.locator("#dlg-invite .close").click()
    for p in (host, north):
        p.page.locator("#btn-chat").click()
        p.page.wait_for_selector("#chat:not([hidden])")
    hostile = '<b>bold</b><script>window.__chat = 1</script><img src=x onerror="window.__chat = 2">'
    host.page.locator("#chat-text").fill(hostile)
    host.page.locator("#chat-send").click()
    line = north.page.locator("#chat-log .chat-line").last
    line.wait_for()
    assert line.locator(".chat-text").text_content() == hostile
    assert "Anna" in str(line.text_content())
    assert north.page.locator("#chat-log .chat-text *").count() == 0  # text, no element
    assert north.page.evaluate("() => window.__chat") is None
    # a phrase in the reader's language
    north.page.evaluate("localStorage.setItem('whistkit.lang', 'fr')")
    north.page.select_option("#lang", "fr")
    host.page.locator('[data-phrase="well_played"]').click()
    north.page.wait_for_function(
        "() => [...document.querySelectorAll('#chat-log .chat-line')].some(l => l.textContent.includes('Bien joué'))"
    )
    # the 201st character is refused, with the reason
    north.page.locator("#chat-text").fill("x" * 201)
    assert north.page.locator("#chat-count").get_attribute("data-over") == "true"
    north.page.locator("#chat-send").click()
    north.page.wait_for_selector('#chat-error[data-refused="chat_too_long"]')
    assert "200" in str(north.page.locator("#chat-error").text_content())
    north.page.locator("#chat-text").fill("y" * 200)
    north.page.locator("#chat-send").click()
    host.page.wait_for_function(
        "() => [...document.querySelectorAll('#chat-log .chat-text')].some(s => s.textContent === 'y'.repeat(200))"
    )
    # ten lines in ten seconds pass (two sent above), the eleventh is refused
    for i in range(8):
        host.page.locator("#chat-text").fill(f"line {i}")
        host.page.locator("#chat-send").click()
    host.page.wait_for_function(
        "() => [...document.querySelectorAll('#chat-log .chat-text')].some(s => s.textContent === 'line 7')"
    )
    host.page.locator("#chat-text").fill("one too many")
    host.page.locator("#chat-send").click()
    host.page.wait_for_selector('#chat-error[data-refused="chat_rate"]')
    assert "wait" in str(host.page.locator("#chat-error").text_content())
    texts = host.page.locator("#chat-log .chat-text").all_text_contents()
    assert "one too many" not in texts
    assert host.page.locator("#chat-text").input_value() == "one too many"  # kept to resend
    close_all([host, north])


HANDS_SEEN = """
addEventListener('DOMContentLoaded', () => new MutationObserver(() => {
  const rows = document.querySelectorAll('#hand-end [data-hands] [data-seat]');
  if (rows.length === 4 && !window.__hands) {
    window.__hands = {};
    for (const r of rows) window.__hands[r.dataset.seat] = (r.textContent.split(': ')[1] || '').split(' ');
  }
}).observe(document.querySelector('#hand-end'), { childList: true, subtree: true }));
"""


def test_watcher_sees_no_hidden_card_and_games_list_reopens(
    browser: Browser, shared_server: ServerProcess
) -> None:
    host = new_person(browser, "S", shared_server.url)
    links = create_table(host, "felagsvist", {"N": "club", "E": "club", "W": "club"})
    host.page.locator("#dlg-invite .close").click()
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    # the hands shown to the watcher after a hand (the table allows it): kept as they come
    page.add_init_script(HANDS_SEEN)
    open_page(page, links["watch"])
    watcher = Person("watch", context, page)
    page.wait_for_selector('#table[data-role="watch"][data-version]')
    page.wait_for_selector("#hand[data-watch='true'] img.back")
    assert page.locator("#hand .card").count() == 0
    assert page.locator("#chat-form").is_hidden()
    # after the first hand (the host plays it), its four hands as dealt
    while not page.evaluate("() => Boolean(window.__hands)"):
        play_together([host], steps=1)
    hands = page.evaluate("() => window.__hands")
    assert all(len(cards) == 13 for cards in hands.values())
    assert len({c for cards in hands.values() for c in cards}) == 52
    # the host's Games list has the table; it reopens
    host.page.locator("#btn-games").click()
    row = host.page.locator("#games-body [data-table]")
    row.first.wait_for()
    assert row.count() == 1
    close_all([host, watcher])


def test_host_controls_and_the_games_list(browser: Browser, shared_server: ServerProcess) -> None:
    """The host gives a seat to a bot, opens it again with a new link (the old one stops
    working) and ends the table; a guest reopens the table from Games."""
    host = new_person(browser, "S", shared_server.url)
    links = create_table(host, "felagsvist", {"N": "person", "E": "person", "W": "club"})
    north = join(browser, "N", links["N"], "Nils")
    east = join(browser, "E", links["E"], "Eva")
    page = host.page
    north_row = page.locator('[data-invite-seat="N"]')
    page.wait_for_selector('.seat[data-seat="N"][data-connected="true"]')
    # North's seat to a bot: North's page says so, the host's table shows a bot there
    north_row.locator('[data-host="bot"]').click()
    north.page.wait_for_selector('#table[data-closed="seat_closed"]')
    page.wait_for_selector('.seat[data-seat="N"][data-kind="bot"]')
    assert north_row.locator("[data-invite]").count() == 0
    # opened again for someone else: a new link; the old one opens no seat
    north_row.locator('[data-host="reopen"]').click()
    page.wait_for_function(
        "(old) => { const a = document.querySelector('[data-invite=\"N\"]');"
        " return a && a.href !== old; }",
        arg=links["N"],
    )
    new_link = str(page.locator('[data-invite="N"]').get_attribute("href"))
    late = new_person(browser, "N", links["N"])
    late.page.wait_for_selector("#dlg-join[open] #join-sit:disabled")
    assert "no longer" in str(late.page.locator("#join-error").text_content())
    nora = join(browser, "N", new_link, "Nora")
    page.wait_for_selector('.seat[data-seat="N"][data-player="Nora"][data-connected="true"]')
    # East reopens the table from Games after a solo game in the same browser
    east.page.close()
    again = east.context.new_page()
    open_page(again, shared_server.url)  # the last game opens again by itself
    again.wait_for_selector('#me[data-seat="E"][data-player="Eva"]')
    again.locator("#btn-new").click()
    again.locator("#confirm-yes").click()
    again.locator("#new-friends").uncheck()
    again.locator("#new-start").click()
    again.wait_for_selector('#me[data-seat="S"]:not([data-player])')
    again.locator("#btn-games").click()
    row = again.locator("#games-body [data-table]")
    row.wait_for()
    assert "Félagsvist" in str(row.text_content()) and "East" in str(row.text_content())
    row.locator("[data-open]").click()
    again.wait_for_selector('#me[data-seat="E"][data-player="Eva"]')
    # the host ends the table: asked once more, then everyone is told
    page.locator("#host-end").click()
    assert page.locator("#dlg-invite[open]").count() == 1
    page.locator("#host-end").click()
    for p in (page, again, nora.page):
        p.wait_for_function(
            "() => document.querySelector('#status').textContent.includes('ended the table')"
        )
    again.locator("#btn-games").click()
    again.wait_for_selector('#games-body [data-table][data-finished="true"]')
    close_all([host, north, east, late, nora])
