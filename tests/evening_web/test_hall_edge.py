"""Issue 33, part 2: what a phone (or a web page) on the hall's Wi-Fi may not do to the
organiser: be answered under a foreign name (DNS rebinding), post from another site,
frame its pages, or create evenings (and so fill the terminal's list and the limit)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from evening_web.drive import HALL, hall_client
from whistkit.evening.edge import OnceInAWhile
from whistkit.evening.web import create_app

PHONE = "192.168.1.23"  # a phone on the hall's Wi-Fi
LAPTOP = "192.168.1.20"  # the laptop's own address on it


@pytest.fixture
def app(tmp_path: Path) -> Iterator[object]:
    app = create_app(
        tmp_path / "e.sqlite3",
        public_url=f"http://{LAPTOP}:8000/",
        creator_key="the-terminal-key",
    )
    with hall_client(app):  # runs the lifespan
        yield app


def phone(app: object, address: str = PHONE) -> TestClient:
    return TestClient(app, base_url=f"http://{LAPTOP}:8000", client=(address, 40000))  # type: ignore[arg-type]


def test_a_foreign_host_is_not_answered(app: object) -> None:
    """Before: ``Host: evil.example`` was answered 200, so a rebinding page read it."""
    c = hall_client(app)  # type: ignore[arg-type]
    r = c.get("/api/meta", headers={"host": "evil.example:8000"})
    assert r.status_code == 421
    assert "does not answer for the host 'evil.example:8000'" in r.text
    assert c.get("/api/meta").status_code == 200
    assert phone(app).get("/api/meta").status_code == 200  # the hall's address is its own


def test_another_sites_page_may_not_post(app: object) -> None:
    """Before: a foreign Origin could create evenings."""
    c = hall_client(app)  # type: ignore[arg-type]
    r = c.post("/api/evenings", json={"title": "x"}, headers={"origin": "http://evil.example"})
    assert r.status_code == 403 and "origin 'http://evil.example'" in r.text
    r = c.post("/api/evenings", json={"title": "x"}, headers={"origin": HALL})
    assert r.status_code == 200
    assert len(app.state.organiser.store.list()) == 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("path", ["/", "/static/host.js", "/api/meta", "/t/x/y", "/nowhere"])
def test_every_answer_has_the_security_headers(app: object, path: str) -> None:
    r = hall_client(app).get(path)  # type: ignore[arg-type]
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert "script-src 'self';" in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["referrer-policy"] == "no-referrer"
    assert r.headers["x-content-type-options"] == "nosniff"


def test_a_phone_cannot_create_evenings(app: object) -> None:
    """Before: anyone on the Wi-Fi created evenings until the limit of 50 refused the
    real host, and each one was listed in the terminal."""
    store = app.state.organiser.store  # type: ignore[attr-defined]
    stranger = phone(app)
    for _ in range(3):
        r = stranger.post("/api/evenings", json={"title": "Mine now"})
        assert r.status_code == 403
        assert r.json()["code"] == "creator_only"
    assert store.list() == []
    # a wrong key is no way in either
    assert stranger.get("/?key=guess", follow_redirects=False).status_code == 403
    assert stranger.post("/api/evenings", json={}).status_code == 403
    # the laptop: on loopback, or on its own hall address
    assert hall_client(app).post("/api/evenings", json={"title": "A"}).status_code == 200  # type: ignore[arg-type]
    assert phone(app, LAPTOP).post("/api/evenings", json={"title": "B"}).status_code == 200
    # another device of the host's, with the link the terminal printed
    helper = phone(app, "192.168.1.30")
    r = helper.get("/?key=the-terminal-key", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    assert "httponly" in r.headers["set-cookie"].lower()
    assert helper.post("/api/evenings", json={"title": "C"}).status_code == 200
    assert sorted(t for _, t, _, _ in store.list()) == ["A", "B", "C"]


def test_a_forged_forwarded_for_does_not_make_a_phone_the_laptop(tmp_path: Path) -> None:
    app = create_app(tmp_path / "e.sqlite3", public_url=f"http://{LAPTOP}:8000/")
    r = phone(app).post(
        "/api/evenings", json={}, headers={"x-forwarded-for": "127.0.0.1", "x-real-ip": "::1"}
    )
    assert r.status_code == 403


def test_a_repeated_log_line_is_said_once_in_a_while() -> None:
    now = [0.0]
    f = OnceInAWhile(every=60, clock=lambda: now[0])
    record = logging.LogRecord("uvicorn.error", logging.WARNING, "", 0, "Invalid HTTP", (), None)
    assert f.filter(record)
    assert not any(f.filter(logging.makeLogRecord(record.__dict__)) for _ in range(1000))
    now[0] = 61
    again = logging.makeLogRecord({**record.__dict__, "msg": "Invalid HTTP"})
    assert f.filter(again)
    assert again.msg == "Invalid HTTP (and 1000 more like it in 60 s)"


def test_a_result_is_confirmed_from_another_phone_and_the_log_names_both(
    tmp_path: Path,
) -> None:
    """Before: one phone entered a result as N and confirmed it as E (the confirming
    opponent was only a claimed player id), and the log said neither who nor which
    phone."""
    from evening_web.drive import Driver

    with hall_client(create_app(tmp_path / "e.sqlite3")) as laptop:
        host = Driver(laptop)  # type: ignore[arg-type]
        host.create({"preset": "felagsvist", "hands": 12})
        host.setup(4, 4)
        seats = host.state()["hand_states"][0]["tables"][0]["seats"]
        path = host.token_path(1)
        names = {p["id"]: p["name"] for p in host.state()["players"]}
        one, other = hall_client(laptop.app), hall_client(laptop.app)
        # a page that never opened the table's view has no phone session
        r = one.post(f"{path}/enter", json={"hand": 1, "side": "NS", "tricks": 8, "by": seats["N"]})
        assert r.status_code == 400 and r.json()["code"] == "no_phone"
        assert one.get(path).status_code == 200 and other.get(path).status_code == 200
        r = one.post(f"{path}/enter", json={"hand": 1, "side": "NS", "tricks": 8, "by": seats["N"]})
        assert r.status_code == 200
        assert one.get(path).json()["hand"]["pending"]["mine"] is True
        assert other.get(path).json()["hand"]["pending"]["mine"] is False
        # the same phone, claiming to be an opponent, is refused
        confirm = {"hand": 1, "by": seats["E"], "ns": 8}
        r = one.post(f"{path}/confirm", json=confirm)
        assert r.status_code == 409 and r.json()["code"] == "own_phone"
        assert host.state()["hand_states"][0]["tables"][0]["result"] is None
        assert other.post(f"{path}/confirm", json=confirm).status_code == 200
        audit = host.state()["audit"]
        result = audit[0]["detail"]
        assert audit[0]["action"] == "result"
        assert result["entered_by_name"] == names[seats["N"]]
        assert result["confirmed_by_name"] == names[seats["E"]]
        assert result["entered_phone"] and result["confirmed_phone"]
        assert result["entered_phone"] != result["confirmed_phone"]
        entered = next(a["detail"] for a in audit if a["action"] == "enter")
        assert (entered["by_name"], entered["phone"]) == (
            names[seats["N"]],
            result["entered_phone"],
        )
        # no phone's session cookie is in the log, only its label
        cookies = {c.value for c in (*one.cookies.jar, *other.cookies.jar)}
        assert not cookies & {result["entered_phone"], result["confirmed_phone"]}


def test_a_database_from_before_gets_the_phone_of_an_entry(tmp_path: Path) -> None:
    import sqlite3

    from whistkit.evening.store import EveningStore

    db = tmp_path / "old.sqlite3"
    with sqlite3.connect(db) as c:  # evening_pending as it was before issue 33
        c.execute(
            "CREATE TABLE evening_pending (evening TEXT NOT NULL, hand INTEGER NOT NULL,"
            " tbl INTEGER NOT NULL, ns INTEGER NOT NULL, entered_by INTEGER NOT NULL,"
            " at REAL NOT NULL, PRIMARY KEY (evening, hand, tbl))"
        )
        c.execute("INSERT INTO evening_pending VALUES ('e1', 1, 1, 8, 3, 0)")
    store = EveningStore(db)
    columns = [r[1] for r in store.db.execute("PRAGMA table_info(evening_pending)")]
    assert columns[-1] == "device"
    store.close()
    EveningStore(db).close()  # and again: added once
