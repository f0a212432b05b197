"""expert (PIMC) and oracle on short endings, with a brute-force double-dummy solver."""

from __future__ import annotations

import random

import pytest
from helpers_bots import TinySolver, late_positions, positions

from whistkit import solver
from whistkit.bots import ClubBot, ExpertBot, OracleBot
from whistkit.bots.pimc import hand_scorer
from whistkit.seats import side_of
from whistkit.state import PLAY, Contract, State, View


def true_values(solver: TinySolver, state: State) -> tuple[dict[int, int], int]:
    """The double-dummy value of each card the seat to play may play, and the best one."""
    assert state.contract is not None
    values = solver.solve_cards(
        solver.Position(
            state.holdings,
            state.trick,
            state.leader,
            state.contract.trump,
            state.contract.misere,
            state.contract.aces_low,
        )
    )
    best = min(values.values()) if state.contract.misere else max(values.values())
    return values, best


def test_oracle_plays_a_double_dummy_best_card() -> None:
    solver = TinySolver()
    oracle = OracleBot(solver=solver)
    for state in late_positions("felagsvist", 60, seed=5, tricks_left=3):
        seat = state.to_play
        values, best = true_values(solver, state)
        card = oracle.act(state, seat, random.Random(1))
        assert values[card] == best


def test_expert_mostly_finds_the_double_dummy_card_in_two_trick_endings() -> None:
    # with two tricks left few deals of the hidden cards remain, and in most positions
    # the card best on average over them is also best in the true deal
    solver = TinySolver()
    expert = ExpertBot(solver=solver, time_budget=None)
    agree = 0
    n = 0
    for state in late_positions("felagsvist", 80, seed=9, tricks_left=2):
        seat = state.to_play
        view = state.view(seat)
        card = expert.choose(view, random.Random(3))
        assert card in view.legal
        values, best = true_values(solver, state)
        n += 1
        agree += values[card] == best
    assert agree / n > 0.85


def test_expert_stops_early_when_all_cards_are_equal() -> None:
    solver = TinySolver()
    expert = ExpertBot(solver=solver, time_budget=None, batch=4, min_worlds=4)
    for state in late_positions("felagsvist", 30, seed=2, tricks_left=1):
        view = state.view(state.to_play)
        expert.choose(view, random.Random(0))
        assert expert.last_worlds <= 4


def test_scorer_counts_the_margin_for_the_side() -> None:
    hearts = Contract("H", 1)
    nolo = Contract("NOLO", None, misere=True)
    # 5 tricks played: NS 3, EW 2; NS take 4 of the remaining 8 -> NS 7, EW 6
    assert hand_scorer("felagsvist", hearts, side_of(0), (3, 2))(4) == 1
    assert hand_scorer("felagsvist", hearts, side_of(1), (3, 2))(4) == -1
    # in nóló the side scores the other side's tricks
    assert hand_scorer("felagsvist", nolo, 0, (3, 2))(4) == -1


def test_scorer_follows_swedish_and_classic_scoring() -> None:
    from whistkit.variants.swedish import NOLLSPEL, spel_contract

    spel_n = spel_contract(0)
    # NS declare, have 5 tricks with 2 left: 7 tricks make +1, 6 tricks give EW +2
    assert hand_scorer("swedish", spel_n, 0, (5, 6))(2) == 1
    assert hand_scorer("swedish", spel_n, 0, (5, 6))(1) == -2
    assert hand_scorer("swedish", spel_n, 1, (5, 6))(1) == 2
    # nollspel: the side with at most 6 tricks scores 7 minus its tricks
    assert hand_scorer("swedish", NOLLSPEL, 0, (4, 8))(0) == 3
    # classic: odd tricks only
    assert hand_scorer("english", Contract("S", 0), 0, (6, 5))(2) == 2
    assert hand_scorer("english", Contract("S", 0), 0, (6, 5))(0) == -1


def plain(left: int, misere: bool) -> int:
    """A look-ahead schedule of plain PIMC everywhere."""
    return 1


def _views_with_a_choice(n: int, tricks_left: int) -> list[View]:
    """Views of the seat to play, seed 9's late Félagsvist positions, with two or more
    legal cards."""
    return [
        s.view(s.to_play)
        for s in late_positions("felagsvist", n, seed=9, tricks_left=tricks_left)
        if s.contract is not None and s.legal_mask().bit_count() >= 2
    ]


def test_the_gate_keeps_the_club_rules_card_unless_another_clearly_gains() -> None:
    # ExpertBot(gate={n: se}): with n tricks left plain PIMC plays the club rules' card
    # unless another card gains on it by se standard errors world by world; a gate
    # nothing can pass gives the club card every time, and without the gate the expert
    # plays other cards at some of the same positions
    views = _views_with_a_choice(300, tricks_left=5)
    # (no signal: it would play another card of the club card's run)
    shut = ExpertBot(
        solver=solver,
        worlds=lambda left, m: 12,
        lookahead=plain,
        gate={4: 1e9, 5: 1e9},
        signal=None,
    )
    free = ExpertBot(solver=solver, worlds=lambda left, m: 12, lookahead=plain, signal=None)
    gated = differ = 0
    for i, view in enumerate(views):
        club = ClubBot().choose(view, random.Random(i))
        if view.hand_sizes[view.seat] in (4, 5):
            assert shut.choose(view, random.Random(i)) == club
            gated += 1
            differ += free.choose(view, random.Random(i)) != club
    assert gated >= 10 and differ >= 1, (gated, differ)


def test_the_convention_plays_the_club_card_within_its_margin_of_the_best() -> None:
    # ExpertBot(convention=d): the club rules' card wherever its mean over the worlds is
    # within d margin points of the best card's, in plain PIMC and in the look-ahead
    # alike; a margin wider than any hand's (25.9 points) gives the club card every time,
    # none (the default) plays other cards at some of the same positions
    def ahead(left: int, misere: bool) -> int:
        return 2

    views = _views_with_a_choice(200, tricks_left=4)
    differ = 0
    for depth in (plain, ahead):
        wide = ExpertBot(
            solver=solver, worlds=lambda left, m: 8, lookahead=depth, convention=25.9, signal=None
        )
        free = ExpertBot(solver=solver, worlds=lambda left, m: 8, lookahead=depth, signal=None)
        for i, view in enumerate(views):
            club = ClubBot().choose(view, random.Random(i))
            assert wide.choose(view, random.Random(i)) == club
            differ += free.choose(view, random.Random(i)) != club
    assert len(views) >= 20 and differ >= 2, (len(views), differ)


def test_tail_and_gate_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="tail must be True or False, not 'yes'"):
        ExpertBot(tail="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"gate must map tricks left \(1-13\) to standard"):
        ExpertBot(gate={14: 1.0})
    with pytest.raises(ValueError, match="not 13: 'x'"):
        ExpertBot(gate={13: "x"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="convention must be margin points from 0 up to 26"):
        ExpertBot(convention=-0.5)
    with pytest.raises(ValueError, match="not 'x'"):
        ExpertBot(convention="x")  # type: ignore[arg-type]


def test_misere_looks_ahead_where_the_misere_schedule_says() -> None:
    """The misère schedule (``LOOKAHEAD_MISERE``, measured in docs/bots.md: Nóló at 11-9
    tricks left, two own moves; at 8-4, three) sends Nóló's decisions there through the
    look-ahead with its depth, Grand's at the same tricks through plain PIMC (11 left) or
    three own moves (6 left, ``LOOKAHEAD``); with it empty Nóló's go as Grand's at 11 left.
    Swedish spel keeps two own moves at 6 left (``LOOKAHEAD_SPEL``)."""
    from whistkit.bots import pimc
    from whistkit.bots.lookahead import Lookahead
    from whistkit.deal import deal_cards
    from whistkit.state import Deal, new_game

    assert [pimc.default_lookahead(n, True) for n in (12, 11, 9, 8, 4, 3)] == [1, 2, 2, 3, 3, 2]
    assert [pimc.default_lookahead(n, False) for n in (11, 8, 4, 3)] == [1, 3, 3, 2]
    assert [pimc.default_lookahead(n, False, "swedish") for n in (11, 8, 4)] == [1, 2, 2]
    # Félagsvist's Grand: three own moves from 9 tricks left (over the schedule)
    assert ExpertBot().grand_lookahead == {9: 3}
    depths: list[tuple[bool, int]] = []
    values = Lookahead.values

    def seen(self, worlds, cards, depth, weights=None):  # type: ignore[no-untyped-def]
        depths.append((self.contract.misere, depth))
        return values(self, worlds, cards, depth, weights)

    def decide(number: int, left: int) -> None:
        rng = random.Random(number)
        state = new_game("felagsvist", dealer=1).replace(hand_number=number)
        state = state.apply(Deal(deal_cards(rng, state.dealer).hands))
        while state.holdings[state.to_play].bit_count() > left or (
            state.legal_mask().bit_count() < 2
        ):
            state = state.apply(ClubBot().choose(state.view(state.to_play), rng))
        ExpertBot(worlds=lambda tricks, misere: 4).choose(
            state.view(state.to_play), random.Random(0)
        )

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Lookahead, "values", seen)
        for number in (3, 6):  # Grand, Nóló
            decide(number, 11)
        assert depths == [(True, 2)]
        depths.clear()
        for number in (3, 6):
            decide(number, 6)
        assert depths == [(False, 3), (True, 3)]
        depths.clear()
        mp.setattr(pimc, "LOOKAHEAD_MISERE", {})
        decide(6, 11)
        decide(6, 6)
        assert depths == [(True, 3)]
        depths.clear()
        # a Swedish spel hand played on by the club rules to 6 cards in hand
        rng = random.Random(5)
        spel = next(
            st
            for st in positions("swedish", 60, 5)
            if st.phase == PLAY
            and st.contract is not None
            and not st.contract.misere
            and st.holdings[st.to_play].bit_count() >= 7
        )
        while spel.holdings[spel.to_play].bit_count() > 6 or spel.legal_mask().bit_count() < 2:
            spel = spel.apply(ClubBot().choose(spel.view(spel.to_play), rng))
        ExpertBot(worlds=lambda tricks, misere: 4).choose(spel.view(spel.to_play), random.Random(0))
        assert depths == [(False, 2)]
