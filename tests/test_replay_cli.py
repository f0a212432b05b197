"""``whistkit replay``: RECORD.md's JSON for valid records, one-line errors for invalid ones."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
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
    rec = copy.deepcopy(game)
    corrupt(rec)
    code, out, err = run_replay(tmp_path, rec, capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    import re

    assert re.match(pattern, err.strip()), err


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
