"""The views the server sends, made cheaply: the trick and the last trick without walking
the hand, each seat's view made once per position, messages serialised with orjson; the
same content as before."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from whistkit.deal import deal_cards
from whistkit.seats import SEATS
from whistkit.server.limits import Outbox
from whistkit.server.protocol import dumps_message, view_json
from whistkit.server.store import Store
from whistkit.server.table import HUMAN, Table
from whistkit.state import Deal, IllegalAction, State, View, new_game
from whistkit.variants import VARIANTS, variant_of
from whistkit.variants.laws import LeadOutOfTurn, RejectLead


def plays_json(view: View) -> tuple[list[dict[str, str]], dict[str, Any] | None]:
    """The trick and the last trick as the server made them before: from every play of
    the hand, in order (``View.plays``)."""
    plays = [{"seat": SEATS[s], "card": c} for s, c in view.plays()]
    trick = plays[len(plays) - len(view.trick) :]
    last = None
    if view.trick_winners:
        done = len(view.trick_winners)
        last = {
            "number": done,
            "cards": plays[4 * (done - 1) : 4 * done],
            "winner": SEATS[view.trick_winners[-1]],
        }
    return trick, last


def named(cards: list[dict[str, Any]]) -> list[dict[str, str]]:
    from whistkit.cards import card_name

    return [{"seat": p["seat"], "card": card_name(p["card"])} for p in cards]


def next_action(state: State, rng: random.Random) -> Any:
    """A legal action; in laws mode now and then a lead out of turn that is let stand."""
    if state.needs_deal:
        dealt = deal_cards(rng, state.dealer)
        return Deal(dealt.hands, dealt.last_card if variant_of(state).uses_turned_card else None)
    if state.trick == () and rng.random() < 0.3:
        wrong = (state.to_play + rng.randrange(1, 4)) & 3
        for card in range(52):
            try:
                state.check(LeadOutOfTurn(wrong, card))
            except IllegalAction:
                continue
            return LeadOutOfTurn(wrong, card)
    legal = [a for a in state.legal_actions() if not isinstance(a, RejectLead)]
    return rng.choice(legal or list(state.legal_actions()))


@pytest.mark.parametrize(
    ("variant", "options"),
    [(name, {}) for name in VARIANTS] + [("felagsvist", {"play_mode": "laws"})],
)
def test_the_trick_and_the_last_trick_are_those_of_every_play(
    variant: str, options: dict[str, Any]
) -> None:
    rng = random.Random(f"views:{variant}:{options}")
    state = new_game(variant, options, dealer=rng.randrange(4))
    leaders_seen = False
    for _ in range(70):  # a hand and more: the last trick of a hand, then a new hand
        if state.is_over:
            break
        state = state.apply(next_action(state, rng))
        for seat in range(4):
            view = state.view(seat)
            out = view_json(view, {s: "x" for s in range(4)})
            trick, last = plays_json(view)
            assert out["trick"] == named(trick), (variant, seat, view)
            expected_last = None if last is None else {**last, "cards": named(last["cards"])}
            assert out["last_trick"] == expected_last, (variant, seat, view)
            leaders = view.public.get("trick leaders")
            if leaders and any(
                SEATS.index(leaders[t]) != view.trick_winners[t - 1] for t in range(1, len(leaders))
            ):
                leaders_seen = True
    if options:  # laws mode: a trick led out of turn stood, with a leader of its own
        assert leaders_seen


def test_a_seat_s_view_is_made_once_per_position(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.db")
    try:
        table = Table.create(store, "felagsvist", seed=4, seats={s: HUMAN for s in range(4)})
        south = table.view_of(2)
        assert table.view_of(2) is south  # the same position: the same dict
        assert table.view_of(0) is not south and table.view_of(0)["seat"] == "N"
        fresh = view_json(table.state.view(2), table.players())
        assert {k: south[k] for k in fresh} == fresh
        seat = table.state.to_play
        table.act(seat, table.state.legal_actions()[0])
        moved = table.view_of(2)
        assert moved is not south and moved["played_count"] == 1
        assert moved == {
            **view_json(table.state.view(2), table.players()),
            **{k: moved[k] for k in ("match", "irregular", "seeded")},
        }
        # a seat that changes hands changes the names in the view at once
        table.seats[0] = "bot:club"
        assert table.view_of(2)["players"]["N"] == "Bot (club)"
        assert table.view_of(2)["irregular"] == moved["irregular"]
    finally:
        store.close()


@pytest.mark.parametrize(
    "message",
    [
        {"type": "pong"},
        {"type": "error", "code": "malformed", "message": 'café ♥ \u2028 "quoted" \\'},
        {"type": "event", "v": 3, "event": None, "view": {"hand": ["QH"], "score": {"NS": 0}}},
        {"type": "state", "v": 1, "view": {"public": {"1": [2, 3]}, "x": 1.5, "y": True}},
    ],
)
def test_messages_serialise_as_the_standard_library_reads_them(message: dict[str, Any]) -> None:
    assert json.loads(dumps_message(message)) == json.loads(json.dumps(message))


def test_what_orjson_refuses_is_serialised_as_before() -> None:
    big = {"type": "error", "n": 2**70}
    assert json.loads(dumps_message(big)) == big
    lone = {"type": "error", "message": "\ud800"}
    assert dumps_message(lone) == json.dumps(lone, ensure_ascii=False)
    keyed = {"type": "x", "public": {1: "a"}}
    assert json.loads(dumps_message(keyed)) == {"type": "x", "public": {"1": "a"}}


def test_the_outbox_counts_what_its_encoder_makes() -> None:
    box = Outbox(4096, encode=dumps_message)
    box.put_nowait({"type": "pong"})
    assert box.waiting_bytes == len('{"type":"pong"}') and box.qsize() == 1


def test_a_client_gone_before_its_new_game_body_is_no_traceback(tmp_path: Path) -> None:
    """Under load a client may give up while posting a new game (the load benchmark's do
    when they stop): the request ends quietly, nothing is created."""
    import asyncio

    from whistkit.server.app import create_app

    app = create_app(tmp_path / "g.db")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/games",
        "raw_path": b"/api/games",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-type", b"application/json"),
            (b"content-length", b"40"),
        ],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    incoming = [
        {"type": "http.request", "body": b'{"level": "cl', "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def main() -> None:
        try:  # raised ClientDisconnect before (a 500 and a traceback in the log)
            await app(scope, receive, send)
            assert app.state.server.store.list() == []
        finally:
            await app.state.server.close()

    asyncio.run(main())
    assert sent[0]["status"] == 400
