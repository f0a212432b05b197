"""The mixture model of the opponents (``ExpertBot(club_prior=...)``): each opponent plays
by the club rules (a factor ``sharp`` per card they would not play) with probability
``club_prior``, else softly (``miss``)."""

from __future__ import annotations

import random

import pytest
from helpers_bots import club_hand

from whistkit.bots.inference import MISS, policy_model
from whistkit.bots.pimc import ExpertBot
from whistkit.bots.sampling import sampler_for
from whistkit.state import View


@pytest.mark.parametrize("number", [1, 3, 6])  # hearts, Grand, Nóló
def test_the_mixture_weighs_each_opponent_s_misses_together(number: int) -> None:
    """Off (0.0) it is the plain model (MISS per card); with ``club_prior`` p a world whose opponents
    have k1 and k2 cards the rules would not play weighs the product over the two of
    p * sharp**k + (1 - p) * miss**k (times partner's factor); the true world of four
    club bots still weighs 1; the early stop stays below its floor."""
    rng = random.Random(number)
    checked = 0
    for seed in range(4):
        state = club_hand(number, seed, 21)
        view = state.view(state.to_play)
        off = policy_model(view, club_prior=0.0)
        mixed = policy_model(view, club_prior=0.9, sharp=0.01)
        assert off is not None and mixed is not None
        assert mixed[0](state.holdings) == 1.0
        opp = [s for s in range(4) if (s ^ view.seat) & 1]
        sampler = sampler_for(view)
        for _ in range(40):
            world = sampler.sample(rng)
            # each opponent's misses, counted card by card as the model judges them
            ks = [_seat_misses(view, world, s) for s in opp]
            partner = policy_model(view, miss=1.0, partner_miss=0.5, club_prior=0.0)
            assert partner is not None
            expected = partner[0](world)
            # off: a factor MISS per opponent's card, as before the mixture
            assert off[0](world) == pytest.approx(expected * MISS ** sum(ks), rel=1e-9)
            for k in ks:
                expected *= 0.9 * 0.01**k + 0.1 * MISS**k
            assert mixed[0](world) == pytest.approx(expected, rel=1e-9)
            floor = rng.choice((0.0, 1e-3, 0.05, 0.5))
            early = mixed[0](world, floor)
            assert early == mixed[0](world) or early < floor
            checked += sum(ks) > 0
    assert checked  # some worlds had opponents' cards the rules would not play


def _seat_misses(view: View, world: tuple[int, ...], seat: int) -> int:
    """Seat ``seat``'s cards the club rules would not have played in ``world``, judged
    here card by card as the model judges them."""
    from whistkit.bots import inference

    moments = [m for m in inference._moments(view) if m.seat == seat]
    count = 0
    keys = inference.rank_keys(view.contract)  # type: ignore[arg-type]
    for m in moments:
        hand = world[m.seat] | m.later
        led = inference.SUIT_MASKS[m.led] if m.led >= 0 else 0
        legal = (hand & led) or hand
        if not legal & (legal - 1):
            continue
        know = m.know.with_hand(hand, m.know.unseen & ~hand)
        choice = inference.club_card(m.view, list(inference.cards_in(legal)), know)
        ok = choice == m.card or inference._same_value(choice, m.card, hand, m.before, keys)
        count += not ok
    return count


def test_the_setting_reaches_the_drawing_and_is_checked() -> None:
    state = club_hand(1, 5, 25)
    view = state.view(state.to_play)
    drawn = {}
    for prior in (0.0, 0.99):
        draw, _ = ExpertBot(club_prior=prior)._drawer(view, random.Random(1))
        drawn[prior] = [tuple(draw()) for _ in range(30)]
    assert drawn[0.0] != drawn[0.99]
    for bad in (-0.1, 1.5, "high", None):
        with pytest.raises(ValueError, match="club_prior must be a probability"):
            ExpertBot(club_prior=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sharp must be a probability"):
        ExpertBot(sharp=2.0)
