"""The expert's weighted worlds: the softened club policy's likelihood of the play so far
(docs/bots.md, "Weighted worlds")."""

from __future__ import annotations

import math
import random

import pytest
from helpers_bots import club_hand
from test_bots_inference import _hand_state

from whistkit import solver
from whistkit.bots import ExpertBot
from whistkit.bots.inference import HIT, PARTNER_HIT, policy_model, policy_weight
from whistkit.bots.lookahead import Lookahead
from whistkit.bots.pimc import _clear_gain, _weights, hand_scorer
from whistkit.cards import parse_card
from whistkit.seats import side_of


def _swap(hands: list[int], a: int, b: int, card_a: str, card_b: str) -> None:
    """Seat ``a`` gives ``card_a`` to seat ``b`` and takes ``card_b`` from it."""
    x, y = 1 << parse_card(card_a), 1 << parse_card(card_b)
    hands[a] ^= x | y
    hands[b] ^= x | y


def test_a_forced_card_tells_more_than_a_chosen_one() -> None:
    # hearts: N leads AS, E 4S, S 8S, W 6S, as N sees it. W's 6S was its only spade in
    # the true deal (probability 1); in a world where W also held the QS, the 6S is still
    # the club card (fourth hand cannot beat the ace: lowest) but a choice (probability
    # HIT). The drawing's weight cannot tell the two worlds apart; the soft policy can.
    state = _hand_state(1, "AS 4S 8S 6S")
    model = policy_model(state.view(0))
    assert model is not None
    weight, ratio = model
    true = state.holdings
    hands = list(true)
    _swap(hands, 1, 3, "QS", "AD")  # E gives W the QS for the AD
    chosen = tuple(hands)
    assert weight(true) == weight(chosen) == 1.0
    # E's 4S (second hand low) and partner S's 8S (the lowest of T987) were chosen in both
    assert math.isclose(ratio(true), HIT * PARTNER_HIT)
    assert math.isclose(ratio(chosen), HIT * HIT * PARTNER_HIT)
    assert weight(chosen) * ratio(chosen) < weight(true) * ratio(true)


def test_a_world_against_a_signalled_card_weighs_less_the_more_cards_it_had() -> None:
    # as W sees it: S played the 8S under partner N's ace. With T987 that is the club
    # card (equal to the 7S); with T985 (E holding QJ74) the club card was the 5S, so the
    # 8S was one of the three other cards: (1 - HIT) / 3 against HIT
    state = _hand_state(1, "AS 4S 8S 6S")
    model = policy_model(state.view(3))
    assert model is not None
    weight, ratio = model
    true = state.holdings
    hands = list(true)
    _swap(hands, 2, 1, "7S", "5S")
    against = tuple(hands)

    def soft(world: tuple[int, ...]) -> float:
        return weight(world) * ratio(world)

    assert soft(against) < soft(true)
    assert math.isclose(soft(against) / soft(true), (1 - HIT) / 3 / HIT)
    # the drawing's own weight gives a miss the same factor whatever the seat held
    old = policy_weight(state.view(3))
    assert old is not None
    assert old(against) == weight(against)


def test_weights_are_deterministic_for_a_seed_and_differ_between_worlds() -> None:
    for number in (1, 3, 6):  # hearts, Grand, Nóló
        state = club_hand(number, number + 20, 21)
        view = state.view(state.to_play)
        drawn = []
        for _ in range(2):
            # (no signal: the club bots' cards from runs fit no convention)
            draw, weigh = ExpertBot(weigh=True, signal=None)._drawer(view, random.Random(5))
            assert weigh is not None
            worlds = [draw() for _ in range(24)]
            drawn.append((worlds, [weigh(w) for w in worlds]))
        assert drawn[0] == drawn[1]
        bot = ExpertBot(weigh=True, signal=None)
        weights = _weights(bot._drawer(view, random.Random(5))[1], drawn[0][0])
        assert weights is not None
        assert math.isclose(sum(weights), 24)
        assert len(set(weights)) > 1, number  # the weighting changes something


def test_unweighted_expert_draws_the_same_worlds_with_no_weights() -> None:
    state = club_hand(1, 4, 17)
    view = state.view(state.to_play)
    draw, weigh = ExpertBot(weigh=False)._drawer(view, random.Random(2))
    assert weigh is None
    draw_w, weigh_w = ExpertBot(weigh=True)._drawer(view, random.Random(2))
    assert weigh_w is not None
    assert [draw() for _ in range(16)] == [draw_w() for _ in range(16)]


def test_weighted_clear_gain() -> None:
    diffs = [1.0, 0.5, 1.5, -0.2, 0.8, 1.1]
    # equal weights: the unweighted test, at any scale
    for se in (1.0, 3.0, 5.0):
        assert _clear_gain(diffs, se, [2.0] * 6) == _clear_gain(diffs, se)
    # the weight on the worlds where the card loses decides
    losing = [-1.0, -1.2, 0.1, -0.9]
    assert not _clear_gain(losing, 1.0)
    assert _clear_gain(losing, 1.0, [0.0, 0.0, 1.0, 0.0]) is False  # one world: no spread
    assert _clear_gain([-1.0, 2.0, 2.1, 1.9], 2.0, [0.01, 1.0, 1.0, 1.0])
    assert not _clear_gain([-1.0, 2.0, 2.1, 1.9], 2.0, [5.0, 1.0, 1.0, 1.0])


@pytest.mark.parametrize("number", [1, 6])  # hearts, Nóló
def test_a_world_of_weight_zero_counts_as_left_out_of_the_look_ahead(number: int) -> None:
    state = club_hand(number, number + 40, 36)
    view = state.view(state.to_play)
    assert view.contract is not None
    cards = [a for a in view.legal if type(a) is int]
    draw, _ = ExpertBot()._drawer(view, random.Random(9))
    worlds = [draw() for _ in range(8)]
    score = hand_scorer(view.variant, view.contract, side_of(view.seat), view.tricks)

    def values(ws: list[list[int]], weights: list[float] | None = None) -> dict[int, float]:
        ahead = Lookahead(solver, view, score, 1, "coarse", "club")
        return ahead.values(ws, cards, 2, weights)

    kept = [w for i, w in enumerate(worlds) if i % 3]
    weights = [0.0 if i % 3 == 0 else 1.0 for i in range(len(worlds))]
    assert values(worlds, weights) == values(kept)
    assert values(worlds, [1.0] * len(worlds)) == values(worlds)
    doubled = values(worlds, [2.0] * len(worlds))
    assert all(math.isclose(v, 2 * values(worlds)[c]) for c, v in doubled.items())
    with pytest.raises(ValueError, match="weights for"):
        values(worlds, [1.0])


def test_soft_policy_probabilities_are_checked() -> None:
    for bad in (0.0, 1.0, 1.5, "0.9"):
        with pytest.raises(ValueError, match="hit must be a probability"):
            ExpertBot(hit=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="partner_hit must be a probability"):
            ExpertBot(partner_hit=bad)  # type: ignore[arg-type]


def test_match_seats_the_expert_with_and_without_the_weights() -> None:
    from whistkit.match import ViewPlayer, make_player

    for level, weigh in (("expert-weighted", True), ("expert-unweighted", False)):
        player = make_player(level)
        assert isinstance(player, ViewPlayer)
        assert isinstance(player.bot, ExpertBot)
        assert player.bot.weigh is weigh
        assert player.bot.time_budget is None  # reproducible
