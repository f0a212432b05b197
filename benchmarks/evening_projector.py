"""The projector page of a 520-player evening (130 tables, hand 13 of 24 in play): how long
it takes to render in headless Chromium, first (the server derives the evening) and
again, and how long a table's confirmation takes to reach it; side by side with anchors
measured in the same run: a table's page and the create page (small), and the model's
derivation alone.

    python benchmarks/evening_projector.py
"""

from __future__ import annotations

import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from whistkit.evening import Config, derive, simulated_players  # noqa: E402
from whistkit.evening.live import config_to_json, model_evening  # noqa: E402
from whistkit.evening.store import EveningStore, Player  # noqa: E402

CHROMIUM = os.environ.get("WHISTKIT_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
PLAYERS, HANDS, PLAYED = 520, 24, 12


def build(db: Path) -> tuple[str, str, dict[int, str]]:
    """A stored 520-player evening with hands 1-12 reported; its id, host key, tokens."""
    store = EveningStore(db)
    store.db.execute("PRAGMA synchronous=OFF")  # building only; the server uses FULL
    config = Config(hands=HANDS, seed=1, seating="random")
    evening, key = "bench520", secrets.token_urlsafe(24)
    store.create(evening, "Benchmark evening", config_to_json(config), key)
    players = [Player(p.id, p.name, p.group, p.fixed_seat) for p in simulated_players(PLAYERS)]
    store.set_players(evening, players)
    tokens = {n: secrets.token_urlsafe(16) for n in range(1, PLAYERS // 4 + 1)}
    store.set_seating(evening, {"mode": "random", "seed": 1}, config_to_json(config), tokens)
    store.set_status(evening, "running", ("setup",))
    rng = random.Random(1)
    for hand in range(1, PLAYED + 1):
        for table in tokens:
            store.confirm(
                evening,
                hand,
                table,
                rng.randint(0, 13),
                entered_by=None,
                confirmed_by=None,
                actor="host",
            )
    store.close()
    return evening, key, tokens


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite3"
        evening, key, tokens = build(db)
        store = EveningStore(db)
        stored = store.get(evening)
        assert stored is not None
        t0 = time.perf_counter()
        done = derive(model_evening(stored))
        derive_s = time.perf_counter() - t0
        seats = done.hand(PLAYED + 1).table(1).seat_map()
        store.close()

        port = free_port()
        base = f"http://127.0.0.1:{port}/"
        env = dict(os.environ, PYTHONPATH=str(SRC))
        proc = subprocess.Popen(
            [sys.executable, "-m", "whistkit.cli", "evening", "--port", str(port), "--db", str(db)],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(base + "static/ev.js", timeout=1)
                    break
                except OSError:
                    time.sleep(0.05)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                ctx = browser.new_context(viewport={"width": 1280, "height": 800})
                ctx.add_cookies([{"name": f"wk_host_{evening}", "value": key, "url": base}])
                page = ctx.new_page()

                def load(url: str, ready: str) -> float:
                    start = time.perf_counter()
                    page.goto(url)
                    page.wait_for_selector(ready, timeout=60_000)
                    return time.perf_counter() - start

                projector = f"{base}e/{evening}/projector"
                board = "#p-board table.board tr"
                load(base, "#f-create")  # the browser's own start, not the page's
                first = load(projector, board)
                again = [load(projector, board) for _ in range(5)]
                table_page = [load(f"{base}t/{evening}/{tokens[1]}", "#contract") for _ in range(5)]
                landing = [load(base, "#f-create") for _ in range(5)]
                page.goto(projector)
                page.wait_for_selector(board)
                version = page.locator("body").get_attribute("data-version")
                api = f"{base}api/t/{evening}/{tokens[1]}"
                start = time.perf_counter()
                for path, body in (
                    ("enter", {"hand": PLAYED + 1, "side": "NS", "tricks": 7, "by": seats["N"]}),
                    ("confirm", {"hand": PLAYED + 1, "by": seats["E"], "ns": 7}),
                ):
                    r = page.request.post(f"{api}/{path}", data=body)
                    assert r.ok, r.text()
                page.wait_for_function(
                    "v => document.body.dataset.version !== v", arg=version, timeout=60_000
                )
                page.wait_for_function(
                    "() => !document.querySelector('#p-waiting .nums').textContent.startsWith('1 ')"
                )
                update = time.perf_counter() - start
                count = page.locator("#p-board table.board tr").count()
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)

    print(f"projector of a {PLAYERS}-player evening (130 tables, hand {PLAYED + 1} of {HANDS}):")
    print(f"  first render (server derives the evening) {first * 1000:7.0f} ms")
    print(f"  render again (median of 5)                {statistics.median(again) * 1000:7.0f} ms")
    print(f"  a table's confirmation shown              {update * 1000:7.0f} ms")
    print("anchors, same run:")
    print(
        f"  a table's page (median of 5)              {statistics.median(table_page) * 1000:7.0f} ms"
    )
    print(
        f"  the create-an-evening page (median of 5)  {statistics.median(landing) * 1000:7.0f} ms"
    )
    print(f"  the model's derivation alone              {derive_s * 1000:7.0f} ms")
    print(f"  ({count} leaderboard rows shown)")


if __name__ == "__main__":
    main()
