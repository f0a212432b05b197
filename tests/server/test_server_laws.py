"""Laws mode through the WebSocket: a revoke and its correction, an exposed card called,
a revoke claimed at the end of the hand (docs/rules.md §6)."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from whistkit.cards import SUIT_MASKS, card_name, iter_cards, parse_card
from whistkit.server.table import HUMAN, Table, event_public
from whistkit.variants.laws import Expose

from .helpers import receive_until, server_of

pytestmark = pytest.mark.timeout(120)

OPTIONS = {"play_mode": "laws", "auto_claim": False}


class Seats:
    """One connection that joins whichever seat of an all-human table is to act."""

    def __init__(self, client: TestClient, ws: Any, variant: str, seed: int) -> None:
        self.tables = server_of(client).tables
        table = self.tables.create(variant, OPTIONS, seed=seed, seats={s: HUMAN for s in range(4)})
        self.id: str = table.id
        self.ws = ws

    @property
    def table(self) -> Table:
        """The game's table in memory (an idle table is freed and resumed as another)."""
        table: Table = self.tables.get(self.id)
        return table

    def view(self, seat: str) -> dict[str, Any]:
        t = self.table
        self.ws.send_json(
            {
                "type": "join",
                "game": t.id,
                "seat": seat,
                "token": t.tokens["NESW".index(seat)],
                "since": t.version,
            }
        )
        msg: dict[str, Any] = receive_until(self.ws, lambda m: m["type"] in ("state", "error"))
        assert msg["type"] == "state", msg
        view: dict[str, Any] = msg["view"]
        return view

    def send(self, seat: str, msg: dict[str, Any]) -> dict[str, Any]:
        self.view(seat)
        self.ws.send_json(msg)
        reply: dict[str, Any] = receive_until(self.ws, lambda m: m["type"] in ("ack", "error"))
        return reply

    def to_play(self) -> str:
        return "NESW"[self.table.state.to_play]

    def play_lawful(self) -> None:
        seat = self.to_play()
        legal = self.view(seat)["legal"]
        assert self.send(seat, legal[0])["type"] == "ack"

    def revoke_chance(self, seat: str) -> tuple[int, int] | None:
        """(a card that revokes, a lawful card) if ``seat`` is to follow and can revoke."""
        s = self.table.state
        if "NESW"[s.to_play] != seat or not s.trick:
            return None
        hand = s.holdings[s.to_play]
        led = SUIT_MASKS[s.trick[0] // 13]
        if hand & led and hand & ~led:
            return next(iter_cards(hand & ~led)), next(iter_cards(hand & led))
        return None


def test_revoke_corrected_and_a_revoke_claimed(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        t = Seats(client, ws, "felagsvist", seed=11)
        # S revokes, sees its revoke and the corrections it may make
        while (chance := t.revoke_chance("S")) is None:
            t.play_lawful()
        bad, good = chance
        lawful_before = t.view("S")["legal"]
        assert {"type": "play", "card": card_name(bad)} not in lawful_before
        assert {"type": "play", "card": card_name(bad)} in t.view("S")["irregular"]
        assert t.send("S", {"type": "play", "card": card_name(bad)})["type"] == "ack"
        view = t.view("S")
        assert view["public"]["your revoke"] == card_name(bad)
        corrections = [a for a in view["irregular"] if a["action"]["kind"] == "Correct"]
        assert {a["action"]["card"] for a in corrections} == {c["card"] for c in lawful_before}
        # the other seats see the revoke as a played card, never as a revoke
        assert "your revoke" not in t.view("E")["public"]
        # a correction with an unlawful card is refused and changes nothing
        version = t.table.version
        wrong = {"kind": "Correct", "seat": "S", "card": card_name(bad)}
        reply = t.send("S", {"type": "action", "action": wrong})
        assert reply["code"] == "illegal" and t.table.version == version
        # E cannot correct S's revoke
        reply = t.send("E", {"type": "action", "action": {**wrong, "seat": "E"}})
        assert reply["type"] == "error" and t.table.version == version
        fix = next(a for a in corrections if a["action"]["card"] == card_name(good))
        assert t.send("S", fix)["type"] == "ack"
        view = t.view("S")
        assert "your revoke" not in view["public"]
        assert card_name(bad) in view["hand"] and card_name(good) not in view["hand"]
        assert {"seat": "S", "card": card_name(good)} in view["trick"] or view["last_trick"]
        # everyone saw the correction as it was made
        event = event_public(t.table.events[-1])
        assert event is not None and event["action"] == fix["action"]

        # later in the hand E revokes and nobody corrects it
        while (chance := t.revoke_chance("E")) is None:
            assert t.table.state.hand_number == 1, "no revoke chance for E in hand 1"
            t.play_lawful()
        bad_e, _ = chance
        assert t.send("E", {"type": "play", "card": card_name(bad_e)})["type"] == "ack"
        while not t.view("S")["legal"] or t.view(t.to_play())["legal"][0]["type"] == "play":
            t.play_lawful()
        # the hand is over: S, for N-S, is asked whether to claim
        view = t.view("S")
        assert view["to_play"] == "S"
        kinds = [a["action"]["kind"] for a in view["legal"]]
        assert kinds == ["ClaimRevoke", "WaiveClaim"]
        tricks = t.table.state.tricks
        reply = t.send("S", view["legal"][0])
        assert reply["type"] == "ack"
        result = t.table.state.results[-1]
        assert result.extra["revokes"] == [
            {"seat": "E", "trick": result.extra["revokes"][0]["trick"], "card": card_name(bad_e)}
        ]
        assert result.extra["penalised"] == 1
        moved = min(3, tricks[1])  # Félagsvist hand 1 (hearts): 3 tricks from E-W to N-S
        assert result.tricks == (tricks[0] + moved, tricks[1] - moved)
        assert t.table.state.hand_number == 2


def test_an_exposed_card_is_called(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        t = Seats(client, ws, "english", seed=3)
        # W shows a card by accident (no button offers that; the engine accepts it)
        w_cards = t.table.state.holdings[3]
        exposed = next(iter_cards(w_cards))
        t.table.act(3, Expose(3, exposed))
        assert t.view("S")["public"]["exposed"] == {"W": [card_name(exposed)]}
        # play on until W is to play and may lawfully play it: S may call it, N too
        for _ in range(60):
            calls = [a for a in t.view("S")["irregular"] if a["action"]["kind"] == "Call"]
            if calls:
                break
            t.play_lawful()
        assert calls == [
            {"type": "action", "action": {"kind": "Call", "seat": "S", "card": card_name(exposed)}}
        ]
        assert t.to_play() == "W"
        # W's partner cannot call it
        reply = t.send("E", {"type": "action", "action": {**calls[0]["action"], "seat": "E"}})
        assert reply["type"] == "error"
        assert t.send("S", calls[0])["type"] == "ack"  # S calls out of turn: W is to play
        view = t.view("W")
        assert view["public"]["called"] == card_name(exposed)
        assert view["legal"] == [{"type": "play", "card": card_name(exposed)}]
        assert t.send("W", view["legal"][0])["type"] == "ack"
        assert parse_card(card_name(exposed)) not in iter_cards(t.table.state.holdings[3])
