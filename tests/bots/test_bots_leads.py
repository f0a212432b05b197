"""The model of the expert's leads (whistkit.bots.leads) and how the inference reads
partner's leads with it."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from test_bots_inference import _hand_state

from whistkit.bots import ExpertBot, leads
from whistkit.bots.inference import policy_model
from whistkit.bots.leads import (
    FEATURES,
    FREE_FEATURES,
    equal_cards,
    lead_features,
    lead_probability,
)
from whistkit.bots.sampling import World, sampler_for
from whistkit.cards import parse_card, parse_hand
from whistkit.state import Contract, View

HEARTS = Contract("H", 1)
NOLO = Contract("NOLO", None, misere=True)


def _named(hand: str, gone: str, card: str, contract: Contract = HEARTS) -> dict[str, float]:
    feats = lead_features(parse_hand(hand), parse_hand(gone) if gone else 0, contract)
    return dict(zip(FEATURES, feats[parse_card(card)], strict=True))


def _weighed(
    view: View, weight: Callable[[World, float], float], rng: random.Random, n: int
) -> list[tuple[World, float]]:
    """``n`` worlds drawn uniformly from ``view``, those ``weight`` leaves above 0, each
    with its weight."""
    sampler = sampler_for(view)
    out = []
    for _ in range(n):
        world = sampler.sample(rng)
        w = weight(world, 0.0)
        if w > 0.0:
            out.append((world, w))
    return out


def test_features_describe_the_card_in_its_hand() -> None:
    hand = "AS KS 9S 8S 2S 5H 4H 7D QC"  # five spades, two hearts (trumps), JD gone
    ace = _named(hand, "", "AS")
    assert ace["length"] == 5 and ace["longest"] == 1 and ace["top"] == 1
    assert ace["master"] == 1 and ace["touch_below"] == 1 and ace["touch_above"] == 0
    assert ace["depth"] == 0 and ace["others"] == 8 and ace["honour"] == 1
    assert ace["bottom"] == 0 and ace["trump"] == 0
    nine = _named(hand, "", "9S")
    assert nine["master"] == 0 and nine["touch_below"] == 1 and nine["touch_above"] == 0
    assert nine["honour"] == 0
    # with the ten, jack and queen gone the nine touches the king and is master
    nine = _named(hand, "TS JS QS", "9S")
    assert nine["touch_above"] == 1 and nine["master"] == 1 and nine["others"] == 5
    assert _named(hand, "", "2S")["bottom"] == 1
    trump = _named(hand, "", "5H")
    assert trump["trump"] == 1 and trump["trump_length"] == 2 and trump["doubleton"] == 1
    single = _named(hand, "", "7D")
    assert single["singleton"] == 1 and single["ruff_short"] == 1 and single["bottom"] == 0
    # no trumps in Nóló: a singleton sets up no ruff
    assert _named(hand, "", "7D", NOLO)["ruff_short"] == 0


def test_the_probabilities_are_a_distribution_led_by_the_coefficients() -> None:
    hand = parse_hand("AS KS 9S 8S 2S 5H 4H 7D QC")
    zero = (0.0,) * len(FEATURES)
    cards = [c for c in range(52) if hand >> c & 1]
    assert sum(lead_probability(c, hand, 0, HEARTS, zero) for c in cards) == pytest.approx(1)
    assert lead_probability(parse_card("AS"), hand, 0, HEARTS, zero) == pytest.approx(1 / 9)
    tops = tuple(3.0 if f == "top" else 0.0 for f in FEATURES)
    p = {c: lead_probability(c, hand, 0, HEARTS, tops) for c in cards}
    assert max(p, key=p.__getitem__) in {parse_card(c) for c in ("AS", "5H", "7D", "QC")}
    assert p[parse_card("AS")] > 5 * p[parse_card("2S")]


def test_partner_s_lead_weighs_each_world_by_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    # As S sees it after N (the partner) led the 2S and E played: with lead_model the
    # lead's factor in a world is the model's probability of the 2S from N's hand there
    # (the other cards' factors as without the lead); with zero coefficients it is 1/13
    # in every world, and it differs between worlds with the fitted ones
    state = _hand_state(1, "2S 4S")
    view = state.view(2)
    without = policy_model(view, partner_lead_miss=1.0)
    modelled = policy_model(view, lead_model=True)
    assert without is not None and modelled is not None
    two = parse_card("2S")
    seen = set()
    for world, rest in _weighed(view, without[0], random.Random(3), 60):
        north = world[0] | 1 << two
        p = lead_probability(two, north, 0, HEARTS, leads.COEF_TRUMPS)
        assert modelled[0](world, 0.0) == pytest.approx(rest * p)
        assert modelled[1](world) == pytest.approx(without[1](world))  # it cancels
        seen.add(round(p, 9))
    assert len(seen) > 5
    monkeypatch.setattr(leads, "COEF_TRUMPS", (0.0,) * len(FEATURES))
    flat = policy_model(view, lead_model=True)
    assert flat is not None
    world = state.holdings
    assert flat[0](world, 0.0) == pytest.approx(without[0](world, 0.0) / 13)


def test_the_expert_takes_the_setting_and_refuses_a_wrong_one() -> None:
    assert ExpertBot(lead_model=True).lead_model is True
    assert ExpertBot().lead_model is False
    with pytest.raises(ValueError, match="lead_model must be True or False"):
        ExpertBot(lead_model="yes")  # type: ignore[arg-type]


def test_equal_cards_are_those_with_nothing_out_between() -> None:
    hand = parse_hand("AS QS JS 9S 2S 5H")
    # the king is out: the ace stands alone; queen and jack touch, and the nine too once
    # the ten is gone
    assert equal_cards(parse_card("AS"), hand, 0, HEARTS) == parse_hand("AS")
    assert equal_cards(parse_card("QS"), hand, 0, HEARTS) == parse_hand("QS JS")
    gone = parse_hand("TS KS")
    assert equal_cards(parse_card("9S"), hand, gone, HEARTS) == parse_hand("AS QS JS 9S")


def test_the_free_model_reads_partner_s_discards(monkeypatch: pytest.MonkeyPatch) -> None:
    # As E sees it after W (its partner), void in spades, discarded the 8D: with
    # free_model the discard weighs each world by the free model's probability of the
    # 8D from W's hand there, in place of the club rules' verdict (1 or PARTNER_MISS).
    # With every coefficient 0 that is 1/12 (twelve cards then) in every world, so the
    # weight is the club reading's times 1/12 or 2/12 (here 2/12: the club rules would not
    # discard the 8D from these hands); with the fitted ones it varies
    state = _hand_state(1, "3S QS 7S 6S 4S 8S 8D")
    view = state.view(1)
    base = policy_model(view)
    fitted = policy_model(view, free_model=True)
    zeros = {k: (0.0,) * len(FREE_FEATURES) for k in leads.COEF_FREE}
    monkeypatch.setattr(leads, "COEF_FREE", zeros)
    flat = policy_model(view, free_model=True)
    assert base is not None and fitted is not None and flat is not None
    ratios, varied = set(), set()
    for world, w in _weighed(view, base[0], random.Random(4), 80):
        ratios.add(round(flat[0](world, 0.0) / w * 12, 9))
        varied.add(round(fitted[0](world, 0.0) / w, 9))
    assert ratios and ratios <= {1.0, 2.0}
    assert len(varied) > 4
    with pytest.raises(ValueError, match="free_model must be True or False"):
        ExpertBot(free_model=1)  # type: ignore[arg-type]


def test_the_expert_reads_by_the_free_model_in_felagsvist_only() -> None:
    # fitted to Félagsvist's play and measured there: the same view under another
    # variant's name is drawn from as without the setting
    from dataclasses import replace

    view = _hand_state(1, "3S QS 7S 6S 4S 8S 8D").view(1)

    def draws(bot: ExpertBot, v: object) -> list[list[int]]:
        draw, _ = bot._drawer(v, random.Random(9))  # type: ignore[arg-type]
        return [list(draw()) for _ in range(12)]

    plain, free = ExpertBot(), ExpertBot(free_model=True)
    assert draws(free, view) != draws(plain, view)
    other = replace(view, variant="classic")
    assert draws(free, other) == draws(plain, other)


def test_the_follow_model_reads_partner_s_follows_in_trumps_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As N sees it after S (its partner) followed the 3S lead with the 7S: with
    # follow_model the follow weighs each world by the free model's probability of the
    # 7S among S's spades there, in place of the club rules' verdict (1 or
    # PARTNER_MISS). With every coefficient 0 that is one over S's spades then, so the
    # weight is the club reading's times 1/k or 2/k; in Nóló (hand 6) the follows keep
    # the verdict
    zeros = {k: (0.0,) * len(FREE_FEATURES) for k in leads.COEF_FREE}
    monkeypatch.setattr(leads, "COEF_FREE", zeros)
    spades = parse_hand("AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S")
    sampler_rng = random.Random(6)
    for number, trumps in ((1, True), (6, False)):
        state = _hand_state(number, "3S QS 7S")
        view = state.view(0)
        base = policy_model(view)
        flat = policy_model(view, follow_model=True)
        assert base is not None and flat is not None
        ratios = set()
        for world, w in _weighed(view, base[0], sampler_rng, 60):
            k = ((world[2] | 1 << parse_card("7S")) & spades).bit_count()
            ratios.add(round(flat[0](world, 0.0) / w * (k if trumps else 1), 9))
        assert ratios and ratios <= ({1.0, 2.0} if trumps else {1.0})
    with pytest.raises(ValueError, match="follow_model must be True or False"):
        ExpertBot(follow_model=None)  # type: ignore[arg-type]


def test_the_models_probabilities_can_be_softened() -> None:
    # model_power: each modelled card's probability raised to it, the rest unchanged
    state = _hand_state(1, "3S QS 7S 6S 4S 8S 8D")
    view = state.view(1)
    base = policy_model(view, partner_miss=1.0)  # partner's cards left out
    full = policy_model(view, partner_miss=1.0, free_model=True)
    half = policy_model(view, partner_miss=1.0, free_model=True, model_power=0.5)
    assert base is not None and full is not None and half is not None
    checked = 0
    for world, w in _weighed(view, base[0], random.Random(8), 40):
        p = full[0](world, 0.0) / w  # the 8D discard's probability (6S was forced)
        assert 0.0 < p < 1.0
        assert half[0](world, 0.0) / w == pytest.approx(p**0.5)
        checked += 1
    assert checked
    assert ExpertBot(model_power=0.5).model_power == 0.5
    with pytest.raises(ValueError, match="model_power must be above 0 and at most 1"):
        ExpertBot(model_power=0.0)
