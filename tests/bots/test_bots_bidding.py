"""Swedish bottom cards: the colour rules, the card shown, the expert's simulation."""

from __future__ import annotations

import random
from dataclasses import dataclass

from whistkit.bots import ClubBot, ExpertBot
from whistkit.bots.bidding import bottom_card, club_wants_red, expert_wants_red, fifths
from whistkit.cards import card_name, parse_hand
from whistkit.deal import deal_cards
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


@dataclass(frozen=True)
class _Pos:
    hands: tuple[int, int, int, int]
    trick: tuple[int, ...] = ()
    leader: int = 0
    trump: int | None = None
    misere: bool = False
    aces_low: bool = False


class _FixedSolver:
    """N-S take ``spel`` tricks in any spel and ``noll`` in nollspel."""

    Position = _Pos

    def __init__(self, spel: int, noll: int) -> None:
        self.spel, self.noll = spel, noll

    def solve_batch(self, positions: list[_Pos], *, cards: bool = False) -> list[int]:
        out = []
        for p in positions:
            ns = self.noll if p.misere else self.spel
            out.append(ns if p.leader & 1 == 0 else 13 - ns)
        return out


def _bidding_state(dealer: int) -> State:
    state = new_game("swedish", dealer=dealer)
    state = state.apply(Deal(deal_cards(random.Random(4), dealer).hands))
    # everyone before the dealer commits a black card; the dealer reveals last
    while state.to_play != dealer:
        black = [
            a for a in state.legal_actions() if isinstance(a, BottomCard) and a.card // 13 in (0, 3)
        ]
        state = state.apply(black[0])
    return state


def test_expert_simulation_compares_spel_and_nollspel_points() -> None:
    dealer = 0  # N reveals last: passing means nollspel
    view = _bidding_state(dealer).view(dealer)
    # spel: N-S take 8 (+2); nollspel: N-S take 6 (+1): show red
    assert expert_wants_red(view, random.Random(1), _FixedSolver(8, 6), worlds=8)
    # nollspel: N-S take 2 (+5): show black
    assert not expert_wants_red(view, random.Random(1), _FixedSolver(8, 2), worlds=8)


def test_expert_and_club_bots_commit_a_legal_bottom_card() -> None:
    state = _bidding_state(0)
    view = state.view(0)
    for bot in (ClubBot(), ExpertBot(solver=_FixedSolver(8, 2), bid_worlds=8)):
        action = bot.choose(view, random.Random(2))
        assert action in view.legal
    red = ExpertBot(solver=_FixedSolver(8, 2), bidding="red").choose(view, random.Random(2))
    assert isinstance(red, BottomCard) and red.card // 13 in (1, 2)
