"""``whistkit replay``: the JSON of docs/records.md for valid records, one-line errors."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from whisthelp import random_game
from whistkit.cli import main
from whistkit.record import dumps


@pytest.fixture(scope="module")
def game() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(dumps(random_game("felagsvist", seed=42)))
    return data


def run_replay(
    tmp_path: Path, record: Any, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    path = tmp_path / "game.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record), encoding="utf-8")
    code = main(["replay", str(path)])
    out = capsys.readouterr()
    return code, out.out, out.err


def refused(
    tmp_path: Path, record: dict[str, Any], corrupt: Any, capsys: pytest.CaptureFixture[str]
) -> str:
    """Replay a corrupted copy of ``record``: exit 2, nothing on standard output, and the
    one line of standard error that is returned."""
    rec = copy.deepcopy(record)
    corrupt(rec)
    code, out, err = run_replay(tmp_path, rec, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    return err.strip()


def test_complete_game(
    tmp_path: Path, game: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_replay(tmp_path, game, capsys)
    assert code == 0 and err == ""
    result = json.loads(out)
    assert list(result) == ["variant", "hands", "score", "winner"]
    assert result["variant"] == "felagsvist"
    assert len(result["hands"]) == 12
    first = result["hands"][0]
    assert list(first) == ["number", "dealer", "leader", "contract", "tricks", "points", "score"]
    assert first["number"] == 1 and first["contract"] == "H"
    assert first["leader"] == "NESW"[("NESW".index(first["dealer"]) + 1) % 4]
    assert [h["contract"] for h in result["hands"]] == ["H", "S", "NT", "D", "C", "NOLO"] * 2
    running = [0, 0]
    for h in result["hands"]:
        assert h["tricks"]["NS"] + h["tricks"]["EW"] == 13
        running[0] += h["points"]["NS"]
        running[1] += h["points"]["EW"]
        assert [h["score"]["NS"], h["score"]["EW"]] == running
    assert result["score"] == {"NS": running[0], "EW": running[1]}
    ns, ew = running
    assert result["winner"] == ("NS" if ns > ew else "EW" if ew > ns else "draw")


def test_unfinished_game(
    tmp_path: Path, game: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    rec = copy.deepcopy(game)
    rec["hands"] = rec["hands"][:3]
    rec["hands"][2]["play"] = rec["hands"][2]["play"][:10]  # two tricks and two cards
    code, out, _ = run_replay(tmp_path, rec, capsys)
    assert code == 0
    result = json.loads(out)
    assert result["winner"] is None
    last = result["hands"][-1]
    assert last["number"] == 3 and last["contract"] == "NT" and last["points"] is None
    assert sum(last["tricks"].values()) == 2
    assert last["score"] == result["hands"][1]["score"] == result["score"]


def test_example_record_from_record_md(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = {
        "format": "whistkit-record/1",
        "variant": "felagsvist",
        "options": {},
        "players": {"N": "Bot (expert)", "E": "Bot", "S": "Anna", "W": "Bot"},
        "hands": [
            {
                "dealer": "W",
                "deal": "N:AKQ2.JT9.8765.43 J9.AKQ8.AQT.KQJ2 T8765.765.J2.A76 43.432.K943.T985",
                "play": ["8D", "AD", "2D", "3D"],
            }
        ],
    }
    code, out, _ = run_replay(tmp_path, rec, capsys)
    assert code == 0
    assert json.loads(out) == {
        "variant": "felagsvist",
        "hands": [
            {
                "number": 1,
                "dealer": "W",
                "leader": "N",
                "contract": "H",
                "tricks": {"NS": 0, "EW": 1},
                "points": None,
                "score": {"NS": 0, "EW": 0},
            }
        ],
        "score": {"NS": 0, "EW": 0},
        "winner": None,
    }


def _holder(rec: dict[str, Any], hand: int, card: str) -> str:
    from whistkit.cards import parse_card
    from whistkit.deal import parse_pbn

    hands = parse_pbn(rec["hands"][hand]["deal"])
    c = parse_card(card)
    return "NESW"[next(s for s in range(4) if hands[s] >> c & 1)]


def _card_not_held(rec: dict[str, Any]) -> None:
    play = rec["hands"][0]["play"]
    # the leader of trick 1 plays a card that the second player holds (and plays later)
    play[0], play[1] = play[1], play[0]


def _revoke(rec: dict[str, Any]) -> None:
    # a player who followed suit plays instead a card of another suit that he played later
    play = rec["hands"][0]["play"]
    for i in range(52):
        if i % 4 == 0:
            continue
        led = play[i - i % 4][1]
        if play[i][1] != led:
            continue
        for j in range(i + 4 - i % 4, 52):
            if play[j][1] != led and _holder(rec, 0, play[j]) == _holder(rec, 0, play[i]):
                play[i], play[j] = play[j], play[i]
                return
    raise AssertionError("no revoke to inject")


def _card_twice(rec: dict[str, Any]) -> None:
    play = rec["hands"][0]["play"]
    play[4] = play[0]


def _dealer_out_of_rotation(rec: dict[str, Any]) -> None:
    d = rec["hands"][1]["dealer"]
    rec["hands"][1]["dealer"] = "NESW"[("NESW".index(d) + 1) % 4]


def _hand_after_end(rec: dict[str, Any]) -> None:
    extra = copy.deepcopy(rec["hands"][0])
    extra["dealer"] = "NESW"[("NESW".index(rec["hands"][-1]["dealer"]) + 1) % 4]
    rec["hands"].append(extra)


def _unknown_variant(rec: dict[str, Any]) -> None:
    rec["variant"] = "bridge"


def _unknown_option(rec: dict[str, Any]) -> None:
    rec["options"] = {"trumps": "always"}


def _early_next_hand(rec: dict[str, Any]) -> None:
    rec["hands"][0]["play"] = rec["hands"][0]["play"][:30]


def _bad_card_code(rec: dict[str, Any]) -> None:
    rec["hands"][0]["play"][5] = "1X"


def _short_deal(rec: dict[str, Any]) -> None:
    rec["hands"][0]["deal"] = "N:AK... Q... J... T..."


@pytest.mark.parametrize(
    ("corrupt", "pattern"),
    [
        (
            _card_not_held,
            r"^hand 1, trick 1: \w played \w\w but does not hold it \(card not in hand\)$",
        ),
        (_revoke, r"^hand 1, trick \d+: \w played \w\w but holds an? \w+ \(must follow suit\)$"),
        (
            _card_twice,
            r"^hand 1, trick 2: \w played \w\w but it was already played \(card played twice\)$",
        ),
        (
            _dealer_out_of_rotation,
            r"^hand 2: dealer is \w but the deal passes to \w \(dealer out of rotation\)$",
        ),
        (
            _hand_after_end,
            r"^hand 13: the game ended after hand 12 \(hand played after the game ended\)$",
        ),
        (_unknown_variant, r"^record: unknown variant 'bridge'"),
        (_unknown_option, r"^record: unknown option 'trumps'"),
        (
            _early_next_hand,
            r"^hand 2: hand 1 has only 30 of 52 cards \(a hand started before the previous one ended\)$",
        ),
        (_bad_card_code, r"^hand 1, card 6: not a card: '1X'"),
        (_short_deal, r"^hand 1, deal: hand of N has 2 cards, not 13$"),
    ],
)
def test_invalid_records(
    tmp_path: Path,
    game: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    corrupt: Any,
    pattern: str,
) -> None:
    err = refused(tmp_path, game, corrupt, capsys)
    assert re.match(pattern, err), err


def test_truncated_json(
    tmp_path: Path, game: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    text = json.dumps(game)
    code, out, err = run_replay(tmp_path, text[: len(text) // 2], capsys)
    assert code == 2 and out == ""
    assert err.startswith("record: invalid JSON:") and err.count("\n") == 1


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["replay", str(tmp_path / "nope.json")])
    out = capsys.readouterr()
    assert code == 2 and out.out == "" and "cannot read" in out.err


def test_stdin_through_the_installed_command(game: dict[str, Any]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "whistkit.cli", "replay", "-"],
        input=json.dumps(game),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["winner"] in ("NS", "EW", "draw")
    bad = subprocess.run(
        [sys.executable, "-m", "whistkit.cli", "replay", "-"],
        input="{",
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1


# -- laws-mode events, record shape, byte-order marks ---------------------------------

LAWS = {"play_mode": "laws"}


@pytest.fixture(scope="module")
def laws_game() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(dumps(random_game("felagsvist", seed=7, options=LAWS)))
    return data


def _corrected_revoke() -> dict[str, Any]:
    """A laws-mode Félagsvist hand in which a revoke is corrected (one ``correct`` event)."""
    import random

    from whistkit.cards import SUIT_MASKS, iter_cards
    from whistkit.deal import deal_cards
    from whistkit.state import Deal, new_game
    from whistkit.variants.laws import Correct

    rng = random.Random(5)
    state = new_game("felagsvist", LAWS, dealer=0)
    state = state.apply(Deal(deal_cards(rng, 0).hands, None))
    corrected = False
    while not state.results:
        seat, held = state.to_play, state.holdings[state.to_play]
        follow = held & SUIT_MASKS[state.trick[0] // 13] if state.trick else 0
        if not corrected and follow and held & ~follow:
            state = state.apply(next(iter_cards(held & ~follow)))  # a revoke...
            state = state.apply(Correct(seat, next(iter_cards(follow))))  # ...corrected
            corrected = True
        else:
            state = state.apply(rng.choice(state.legal_actions()))
    data: dict[str, Any] = json.loads(dumps(state))
    assert [e["type"] for e in data["hands"][0]["events"]] == ["correct"]
    return data


def _event(hand: int, **event: Any) -> Callable[[dict[str, Any]], None]:
    return _events(hand, event)


def _events(hand: int, *events: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def corrupt(rec: dict[str, Any]) -> None:
        rec["hands"][hand - 1]["events"] = list(events)

    return corrupt


@pytest.mark.parametrize(
    ("corrupt", "pattern"),
    [
        (
            _event(2, at=999, type="claim", seat="N"),
            r"^hand 2: event 1 \(claim at 999\) was never reached: play has 52 cards",
        ),
        (_event(1, at="5", type="bogus"), r'^hand 1: event 1 has an unknown type "bogus"'),
        (_event(1, at="5", type="claim", seat="N"), r'^hand 1: event 1 \(claim\) has at "5",'),
        (_event(1, at=-1, type="claim", seat="N"), r"^hand 1: event 1 \(claim\) has at -1,"),
        (_event(1, type="claim", seat="N"), r"^hand 1: event 1 \(claim\) has at null,"),
        (_event(1, at=3, seat="N"), r"^hand 1: event 1 has no type"),
        (
            # the hand is over after its 52nd card (auto_claim): a claim is never reached
            _event(1, at=52, type="claim", seat="N"),
            r"^hand 1, after the last card: event 1 \(claim at 52\) was never reached",
        ),
        (
            _event(1, at=52, type="correct", seat="N"),
            r"^hand 1: event 1 \(correct at 52\) has no card: play has 52 cards",
        ),
        (
            _event(1, at=3, type="expose", seat="N", card=True),
            r"^hand 1, trick 1: event 1 \(expose at 3\) cannot be read: card is true, not a string",
        ),
        (
            # a claim the rules refuse mid-hand is named like any other event
            _event(1, at=20, type="claim", seat="N"),
            r"^hand 1, trick 6: event 1 \(claim at 20\): nobody is asked to decide",
        ),
        (
            _events(
                1,
                {"at": 9, "type": "expose", "seat": "N", "card": "AS"},
                {"at": 4, "type": "call", "seat": "E", "card": "AS"},
            ),
            r"^hand 1: event 2 \(call at 4\) comes after event 1 \(expose at 9\) \(events are in",
        ),
        (
            # play[20] is before the second event, so its at cannot be 20 too
            _events(
                1,
                {"at": 20, "type": "correct", "seat": "N"},
                {"at": 20, "type": "expose", "seat": "N", "card": "AS"},
            ),
            r"^hand 1: event 2 \(expose at 20\) comes after event 1 \(correct at 20\), which",
        ),
    ],
)
def test_bad_laws_events(
    tmp_path: Path,
    laws_game: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    corrupt: Any,
    pattern: str,
) -> None:
    err = refused(tmp_path, laws_game, corrupt, capsys)
    assert re.match(pattern, err), err


def test_events_in_a_strict_record(
    tmp_path: Path, game: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    rec = copy.deepcopy(game)
    rec["hands"][0]["events"] = [{"at": 4, "type": "claim", "seat": "N"}]
    code, out, err = run_replay(tmp_path, rec, capsys)
    assert code == 2 and out == ""
    assert err.startswith("hand 1: events need play_mode laws") and err.count("\n") == 1


def test_corrected_revoke_event_out_of_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = _corrected_revoke()
    code, _, err = run_replay(tmp_path, rec, capsys)
    assert code == 0, err
    rec["hands"][0]["events"][0]["at"] = 999
    code, out, err = run_replay(tmp_path, rec, capsys)
    assert code == 2 and out == ""
    assert err.startswith("hand 1: event 1 (correct at 999) was never reached:"), err
    assert "does not hold it" not in err


def test_swedish_hand_played_before_every_bottom_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = _swap_variant("swedish")
    bottom = rec["hands"][0]["bottom"]
    last = list(bottom)[-1]  # the last seat to commit
    del bottom[last]
    code, out, err = run_replay(tmp_path, rec, capsys)
    assert code == 2 and out == ""
    assert err == (
        f"hand 1: {last} has no bottom card, but the play has begun"
        " (every seat commits a bottom card before play (§3.3))\n"
    )


def _swap_variant(variant: str, seed: int = 3) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(dumps(random_game(variant, seed=seed)))
    return data


@pytest.mark.parametrize(
    ("variant", "corrupt", "message"),
    [
        (
            "felagsvist",
            lambda r: r["hands"][0].update(deal=5),
            "hand 1: 'deal' must be a PBN deal string, not a number",
        ),
        (
            "felagsvist",
            lambda r: r.update(hands={}),
            "record: 'hands' must be a list, not an object",
        ),
        ("felagsvist", lambda r: r.update(variant=5), "record: 'variant' must be a string"),
        ("felagsvist", lambda r: r.pop("variant"), "record: 'variant' is missing"),
        ("felagsvist", lambda r: r.update(options=[]), "record: 'options' must be an object"),
        ("felagsvist", lambda r: r.update(players=[]), "record: 'players' must be an object"),
        (
            "english",
            lambda r: r["hands"][0].update(bottom={"N": r["hands"][0]["play"][0]}),
            "hand 1: 'bottom' is a Swedish key, but Whist (English short whist) has no bottom",
        ),
        (
            "swedish",
            lambda r: r["hands"][0].update(turned=r["hands"][0]["play"][0]),
            "hand 1: 'turned' is an English and American key, but Swedish whist turns up no",
        ),
        ("felagsvist", lambda r: r["hands"][0].update(dealer=True), "hand 1, dealer: true is"),
        ("felagsvist", lambda r: r.update(format=None), "record: 'format' must be"),
        (
            "felagsvist",
            lambda r: r.update(options={"play_mode": True}),
            "record: option 'play_mode' must be one of strict, laws, not true",
        ),
        (
            "english",
            lambda r: r.update(options={"english_rubber": 1}),
            "record: option 'english_rubber' must be true or false, not 1",
        ),
    ],
)
def test_record_shape_messages(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    variant: str,
    corrupt: Any,
    message: str,
) -> None:
    rec = _swap_variant(variant)
    corrupt(rec)
    code, out, err = run_replay(tmp_path, rec, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(message), err
    assert "True" not in err and "None" not in err


def test_byte_order_mark(
    tmp_path: Path, game: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_replay(tmp_path, "\ufeff" + json.dumps(game), capsys)
    assert code == 0 and err == "" and json.loads(out)["variant"] == "felagsvist"
    done = subprocess.run(
        [sys.executable, "-m", "whistkit.cli", "replay", "-"],
        input=("\ufeff" + json.dumps(game)).encode("utf-8"),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
