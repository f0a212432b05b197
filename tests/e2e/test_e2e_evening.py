"""Done-when 2 and 3 of the félagsvist evening: a 3-table evening of 12 hands run in the
browser (host, three phones from the printed table cards, the projector), and the PDFs of
the table cards and the score cards."""

from __future__ import annotations

import io
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from .conftest import DESKTOP, PHONE, SRC


def free_port() -> int:
    """A port free now (the evening server takes its port on the command line)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


A_NAMES = ["Bjarni", "Dóri", "Finnur", "Helgi", "Jón", "Kári"]
B_NAMES = ["Anna", "Guðrún", "Edda", "Inga", "Lilja", "Sól"]
# points of a partnership: its tricks, in Nóló the other partnership's
NOLO = "NOLO"


class EveningProcess:
    """``whistkit evening`` on a free port and a given database."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> EveningProcess:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
        # every phone and browser of these tests is on 127.0.0.1, where a hall's phones
        # each have an address of their own: the limit per address is lifted for them
        env["WHISTKIT_MAX_CONNECTIONS_PER_CLIENT"] = "10000"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "whistkit.cli", "evening", "--port", str(self.port)]
            + ["--db", str(self.db)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"whistkit evening exited with {self.proc.returncode}: {err}")
            try:
                with urllib.request.urlopen(self.url + "static/ev.js", timeout=1):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("whistkit evening did not start in 30 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture
def evening_server(tmp_path: Path) -> Iterator[EveningProcess]:
    srv = EveningProcess(tmp_path / "games.sqlite3").start()
    yield srv
    srv.stop()


def pdf_text(data: bytes) -> tuple[int, list[str]]:
    reader = PdfReader(io.BytesIO(data))
    return len(reader.pages), [p.extract_text() or "" for p in reader.pages]


def open_page(context: Any, url: str) -> Any:
    page = context.new_page()
    page.add_init_script("localStorage.setItem('whistkit.lang', 'en')")
    page.goto(url)
    page.wait_for_selector("body[data-ready]")
    return page


def board_totals(projector: Any) -> dict[str, str]:
    rows = projector.locator("#p-board table.board tr").all_inner_texts()
    out = {}
    for row in rows:
        cells = row.split("\t")
        out[cells[1].strip()] = cells[2].strip()
    return out


def fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def test_three_table_evening_in_the_browser(
    browser: Any, evening_server: EveningProcess, tmp_path: Path
) -> None:
    host_ctx = browser.new_context(viewport=DESKTOP)
    host = open_page(host_ctx, evening_server.url)
    # the host creates the evening: 12 hands of félagsvist
    host.locator("#f-title").fill("Spilakvöld")
    host.locator("#f-preset-felagsvist").check()
    host.locator("#f-hands").fill("12")
    host.locator("#f-create").click()
    host.wait_for_url(re.compile(r"/e/[0-9a-f]+/host$"))
    host.wait_for_selector("body[data-ready]")
    evening = host.url.split("/")[-2]
    lines = [f"{n}, A" for n in A_NAMES] + [f"{n}, B" for n in B_NAMES]
    host.locator("#import-text").fill("\n".join(lines))
    host.locator("#btn-import").click()
    host.wait_for_function("() => document.querySelectorAll('#players tbody tr').length === 12")
    host.locator("#btn-seat-random").click()
    host.wait_for_selector("#seating .tcard")
    host.locator("#btn-start").click()
    host.wait_for_selector('#status-line[data-status="running"]')

    # the table cards: one card (page) per table, each with its link
    cards = open_page(host_ctx, f"{evening_server.url}e/{evening}/print/tables")
    pages, texts = pdf_text(cards.pdf(format="A4"))
    assert pages == 3
    links = []
    for n, text in enumerate(texts, 1):
        assert f"Table {n}" in text
        found = re.findall(r"http://127\.0\.0\.1:\d+/t/[0-9a-f]+/[A-Za-z0-9_-]+", text)
        assert len(found) == 1, text
        links.append(found[0])
    assert len(set(links)) == 3
    # the score cards: one per player
    scores = open_page(host_ctx, f"{evening_server.url}e/{evening}/print/scorecards")
    _, texts = pdf_text(scores.pdf(format="Letter"))
    every = "\n".join(texts)
    for name in A_NAMES + B_NAMES:
        assert len(re.findall(rf"^{name} Group [AB]", every, re.M)) == 1, name
    assert scores.locator(".score-card").count() == 12

    projector = open_page(host_ctx, f"{evening_server.url}e/{evening}/projector")
    phones = [open_page(browser.new_context(viewport=PHONE), link) for link in links]
    # an opponent's own phone at each table: the phone that entered cannot confirm
    others = [open_page(browser.new_context(viewport=PHONE), link) for link in links]

    totals = {name: 0 for name in A_NAMES + B_NAMES}
    first_result: dict[str, Any] = {}
    for hand in range(1, 13):
        for i, phone in enumerate(phones):
            phone.wait_for_selector(f'body[data-hand="{hand}"][data-stage="enter"]')
            seats = {s: phone.locator(f".seat-{s} .who").inner_text() for s in "NESW"}
            contract = phone.locator("body").get_attribute("data-contract")
            ns = (hand * 5 + i * 3) % 14
            # the N player enters N-S's tricks; an opponent confirms
            phone.locator("[data-by]").first.click()
            phone.locator(f'[data-tricks="{ns}"]').click()
            phone.locator("#btn-send").click()
            phone.wait_for_selector('body[data-stage="pending"] #other-phone')
            assert phone.locator("[data-confirm]").count() == 0
            other = others[i]
            other.wait_for_selector('body[data-stage="pending"] [data-confirm]')
            other.locator("[data-confirm]").first.click()
            phone.wait_for_selector(
                f'body[data-hand="{hand}"][data-stage="done"], body[data-hand="{hand + 1}"]'
            )
            pts_ns = 13 - ns if contract == NOLO else ns
            for s in "NS":
                totals[seats[s]] += pts_ns
            for s in "EW":
                totals[seats[s]] += 13 - pts_ns
            if hand == 1 and i == 0:
                first_result = {"seats": seats, "ns": ns, "table": 1}
        # within 1 s of the last confirmation: this hand's moves and the leaderboard
        if hand < 12:
            projector.wait_for_selector(f'#p-moves[data-after="{hand}"] span', timeout=1000)
        want = {n: fmt(v) for n, v in totals.items()}
        projector.wait_for_function(
            """(want) => {
                const got = {};
                for (const tr of document.querySelectorAll('#p-board table.board tr')) {
                  got[tr.cells[1].textContent] = tr.cells[2].textContent;
                }
                return Object.entries(want).every(([k, v]) => got[k] === v);
            }""",
            arg=want,
            timeout=1000,
        )

    # the host corrects hand 1 at table 1 from the paper card: N-S took 13 - ns
    host.bring_to_front()
    seats, ns = first_result["seats"], first_result["ns"]
    host.locator("#corr-hand").fill("1")
    host.locator("#corr-table").fill("1")
    host.locator("#corr-ns").fill(str(13 - ns))
    host.locator("#corr-reason").fill("paper card says otherwise")
    host.locator("#corr-save").click()
    delta = (13 - ns) - ns  # hand 1 is hearts
    for s in "NS":
        totals[seats[s]] += delta
    for s in "EW":
        totals[seats[s]] -= delta
    want = {n: fmt(v) for n, v in totals.items()}
    host.wait_for_function(
        """(want) => {
            const got = {};
            for (const tr of document.querySelectorAll('#standings tr')) {
              got[tr.cells[1].textContent] = tr.cells[2].textContent;
            }
            return Object.entries(want).every(([k, v]) => got[k] === v);
        }""",
        arg=want,
    )
    assert host.locator("#results-grid td.corrected").count() == 1

    host.once("dialog", lambda d: d.accept())
    host.locator("#btn-finish").click()
    host.wait_for_selector('#status-line[data-status="finished"]')
    results = open_page(host_ctx, f"{evening_server.url}e/{evening}/print/results")
    assert results.locator("#prizes tr").count() >= 1
    prizes_text = results.locator("#prizes").inner_text()
    best = max(totals.values())
    winners = [n for n, v in totals.items() if v == best]
    assert any(w in prizes_text for w in winners)
    projector.wait_for_selector("#p-prizes li")


def test_results_from_paper_cards_with_the_keyboard_alone(
    browser: Any, evening_server: EveningProcess
) -> None:
    ctx = browser.new_context(viewport=DESKTOP)
    api = ctx.request  # shares the browser's cookies: the host key set at creation
    base = evening_server.url
    made = api.post(base + "api/evenings", data={"title": "Kvöld", "config": {"hands": 12}})
    evening = made.json()["id"]
    players = "\n".join([f"{n}, A" for n in A_NAMES] + [f"{n}, B" for n in B_NAMES])
    for path, body in (
        ("import", {"text": players}),
        ("seat", {"seed": 3}),
        ("status", {"action": "start"}),
    ):
        assert api.post(f"{base}api/e/{evening}/{path}", data=body).ok
    host = open_page(ctx, f"{base}e/{evening}/host")
    host.locator("#entry-1").focus()
    host.keyboard.type("14")
    host.keyboard.press("Enter")
    assert host.locator("#error").inner_text() == "Tricks are a whole number from 0 to 13."
    host.keyboard.press("Backspace")
    host.keyboard.press("Backspace")
    for table, tricks in ((1, "7"), (2, "13"), (3, "0")):
        host.wait_for_function(
            "id => document.activeElement && document.activeElement.id === id",
            arg=f"entry-{table}",
        )
        host.keyboard.type(tricks)
        host.keyboard.press("Enter")
    host.wait_for_function(
        "() => document.querySelector('#status-line').textContent.includes('Hand 2 of 12')"
    )
    first = host.locator("#results-grid tbody tr").first.locator("td").all_inner_texts()
    assert first == ["7", "13", "0"]
    assert host.locator("#error").is_hidden()
