"""Soft inference: facts from the play, and the weights they give worlds."""

from __future__ import annotations

from helpers_bots import club_hand

from whistkit.bots.inference import PENALTY, fact_weight, play_facts
from whistkit.cards import parse_card, parse_hand
from whistkit.deal import parse_pbn
from whistkit.state import Deal, State, new_game


def _hand_state(number: int, plays: str) -> State:
    state = new_game("felagsvist", dealer=3)  # N leads
    state = state.replace(hand_number=number)
    state = state.apply(
        Deal(
            parse_pbn(
                "N:AK32.AK32.32.432 QJ54.QJ54.54.765 T987.T987.76.98T 6.6.AKQJT98.AKQJ",
                full=True,
            )
        )
    )
    for tok in plays.split():
        state = state.apply(parse_card(tok))
    return state


def test_fourth_hand_that_does_not_beat_holds_nothing_higher() -> None:
    # hearts: N leads 3S, E QS, S 7S (third hand, an opponent winning, does not beat it)
    state = _hand_state(1, "3S QS 7S 6S")
    facts = {s: m for s, m, _ in play_facts(state.view(3))}  # as W sees it
    # S did not beat the queen: S holds neither the king nor the ace
    assert facts[2] == parse_hand("KS AS")
    assert set(facts) == {2}  # second hand plays low: no fact about E


def test_fourth_hand_wins_cheaply() -> None:
    # N leads 2D, E 4D, S 6D, W AD: W won with the ace, so it holds none of 7D..KD
    state = _hand_state(1, "2D 4D 6D AD")
    facts = {s: m for s, m, _ in play_facts(state.view(1))}
    assert facts[3] == parse_hand("7D 8D 9D TD JD QD KD") & state.view(1).unseen()


def test_misere_follower_that_overtakes_could_not_duck() -> None:
    # nóló (hand 6): N leads 4C, E 5C: E overtakes, so it could not duck: no 2C or 3C
    state = _hand_state(6, "4C 5C")
    facts = {s: m for s, m, _ in play_facts(state.view(3))}
    assert facts[1] == parse_hand("2C 3C")
    weight = fact_weight([(s, m, False) for s, m in facts.items()])
    holds_3c = (0, parse_hand("3C"), 0, 0)
    assert weight(holds_3c) == PENALTY
    assert weight((0, 0, 0, 0)) == 1.0


def test_swedish_colours_shown_weight_the_worlds() -> None:
    import random

    from whistkit.bots.bidding import club_wants_red, earlier_seats
    from whistkit.bots.inference import bid_facts, world_weight
    from whistkit.deal import deal_cards
    from whistkit.variants.swedish import BottomCard

    state = new_game("swedish", dealer=3)  # N reveals first
    state = state.apply(Deal(deal_cards(random.Random(7), 3).hands))
    colours = {0: False, 1: True, 2: False, 3: False}  # N black, E red: E declares
    while state.phase == "bid":
        seat = state.to_play
        want = colours[seat]
        pick = [
            a
            for a in state.legal_actions()
            if isinstance(a, BottomCard) and (a.card // 13 in (1, 2)) == want
        ]
        state = state.apply(pick[0])
    view = state.view(2)
    assert sorted(bid_facts(view)) == [(0, False), (1, True)]
    weight = world_weight(view)
    assert weight is not None
    true_world = state.holdings
    expected = 1.0
    for seat, red in ((0, False), (1, True)):
        if club_wants_red(true_world[seat], seat, earlier_seats(seat, 3)) != red:
            expected *= PENALTY
    assert weight(true_world) == expected


def test_honour_lead_and_second_hand_cover() -> None:
    # N 2D, E 4D, S 7D, W AD; W leads QC (not the boss: it is the top of a sequence, so
    # W holds JC); N plays 2C second hand on an honour: N holds no higher club
    state = _hand_state(1, "2D 4D 7D AD QC 2C")
    facts = play_facts(state.view(1))  # as E sees it
    assert (3, parse_hand("JC"), True) in facts
    assert (0, parse_hand("KC AC"), False) in facts
    # fourth hand W won with the ace: it held nothing between 7D and AD
    assert (3, parse_hand("8D 9D TD JD QD KD"), False) in facts
    weight = fact_weight(facts)
    assert weight(state.holdings) == PENALTY  # W is no club player: it held KQJT98


def test_a_low_lead_comes_from_the_longest_side_suit() -> None:
    from whistkit.bots.inference import lead_facts

    # hearts trump: N leads 3S (not a boss, not a trump, no partner's suit to return)
    state = _hand_state(1, "3S QS 7S 6S")
    view = state.view(3)
    assert lead_facts(view) == [(0, 0, 0, (2, 3))]
    played = (parse_hand("3S"), parse_hand("QS"), parse_hand("7S"), parse_hand("6S"))
    weight = fact_weight([], (), played, 3, lead_facts(view))
    # N held 3S 2S and four clubs when it led spades: clubs were longer
    assert weight((parse_hand("2S 2C 3C 4C 5C"), 0, 0, 0)) == PENALTY
    assert weight((parse_hand("2S KS 4S 2C"), 0, 0, 0)) == 1.0
    # a boss lead (the ace) says nothing about length
    state = _hand_state(1, "AS")
    assert lead_facts(state.view(1)) == []
    # nor does any lead in misère (hand 6 is Nóló)
    state = _hand_state(6, "3S")
    assert lead_facts(state.view(1)) == []


def test_club_play_is_fully_likely_in_the_true_world() -> None:
    # four club bots: in the real deal every card played is the club card, so the true
    # world has weight 1; in every contract kind (hands 1..6: trumps, Grand, Nóló)
    from whistkit.bots.inference import policy_weight

    for number in range(1, 7):
        for seed in range(6):
            state = club_hand(number, seed, 4 + 5 * seed)
            for seat in range(4):
                weight = policy_weight(state.view(seat), partner_miss=0.5)
                assert weight is not None
                assert weight(state.holdings) == 1.0, (number, seed, seat)


def test_a_world_where_the_club_rules_play_otherwise_is_less_likely() -> None:
    from whistkit.bots.inference import CLUB_PRIOR, MISS, SHARP_MISS, policy_weight

    # hearts: N leads AS, E 4S, S 8S (partner's ace wins: the club rules play low), W 6S
    state = _hand_state(1, "AS 4S 8S 6S")
    weight = policy_weight(state.view(3))  # as W sees it
    assert weight is not None
    assert weight(state.holdings) == 1.0  # S held T987: the 8S equals the lowest, 7S
    # a world where S held T985 and E QJ74: S's lowest was the 5S, and the 6S lay between
    hands = list(state.holdings)
    swap = (1 << parse_card("7S")) | (1 << parse_card("5S"))
    hands[1] ^= swap
    hands[2] ^= swap
    # one card of E-W's the rules would not play: the mixture's factor for one
    assert weight(tuple(hands)) == CLUB_PRIOR * SHARP_MISS + (1 - CLUB_PRIOR) * MISS
    # rejection sampling stops early: below the floor, the product is not finished
    assert weight(tuple(hands), 0.5) < 0.5


def test_partner_cards_count_only_when_asked() -> None:
    from whistkit.bots.inference import policy_weight

    # as W sees it, E is the partner: a world where E held QJ42 and played the 4S second
    # hand, with the 3S between in N's hand, is not the club card (the 2S)
    state = _hand_state(1, "AS 4S 8S 6S")
    hands = list(state.holdings)
    swap = (1 << parse_card("5S")) | (1 << parse_card("2S"))
    hands[1] ^= swap  # E: QJ54 -> QJ42
    hands[0] ^= swap  # N: AK32 -> AK53, still cashes the ace
    world = tuple(hands)
    left_out = policy_weight(state.view(3), partner_miss=1.0)
    modelled = policy_weight(state.view(3), partner_miss=0.5)
    assert left_out is not None and modelled is not None
    assert left_out(world) == 1.0
    assert modelled(world) == 0.5


def test_a_weight_does_not_depend_on_the_worlds_judged_before() -> None:
    # each past hand is judged once per decision and remembered: a weight over many
    # worlds in a row equals the same world's weight from a fresh model, floors included
    import random

    from whistkit.bots.inference import policy_weight
    from whistkit.bots.sampling import sampler_for

    rng = random.Random(3)
    for number in (1, 3, 6):  # hearts, Grand, Nóló
        state = club_hand(number, number, 17)
        view = state.view(state.to_play)
        shared = policy_weight(view)
        assert shared is not None
        sampler = sampler_for(view)
        worlds = [sampler.sample(rng) for _ in range(60)]
        worlds += worlds[:20]  # the same hands again
        misses = 0
        for world in worlds:
            floor = rng.choice((0.0, 0.05, 0.5))
            fresh = policy_weight(view)
            assert fresh is not None
            assert shared(world, floor) == fresh(world, floor)
            misses += shared(world) < 1.0
        assert misses  # the worlds differ in how well the club rules explain them


def test_partner_s_leads_have_a_factor_of_their_own() -> None:
    # policy_model(partner_lead_miss=f): partner's leads weigh f where the club rules
    # would lead otherwise, partner's follows still partner_miss. As S sees it after N
    # (the partner) led the 2S and E played: in every world the lead's factor is 1 or f,
    # the rest of the weight (E's card) the same whatever f is (docs/bots.md, issue 35's
    # thirteenth pass)
    import random

    import pytest

    from whistkit.bots import ExpertBot
    from whistkit.bots.inference import policy_model
    from whistkit.bots.sampling import sampler_for

    state = _hand_state(1, "2S 4S")
    view = state.view(2)
    models = {}
    for lead_miss in (None, 0.25, 1.0):
        model = policy_model(view, partner_miss=0.5, partner_lead_miss=lead_miss)
        assert model is not None
        models[lead_miss] = model[0]
    # the true world: E's 4S is the club rules' card, N's 2S is not (they lead the AS)
    assert [models[f](state.holdings, 0.0) for f in (None, 0.25, 1.0)] == [0.5, 0.25, 1.0]
    sampler = sampler_for(view)
    rng = random.Random(5)
    missed = 0
    for _ in range(200):
        world = sampler.sample(rng)
        rest = models[1.0](world, 0.0)  # the lead left out: E's card alone
        if rest == 0.0:
            continue
        as_before = models[None](world, 0.0) / rest  # partner_miss, as before the setting
        assert as_before in (1.0, 0.5)
        assert models[0.25](world, 0.0) / rest == (1.0 if as_before == 1.0 else 0.25)
        missed += as_before == 0.5
    assert missed >= 5
    # the expert passes it on, and refuses a factor that is no likelihood
    assert ExpertBot(partner_lead_miss=1.0).partner_lead_miss == 1.0
    with pytest.raises(ValueError, match="partner_lead_miss must be a likelihood"):
        ExpertBot(partner_lead_miss=0.0)
