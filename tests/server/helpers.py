"""Playing through the WebSocket protocol in tests."""

from __future__ import annotations

import re
from typing import Any

from starlette.testclient import TestClient, WebSocketTestSession

CARD_RE = re.compile(r"^[2-9TJQKA][SHDC]$")


def receive_until(
    ws: WebSocketTestSession, pred: Any, log: list[dict[str, Any]] | None = None, limit: int = 5000
) -> dict[str, Any]:
    """Read messages until ``pred(msg)`` holds; return that message."""
    for _ in range(limit):
        msg: dict[str, Any] = ws.receive_json()
        if log is not None:
            log.append(msg)
        if pred(msg):
            return msg
    raise AssertionError("the expected message never came")


def has_view(msg: dict[str, Any]) -> bool:
    return msg["type"] == "state" or (msg["type"] == "event" and "view" in msg)


def settled(seat: str) -> Any:
    """A predicate: a view where ``seat`` is to act, or the game is over."""

    def pred(msg: dict[str, Any]) -> bool:
        if not has_view(msg):
            return False
        view = msg["view"]
        return bool(view["winner"]) or (view["to_play"] == seat and bool(view["legal"]))

    return pred


def play_game(
    ws: WebSocketTestSession,
    seat: str = "S",
    log: list[dict[str, Any]] | None = None,
    limit: int = 20000,
) -> dict[str, Any]:
    """Play ``seat``'s first legal action whenever it is to act; return the final view."""
    acted_at = -1
    for _ in range(limit):
        msg: dict[str, Any] = ws.receive_json()
        if log is not None:
            log.append(msg)
        assert msg["type"] != "error", msg
        if not has_view(msg):
            continue
        view: dict[str, Any] = msg["view"]
        if view["winner"]:
            return view
        if view["to_play"] == seat and view["legal"] and msg["v"] > acted_at:
            ws.send_json(view["legal"][0])
            acted_at = msg["v"]
    raise AssertionError("the game did not end")


def play_actions(
    ws: WebSocketTestSession, count: int, first: dict[str, Any], seat: str = "S"
) -> dict[str, Any]:
    """Act ``count`` times as ``seat`` (first legal action), starting from the message
    ``first``; return the latest message with a view once ``seat`` is to act again."""
    latest = first
    acted_at = -1
    done = 0
    while True:
        view = latest["view"]
        if view["winner"]:
            return latest
        if view["to_play"] == seat and view["legal"] and latest["v"] > acted_at:
            if done == count:
                return latest
            ws.send_json(view["legal"][0])
            acted_at = latest["v"]
            done += 1
        msg: dict[str, Any] = ws.receive_json()
        assert msg["type"] != "error", msg
        if has_view(msg):
            latest = msg


def card_codes(value: Any) -> set[str]:
    """Every card code anywhere in a JSON value."""
    out: set[str] = set()
    if isinstance(value, str):
        if CARD_RE.match(value):
            out.add(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out |= card_codes(k) | card_codes(v)
    elif isinstance(value, list):
        for v in value:
            out |= card_codes(v)
    return out


def server_of(client: TestClient) -> Any:
    """The app's :class:`whistkit.server.app.Server` (store and tables)."""
    return client.app.state.server  # type: ignore[attr-defined]
