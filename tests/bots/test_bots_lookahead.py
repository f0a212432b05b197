"""The expert's look-ahead (own moves held consistent across worlds) against plain PIMC."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from helpers_bots import late_positions

from whistkit import solver
from whistkit.bots import ExpertBot
from whistkit.bots.club import ClubBot
from whistkit.bots.lookahead import OBSERVE, Lookahead, OverBudget, _legal_mask, _Line
from whistkit.bots.pimc import _weights, hand_scorer
from whistkit.bots.sampling import sample_deals
from whistkit.game import Game
from whistkit.seats import side_of
from whistkit.solver.position import position_for
from whistkit.state import Contract, State, View, trick_winner_index
from whistkit.variants import VARIANTS


def _cases(
    variant: str, n: int, worlds: int, tricks_left: int = 4
) -> Iterator[tuple[View, list[int], list[list[int]]]]:
    """Play decisions with 2+ legal cards and ``worlds`` sampled worlds each."""
    for i, state in enumerate(late_positions(variant, n, seed=7, tricks_left=tricks_left)):
        view = state.view(state.to_play)
        cards = [a for a in view.legal if type(a) is int]
        if view.contract is None or len(cards) < 2:
            continue
        drawn = [list(w) for w in sample_deals(view, worlds, random.Random(i))]
        for w in drawn:
            w[view.seat] = view.hand
        yield view, cards, drawn


def _pimc(view: View, cards: list[int], worlds: list[list[int]]) -> dict[int, float]:
    """Plain PIMC: each world's double-dummy value of each card, scored and summed."""
    assert view.contract is not None
    score = hand_scorer(view.variant, view.contract, side_of(view.seat), view.tricks)
    totals = dict.fromkeys(cards, 0.0)
    for w in worlds:
        pos = solver.Position(
            hands=(w[0], w[1], w[2], w[3]),
            trick=tuple(view.trick),
            leader=view.leader,
            trump=view.contract.trump,
            misere=view.contract.misere,
            aces_low=view.contract.aces_low,
        )
        values = solver.solve_cards(pos)
        for c in cards:
            totals[c] += score(values[c])
    return totals


def _lookahead(
    view: View,
    worlds: list[list[int]],
    cards: list[int],
    depth: int,
    observe: str = "coarse",
    weights: list[float] | None = None,
) -> dict[int, float]:
    assert view.contract is not None
    score = hand_scorer(view.variant, view.contract, side_of(view.seat), view.tricks)
    return Lookahead(solver, view, score, observe=observe).values(worlds, cards, depth, weights)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_one_world_leaves_nothing_to_fuse(variant: str) -> None:
    # in a single world every line is its own group: the look-ahead is double-dummy play,
    # so it must give each card exactly plain PIMC's value (misère and Swedish scoring too)
    n = 0
    for view, cards, worlds in _cases(variant, 40, 1):
        n += 1
        expected = _pimc(view, cards, worlds)
        for observe in OBSERVE:
            assert _lookahead(view, worlds, cards, 2, observe) == expected
            assert _lookahead(view, worlds, cards, 3, observe) == expected
    assert n >= 20


def test_holding_own_moves_consistent_only_lowers_values() -> None:
    # one card per group instead of each world's best: never more than PIMC, and a deeper
    # look-ahead never more than a shallower one; strictly less where a later guess hides.
    # A coarse group is a union of exact ones, so seeing less never raises a value either.
    fused = coarser = 0
    kinds = set()
    for view, cards, worlds in _cases("felagsvist", 150, 12, tricks_left=6):
        assert view.contract is not None
        pimc = _pimc(view, cards, worlds)
        two = _lookahead(view, worlds, cards, 2, "cards")
        three = _lookahead(view, worlds, cards, 3, "cards")
        coarse = _lookahead(view, worlds, cards, 2, "coarse")
        coarse3 = _lookahead(view, worlds, cards, 3, "coarse")
        for c in cards:
            assert three[c] <= two[c] + 1e-9 <= pimc[c] + 2e-9
            assert coarse3[c] <= coarse[c] + 1e-9 <= two[c] + 2e-9
            assert coarse3[c] <= three[c] + 1e-9
        if any(two[c] < pimc[c] - 1e-9 for c in cards):
            fused += 1
            kinds.add(view.contract.misere)
        coarser += any(coarse[c] < two[c] - 1e-9 for c in cards)
    assert fused >= 5
    assert kinds == {False, True}  # found in trumps/Grand and in Nóló
    assert coarser >= 5


class _EveryCard(Lookahead):
    """The look-ahead without merging equivalent cards: one search per card."""

    def _equivalent(self, cards: Iterable[int]) -> list[list[int]]:
        return [[c] for c in cards]


def test_equivalent_cards_are_searched_once_with_the_same_values() -> None:
    # touching cards (no card still out between them) are worth the same in every world;
    # the look-ahead searches one of them and must give exactly the per-card values,
    # aces-low Nóló included (the ace touches the two there, not the king)
    merged = 0
    for view, cards, worlds in _cases("felagsvist", 120, 8, tricks_left=6):
        assert view.contract is not None
        views = [view]
        if view.contract.misere:
            views.append(replace(view, contract=replace(view.contract, aces_low=True)))
        for v in views:
            assert v.contract is not None
            score = hand_scorer(v.variant, v.contract, side_of(v.seat), v.tricks)
            ahead = Lookahead(solver, v, score)
            classes = ahead._equivalent(cards)
            assert sorted(c for group in classes for c in group) == sorted(cards)
            merged += len(cards) - len(classes)
            every = _EveryCard(solver, v, score).values(worlds, cards, 2)
            assert ahead.values(worlds, cards, 2) == every
    assert merged >= 50


def test_equivalence_follows_the_rank_order_and_the_cards_still_out() -> None:
    view, _, _ = next(_cases("felagsvist", 5, 1))
    # North holds the ace, king, two and four of spades; every other spade is out but the
    # three, which was played: 2 and 4 touch; A and K touch aces high; A and 2 aces low
    spades = [39 + r for r in (12, 11, 0, 2)]
    played = tuple(c for c in range(52) if c // 13 != 3) + (40,)
    hand = sum(1 << c for c in spades)
    mine = replace(view, seat=0, hand=hand, played=played, trick=())
    high = Lookahead(solver, replace(mine, contract=Contract("NOLO", None, True)), float)
    low = Lookahead(
        solver, replace(mine, contract=Contract("NOLO", None, True, aces_low=True)), float
    )
    assert high._equivalent(spades) == [[39, 41], [50, 51]]
    assert low._equivalent(spades) == [[51, 39, 41], [50]]
    # a card of the current trick still separates: the three led by West
    led = replace(mine, trick=(40,), leader=3)  # played includes the current trick
    in_trick = Lookahead(solver, replace(led, contract=Contract("NOLO", None, True)), float)
    assert in_trick._equivalent(spades) == [[39], [41], [50, 51]]


@pytest.mark.parametrize("weigh", [False, True])
def test_expert_plays_the_best_card_of_its_look_ahead(weigh: bool) -> None:
    # with weighted worlds: the best card of the weighted sums
    worlds = 12
    # (no signal: the convention's card of a run may not be the look-ahead's best, whose
    # club-rule opponents answer two equal cards differently)
    bot = ExpertBot(
        worlds=lambda left, misere: worlds,
        lookahead=lambda left, misere: 2,
        weigh=weigh,
        signal=None,
    )
    for i, state in enumerate(late_positions("felagsvist", 40, seed=3, tricks_left=4)):
        view = state.view(state.to_play)
        cards = [a for a in view.legal if type(a) is int]
        if view.contract is None or len(cards) < 2:
            continue
        draw, weigh_world = bot._drawer(view, random.Random(i))
        drawn = [draw() for _ in range(worlds)]
        weights = _weights(weigh_world, drawn)
        assert (weights is not None) == (weigh and view.played != ())
        values = _lookahead(view, drawn, cards, 2, weights=weights)
        card = bot.choose(view, random.Random(i))
        assert type(card) is int
        assert math.isclose(values[card], max(values.values()), abs_tol=1e-9)
        assert bot.last_worlds == worlds


def test_a_look_ahead_of_one_move_is_refused() -> None:
    view, cards, worlds = next(_cases("felagsvist", 5, 2))
    with pytest.raises(ValueError, match="at least 2 own moves"):
        _lookahead(view, worlds, cards, 1)


def test_an_unknown_observation_is_refused() -> None:
    view, cards, worlds = next(_cases("felagsvist", 5, 2))
    with pytest.raises(ValueError, match="observe must be one of coarse, cards, not 'suits'"):
        _lookahead(view, worlds, cards, 2, "suits")
    with pytest.raises(ValueError, match="observe must be one of coarse, cards, not 'all'"):
        ExpertBot(observe="all")


def _laws_positions(variant: str, n: int, seed: int) -> Iterator[State]:
    """Play positions of laws-mode games of club bots (views name each trick's leader)."""
    rng = random.Random(seed)
    for k in range(n):
        g = Game(variant, {"play_mode": "laws"}, seed=seed * 100 + k, bots={})
        bot = ClubBot()
        for _ in range(rng.randrange(20, 52)):
            s = g.state
            if s.phase not in ("bid", "play"):
                break
            g.act(bot.choose(s.view(s.to_play), rng))
        if g.state.phase == "play":
            yield g.state


@pytest.mark.parametrize(
    "variant,laws",
    [(v, False) for v in sorted(VARIANTS)] + [("english", True), ("felagsvist", True)],
)
def test_club_answers_are_the_club_bots_cards(variant: str, laws: bool) -> None:
    # respond="club": in the real deal, each other seat's answer until the expert's next
    # turn is the card the club bot plays from that seat's real view (the look-ahead's
    # reconstructed public knowledge, trick winners, laws mode's trick leaders and hand
    # sizes included)
    compared = 0
    states = (
        _laws_positions(variant, 30, seed=11)
        if laws
        else late_positions(variant, 30, seed=11, tricks_left=6)
    )
    for i, state in enumerate(states):
        me = state.to_play
        view = state.view(me)
        cards = [a for a in view.legal if type(a) is int]
        if view.contract is None or len(cards) < 2:
            continue
        ahead = Lookahead(solver, view, float, respond="club")
        root = _Line(state.holdings, tuple(state.trick), state.leader, 0, ())
        for card in cards:
            line, real = ahead._play(root, card), state.apply(card)
            while not (line.over or line.to_play == me) and real.phase == "play":
                seat = line.to_play
                assert real.to_play == seat and real.holdings == line.hands
                expected = ClubBot().choose(real.view(seat), random.Random(i))
                assert type(expected) is int
                legal = real.legal_mask()
                got = ahead._club(line) if legal & (legal - 1) else expected
                assert got == expected, f"{variant} position {i}, {seat} after {card}"
                compared += legal & (legal - 1) != 0
                line, real = ahead._play(line, got), real.apply(got)
    assert compared > 30


@pytest.mark.parametrize("variant", ["felagsvist", "swedish"])
def test_club_opponents_answers_partner_double_dummy_and_opponents_by_the_club_rules(
    variant: str,
) -> None:
    # respond="club-opponents" (the default): until the expert's next turn its partner
    # plays the lowest of its double-dummy best cards in the world, each opponent the
    # club bot's card from its real view
    partner_cards = opponent_cards = 0
    for i, (state, view, cards) in enumerate(_choices(variant, 40, seed=13, tricks_left=6)):
        me, contract = view.seat, view.contract
        assert contract is not None
        ahead = Lookahead(solver, view, float, respond="club-opponents")
        root = _Line(state.holdings, tuple(state.trick), state.leader, 0, ())
        for card in cards:
            (line,) = ahead._advance([ahead._play(root, card)])
            real = state.apply(card)
            for got in line.since[1:]:
                seat = real.to_play
                legal = real.legal_mask()
                if legal & (legal - 1):
                    if side_of(seat) == side_of(me):
                        pos = position_for(solver, real.holdings, real.trick, real.leader, contract)
                        values = solver.solve_cards(pos)
                        best = min(values.values()) if contract.misere else max(values.values())
                        assert got == min(c for c, v in values.items() if v == best)
                        partner_cards += 1
                    else:
                        assert got == ClubBot().choose(real.view(seat), random.Random(i))
                        opponent_cards += 1
                real = real.apply(got)
    assert partner_cards > 10 and opponent_cards > 20, (partner_cards, opponent_cards)


def _replays(ahead: Lookahead, root: _Line, line: _Line) -> bool:
    """Is ``line`` ``root`` played on by the cards in ``line.since`` after root's?"""
    for got in line.since[len(root.since) :]:
        if not root.hands[root.to_play] >> got & 1:
            return False
        root = ahead._play(root, got)
    return root.hands == line.hands


def test_partner_guesses_plays_one_card_for_the_worlds_partner_cannot_tell_apart() -> None:
    # respond="partner-guesses": the opponents answer by the club rules, and partner's
    # card is the one best summed over every world with the same cards played since the
    # decision and the same legal cards for partner (the lowest of equals), so worlds
    # that differ only where partner cannot see get one card, not each its own best
    groups = differ = 0
    for variant in ("felagsvist", "swedish"):
        for i, (_, view, cards) in enumerate(_choices(variant, 30, seed=17, tricks_left=6)):
            me, contract = view.seat, view.contract
            assert contract is not None
            drawn = [list(w) for w in sample_deals(view, 24, random.Random(i))]
            for w in drawn:
                w[me] = view.hand
            ahead = Lookahead(solver, view, float, respond="partner-guesses")
            for card in cards:
                roots = [
                    ahead._play(
                        _Line((w[0], w[1], w[2], w[3]), tuple(view.trick), view.leader, 0, ()), card
                    )
                    for w in drawn
                ]
                # partner's choices, replayed from each world: (what partner has seen,
                # its legal cards) -> [(the line at partner's turn, the card it played)]
                chosen: dict[tuple[tuple[int, ...], int], list[tuple[_Line, int]]] = {}
                for line in ahead._advance(roots):
                    # a world it came from (the lines come back in another order):
                    # every card since in the hand of the seat that played it
                    at = next(r for r in roots if _replays(ahead, r, line))
                    for got in line.since[len(at.since) :]:
                        legal = _legal_mask(at)
                        if at.to_play == me:
                            break
                        if side_of(at.to_play) != side_of(me):
                            assert got == ahead._club(at) or not legal & (legal - 1)
                        elif legal & (legal - 1):
                            chosen.setdefault((at.since, legal), []).append((at, got))
                        at = ahead._play(at, got)
                for members in chosen.values():
                    played = {got for _, got in members}
                    assert len(played) == 1, played
                    summed: dict[int, int] = {}
                    bests = set()
                    for at, _ in members:
                        pos = position_for(solver, at.hands, at.trick, at.leader, contract)
                        values = solver.solve_cards(pos)
                        best = min(values.values()) if contract.misere else max(values.values())
                        bests.add(min(c for c, v in values.items() if v == best))
                        for c, v in values.items():
                            summed[c] = summed.get(c, 0) + v
                    top = min(summed.values()) if contract.misere else max(summed.values())
                    assert played == {min(c for c, v in summed.items() if v == top)}
                    groups += len(members) > 1
                    differ += len(bests) > 1
    assert groups > 20 and differ > 3, (groups, differ)


def test_respond_is_checked() -> None:
    with pytest.raises(ValueError, match="respond must be one of dd, club, club-opponents"):
        ExpertBot(respond="smart")


def _club_playout(state: State, card: int, stop: int) -> tuple[State, int]:
    """The real state after ``card`` and club play by every seat until a trick starts
    with at most ``stop`` tricks left (or the hand ends), and the tricks the side to
    move at ``state`` won on the way."""
    side = side_of(state.to_play)
    before = state.tricks[side]
    real = state.apply(card)
    while real.phase == "play" and not (not real.trick and real.holdings[0].bit_count() <= stop):
        real = real.apply(ClubBot().choose(real.view(real.to_play), random.Random(0)))
    return real, real.tricks[side] - before if real.phase == "play" else -1


def _choices(
    variant: str, n: int, seed: int, tricks_left: int
) -> Iterator[tuple[State, View, list[int]]]:
    """Late play positions where the seat to play has two or more legal cards."""
    for state in late_positions(variant, n, seed=seed, tricks_left=tricks_left):
        view = state.view(state.to_play)
        cards = [a for a in view.legal if type(a) is int]
        if view.contract is not None and len(cards) >= 2:
            yield state, view, cards


@pytest.mark.parametrize("variant", ["felagsvist", "swedish", "english"])
def test_rollout_values_are_club_play_then_the_solver(variant: str) -> None:
    # in the real deal (one world), a card's rollout value is the score of the tricks
    # the club rules take after it down to `stop` tricks left plus the solver's value
    # from there (converted to the expert's side); with a budget the search finishes
    compared = 0
    for state, view, cards in _choices(variant, 30, seed=5, tricks_left=6):
        assert view.contract is not None
        side = side_of(view.seat)
        score = hand_scorer(view.variant, view.contract, side, view.tricks)
        ahead = Lookahead(solver, view, score, respond="club")
        for stop in (0, 3):
            got = ahead.rollout_rows([list(state.holdings)], cards, stop, None)
            budget = ahead.rollout_rows([list(state.holdings)], cards, stop, 10**8)
            assert budget == got
            for card in cards:
                real, won = _club_playout(state, card, stop)
                if real.phase != "play":  # the hand ended on the way
                    final = real.results[-1].tricks
                    before = state.tricks
                    future = final[side] - before[side]
                else:
                    pos = solver.Position(
                        hands=real.holdings,
                        trick=(),
                        leader=real.leader,
                        trump=view.contract.trump,
                        misere=view.contract.misere,
                        aces_low=view.contract.aces_low,
                    )
                    v = solver.solve(pos)
                    n = real.holdings[0].bit_count()
                    future = won + (v if side_of(real.leader) == side else n - v)
                assert got[card] == [score(future)], f"{variant} {card} stop {stop}"
                compared += 1
    assert compared > 40


def test_misere_first_tricks_searched_by_the_rollouts_or_the_club_rules() -> None:
    # Nóló at tricks 1-2: by default the rollouts decide in every scheduled world; with
    # no rollout world scheduled at 12-13 tricks left, the club rules decide (no world
    # searched); either way a seed fixes the card
    from whistkit.bots.pimc import ROLLOUT_WORLDS, default_worlds
    from whistkit.deal import deal_cards
    from whistkit.state import Deal, new_game

    def rules(tricks_left: int, misere: bool) -> int:
        return 0 if misere and tricks_left > 11 else default_worlds(tricks_left, misere)

    assert default_worlds(13, True) == ROLLOUT_WORLDS[13] == 16
    assert default_worlds(12, True) == ROLLOUT_WORLDS[12] == 16
    for k in (1,):
        state = new_game("felagsvist", dealer=k, hand_number=6)
        state = state.apply(Deal(deal_cards(random.Random(k), state.dealer).hands))
        assert state.contract is not None and state.contract.misere
        chose = 0
        for _ in range(2):  # the lead and the second hand
            view = state.view(state.to_play)
            makers: tuple[tuple[Callable[[], ExpertBot], int], ...] = (
                (lambda: ExpertBot(worlds=rules), 0),
                (ExpertBot, 16),
            )
            for make, worlds in makers:
                bot = make()
                card = bot.choose(view, random.Random(k))
                assert card in view.legal
                if len(view.legal) > 1:
                    chose += 1
                    assert bot.last_worlds == worlds
                assert make().choose(view, random.Random(k)) == card
            state = state.apply(card)
        assert chose > 0


def test_the_rollouts_leave_the_rules_card_only_for_a_clear_gain() -> None:
    # world by world: another card than the rules' (3) is played only when its mean gain
    # exceeds `se` standard errors of the paired difference; then the best such card
    from whistkit.bots.pimc import _beats_by

    noisy = {3: [0.0, 4.0, 0.0, 4.0], 5: [4.0, 0.0, 4.0, 2.0], 9: [0.0, 4.0, 0.0, 4.0]}
    assert _beats_by(noisy, 3, 2.5) == 3  # 5 gains 0.5 a world, with an SE of 1.55
    assert _beats_by(noisy, 3, 0.0) == 5  # without the gate: the best sum, as before
    steady = {3: [0.0, 4.0, 2.0, 6.0], 5: [2.0, 6.0, 4.0, 8.0], 9: [1.0, 5.0, 3.0, 7.5]}
    assert _beats_by(steady, 3, 2.5) == 5  # +2 in every world: no doubt at all
    close = {3: [0.0, 0.0, 0.0, 0.0], 5: [2.0, 2.0, 2.0, -2.0], 9: [1.0, 1.0, 1.0, 1.0]}
    assert _beats_by(close, 3, 2.5) == 9  # 5 gains more on average, 9 surely
    assert _beats_by(close, 3, 0.5) == 5  # with a looser gate the larger mean gain
    worse = {3: [2.0, 2.0], 5: [0.0, 0.0]}
    assert _beats_by(worse, 3, 0.0) == 3


def _kind(view: View) -> str:
    assert view.contract is not None
    if view.contract.misere:
        return "misere"
    return ("grand-" if view.contract.code == "NT" else "trumps-") + (
        "follow" if view.trick else "lead"
    )


@pytest.mark.parametrize(
    ("setting", "searched", "seed"),
    [
        # ExpertBot(lead_lookahead={k: 2}): with k tricks left, the expert's leads in a
        # normal contract hold its next move consistent across the worlds; its follows,
        # and every card of a misère contract, stay plain PIMC there
        ("lead_lookahead", {"grand-lead", "trumps-lead"}, 5),
        # ExpertBot(grand_lookahead={k: 2}): with k tricks left in Félagsvist's Grand
        # (NT), leads and follows alike; the trump contracts and Nóló stay plain PIMC
        ("grand_lookahead", {"grand-lead", "grand-follow"}, 6),
    ],
)
def test_the_lead_and_grand_look_aheads_search_where_they_say_only(
    monkeypatch: pytest.MonkeyPatch, setting: str, searched: set[str], seed: int
) -> None:
    calls: list[tuple[int, int]] = []
    values = Lookahead.values

    def counted(self: Lookahead, worlds, cards, depth, weights=None):  # type: ignore[no-untyped-def]
        calls.append((self.view.hand_sizes[self.view.seat], depth))
        return values(self, worlds, cards, depth, weights)

    monkeypatch.setattr(Lookahead, "values", counted)
    table: dict[str, Any] = {setting: {4: 2}}
    bot = ExpertBot(worlds=lambda left, misere: 8, lookahead=lambda left, misere: 1, **table)
    seen = dict.fromkeys(
        ("grand-lead", "grand-follow", "trumps-lead", "trumps-follow", "misere"), 0
    )
    for i, state in enumerate(late_positions("felagsvist", 200, seed=seed, tricks_left=5)):
        view = state.view(state.to_play)
        cards = [a for a in view.legal if type(a) is int]
        if view.contract is None or len(cards) < 2 or view.hand_sizes[view.seat] != 4:
            continue
        kind = _kind(view)
        calls.clear()
        bot.choose(view, random.Random(i))
        assert calls == ([(4, 2)] if kind in searched else []), kind
        seen[kind] += 1
    assert min(seen.values()) >= 1, seen


@pytest.mark.parametrize("table", [{0: 2}, {14: 2}, {9: 0}, {9: 2.0}, {"9": 3}])
def test_look_ahead_tables_with_bad_entries_are_refused_by_name(table: dict[Any, Any]) -> None:
    for name in ("grand_lookahead", "lead_lookahead"):
        settings: dict[str, Any] = {name: table}
        with pytest.raises(ValueError, match=name):
            ExpertBot(**settings)


def _tail_playout(state: State, card: int) -> int:
    """The tricks the side to move at ``state`` takes from it on when it plays ``card``,
    then its side plays the lowest of its double-dummy best cards and each opponent the
    club bot's card from its real view, to the end of the hand."""
    side = side_of(state.to_play)
    assert state.contract is not None
    misere = state.contract.misere
    real = state.apply(card)
    contract = real.contract
    assert contract is not None
    won = int(len(real.trick_winners) > len(state.trick_winners) and side_of(real.leader) == side)
    while real.phase == "play":
        seat, before = real.to_play, len(real.trick_winners)
        legal = real.legal_mask()
        if not legal & (legal - 1):
            got = legal.bit_length() - 1
        elif side_of(seat) == side:
            pos = position_for(solver, real.holdings, real.trick, real.leader, contract)
            values = solver.solve_cards(pos)
            best = min(values.values()) if misere else max(values.values())
            got = min(c for c, v in values.items() if v == best)
        else:
            club = ClubBot().choose(real.view(seat), random.Random(0))
            assert type(club) is int
            got = club
        if len(real.trick_winners) == 12 and len(real.trick) == 3:
            last = (real.leader + trick_winner_index((*real.trick, got), contract)) & 3
            return won + (side_of(last) == side)
        real = real.apply(got)
        if len(real.trick_winners) > before:
            won += side_of(real.trick_winners[-1]) == side
    raise AssertionError("the hand ended before its last trick")


@pytest.mark.parametrize("variant", ["felagsvist", "swedish"])
def test_the_tail_plays_the_hand_out_with_the_side_double_dummy_and_opponents_by_the_club_rules(
    variant: str,
) -> None:
    # tail=True: in the real deal (one world) a card's tail value is the score of the
    # tricks its side takes when the hand is played out to its end, the expert and its
    # partner double-dummy, the opponents by the club bot's cards from their real views
    compared = 0
    for state, view, cards in _choices(variant, 30, seed=17, tricks_left=5):
        assert view.contract is not None
        score = hand_scorer(view.variant, view.contract, side_of(view.seat), view.tricks)
        ahead = Lookahead(solver, view, score, respond="club-opponents", tail=True)
        root = _Line(state.holdings, tuple(state.trick), state.leader, 0, ())
        for card in cards:
            assert ahead._tail_value([root], card) == score(_tail_playout(state, card))
            compared += 1
    assert compared > 40


def test_the_tail_values_the_look_aheads_last_move(monkeypatch: pytest.MonkeyPatch) -> None:
    # ExpertBot(tail=True) values the look-ahead's last own move by playing out to the
    # end; without it, by the solver's values
    calls: list[int] = []
    tail = Lookahead._tail_value

    def counted(self: Lookahead, lines, card):  # type: ignore[no-untyped-def]
        calls.append(card)
        return tail(self, lines, card)

    monkeypatch.setattr(Lookahead, "_tail_value", counted)
    positions = [
        s.view(s.to_play)
        for s in late_positions("felagsvist", 40, seed=5, tricks_left=5)
        if s.contract is not None and s.legal_mask().bit_count() >= 2
    ][:6]
    assert positions
    for tail_on in (False, True):
        bot = ExpertBot(
            worlds=lambda left, misere: 6, lookahead=lambda left, misere: 2, tail=tail_on
        )
        calls.clear()
        for i, view in enumerate(positions):
            bot.choose(view, random.Random(i))
        assert bool(calls) == tail_on


def _reply_playout(state: State, card: int) -> int:
    """The tricks the side to move at ``state`` takes from it on when it plays ``card``,
    each opponent after it in this trick plays the club bot's card from its real view,
    and the position is then solved double-dummy (partner to play: its best card)."""
    side = side_of(state.to_play)
    assert state.contract is not None
    misere = state.contract.misere
    real = state.apply(card)
    won = 0
    while real.phase == "play" and real.trick and side_of(real.to_play) != side:
        before = len(real.trick_winners)
        real = real.apply(ClubBot().choose(real.view(real.to_play), random.Random(0)))
        if len(real.trick_winners) > before:
            won += side_of(real.trick_winners[-1]) == side
    if real.phase != "play":
        return won
    assert real.contract is not None
    pos = position_for(solver, real.holdings, real.trick, real.leader, real.contract)
    if real.trick:  # partner to play: its best card, our side's tricks
        values = solver.solve_cards(pos)
        return won + (min(values.values()) if misere else max(values.values()))
    tricks = solver.solve(pos)  # the leader's side's tricks
    n = real.holdings[0].bit_count()
    return won + (tricks if side_of(real.leader) == side else n - tricks)


@pytest.mark.parametrize("variant", ["felagsvist", "swedish", "english"])
def test_reply_rows_answer_with_the_club_rules_in_the_card_s_trick_then_solve(
    variant: str,
) -> None:
    # in the real deal (one world), reply_rows values each card as the club bots'
    # answers in its trick from their real views, then the solver (partner's best card
    # if partner is next); with a node budget that suffices the same; leads and third
    # hand's cards are both compared, and some answers differ from the solver's
    compared = {0: 0, 2: 0}
    unlike_dd = 0
    for state, view, cards in _choices(variant, 60, seed=23, tricks_left=6):
        if len(view.trick) not in compared:
            continue
        assert view.contract is not None
        score = hand_scorer(view.variant, view.contract, side_of(view.seat), view.tricks)
        ahead = Lookahead(solver, view, score, respond="club-opponents")
        (row,) = ahead.reply_rows([list(state.holdings)], cards, None)
        (budget,) = ahead.reply_rows([list(state.holdings)], cards, 10**8)
        assert row is not None and budget == row
        dd = solver.solve_cards(
            position_for(solver, state.holdings, state.trick, state.leader, view.contract)
        )
        for card in cards:
            assert row[card] == score(_reply_playout(state, card))
            unlike_dd += row[card] != score(dd[card])
        compared[len(view.trick)] += 1
    assert min(compared.values()) >= 5, compared
    assert unlike_dd  # the club answers are not the double-dummy ones everywhere


def test_reply_reaches_plain_pimc_at_its_tricks_only() -> None:
    # ExpertBot(reply=...) uses the club answers at leads and third hand's cards at the
    # tricks left it names; elsewhere plain PIMC; bad settings are refused by name
    calls: list[int] = []
    original = Lookahead.reply_rows

    def counted(self, worlds, cards, node_limit):  # type: ignore[no-untyped-def]
        calls.append(len(self.view.trick))
        return original(self, worlds, cards, node_limit)

    positions = [
        s.view(s.to_play)
        for s in late_positions("felagsvist", 60, seed=7, tricks_left=5)
        if s.contract is not None and s.legal_mask().bit_count() >= 2
    ]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Lookahead, "reply_rows", counted)
        for reply in ((), (1, 2, 3, 4, 5)):
            bot = ExpertBot(
                worlds=lambda left, misere: 4, lookahead=lambda left, misere: 1, reply=reply
            )
            calls.clear()
            for i, view in enumerate(positions):
                bot.choose(view, random.Random(i))
            if reply:
                assert calls and set(calls) <= {0, 2}
            else:
                assert calls == []
    bads: list[Any] = [(0,), (14,), ("9",)]
    for bad in bads:
        with pytest.raises(ValueError, match="reply must hold tricks left"):
            ExpertBot(reply=bad)


def test_a_node_budget_changes_nothing_within_it_and_stops_the_look_ahead_past_it() -> None:
    checked = 0
    for view, cards, worlds in _cases("felagsvist", 12, 6, tricks_left=6):
        assert view.contract is not None
        score = hand_scorer(view.variant, view.contract, side_of(view.seat), view.tricks)
        free = Lookahead(solver, view, score).values(worlds, cards, 2)
        ample = Lookahead(solver, view, score, node_budget=10**12)
        assert ample.values(worlds, cards, 2) == free
        assert ample.spent > 0
        again = Lookahead(solver, view, score, node_budget=10**12)
        again.values(worlds, cards, 2)
        assert again.spent == ample.spent  # node counts: the same every time
        # a quarter of the nodes it needed is not enough
        budget = max(1, ample.spent // 4)
        with pytest.raises(OverBudget, match=f"more than {budget:,} nodes"):
            Lookahead(solver, view, score, node_budget=budget).values(worlds, cards, 2)
        checked += 1
    assert checked >= 5
    view, cards, worlds = next(_cases("felagsvist", 5, 2))
    assert view.contract is not None
    score = hand_scorer(view.variant, view.contract, side_of(view.seat), view.tricks)
    with pytest.raises(ValueError, match="node budget must be at least 1, not 0"):
        Lookahead(solver, view, score, node_budget=0)

    class Spender:
        """The solver, each budgeted batch spending the whole budget it is given."""

        def __getattr__(self, name: str) -> object:
            return getattr(solver, name)

        def solve_batch_counted(
            self, positions: list[solver.Position], node_limit: int, threads: int = 2
        ) -> tuple[list[dict[int, int]], int]:
            return solver.solve_batch(positions, cards=True, threads=threads), node_limit

    # a budget spent to the last node: the next solve is over it (not a node limit of 0)
    view, cards, worlds = next(_cases("felagsvist", 5, 4, tricks_left=6))
    assert view.contract is not None
    score = hand_scorer(view.variant, view.contract, side_of(view.seat), view.tricks)
    with pytest.raises(OverBudget):
        Lookahead(Spender(), view, score, node_budget=100).values(worlds, cards, 2)


def test_over_the_look_ahead_budget_the_expert_plays_as_plain_pimc() -> None:
    """Past ``lookahead_nodes`` the decision is plain PIMC's, in the same worlds (so the
    same card as an expert without the look-ahead); within it the look-ahead's."""
    ahead = ExpertBot(worlds=lambda left, misere: 12, lookahead=lambda left, misere: 2)
    over = ExpertBot(
        worlds=lambda left, misere: 12, lookahead=lambda left, misere: 2, lookahead_nodes=1
    )
    plain = ExpertBot(worlds=lambda left, misere: 12, lookahead=lambda left, misere: 1)
    differ = 0
    for i, state in enumerate(late_positions("felagsvist", 40, seed=5, tricks_left=5)):
        view = state.view(state.to_play)
        if view.contract is None or sum(type(a) is int for a in view.legal) < 2:
            continue
        card = over.choose(view, random.Random(i))
        assert card == plain.choose(view, random.Random(i))
        differ += ahead.choose(view, random.Random(i)) != card
    assert differ > 0  # the look-ahead would have played otherwise somewhere
    for bad in (0, -5, 2.5, "many"):
        with pytest.raises(ValueError, match="lookahead_nodes must be a whole number"):
            ExpertBot(lookahead_nodes=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reply must be a collection of tricks left, not 9"):
        ExpertBot(reply=9)  # type: ignore[arg-type]
