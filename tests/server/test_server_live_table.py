"""One live table per game (issue 18, defect 1) and secret deals (defect 2).

The re-join trial: a client joins, sends the same join again on the same socket, and a
second client joins the same seat. Before the registry the re-join freed the table and the
next join loaded a second copy, so both clients' cards were acknowledged as the same
version and one was lost (20 of 20 trials), and with one client the bots never answered.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession

from whistkit.cards import parse_card
from whistkit.server.app import create_app
from whistkit.server.log import loads_action
from whistkit.server.table import SECRET_BYTES, Table, event_public

from .helpers import has_view, server_of

pytestmark = pytest.mark.timeout(300)


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    game: dict[str, Any] = r.json()
    return game


def join_msg(game: dict[str, Any], since: int = 0) -> dict[str, Any]:
    return {
        "type": "join",
        "game": game["id"],
        "seat": game["seat"],
        "token": game["token"],
        "since": since,
    }


def until_my_turn(ws: WebSocketTestSession, log: list[dict[str, Any]]) -> dict[str, Any]:
    """Messages up to a view where S is to act with the latest version; that message."""
    while True:
        msg: dict[str, Any] = ws.receive_json()
        log.append(msg)
        assert msg["type"] != "error", msg
        if has_view(msg) and msg["view"]["to_play"] == "S" and msg["view"]["legal"]:
            return msg


def reply(ws: WebSocketTestSession, log: list[dict[str, Any]]) -> dict[str, Any]:
    """Messages up to the answer to an action (ack or error)."""
    while True:
        msg: dict[str, Any] = ws.receive_json()
        log.append(msg)
        if msg["type"] in ("ack", "error"):
            return msg


@pytest.mark.parametrize("second_client", [False, True])
def test_rejoin_trial_loses_no_acknowledged_card(db_path: Path, second_client: bool) -> None:
    lost = 0
    answered = 0
    trials = 20
    with TestClient(create_app(db_path, bot_delay=0)) as client:
        tables = server_of(client).tables
        store = server_of(client).store
        for _ in range(trials):
            game = new_game(client)
            acked: list[str] = []
            with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
                log_a: list[dict[str, Any]] = []
                log_b: list[dict[str, Any]] = []
                a.send_json(join_msg(game))
                a.send_json(join_msg(game))  # the same join again, on the same socket
                if second_client:
                    b.send_json(join_msg(game))
                turn = until_my_turn(a, log_a)
                while turn["v"] < tables.loaded(game["id"]).version:
                    turn = until_my_turn(a, log_a)  # the second join's state
                legal = [x for x in turn["view"]["legal"] if x["type"] == "play"]
                a.send_json({**legal[0], "v": turn["v"]})
                ack = reply(a, log_a)
                assert ack["type"] == "ack", ack
                acked.append(legal[0]["card"])
                if second_client:
                    until_my_turn(b, log_b)  # its view from before A's card
                    b.send_json(legal[-1])  # a card for the same turn, no version
                    other = reply(b, log_b)
                    if other["type"] == "ack":  # S won the trick and leads again
                        assert other["v"] > ack["v"], (ack, other)
                        acked.append(legal[-1]["card"])
                    else:
                        assert other["code"] in ("not_your_turn", "illegal"), other
                # every acknowledged card is in the store's log
                stored = json.dumps(
                    [event_public(e) for e in tables.loaded(game["id"]).events if event_public(e)]
                )
                logged = [loads_action(t) for t in store.actions(game["id"])]
                for card in acked:
                    if parse_card(card) not in logged or f'"card": "{card}"' not in stored:
                        lost += 1
                # the bots answer: a bot's card reaches the socket after the ack (or S
                # won the trick: its view came before the ack, and S leads again)
                msg: dict[str, Any] | None = next(m for m in reversed(log_a) if has_view(m))
                for _ in range(500):
                    if msg is None:
                        msg = a.receive_json()
                    event = msg.get("event") or {}
                    bot_card = event.get("type") == "play" and event["seat"] != "S"
                    if bot_card and msg["v"] > ack["v"]:
                        answered += 1
                        break
                    view = msg.get("view")
                    latest = msg.get("v") == tables.loaded(game["id"]).version
                    if view and view["to_play"] == "S" and view["legal"] and latest:
                        a.send_json({**view["legal"][0], "v": msg["v"]})
                    msg = None
                # one live table, which the sockets follow once each
                table = tables.loaded(game["id"])
                assert len(table.subscribers) == (2 if second_client else 1)
    assert lost == 0
    assert answered == trials


def test_a_stale_action_is_refused_and_nothing_stored(client: TestClient) -> None:
    game = new_game(client)
    store = server_of(client).store
    with client.websocket_connect("/ws") as ws:
        log: list[dict[str, Any]] = []
        ws.send_json(join_msg(game))
        turn = until_my_turn(ws, log)
        before = (store.actions(game["id"]), store.get(game["id"]).version)
        action = turn["view"]["legal"][0]
        for stale in (turn["v"] - 1, turn["v"] + 1, 0):
            ws.send_json({**action, "v": stale})
            refused = reply(ws, log)
            assert refused["type"] == "error" and refused["code"] == "stale", refused
            assert f"version {stale}" in refused["message"]
        for bad in (-1, "3", True, 2**60):
            ws.send_json({**action, "v": bad})
            refused = reply(ws, log)
            assert refused["code"] == "malformed" and "'v'" in refused["message"], refused
        assert (store.actions(game["id"]), store.get(game["id"]).version) == before
        ws.send_json({**action, "v": turn["v"]})
        assert reply(ws, log)["type"] == "ack"
        assert len(store.actions(game["id"])) > len(before[0])


def test_join_leave_and_rejoin_are_idempotent(client: TestClient) -> None:
    one, two = new_game(client), new_game(client)
    tables = server_of(client).tables
    with client.websocket_connect("/ws") as ws:
        for game in (one, two, one, one, two, one):
            ws.send_json(join_msg(game))
            log: list[dict[str, Any]] = []
            state = until_my_turn(ws, log)
            assert state["view"]["seat"] == "S"
            followed = tables.loaded(game["id"])
            other = tables.loaded((two if game is one else one)["id"])
            assert followed is not None and len(followed.subscribers) == 1
            assert other is None or other.subscribers == []
    # both games stay one table each, whatever was joined meanwhile
    assert len({id(tables.loaded(g["id"])) for g in (one, two)}) == 2


def scan_game(client: TestClient, game: dict[str, Any]) -> list[str]:
    """Every message S gets during a whole game, as sent (text)."""
    texts: list[str] = []
    with client.websocket_connect("/ws") as ws:
        ws.send_json(join_msg(game))
        acted = -1
        while True:
            text = ws.receive_text()
            texts.append(text)
            msg = json.loads(text)
            assert msg["type"] != "error", msg
            if not has_view(msg):
                continue
            view = msg["view"]
            if view["winner"]:
                return texts
            if view["to_play"] == "S" and view["legal"] and msg["v"] > acted:
                ws.send_json({**view["legal"][0], "v": msg["v"]})
                acted = msg["v"]


def secret_forms(secret: bytes) -> list[str]:
    """The ways a secret could be written in a message."""
    n = int.from_bytes(secret, "big")
    forms = [secret.hex(), base64.b64encode(secret).decode(), str(n)]
    forms += [base64.urlsafe_b64encode(secret).decode().rstrip("="), secret.hex().upper()]
    return forms


def test_deals_come_from_the_os_and_the_secret_never_leaves(client: TestClient) -> None:
    store = server_of(client).store
    tables = server_of(client).tables
    games = [new_game(client) for _ in range(2)]
    for game in games:
        row = store.get(game["id"])
        assert row is not None and not row.seeded and row.seed == 0
        assert row.secret is not None and len(row.secret) * 8 >= 128
        assert len(row.secret) == SECRET_BYTES
        table = tables.loaded(game["id"])
        # the deals are drawn from the OS's CSPRNG, not from a seeded generator
        assert isinstance(table.deal_rng, random.SystemRandom)
    a, b = (store.get(g["id"]) for g in games)
    assert a.secret != b.secret
    for game in games:
        row = store.get(game["id"])
        texts = scan_game(client, game)
        assert len(texts) > 600  # a whole game: every message of it scanned
        table = tables.get(game["id"])
        forms = secret_forms(row.secret)
        # and no bot's seed either: they come from the secret
        forms += [str(table.bot_seed(s)) for s in range(4)]
        for text in texts:
            for form in forms:
                assert form not in text
            assert '"seed"' not in text and '"secret"' not in text
            assert json.loads(text).get("view", {}).get("seeded", False) is False
    # two unseeded games are dealt differently (the chance they are not: 1 in 10^28)
    first_deals = [tables.get(g["id"]).events[0][1] for g in games]
    assert first_deals[0] != first_deals[1]


def test_a_typed_seed_marks_the_game_and_fixes_it(client: TestClient) -> None:
    one, two = new_game(client, seed=99), new_game(client, seed=99)
    store = server_of(client).store
    for game in (one, two):
        row = store.get(game["id"])
        assert row.seeded and row.seed == 99
    unseeded = new_game(client)
    ids = ",".join((one["id"], unseeded["id"]))
    listed = {g["id"]: g["seeded"] for g in client.get(f"/api/games?ids={ids}").json()}
    assert listed == {one["id"]: True, unseeded["id"]: False}
    with client.websocket_connect("/ws") as ws:
        ws.send_json(join_msg(one))
        assert until_my_turn(ws, [])["view"]["seeded"] is True


def test_bots_play_the_same_after_a_restart(tmp_path: Path) -> None:
    # the bots' randomness comes from the stored secret: a table loaded from the store
    # gives each bot the same seed as the table that stored it
    from whistkit.server.store import Store

    store = Store(tmp_path / "g.db")
    table = Table.create(
        store, "felagsvist", seats={0: "bot:club", 1: "bot:club", 2: "human", 3: "bot:club"}
    )
    row = store.get(table.id)
    assert row is not None
    again, _ = Table.load(Store(tmp_path / "g.db"), row)
    assert [again.bot_seed(s) for s in range(4)] == [table.bot_seed(s) for s in range(4)]
    assert len({table.bot_seed(s) for s in range(4)}) == 4
    store.close()
