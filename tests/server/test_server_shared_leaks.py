"""Issue 22, done-when 3: whole games at shared tables, every variant and laws mode, three
people and a watcher; every message each of them got is checked for a card that person
or watcher may not know. And the check itself is checked: a leak injected on purpose
fails it."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from whistkit.cards import card_name, parse_card
from whistkit.record import loads
from whistkit.seats import parse_seat
from whistkit.server import table as table_module
from whistkit.server.shared import SharedTable
from whistkit.server.table import Event, Table, event_public

from .helpers import card_codes
from .shared_helpers import Client, make_server, new_table, play_out
from .test_server_protocol import revealed_bottom_cards

pytestmark = pytest.mark.timeout(300)

WATCH = "watch"
GAMES = [
    ("felagsvist", {}),
    ("swedish", {}),
    ("english", {}),
    ("american", {}),
    ("english", {"play_mode": "laws"}),
    ("felagsvist", {"play_mode": "laws"}),
]


class Knowledge:
    """What each seat and a watcher may know after each event version, worked out from
    the table's own events and the finished game's record: per viewer and version, the
    cards of the hand in play it may know (its own hand as dealt, the cards played, the
    public ones: turned card, revealed bottom cards, exposed cards) and the cards of the
    hands already finished (which results and watchers' ``hands`` may name)."""

    def __init__(self, table: Table) -> None:
        record = json.loads(table.record_json())
        viewers = ["N", "E", "S", "W", WATCH]
        self.current: dict[str, list[set[str]]] = {v: [set()] for v in viewers}
        self.finished: list[set[str]] = [set()]
        own: dict[str, set[str]] = {v: set() for v in viewers}
        played: set[str] = set()
        public: set[str] = set()
        finished: set[str] = set()
        hand_index, bottoms = -1, 0
        hand: dict[str, Any] = {}
        for event in table.events:
            pub = event_public(event) or {}
            kind = pub.get("type")
            if kind == "deal":
                hand_index += 1
                hand = record["hands"][hand_index]
                deal = loads(json.dumps({**record, "hands": [hand]})).hands[0]
                for seat in "NESW":
                    mask = deal.hands[parse_seat(seat)]
                    own[seat] = {card_name(c) for c in range(52) if mask >> c & 1}
                played = set()
                public = {hand["turned"]} if hand.get("turned") else set()
                bottoms = 0
            elif kind == "action" and "action" not in pub:  # a Swedish bottom card
                bottoms += 1
                if bottoms == 4:  # the fourth: the reveal
                    public |= revealed_bottom_cards(record, hand)
            elif kind == "action" and pub["action"].get("kind") == "Expose":
                public.add(pub["action"]["card"])
            elif kind == "play":
                played.add(pub["card"])
            elif kind == "hand_end":
                finished |= own["N"] | own["E"] | own["S"] | own["W"]
            for v in viewers:
                self.current[v].append(own[v] | played | public)
            self.finished.append(set(finished))
        assert hand_index + 1 == len(record["hands"])

    def check(self, viewer: str, log: list[dict[str, Any]]) -> int:
        """Assert that no message of ``log`` (what ``viewer`` got, in order) shows a card
        ``viewer`` may not know at that point; the number of messages checked."""
        v = 0
        checked = 0
        for msg in log:
            if "v" in msg and msg["type"] in ("event", "state"):
                v = msg["v"]
            current, finished = split(msg)
            extra = card_codes(current) - self.current[viewer][v]
            assert not extra, (viewer, v, sorted(extra), msg)
            extra = card_codes(finished) - self.finished[v]
            assert not extra, (viewer, v, sorted(extra), msg)
            checked += 1
        return checked


def split(msg: dict[str, Any]) -> tuple[Any, Any]:
    """A message split in what is about the hand in play and what is about the hands
    already finished (results, the watchers' ``hands``)."""
    msg = json.loads(json.dumps(msg))
    finished: list[Any] = []
    if msg["type"] == "hands":
        return {}, msg
    view = msg.get("view")
    if view is not None:
        finished.append(view.pop("results", []))
    event = msg.get("event")
    if event is not None and event.get("type") == "hand_end":
        finished.append(event.pop("result"))
    return msg, finished


async def shared_game(
    db: Path,
    variant: str,
    options: dict[str, Any],
    seed: int,
    until: int | None = None,
) -> tuple[Table, dict[str, list[dict[str, Any]]]]:
    """A game at a shared table with people at S, N and E, a club bot at W and a
    watcher (hands shown after each hand), played to the end (or to version
    ``until``); the table and each viewer's messages."""
    server = make_server(db)
    try:
        table, made = await new_table(
            server,
            variant=variant,
            options=options,
            seats={"N": "person", "E": "person", "W": "club"},
            watch_hands=True,
        )
        people = {seat: Client(server) for seat in "SNE"}
        watcher = Client(server)
        assert (await watcher.watch(made["game"], made["watch_token"]))["type"] == "state"
        for seat, c in people.items():
            token = made["token"] if seat == "S" else made["tokens"][seat]
            assert (await c.join(made["game"], seat, token, name=f"P{seat}"))["type"] == "state"
        await play_out(
            table,
            list(people.values()),
            [watcher],
            random.Random(seed),
            until=None if until is None else (lambda t: t.version >= until),
        )
        logs = {seat: c.log for seat, c in people.items()} | {WATCH: watcher.log}
        for seat, log in logs.items():
            assert not [m for m in log if m["type"] == "error"], seat
        return table, logs
    finally:
        await server.close()


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "options"), GAMES)
def test_no_hidden_card_reaches_a_person_or_a_watcher(
    tmp_path: Path, variant: str, options: dict[str, Any]
) -> None:
    table, logs = asyncio.run(shared_game(tmp_path / "g.sqlite3", variant, options, seed=5))
    assert table.state.is_over
    knowledge = Knowledge(table)
    for viewer, log in logs.items():  # (the deals are secret: a game may be short)
        assert knowledge.check(viewer, log) == len(log) > 50, viewer
    # the watcher saw every played card and every hand once it was over
    watcher = logs[WATCH]
    hands = [m for m in watcher if m["type"] == "hands"]
    assert len(hands) == len(table.state.results)
    assert all(sum(len(h) for h in m["hands"].values()) == 52 for m in hands)
    assert all(m["view"]["hand"] == [] for m in watcher if "view" in m)
    # the people saw their own hands
    assert any(m.get("view", {}).get("hand") for m in logs["N"])


@pytest.mark.parametrize("leak", ["watcher view", "event to a seat", "public info"])
def test_the_check_finds_an_injected_leak(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, leak: str
) -> None:
    if leak == "watcher view":
        original = SharedTable.watcher_view

        def leaky(self: SharedTable) -> dict[str, Any]:
            out = original(self)  # N's cards, shown to the watcher
            out["hand"] = [card_name(c) for c in range(52) if self.state.holdings[0] >> c & 1]
            return out

        monkeypatch.setattr(SharedTable, "watcher_view", leaky)
        victim = WATCH
    elif leak == "event to a seat":
        original_for_seat = table_module.event_for_seat

        def leaky_for_seat(event: Event, seat: int) -> dict[str, Any] | None:
            out = original_for_seat(event, seat)
            private = event[1] or {}
            if seat == 1 and private.get(2):  # E gets S's private part too
                return {**(out or {}), "partner": dict(private[2])}
            return out

        monkeypatch.setattr(table_module, "event_for_seat", leaky_for_seat)
        victim = "E"
    else:  # a card of S's hand in the watcher's public information
        original = SharedTable.watcher_view

        def leaky_result(self: SharedTable) -> dict[str, Any]:
            out = original(self)
            held = [card_name(c) for c in range(52) if self.state.holdings[2] >> c & 1]
            if held:
                out["public"] = {**out["public"], "note": held[0]}
            return out

        monkeypatch.setattr(SharedTable, "watcher_view", leaky_result)
        victim = WATCH
    table, logs = asyncio.run(
        shared_game(tmp_path / "g.sqlite3", "felagsvist", {}, seed=3, until=70)
    )
    # the record of the game so far: Knowledge reads the hands dealt from it
    knowledge = Knowledge(table)
    for viewer, log in logs.items():
        if viewer != victim:
            knowledge.check(viewer, log)
    with pytest.raises(AssertionError):
        knowledge.check(victim, logs[victim])


def test_the_check_counts_what_a_seat_may_know(tmp_path: Path) -> None:
    """The check is not vacuous: a seat's own cards pass, its partner's do not."""
    table, _ = asyncio.run(shared_game(tmp_path / "g.sqlite3", "english", {}, seed=4, until=10))
    knowledge = Knowledge(table)
    v = table.version
    own = knowledge.current["S"][v]
    partner = knowledge.current["N"][v] - own
    assert len(own) >= 13 and partner
    knowledge.check("S", [{"type": "state", "v": v, "view": {"hand": sorted(own)}}])
    card = sorted(partner)[0]
    assert parse_card(card) >= 0
    with pytest.raises(AssertionError):
        knowledge.check("S", [{"type": "state", "v": v, "view": {"hand": [card]}}])
