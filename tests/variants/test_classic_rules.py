"""Classic whist (docs/rules.md §4-5): the turned trump, English and American scoring."""

from __future__ import annotations

import pytest
from _vhelp import deal_action, deal_with

from whistkit.cards import parse_card
from whistkit.seats import EAST, NORTH, SOUTH, WEST
from whistkit.state import PLAY, IllegalAction, new_game
from whistkit.variants import OptionError, get_variant
from whistkit.variants.classic import (
    American,
    English,
    GameResult,
    american_game_value,
    english_game_value,
    honours_held,
    rubber_result,
    score_american,
    score_english,
)

C = parse_card


def start(variant="english", options=None, dealer=NORTH, turned="AS", required=None, seed=0):
    req = {dealer: [turned], **(required or {})}
    if dealer in (required or {}):
        req[dealer] = [turned, *required[dealer]]
    hands = deal_with(req, seed=seed, dealer=dealer)
    return new_game(variant, options, dealer=dealer).apply(deal_action(hands, turned))


def test_turned_card_fixes_trump_and_is_public_until_played():
    s = start(turned="7H", dealer=NORTH)
    assert s.phase == PLAY and s.contract.trump == 1 and s.contract.code == "H"
    assert s.first_leader == EAST  # forehand leads (§4.3)
    for seat in range(4):
        assert s.view(seat).public["turned"] == "7H"
    # play until the dealer (N) has played the 7H
    while s.phase == PLAY and not s.played_mask >> C("7H") & 1:
        seat = s.to_play
        legal = s.legal_actions()
        action = C("7H") if C("7H") in legal else legal[0]
        s = s.apply(action)
        assert seat != NORTH or action != C("7H") or "turned" not in s.view(EAST).public
    assert "turned" not in s.view(SOUTH).public


def test_turned_card_must_be_the_dealers():
    hands = deal_with({EAST: ["7H"]})
    s = new_game("english", dealer=NORTH)
    with pytest.raises(IllegalAction, match="not in the dealer's hand"):
        s.apply(deal_action(hands, "7H"))
    with pytest.raises(IllegalAction, match="dealer's last card is trump"):
        s.apply(deal_action(hands))


def test_v20_honours_counted_with_the_turned_card():
    s = start(turned="AS", required={SOUTH: ["KS", "QS"], EAST: ["JS"]})
    assert honours_held(s.deal, 0) == (3, 1)
    hand = score_english((0, 0), (6, 7), honours_held(s.deal, 0))
    assert hand.honours == (2, 0)


@pytest.mark.parametrize(
    ("vector", "start_score", "tricks", "held", "score", "winner", "value"),
    [
        ("V21", (0, 0), (8, 5), (3, 1), (4, 0), None, None),
        ("V22", (3, 2), (6, 7), (4, 0), (7, 3), 0, 1),
        ("V23", (3, 2), (8, 5), (0, 4), (5, 2), 0, 2),
        ("V24", (4, 2), (5, 8), (4, 0), (4, 4), None, None),
    ],
)
def test_v21_v24_english_hands(vector, start_score, tricks, held, score, winner, value):
    hand = score_english(start_score, tricks, held)
    assert hand.score == score, vector
    assert hand.winner == winner
    if winner is not None:
        assert english_game_value(score[winner ^ 1]) == value


def test_v23_honours_not_scored_once_game_is_reached():
    hand = score_english((3, 2), (8, 5), (0, 4))
    assert hand.honours == (0, 0)


def test_honours_barred_option():
    assert score_english((4, 2), (5, 8), (4, 0), barred_at_four=False).score == (8, 4)


def test_v25_v27_revoke_methods_pure():
    # V25 add: NS +3 reach 5 at step 1; EW's 13 tricks and honours are not scored
    h = score_english((2, 0), (0, 13), (0, 4), ((1, "add"),))
    assert h.score == (5, 0) and h.winner == 0 and english_game_value(0) == 3
    assert h.penalties == (3, 0)
    # V26 deduct: EW 4-3 = 1, tricks +4 = 5 capped at 4
    h = score_english((1, 4), (3, 10), (0, 0), ((1, "deduct"),))
    assert h.score == (1, 4) and h.winner is None and h.penalties == (0, -3)
    # V27 transfer: tricks 8/5 become 5/8, EW +2, NS honours +2
    h = score_english((0, 0), (8, 5), (3, 1), ((0, "transfer"),))
    assert h.tricks == (5, 8) and h.score == (2, 2) and h.honours == (2, 0)


def test_english_game_values():
    assert [english_game_value(x) for x in range(5)] == [3, 2, 2, 1, 1]


@pytest.mark.parametrize(
    ("games", "winner", "net"),
    [
        ([(0, (5, 4)), (1, (1, 5)), (0, (5, 0))], 0, 4),  # V29
        ([(0, (5, 0)), (0, (5, 3))], 0, 6),  # V30
        ([(1, (2, 5)), (1, (0, 5))], 1, 2 + 3 + 2),
    ],
)
def test_v29_v30_rubber(games, winner, net):
    results = tuple(GameResult(w, sc, english_game_value(sc[w ^ 1])) for w, sc in games)
    rubber = rubber_result(results)
    assert rubber is not None and rubber.winner == winner and rubber.net == net
    assert rubber_result(results[:1]) is None


def test_v30_no_third_game_through_the_engine():
    v = get_variant("english")
    s = start()
    # game 1: NS 5-0 in one hand of 11 tricks and no honours
    s1 = v.finish_hand(s.replace(tricks=(11, 2), deal=_no_honours(s.deal)))
    assert not s1.is_over and s1.score == (0, 0) and s1.results[-1].score == (5, 0)
    assert s1.extra == (GameResult(0, (5, 0), 3),)
    s2 = s1.apply(deal_action(deal_with({EAST: ["AS"]}, seed=1, dealer=EAST), "AS"))
    s2 = v.finish_hand(s2.replace(score=(2, 3), tricks=(9, 4), deal=_no_honours(s2.deal)))
    assert s2.is_over and s2.winner == "NS"
    from whistkit.record import summarize

    summary = summarize(s2)
    assert summary["rubber"] == {"winner": "NS", "net": 6}
    assert [g["value"] for g in summary["games"]] == [3, 1]
    assert summary["score"] == {"NS": 5, "EW": 3}


def _no_honours(deal):
    """The deal with the spade honours spread 2-2 so that no honours score."""
    hands = list(deal)
    want = {0: ["AS", "KS"], 1: ["QS", "JS"]}
    for side, names in want.items():
        for name in names:
            c = C(name)
            owner = next(s for s in range(4) if hands[s] >> c & 1)
            if owner & 1 == side:
                continue
            target = side  # seat N or E
            give = next(x for x in range(52) if hands[target] >> x & 1 and x // 13 != 0)
            hands[target] ^= (1 << give) | (1 << c)
            hands[owner] ^= (1 << give) | (1 << c)
    return tuple(hands)


def test_single_english_game_option():
    v = get_variant("english", {"english_rubber": False})
    s = start("english", {"english_rubber": False})
    done = v.finish_hand(s.replace(tricks=(11, 2), deal=_no_honours(s.deal)))
    assert done.is_over and done.winner == "NS"
    from whistkit.record import summarize

    assert "rubber" not in summarize(done) and len(summarize(done)["games"]) == 1


def test_v31_american():
    h = score_american((5, 3), (9, 4))
    assert h.score == (8, 3) and h.winner == 0
    assert american_game_value(8, 3, "seven_minus_losers") == 4
    assert american_game_value(8, 3, "difference") == 5
    for rule, value in (("seven_minus_losers", 4), ("difference", 5)):
        v = get_variant("american", {"american_game_value": rule})
        s = start("american", {"american_game_value": rule}).replace(score=(5, 3), tricks=(9, 4))
        done = v.finish_hand(s)
        assert done.is_over and done.winner == "NS" and done.score == (8, 3)
        assert done.extra[-1].value == value


def test_v32_v33_american_revokes_pure():
    assert score_american((0, 0), (6, 7), (1,)).score == (2, 1)
    h = score_american((6, 2), (8, 5), (0,))
    assert h.score == (6, 4) and h.winner is None
    # without the cap NS would reach 8
    assert score_american((6, 2), (8, 5), (0,), revoker_capped=False).score == (8, 4)


def test_american_rubber_option():
    v = get_variant("american", {"american_match": "rubber"})
    s = start("american", {"american_match": "rubber"}).replace(score=(5, 3), tricks=(9, 4))
    done = v.finish_hand(s)
    assert not done.is_over and done.score == (0, 0)
    assert done.extra == (GameResult(0, (8, 3), 4),)


def test_american_scores_no_honours():
    s = start("american", turned="AS", required={NORTH: ["KS", "QS", "JS"]})
    hs = get_variant("american").score_hand(s.replace(tricks=(6, 7)))
    assert hs.points == (0, 1)


def test_registry_and_aliases():
    assert isinstance(get_variant("short"), English)
    assert isinstance(get_variant("whist"), English)
    assert isinstance(get_variant("whist", {"classic_scoring": "american"}), American)
    assert isinstance(get_variant("american"), American)
    with pytest.raises(OptionError, match="classic_scoring"):
        get_variant("english", {"classic_scoring": "american"})
    with pytest.raises(OptionError, match="revoke_method"):
        get_variant("english", {"revoke_method": "fine"})
    with pytest.raises(OptionError, match="unknown option"):
        get_variant("american", {"honours_barred_at_four": False})


def test_deal_passes_left():
    s = start(dealer=WEST)
    v = s.variant
    after = v.finish_hand(s.replace(tricks=(7, 6)))
    assert after.dealer == NORTH and after.hand_number == 2
