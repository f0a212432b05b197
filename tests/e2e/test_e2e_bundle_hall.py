"""Issue 33's hall through the bundle: the program built by ``./run bundle``, unpacked in a
minimal Debian root with no Python, runs a whole 12-hand evening of 52 players at 13
tables; table 1's two phones are real browser pages at phone size that enter and confirm
every hand's result, the other tables report through the API, and the projector at
1280x720 and 1920x1080 shows every player of the leaderboard within its page turns and,
after Finish, every winner. Screenshots (BUNDLE_SHOTS=dir)."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bundle.test_bundle import Minimal, debian_root, read_until
from bundle.test_bundle import bundle as bundle  # the session's bundle, built once

from .test_e2e_evening_hall import board_pages, winners_cut
from .test_e2e_evening_phone import Evening, many, open_page, phone

pytestmark = pytest.mark.slow

SHOTS = os.environ.get("BUNDLE_SHOTS")


def shot(page: Any, name: str) -> None:
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=False)


class BundledEvening:
    """``whistkit evening`` of the bundle, run in the minimal root (its ``url``)."""

    def __init__(self, here: Minimal) -> None:
        # every phone of this test is on 127.0.0.1, where a hall's phones each have an
        # address of their own: the limit per address is lifted for them
        env = {"WHISTKIT_MAX_CONNECTIONS_PER_CLIENT": "10000"}
        self.proc = here.start("evening", "--port", "0", env=env)
        assert self.proc.stdout is not None
        found, _ = read_until(self.proc.stdout, r"the organiser is at (http://\S+:\d+/) ")
        self.url = found.group(1)


@pytest.fixture(scope="module")
def hall(bundle: Path) -> Iterator[BundledEvening]:
    root = debian_root()
    assert not list((root / "usr/bin").glob("python*")), "the minimal root has a Python"
    here = Minimal(root, bundle)
    try:
        yield BundledEvening(here)
    finally:
        here.close()


def test_a_whole_evening_of_52_players_through_the_bundle(browser: Any, hall: Any) -> None:
    ev = Evening(hall, many(13))
    rng = random.Random(33)
    entering = open_page(phone(browser), ev.table_url(1), "is")
    confirming = open_page(phone(browser, 320, 640), ev.table_url(1), "en")
    for hand in range(1, 13):
        st = ev.host.state()
        assert st["current"]["number"] == hand
        # table 1: the result tapped in on one phone, confirmed on the other
        entering.wait_for_selector(f'body[data-stage="enter"][data-hand="{hand}"]')
        entering.locator("[data-by]").first.click()
        entering.locator(f'[data-tricks="{rng.randint(0, 13)}"]').click()
        entering.locator("#btn-send").click()
        confirming.wait_for_selector('body[data-stage="pending"] [data-confirm]')
        if hand == 1:
            shot(entering, "phone-sent-is-390")
            shot(confirming, "phone-confirm-en-320")
        confirming.locator("[data-confirm]").first.click()
        # the other twelve tables through the API, as their phones would
        for tb in st["hand_states"][hand - 1]["tables"]:
            if tb["table"] == 1:
                continue
            ns = rng.randint(0, 13)
            path = ev.host.token_path(tb["table"])
            body = {"hand": hand, "side": "NS", "tricks": ns, "by": tb["seats"]["N"]}
            ev.host.post(f"{path}/enter", body)
            ev.host.post(f"{path}/confirm", {"hand": hand, "by": tb["seats"]["E"], "ns": ns})
    final = ev.host.state()
    assert len(final["hand_states"]) == 12
    assert all(t["result"] is not None for h in final["hand_states"] for t in h["tables"])
    everyone = {p["id"] for p in final["players"]}
    assert len(everyone) == 52
    for width, height in [(1280, 720), (1920, 1080)]:
        ctx = browser.new_context(viewport={"width": width, "height": height})
        ctx.add_cookies([ev.cookie()])
        page = open_page(ctx, f"{hall.url}e/{ev.id}/projector", "en")
        page.wait_for_selector("#p-board")
        grid = page.locator(".p-grid")
        if "p-rotate" in (grid.get_attribute("class") or ""):  # the standings take turns
            page.wait_for_selector('.p-grid[data-show="board"]', timeout=120_000)
        assert board_pages(page) == everyone
        shot(page, f"projector-52-bundle-{width}")
        ctx.close()
    ev.host.post(f"/api/e/{ev.id}/status", {"action": "finish"})
    for width, height in [(1280, 720), (1920, 1080)]:
        ctx = browser.new_context(viewport={"width": width, "height": height})
        ctx.add_cookies([ev.cookie()])
        page = open_page(ctx, f"{hall.url}e/{ev.id}/projector", "is")
        page.wait_for_selector("#p-prizes li")
        assert board_pages(page) == everyone
        assert winners_cut(page) == []  # every winner is on the screen
        shot(page, f"projector-52-bundle-final-is-{width}")
        ctx.close()
    entering.context.close()
    confirming.context.close()
