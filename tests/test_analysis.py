"""``whistkit.analysis`` and ``whistkit analyse``: the double-dummy review of a record.

Oracle tests: a game played double-dummy by all four seats gives up no trick and every
hand ends at par; each judged ending matches the pure-Python solver; a laws-mode game
with irregularities leaves exactly the irregular cards unjudged.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from variants.test_conformance_laws import play_laws_game
from whisthelp import random_game
from whistkit.analysis import (
    GameAnalysis,
    HandAnalysis,
    Judgement,
    analyse,
    positions,
    report,
    solver_position,
)
from whistkit.bots import make_bot
from whistkit.bots.pimc import OracleBot
from whistkit.cards import parse_card, parse_hand
from whistkit.cli import main
from whistkit.deal import deal_cards
from whistkit.game import Game
from whistkit.record import dumps, loads, record_of
from whistkit.solver import Bounds, Position, reference, solve_cards
from whistkit.state import Deal, State, new_game


def oracle_game(variant: str, seed: int) -> State:
    """A whole game with the oracle at every seat."""
    rng = random.Random(seed)
    oracle = OracleBot()
    s = new_game(variant, dealer=rng.randrange(4))
    while not s.is_over:
        if s.needs_deal:
            dealt = deal_cards(rng, s.dealer)
            s = s.apply(Deal(dealt.hands, dealt.last_card if s.variant.uses_turned_card else None))
        else:
            s = s.apply(oracle.act(s, s.to_play, rng))
    return s


def bot_record(variant: str, seed: int, level: str = "beginner") -> str:
    g = Game(variant, seed=seed, bots={s: make_bot(level) for s in range(4)})
    g.run_bots()
    return dumps(g.state)


@pytest.mark.parametrize("variant", ["felagsvist", "english"])
def test_double_dummy_play_gives_nothing_away(variant: str) -> None:
    game = oracle_game(variant, seed=3)
    # the oracle plays deep misère by the club rules: the Nóló hands are not judged here
    # (and would cost most of the test's time)
    normal = [r.number for r in game.results if r.contract is None or not r.contract.misere]
    a = analyse(record_of(game), node_limit=10_000_000, hands=normal)
    assert {h.number for h in a.hands} == set(normal)
    checked = 0
    for h in a.hands:
        assert h.contract != "NOLO"
        assert h.par_ns == h.tricks_ns, f"hand {h.number}"
        for j in h.judgements:
            assert j.loss == 0, f"hand {h.number}, trick {j.trick}: {j}"
            checked += 1
    assert checked > 100


def test_beginners_give_tricks_away_and_the_losses_add_up() -> None:
    a = analyse(loads(bot_record("felagsvist", seed=11)), node_limit=300_000)
    seats = a.seats()
    assert sum(v.tricks_lost for v in seats.values()) > 10
    for h in a.hands:
        for j in h.judgements:
            if j.values is None:
                continue
            assert j.card in j.values and set(j.values) == set(j.legal)
            assert j.best and all(j.values[c] == j.best_value for c in j.best)
            assert j.loss == abs(j.values[j.card] - j.values[j.best[0]])
            # misère: the best card takes the fewest tricks
            worse = [v for v in j.values.values() if v != j.best_value]
            if j.misere:
                assert all(v > j.best_value for v in worse)  # type: ignore[operator]
            else:
                assert all(v < j.best_value for v in worse)  # type: ignore[operator]


@pytest.mark.parametrize("variant,seed", [("felagsvist", 21), ("swedish", 23), ("american", 23)])
def test_endings_match_the_reference_solver(variant: str, seed: int) -> None:
    a = analyse(loads(bot_record(variant, seed)), node_limit=300_000)
    checked = misere = 0
    for h in a.hands:
        for j in h.judgements:
            pos = j.position
            assert pos is not None
            if pos.tricks_left > 3:
                continue
            assert j.values is not None
            assert dict(j.values) == reference.solve_cards(pos), f"hand {h.number} {pos}"
            checked += 1
            misere += j.misere
    assert checked > 20
    if variant != "american":
        assert misere > 0


def test_laws_game_leaves_the_irregular_cards_unjudged() -> None:
    irregular = judged = 0
    for seed in range(6):
        state, _ = play_laws_game("english", {}, seed)
        a = analyse(record_of(state))
        for h in a.hands:
            irregular += h.irregular
            for j in h.judgements:
                assert j.values is None or set(j.values) == set(j.legal)
                judged += 1
    assert irregular > 0 and judged > 100


def test_node_limit_leaves_deep_positions_unjudged() -> None:
    record = loads(bot_record("felagsvist", seed=5))
    a = analyse(record, node_limit=200, normal_retry=1, hands={1})
    assert [h.number for h in a.hands] == [1]
    unsolved = [j for j in a.hands[0].judgements if not j.solved]
    assert unsolved and all(j.position is not None for j in unsolved)
    assert all(j.position.tricks_left > 2 for j in unsolved if j.position)
    assert a.seats()[0].unsolved + a.seats()[2].unsolved > 0
    assert "beyond the node limit" in report(a)
    # what the search proved: every range holds the exact value (no limit)
    short = [j for j in unsolved if j.position.tricks_left <= 7]
    assert short
    for j in unsolved:
        assert j.bounds is not None and j.value_bounds is not None
    for j in short:
        assert j.bounds is not None and j.value_bounds is not None
        exact = solve_cards(j.position)
        assert all(exact[c] in j.bounds[c] for c in j.legal)
        best = (min if j.misere else max)(exact.values())
        assert best in j.value_bounds
        assert j.to_json()["best_range"] == [j.value_bounds.lo, j.value_bounds.hi]
    h = a.hands[0]
    assert h.par_range is not None and h.to_json()["par_ns_range"] == [
        h.par_range.lo,
        h.par_range.hi,
    ]
    if h.par_ns is None:
        assert "(a range: not settled within the node limit)" in report(a)


def test_normal_play_left_unsettled_is_searched_again_with_more_nodes() -> None:
    record = loads(bot_record("felagsvist", seed=5))  # hand 1: hearts trump
    once = analyse(record, node_limit=2_000, normal_retry=1, hands={1}).hands[0]
    again = analyse(record, node_limit=2_000, hands={1}).hands[0]
    assert not once.misere
    before = [j for j in once.judgements if not j.solved]
    after = [j for j in again.judgements if not j.solved]
    assert before and len(after) < len(before)
    for j, k in zip(once.judgements, again.judgements, strict=True):
        if j.solved:
            assert k.values == j.values  # the settled ones are untouched
        elif k.solved:
            assert k.values is not None and j.bounds is not None
            assert all(k.values[c] in j.bounds[c] for c in j.legal)
    # misère keeps its ranges: no second search
    nolo = analyse(record, node_limit=2_000, hands={6}).hands[0]
    nolo_once = analyse(record, node_limit=2_000, normal_retry=1, hands={6}).hands[0]
    assert nolo.misere and nolo.judgements == nolo_once.judgements
    with pytest.raises(ValueError, match="normal_retry must be at least 1, not 0"):
        analyse(record, normal_retry=0)


def test_a_settled_best_value_is_the_par_though_a_card_is_not() -> None:
    """The opening lead's best value proven exact (lo == hi) while another card's value
    is still a range: the par is that value, not unknown beside a range of one value."""
    record = loads(bot_record("felagsvist", seed=5))
    h = analyse(record, node_limit=200, hands={1}).hands[0]
    first = h.judgements[0]
    assert first.trick == 1 and first.seat == h.leader and first.position is not None
    exact = solve_cards(first.position)
    best = max(exact.values())
    bounds = {c: Bounds(exact[c], exact[c]) for c in first.legal}
    worst = min(first.legal, key=lambda c: exact[c])
    bounds[worst] = Bounds(exact[worst], best)  # this card not settled
    h.judgements[0] = replace(first, values=None, bounds=bounds, value_bounds=Bounds(best, best))
    par = best if first.seat % 2 == 0 else 13 - best
    assert h.par_ns == par
    assert h.to_json()["par_ns"] == par and h.to_json()["par_ns_range"] == [par, par]


def test_unfinished_game() -> None:
    state = random_game("felagsvist", seed=8)
    g = new_game("felagsvist", dealer=state.results[0].dealer)
    for action in state.actions()[:80]:  # hand 2 stops in its 7th trick
        g = g.apply(action)
    a = analyse(record_of(g))
    assert [h.tricks_ns is None for h in a.hands] == [False, True]
    assert "unfinished" in report(a)


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["analyse", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(bot_record("felagsvist", seed=2), encoding="utf-8")
    code, out, err = run(tmp_path, capsys, str(path), "--hand", "1", "--hand", "2")
    assert code == 0, err
    assert "Hand 1 - Hearts" in out and "Hand 2 - Spades" in out and "Hand 3" not in out
    assert "given up (best" in out and "seat  judged" in out
    code, out, err = run(tmp_path, capsys, str(path), "--json", "--compact", "--hand", "6")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    assert out.count("\n") == 1
    (hand,) = data["hands"]
    assert hand["contract"] == "NOLO" and hand["number"] == 6
    assert hand["misere"] is True and hand["aces_low"] is False
    card = next(c for c in hand["cards"] if c.get("solved", True))
    assert set(card) == {"trick", "seat", "card", "value", "best_value", "best", "loss", "values"}
    assert set(data["seats"]) == {"N", "E", "S", "W"}


@pytest.mark.parametrize(
    "args,message",
    [
        (["missing.json"], "whistkit analyse: cannot read missing.json"),
        (["{game}", "--hand", "13"], "the record has no hand 13 (it holds 12 hands)"),
        (["{game}", "--node-limit", "0"], "--node-limit must be at least 1, not 0"),
        (["{game}", "--compact"], "--compact is for --json output (one line of JSON)"),
        (["{bad}"], "hand 1, trick 1: "),
    ],
)
def test_cli_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    game = tmp_path / "game.json"
    game.write_text(bot_record("felagsvist", seed=4), encoding="utf-8")
    data = json.loads(game.read_text(encoding="utf-8"))
    # the second seat of hand 1 plays the leader's card
    play = data["hands"][0]["play"]
    play[0], play[1] = play[1], play[0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    args = [a.format(game=game, bad=bad) for a in args]
    code, out, err = run(tmp_path, capsys, *args)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_positions_walk_every_card_of_a_record_or_a_state() -> None:
    state = random_game("felagsvist", seed=8, options={"nolo_aces_low": True})
    record = record_of(state)
    walked = list(positions(record))
    assert walked == list(positions(state))
    assert [p.card for p in walked] == [c for h in record.hands for c in h.play]
    assert [(p.hand, p.trick) for p in walked[:6]] == [(1, 1)] * 4 + [(1, 2)] * 2
    assert [p.hand for p in walked[::52]] == list(range(1, 13))
    for p in walked:
        before = p.state
        assert p.seat == before.to_play and p.card in p.legal
        assert p.legal == tuple(a for a in before.legal_actions())
        pos = p.position
        assert pos == solver_position(before)
        assert pos.hands == before.holdings and pos.trick == before.trick
        assert pos.leader == before.leader and pos.to_play == p.seat
        contract = before.contract
        assert contract is not None
        assert (pos.trump, pos.misere, pos.aces_low) == (
            contract.trump,
            contract.misere,
            contract.aces_low,
        )
    assert any(p.position.aces_low for p in walked)  # Nóló with aces low
    # a game started at a later hand walks from there
    later = new_game("felagsvist", dealer=1, hand_number=6)
    later = later.apply(Deal(deal_cards(random.Random(1), 1).hands))
    later = later.apply(later.legal_actions()[0])
    (only,) = positions(later)
    assert (only.hand, only.trick, only.seat) == (6, 1, 2) and only.position.misere


def test_solver_position_names_what_it_needs() -> None:
    with pytest.raises(TypeError, match=r"takes a State \(a game\), got a Record: walk a"):
        solver_position(record_of(new_game("felagsvist")))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs a hand in play, but the game is in phase 'deal'"):
        solver_position(new_game("felagsvist"))
    swedish = new_game("swedish").apply(Deal(deal_cards(random.Random(2), 0).hands))
    with pytest.raises(ValueError, match=r"the bidding is not over \(no contract yet\)"):
        solver_position(swedish)
    over = random_game("english", seed=3)
    with pytest.raises(ValueError, match="the game is in phase 'over'"):
        solver_position(over)
    with pytest.raises(TypeError, match=r"positions\(\) takes a Record .* or a State, got a str"):
        positions(dumps(over))  # type: ignore[arg-type]


def test_analyse_refuses_arguments_of_the_wrong_type() -> None:
    state = random_game("felagsvist", seed=8)
    with pytest.raises(TypeError, match="node_limit must be a whole number, not a float"):
        analyse(state, node_limit=1e6)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="hands must be a set of hand numbers, not an int"):
        analyse(state, hands=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="hands must be hand numbers"):
        analyse(state, hands={"1"})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="threads must be at least 1, not 0"):
        analyse(state, threads=0)


def _judged(
    trick: int, seat: int, card: str, values: dict[str, int] | None, misere: bool
) -> Judgement:
    legal = tuple(parse_card(c) for c in (values or {card: 0, "2C": 0}))
    hands = (parse_hand("AS KS"), parse_hand("QS JS"), parse_hand("TS 9S"), parse_hand("8S 7S"))
    return Judgement(
        hand=1,
        trick=trick,
        seat=seat,
        card=parse_card(card),
        legal=legal,
        misere=misere,
        position=Position(hands=hands, leader=seat),
        values=None if values is None else {parse_card(c): v for c, v in values.items()},
    )


def test_report_words_misere_losses_as_tricks_more_taken() -> None:
    nolo = HandAnalysis(6, "NOLO", "Nóló", dealer=0, leader=1, tricks_ns=5, misere=True)
    nolo.judgements = [
        _judged(1, 1, "AS", None, misere=True),  # the opening lead, beyond the node limit
        _judged(2, 3, "2H", {"2H": 4, "3H": 1}, misere=True),
        _judged(3, 0, "KH", {"KH": 2, "4H": 1}, misere=True),
    ]
    hearts = HandAnalysis(1, "H", "Hearts", dealer=3, leader=0, tricks_ns=8)
    hearts.judgements = [
        _judged(1, 0, "AS", {"AS": 8, "KS": 8}, misere=False),
        _judged(5, 2, "QD", {"QD": 2, "KD": 3}, misere=False),
    ]
    text = report(GameAnalysis("felagsvist", "Félagsvist", 1000, [hearts, nolo]))
    assert "  trick  2  W played 2H: 3 tricks more taken (best 3H)" in text
    assert "  trick  3  N played KH: 1 trick more taken (best 4H)" in text
    assert "  trick  5  S played QD: 1 trick given up (best KD)" in text
    assert "Hand 1 - Hearts (dealer W, N leads): par N-S 8, N-S took 8" in text
    # was "par N-S ?"
    assert (
        "Hand 6 - Nóló (dealer N, E leads): par N-S not solved within the node limit,"
        " N-S took 5" in text
    )
    assert text.endswith("(in Nóló, the tricks given up are the tricks more taken)")
    unjudged = HandAnalysis(2, "S", "Spades", dealer=0, leader=1, tricks_ns=None)
    text = report(GameAnalysis("felagsvist", "Félagsvist", 1000, [unjudged]))
    assert "par N-S unknown (the opening lead was not judged), unfinished" in text
    assert "given up are the tricks more taken" not in text


def test_cli_misere_hand_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(bot_record("felagsvist", seed=2), encoding="utf-8")
    code, out, err = run(tmp_path, capsys, str(path), "--hand", "6", "--node-limit", "300000")
    assert code == 0, err
    assert "Hand 6 - Nóló" in out and "given up (best" not in out
    assert "more taken (best" in out or "no card took a trick too many" in out
    assert out.rstrip().endswith("(in Nóló, the tricks given up are the tricks more taken)")


def test_json_marks_aces_low_nolo_hands() -> None:
    state = random_game("felagsvist", seed=8, options={"nolo_aces_low": True})
    data = analyse(state, hands=[1, 6], node_limit=20_000).to_json()
    flags = {h["contract"]: (h["misere"], h["aces_low"]) for h in data["hands"]}
    assert flags == {"H": (False, False), "NOLO": (True, True)}
