"""Swedish bottom cards: the colour rules, the card shown, the expert's simulation."""

from __future__ import annotations

import random

from helpers_bots import TinySolver

from whistkit.bots import ClubBot, ExpertBot
from whistkit.bots.bidding import bottom_card, club_wants_red, expert_wants_red, fifths
from whistkit.cards import card_name, parse_hand
from whistkit.deal import deal_cards, parse_pbn
from whistkit.state import Deal, State, new_game
from whistkit.variants.swedish import BottomCard


def test_red_shows_a_spot_card_of_the_longest_red_suit() -> None:
    hand = parse_hand("AS KS QS AH 5H 4H 3H KD 2D 2C 3C 4C 5C")
    assert card_name(bottom_card(hand, red=True)) == "3H"


def test_black_shows_neither_an_exit_card_nor_an_unguarded_honour() -> None:
    hand = parse_hand("KS 2S AH 5H 4H 3H KD 2D 2C 3C 4C 7C QC")
    card = card_name(bottom_card(hand, red=False))
    assert card not in ("2S", "KS", "2C")  # lowest of a suit, or K with one guard
    assert card[1] in "SC"


def test_a_hand_without_the_colour_shows_the_other() -> None:
    hand = parse_hand("AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S")
    assert card_name(bottom_card(hand, red=True))[1] == "S"


def test_club_threshold_moves_with_earlier_blacks() -> None:
    hand = parse_hand("AS KS 5S AH 5H 4H KD 5D 4D 3D 2C 3C 4C")  # fifths 13.6
    assert abs(fifths(hand) - 13.6) < 1e-9
    assert club_wants_red(hand, 0, [])
    # a partner who showed black first is likely weak: need more
    assert not club_wants_red(hand, 0, [2, 2])  # (a partner listed twice: +1.4)
    # an opponent who showed black first is likely weak: need less
    assert club_wants_red(hand, 0, [1])


def _bidding_state(dealer: int, pbn: str | None = None) -> State:
    state = new_game("swedish", dealer=dealer)
    hands = parse_pbn(pbn, full=True) if pbn else deal_cards(random.Random(4), dealer).hands
    state = state.apply(Deal(hands))
    # everyone before the dealer commits a black card; the dealer reveals last
    while state.to_play != dealer:
        black = [
            a for a in state.legal_actions() if isinstance(a, BottomCard) and a.card // 13 in (0, 3)
        ]
        state = state.apply(black[0])
    return state


def test_expert_simulation_shows_red_with_a_rock_and_black_with_rags() -> None:
    # N is the dealer and reveals last: passing means nollspel
    strong = "N:AKQJ.AKQ.AKQ.AKQ T98.JT98.JT9.JT9 765.765.8765.876 432.432.432.5432"
    view = _bidding_state(0, strong).view(0)
    assert expert_wants_red(view, random.Random(1), worlds=6)
    weak = "N:432.432.432.5432 T98.JT98.JT9.JT9 765.765.8765.876 AKQJ.AKQ.AKQ.AKQ"
    view = _bidding_state(0, weak).view(0)
    assert not expert_wants_red(view, random.Random(1), worlds=6)


def test_expert_and_club_bots_commit_a_legal_bottom_card() -> None:
    state = _bidding_state(0)
    view = state.view(0)
    solver = TinySolver()
    for bot in (ClubBot(), ExpertBot(solver=solver, bid_worlds=4)):
        action = bot.choose(view, random.Random(2))
        assert action in view.legal
    red = ExpertBot(solver=solver, bidding="red").choose(view, random.Random(2))
    assert isinstance(red, BottomCard) and red.card // 13 in (1, 2)
