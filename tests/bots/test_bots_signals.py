"""Signals among equal cards (whistkit.bots.signals): which card of a run the expert
plays by a convention, and how partner's inference reads it."""

from __future__ import annotations

import dataclasses
import random

import pytest
from helpers_bots import late_positions
from test_bots_inference import _hand_state
from test_bots_leads import _weighed

from whistkit.bots import ExpertBot
from whistkit.bots.inference import policy_model
from whistkit.bots.signals import SIGNAL_MISS, reads_signal, signal_card, signal_fits
from whistkit.cards import parse_card, parse_hand
from whistkit.game import Game
from whistkit.state import Contract, View

HEARTS = Contract("H", 1)
NOLO = Contract("NOLO", None, misere=True)


def _card(signal: str, card: str, hand: str, gone: str = "", contract: Contract = HEARTS) -> str:
    chosen = signal_card(
        signal, parse_card(card), parse_hand(hand), parse_hand(gone) if gone else 0, contract
    )
    return next(c for c in hand.split() if parse_card(c) == chosen)


def test_the_convention_picks_the_high_or_low_card_of_a_run() -> None:
    # 7S 6S touch (nothing out between): one run; the AS lies above it
    assert _card("count", "6S", "7S 6S AS 2D") == "7S"  # two spades kept: even, high
    assert _card("count", "7S", "7S 6S 2D") == "6S"  # one kept: odd, low
    assert _card("above", "6S", "7S 6S AS 2D") == "7S"  # a spade above the run: high
    assert _card("above", "7S", "7S 6S 2D") == "6S"  # none: low
    # a run of three: its ends only
    assert _card("count", "8S", "8S 7S 6S 3S 2D") == "6S"  # three kept
    assert _card("count", "7S", "8S 7S 6S 2D") == "8S"  # two kept


def test_only_cards_of_complete_tricks_join_a_run() -> None:
    # 9S and 7S with the 8S out (in a hand or in the trick being played): each alone
    assert _card("count", "7S", "9S 7S 2D") == "7S"
    assert _card("count", "9S", "9S 7S 2D") == "9S"
    # the 8S gone in a complete trick: one run, one spade kept (odd), low
    assert _card("count", "9S", "9S 7S 2D", gone="8S") == "7S"
    # in Nóló the ace ranks lowest: AS 2S touch
    assert _card("count", "2S", "AS 2S 5S", contract=NOLO) == "2S"  # high: the 2
    assert _card("count", "AS", "AS 2S", contract=NOLO) == "AS"  # low: the ace


def test_signal_fits_says_whether_the_card_is_the_conventions() -> None:
    hand, gone = parse_hand("7S 6S AS 2D"), 0
    assert signal_fits("count", parse_card("7S"), hand, gone, HEARTS)
    assert not signal_fits("count", parse_card("6S"), hand, gone, HEARTS)
    assert signal_fits("count", parse_card("AS"), hand, gone, HEARTS)  # alone: no choice


@pytest.mark.parametrize(("signal", "want"), [("count", "2S"), ("above", "3S")])
def test_the_expert_plays_the_convention_among_equal_cards(
    monkeypatch: pytest.MonkeyPatch, signal: str, want: str
) -> None:
    # N holds AK32 of spades: the 3S and 2S are one run; whichever the search picks, the
    # card played is the convention's (count: three kept, odd, low; above: the ace, high)
    view = _hand_state(1, "").view(0)
    for picked in ("2S", "3S"):
        monkeypatch.setattr(ExpertBot, "play", lambda self, v, cards, rng, p=picked: parse_card(p))
        assert ExpertBot(signal=signal).choose(view, random.Random(1)) == parse_card(want)
    # AH KH: no heart above the run and three kept (odd): low by either convention
    monkeypatch.setattr(ExpertBot, "play", lambda self, v, cards, rng: parse_card("AH"))
    assert ExpertBot(signal=signal).choose(view, random.Random(1)) == parse_card("KH")
    # without a signal, the search's card
    monkeypatch.setattr(ExpertBot, "play", lambda self, v, cards, rng: parse_card("3S"))
    assert ExpertBot().choose(view, random.Random(1)) == parse_card("3S")


def test_partner_s_card_from_a_run_weighs_each_world_by_the_convention() -> None:
    # As S sees it after N (the partner) led the 3S and E played: with the count signal
    # each world weighs as without it, times 1 where the 3S is what the convention gives
    # from N's hand there, SIGNAL_MISS where it is not (N holds the 2S too and an odd
    # number of spades after the lead)
    state = _hand_state(1, "3S 4S")
    view = state.view(2)
    without = policy_model(view)
    read = policy_model(view, signal="count")
    assert without is not None and read is not None
    three = parse_card("3S")
    factors = set()
    for world, rest in _weighed(view, without[0], random.Random(5), 200):
        north = world[0] | 1 << three
        fits = signal_fits("count", three, north, 0, HEARTS)
        factor = 1.0 if fits else SIGNAL_MISS
        assert read[0](world, 0.0) == pytest.approx(rest * factor)
        assert read[1](world) == pytest.approx(without[1](world))  # it cancels
        factors.add(factor)
    assert factors == {1.0, SIGNAL_MISS}
    # the real deal: N led the 3S from AK32, three kept (odd): the convention's card is
    # the 2S, so the real world is one the reading finds unlikely
    assert read[0](state.holdings, 0.0) == pytest.approx(
        without[0](state.holdings, 0.0) * SIGNAL_MISS
    )


def test_the_expert_refuses_an_unknown_convention() -> None:
    assert ExpertBot(signal="count").signal == "count"
    with pytest.raises(ValueError, match="signal must be None or one of count, above"):
        ExpertBot(signal="loud")


def test_partner_is_read_by_the_convention_in_felagsvist_when_a_bot_plays_it() -> None:
    view = _hand_state(1, "3S 4S").view(2)
    assert reads_signal(view, "above") == "above"
    assert reads_signal(view, None) is None
    # N (partner) is a person's seat: a person plays no convention
    assert reads_signal(view.with_people([0]), "above") is None
    assert reads_signal(view.with_people([2, 3]), "above") == "above"
    assert view.with_people([]) is view
    # elsewhere than Félagsvist it was not measured: nothing is read (or played)
    assert reads_signal(dataclasses.replace(view, variant="swedish"), "above") is None


def test_a_game_tells_its_bots_which_seats_people_play() -> None:
    seen: list[View] = []

    class Recorder:
        name = "recorder"

        def choose(self, view: View, rng: random.Random) -> object:
            seen.append(view)
            return view.legal[0]

    game = Game("felagsvist", {}, seed=3, bots={s: Recorder() for s in (0, 1, 3)})
    game.deal_if_needed()
    for _ in range(3):  # the bots' turns, and South's own card between them
        game.run_bots()
        game.act(game.state.legal_actions()[0])
    assert seen and all(v.public["people"] == [2] for v in seen)


@pytest.mark.parametrize("variant", ["swedish", "english", "american"])
def test_elsewhere_the_search_s_card_is_played(
    monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    # N holds AK32 of spades; the search's 2S is played as it is outside Félagsvist (in
    # Félagsvist "above" makes it the 3S: test_the_expert_plays_the_convention...)
    view = dataclasses.replace(_hand_state(1, "").view(0), variant=variant)
    monkeypatch.setattr(ExpertBot, "play", lambda self, v, cards, rng: parse_card("2S"))
    assert ExpertBot(signal="above").choose(view, random.Random(1)) == parse_card("2S")


def test_swedish_and_classic_play_as_without_the_signal() -> None:
    # the convention is Félagsvist's (measured there): elsewhere the expert with and
    # without it chooses alike, card for card, and reads alike
    for variant in ("swedish", "english"):
        bots = [
            ExpertBot(worlds=lambda left, m: 8, signal=s, bidding="red") for s in ("above", None)
        ]
        chosen = 0
        for i, state in enumerate(late_positions(variant, 40, seed=4, tricks_left=6)):
            view = state.view(state.to_play)
            a, b = (bot.choose(view, random.Random(i)) for bot in bots)
            assert a == b, (variant, i)
            chosen += 1
        assert chosen == 40
