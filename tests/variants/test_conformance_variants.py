"""The conformance suite over every variant and every option value that changes play or
scoring: 500 seeded games each, with the invariants of the core plus variant checks that
recompute the scores independently of the engine's scorers.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from whistkit.bots import make_bot
from whistkit.cards import FULL_DECK
from whistkit.deal import deal_cards
from whistkit.record import dumps, loads, replay, summarize
from whistkit.state import Deal, State, new_game
from whistkit.variants import get_variant

GAMES = 500

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("felagsvist", {}),
    ("felagsvist", {"nolo_aces_low": True}),
    ("felagsvist", {"felag_tiebreak": "extra_hands"}),
    ("swedish", {}),
    ("swedish", {"sw_spel_leader": "left_of_declarer"}),
    ("swedish", {"sw_spel_leader": "right_of_declarer"}),
    ("swedish", {"sw_simultaneous_reveal": True}),
    ("swedish", {"sw_target": 7}),
    ("english", {}),
    ("english", {"honours_barred_at_four": False}),
    ("english", {"english_rubber": False}),
    ("english", {"english_target": 10}),
    ("american", {}),
    ("american", {"american_game_value": "difference"}),
    ("american", {"american_match": "rubber"}),
    ("american", {"american_target": 5}),
]


def play_game(variant: str, options: dict[str, Any], seed: int) -> State:
    """A seeded game: half the seeds random legal play, half the beginner bot."""
    rng = random.Random(seed)
    v = get_variant(variant, options)
    state = new_game(v, dealer=rng.randrange(4))
    bot = make_bot("beginner") if seed % 2 else None
    while not state.is_over:
        if state.needs_deal:
            dealt = deal_cards(rng, state.dealer)
            state = state.apply(Deal(dealt.hands, dealt.last_card if v.uses_turned_card else None))
            continue
        if bot is not None:
            action = bot.choose(state.view(state.to_play), rng)
        else:
            action = rng.choice(state.legal_actions())
        state = state.apply(action)
        assert len(state.results) < 200, "the game does not end"
    return state


def check_common(state: State) -> None:
    record = record_json = None
    record_json = dumps(state)
    record = loads(record_json)
    assert len(record.hands) == len(state.results)
    for hand, result in zip(record.hands, state.results, strict=True):
        assert len(hand.play) == 52
        assert sorted(hand.play) == list(range(52))
        assert hand.hands[0] | hand.hands[1] | hand.hands[2] | hand.hands[3] == FULL_DECK
        assert sum(result.tricks) == 13
        assert result.dealer == hand.dealer
        # what `whistkit match --contracts` names a variant's contracts by
        assert result.contract.code in state.variant.contract_codes
    # the deal passes to the left
    for a, b in zip(state.results, state.results[1:], strict=False):
        assert b.dealer == (a.dealer + 1) & 3
    # replay reproduces the game exactly
    again = replay(record)
    assert summarize(again) == summarize(state)
    assert dumps(again) == record_json


def check_felagsvist(state: State, options: dict[str, Any]) -> None:
    total = [0, 0]
    for r in state.results:
        assert sum(r.points) == 13
        total[0] += r.points[0]
        total[1] += r.points[1]
        assert r.score == (total[0], total[1])
    assert len(state.results) >= 12
    assert sum(state.score) == 13 * len(state.results)


def check_swedish(state: State, options: dict[str, Any]) -> None:
    target = options.get("sw_target", 13)
    total = [0, 0]
    for i, r in enumerate(state.results):
        # exactly one side scores each hand
        assert (r.points[0] > 0) != (r.points[1] > 0), r
        if r.contract.code == "SPEL":
            side = r.contract.declarer & 1
            d = r.tricks[side]
            expect = [0, 0]
            if d >= 7:
                expect[side] = d - 6
            else:
                expect[side ^ 1] = 2 * (7 - d)
        else:
            assert r.contract.code == "NOLLSPEL" and r.contract.declarer is None
            low = 0 if r.tricks[0] < r.tricks[1] else 1
            expect = [0, 0]
            expect[low] = 7 - r.tricks[low]
        assert list(r.points) == expect
        total[0] += r.points[0]
        total[1] += r.points[1]
        assert r.score == (total[0], total[1])
        last = i == len(state.results) - 1
        # the game ends in the hand a side reaches the target, not before
        assert (max(total) >= target) == last
    assert state.winner == ("NS" if total[0] >= target else "EW")


def english_value(losers: int) -> int:
    return {0: 3, 1: 2, 2: 2}.get(losers, 1)


def check_classic(state: State, options: dict[str, Any], english: bool) -> None:
    """Recompute every game and the rubber from tricks and honours held."""
    if english:
        target = options.get("english_target", 5)
        rubber = options.get("english_rubber", True)
    else:
        target = options.get("american_target", 7)
        rubber = options.get("american_match", "single") == "rubber"
    barred = options.get("honours_barred_at_four", True)
    diff = options.get("american_game_value") == "difference"
    score = [0, 0]
    games: list[tuple[int, tuple[int, int], int]] = []
    for r in state.results:
        start = tuple(score)
        winner = None
        for side in (0, 1):
            if r.tricks[side] > 6:
                score[side] += r.tricks[side] - 6
        if english:
            held = r.extra["honours_held"]
            if max(score) < target:
                for side in (0, 1):
                    if not (barred and start[side] == target - 1):
                        score[side] += {4: 4, 3: 2}.get(held[side], 0)
        assert r.score == tuple(score), (r, start)
        assert r.points == (score[0] - start[0], score[1] - start[1])
        reached = [s for s in (0, 1) if score[s] >= target]
        assert len(reached) <= 1
        if reached:
            winner = reached[0]
            lose = score[winner ^ 1]
            if english:
                value = english_value(lose)
            else:
                value = score[winner] - lose if diff else target - lose
            games.append((winner, (score[0], score[1]), value))
            assert r.extra["game"].value == value
            score = [0, 0]
    wins = [sum(1 for g in games if g[0] == s) for s in (0, 1)]
    summary = summarize(state)
    assert [(g["winner"], g["value"]) for g in summary["games"]] == [
        ("NS" if w == 0 else "EW", v) for w, _, v in games
    ]
    if rubber:
        assert max(wins) == 2 and len(games) in (2, 3)
        w = 0 if wins[0] == 2 else 1
        net = sum(v for s, _, v in games if s == w) + 2 - sum(v for s, _, v in games if s != w)
        assert summary["rubber"] == {"winner": "NS" if w == 0 else "EW", "net": net}
        assert state.winner == ("NS" if w == 0 else "EW")
    else:
        assert len(games) == 1 and "rubber" not in summary
        assert state.winner == ("NS" if games[0][0] == 0 else "EW")
    assert state.score == games[-1][1]


@pytest.mark.parametrize(("variant", "options"), CONFIGS, ids=[f"{v}-{o}" for v, o in CONFIGS])
def test_conformance(variant: str, options: dict[str, Any]) -> None:
    for seed in range(GAMES):
        state = play_game(variant, options, seed)
        check_common(state)
        if variant == "felagsvist":
            check_felagsvist(state, options)
        elif variant == "swedish":
            check_swedish(state, options)
        else:
            check_classic(state, options, english=variant == "english")


@pytest.mark.parametrize("variant", ["felagsvist", "swedish", "english", "american"])
def test_determinism(variant: str) -> None:
    for seed in range(20):
        assert dumps(play_game(variant, {}, seed)) == dumps(play_game(variant, {}, seed))
