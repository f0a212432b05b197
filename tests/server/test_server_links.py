"""Issue 32, item 18: invite and watch links carry their token in the URL's fragment,
which a browser never sends, so that no proxy's log holds it; the page's own requests
carry a token in a header or a body, never in a URL; the older forms still work."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from starlette.testclient import TestClient

TOKEN_HEADER = "X-Table-Token"
TABLE = {"name": "Anna", "seats": {"N": "person", "E": "club", "W": "person"}}


def test_links_carry_their_tokens_in_the_fragment(client: TestClient) -> None:
    made = client.post("/api/tables", json=TABLE).json()
    for seat in ("N", "W"):
        parts = urlsplit(made["invites"][seat])
        assert parse_qs(parts.query) == {"join": [made["game"]], "seat": [seat]}
        assert parse_qs(parts.fragment) == {"t": [made["tokens"][seat]]}
    parts = urlsplit(made["watch"])
    assert parse_qs(parts.query) == {"watch": [made["game"]]}
    assert parse_qs(parts.fragment) == {"t": [made["watch_token"]]}


def test_the_summary_takes_the_token_in_a_header_and_still_in_the_query(
    client: TestClient,
) -> None:
    made = client.post("/api/tables", json=TABLE).json()
    url = f"/api/tables/{made['game']}"
    r = client.get(url, headers={TOKEN_HEADER: made["tokens"]["N"]})
    assert r.status_code == 200 and r.json()["you"] == "N"
    assert client.get(url, params={"t": made["watch_token"]}).json()["you"] == "watch"
    assert client.get(url, headers={TOKEN_HEADER: "wrong"}).status_code == 404
    assert client.get(url).status_code == 404


def test_a_qr_code_is_asked_by_post_with_the_link_in_the_body(client: TestClient) -> None:
    made = client.post("/api/tables", json=TABLE).json()
    r = client.post("/api/qr", json={"u": made["invites"]["N"]})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.content.lstrip().startswith(b"<svg")
    assert client.get("/api/qr", params={"u": made["watch"]}).status_code == 200  # older pages
    bad = client.post("/api/qr", json={"u": "https://evil.example/#t=x"})
    assert bad.status_code == 400 and "must be a URL of this server" in bad.json()["error"]
    bad = client.post("/api/qr", json={"url": made["watch"]})
    assert bad.status_code == 400 and bad.json()["error"] == 'the body must be {"u": URL}'
