"""The web game's protocol without a browser: whole games, errors, catching up, hiding."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from whistkit.cards import card_name, parse_card
from whistkit.record import loads, replay, summarize
from whistkit.seats import parse_seat
from whistkit.server.app import create_app
from whistkit.server.protocol import result_json
from whistkit.server.store import StoreError
from whistkit.server.table import HUMAN, TableError, event_public
from whistkit.variants import VARIANTS
from whistkit.variants.base import HandResult
from whistkit.variants.swedish import reveal, spel_contract

from .helpers import card_codes, has_view, play_actions, play_game, receive_until, server_of

pytestmark = pytest.mark.timeout(120)


TOKENS: dict[tuple[str, str], str] = {}  # (game, seat) -> the seat's token


def new_game(client: TestClient, **body: Any) -> str:
    r = client.post("/api/games", json={"seed": 7, **body})
    assert r.status_code == 200, r.text
    game_id: str = r.json()["id"]
    TOKENS[game_id, r.json()["seat"]] = r.json()["token"]
    return game_id


def join_message(game: str, seat: str = "S", since: int = 0) -> dict[str, Any]:
    token = TOKENS.get((game, seat), "")
    return {"type": "join", "game": game, "seat": seat, "token": token, "since": since}


def join(ws: Any, game: str, seat: str = "S", since: int = 0) -> dict[str, Any]:
    ws.send_json(join_message(game, seat, since))
    msg: dict[str, Any] = receive_until(ws, lambda m: m["type"] in ("state", "error"))
    return msg


def stored(client: TestClient, game: str) -> tuple[list[str], str, int]:
    """What the store holds of a game: its log of actions, its record, its version."""
    store = server_of(client).store
    row = store.get(game)
    return store.actions(game), row.record, row.version


# -- whole games ---------------------------------------------------------------------------


def test_whole_felagsvist_game_over_websocket(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect("/ws") as ws:
        join(ws, game)
        final = play_game(ws)
    assert final["winner"] in ("NS", "EW", "draw")
    assert final["score"]["NS"] + final["score"]["EW"] == 156
    assert [r["contract"]["code"] for r in final["results"]] == [
        "H",
        "S",
        "NT",
        "D",
        "C",
        "NOLO",
    ] * 2
    # the stored game is its record, and it replays to the same result
    _, record, _ = stored(client, game)
    bot = "Bot (club)"  # the level in the name, as docs/records.md shows (and the terminal game)
    assert loads(record).players == {0: bot, 1: bot, 2: "You", 3: bot}
    summary = summarize(replay(loads(record)))
    assert summary["score"] == final["score"] and summary["winner"] == final["winner"]
    # listed as finished and downloadable
    listed = client.get(f"/api/games?finished=1&ids={game}").json()
    assert [g["id"] for g in listed] == [game]
    assert client.get(f"/api/games?finished=0&ids={game}").json() == []
    r = client.get(f"/api/games/{game}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    assert r.json()["format"] == "whistkit-record/1"


def test_same_seed_same_game(client: TestClient) -> None:
    a, b = new_game(client, seed=99), new_game(client, seed=99)
    with client.websocket_connect("/ws") as ws:
        join(ws, a)
        fa = play_game(ws)
        join(ws, b)
        fb = play_game(ws)
    assert fa["results"] == fb["results"]


# -- errors change nothing -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("not json", "malformed"),
        ("[1, 2]", "malformed"),
        ('{"card": "QH"}', "malformed"),
        ('{"type": 5}', "malformed"),
        ('{"type": "dance"}', "unknown_type"),
        ('{"type": "play", "card": "QH"}', "not_joined"),
        ('{"type": "join"}', "malformed"),
        ('{"type": "join", "game": "nope"}', "unknown_game"),
        ("[" * 100_000 + "]" * 100_000, "malformed"),  # too deep for the JSON reader
    ],
)
def test_malformed_and_unknown(client: TestClient, raw: str, code: str) -> None:
    game = new_game(client)
    before = stored(client, game)
    with client.websocket_connect("/ws") as ws:
        ws.send_text(raw)
        msg = ws.receive_json()
        assert msg["type"] == "error" and msg["code"] == code, msg
        assert msg["message"]
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}  # the connection stays usable
    assert stored(client, game) == before


def test_bad_messages_after_join(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect("/ws") as ws:
        view = play_actions(ws, 0, join(ws, game))["view"]
        before = stored(client, game)
        held = set(view["hand"])
        not_held = next(
            card_name(c)
            for c in range(52)
            if card_name(c) not in held and card_name(c) not in {t["card"] for t in view["trick"]}
        )
        cases = [
            ({"type": "play", "card": "ZZ"}, "malformed", "not a card"),
            ({"type": "play", "card": 12}, "malformed", "card code"),
            ({"type": "play"}, "malformed", "card code"),
            ({"type": "play", "card": not_held}, "illegal", "does not hold it"),
            ({"type": "action", "action": {"kind": "Bottom"}}, "illegal", "not one of"),
            ({"type": "action", "action": "x"}, "malformed", "object"),
            ({"type": "join", "game": game, "seat": "X"}, "bad_seat", "not a seat"),
            ({**join_message(game), "since": -3}, "malformed", "since"),
            ({**join_message(game), "token": "guess"}, "forbidden", "needs its token"),
            ({"type": "join", "game": game}, "forbidden", "needs its token"),
            ({**join_message(game), "seat": "W"}, "bad_seat", "played by a bot"),
        ]
        led = view["trick"][0]["card"][1] if view["trick"] else None
        if led and any(c[1] == led for c in view["hand"]):
            off = next((c for c in view["hand"] if c[1] != led), None)
            if off:
                cases.append(({"type": "play", "card": off}, "illegal", "must follow suit"))
        for msg, code, text in cases:
            ws.send_json(msg)
            reply = ws.receive_json()
            assert reply["type"] == "error", (msg, reply)
            assert reply["code"] == code, (msg, reply)
            assert text in reply["message"], (msg, reply)
        assert stored(client, game) == before


def all_human_table(client: TestClient) -> str:
    tables = server_of(client).tables
    table = tables.create("felagsvist", {}, seed=3, seats={s: HUMAN for s in range(4)})
    game_id: str = table.id
    for s, token in table.tokens.items():
        TOKENS[game_id, "NESW"[s]] = token
    return game_id


def test_out_of_turn_and_following_suit(client: TestClient) -> None:
    game = all_human_table(client)
    with client.websocket_connect("/ws") as ws:
        view = join(ws, game)["view"]
        to_play = view["to_play"]
        wrong = next(s for s in "NESW" if s != to_play)
        before = stored(client, game)
        view_wrong = join(ws, game, seat=wrong)["view"]
        ws.send_json({"type": "play", "card": view_wrong["hand"][0]})
        reply = ws.receive_json()
        assert reply["code"] == "not_your_turn"
        assert f"it is {to_play}'s turn, not {wrong}'s" in reply["message"]
        assert stored(client, game) == before
        # the leader leads; the next seat tries to discard while holding the led suit
        view = join(ws, game, seat=to_play)["view"]
        lead = view["hand"][0]
        ws.send_json({"type": "play", "card": lead})
        ack = receive_until(ws, lambda m: m["type"] in ("ack", "error"))
        assert ack["type"] == "ack"
        nxt = "NESW"[(parse_seat(to_play) + 1) % 4]
        view = join(ws, game, seat=nxt, since=ack["v"])["view"]
        assert view["trick"] == [{"seat": to_play, "card": lead}]
        follow = [c for c in view["hand"] if c[1] == lead[1]]
        other = [c for c in view["hand"] if c[1] != lead[1]]
        if follow and other:
            before = stored(client, game)
            ws.send_json({"type": "play", "card": other[0]})
            reply = ws.receive_json()
            assert reply["code"] == "illegal"
            assert "must follow suit" in reply["message"]
            assert stored(client, game) == before
            assert sorted(view["legal"], key=str) == sorted(
                ({"type": "play", "card": c} for c in follow), key=str
            )


def test_a_bot_seat_can_be_neither_joined_nor_played(client: TestClient) -> None:
    game = new_game(client)
    before = stored(client, game)
    with client.websocket_connect("/ws") as ws:
        TOKENS[game, "N"] = TOKENS[game, "S"]  # even with a real token of the game
        reply = join(ws, game, seat="N")
        assert reply["type"] == "error" and reply["code"] == "bad_seat"
        assert "seat N is played by a bot" in reply["message"]
        ws.send_json({"type": "play", "card": "AS"})
        assert ws.receive_json()["code"] == "not_joined"
    table = server_of(client).tables.get(game)
    north_card = table.view_of(0)["hand"][0]
    with pytest.raises(TableError) as err:
        table.act(0, parse_card(north_card))
    assert err.value.code == "bad_seat"
    assert stored(client, game) == before


def test_actions_after_the_end(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect("/ws") as ws:
        join(ws, game)
        final = play_game(ws)
        before = stored(client, game)
        ws.send_json({"type": "play", "card": "AS"})
        reply = ws.receive_json()
        assert reply["code"] == "game_over", reply
        assert final["winner"] in reply["message"]
    assert stored(client, game) == before


def test_http_errors(client: TestClient) -> None:
    for body, text in [
        ({"variant": "chess"}, "unknown variant"),
        ({"options": {"colour": "red"}}, "unknown option"),
        ({"options": {"nolo_aces_low": "yes"}}, "true or false"),
        ({"level": "grandmaster"}, "unknown bot level"),
        ({"seed": "abc"}, "'seed' must be an integer"),
        ({"seed": 10**30}, "'seed' must be an integer"),
        ({"seed": -1}, "'seed' must be an integer"),
        ({"options": []}, "'options' must be an object"),
        ({"level": []}, "unknown bot level []"),
        ({"level": ""}, "unknown bot level ''"),
        ({"level": 0}, "unknown bot level 0"),
        ({"varient": "swedish"}, "unknown field 'varient'; known: variant, options, level"),
        ({"seeds": 1, "lvl": "club"}, "unknown fields 'lvl', 'seeds'"),
    ]:
        r = client.post("/api/games", json=body)
        assert r.status_code == 400 and text in r.json()["error"], (body, r.text)
    for raw, text in [(b"{", "must be JSON"), (b"[" * 50_000, "nested too deeply")]:
        r = client.post("/api/games", content=raw, headers={"content-type": "application/json"})
        assert r.status_code == 400 and text in r.json()["error"], (raw[:10], r.text)
    assert server_of(client).store.list() == []  # no refused body made a game
    assert client.get("/api/games/zzz/record").status_code == 404
    game = new_game(client)
    r = client.get(f"/api/games/{game}/record")
    assert r.status_code == 409 and "not finished" in r.json()["error"]


def test_the_games_list_names_only_the_games_asked_for(client: TestClient) -> None:
    """Nobody lists the games of others: ``GET /api/games`` answers for the ids named
    (the page names the games its browser took part in), and refuses a bare list."""
    mine, theirs = new_game(client), new_game(client)
    r = client.get("/api/games")
    assert r.status_code == 400 and "name the games to list" in r.json()["error"]
    assert [g["id"] for g in client.get(f"/api/games?ids={mine}").json()] == [mine]
    both = client.get(f"/api/games?ids={mine},{theirs},unknown1").json()
    assert {g["id"] for g in both} == {mine, theirs}
    assert client.get("/api/games?ids=").json() == []
    for ids, text in [
        ("a b", "'a b', which is not a game id"),
        (",".join(["x"] * 201), "at most 200 games"),
        ("x" * 13_000, "at most 200 games"),  # 200 ids of 64 characters and commas
    ]:
        r = client.get("/api/games", params={"ids": ids})
        assert r.status_code == 400 and text in r.json()["error"], (ids[:20], r.text)
    r = client.get("/api/games?ids=ok,%ED%A0%80")  # not UTF-8
    assert r.status_code == 400 and "which is not a game id" in r.json()["error"], r.text


# -- catching up and persistence ---------------------------------------------------------------


def test_reconnect_catches_up_without_gaps(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect("/ws") as ws:
        seen = play_actions(ws, 5, join(ws, game))["v"]
    # a client that saw version 2 gets every later event, numbered without a gap
    with client.websocket_connect("/ws") as ws:
        ws.send_json(join_message(game, since=2))
        msgs = []
        while True:
            m = ws.receive_json()
            msgs.append(m)
            if m["type"] == "state":
                break
    versions = [m["v"] for m in msgs if m["type"] == "event"]
    assert versions == list(range(3, msgs[-1]["v"] + 1))
    assert msgs[-1]["v"] >= seen


def test_restart_on_same_database_continues(db_path: Path) -> None:
    app = create_app(db_path, bot_delay=0)
    with TestClient(app) as c, c.websocket_connect("/ws") as ws:
        game = new_game(c)
        m = play_actions(ws, 20, join(ws, game))
        before = m["view"]
        v_before = m["v"]
    app2 = create_app(db_path, bot_delay=0)
    with TestClient(app2) as c2, c2.websocket_connect("/ws") as ws2:
        after = join(ws2, game)
        assert after["v"] == v_before
        assert after["view"] == before


# -- nothing hidden leaves the server ------------------------------------------------------------


def split_parts(msg: dict[str, Any]) -> tuple[dict[str, Any], list[Any], list[Any]]:
    """A message split into three: what is about the hand in play, its public information
    (turned card, revealed bottom cards), and the finished hands' results."""
    msg = json.loads(json.dumps(msg))
    parts: list[Any] = []
    results: list[Any] = []
    view = msg.get("view")
    if view is not None:
        parts.append(view.pop("public", None))
        results.append(view.pop("results", []))
    event = msg.get("event")
    if event is not None:
        if "turned" in event:
            parts.append(event.pop("turned"))
        if event.get("type") == "hand_end":
            results.append(event.pop("result"))
    return msg, parts, results


def revealed_bottom_cards(record: dict[str, Any], hand: dict[str, Any]) -> set[str]:
    """The bottom cards of a recorded Swedish hand that the reveal showed everyone."""
    bottom = hand.get("bottom")
    if not bottom:
        return set()
    committed = tuple(parse_card(bottom["NESW"[s]]) for s in range(4))
    forehand = (parse_seat(hand["dealer"]) + 1) % 4
    simultaneous = bool(record.get("options", {}).get("sw_simultaneous_reveal"))
    return {card_name(committed[s]) for s in reveal(committed, forehand, simultaneous)}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_no_hidden_card_reaches_a_seat(db_path: Path, variant: str) -> None:
    """Every message to S during a whole game shows only S's cards and the cards played,
    plus, in the public information, the turned-up card and the revealed bottom cards.

    A finished hand's result may name any card of that hand (its turned card, the bottom
    cards): by then every card of it was played. Results are checked against what S had
    seen by the end of their hands, never against the hand in play.
    """
    app = create_app(db_path, bot_delay=0)
    log: list[dict[str, Any]] = []
    with TestClient(app) as c, c.websocket_connect("/ws") as ws:
        game = new_game(c, seed=2024, variant=variant)
        ws.send_json(join_message(game))
        play_game(ws, log=log)
        table = server_of(c).tables.get(game)
        record = json.loads(table.record_json())
    # what S may know after each version: its own hand as dealt and this hand's plays
    allowed_at: list[set[str]] = [set()]
    public_at: list[set[str]] = [set()]
    finished_at: list[set[str]] = [set()]  # the cards of the hands finished so far
    known: set[str] = set()
    public: set[str] = set()
    finished: set[str] = set()
    hand_index = -1
    actions = 0
    south = parse_seat("S")
    for event in table.events:
        pub = event_public(event) or {}
        if pub.get("type") == "deal":
            hand_index += 1
            hand = record["hands"][hand_index]
            deal = loads(json.dumps({**record, "hands": [hand]})).hands[0]
            known = {card_name(c) for c in range(52) if deal.hands[south] >> c & 1}
            public = {hand["turned"]} if hand.get("turned") else set()
            actions = 0
        elif pub.get("type") == "action":
            actions += 1
            if actions == 4:  # the fourth bottom card: the reveal
                public |= revealed_bottom_cards(record, hand)
        elif pub.get("type") == "play":
            known.add(pub["card"])
        elif pub.get("type") == "hand_end":
            assert len(known) == 52  # every card of a finished hand was seen
            finished |= known
        allowed_at.append(set(known))
        public_at.append(set(public))
        finished_at.append(set(finished))
    assert hand_index + 1 == len(record["hands"])
    checked = 0
    for msg in log:
        if "v" not in msg:
            continue
        v = msg["v"]
        private, parts, results = split_parts(msg)
        extra = card_codes(private) - allowed_at[v]
        assert not extra, (v, sorted(extra), msg.get("event"))
        extra = card_codes(parts) - allowed_at[v] - public_at[v]
        assert not extra, (v, sorted(extra), parts)
        extra = card_codes(results) - finished_at[v]
        assert not extra, (v, sorted(extra), results)
        checked += 1
    assert checked > 50
    assert any(has_view(m) for m in log)


def test_an_action_that_cannot_be_stored_is_not_applied(client: TestClient) -> None:
    game = new_game(client)
    store = server_of(client).store
    with client.websocket_connect("/ws") as ws:
        view = play_actions(ws, 0, join(ws, game))
        before = stored(client, game)
        real_submit = store.submit_async

        def failing_submit(ops: Any, fence: Any = None) -> asyncio.Future[None]:
            failed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            failed.set_exception(StoreError("disk I/O error"))
            return failed

        store.submit_async = failing_submit
        try:
            ws.send_json(view["view"]["legal"][0])
            reply = receive_until(ws, lambda m: m["type"] in ("ack", "error"))
        finally:
            store.submit_async = real_submit
        assert reply["code"] == "storage" and "disk I/O error" in reply["message"]
        assert stored(client, game) == before
        again = join(ws, game)
        assert again["v"] == view["v"] and again["view"] == view["view"]
        ws.send_json(view["view"]["legal"][0])
        assert receive_until(ws, lambda m: m["type"] in ("ack", "error"))["type"] == "ack"


def test_idle_tables_are_freed_and_resumed(db_path: Path) -> None:
    with TestClient(create_app(db_path, bot_delay=0, idle_seconds=0)) as client:
        game = new_game(client)
        tables = server_of(client).tables
        with client.websocket_connect("/ws") as ws:
            first = play_actions(ws, 3, join(ws, game))
            assert game in tables.tables
        # the socket closed and no bot is to act: the table leaves memory, not the store
        for _ in range(500):
            if game not in tables.tables:
                break
            time.sleep(0.01)
        assert game not in tables.tables
        with client.websocket_connect("/ws") as ws:
            again = join(ws, game)
            assert again["v"] == first["v"] and again["view"] == first["view"]
            assert game in tables.tables


def test_a_swedish_result_names_the_revealed_seats_not_cards() -> None:
    """The result's ``revealed`` are the seats whose bottom cards were turned up (issue 32:
    the page says them with their cards); as "cards" they were 2S, 3S... for seats 0, 1."""
    r = HandResult(
        number=1,
        dealer=0,
        leader=1,
        contract=spel_contract(2),
        tricks=(8, 5),
        points=(2, 0),
        score=(2, 0),
        extra={"declarer": 2, "bottom": (13, 27, 0, 40), "revealed": (1, 2)},
    )
    extra = result_json(r)["extra"]
    assert extra["revealed"] == ["E", "S"]
    assert extra["bottom"] == [card_name(c) for c in (13, 27, 0, 40)]
    assert extra["declarer"] == "S"
