"""Records of every variant: round trips through ``whistkit replay`` and invalid records
rejected with one line naming the hand, the trick and the rule."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _vhelp import bot_game
from hypothesis import given
from hypothesis import strategies as st

from whistkit.record import dumps, loads, replay, summarize
from whistkit.variants.classic import score_american, score_english

SRC = str(Path(__file__).resolve().parents[2] / "src")


def record_json(variant: str, seed: int = 3, options=None) -> dict:
    return json.loads(dumps(bot_game(variant, seed, options)))


def replay_cli(data: dict) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "whistkit.cli", "replay", "-"],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        env={"PYTHONPATH": SRC},
        timeout=60,
    )


@pytest.mark.parametrize("variant", ["swedish", "english", "american"])
def test_cli_replay_round_trip(variant):
    data = record_json(variant)
    proc = replay_cli(data)
    assert proc.returncode == 0 and proc.stderr == ""
    out = json.loads(proc.stdout)
    assert out == json.loads(json.dumps(summarize(replay(loads(json.dumps(data))))))
    assert out["winner"] in ("NS", "EW")
    first = out["hands"][0]
    if variant == "swedish":
        assert first["contract"] in ("SPEL", "NOLLSPEL") and "declarer" in first
        assert set(data["hands"][0]["bottom"]) == {"N", "E", "S", "W"}
    else:
        assert first["turned"] == data["hands"][0]["turned"]
        assert first["contract"] == first["turned"][1]
        assert out["games"]
    if variant == "english":
        assert "honours" in first and "penalties" in first and "rubber" in out


def test_unfinished_hand_is_listed():
    data = record_json("english")
    data["hands"][-1]["play"] = data["hands"][-1]["play"][:10]
    out = summarize(replay(loads(json.dumps(data))))
    assert out["hands"][-1]["points"] is None and out["winner"] is None
    assert out["hands"][-1]["turned"] == data["hands"][-1]["turned"]


@pytest.mark.parametrize(
    ("variant", "mutate", "message"),
    [
        ("swedish", lambda d: d["hands"][0].pop("bottom"), "hand 1: the hand has no bottom"),
        (
            "swedish",
            lambda d: d["hands"][0]["bottom"].update(
                {k: d["hands"][0]["bottom"][v] for k, v in (("N", "E"),)}
            ),
            "does not hold it",
        ),
        ("english", lambda d: d["hands"][0].pop("turned"), "dealer's last card is trump"),
        ("american", lambda d: d["hands"][1].update(dealer=d["hands"][0]["dealer"]), "rotation"),
        (
            "english",
            lambda d: d["hands"].append(d["hands"][-1]),
            "hand played after the game ended",
        ),
    ],
)
def test_invalid_records(variant, mutate, message):
    data = record_json(variant)
    mutate(data)
    proc = replay_cli(data)
    assert proc.returncode == 2 and proc.stdout == ""
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("variant", ["swedish", "english", "american"])
def test_strict_revoke_is_invalid_and_laws_revoke_is_not(variant):
    from whistkit.cards import SUIT_MASKS, card_name, iter_cards

    data = record_json(variant)
    hand = data["hands"][0]
    state = replay(loads(json.dumps({**data, "hands": [{**hand, "play": []}]})))
    # play the recorded cards until someone who holds the led suit could discard
    for k in range(len(hand["play"])):
        seat = state.to_play
        held = state.holdings[seat]
        if state.trick and held & SUIT_MASKS[state.trick[0] // 13]:
            off = [c for c in iter_cards(held) if c // 13 != state.trick[0] // 13]
            if off:
                break
        state = replay(
            loads(json.dumps({**data, "hands": [{**hand, "play": hand["play"][: k + 1]}]}))
        )
    bad = {**hand, "play": [*hand["play"][:k], card_name(off[0])]}
    proc = replay_cli({**data, "hands": [bad]})
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"hand 1, trick {k // 4 + 1}: ")
    assert "(must follow suit)" in proc.stderr
    laws = {**data, "options": {"play_mode": "laws"}, "hands": [bad]}
    proc = replay_cli(laws)
    assert proc.returncode == 0, proc.stderr


def test_bad_event_names_the_rule():
    data = record_json("felagsvist", options={"play_mode": "laws"})
    data["hands"][0]["events"] = [{"at": 0, "type": "bribe", "seat": "N"}]
    proc = replay_cli(data)
    assert proc.returncode == 2 and "unknown type" in proc.stderr


@given(
    start=st.tuples(st.integers(0, 4), st.integers(0, 4)),
    ns_tricks=st.integers(0, 13),
    held=st.sampled_from([(4, 0), (3, 1), (2, 2), (1, 3), (0, 4)]),
    revokes=st.lists(
        st.tuples(st.integers(0, 1), st.sampled_from(["add", "deduct", "transfer"])),
        max_size=3,
    ),
)
def test_english_hand_properties(start, ns_tricks, held, revokes):
    revokes = [r for r in revokes if r[0] == (revokes[0][0] if revokes else 0)]
    h = score_english(start, (ns_tricks, 13 - ns_tricks), held, tuple(revokes))
    assert sum(h.tricks) == 13 and min(h.score) >= 0
    reached = [s for s in (0, 1) if h.score[s] >= 5]
    assert len(reached) <= 1
    assert h.winner == (reached[0] if reached else None)
    for side, _ in revokes:
        assert h.score[side] <= 4  # a revoking side cannot reach game on the deal
    if not revokes:
        assert all(h.score[s] >= start[s] for s in (0, 1))


@given(
    start=st.tuples(st.integers(0, 6), st.integers(0, 6)),
    ns_tricks=st.integers(0, 13),
    revokers=st.lists(st.integers(0, 1), max_size=3),
)
def test_american_hand_properties(start, ns_tricks, revokers):
    revokers = [r for r in revokers if r == (revokers[0] if revokers else 0)]
    h = score_american(start, (ns_tricks, 13 - ns_tricks), tuple(revokers))
    gained = [h.score[s] - start[s] for s in (0, 1)]
    odd = [max(0, ns_tricks - 6), max(0, 7 - ns_tricks)]
    for s in (0, 1):
        if s in revokers:
            assert h.score[s] == min(6, start[s] + odd[s])
        else:
            assert gained[s] == odd[s] + 2 * len(revokers) * (1 if revokers else 0)
    assert h.winner in (None, 0, 1)
    assert (h.winner is not None) == (max(h.score) >= 7)
