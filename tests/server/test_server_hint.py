"""The hint: what a strong player would do, from the asking seat's view alone."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from whistkit.bots import ClubBot, play_level
from whistkit.server import workers as workers_module
from whistkit.server.app import create_app
from whistkit.state import Action, View

from .helpers import play_actions, play_game, receive_until, server_of
from .test_server_protocol import all_human_table, join, new_game, stored

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def quick(db_path: Path) -> Iterator[TestClient]:
    """The app with hints by the instant ``club`` level."""
    with TestClient(create_app(db_path, bot_delay=0, hint_level="club")) as c:
        yield c


def ask_hint(ws: Any) -> dict[str, Any]:
    ws.send_json({"type": "hint"})
    msg: dict[str, Any] = receive_until(ws, lambda m: m["type"] in ("hint", "error"))
    return msg


def test_a_hint_is_a_legal_action_and_the_same_twice(quick: TestClient) -> None:
    game = new_game(quick)
    with quick.websocket_connect("/ws") as ws:
        at = play_actions(ws, 3, join(ws, game))  # S to act, a few tricks in
        view = at["view"]
        assert view["to_play"] == "S"
        table = server_of(quick).tables.get(game)
        state, record = table.state, stored(quick, game)
        first = ask_hint(ws)
        assert first["type"] == "hint", first
        assert first["v"] == at["v"] == table.version
        assert first["action"] in view["legal"]
        assert first["action"]["type"] == "play"  # sent back as is, it plays the card
        assert ask_hint(ws) == first
        # a hint changes nothing: the same state, the same stored record and version
        assert table.state is state and table.version == at["v"]
        assert stored(quick, game) == record
        ws.send_json(first["action"])
        ack = receive_until(ws, lambda m: m["type"] in ("ack", "error"))
        assert ack["type"] == "ack", ack


def test_a_hint_when_it_is_not_your_turn_is_refused(quick: TestClient) -> None:
    game = all_human_table(quick)
    with quick.websocket_connect("/ws") as ws:
        view = join(ws, game)["view"]
        wrong = next(s for s in "NESW" if s != view["to_play"])
        before = stored(quick, game)
        join(ws, game, seat=wrong)
        reply = ask_hint(ws)
        assert reply["type"] == "error" and reply["code"] == "not_your_turn", reply
        assert "your turn only" in reply["message"]
        assert f"it is {view['to_play']}'s turn, not {wrong}'s" in reply["message"]
        assert stored(quick, game) == before


def test_a_hint_needs_a_joined_seat_and_a_game_in_play(quick: TestClient) -> None:
    game = new_game(quick)
    with quick.websocket_connect("/ws") as ws:
        reply = ask_hint(ws)
        assert reply["code"] == "not_joined", reply
        join(ws, game)
        play_game(ws)
        before = stored(quick, game)
        reply = ask_hint(ws)
        assert reply["type"] == "error" and reply["code"] == "game_over", reply
        assert f"game {game} is over" in reply["message"]
        assert stored(quick, game) == before


def test_unknown_types_name_hint_among_the_known(quick: TestClient) -> None:
    with quick.websocket_connect("/ws") as ws:
        ws.send_json({"type": "dance"})
        reply = ws.receive_json()
    assert reply["code"] == "unknown_type"
    assert "known: join, play, action, hint, ping" in reply["message"]


class Recorder:
    """A bot that notes what it was given and plays like the club level."""

    name = "recorder"

    def __init__(self, seen: list[tuple[str, object]], level: str) -> None:
        self.seen = seen
        self.level = level

    def choose(self, view: View, rng: random.Random) -> Action:
        self.seen.append((self.level, view))
        return ClubBot().choose(view, rng)


@pytest.mark.parametrize("variant", ["felagsvist", "swedish"])
@pytest.mark.usefixtures("in_threads")
def test_the_hint_comes_from_the_seats_view(
    quick: TestClient, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    game = new_game(quick, variant=variant)
    with quick.websocket_connect("/ws") as ws:
        view = play_actions(ws, 0, join(ws, game))["view"]
        seen: list[tuple[str, object]] = []
        # the hint's bot is a recorder (the table's bots are made in table.py)
        monkeypatch.setattr(workers_module, "make_bot", lambda level: Recorder(seen, level))
        hint = ask_hint(ws)
    assert hint["type"] == "hint", hint
    assert hint["action"] in view["legal"]
    assert len(seen) == 1
    level, given = seen[0]
    assert level == "club"
    assert isinstance(given, View) and given.seat == 2  # South's view, not the State
    state = server_of(quick).tables.get(game).state
    assert given.hand == state.holdings[2]
    # the seats people play come with it (a bot reads no signal from their cards), and
    # so they do with the table's bots' views
    assert given.public["people"] == [2]
    table = server_of(quick).tables.get(game)
    assert table.bot_view(table.state, 1).public["people"] == [2]
    if variant == "swedish":  # the first decision is the bottom card to show
        assert view["phase"] == "bid"
        assert hint["action"]["type"] == "action"
        assert hint["action"]["action"]["kind"] == "BottomCard"
        assert hint["action"]["action"]["card"] in view["hand"]


def test_the_default_hint_level_is_the_play_level(db_path: Path) -> None:
    # the real default: expert with the solver's compiled core, else club
    with TestClient(create_app(db_path, bot_delay=0)) as client:
        assert server_of(client).hint_level == play_level()
        game = new_game(client)
        with client.websocket_connect("/ws") as ws:
            at = play_actions(ws, 1, join(ws, game))
            first = ask_hint(ws)
            assert first["type"] == "hint", first
            assert first["v"] == at["v"]
            assert first["action"] in at["view"]["legal"]
            assert ask_hint(ws) == first


def test_an_unknown_hint_level_is_refused(db_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown hint level"):
        create_app(db_path, hint_level="grandmaster")
