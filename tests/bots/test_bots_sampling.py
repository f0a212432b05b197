"""sample_deals: consistent with the view, exactly uniform, exact counts."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from helpers_bots import positions

from whistkit.bots import ExpertBot, InconsistentView, count_deals, pimc, sample_deals
from whistkit.bots.knowledge import Knowledge
from whistkit.bots.pimc import CHAIN_BURN, CHAIN_THIN
from whistkit.bots.sampling import DealSampler, World, WorldChain
from whistkit.cards import SUIT_MASKS, iter_cards
from whistkit.deal import parse_pbn
from whistkit.state import Deal, State, View, new_game


def _ending(pbn: str, plays: str, hand_number: int = 3) -> State:
    """A Félagsvist state with the given holdings after some cards of the current hand."""
    from whistkit.cards import parse_card

    hands = parse_pbn(pbn, full=True)
    state = new_game("felagsvist", dealer=3)
    for _ in range(hand_number - 1):
        state = state.replace(hand_number=state.hand_number + 1)
    state = state.apply(Deal(hands))
    for tok in plays.split():
        state = state.apply(parse_card(tok))
    return state


def _consistent(view: View, world: tuple[int, int, int, int]) -> bool:
    know = Knowledge.from_view(view)
    union = 0
    for seat, hand in enumerate(world):
        if hand.bit_count() != view.hand_sizes[seat] or union & hand:
            return False
        union |= hand
        for suit in range(4):
            if know.voids[seat] >> suit & 1 and hand & SUIT_MASKS[suit]:
                return False
    return world[view.seat] == view.hand and union == know.unseen | view.hand


def test_worlds_are_consistent_with_the_view() -> None:
    rng = random.Random(5)
    for state in positions("felagsvist", 150, seed=11):
        seat = state.to_play
        view = state.view(seat)
        worlds = sample_deals(view, 4, rng)
        assert len(worlds) == 4
        for w in worlds:
            assert _consistent(view, w)
        # the true deal is one of the consistent deals
        assert _consistent(view, state.holdings)


def _brute_force_deals(view: View) -> list[tuple[int, int, int, int]]:
    know = Knowledge.from_view(view)
    cards = list(iter_cards(know.unseen))
    others = [s for s in range(4) if s != view.seat]
    out = []
    for labels in itertools.product(range(3), repeat=len(cards)):
        hands = [0, 0, 0, 0]
        hands[view.seat] = view.hand
        for c, i in zip(cards, labels, strict=True):
            hands[others[i]] |= 1 << c
        w = (hands[0], hands[1], hands[2], hands[3])
        if _consistent(view, w):
            out.append(w)
    return out


def _late_position(tricks: int = 10) -> State:
    # hearts contract; after 10 tricks with voids shown, 3 cards each remain
    state = _ending("N:AKQJ.T98.765.432 T987.765.432.AKQ 6543.432.AKQ.JT9 2.AKQJ.JT98.8765", "", 1)
    rng = random.Random(3)
    from whistkit.bots import ClubBot

    bot = ClubBot()
    while len(state.trick_winners) < tricks or state.trick:
        state = state.apply(bot.choose(state.view(state.to_play), rng))
    return state


def test_count_matches_brute_force_and_sampling_is_uniform() -> None:
    state = _late_position()
    view = state.view(state.to_play)
    deals = _brute_force_deals(view)
    assert count_deals(view) == len(deals) > 1
    rng = random.Random(8)
    n = 300 * len(deals)
    seen = Counter(sample_deals(view, n, rng))
    assert set(seen) == set(deals)
    expected = n / len(deals)
    chi2 = sum((seen[d] - expected) ** 2 / expected for d in deals)
    # chi-square with len(deals)-1 degrees of freedom: far below this bound if uniform
    assert chi2 < 3 * len(deals) + 30


def test_voids_and_sizes_constrain_the_count() -> None:
    # mid-trick: the led suit shows a void when a player discards
    state = _late_position()
    for _ in range(2):
        state = state.apply(state.legal_actions()[0])
    view = state.view(state.to_play)
    assert count_deals(view) == len(_brute_force_deals(view))


def test_a_revealed_list_places_every_card_of_it_in_its_owner_s_hand() -> None:
    # view.public["revealed"] with a list of cards for a seat (benchmarks/paired.py's
    # sees-partner: partner's whole hand face up) pins them all: every world deals that
    # seat exactly those cards, and the count is that of the other two hidden hands
    state = _late_position()
    view = state.view(state.to_play)
    partner = (view.seat + 2) & 3
    shown = sorted(iter_cards(state.holdings[partner]))
    open_view = dataclasses.replace(
        view, public={**view.public, "revealed": {"NESW"[partner]: shown}}
    )
    assert Knowledge.from_view(open_view).held[partner] == state.holdings[partner]
    worlds = sample_deals(open_view, 40, random.Random(4))
    assert all(w[partner] == state.holdings[partner] for w in worlds)
    assert all(_consistent(view, w) for w in worlds)
    expected = sum(1 for w in _brute_force_deals(view) if w[partner] == state.holdings[partner])
    assert count_deals(open_view) == expected < count_deals(view)


def test_inconsistent_view_is_named() -> None:
    state = _late_position()
    view = state.view(state.to_play)
    bad = dataclasses.replace(view, hand_sizes=(13, 13, 13, 13))
    with pytest.raises(InconsistentView, match="other seats need"):
        count_deals(bad)


def test_weighting_resamples_toward_likely_worlds() -> None:
    state = _late_position()
    seat = state.to_play
    view = state.view(seat)
    other = (seat + 1) & 3
    rng = random.Random(1)

    def weight(w: tuple[int, int, int, int]) -> float:
        return 1.0 if w[other] == state.holdings[other] else 0.0

    worlds = sample_deals(view, 20, rng, weight=weight, oversample=50)
    assert all(w[other] == state.holdings[other] for w in worlds)


def _chain_target(view: View, state: State) -> Callable[[World, float], float]:
    """A likelihood that favours the true holdings strongly and stops early below a floor,
    as the policy model does: 0.2 per card of the first other seat out of place."""
    other = (view.seat + 1) & 3

    def likelihood(w: World, floor: float) -> float:
        wt = 1.0
        for card in iter_cards(w[other] & ~state.holdings[other]):
            wt *= 0.2
            if wt < floor:
                return wt * card / 64  # any value below the floor: the chain may not read it
        return wt

    return likelihood


@pytest.mark.parametrize("fresh", [0.1, 1.0, 0.0])
def test_the_chain_rests_in_proportion_to_the_likelihood(fresh: float) -> None:
    # every consistent deal of a small ending, its exact share against the chain's visits
    # (fresh 1.0: independence proposals alone; 0.0: swaps alone, connected here)
    state = _late_position(11)
    view = state.view(state.to_play)
    deals = _brute_force_deals(view)
    likelihood = _chain_target(view, state)
    weights = {d: likelihood(d, 0.0) for d in deals}
    total = sum(weights.values())
    rng = random.Random(4)
    chain = WorldChain(DealSampler(view), likelihood, deals[-1], rng, fresh=fresh)
    n = 1000 * len(deals)
    seen: Counter[World] = Counter()
    for _ in range(n):
        seen[chain.draw(3)] += 1
    assert all(_consistent(view, w) for w in seen)
    chi2 = sum((seen[d] - n * w / total) ** 2 / (n * w / total) for d, w in weights.items())
    # about the 89 degrees of freedom here (correlated draws inflate it a little); a
    # wrong acceptance rule fails: always moving gives about 30,000, moving with the new
    # weight alone (not new / current) 460-600 at fresh 0.1 and 0.0
    assert chi2 < 3 * len(deals) + 30, (chi2, len(deals))
    assert 0 < chain.moves < chain.steps


def test_the_expert_draws_consistent_worlds_from_the_chain(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # one rejection try per world: most decisions with cards played fall back on the chain
    chains: list[WorldChain] = []

    class Counted(WorldChain):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            chains.append(self)

    monkeypatch.setattr(pimc, "WorldChain", Counted)
    bot = ExpertBot(max_tries=1)
    for i, state in enumerate(positions("felagsvist", 60, seed=7)):
        view = state.view(state.to_play)
        if view.contract is None or not view.played:
            continue
        draw, _ = bot._drawer(view, random.Random(i))
        for _ in range(12):
            w = draw()
            assert _consistent(view, (w[0], w[1], w[2], w[3]))
    assert len(chains) > 10
    # the chain burns in once, then steps between worlds (the first worlds of a decision
    # may come from the rejection tries before one fails)
    assert all(c.steps >= CHAIN_BURN and (c.steps - CHAIN_BURN) % CHAIN_THIN == 0 for c in chains)
    assert any(c.steps == CHAIN_BURN + 11 * CHAIN_THIN for c in chains)


@pytest.mark.parametrize(
    ("name", "value"),
    [("max_tries", 0), ("chain_burn", -1), ("chain_thin", -5), ("chain_thin", 2.5)],
)
def test_the_expert_refuses_a_bad_sampling_setting(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"{name} must be a whole number of at least"):
        ExpertBot(**{name: value})  # type: ignore[arg-type]
