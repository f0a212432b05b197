"""Shared tables (issue 22): creating and summarising them over HTTP, QR codes, names,
the chat and its limits, stand-ins on a timeout or an absence, coming back on another
device, a second socket taking a seat over, the host's operations, laws mode with two
people."""

from __future__ import annotations

import asyncio
import random
import unicodedata
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from whistkit.cards import SUIT_MASKS, card_name, iter_cards, parse_card
from whistkit.seats import parse_seat
from whistkit.server.protocol import ProtocolError, read_chat, read_name
from whistkit.server.shared import CHAT_LINES, SharedTable
from whistkit.server.table import event_public
from whistkit.variants.laws import Expose

from .helpers import receive_until
from .shared_helpers import Client, make_server, new_table, play_out, settle

pytestmark = pytest.mark.timeout(120)

Body = Callable[[Any], Awaitable[None]]


def run(db: Path, body: Callable[..., Awaitable[None]], turn_scale: float = 1.0) -> None:
    """Run ``body(server)`` on a fresh in-process server."""

    async def main() -> None:
        server = make_server(db, turn_scale)
        try:
            await body(server)
        finally:
            await server.close()

    asyncio.run(main())


async def seated(
    server: Any, seats: dict[str, str], **body: Any
) -> tuple[SharedTable, dict[str, Any], dict[str, Client]]:
    """A shared table with ``seats`` (N, E, W) and a client per person seat (S, the host,
    included), each joined with a name; the table, the creation answer, the clients."""
    table, made = await new_table(server, seats=seats, **body)
    clients = {}
    for seat in ["S", *[s for s, who in seats.items() if who == "person"]]:
        c = clients[seat] = Client(server)
        token = made["token"] if seat == "S" else made["tokens"][seat]
        assert (await c.join(made["game"], seat, token, name=f"P{seat}"))["type"] == "state"
    return table, made, clients


async def until_true(pred: Callable[[], bool], clients: list[Client], rounds: int = 5000) -> None:
    for _ in range(rounds):
        for c in clients:
            c.drain()
        if pred():
            return
        await settle(2)
    raise AssertionError("never happened")


# -- HTTP ---------------------------------------------------------------------------------


def test_create_a_table_summarise_it_and_its_qr_codes(client: TestClient) -> None:
    body = {
        "variant": "swedish",
        "level": "club",
        "seats": {"N": "person", "E": "beginner", "W": "person"},
        "timeout": 60,
        "watch_hands": True,
        "name": "  Anna   Sigga ",
    }
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    made = r.json()
    game = made["game"]
    assert made["seat"] == "S" and made["name"] == "Anna Sigga"
    assert sorted(made["invites"]) == ["N", "W"] and sorted(made["tokens"]) == ["N", "W"]
    tokens = [made["token"], made["watch_token"], *made["tokens"].values()]
    assert len(set(tokens)) == 4 and all(len(t) >= 22 for t in tokens)  # >= 128 bits
    # the tokens in the fragment, which no proxy logs (issue 32, item 18)
    assert made["invites"]["N"] == (f"http://127.0.0.1/?join={game}&seat=N#t={made['tokens']['N']}")
    assert made["watch"] == f"http://127.0.0.1/?watch={game}#t={made['watch_token']}"
    # the summary, for any of the table's tokens, says whose it is
    for token, you in [(made["token"], "S"), (made["tokens"]["W"], "W"), (tokens[1], "watch")]:
        r = client.get(f"/api/tables/{game}", params={"t": token})
        assert r.status_code == 200, r.text
        summary = r.json()
        assert summary["you"] == you
    assert summary["variant"] == "swedish" and summary["level"] == "club"
    assert summary["timeout"] == 60 and summary["watch_hands"] is True
    assert summary["started"] is False and summary["finished"] is False
    assert summary["seats"]["S"] == {
        "kind": "person",
        "name": "Anna Sigga",
        "connected": False,
        "standin": False,
        "level": None,
    }
    assert summary["seats"]["E"]["kind"] == "bot" and summary["seats"]["E"]["level"] == "beginner"
    # a wrong token, a solo game, an unknown game: the same 404
    solo = client.post("/api/games", json={}).json()
    for path, token in [
        (game, made["token"][:-1] + "x"),
        (game, ""),
        (solo["id"], solo["token"]),
        ("nosuchgame", made["token"]),
    ]:
        assert client.get(f"/api/tables/{path}", params={"t": token}).status_code == 404
    # a QR code of the server's own links only, of bounded length
    r = client.get("/api/qr", params={"u": made["invites"]["N"]})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.content.lstrip().startswith(b"<svg") and b"<script" not in r.content
    for url in ["https://evil.example/?join=x", "javascript:alert(1)", ""]:
        r = client.get("/api/qr", params={"u": url})
        assert r.status_code == 400 and "URL of this server" in r.json()["error"]
    r = client.get("/api/qr", params={"u": "http://127.0.0.1/" + "a" * 600})
    assert r.status_code == 400 and "at most 512" in r.json()["error"]


@pytest.mark.parametrize(
    ("body", "wanted"),
    [
        ({"seed": 7}, "takes no 'seed'"),
        ({"seats": {"S": "person"}}, "the host sits at S"),
        ({"seats": {"N": "human"}}, "must be 'person' or a bot level"),
        ({"seats": ["N"]}, "'seats' must be an object"),
        ({"timeout": 45}, "'timeout' must be one of 0, 30, 60, 120"),
        ({"timeout": True}, "'timeout' must be one of"),
        ({"watch_hands": "yes"}, "'watch_hands' must be true or false"),
        ({"name": "a\u0000b"}, "U+0000"),
        ({"name": "x" * 25}, "at most 24"),
        ({"name": "   "}, "empty"),
        ({"level": "grandmaster"}, "unknown bot level"),
        ({"variant": "bridge"}, "bridge"),
        ({"options": {"nope": 1}}, "nope"),
        ({"colour": "red"}, "unknown field 'colour'"),
    ],
)
def test_a_bad_table_is_refused_with_its_reason(
    client: TestClient, body: dict[str, Any], wanted: str
) -> None:
    r = client.post("/api/tables", json={"seats": {"N": "person"}, **body})
    assert r.status_code == 400, r.text
    assert wanted in r.json()["error"]


def test_a_second_socket_takes_the_seat_over_and_the_first_is_closed(
    client: TestClient,
) -> None:
    made = client.post(
        "/api/tables", json={"seats": {"N": "person", "E": "beginner", "W": "beginner"}}
    ).json()
    join_n = {
        "type": "join",
        "game": made["game"],
        "seat": "N",
        "token": made["tokens"]["N"],
        "name": "Nói",
    }
    with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
        a.send_json(join_n)
        receive_until(a, lambda m: m["type"] == "seats")
        b.send_json({**join_n, "name": "Nói (phone)"})
        receive_until(b, lambda m: m["type"] == "seats")
        replaced = receive_until(a, lambda m: m["type"] == "error")
        assert replaced["code"] == "replaced"
        with pytest.raises(WebSocketDisconnect):
            for _ in range(100):
                a.receive_json()
        b.send_json({"type": "ping"})
        assert receive_until(b, lambda m: m["type"] in ("pong", "error"))["type"] == "pong"
    table = client.app.state.server.tables.loaded(made["game"])  # type: ignore[attr-defined]
    assert table.shared.names[parse_seat("N")] == "Nói (phone)"


# -- the chat -------------------------------------------------------------------------------


def test_chat_is_text_bounded_and_rate_limited(db_path: Path) -> None:
    async def body(server: Any) -> None:
        table, made, people = await seated(
            server, {"N": "person", "E": "beginner", "W": "beginner"}
        )
        watcher = Client(server)
        assert (await watcher.watch(made["game"], made["watch_token"]))["type"] == "state"
        s, n = people["S"], people["N"]
        now = [1000.0]
        table.clock = lambda: now[0]
        html = '<b>hi</b><script>alert("x")</script> & <img src=x onerror=alert(1)>'
        assert (await s.ask({"type": "chat", "text": html}))["type"] == "ack"
        for c in (s, n, watcher):
            line = [m for m in c.drain() + c.log if m["type"] == "chat"][-1]
            assert line["text"] == html  # as sent: the page shows it as text
            assert line["seat"] == "S" and line["name"] == "PS"
        # 200 characters pass, the 201st is refused with the reason
        assert (await n.ask({"type": "chat", "text": "é" * 200}))["type"] == "ack"
        too_long = await n.ask({"type": "chat", "text": "é" * 201})
        assert too_long["code"] == "chat_too_long" and "201 characters" in too_long["message"]
        assert "at most 200" in too_long["message"]
        # at most 10 lines in 10 s per seat: N sent one, 9 more pass, the next is refused
        for i in range(CHAT_LINES - 1):
            answer = await n.ask(
                {"type": "chat", "phrase": "well_played"}
                if i % 2
                else {"type": "chat", "text": f"line {i}"}
            )
            assert answer["type"] == "ack", answer
        refused = await n.ask({"type": "chat", "text": "one more"})
        assert refused["code"] == "chat_rate"
        assert "at most 10 chat lines in 10 seconds" in refused["message"]
        assert "wait" in refused["message"]
        assert not [m for m in n.log if m.get("text") == "one more"]
        # another seat is not limited by N's lines; N may write again once 10 s passed
        assert (await s.ask({"type": "chat", "phrase": "thanks_partner"}))["type"] == "ack"
        now[0] += 9.5
        assert (await n.ask({"type": "chat", "text": "still"}))["code"] == "chat_rate"
        now[0] += 0.5
        assert (await n.ask({"type": "chat", "text": "again"}))["type"] == "ack"
        # what is not a line of text, or not a phrase, or not from a player
        for msg, code in [
            ({"type": "chat", "text": "   "}, "chat_empty"),
            ({"type": "chat", "text": "a\nb"}, "chat_bad_text"),
            ({"type": "chat", "text": "a\u202eb"}, "chat_bad_text"),
            ({"type": "chat", "text": "\ud800"}, "chat_bad_text"),
            ({"type": "chat", "phrase": "insult"}, "malformed"),
            ({"type": "chat", "text": "a", "phrase": "sorry"}, "malformed"),
            ({"type": "chat"}, "malformed"),
            ({"type": "chat", "text": ["a"]}, "malformed"),
            ({"type": "chat", "text": "a", "x": 1}, "malformed"),
        ]:
            assert (await s.ask(msg))["code"] == code, msg
        assert (await watcher.ask({"type": "chat", "text": "hi"}))["code"] == "chat_forbidden"
        # a late joiner gets the last lines
        late = Client(server)
        await late.watch(made["game"], made["watch_token"])
        assert [m.get("text") for m in late.log if m["type"] == "chat"][-1] == "again"

    run(db_path, body)


def test_chat_and_host_messages_at_a_solo_game(client: TestClient) -> None:
    game = client.post("/api/games", json={}).json()
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "chat", "text": "hi"})
        assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "not_joined"
        ws.send_json(
            {"type": "join", "game": game["id"], "seat": "S", "token": game["token"], "name": "A"}
        )
        receive_until(ws, lambda m: m["type"] == "state")
        for msg in ({"type": "chat", "phrase": "hello"}, {"type": "host", "op": "end"}):
            ws.send_json(msg)
            assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "not_shared"
        ws.send_json({"type": "watch", "game": game["id"], "token": game["token"]})
        assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "not_shared"


# -- stand-ins --------------------------------------------------------------------------------


def test_a_person_out_of_time_has_that_card_played_by_a_bot(db_path: Path) -> None:
    """The table's time is 30 s, scaled down to 0.3 s: S waits on its turn; a bot of the
    table's level plays that one card, the seat says so, and S plays its next card itself."""

    async def body(server: Any) -> None:
        table, _, people = await seated(
            server, {"N": "person", "E": "beginner", "W": "beginner"}, timeout=30
        )
        s, n = people["S"], people["N"]
        south = parse_seat("S")

        async def wait_for_s_turn() -> None:  # N plays when it is to, S does nothing
            await play_out(
                table,
                [n],
                [s],
                random.Random(1),
                until=lambda t: t.state.to_play == south,
                stale_ok=True,  # (should this machine be slower than 0.3 s)
            )

        await wait_for_s_turn()
        held = table.state.holdings[south].bit_count()
        await until_true(lambda: table.state.holdings[south].bit_count() < held, [s, n])
        seats_msgs = [m for m in s.log if m["type"] == "seats"]
        assert any(m["seats"]["S"]["standin"] for m in seats_msgs)
        assert seats_msgs[-1]["seats"]["S"]["connected"] is True
        await until_true(lambda: not s.seats()["seats"]["S"]["standin"], [s, n])
        # S's next turn: S plays it itself, in time
        for _ in range(3):
            await wait_for_s_turn()
            s.drain()
            assert s.view is not None and s.view["to_play"] == "S"
            answer = await s.ask({**s.view["legal"][0], "v": s.v})
            if answer.get("code") != "stale":  # (once more if this machine is that slow)
                break
        assert answer["type"] == "ack"

    run(db_path, body, turn_scale=0.01)


def test_an_absent_person_comes_back_on_another_device_at_the_same_card(db_path: Path) -> None:
    """N closes its page: on its turn, after the grace for the absent (30 s, scaled down
    to 15 ms), a bot plays for N until N opens its link again on another device, with the
    last version it saw; N catches up without a gap, its hand as the table holds it, and
    plays on itself (the table has no turn time: the people present are never hurried)."""

    async def body(server: Any) -> None:
        table, made, people = await seated(
            server, {"N": "person", "E": "beginner", "W": "beginner"}
        )
        s, n = people["S"], people["N"]
        north = parse_seat("N")

        def plays_of_n() -> int:
            return sum(1 for e in table.events if (event_public(e) or {}).get("seat") == "N")

        await play_out(table, [s, n], [], random.Random(2), until=lambda t: t.version >= 6)
        n.drain()
        last_seen = n.v
        n.conn.close()  # the page is gone
        await settle()
        s.drain()
        assert s.seats()["seats"]["N"]["connected"] is False
        # S plays on; N's cards are played by the stand-in
        before = plays_of_n()
        await play_out(table, [s], [], random.Random(3), until=lambda t: plays_of_n() >= before + 2)
        assert s.seats()["seats"]["N"]["standin"] is True
        # back on a phone: the events it missed, then its view
        phone = Client(server)
        answer = await phone.join(made["game"], "N", made["tokens"]["N"], since=last_seen)
        assert answer["type"] == "state"
        versions = [m["v"] for m in phone.log if m["type"] == "event"]
        assert versions == list(range(last_seen + 1, answer["v"] + 1))
        hand = {parse_card(c) for c in answer["view"]["hand"]}
        assert hand == set(iter_cards(table.state.holdings[north]))
        assert phone.seats()["seats"]["N"] == {
            "kind": "person",
            "name": "PN",
            "connected": True,
            "standin": False,
            "level": None,
        }
        # from now on N's cards are N's: every N card after this is acknowledged to N
        before = plays_of_n()
        await play_out(
            table, [s, phone], [], random.Random(4), until=lambda t: plays_of_n() >= before + 4
        )
        n_acks = sum(1 for m in phone.log if m["type"] == "ack")
        assert plays_of_n() - before == n_acks >= 4

    run(db_path, body, turn_scale=0.0005)


def test_rejoining_a_seat_from_another_connection_splits_nothing(db_path: Path) -> None:
    """A and B take N in turns, each acting at once: every action acknowledged is
    stored, once; the table stays one; the connection replaced is told and let go."""

    async def body(server: Any) -> None:
        table, made, people = await seated(
            server, {"N": "person", "E": "beginner", "W": "beginner"}
        )
        s = people["S"]
        a, b = people["N"], Client(server)
        acks = 0
        for turn in range(8):
            holder, other = (b, a) if turn % 2 == 0 else (a, b)
            answer = await holder.join(made["game"], "N", made["tokens"]["N"], since=holder.v)
            assert answer["type"] == "state"
            other.drain()
            assert other.errors()[-1]["code"] == "replaced" and other.conn.kicked.is_set()
            other.conn.kicked.clear()
            assert (await other.ask({"type": "ping"}))["type"] == "pong"
            assert (await other.ask({"type": "play", "card": "2C"}))["code"] == "not_joined"
            # play on until N is to act, then act at once
            await play_out(
                table,
                [s],
                [holder],
                random.Random(turn),
                until=lambda t: t.state.to_play == parse_seat("N"),
            )
            holder.drain()
            assert holder.view is not None
            if holder.view["to_play"] == "N" and holder.view["legal"]:
                answer = await holder.ask({**holder.view["legal"][0], "v": holder.v})
                assert answer["type"] == "ack", answer
                acks += 1
        assert acks >= 4
        assert server.tables.loaded(made["game"]) is table
        # once the bots wait for a person: every action applied is stored, once
        await until_true(
            lambda: not table.busy and table.bot_level(table.state.to_play) is None, [s]
        )
        stored = server.store.actions(made["game"])
        assert len(stored) == table.logged == len(table.state.actions())
        assert server.store.get(made["game"]).version == table.version

    run(db_path, body)


# -- the host -------------------------------------------------------------------------------


def test_the_host_starts_turns_seats_into_bots_reopens_them_and_ends(db_path: Path) -> None:
    async def body(server: Any) -> None:
        table, made = await new_table(server, seats={"N": "person", "E": "person", "W": "beginner"})
        game = made["game"]
        host, n = Client(server), Client(server)
        await host.join(game, "S", made["token"], name="Host")
        await n.join(game, "N", made["tokens"]["N"], name="Nonni")
        assert host.seats()["started"] is False
        # before the start nobody plays, and only the host may start
        host.drain()
        if host.view and host.view["legal"] and host.view["to_play"] == "S":
            assert (await host.ask(host.view["legal"][0]))["code"] == "not_started"
        assert (await n.ask({"type": "host", "op": "start"}))["code"] == "forbidden"
        assert (await host.ask({"type": "host", "op": "bot", "seat": "S"}))["code"] == "bad_seat"
        assert (await host.ask({"type": "host", "op": "bot"}))["code"] == "malformed"
        assert (await host.ask({"type": "host", "op": "start"}))["type"] == "ack"
        seats = host.seats()
        assert seats["started"] is True and seats["seats"]["E"]["standin"] is True
        # a stand-in plays for E, who has not come
        east = parse_seat("E")
        await play_out(
            table,
            [host, n],
            [],
            random.Random(5),
            until=lambda t: t.state.holdings[east].bit_count() < 13 and t.state.to_play != east,
        )
        # E arrives and takes the seat over
        e = Client(server)
        assert (await e.join(game, "E", made["tokens"]["E"], name="Eva"))["type"] == "state"
        assert e.seats()["seats"]["E"]["standin"] is False
        assert host.drain() is not None and host.seats()["seats"]["E"]["name"] == "Eva"
        # the host turns E into a bot: E is let go, its link stops working
        assert (await host.ask({"type": "host", "op": "bot", "seat": "E"}))["type"] == "ack"
        e.drain()
        assert e.errors()[-1]["code"] == "seat_closed" and e.conn.kicked.is_set()
        assert host.seats()["seats"]["E"]["kind"] == "bot"
        e2 = Client(server)
        assert (await e2.join(game, "E", made["tokens"]["E"]))["code"] == "bad_seat"
        # and reopens it: a new link, the old one refused
        answers = await host.send({"type": "host", "op": "reopen", "seat": "E"})
        invite = next(m for m in answers if m["type"] == "invite")
        assert invite["seat"] == "E" and invite["token"] != made["tokens"]["E"]
        assert invite["url"] == f"http://127.0.0.1:8000/?join={game}&seat=E#t={invite['token']}"
        assert (await e2.join(game, "E", made["tokens"]["E"]))["code"] == "forbidden"
        assert (await e2.join(game, "E", invite["token"], name="Edda"))["type"] == "state"
        assert e2.seats()["seats"]["E"]["name"] == "Edda"
        # the host ends the table: no more actions, everyone is told
        assert (await host.ask({"type": "host", "op": "end"}))["type"] == "ack"
        for c in (host, n, e2):
            c.drain()
            assert c.seats()["ended"] is True
        version = table.version
        for c in (host, n, e2):
            if c.view and c.view["legal"]:
                answer = await c.ask({**c.view["legal"][0], "v": c.v})
                assert answer["code"] in ("table_ended", "not_your_turn"), answer
        await settle()
        assert table.version == version  # no bot plays on either
        assert (await host.ask({"type": "host", "op": "start"}))["code"] == "table_ended"
        # the ended table and its names survive a restart
        stored = server.store.get(game)
        assert stored.seats["E"] == "human" and stored.tokens["E"] == invite["token"]

    run(db_path, body)


def test_the_table_starts_when_its_people_have_come(db_path: Path) -> None:
    async def body(server: Any) -> None:
        table, made = await new_table(server, seats={"N": "person", "E": "club", "W": "club"})
        host, n = Client(server), Client(server)
        await host.join(made["game"], "S", made["token"])
        assert host.seats()["started"] is False
        await n.join(made["game"], "N", made["tokens"]["N"])
        host.drain()
        assert host.seats()["started"] is True
        assert host.seats()["seats"]["S"]["name"] == "Host"  # kept from the creation
        assert host.seats()["seats"]["N"]["name"] is None  # no name given yet
        await play_out(table, [host, n], [], random.Random(6), until=lambda t: t.version > 20)

    run(db_path, body)


# -- laws mode with two people ---------------------------------------------------------------


def test_laws_a_person_claims_a_persons_revoke_and_calls_an_exposed_card(db_path: Path) -> None:
    """English laws, people at S and E: E revokes and nobody corrects it; at the end of
    the hand S, for N-S, claims it. In the next hand E exposes a card and S, an opponent
    and a person, calls it; E's partner W (a bot) cannot, nor can E."""

    async def body(server: Any) -> None:
        table, _, people = await seated(
            server,
            {"N": "beginner", "E": "person", "W": "beginner"},
            variant="english",
            options={"play_mode": "laws", "auto_claim": False},
        )
        s, e = people["S"], people["E"]
        done: dict[str, Any] = {}

        async def choose(c: Client, view: dict[str, Any]) -> dict[str, Any] | None:
            if c is e and "revoke" not in done and view["trick"]:
                led = SUIT_MASKS[parse_card(view["trick"][0]["card"]) // 13]
                hand = {parse_card(x) for x in view["hand"]}
                off = [x for x in hand if not led >> x & 1]
                if off and any(led >> x & 1 for x in hand):
                    done["revoke"] = card_name(off[0])
                    done["hand"] = view["hand_number"]
                    return {"type": "play", "card": card_name(off[0])}
            if c is s and [a.get("action", {}).get("kind") for a in view["legal"]] == [
                "ClaimRevoke",
                "WaiveClaim",
            ]:
                done["claimed"] = table.state.tricks
                return dict(view["legal"][0])
            return None

        await play_out(
            table,
            [s, e],
            [],
            random.Random(7),
            until=lambda t: "claimed" in done and len(t.state.results) >= done["hand"],
            choose_action=choose,
        )
        result = table.state.results[done["hand"] - 1]
        assert result.extra["revokes"][0]["seat"] == "E"
        assert result.extra["revokes"][0]["card"] == done["revoke"]
        assert result.extra["penalised"] == 1
        assert s.errors() == [] and e.errors() == []

        # the next hand: E shows a card by accident (no button offers it)
        east = parse_seat("E")
        exposed = next(iter_cards(table.state.holdings[east]))
        await table.act_async(east, Expose(east, exposed))
        calls: list[dict[str, Any]] = []

        async def call(c: Client, view: dict[str, Any]) -> dict[str, Any] | None:
            return None

        def may_call(t: Any) -> bool:
            s.drain()
            found = [
                a
                for a in (s.view or {}).get("irregular", [])
                if a.get("action", {}).get("kind") == "Call"
            ]
            calls[:] = found
            return bool(found) or t.state.hand_number > 2

        await play_out(table, [s, e], [], random.Random(8), until=may_call, choose_action=call)
        assert calls == [
            {"type": "action", "action": {"kind": "Call", "seat": "S", "card": card_name(exposed)}}
        ]
        e.drain()
        assert not [a for a in e.view["irregular"] if a.get("action", {}).get("kind") == "Call"]
        wrong = {**calls[0]["action"], "seat": "E"}
        assert (await e.ask({"type": "action", "action": wrong}))["type"] == "error"
        assert (await s.ask(calls[0]))["type"] == "ack"
        e.drain()
        assert e.view["public"]["called"] == card_name(exposed)
        assert e.view["to_play"] == "E"
        assert e.view["legal"] == [{"type": "play", "card": card_name(exposed)}]
        assert (await e.ask({**e.view["legal"][0], "v": e.v}))["type"] == "ack"

    run(db_path, body)


# -- the schema of names and chat lines --------------------------------------------------------


@settings(max_examples=120, derandomize=True, database=None)
@given(st.text(st.characters(exclude_categories=()), max_size=260))
def test_any_text_is_a_chat_line_of_plain_text_or_a_refusal_with_a_reason(text: str) -> None:
    try:
        line, phrase = read_chat({"type": "chat", "text": text})
    except ProtocolError as e:
        assert e.code in ("chat_empty", "chat_too_long", "chat_bad_text"), e.code
        assert len(e.message) < 200
        return
    assert phrase is None and line is not None
    assert line == text.strip() and 0 < len(line) <= 200
    assert all(unicodedata.category(c)[0] != "C" for c in line)
    assert "\n" not in line and "\u2028" not in line


@settings(max_examples=120, derandomize=True, database=None)
@given(st.text(st.characters(exclude_categories=()), max_size=40))
def test_any_text_is_a_name_or_a_refusal_with_a_reason(text: str) -> None:
    try:
        name = read_name(text)
    except ProtocolError as e:
        assert e.code == "bad_name" and len(e.message) < 200
        return
    assert name == " ".join(text.split()) and 0 < len(name) <= 24
    assert all(unicodedata.category(c)[0] != "C" for c in name)


# -- watchers ------------------------------------------------------------------------------------


def test_a_watcher_sees_no_hand_plays_nothing_and_sees_hands_only_if_allowed(
    db_path: Path,
) -> None:
    async def body(server: Any) -> None:
        table, made, people = await seated(
            server, {"N": "person", "E": "beginner", "W": "beginner"}, watch_hands=False
        )
        watcher = Client(server)
        assert (await watcher.watch(made["game"], "x" * 22))["code"] == "forbidden"
        assert (await watcher.watch(made["game"], made["token"]))["code"] == "forbidden"
        state = await watcher.watch(made["game"], made["watch_token"])
        assert state["type"] == "state"
        view = state["view"]
        assert view["seat"] is None and view["hand"] == [] and view["legal"] == []
        assert sum(view["hand_sizes"].values()) == 52
        assert people["S"].drain() and people["S"].seats()["watchers"] == 1
        for msg, code in [
            ({"type": "play", "card": "2C"}, "forbidden"),
            ({"type": "hint"}, "forbidden"),
            ({"type": "host", "op": "end"}, "forbidden"),
        ]:
            assert (await watcher.ask(msg))["code"] == code
        await play_out(
            table,
            list(people.values()),
            [watcher],
            random.Random(9),
            until=lambda t: len(t.state.results) >= 1,
        )
        assert not [m for m in watcher.log if m["type"] == "hands"]
        assert any(m.get("event", {}) and m["event"].get("type") == "hand_end" for m in watcher.log)
        # a watcher leaving is counted too
        watcher.conn.close()
        people["S"].drain()
        assert people["S"].seats()["watchers"] == 0

    run(db_path, body)


def test_a_shared_table_survives_a_restart(db_path: Path) -> None:
    """Its settings, names, start and seats come back with it; its tokens still open it."""
    made: dict[str, Any] = {}

    async def first(server: Any) -> None:
        table, answer, people = await seated(
            server, {"N": "person", "E": "club", "W": "person"}, timeout=60, watch_hands=True
        )
        made.update(answer)
        await play_out(
            table, list(people.values()), [], random.Random(10), until=lambda t: t.version > 8
        )
        assert (await people["S"].ask({"type": "host", "op": "bot", "seat": "W"}))["type"] == "ack"
        made["version"] = table.version

    async def second(server: Any) -> None:
        table = await server.tables.open(made["game"])
        assert isinstance(table, SharedTable) and table.shared is not None
        assert table.shared.started and table.shared.timeout == 60 and table.shared.watch_hands
        assert table.shared.names == {parse_seat("S"): "PS", parse_seat("N"): "PN"}
        assert table.seats[parse_seat("W")] == "bot:beginner"
        assert table.version >= made["version"]
        n = Client(server)
        assert (await n.join(made["game"], "N", made["tokens"]["N"]))["type"] == "state"
        assert n.seats()["seats"]["N"]["name"] == "PN"
        assert (await n.join(made["game"], "W", made["tokens"]["W"]))["code"] == "bad_seat"
        watcher = Client(server)
        assert (await watcher.watch(made["game"], made["watch_token"]))["type"] == "state"

    run(db_path, first)
    run(db_path, second)
