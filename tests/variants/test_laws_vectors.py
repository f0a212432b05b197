"""Laws mode (docs/rules.md §6): vectors V19, V25-V28 and V32-V37 through the public API."""

from __future__ import annotations

import random

import pytest
from _vhelp import deal_action

from whistkit.bots import make_bot
from whistkit.cards import SUIT_MASKS, iter_cards, parse_card, parse_hand
from whistkit.deal import deal_cards
from whistkit.record import dumps, loads, replay, summarize
from whistkit.seats import EAST, NORTH, SOUTH, WEST
from whistkit.state import DEAL, PLAY, Deal, IllegalAction, State, new_game
from whistkit.variants.laws import (
    Call,
    ChooseMethod,
    ClaimRevoke,
    Correct,
    CorrectionPenalty,
    Expose,
    LeadOutOfTurn,
    NameSuit,
    RejectLead,
    Replace,
    WaiveClaim,
    transfer_tricks,
)
from whistkit.variants.swedish import BottomCard

C = parse_card
LAWS = {"play_mode": "laws"}

# A Swedish deal in which W (forehand when S deals) cashes four spades and then leads a
# heart at trick 5; N holds one heart (3H) and eight clubs.
SCRIPT_HANDS = (
    parse_hand("2S 3S 4S 5S 3H 2C 3C 4C 5C 6C 7C 8C 9C"),  # N
    parse_hand("6S 7S 8S 9S 8H 9H TH 7D 8D 9D TD JD QD"),  # E
    parse_hand("TS JH QH KH AH 2H KD AD TC JC QC KC AC"),  # S
    parse_hand("AS KS QS JS 7H 6H 5H 4H 2D 3D 4D 5D 6D"),  # W
)


def scripted(options=None, tricks=4) -> State:
    """The scripted Swedish hand after ``tricks`` tricks, W to lead (spel, declarer W)."""
    s = new_game("swedish", {**LAWS, **(options or {})}, dealer=SOUTH)
    s = s.apply(deal_action(SCRIPT_HANDS))
    s = s.apply(BottomCard(WEST, C("2D")))
    for seat, card in ((NORTH, "2C"), (EAST, "7D"), (SOUTH, "TC")):
        s = s.apply(BottomCard(seat, C(card)))
    assert s.contract.declarer == WEST and s.to_play == WEST
    plays = [
        ["AS", "2S", "6S", "TS"],
        ["KS", "3S", "7S", "2H"],
        ["QS", "4S", "8S", "JH"],
        ["JS", "5S", "9S", "QH"],
    ]
    for trick in plays[:tricks]:
        for card in trick:
            s = s.apply(C(card))
    assert s.to_play == WEST and s.trick_winners == (WEST,) * tricks
    return s


def finish_with_bots(s: State, seed: int = 0) -> State:
    bot = make_bot()
    rng = random.Random(seed)
    hand = s.hand_number
    results = len(s.results)
    while s.phase == PLAY and len(s.results) == results:
        s = s.apply(bot.choose(s.view(s.to_play), rng))
    assert s.hand_number >= hand
    return s


# -- V37: revoke, correction, establishment -----------------------------------------------


def test_v37_correct_before_the_next_trick_no_penalty():
    s = scripted()
    for card in ("7H", "2C", "8H", "KH"):  # N revokes with 2C holding 3H
        s = s.apply(C(card))
    assert s.trick_winners[-1] == SOUTH  # KH won, with the revoke on the table
    assert s.view(NORTH).public["your revoke"] == "2C"
    assert "your revoke" not in s.view(EAST).public
    # noticed before trick 6's first card: N plays 3H instead
    with pytest.raises(IllegalAction, match="lawful"):
        s.check(Correct(NORTH, C("4C")))
    with pytest.raises(IllegalAction, match="no revoke"):
        s.check(Correct(EAST, C("9H")))
    s = s.apply(Correct(NORTH, C("3H")))
    assert s.played[-4:] == (C("7H"), C("3H"), C("8H"), C("KH"))
    assert s.holdings[NORTH] >> C("2C") & 1
    # E, who played after N, may replace his card; S, N's partner, may not
    with pytest.raises(IllegalAction, match="may not take his card back"):
        s.check(Replace(SOUTH, C("AH")))
    with pytest.raises(IllegalAction, match="must follow suit"):
        s.check(Replace(EAST, C("7D")))
    s = s.apply(Replace(EAST, C("TH")))
    assert s.played[-4:] == (C("7H"), C("3H"), C("TH"), C("KH"))
    assert s.trick_winners[-1] == SOUTH and s.to_play == SOUTH
    assert not s.irregular.revokes
    s = finish_with_bots(s)
    r = s.results[-1]
    assert "revokes" not in r.extra  # no penalty
    assert sum(r.tricks) == 13
    again = replay(loads(dumps(s)))
    assert summarize(again) == summarize(s)


def test_v37_correction_can_change_the_trick_winner():
    """A trump revoke that won the trick is corrected before the next lead: the trick is
    rescored and the rightful winner leads."""
    for seed in range(200):
        rng = random.Random(seed)
        dealt = deal_cards(rng, NORTH)
        s = new_game("english", LAWS, dealer=NORTH).apply(Deal(dealt.hands, dealt.last_card))
        trump = s.contract.trump
        bot = make_bot()
        while len(s.trick_winners) < 12:
            seat = s.to_play
            hand = s.holdings[seat]
            if len(s.trick) == 3 and s.trick[0] // 13 != trump:
                led = s.trick[0] // 13
                trumps = list(iter_cards(hand & SUIT_MASKS[trump]))
                if hand & SUIT_MASKS[led] and trumps and all(c // 13 != trump for c in s.trick):
                    break
            s = s.apply(bot.choose(s.view(seat), rng))
        else:
            continue
        tricks_before = s.tricks
        s = s.apply(trumps[0])  # the revoke wins the trick
        assert s.trick_winners[-1] == seat and s.to_play == seat
        follow = next(iter_cards(s.holdings[seat] & SUIT_MASKS[led]))
        s = s.apply(Correct(seat, follow))
        assert s.trick_winners[-1] != seat and s.to_play == s.trick_winners[-1]
        winner_side = s.trick_winners[-1] & 1
        expect = list(tricks_before)
        expect[winner_side] += 1
        assert s.tricks == tuple(expect)
        assert not s.irregular.revokes
        s = finish_with_bots(s)
        assert "revokes" not in s.results[-1].extra
        assert summarize(replay(loads(dumps(s)))) == summarize(s)
        return
    raise AssertionError("no seed gives a winning trump revoke")


def test_v37_correct_in_the_trick_in_progress():
    s = scripted()
    s = s.apply(C("7H")).apply(C("2C"))
    assert s.to_play == EAST
    s = s.apply(Correct(NORTH, C("3H")))
    assert s.trick == (C("7H"), C("3H")) and s.to_play == EAST


def test_v37_established_when_trick_six_starts():
    s = scripted()
    for card in ("7H", "2C", "8H", "KH"):
        s = s.apply(C(card))
    s = s.apply(s.legal_actions()[0])  # S leads trick 6
    assert s.irregular.revokes[0].established
    with pytest.raises(IllegalAction, match="not yet established"):
        s.check(Correct(NORTH, C("3H")))
    s = finish_with_bots(s)
    r = s.results[-1]
    assert r.extra["revokes"] == [{"seat": "N", "trick": 5, "card": "2C"}]
    assert r.extra["penalised"] == 1
    # the tricks as played, before up to 3 went from N-S to E-W (the page says how many)
    ns, ew = r.extra["tricks_played"]
    moved = min(3, ns)
    assert moved > 0 and r.tricks == (ns - moved, ew + moved)


def test_v37_laws_correction_rulings():
    for choice, card in (("highest", "3H"), ("lowest", "3H"), ("expose", "3H"), ("none", "3H")):
        s = scripted({"revoke_correction": "laws"})
        for c in ("7H", "2C", "8H", "KH"):
            s = s.apply(C(c))
        s = s.apply(Correct(NORTH, C("3H")))
        assert s.to_play == EAST  # the opponents rule
        assert s.legal_actions() == [
            CorrectionPenalty(EAST, x) for x in ("expose", "highest", "lowest", "none")
        ]
        with pytest.raises(IllegalAction, match="decide"):
            s.check(C("AD"))
        s = s.apply(CorrectionPenalty(WEST, choice))
        assert s.played[-3] == C(card)
        exposed = s.view(EAST).public.get("exposed", {})
        assert exposed == ({"N": ["2C"]} if choice == "expose" else {})
        s = finish_with_bots(s)
        assert summarize(replay(loads(dumps(s)))) == summarize(s)


def test_laws_correction_highest_and_lowest_pick_from_the_led_suit():
    # E revokes in trick 5 holding three hearts; the opponents pick his highest or lowest
    for choice, expect in (("highest", "TH"), ("lowest", "8H")):
        s = scripted({"revoke_correction": "laws"})
        s = s.apply(C("7H")).apply(C("3H")).apply(C("7D"))  # E revokes
        s = s.apply(Correct(EAST, C("9H")))
        assert s.to_play == SOUTH
        s = s.apply(CorrectionPenalty(SOUTH, choice))
        assert s.trick[-1] == C(expect) and s.to_play == SOUTH
        assert s.holdings[EAST] >> C("7D") & 1


# -- V34, V35: exposed cards and calls -----------------------------------------------------


def test_v34_call_exposed_card():
    s = scripted()
    s = s.apply(Expose(SOUTH, C("KH")))
    assert s.view(NORTH).public["exposed"] == {"S": ["KH"]}
    s = s.apply(C("7H")).apply(C("3H")).apply(C("8H"))
    assert s.to_play == SOUTH
    with pytest.raises(IllegalAction, match="opponents call"):
        s.check(Call(NORTH, C("KH")))
    s = s.apply(Call(EAST, C("KH")))
    assert s.legal_actions() == [C("KH")]  # S must play it
    assert s.view(WEST).public["called"] == "KH"
    s = s.apply(C("KH"))
    assert "exposed" not in s.view(NORTH).public


def test_v34_not_playing_a_called_card_is_a_revoke():
    s = scripted()
    s = s.apply(Expose(SOUTH, C("KH")))
    s = s.apply(C("7H")).apply(C("3H")).apply(C("8H"))
    s = s.apply(Call(WEST, C("KH")))
    s = s.apply(C("AH"))  # follows suit but ignores the call
    assert s.irregular.revokes[0].kind == "call"
    s = s.apply(Correct(SOUTH, C("KH")))  # corrected with the called card
    assert not s.irregular.revokes and s.played[-1] == C("KH")


def test_v35_call_never_forces_a_revoke():
    s = scripted(tricks=0)
    s = s.apply(Expose(SOUTH, C("QH")))
    s = s.apply(C("AS")).apply(C("2S")).apply(C("6S"))
    with pytest.raises(IllegalAction, match="never force a revoke"):
        s.check(Call(EAST, C("QH")))  # W led spades and S holds TS
    s = s.apply(C("TS"))
    s = s.apply(C("KS")).apply(C("3S")).apply(C("7S"))
    s = s.apply(Call(WEST, C("QH")))  # S is void in spades now
    assert s.legal_actions() == [C("QH")]


def test_exposed_card_may_be_played_by_its_owner():
    s = scripted()
    s = s.apply(Expose(WEST, C("7H")))
    s = s.apply(C("7H"))
    assert s.irregular.exposed == (0, 0, 0, 0)
    with pytest.raises(IllegalAction, match="does not hold it"):
        s.check(Expose(NORTH, C("AH")))


# -- V36: lead out of turn ----------------------------------------------------------------


def felag_hand(seed: int = 3) -> State:
    dealt = deal_cards(random.Random(seed), NORTH)
    return new_game("felagsvist", LAWS, dealer=NORTH).apply(Deal(dealt.hands))


def test_v36_lead_out_of_turn_expose_remedy():
    s = felag_hand()
    assert s.to_play == EAST
    w_card = next(iter_cards(s.holdings[WEST]))
    s = s.apply(LeadOutOfTurn(WEST, w_card))
    assert s.to_play == NORTH and s.view(SOUTH).public["led out of turn"] == "W"
    n_card = s.legal_actions()[0]
    s = s.apply(n_card)
    with pytest.raises(IllegalAction, match="offender's opponents"):
        s.check(RejectLead(EAST, "expose"))
    s = s.apply(RejectLead(SOUTH, "expose"))
    assert s.holdings[NORTH] >> n_card & 1 and s.holdings[WEST] >> w_card & 1
    assert s.trick == () and s.played == ()
    assert s.to_play == EAST and s.leader == EAST and s.first_leader == EAST
    assert s.view(NORTH).public["exposed"] == {"W": [_name(w_card)]}
    s = finish_with_bots(s)
    assert summarize(replay(loads(dumps(s)))) == summarize(s)


def test_v36_lead_out_of_turn_suit_call_remedy():
    s = felag_hand()
    w_card = next(iter_cards(s.holdings[WEST]))
    s = felag_hand()
    s = s.apply(LeadOutOfTurn(WEST, w_card))
    s = s.apply(s.legal_actions()[0])
    s = s.apply(RejectLead(NORTH, "call_suit"))
    # E leads next, so the opponents name a suit now
    assert s.to_play == SOUTH and s.legal_actions()[0] == NameSuit(SOUTH, 0)
    with pytest.raises(IllegalAction, match="leader's side"):
        s.check(NameSuit(WEST, 1))
    suit = next(x for x in range(4) if s.holdings[EAST] & SUIT_MASKS[x])
    s = s.apply(NameSuit(NORTH, suit))
    assert s.to_play == EAST
    assert all(c // 13 == suit for c in s.legal_actions())
    other = next(c for c in iter_cards(s.holdings[EAST]) if c // 13 != suit)
    s2 = s.apply(other)  # leading another suit while able is a revoke
    assert s2.irregular.revokes[0].kind == "named_suit"
    s = finish_with_bots(s.apply(s.legal_actions()[0]))
    assert summarize(replay(loads(dumps(s)))) == summarize(s)


def test_v36_trick_stands_when_all_three_played():
    s = felag_hand()
    w_card = next(iter_cards(s.holdings[WEST]))
    s = s.apply(LeadOutOfTurn(WEST, w_card))
    for _ in range(3):
        s = s.apply(s.legal_actions()[0])
    assert len(s.trick_winners) == 1
    with pytest.raises(IllegalAction, match="not led out of turn"):
        s.check(RejectLead(NORTH, "expose"))
    assert s.first_leader == WEST
    plays = list(s.view(NORTH).plays())
    assert [seat for seat, _ in plays] == [WEST, NORTH, EAST, SOUTH]
    s = finish_with_bots(s)
    assert summarize(replay(loads(dumps(s)))) == summarize(s)
    assert summarize(s)["hands"][0]["leader"] == "W"


def _name(card: int) -> str:
    from whistkit.cards import card_name

    return card_name(card)


# -- penalties: search seeded hands for the vector's trick counts ---------------------------


def revoke_hand(
    variant,
    options,
    offenders,
    raw_tricks,
    start_score=(0, 0),
    *,
    seeds=4000,
    deal_ok=lambda hands, turned: True,
    swedish_declarer=None,
):
    """A hand played by bots in which each side in ``offenders`` revokes once and the
    tricks as played are ``raw_tricks``; returns the state after the 13th trick."""
    for seed in range(seeds):
        rng = random.Random(seed)
        dealer = WEST
        s = new_game(variant, {**LAWS, **options}, dealer=dealer)
        s = s.replace(score=start_score)
        dealt = deal_cards(rng, dealer)
        turned = dealt.last_card if s.variant.uses_turned_card else None
        if not deal_ok(dealt.hands, turned):
            continue
        s = s.apply(Deal(dealt.hands, turned))
        if variant == "swedish":
            # N (forehand) commits a red card to declare, if he has one
            red = [c for c in iter_cards(s.holdings[NORTH]) if c // 13 in (1, 2)]
            if not red:
                continue
            s = s.apply(BottomCard(NORTH, red[0]))
            for seat in (EAST, SOUTH, WEST):
                s = s.apply(BottomCard(seat, next(iter_cards(s.holdings[seat]))))
        bot = make_bot()
        todo = list(offenders)
        while s.phase == PLAY and len(s.trick_winners) < 13:
            seat = s.to_play
            if todo and s.trick and seat & 1 == todo[0] and len(s.trick_winners) < 12:
                led = s.trick[0] // 13
                hand = s.holdings[seat]
                off = [c for c in iter_cards(hand) if c // 13 != led]
                if hand & SUIT_MASKS[led] and off:
                    todo.pop(0)
                    s = s.apply(off[0])
                    continue
            s = s.apply(bot.choose(s.view(seat), rng))
        if todo:
            continue
        raw = [0, 0]
        for w in s.trick_winners:  # as played: the scorer's transfer is not in them
            raw[w & 1] += 1
        if tuple(raw) == raw_tricks:
            return s
    raise AssertionError("no seed gives the vector's tricks")


def test_v19_swedish_revoke_moves_three_tricks():
    s = revoke_hand("swedish", {}, [0], (8, 5))
    r = s.results[-1]
    assert r.contract.declarer == NORTH
    assert r.tricks == (5, 8) and r.points == (0, 4)
    assert summarize(replay(loads(dumps(s)))) == summarize(s)


def test_transfer_in_misere_moves_tricks_to_the_offenders():
    from whistkit.variants.swedish import NOLLSPEL

    s = felag_hand().replace(contract=NOLLSPEL, tricks=(4, 9))
    assert transfer_tricks(s, (0,)) == (7, 6)
    assert transfer_tricks(s.replace(tricks=(11, 2)), (0,)) == (13, 0)


def honours(hands, turned, side):
    trump = turned // 13
    return sum(
        1
        for r in (12, 11, 10, 9)
        for seat in range(4)
        if seat & 1 == side and hands[seat] >> (trump * 13 + r) & 1
    )


def test_v25_english_add_reaches_game_at_step_one():
    # E deals and holds all thirteen trumps (spades, AS turned): EW take every trick and
    # hold the four honours; W revokes in trick 1
    hands = (
        parse_hand("2H 3H 4H 5H 6H 2D 3D 4D 5D 6D 7D 8D 9D"),  # N
        parse_hand("AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"),  # E
        parse_hand("7H 8H 9H TH TD JD QD KD AD 2C 3C 4C 5C"),  # S
        parse_hand("JH QH KH AH 6C 7C 8C 9C TC JC QC KC AC"),  # W
    )
    s = new_game("english", LAWS, dealer=EAST).replace(score=(2, 0))
    s = s.apply(deal_action(hands, "AS"))
    s = s.apply(C("7H")).apply(C("6C"))  # W revokes: he holds four hearts
    s = finish_with_bots(s)
    r = s.results[-1]
    assert s.trick_winners.count(EAST) + s.trick_winners.count(WEST) == 13
    assert r.score == (5, 0) and r.points == (3, 0) and r.extra["honours"] == (0, 0)
    assert r.extra["game"].value == 3 and r.extra["penalties"] == (3, 0)
    assert summarize(s)["games"][0] == {
        "winner": "NS",
        "score": {"NS": 5, "EW": 0},
        "value": 3,
    }


def test_v26_english_deduct():
    s = revoke_hand("english", {"revoke_method": "deduct"}, [1], (3, 10), (1, 4))
    r = s.results[-1]
    assert r.score == (1, 4) and "game" not in r.extra


def test_v27_english_transfer():
    ok = lambda hands, turned: honours(hands, turned, 0) == 3  # noqa: E731
    s = revoke_hand("english", {"revoke_method": "transfer"}, [0], (8, 5), deal_ok=ok)
    r = s.results[-1]
    assert r.tricks == (5, 8) and r.score == (2, 2)
    assert r.extra["honours"] == (2, 0)


def test_claimant_choice_asks_the_non_offenders():
    s = revoke_hand("english", {"revoke_method": "claimant_choice"}, [1], (7, 6))
    assert s.phase == PLAY and s.to_play == SOUTH
    assert s.legal_actions() == [ChooseMethod(SOUTH, m) for m in ("add", "deduct", "transfer")]
    done = s.apply(ChooseMethod(SOUTH, "transfer"))
    r = done.results[-1]
    assert r.tricks == (10, 3) and r.score == (4, 0)
    assert summarize(replay(loads(dumps(done)))) == summarize(done)


def test_auto_claim_off_the_claim_is_asked():
    s = revoke_hand("american", {"auto_claim": False}, [0], (6, 7))
    assert s.phase == PLAY and s.to_play == WEST  # EW claim
    waived = s.apply(WaiveClaim(WEST))
    assert waived.results[-1].score == (0, 1)
    claimed = s.apply(ClaimRevoke(EAST))
    assert claimed.results[-1].score == (0, 3)
    with pytest.raises(IllegalAction, match="other side"):
        s.check(ClaimRevoke(NORTH))
    for done in (waived, claimed):
        assert summarize(replay(loads(dumps(done)))) == summarize(done)


def test_v28_both_sides_revoke_voids_the_deal():
    for variant in ("felagsvist", "swedish", "english", "american"):
        s = revoke_hand(variant, {}, [0, 1], (7, 6) if variant != "swedish" else (8, 5))
        assert s.phase == DEAL and s.dealer == WEST  # the same dealer deals again
        r = s.results[-1]
        assert r.extra["void"] and r.points == (0, 0) and r.score == s.score == (0, 0)
        assert s.hand_number == 1
        summary = summarize(replay(loads(dumps(s))))
        assert summary == summarize(s) and summary["hands"][0]["void"] is True


def test_cancel_equal_penalises_only_the_surplus():
    s = revoke_hand("american", {"both_sides_revoke": "cancel_equal"}, [0, 1, 0], (7, 6))
    r = s.results[-1]
    assert r.extra["penalised"] == 1 and r.score == (1, 2)


def test_v32_american_revoke_two_points():
    s = revoke_hand("american", {}, [1], (6, 7))
    assert s.results[-1].score == (2, 1)


def test_v33_american_revoker_capped():
    s = revoke_hand("american", {}, [0], (8, 5), (6, 2))
    r = s.results[-1]
    assert r.score == (6, 4) and not s.is_over
    s = revoke_hand("american", {"revoker_capped": False}, [0], (8, 5), (6, 2))
    assert s.results[-1].score == (8, 4) and s.winner == "NS"


def test_strict_mode_refuses_irregular_actions():
    s = new_game("felagsvist", dealer=NORTH).apply(Deal(deal_cards(random.Random(1), 0).hands))
    card = next(iter_cards(s.holdings[WEST]))
    with pytest.raises(IllegalAction):
        s.check(LeadOutOfTurn(WEST, card))
    with pytest.raises(IllegalAction):
        s.check(Expose(EAST, next(iter_cards(s.holdings[EAST]))))
