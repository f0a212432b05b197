"""Issue 18, defect 3: every message gets an answer. Messages that crashed the handler and
dropped the connection (close 1006, a traceback each) are answered with ``malformed`` and
a reason; the socket stays open (a ping after each is answered), and no reason echoes a
large input back."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from starlette.testclient import TestClient

from whistkit.server.protocol import QUOTE_CHARS, ProtocolError, parse_message, quote
from whistkit.server.table import HUMAN

from .helpers import receive_until, server_of

pytestmark = pytest.mark.timeout(120)

HUGE = "9" * 5000  # more than the 4,300 digits Python converts between int and str


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json={"seed": 3, **body})
    assert r.status_code == 200, r.text
    game: dict[str, Any] = r.json()
    return game


def answer(ws: Any, raw: str) -> dict[str, Any]:
    """Send ``raw`` as it is; its answer (an error, an ack or a state), then a ping
    answered on the same socket (it was not dropped)."""
    ws.send_text(raw)
    reply: dict[str, Any] = receive_until(
        ws, lambda m: m["type"] in ("error", "ack", "state", "pong", "hint")
    )
    ws.send_json({"type": "ping"})
    receive_until(ws, lambda m: m["type"] == "pong")
    return reply


def joined(ws: Any, game: dict[str, Any]) -> None:
    msg = answer(
        ws,
        json.dumps({"type": "join", "game": game["id"], "seat": "S", "token": game["token"]}),
    )
    assert msg["type"] == "state", msg


def assert_malformed(reply: dict[str, Any], words: str) -> None:
    assert reply["type"] == "error" and reply["code"] == "malformed", reply
    assert words in reply["message"], reply
    assert len(reply["message"]) < 300, reply  # nothing large echoed back


def test_a_number_with_5000_digits_is_malformed(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect("/ws") as ws:
        for raw in (
            f'{{"type": "join", "game": "{game["id"]}", "since": {HUGE}}}',
            f'{{"type": "ping", "x": {HUGE}}}',
            f'{{"type": {HUGE}}}',
            f"[{HUGE}]",
            f"-{HUGE}",
        ):
            reply = answer(ws, raw)
            assert_malformed(reply, "a number with 5000 digits")
        joined(ws, game)
        reply = answer(ws, f'{{"type": "action", "action": {{"kind": "Call", "card": {HUGE}}}}}')
        assert_malformed(reply, "5000 digits")


def test_a_number_with_5000_digits_in_a_new_game_is_a_400(client: TestClient) -> None:
    for field in ("seed", "options", "level", "nonsense"):
        body = f'{{"{field}": {HUGE}}}'
        r = client.post("/api/games", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 400, r.text
        assert "5000 digits" in r.json()["error"] and len(r.text) < 300


def test_a_game_id_with_a_lone_surrogate_is_malformed(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        for game_id in ("\\ud800", "ab\\udfffcd", "\\ud83d"):
            reply = answer(ws, f'{{"type": "join", "game": "{game_id}", "token": "x"}}')
            assert_malformed(reply, "'game' must be a game id")
            assert "\\ud" in reply["message"]  # quoted as an escape, never the raw surrogate
    r = client.get("/api/games/%ED%A0%80/record")  # the surrogate's bytes in the path
    assert r.status_code == 404 and len(r.text) < 300


def test_a_non_ascii_token_is_malformed(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect("/ws") as ws:
        for token in ("ö" * 22, "токен", "\\ud800", "a" * 129, "tok en"):
            raw = json.dumps({"type": "join", "game": game["id"], "seat": "S", "token": token})
            reply = answer(ws, raw)
            assert_malformed(reply, "'token' must be the seat's token")
        wrong = json.dumps({"type": "join", "game": game["id"], "seat": "S", "token": "A" * 22})
        reply = answer(ws, wrong)
        assert reply["type"] == "error" and reply["code"] == "forbidden", reply
        joined(ws, game)


@pytest.mark.parametrize("kind", [["Call"], {"a": 1}, 3, None, True, "", "Ca ll", "Cäll"])
def test_a_laws_action_whose_kind_is_not_a_name_is_malformed(client: TestClient, kind: Any) -> None:
    tables = server_of(client).tables
    table = tables.create(
        "felagsvist", {"play_mode": "laws"}, seed=5, seats={s: HUMAN for s in range(4)}
    )
    game = {"id": table.id, "token": table.tokens[2]}
    with client.websocket_connect("/ws") as ws:
        joined(ws, game)
        reply = answer(ws, json.dumps({"type": "action", "action": {"kind": kind, "card": "2C"}}))
        assert_malformed(reply, "'action' needs a 'kind'")
        # a well-formed one is judged by the table, as before
        reply = answer(ws, json.dumps({"type": "action", "action": {"kind": "Call", "card": "2C"}}))
        assert reply["type"] == "error" and reply["code"] in ("illegal", "not_your_turn"), reply


def test_a_10_mib_string_is_not_echoed_back(client: TestClient) -> None:
    big = "Q" * (10 * 1024 * 1024)
    with client.websocket_connect("/ws") as ws:
        reply = answer(ws, json.dumps({"type": "play", "card": big}))
        assert_malformed(reply, "bytes long")
        reply = answer(ws, json.dumps({"type": "ping", "x": "Q" * 60_000}))
        assert_malformed(reply, "unknown field 'x'")
        reply = answer(ws, json.dumps({"type": "play", "card": "Q" * 60_000}))
        assert_malformed(reply, "(60000 characters)")
        reply = answer(ws, json.dumps({"type": "Q" * 60_000}))
        assert reply["code"] == "unknown_type" and len(reply["message"]) < 300


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ({"type": "ping", "extra": 1}, "unknown field 'extra' in a ping message"),
        ({"type": "hint", "card": "QH"}, "unknown field 'card' in a hint message"),
        ({"type": "join", "game": 7}, "'game' must be a game id"),
        ({"type": "join", "game": ""}, "'game' must be a game id"),
        ({"type": "join", "game": "a" * 65}, "'game' must be a game id"),
        ({"type": "join", "game": "ab/../cd"}, "'game' must be a game id"),
        ({"type": "join", "game": "abc", "since": -1}, "'since' must be a version"),
        ({"type": "join", "game": "abc", "since": 2**60}, "'since' must be a version"),
        ({"type": "join", "game": "abc", "since": 1.5}, "'since' must be a version"),
        ({"type": "join", "game": "abc", "token": 5}, "'token' must be"),
        ({"type": "play", "card": ["QH"]}, "'card' must be a card code"),
        ({"type": "play", "card": "QH" * 10}, "'card' must be a card code"),
        ({"type": "action", "action": []}, "'action' must be an object"),
        ({"type": "action", "action": {"kind": "Call", "card": [1]}}, "field 'card' must be"),
        ({"type": "action", "action": {"kind": "Call", "Card": "QH"}}, "no field named 'Card'"),
        ({"type": "action", "action": {"kind": "Call", "suit": 10**6}}, "field 'suit' must be"),
        (
            {"type": "action", "action": {"kind": "Call", **{f"f{i}": 1 for i in range(9)}}},
            "has 10 fields",
        ),
    ],
)
def test_the_schema_names_what_is_wrong(message: dict[str, Any], words: str) -> None:
    with pytest.raises(ProtocolError) as e:
        parse_message(json.dumps(message))
    assert e.value.code == "malformed" and words in e.value.message, e.value.message


@pytest.mark.parametrize(
    "raw",
    ["NaN", '{"type": "ping", "x": Infinity}', '{"type": -Infinity}', "[" * 5000, b"\xff\xfe"],
)
def test_json_the_standard_does_not_allow_is_malformed(raw: str | bytes) -> None:
    with pytest.raises(ProtocolError) as e:
        parse_message(raw)
    assert e.value.code == "malformed"


def test_quote_is_short_ascii_and_never_fails() -> None:
    for value in (10**5000, -(10**5000), "\ud800" * 100, "é" * 10**6, [[1] * 10**5], {"a": []}):
        text = quote(value)
        assert text.isascii() and len(text) < QUOTE_CHARS + 40, text
    assert quote("QH") == "'QH'" and quote([]) == "[]" and quote(12) == "12"


def test_an_unforeseen_failure_is_answered_and_logged(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The per-message guard: a bug behind the schema is an ``internal`` error for that
    message (and a traceback in the log for the operator), never a dropped socket."""
    game = new_game(client)
    with client.websocket_connect("/ws") as ws:
        joined(ws, game)
        table = server_of(client).tables.get(game["id"])

        async def broken(*args: Any) -> Any:
            raise RuntimeError("a bug")

        monkeypatch.setattr(table, "act_async", broken)
        with caplog.at_level(logging.ERROR, logger="whistkit.server"):
            reply = answer(ws, json.dumps({"type": "play", "card": "2C"}))
        assert reply == {
            "type": "error",
            "code": "internal",
            "message": "the server could not handle this message",
        }
        assert "a bug" in caplog.text and "Traceback" in caplog.text
