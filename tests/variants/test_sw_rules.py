"""Swedish whist (docs/rules.md §3): vectors V11-V18 and the bottom-card views."""

from __future__ import annotations

import pytest
from _vhelp import deal_action, deal_with

from whistkit.cards import parse_card
from whistkit.seats import EAST, NORTH, SOUTH, WEST
from whistkit.state import BID, PLAY, IllegalAction, new_game
from whistkit.variants import OptionError, get_variant
from whistkit.variants.swedish import (
    NOLLSPEL,
    BottomCard,
    SwedishBidding,
    score_swedish,
    spel_contract,
)

C = parse_card


def bid(options=None, bottoms=None, dealer=NORTH, seed=0):
    """A Swedish hand dealt by ``dealer`` with the bottom cards committed (seat: name)."""
    bottoms = bottoms or {}
    hands = deal_with({s: [c] for s, c in bottoms.items()}, seed=seed, dealer=dealer)
    s = new_game("swedish", options, dealer=dealer).apply(deal_action(hands))
    for i in range(4):
        seat = (dealer + 1 + i) & 3
        s = s.apply(BottomCard(seat, C(bottoms[seat])))
    return s


V11 = {EAST: "7C", SOUTH: "3D", WEST: "5H", NORTH: "2C"}


@pytest.mark.parametrize(
    ("leader_rule", "leader"),
    [("forehand", EAST), ("left_of_declarer", WEST), ("right_of_declarer", EAST)],
)
def test_v11_first_red_makes_spel(leader_rule, leader):
    s = bid({"sw_spel_leader": leader_rule}, V11)
    assert s.phase == PLAY
    assert s.contract.code == "SPEL" and s.contract.declarer == SOUTH
    assert s.contract.declarer & 1 == 0  # side NS
    assert s.bidding.revealed == (EAST, SOUTH)  # W and N reveal nothing
    assert s.first_leader == leader and s.to_play == leader


def test_v11_views_show_revealed_cards_only():
    s = bid(None, V11)
    for seat in range(4):
        info = s.view(seat).public
        assert info["revealed"] == {"E": "7C", "S": "3D"}
        own = info.get("your bottom card")
        assert own == V11[seat]
        # nobody sees W's or N's unrevealed card unless it is his own
        text = repr(s.view(seat))
        for other in (WEST, NORTH):
            if other != seat:
                assert f"'{V11[other]}'" not in repr(info)
        assert "committed" not in info and text


def test_commitments_are_secret_during_bidding():
    hands = deal_with({EAST: ["7C"]})
    s = new_game("swedish", dealer=NORTH).apply(deal_action(hands))
    assert s.phase == BID and s.to_play == EAST and s.contract is None
    s = s.apply(BottomCard(EAST, C("7C")))
    assert s.view(SOUTH).public == {"committed": ["E"]}
    assert s.view(EAST).public["your bottom card"] == "7C"
    assert s.view(SOUTH).contract is None
    assert "7C" not in repr(s.view(SOUTH).public)


def test_v12_all_black_is_nollspel():
    s = bid(None, {EAST: "2S", SOUTH: "9C", WEST: "QS", NORTH: "3C"})
    assert s.contract == NOLLSPEL and s.contract.misere and s.contract.trump is None
    assert s.first_leader == EAST
    assert s.bidding.revealed == (EAST, SOUTH, WEST, NORTH)


@pytest.mark.parametrize("rule", ["forehand", "left_of_declarer", "right_of_declarer"])
def test_nollspel_forehand_leads_whatever_the_spel_option(rule):
    s = bid({"sw_spel_leader": rule}, {EAST: "2S", SOUTH: "9C", WEST: "QS", NORTH: "3C"})
    assert s.first_leader == EAST


def test_simultaneous_reveal_first_red_from_forehand_declares():
    bottoms = {EAST: "2S", SOUTH: "9C", WEST: "QH", NORTH: "3D"}
    s = bid({"sw_simultaneous_reveal": True}, bottoms)
    assert s.contract.declarer == WEST
    assert s.bidding.revealed == (EAST, SOUTH, WEST, NORTH)
    assert s.view(SOUTH).public["revealed"] == {"E": "2S", "S": "9C", "W": "QH", "N": "3D"}
    # without the option the reveal stops at W and N's card stays hidden
    s2 = bid(None, bottoms)
    assert s2.contract.declarer == WEST
    assert s2.view(SOUTH).public["revealed"] == {"E": "2S", "S": "9C", "W": "QH"}


def test_bidding_errors_name_the_rule():
    hands = deal_with({EAST: ["7C"], SOUTH: ["3D"]})
    s = new_game("swedish", dealer=NORTH).apply(deal_action(hands))
    with pytest.raises(IllegalAction, match="from forehand clockwise"):
        s.check(BottomCard(SOUTH, C("3D")))
    with pytest.raises(IllegalAction, match="own cards"):
        s.check(BottomCard(EAST, C("3D")))
    with pytest.raises(IllegalAction, match="bottom card before play"):
        s.check(C("7C"))
    assert len(s.legal_actions()) == 13
    assert all(isinstance(a, BottomCard) and a.seat == EAST for a in s.legal_actions())


def test_revealed_cards_stay_in_hand_and_are_played():
    s = bid(None, V11)
    assert s.holdings[SOUTH] >> C("3D") & 1
    assert s.holdings[EAST] >> C("7C") & 1


@pytest.mark.parametrize(
    ("vector", "contract", "tricks", "points"),
    [
        ("V13", spel_contract(NORTH), (9, 4), (3, 0)),
        ("V14", spel_contract(SOUTH), (5, 8), (0, 4)),
        ("V15", spel_contract(NORTH), (6, 7), (0, 2)),
        ("V16a", spel_contract(NORTH), (0, 13), (0, 14)),
        ("V16b", spel_contract(NORTH), (13, 0), (7, 0)),
        ("V17a", NOLLSPEL, (4, 9), (3, 0)),
        ("V17b", NOLLSPEL, (6, 7), (1, 0)),
        ("V17c", NOLLSPEL, (0, 13), (7, 0)),
        ("V17d", NOLLSPEL, (7, 6), (0, 1)),
        ("EW declare", spel_contract(EAST), (4, 9), (0, 3)),
        ("EW fail", spel_contract(WEST), (8, 5), (4, 0)),
    ],
)
def test_v13_v17_scoring(vector, contract, tricks, points):
    assert score_swedish(contract, tricks) == points, vector


def test_v18_game_ends_when_a_side_reaches_target():
    v = get_variant("swedish")
    s = bid(None, {EAST: "7H", SOUTH: "2C", WEST: "2S", NORTH: "3S"})
    assert s.contract.declarer == EAST
    state = s.replace(score=(11, 9), tricks=(9, 4), trick_winners=(0,) * 13)
    hs = v.score_hand(state)
    assert hs.points == (6, 0) and hs.score == (17, 9) and hs.winner == "NS"
    done = v.finish_hand(state)
    assert done.is_over and done.winner == "NS" and done.score == (17, 9)


def test_target_option():
    v = get_variant("swedish", {"sw_target": 3})
    s = bid({"sw_target": 3}, V11).replace(tricks=(9, 4))
    hs = v.score_hand(s)
    assert hs.winner == "NS" and hs.score == (3, 0)
    assert get_variant("swedish").score_hand(s).winner is None


@pytest.mark.parametrize(
    ("opts", "match"),
    [
        ({"sw_spel_leader": "dealer"}, "sw_spel_leader"),
        ({"sw_target": 0}, "positive integer"),
        ({"sw_simultaneous_reveal": "yes"}, "true or false"),
        ({"nolo_aces_low": True}, "unknown option"),
    ],
)
def test_options_are_validated(opts, match):
    with pytest.raises(OptionError, match=match):
        get_variant("swedish", opts)


def test_aliases():
    assert get_variant("fyrmanswhist").name == "swedish"
    assert isinstance(SwedishBidding(), SwedishBidding)
