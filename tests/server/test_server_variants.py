"""The server's generic paths on the real variants: Swedish bottom cards (special actions
chosen by card, revealed cards), the classic turned-up card and the match's games."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from whistkit.cards import card_name
from whistkit.record import loads, replay, summarize
from whistkit.server.table import event_public
from whistkit.variants import VARIANTS

from .helpers import play_actions, play_game, receive_until, server_of

pytestmark = pytest.mark.timeout(120)


def start(client: TestClient, ws: Any, variant: str, **options: Any) -> dict[str, Any]:
    r = client.post("/api/games", json={"variant": variant, "seed": 12, "options": options})
    assert r.status_code == 200, r.text
    body = r.json()
    ws.send_json({"type": "join", "game": body["id"], "seat": "S", "token": body["token"]})
    msg: dict[str, Any] = receive_until(ws, lambda m: m["type"] == "state")
    msg["game"] = r.json()["id"]
    return msg


def test_meta_lists_every_registered_variant(client: TestClient) -> None:
    meta = client.get("/api/meta").json()
    names = [v["name"] for v in meta["variants"]]
    assert names[0] == "felagsvist" and set(names) == set(VARIANTS)
    for v in meta["variants"]:
        modes = next(o for o in v["options"] if o["key"] == "play_mode")
        assert modes["choices"] == ["strict", "laws"], v["name"]
    english = next(v for v in meta["variants"] if v["name"] == "english")
    keys = {o["key"] for o in english["options"]}
    assert {"english_rubber", "revoke_method", "auto_claim", "revoke_correction"} <= keys
    # the scoring is the variant itself (english or american): nothing to choose there
    assert "classic_scoring" not in keys
    laws_only = {o["key"] for o in english["options"] if o.get("laws")}
    assert laws_only == {
        "revoke_method",
        "auto_claim",
        "revoke_correction",
        "both_sides_revoke",
        "revoker_capped",
    }
    assert [v.get("hands") for v in meta["variants"]] == [
        12 if n == "felagsvist" else None for n in names
    ]


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("swedish", {}),
        ("swedish", {"sw_simultaneous_reveal": True, "sw_spel_leader": "left_of_declarer"}),
        ("english", {}),
        ("english", {"english_rubber": False}),
        ("american", {"american_match": "rubber"}),
    ],
)
def test_whole_game(client: TestClient, variant: str, options: dict[str, Any]) -> None:
    with client.websocket_connect("/ws") as ws:
        first = start(client, ws, variant, **options)
        final = play_game(ws)
    assert final["winner"] in ("NS", "EW")
    assert final["hands_total"] is None
    record = server_of(client).store.get(first["game"]).record
    summary = summarize(replay(loads(record)))
    assert summary["score"] == final["score"]
    if variant != "swedish":
        assert final["match"]["games"] == summary["games"]
        if options.get("english_rubber", True) or options.get("american_match") == "rubber":
            assert final["match"]["rubber"]["winner"] == final["winner"]


def test_bottom_card_actions(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        first = start(client, ws, "swedish")
        msg = play_actions(ws, 0, first)
        view = msg["view"]
        assert view["phase"] == "bid" and view["contract"] is None
        assert all(a["type"] == "action" for a in view["legal"])
        assert {a["action"]["card"] for a in view["legal"]} == set(view["hand"])
        assert view["legal"][0]["action"]["kind"] == "BottomCard"
        assert view["legal"][0]["action"]["seat"] == "S"
        # a card played while bottom cards are chosen, and an action for a card not held
        ws.send_json({"type": "play", "card": view["hand"][0]})
        reply = ws.receive_json()
        assert reply["code"] == "illegal" and "bottom card" in reply["message"]
        not_held = next(
            f"{r}{s}" for r in "AKQJT98765432" for s in "SHDC" if f"{r}{s}" not in view["hand"]
        )
        ws.send_json(
            {"type": "action", "action": {"kind": "BottomCard", "seat": "S", "card": not_held}}
        )
        reply = ws.receive_json()
        assert reply["code"] == "illegal" and "not one of the legal actions" in reply["message"]
        # commit one: S sees the revealed cards and its own bottom card, nobody else's
        mine = view["legal"][0]["action"]["card"]
        ws.send_json(view["legal"][0])
        after = receive_until(ws, lambda m: "view" in m and m["view"]["phase"] == "play")
        public = after["view"]["public"]
        assert public["your bottom card"] == mine
        assert 0 < len(public["revealed"]) <= 4  # up to the first red card
        assert after["view"]["contract"]["code"] in ("SPEL", "NOLLSPEL")
        table = server_of(client).tables.get(first["game"])
        committed = table.state.bidding.committed
        for seat, code in public["revealed"].items():
            assert code == card_name(committed["NESW".index(seat)])


def test_turned_card_is_public_until_played(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        msg = start(client, ws, "english")
        table = server_of(client).tables.get(msg["game"])
        code = card_name(table.state.turned)
        view = msg["view"]
        assert view["public"].get("turned") == code or any(t["card"] == code for t in view["trick"])
        deal_events = [
            e for e in map(event_public, table.events) if (e or {}).get("type") == "deal"
        ]
        assert deal_events[0]["turned"] == code
        assert view["contract"]["trump"] == code[1]
