"""docs/rules.md §7 vectors V1-V10 (common trick rules and Félagsvist)."""

from __future__ import annotations

import pytest

from whisthelp import random_game
from whistkit.cards import card_name, parse_card, parse_hand
from whistkit.seats import EAST, NORTH, SOUTH, WEST
from whistkit.state import Deal, IllegalAction, State, new_game
from whistkit.variants import get_variant
from whistkit.variants.felagsvist import contract_of_hand


def make_deal(fixed: dict[int, str], voids: dict[int, str] | None = None) -> Deal:
    """A full deal giving each seat its fixed cards, the rest filled in order, honouring voids."""
    hands = {s: parse_hand(fixed.get(s, "")) for s in range(4)}
    used = 0
    for h in hands.values():
        used |= h
    voids = voids or {}
    for c in range(52):
        if used >> c & 1:
            continue
        suit = "SHDC"[c // 13]
        for s in range(4):
            if hands[s].bit_count() < 13 and suit not in voids.get(s, ""):
                hands[s] |= 1 << c
                break
        else:
            raise AssertionError(f"cannot place {card_name(c)}")
    return Deal((hands[0], hands[1], hands[2], hands[3]))


def play(state: State, *cards: str) -> State:
    for c in cards:
        state = state.apply(parse_card(c))
    return state


def test_v1_trump_wins_in_spades() -> None:
    # hand 2 is spades; dealer W so N leads
    s = new_game("felagsvist", dealer=WEST, hand_number=2)
    s = s.apply(make_deal({NORTH: "8D", EAST: "TD", SOUTH: "KD", WEST: "2S"}, {WEST: "D"}))
    assert s.contract is not None and s.contract.code == "S"
    assert s.to_play == NORTH
    s = play(s, "8D", "TD", "KD", "2S")
    assert s.trick_winners == (WEST,)
    assert s.to_play == WEST and s.tricks == (0, 1)


def test_v2_off_suit_ace_never_wins_in_grand() -> None:
    s = new_game("felagsvist", dealer=WEST, hand_number=3)
    s = s.apply(make_deal({NORTH: "5C", EAST: "JC", SOUTH: "AH", WEST: "4C"}, {SOUTH: "C"}))
    assert s.contract is not None and s.contract.code == "NT"
    s = play(s, "5C", "JC", "AH", "4C")
    assert s.trick_winners == (EAST,)


def test_v3_higher_trump_wins() -> None:
    # hand 5 is clubs; dealer N so E leads
    s = new_game("felagsvist", dealer=NORTH, hand_number=5)
    s = s.apply(
        make_deal({EAST: "QH", SOUTH: "3C", WEST: "9C", NORTH: "AH"}, {SOUTH: "H", WEST: "H"})
    )
    assert s.contract is not None and s.contract.code == "C"
    s = play(s, "QH", "3C", "9C", "AH")
    assert s.trick_winners == (WEST,)


def _with_hand(cards: str, trick: tuple[str, ...]) -> State:
    s = new_game("felagsvist", dealer=WEST).apply(make_deal({}))
    leader = (SOUTH - len(trick)) & 3
    holdings = list(s.holdings)
    holdings[SOUTH] = parse_hand(cards)
    return s.replace(
        holdings=tuple(holdings),
        leader=leader,
        to_play=SOUTH,
        trick=tuple(parse_card(c) for c in trick),
    )


@pytest.mark.parametrize(
    ("trick", "legal"),
    [(("5H",), {"2H", "KH"}), (("5D",), {"AS", "2H", "KH"}), ((), {"AS", "2H", "KH"})],
)
def test_v4_follow_suit(trick: tuple[str, ...], legal: set[str]) -> None:
    s = _with_hand("AS 2H KH", trick)
    assert {card_name(c) for c in s.legal_actions() if isinstance(c, int)} == legal
    for c in ("AS", "2H", "KH"):
        assert s.is_legal(parse_card(c)) == (c in legal)
    if trick == ("5H",):
        with pytest.raises(
            IllegalAction, match=r"S played AS but holds a heart \(must follow suit\)"
        ):
            s.check(parse_card("AS"))


def test_v5_contract_cycle() -> None:
    codes = [contract_of_hand(k).code for k in range(1, 13)]
    assert codes == ["H", "S", "NT", "D", "C", "NOLO"] * 2
    game = random_game("felagsvist", seed=5)
    assert [r.contract.code for r in game.results] == codes
    assert [r.contract.trump for r in game.results[:6]] == [1, 0, None, 2, 3, None]
    assert [r.contract.misere for r in game.results] == [False] * 5 + [True] + [False] * 5 + [True]


def test_v6_dealer_rotation_and_first_lead() -> None:
    s = new_game("felagsvist", dealer=WEST)
    import random

    rng = random.Random(6)
    dealers = []
    leaders = []
    while not s.is_over:
        if s.needs_deal:
            from whistkit.deal import deal_cards

            s = s.apply(Deal(deal_cards(rng, s.dealer).hands))
            dealers.append(s.dealer)
            leaders.append(s.to_play)
        else:
            s = s.apply(rng.choice(s.legal_actions()))
    assert dealers == [WEST, NORTH, EAST, SOUTH] * 3
    assert leaders[0] == NORTH
    assert leaders == [(d + 1) & 3 for d in dealers]
    assert [r.dealer for r in s.results] == dealers


def _score(hand_number: int, tricks: tuple[int, int]) -> tuple[int, int]:
    v = get_variant("felagsvist")
    s = new_game(v, dealer=WEST, hand_number=hand_number).apply(make_deal({}))
    done = v.finish_hand(s.replace(tricks=tricks))
    return done.results[-1].points


def test_v7_suit_round_scores_own_tricks() -> None:
    assert _score(1, (8, 5)) == (8, 5)


def test_v8_nolo_scores_other_sides_tricks() -> None:
    assert _score(6, (4, 9)) == (9, 4)
    assert _score(12, (4, 9)) == (9, 4)


def _game(ns_tricks: list[int], **options: object) -> State:
    v = get_variant("felagsvist", options)
    s = new_game(v, dealer=WEST)
    for k, t in enumerate(ns_tricks, 1):
        assert s.hand_number == k and s.needs_deal
        s = s.apply(make_deal({}))
        s = v.finish_hand(s.replace(tricks=(t, 13 - t)))
    return s


def test_v9_whole_game_total() -> None:
    s = _game([7, 6, 8, 5, 9, 3, 6, 7, 4, 8, 6, 2])
    assert s.score == (87, 69)
    assert s.is_over and s.winner == "NS"
    assert sum(s.score) == 156


def test_v10_draw_at_78() -> None:
    s = _game([7, 6, 7, 6, 7, 7, 6, 7, 6, 7, 6, 6])
    assert s.score == (78, 78)
    assert s.is_over and s.winner == "draw"


def test_v10_extra_hands_option_continues_the_cycle() -> None:
    s = _game([7, 6, 7, 6, 7, 7, 6, 7, 6, 7, 6, 6, 5], felag_tiebreak="extra_hands")
    assert s.results[11].score == (78, 78)
    assert s.results[12].contract.code == "H"  # hand 13 is Hearts
    assert s.score == (83, 86) and s.winner == "EW"


def test_nolo_aces_low_option() -> None:
    s = new_game("felagsvist", {"nolo_aces_low": True}, dealer=WEST, hand_number=6)
    s = s.apply(make_deal({NORTH: "AS", EAST: "2S", SOUTH: "3S", WEST: "4S"}))
    assert s.contract is not None and s.contract.aces_low
    s = play(s, "AS", "2S", "3S", "4S")
    assert s.trick_winners == (WEST,)  # the ace is the lowest spade
    s2 = new_game("felagsvist", dealer=WEST, hand_number=6)
    s2 = s2.apply(make_deal({NORTH: "AS", EAST: "2S", SOUTH: "3S", WEST: "4S"}))
    assert play(s2, "AS", "2S", "3S", "4S").trick_winners == (NORTH,)


def test_bad_options_are_named() -> None:
    from whistkit.variants import OptionError

    with pytest.raises(OptionError, match="unknown option 'trumps'"):
        get_variant("felagsvist", {"trumps": True})
    with pytest.raises(OptionError, match="felag_tiebreak"):
        get_variant("felagsvist", {"felag_tiebreak": "coin"})
    with pytest.raises(OptionError, match="true or false"):
        get_variant("felagsvist", {"nolo_aces_low": "yes"})


def test_view_shows_only_own_hand() -> None:
    s = new_game("felagsvist", dealer=WEST).apply(make_deal({}))
    for seat in range(4):
        v = s.view(seat)
        assert v.hand == s.holdings[seat]
        text = repr(v)
        for other in range(4):
            if other != seat:
                assert str(s.holdings[other]) not in text
    assert s.view(NORTH).legal and not s.view(EAST).legal
