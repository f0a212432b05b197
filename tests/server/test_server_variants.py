"""The server's generic paths for bidding, special actions and public cards, on stand-ins
for Swedish and classic whist (tests/server/toy_variants.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from whistkit.record import loads, replay, summarize
from whistkit.variants import VARIANTS

from .helpers import play_actions, play_game, receive_until, server_of
from .toy_variants import TOYS

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def toys(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, cls in TOYS.items():
        monkeypatch.setitem(VARIANTS, name, cls)
    yield


def start(client: TestClient, ws: Any, variant: str) -> dict[str, Any]:
    r = client.post("/api/games", json={"variant": variant, "seed": 12})
    assert r.status_code == 200, r.text
    body = r.json()
    ws.send_json({"type": "join", "game": body["id"], "seat": "S", "token": body["token"]})
    msg: dict[str, Any] = receive_until(ws, lambda m: m["type"] == "state")
    msg["game"] = r.json()["id"]
    return msg


def test_meta_lists_every_registered_variant(client: TestClient) -> None:
    names = [v["name"] for v in client.get("/api/meta").json()["variants"]]
    assert names[0] == "felagsvist" and set(TOYS) <= set(names)


@pytest.mark.parametrize("variant", sorted(TOYS))
def test_whole_toy_game(client: TestClient, variant: str) -> None:
    with client.websocket_connect("/ws") as ws:
        first = start(client, ws, variant)
        final = play_game(ws)
    assert final["winner"] in ("NS", "EW")
    record = server_of(client).store.get(first["game"]).record
    assert summarize(replay(loads(record)))["score"] == final["score"]


def test_bottom_card_actions(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        msg = play_actions(ws, 0, start(client, ws, "toyswedish"))
        view = msg["view"]
        assert view["phase"] == "bid"
        assert all(a["type"] == "action" for a in view["legal"])
        assert {a["action"]["card"] for a in view["legal"]} == set(view["hand"])
        assert view["legal"][0]["action"]["kind"] == "Bottom"
        assert view["legal"][0]["action"]["seat"] == "S"
        # a card played while bottom cards are chosen, and an action for a card not held
        ws.send_json({"type": "play", "card": view["hand"][0]})
        reply = ws.receive_json()
        assert reply["code"] == "illegal" and "bottom card" in reply["message"]
        not_held = next(
            f"{r}{s}" for r in "AKQJT98765432" for s in "SHDC" if f"{r}{s}" not in view["hand"]
        )
        ws.send_json(
            {"type": "action", "action": {"kind": "Bottom", "seat": "S", "card": not_held}}
        )
        reply = ws.receive_json()
        assert reply["code"] == "illegal" and "not one of the legal actions" in reply["message"]
        # commit one: S sees its own bottom card in the public information, nobody else's
        ws.send_json(view["legal"][0])
        after = receive_until(ws, lambda m: "view" in m and m["view"]["phase"] == "play")
        public = after["view"]["public"]
        assert "revealed" in public
        assert all(len(c) == 2 for c in public["revealed"].values())


def test_turned_card_is_public_until_played(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        msg = start(client, ws, "toyclassic")
        game = msg["game"]
        table = server_of(client).tables.get(game)
        turned = table.state.turned
        from whistkit.cards import card_name

        code = card_name(turned)
        assert (
            msg["view"]["public"] == {"turned": code}
            or code in msg["view"]["hand"]
            or any(t["card"] == code for t in msg["view"]["trick"])
        )
        deal_events = [e for e in table.events if (e.public or {}).get("type") == "deal"]
        assert deal_events[0].public["turned"] == code
        assert msg["view"]["contract"]["trump"] == code[1]
