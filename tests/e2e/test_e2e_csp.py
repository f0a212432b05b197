"""Issue 18, defect 5 in a real browser: the page works under the server's
Content-Security-Policy (no inline script or style, connections to itself only), and
Chromium reports no violation while a game is started, played, reviewed in dialogs and
resumed after a reload."""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import Browser

from .conftest import DESKTOP, PHONE, ServerProcess
from .pages import open_page, start_by_keyboard, wait_my_turn

SHOTS = Path(os.environ.get("WHISTKIT_E2E_SHOTS", "/tmp/whistkit-e2e-shots"))
WATCH = """() => {
  window.__violations = [];
  document.addEventListener('securitypolicyviolation',
    (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
}"""


def test_the_page_runs_under_its_csp(browser: Browser, server: ServerProcess) -> None:
    for size, name in ((PHONE, "phone"), (DESKTOP, "desktop")):
        context = browser.new_context(viewport=size)  # type: ignore[attr-defined]
        page = context.new_page()
        console: list[str] = []
        page.on("console", lambda m, log=console: log.append(m.text))
        page.add_init_script(f"({WATCH})()")
        response = page.goto(server.url)
        assert response is not None
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        open_page(page, server.url)
        start_by_keyboard(page, seed=3)
        wait_my_turn(page, "-1")
        page.locator('#hand [data-legal="true"]').first.click()
        page.keyboard.press("s")  # the score sheet dialog
        page.wait_for_selector("dialog[open]")
        page.keyboard.press("Escape")
        page.reload()  # resumes over a new WebSocket
        page.wait_for_selector("#hand .card")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"csp-{name}.png"))
        assert page.evaluate("window.__violations") == []
        assert not [m for m in console if "Content Security Policy" in m], console
        context.close()
