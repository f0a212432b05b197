"""The library as a researcher meets it: arguments of the wrong type or value get an error
that names what was expected and what came, and the messages read as English."""

from __future__ import annotations

import doctest
import importlib
import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

import whistkit
import whistkit.seats
from whistkit import analysis
from whistkit.bots import make_bot
from whistkit.cards import CardError, parse_card
from whistkit.deal import deal_cards, parse_pbn
from whistkit.game import Game
from whistkit.record import Record
from whistkit.seats import SeatError, as_seat, parse_seat
from whistkit.state import Deal, IllegalAction, State, new_game

PBN = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"


# -- seats ------------------------------------------------------------------------------


@pytest.mark.parametrize("given,seat", [(0, 0), (3, 3), ("N", 0), ("w", 3), (" S ", 2)])
def test_a_seat_is_0_to_3_or_a_name(given: int | str, seat: int) -> None:
    assert as_seat(given) == seat
    assert new_game("felagsvist", dealer=given).dealer == seat


@pytest.mark.parametrize("bad", [5, -1, 4, "X", "NE", "", 1.0, None, True])
def test_a_bad_dealer_is_refused_by_name(bad: object) -> None:
    # 5 was silently dealer 1 and -1 dealer 3 (taken modulo 4); "N" a TypeError of '&'
    with pytest.raises(SeatError) as e:
        new_game("felagsvist", dealer=bad)  # type: ignore[arg-type]
    assert str(e.value) == f"dealer must be a seat, 0..3 or N, E, S, W; not {bad!r}"
    assert isinstance(e.value, ValueError)


def test_view_takes_a_seat_name_and_refuses_a_bad_seat() -> None:
    state = new_game("felagsvist", dealer="W").apply(Deal(parse_pbn(PBN)))
    assert state.view("E") == state.view(1)
    for bad in (7, -1, "Q"):
        with pytest.raises(
            SeatError, match=f"seat must be a seat, 0..3 or N, E, S, W; not {bad!r}"
        ):
            state.view(bad)


def test_parse_seat_refuses_a_non_string_with_its_own_error() -> None:
    with pytest.raises(SeatError, match="not a seat: 2"):
        parse_seat(2)  # type: ignore[arg-type]


def test_new_game_refuses_a_bad_variant_or_hand_number() -> None:
    with pytest.raises(TypeError, match="a variant name or a Variant, not an int"):
        new_game(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="hand_number must be a whole number of at least 1"):
        new_game("felagsvist", hand_number=0)
    with pytest.raises(ValueError, match=r"not 2\.5"):
        new_game("felagsvist", hand_number=2.5)  # type: ignore[arg-type]


def test_game_takes_bot_seats_by_name() -> None:
    bots = {seat: make_bot("club") for seat in "NESW"}
    by_name = Game("felagsvist", seed=4, bots=bots)
    by_number = Game("felagsvist", seed=4, bots={s: make_bot("club") for s in range(4)})
    assert sorted(by_name.bots) == [0, 1, 2, 3]
    by_name.run_bots()
    by_number.run_bots()
    assert by_name.state.actions() == by_number.state.actions()
    with pytest.raises(SeatError, match="a bot's seat must be a seat"):
        Game("felagsvist", seed=4, bots={4: make_bot("club")})


# -- message grammar --------------------------------------------------------------------


def test_one_card_is_singular_in_deal_errors() -> None:
    dealt = deal_cards(random.Random(1), 0).hands
    one = 1 << (dealt[0].bit_length() - 1)  # N keeps one card, E gets the other twelve
    hands = (one, dealt[1] | (dealt[0] ^ one), dealt[2], dealt[3])
    state = new_game("felagsvist")
    with pytest.raises(IllegalAction) as e:
        state.apply(Deal(hands))
    assert str(e.value) == "N is dealt 1 card (13 cards each)"
    with pytest.raises(IllegalAction, match=r"^N is dealt 0 cards \(13 cards each\)$"):
        state.apply(Deal((0, hands[1] | one, dealt[2], dealt[3])))
    with pytest.raises(CardError, match=r"^hand of N has 1 card, not 13$"):
        parse_pbn(
            "N:A... KQJT98765432... .AKQJT98765432.. ..AKQJT98765432.AKQJT98765432", full=True
        )


def test_a_hand_that_is_not_a_mask_is_named() -> None:
    hands = deal_cards(random.Random(1), 0).hands
    with pytest.raises(IllegalAction, match="the hand of S is not a card mask: 'AKQ'"):
        new_game("felagsvist").apply(Deal((hands[0], hands[1], "AKQ", hands[3])))  # type: ignore[arg-type]


# -- actions ----------------------------------------------------------------------------


def test_dealt_hands_that_are_not_wrapped_are_no_action() -> None:
    # was: IllegalAction "no hand has been dealt (deal first)", which sent one looking
    # for a missing deal
    state = new_game("felagsvist", dealer="W")
    hands = parse_pbn(PBN, full=True)
    with pytest.raises(TypeError) as e:
        state.apply(hands)  # type: ignore[arg-type]
    assert str(e.value) == (
        "expected a card (an int 0..51) or an action (Deal, BottomCard, ...), got a tuple:"
        " wrap dealt hands as Deal(hands)"
    )
    with pytest.raises(TypeError, match="got a DealtHand: deal it as Deal"):
        state.check(deal_cards(random.Random(1), state.dealer))  # type: ignore[arg-type]
    assert state.apply(Deal(hands)).to_play == 0


def test_a_card_name_or_other_object_is_no_action() -> None:
    state = new_game("felagsvist", dealer="W").apply(Deal(parse_pbn(PBN)))
    with pytest.raises(TypeError, match=r"got a str: read a card name with parse_card\('AS'\)"):
        state.apply("AS")  # type: ignore[arg-type]
    for bad, kind in ((None, "None"), (1.0, "a float"), (True, "a bool"), ([12], "a list")):
        with pytest.raises(TypeError, match=f"got {kind}$"):
            state.is_legal(bad)  # type: ignore[arg-type]
    assert state.is_legal(parse_card("AS")) and not state.is_legal(parse_card("AH"))
    with pytest.raises(IllegalAction, match="not a card"):
        state.check(60)  # an int is a card, checked by the rules


def test_the_hands_alias_is_not_the_deal_action() -> None:
    import whistkit
    import whistkit.deal

    assert whistkit.deal.Hands == tuple[int, int, int, int]
    assert not hasattr(whistkit.deal, "Deal")  # the name of the action only
    assert whistkit.Deal is Deal


# -- records ----------------------------------------------------------------------------


def club_game(variant: str = "felagsvist", seed: int = 3) -> State:
    g = Game(variant, seed=seed, bots={s: make_bot("club") for s in range(4)})
    g.run_bots()
    return g.state


def test_dumps_of_a_record_rewrites_it_and_summarize_replays_it() -> None:
    state = club_game()
    text = whistkit.dumps(state, {"S": "Anna", 0: "Bot (club)"})
    record = whistkit.loads(text)
    assert record.players == {0: "Bot (club)", 2: "Anna"}
    assert whistkit.dumps(record) == text  # was: 'str' object has no attribute 'name'
    assert json.loads(whistkit.dumps(record, {"E": "Bo"}))["players"] == {"E": "Bo"}
    assert whistkit.summarize(record) == whistkit.summarize(state)  # was an AttributeError
    assert whistkit.loads(text.encode("utf-8")) == record
    assert whistkit.record_of(state, {"S": "Anna", 0: "Bot (club)"}) == record


@pytest.mark.parametrize(
    "call,message",
    [
        (
            lambda r, s: whistkit.replay(s),
            "replay() takes a Record (from loads or load), got a State: it is a game already",
        ),
        (
            lambda r, s: whistkit.replay(whistkit.dumps(s)),
            "replay() takes a Record (from loads or load), got a str: read a record's JSON"
            " text with loads(text)",
        ),
        (
            lambda r, s: whistkit.record_of(r),
            "record_of() takes a State (a game), got a Record: it is a record already",
        ),
        (
            lambda r, s: whistkit.dumps(s.actions()),
            "dumps() takes a State (a game) or a Record, got a list",
        ),
        (
            lambda r, s: whistkit.summarize(whistkit.summarize(s)),
            "summarize() takes a State (a game) or a Record, got a dict: read decoded JSON"
            " with parse_record(data)",
        ),
        (
            lambda r, s: whistkit.loads(Path("game.json")),
            "loads() takes a record's JSON text (a str), got a PosixPath: read a record file"
            " with load(path)",
        ),
        (
            lambda r, s: whistkit.loads(r),
            "loads() takes a record's JSON text (a str), got a Record: it is read already",
        ),
        (
            lambda r, s: analysis.analyse(whistkit.dumps(s)),
            "analyse() takes a Record (from loads or load) or a State, got a str: read a"
            " record's JSON text with loads(text)",
        ),
        (
            lambda r, s: whistkit.load(r),
            "load() takes a file path, got a Record: it is read already",
        ),
        (
            lambda r, s: whistkit.save(s, None),
            "save() takes a State (a game) or a Record, then a path, got None",
        ),
        (
            lambda r, s: whistkit.save("game.json", s),
            "save() takes a State (a game) or a Record, then a path, got a str: the game"
            " comes first: save(game, path)",
        ),
        (
            lambda r, s: whistkit.dumps(s, {"S": 3}),
            "a player's name must be a str, got an int for 'S'",
        ),
    ],
)
def test_record_functions_name_what_they_take(
    call: Callable[[Record, State], object], message: str
) -> None:
    state = new_game("felagsvist", dealer="W").apply(Deal(parse_pbn(PBN)))
    record = whistkit.record_of(state)
    with pytest.raises(TypeError) as e:
        call(record, state)
    assert str(e.value) == message


def test_a_bad_player_seat_is_a_seat_error() -> None:
    with pytest.raises(
        SeatError, match=r"a player's seat must be a seat, 0\.\.3 or N, E, S, W; not 'X'"
    ):
        whistkit.dumps(new_game("felagsvist"), {"X": "Anna"})


def test_analyse_takes_a_state_too() -> None:
    state = club_game()
    by_state = analysis.analyse(state, node_limit=2_000, hands={1})
    by_record = analysis.analyse(whistkit.record_of(state), node_limit=2_000, hands={1})
    assert by_state == by_record and by_state.hands[0].judgements


def test_save_and_load_a_game_or_a_record(tmp_path: Path) -> None:
    state = club_game("english", seed=5)
    whistkit.save(state, tmp_path / "game.json", {"N": "Anna"})
    record = whistkit.load(tmp_path / "game.json")
    assert record.players == {0: "Anna"}
    assert whistkit.replay(record).score == state.score
    assert (tmp_path / "game.json").read_text(encoding="utf-8") == whistkit.dumps(record) + "\n"
    whistkit.save(record, str(tmp_path / "again.json"))  # a record, and a str path
    assert whistkit.load(str(tmp_path / "again.json")) == record
    (tmp_path / "latin1.json").write_bytes('{"players": "\xe9"}'.encode("latin-1"))
    with pytest.raises(whistkit.RecordError, match=r"latin1\.json is not UTF-8 text"):
        whistkit.load(tmp_path / "latin1.json")
    with pytest.raises(FileNotFoundError):
        whistkit.load(tmp_path / "missing.json")


def test_record_docstrings_are_there() -> None:
    from whistkit import record

    for name in record.__all__:
        assert getattr(record, name).__doc__, f"whistkit.record.{name} has no docstring"


@pytest.mark.parametrize(
    "name", ["whistkit", "record", "seats", "deal", "state", "analysis", "match"]
)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name if name == "whistkit" else f"whistkit.{name}")
    failed, tried = doctest.testmod(module)
    assert tried and not failed, f"{failed} of {tried} examples of {module.__name__} failed"


def test_players_must_map_seats_to_names() -> None:
    with pytest.raises(
        TypeError, match=r"players must map seats to names, e\.g\. \{'S': 'Anna'\}; got a list"
    ):
        whistkit.dumps(new_game("felagsvist"), ["Anna"])  # type: ignore[arg-type]
