"""Issue 18, defect 5: the server answers only for its own names and origins, and every
response carries the security headers. Before: a WebSocket from ``Origin:
http://evil.example`` joined with a token, a cross-site ``text/plain`` POST created a
game, and ``Host: evil.example`` was answered (DNS rebinding)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketDenialResponse

from whistkit.server.app import STATIC_DIR, create_app
from whistkit.server.security import SECURITY_HEADERS, allowed_hosts, host_name, public_origin

from .helpers import receive_until, server_of

pytestmark = pytest.mark.timeout(120)

EVIL = "http://evil.example"


def new_game(client: TestClient, **headers: str) -> Any:
    return client.post("/api/games", json={"seed": 1}, headers=headers)


def join(client: TestClient, game: dict[str, Any], **headers: str) -> dict[str, Any]:
    with client.websocket_connect("/ws", headers=headers) as ws:
        ws.send_json({"type": "join", "game": game["id"], "seat": "S", "token": game["token"]})
        msg: dict[str, Any] = receive_until(ws, lambda m: m["type"] in ("state", "error"))
        return msg


def test_a_websocket_from_another_origin_is_refused(client: TestClient) -> None:
    game = new_game(client).json()
    for origin in (EVIL, "null", "http://127.0.0.1.evil.example", "https://localhost:1"):
        with pytest.raises(WebSocketDenialResponse) as e:
            join(client, game, origin=origin)
        assert e.value.status_code == 403
        assert "refused" in e.value.text and dict(SECURITY_HEADERS).keys() <= {
            k.encode() for k in e.value.headers
        }
    # the page's own origin, and a client that is not a browser (no Origin), may join
    assert join(client, game, origin="http://127.0.0.1")["type"] == "state"
    assert join(client, game)["type"] == "state"


def test_a_cross_site_post_is_refused(client: TestClient) -> None:
    before = len(server_of(client).store.list())
    r = new_game(client, origin=EVIL)
    assert r.status_code == 403 and "evil.example" in r.text
    # a "simple" request a form or fetch(no-cors) can send from anywhere
    r = client.post(
        "/api/games", content='{"seed": 1}', headers={"content-type": "text/plain", "origin": EVIL}
    )
    assert r.status_code == 403
    r = client.post("/api/games", content='{"seed": 1}', headers={"content-type": "text/plain"})
    assert r.status_code == 415 and "application/json" in r.text
    r = new_game(client, **{"sec-fetch-site": "cross-site"})
    assert r.status_code == 403
    assert len(server_of(client).store.list()) == before  # nothing was created
    assert new_game(client, origin="http://127.0.0.1").status_code == 200
    assert new_game(client, **{"sec-fetch-site": "same-origin"}).status_code == 200


@pytest.mark.parametrize("path", ["/", "/api/games?ids=x", "/api/meta", "/static/app.js"])
def test_a_foreign_host_is_not_answered(client: TestClient, path: str) -> None:
    for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example", "", "[::1"):
        r = client.get(path, headers={"host": host})
        assert r.status_code == 421, (host, r.status_code)
        assert "does not answer for the host" in r.text
    for host in ("127.0.0.1", "localhost:8000", "LOCALHOST", "[::1]:8000", "127.0.0.1:1"):
        assert client.get(path, headers={"host": host}).status_code == 200, host


def test_a_websocket_to_a_foreign_host_is_refused(client: TestClient) -> None:
    game = new_game(client).json()
    with pytest.raises(WebSocketDenialResponse) as e:
        join(client, game, host="evil.example")
    assert e.value.status_code == 421


def test_public_url_host_and_origin_are_the_servers(db_path: Path) -> None:
    app = create_app(db_path, bot_delay=0, public_url="https://cards.example.org/")
    with TestClient(app) as client:
        assert client.get("/api/meta", headers={"host": "cards.example.org"}).status_code == 200
        assert client.get("/api/meta", headers={"host": "evil.example"}).status_code == 421
        r = new_game(client, host="cards.example.org", origin="https://cards.example.org")
        assert r.status_code == 200
        # behind the proxy the request's Host may be the proxy's upstream name
        r = new_game(client, host="127.0.0.1:8000", origin="https://cards.example.org")
        assert r.status_code == 200
        assert new_game(client, origin="http://cards.example.org").status_code == 403
        game = r.json()
        msg = join(client, game, host="cards.example.org", origin="https://cards.example.org")
        assert msg["type"] == "state"


def test_the_host_it_listens_on_is_answered(db_path: Path) -> None:
    with TestClient(create_app(db_path, bot_delay=0, host="192.0.2.7")) as client:
        assert client.get("/api/meta", headers={"host": "192.0.2.7:8000"}).status_code == 200
        assert client.get("/api/meta", headers={"host": "192.0.2.8:8000"}).status_code == 421


def test_allowed_hosts_and_names() -> None:
    assert allowed_hosts("127.0.0.1") == {"localhost", "127.0.0.1", "::1"}
    assert "cards.example.org" in allowed_hosts("127.0.0.1", "https://Cards.Example.org:8443/x")
    assert len(allowed_hosts("0.0.0.0")) >= 4  # the machine's own names join loopback's
    assert host_name("[::1]:80") == "::1" and host_name("Example.ORG.:1") == "example.org"
    assert host_name("a:b") is None and host_name("[::1]x") is None
    assert public_origin("https://a.example:443/p") == ("https://a.example", "a.example")
    assert public_origin("http://a.example:8080") == ("http://a.example:8080", "a.example")
    for bad in ("ftp://a.example", "a.example", "https://"):
        with pytest.raises(ValueError, match="--public-url"):
            public_origin(bad)


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("GET", "/", {}),
        ("GET", "/static/app.js", {}),
        ("GET", "/static/cards/QH.svg", {}),
        ("GET", "/static/nothing.js", {}),
        ("GET", "/api/meta", {}),
        ("GET", "/api/games", {}),
        ("GET", "/api/games/abc/record", {}),
        ("GET", "/nowhere", {}),
        ("POST", "/api/games", {"json": {"seed": "x"}}),
        ("POST", "/api/games", {"json": {}}),
        ("DELETE", "/api/games", {}),
        ("GET", "/", {"headers": {"host": "evil.example"}}),
        ("POST", "/api/games", {"content": b"x" * 70_000}),
    ],
)
def test_every_response_has_the_security_headers(
    client: TestClient, method: str, path: str, kwargs: dict[str, Any]
) -> None:
    r = client.request(method, path, **kwargs)
    for name, value in SECURITY_HEADERS:
        assert r.headers.get(name.decode()) == value.decode(), (name, r.status_code)
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp


def test_no_inline_script_or_style_in_the_static_files() -> None:
    """What the CSP forbids does not occur: no inline <script>, no on* handler
    attributes, no style attributes or <style> blocks, no javascript: URLs, no eval."""
    html = (STATIC_DIR / "index.html").read_text()
    for script in re.findall(r"<script\b[^>]*>", html):
        assert "src=" in script, script
    assert all(
        not body.strip() for body in re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.S)
    )
    assert not re.search(r"\son[a-z]+\s*=", html)
    assert not re.search(r"\sstyle\s*=|<style\b|javascript:", html, re.I)
    for js in STATIC_DIR.glob("*.js"):
        text = js.read_text()
        assert not re.search(r"\beval\(|new Function\(|setAttribute\(\s*['\"](style|on)", text)
        assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write", text)
    for svg in (STATIC_DIR / "cards").glob("*.svg"):
        assert "<script" not in svg.read_text(), svg
