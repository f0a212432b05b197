"""Soft inference from the play: what the other seats' cards say about their hands.

Sensible players follow a few rules so reliably that their cards reveal what they do not
hold (docs/bots.md §3, "soft inference"). From the view alone this module derives *facts* of
the form "seat ``s`` held none of these cards when it played", each from one rule:

* trick-taking, third or fourth hand following suit while an opponent's card wins the
  trick by rank: a player who does not beat it holds nothing that would;
* trick-taking, fourth hand winning: it wins as cheaply as it can, so it holds none of
  the cards between the card it beat and the card it played;
* misère, following suit: a player who ducks plays its highest card below the winner, so
  it holds none between; a player who wins holds no card below the winner;
* trick-taking, a lead that is not a boss card, not a trump and not a return of
  partner's suit: a player leads from length, so the led suit was (one of) the
  leader's longest side suits;
* Swedish bottom cards: a shown colour is the one the club rule picks for the hand.

Cards only leave hands, so a fact about the past is a fact about the present hand, and
a world breaking ``k`` facts gets weight ``PENALTY ** k`` (players sometimes break rules).

The expert's default is finer than these facts: :func:`policy_weight`, the *policy
model*, replays every card the other seats played under the club rules from their hands
in the world (docs/bots.md §3, "weight each world by the likelihood of the observed play");
the bidding facts still apply beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..cards import SUIT_MASKS, Card, Hand, cards_in, iter_cards
from ..seats import SEATS, Seat
from ..solver.position import position_for
from ..state import Contract, View, trick_winner_index
from .bottom import club_wants_red, earlier_seats
from .club import club_card
from .knowledge import Knowledge, rank_keys
from .leads import coefficients, equal_cards, free_coefficients, lead_probability
from .signals import SIGNAL_MISS, signal_fits

PENALTY = 0.2
# the policy model's likelihood of a card the club rules would not have played, by an
# opponent and by partner (an expert or a person: the club rules describe it less well)
MISS = 0.1
PARTNER_MISS = 0.5
# the same for partner's leads alone (None: PARTNER_MISS). Measured on the expert's own
# play (docs/bots.md, issue 35's thirteenth pass): its leads are the club rules' card in
# its true hand about as often as in the hands partner can imagine for it (0.46 against
# 0.46 in trumps and Grand), so a lead tells partner nothing under this model, where a
# follow does (0.88 against 0.74: a calibrated factor of 0.4). Yet not reading them (1.0)
# gave -0.132 and -0.025 a deal on 204 deals of each ladder, paired: not kept
PARTNER_LEAD_MISS: float | None = None
# partner's leads read by a model of the expert's leads (whistkit.bots.leads: a logit
# fitted to its own leads) in place of the club rules' verdict: each lead weighs the
# world by p(card | partner's hand then). Off (False) until measured paired
LEAD_MODEL = False
# partner's leads and discards (a card of another suit than the one led) read by the free
# model (whistkit.bots.leads: hand features and the club rules' verdict, fitted to the
# expert's own play), each weighing the world by p(card | partner's hand then). Off
# (False) until measured paired
FREE_MODEL = False
# partner's follows in the suit led, in the trump contracts and Grand, read by the free
# model's follow coefficients in place of the club rules' verdict (in misère the model
# told less than the verdict, held out). Off (False) until measured paired
FOLLOW_MODEL = False
# the models' probabilities above are raised to this power (1.0: as fitted; below 1
# softer, for evidence the product over a hand's cards counts as independent when the
# expert's cards are not)
MODEL_POWER = 1.0
# the softened club policy's probability of the club rules' card (the rest spread evenly
# over the other legal cards), for an opponent and for partner: with two legal cards
# these give a card the rules would not play the odds MISS and PARTNER_MISS give it
# an opponent is club-like with probability CLUB_PRIOR (a factor SHARP_MISS per card the
# club rules would not play), else as MISS says: the mixture's likelihood of a seat's k
# such cards, CLUB_PRIOR * SHARP_MISS**k + (1 - CLUB_PRIOR) * MISS**k, is sharp while
# the seat has played as the rules do and turns soft once it plainly does not (a person:
# from three such cards on the soft part weighs more); 0.0: MISS alone. 0.99 paired
# against 0.0: +0.358 [+0.094, +0.623] points per hand on 120 fresh deals of seed 1,
# and on the ladder's deals (docs/bots.md, "Issue 35, fourth pass")
CLUB_PRIOR = 0.99
SHARP_MISS = 0.01
HIT = 1.0 / (1.0 + MISS)
PARTNER_HIT = 1.0 / (1.0 + PARTNER_MISS)
# partner judged double-dummy (partner_dd_weight): the likelihood of a partner's card
# that is not among its double-dummy best in the world (1.0: off, the default), for
# partner's cards played with at most PARTNER_DD_FROM tricks left (deeper positions
# cost the solver too much per world), each solved within PARTNER_DD_NODES nodes (a
# position over the budget says nothing). Off: 0.5 paired against the default on 120
# fresh deals of seed 1, -0.042 [-0.200, +0.116] points per hand at 1.4 times the CPU
# (docs/bots.md, "Issue 35, third pass")
PARTNER_DD = 1.0
PARTNER_DD_FROM = 8
PARTNER_DD_NODES = 200_000

Fact = tuple[Seat, Hand, bool]  # (seat, cards, True: held one of them / False: held none)
# (seat, led suit, the seat's cards played before that lead, the side suits then): the
# led suit was at least as long as each of the other side suits
LengthFact = tuple[Seat, int, Hand, tuple[int, ...]]


def _between(suit: int, lo: int, hi: int, keys: tuple[int, ...]) -> Hand:
    """Cards of ``suit`` whose key lies strictly between ``lo`` and ``hi``."""
    m = 0
    for c in iter_cards(SUIT_MASKS[suit]):
        if lo < keys[c] < hi:
            m |= 1 << c
    return m


def _top(cards: Hand, keys: tuple[int, ...]) -> int:
    """The strongest card of a (one-suit) mask, or -1."""
    return max(iter_cards(cards), key=lambda c: keys[c], default=-1)


def play_facts(view: View) -> list[Fact]:
    """Facts about the other seats' hands from the cards played so far this hand."""
    contract = view.contract
    if contract is None:
        return []
    keys = rank_keys(contract)
    unseen = view.unseen()
    facts: list[Fact] = []
    trick: list[int] = []
    seats: list[Seat] = []
    gone = 0  # cards played before the current card
    for seat, card in view.plays():
        if len(trick) == 4:
            trick, seats = [], []
        if seat != view.seat:
            facts.extend(_card_facts(contract, keys, trick, seats, seat, card, gone))
        trick.append(card)
        seats.append(seat)
        gone |= 1 << card
    return [(s, m & unseen, must) for s, m, must in facts if m & unseen]


def _card_facts(
    contract: Contract,
    keys: tuple[int, ...],
    trick: list[int],
    seats: list[Seat],
    seat: Seat,
    card: int,
    gone: Hand,
) -> list[Fact]:
    """The facts one card played by ``seat`` gives, by the club rules."""
    misere, trump = contract.misere, contract.trump
    suit = card // 13
    left = SUIT_MASKS[suit] & ~gone & ~(1 << card)  # the suit's other unplayed cards
    if not trick:
        # trick-taking: a non-boss honour led is the top of a sequence, so the leader
        # holds the next card down
        if misere or keys[card] % 13 < 9:
            return []
        higher = [c for c in iter_cards(left) if keys[c] > keys[card]]
        lower = [c for c in iter_cards(left) if keys[c] < keys[card]]
        if higher and lower:
            return [(seat, 1 << max(lower, key=lambda c: keys[c]), True)]
        return []
    led = trick[0] // 13
    wi = trick_winner_index(tuple(trick), contract)
    win_card, win_seat = trick[wi], seats[wi]
    if suit != led:
        # a discard (not a ruff) in trick-taking comes from a suit without its boss
        if not misere and suit != trump and left:
            top = _top(left, keys)
            if keys[top] > keys[card]:
                return [(seat, 1 << top, False)]
        return []
    if win_card // 13 != led:
        return []
    beat = keys[card] > keys[win_card]
    if misere:
        if beat:
            return [(seat, _between(led, -1, keys[win_card], keys), False)]
        return [(seat, _between(led, keys[card], keys[win_card], keys), False)]
    if not (win_seat ^ seat) & 1:
        return []  # partner winning: no rule says much
    if not beat and (len(trick) >= 2 or keys[trick[0]] % 13 >= 9):
        # third and fourth hand beat an opponent when they can; second hand covers an
        # honour
        return [(seat, _between(led, keys[win_card], 99, keys), False)]
    if beat and len(trick) == 3:
        return [(seat, _between(led, keys[win_card], keys[card], keys), False)]
    return []


def lead_facts(view: View) -> list[LengthFact]:
    """Length facts from the other seats' leads (trick-taking contracts only)."""
    contract = view.contract
    if contract is None or contract.misere:
        return []
    keys = rank_keys(contract)
    trump = contract.trump
    facts: list[LengthFact] = []
    played = [0, 0, 0, 0]
    first_lead = [-1, -1, -1, -1]
    gone = 0
    for n, (seat, card) in enumerate(view.plays()):
        if n % 4 == 0:
            suit = card // 13
            boss = not any(
                keys[c] > keys[card] for c in iter_cards(SUIT_MASKS[suit] & ~gone & ~(1 << card))
            )
            returned = first_lead[(seat + 2) & 3] == suit
            if seat != view.seat and suit != trump and not boss and not returned:
                side = tuple(x for x in range(4) if x != trump and x != suit)
                facts.append((seat, suit, played[seat], side))
            if first_lead[seat] < 0:
                first_lead[seat] = suit
        played[seat] |= 1 << card
        gone |= 1 << card
    return facts


def bid_facts(view: View) -> list[tuple[Seat, bool]]:
    """Swedish: (seat, showed red) for every other seat whose bottom card is public."""
    revealed = view.public.get("revealed")
    if not isinstance(revealed, Mapping):
        return []
    out = []
    for name, code in revealed.items():
        seat = SEATS.index(name)
        if seat != view.seat and isinstance(code, str):
            out.append((seat, code[-1:] in ("H", "D")))
    return out


def fact_weight(
    facts: list[Fact],
    bids: Sequence[tuple[Seat, bool]] = (),
    played_by: Sequence[Hand] = (0, 0, 0, 0),
    dealer: Seat = 0,
    lengths: Sequence[LengthFact] = (),
) -> Callable[[tuple[Hand, Hand, Hand, Hand]], float]:
    """The weight of a world: ``PENALTY`` to the number of facts it breaks.

    ``bids`` are Swedish colours shown; a world in which the club colour rule would have
    chosen the other colour for that seat's hand as dealt breaks a fact too.
    """

    def weight(world: tuple[Hand, Hand, Hand, Hand]) -> float:
        w = 1.0
        for seat, cards, must in facts:
            # a card the seat played since still counts as held when the fact was made
            if bool((world[seat] | played_by[seat]) & cards) != must:
                w *= PENALTY
        for seat, suit, before, side in lengths:
            # the seat's hand when it led: what it holds now and what it played since
            held = (world[seat] | played_by[seat]) & ~before
            n = (held & SUIT_MASKS[suit]).bit_count()
            if any((held & SUIT_MASKS[x]).bit_count() > n for x in side):
                w *= PENALTY
        for seat, red in bids:
            dealt = world[seat] | played_by[seat]
            if club_wants_red(dealt, seat, earlier_seats(seat, dealer)) != red:
                w *= PENALTY
        return w

    return weight


@dataclass(frozen=True)
class _Moment:
    """One past card of another seat, as the policy model replays it."""

    seat: Seat
    card: Card
    view: View  # the trick and its leader at that moment (hand and legal left empty)
    know: Knowledge  # public knowledge then, with an empty hand
    later: Hand  # cards the seat played from this moment on (this card included)
    before: Hand  # cards played before this moment
    led: int  # the led suit, -1 for a lead


def _moments(view: View) -> list[_Moment]:
    plays = list(view.plays())
    out = []
    for i, (seat, card) in enumerate(plays):
        if seat == view.seat:
            continue
        start = i - i % 4
        before = 0
        for c in view.played[:i]:
            before |= 1 << c
        later = 0
        for s, c in plays[i:]:
            if s == seat:
                later |= 1 << c
        then = replace(
            view,
            seat=seat,
            hand=0,
            played=view.played[:i],
            trick=view.played[start:i],
            trick_winners=view.trick_winners[: i // 4],
            leader=plays[start][0],
            to_play=seat,
            legal=(),
        )
        led = view.played[start] // 13 if i > start else -1
        out.append(_Moment(seat, card, then, Knowledge.from_view(then), later, before, led))
    return out


def _same_value(a: Card, b: Card, hand: Hand, before: Hand, keys: tuple[int, ...]) -> bool:
    """Cards of one hand that touch: every card ranked between them is held or gone."""
    if a // 13 != b // 13:
        return False
    lo, hi = sorted((keys[a], keys[b]))
    return not _between(a // 13, lo, hi, keys) & ~(hand | before)


def policy_weight(
    view: View, miss: float = MISS, partner_miss: float = PARTNER_MISS
) -> Callable[[tuple[Hand, ...], float], float] | None:
    """The likelihood of the other seats' cards so far if they play by the club rules.

    Every card another seat played is replayed in the world: the seat's hand then (its
    cards now plus those it played since), the club rules' choice from that hand, and a
    factor ``miss`` when the card played is not that choice (nor a card equal to it);
    ``partner_miss`` for partner's cards (1.0 leaves partner out).
    ``weight(world, floor)`` stops early, returning a value below ``floor``, once the
    product falls below it (rejection sampling needs no more).
    """
    model = policy_model(view, miss, partner_miss)
    return None if model is None else model[0]


def policy_model(
    view: View,
    miss: float = MISS,
    partner_miss: float = PARTNER_MISS,
    hit: float = HIT,
    partner_hit: float = PARTNER_HIT,
    club_prior: float = CLUB_PRIOR,
    sharp: float = SHARP_MISS,
    partner_lead_miss: float | None = PARTNER_LEAD_MISS,
    lead_model: bool = LEAD_MODEL,
    free_model: bool = FREE_MODEL,
    follow_model: bool = FOLLOW_MODEL,
    model_power: float = MODEL_POWER,
    signal: str | None = None,
) -> tuple[Callable[[tuple[Hand, ...], float], float], Callable[[tuple[Hand, ...]], float]] | None:
    """The policy model's two likelihoods of the other seats' cards so far, sharing one
    replay of each past hand: ``(weight, ratio)``.

    ``weight(world, floor)`` is :func:`policy_weight`'s (the club rules' card or one equal
    to it: 1, any other: ``miss``, for partner ``partner_miss``), which the expert draws
    its worlds by; with ``club_prior`` an opponent's ``k`` cards the rules would not play
    weigh ``club_prior * sharp**k + (1 - club_prior) * miss**k`` together (a mixture: the
    seat plays by the club rules, or softly so). ``ratio(world)`` is the *softened club policy*'s likelihood of the same
    cards divided by ``weight``'s: a seat with ``n`` legal cards plays the club rules'
    card (or one equal to it) with probability ``hit`` (partner: ``partner_hit``) and
    each of the others with ``(1 - hit) / (n - 1)``; a seat with one legal card plays it
    with probability 1. Worlds drawn in proportion to ``weight`` and weighted by
    ``ratio`` then stand for the softened policy's posterior (Rebstock, Solinas, Buro and
    Sturtevant 2019, docs/bots.md): a forced card tells more than a chosen one, and a
    card the rules would not play is less likely the more other cards the seat had.
    ``partner_lead_miss`` (None: ``partner_miss``) stands for ``partner_miss`` at
    partner's leads. With ``lead_model`` partner's leads are read by
    :mod:`whistkit.bots.leads` instead: each weighs a world by the model's probability
    of the card led from partner's hand then (in ``weight`` and ``ratio`` alike);
    with ``free_model`` partner's leads and discards are, by the free model (hand
    features and the club rules' verdict); with ``follow_model`` its follows in the
    suit led too, in the trump contracts and Grand. Each such probability is raised to
    ``model_power``. With ``signal`` (a convention of :mod:`whistkit.bots.signals`)
    partner's cards from a run of equal cards weigh a world 1 where the convention gives
    that card in partner's hand then and ``SIGNAL_MISS`` where it gives another (in
    ``weight`` and ``ratio`` alike).
    """
    contract = view.contract
    if contract is None:
        return None
    moments = _moments(view)
    lead_miss = partner_miss if partner_lead_miss is None else partner_lead_miss
    # partner's moments whose factor is 1 tell nothing: left out
    moments = [
        m
        for m in moments
        if (m.seat ^ view.seat) & 1
        or (m.led < 0 and lead_model)
        or (free_model and (m.led < 0 or m.card // 13 != m.led))
        or follow_model
        or signal is not None
        or (lead_miss if m.led < 0 else partner_miss) < 1.0
    ]
    if not moments:
        return None
    keys = rank_keys(contract)
    # whether the club rules explain a moment's card depends only on the seat's hand
    # then: worlds drawn for one decision share many such hands, so each is judged once.
    # A seat that followed suit is judged by its cards of the led suit and of trumps
    # alone (the club rules read nothing else of the hand when following: club_card),
    # so hands that differ only in the other suits share a judgement.
    explained: list[dict[Hand, bool]] = [{} for _ in moments]
    trumps = 0 if contract.trump is None else SUIT_MASKS[contract.trump]
    led_suits = [SUIT_MASKS[m.led] if m.led >= 0 else 0 for m in moments]  # 0: a lead
    opponent = [bool((m.seat ^ view.seat) & 1) for m in moments]
    # each moment's factor for a card the club rules would not play
    missed = [
        miss if opponent[i] else lead_miss if m.led < 0 else partner_miss
        for i, m in enumerate(moments)
    ]

    # partner's leads read by the lead model: p(card | hand then), one per hand
    # (the free model: leads and discards, the club rules' verdict a feature)
    kinds = [
        "lead" if m.led < 0 else "discard" if m.card // 13 != m.led else "follow" for m in moments
    ]
    free = [
        not opponent[i]
        and (
            (free_model and kind != "follow")
            or (follow_model and kind == "follow" and not contract.misere)
        )
        for i, kind in enumerate(kinds)
    ]
    modelled = [
        free[i] or (lead_model and not opponent[i] and m.led < 0) for i, m in enumerate(moments)
    ]
    coefs = [
        free_coefficients(contract, kinds[i]) if free[i] else coefficients(contract)
        for i in range(len(moments))
    ]
    probabilities: list[dict[Hand, float]] = [{} for _ in moments]

    def lead_p(i: int, world: tuple[Hand, ...]) -> float:
        m, seen = moments[i], probabilities[i]
        hand = world[m.seat] | m.later
        # a follow's features and the club rules' card read only the suit led and trumps
        key = hand & (led_suits[i] | trumps) if kinds[i] == "follow" else hand
        p = seen.get(key)
        if p is None:
            club = legal = None
            if free[i]:
                legal = hand & led_suits[i] if kinds[i] == "follow" else hand
                know = m.know.with_hand(hand, m.know.unseen & ~hand)
                choice = club_card(m.view, list(cards_in(legal)), know)
                club = equal_cards(choice, hand, m.before, contract)
            p = lead_probability(m.card, hand, m.before, contract, coefs[i], club, legal)
            if model_power != 1.0:
                p **= model_power
            seen[key] = p
        return p

    def judge(i: int, world: tuple[Hand, ...]) -> tuple[bool, int]:
        """Does the club rules' card explain moment ``i`` in ``world``, and how many legal
        cards had the seat then?"""
        m, seen, led = moments[i], explained[i], led_suits[i]
        hand = world[m.seat] | m.later
        following = hand & led
        legal = following or hand
        key = hand & (led | trumps) if following else hand
        ok = seen.get(key)
        if ok is None:
            if not legal & (legal - 1):
                ok = True  # one legal card: no choice to explain
            else:
                know = m.know.with_hand(hand, m.know.unseen & ~hand)
                choice = club_card(m.view, list(cards_in(legal)), know)
                ok = choice == m.card or _same_value(choice, m.card, hand, m.before, keys)
            seen[key] = ok
        return ok, legal.bit_count()

    seats = [m.seat for m in moments]
    # partner's signals: the cards of the complete tricks at each moment (a card in the
    # trick being played still parts a run), and each hand's verdict, by its suit alone
    signalled = [signal is not None and not opponent[i] for i in range(len(moments))]
    complete = [
        m.before & ~sum(1 << c for c in m.view.trick) if signalled[i] else 0
        for i, m in enumerate(moments)
    ]
    fits: list[dict[Hand, float]] = [{} for _ in moments]

    def signal_f(i: int, world: tuple[Hand, ...]) -> float:
        m = moments[i]
        hand = world[m.seat] | m.later
        key = hand & SUIT_MASKS[m.card // 13]
        f = fits[i].get(key)
        if f is None:
            assert signal is not None
            f = 1.0 if signal_fits(signal, m.card, hand, complete[i], contract) else SIGNAL_MISS
            fits[i][key] = f
        return f

    def mixed(k: int) -> float:
        return club_prior * sharp**k + (1.0 - club_prior) * miss**k

    def weight(world: tuple[Hand, ...], floor: float = 0.0) -> float:
        w = 1.0
        if club_prior <= 0.0:
            for i in range(len(moments)):
                if signalled[i]:
                    w *= signal_f(i, world)
                if modelled[i]:
                    w *= lead_p(i, world)
                    if w < floor:
                        return w
                    continue
                ok, _ = judge(i, world)
                if not ok:
                    w *= missed[i]
                    if w < floor:
                        return w
            return w
        misses = [0, 0, 0, 0]  # per seat: an opponent's cards the rules would not play
        for i in range(len(moments)):
            if signalled[i]:
                w *= signal_f(i, world)
            if modelled[i]:
                w *= lead_p(i, world)
            else:
                ok, _ = judge(i, world)
                if ok:
                    continue
                if opponent[i]:
                    misses[seats[i]] += 1
                else:
                    w *= missed[i]
            # more misses only lower it: below the floor now, below it at the end
            bound = w * mixed(misses[0]) * mixed(misses[1]) * mixed(misses[2]) * mixed(misses[3])
            if bound < floor:
                return bound
        return w * mixed(misses[0]) * mixed(misses[1]) * mixed(misses[2]) * mixed(misses[3])

    def ratio(world: tuple[Hand, ...]) -> float:
        r = 1.0
        for i in range(len(moments)):
            if signalled[i]:
                r *= signal_f(i, world)  # the same in both models: it cancels
            if modelled[i]:
                r *= lead_p(i, world)  # the same in both models: it cancels
                continue
            ok, n = judge(i, world)
            if n <= 1:
                continue  # forced: probability 1 under both models
            p = hit if opponent[i] else partner_hit
            r *= p if ok else (1.0 - p) / (n - 1)
        w = weight(world)  # (the mixture's, with club_prior) its judgements are kept
        return r / w if w > 0.0 else 0.0

    return weight, ratio


def partner_dd_weight(
    view: View,
    solver: Any,
    penalty: float,
    *,
    from_tricks: int = PARTNER_DD_FROM,
    node_limit: int | None = PARTNER_DD_NODES,
    threads: int = 1,
) -> Callable[[tuple[Hand, ...], float], float] | None:
    """The likelihood of partner's cards so far if partner plays double-dummy: a factor
    ``penalty`` per card of partner's that was not among its double-dummy best cards
    (by tricks, equal values all best) in the world at that moment; None when no card of
    partner's is judged (``penalty`` 1.0, or none played with ``from_tricks`` or fewer
    tricks left).

    For a partner who plays as the expert does (sampling and solving, so close to
    double-dummy late in the hand), where the club rules (:func:`policy_model`) describe
    it less well. The position of each judged card is rebuilt from the world as
    :func:`policy_model` rebuilds the seat's hand: every seat's cards now plus those it
    played from that moment on, the trick as it was. Each position is solved by
    ``solver`` (:mod:`whistkit.solver`'s API) within ``node_limit`` nodes (None: exactly);
    one over the budget, or no legal position (a revoke in laws mode), counts as
    explained. ``weight(world, floor)`` takes the drawing's ``floor`` as
    :func:`policy_weight`'s does, but solves every judged card of a world at once (one
    batch, ``threads``); each card's answer is remembered per world.
    """
    contract = view.contract
    if contract is None or penalty >= 1.0:
        return None
    partner = (view.seat + 2) & 3
    plays = list(view.plays())
    # (index in the play, the card, the cards each seat played from then on)
    judged: list[tuple[int, Card, tuple[Hand, Hand, Hand, Hand]]] = []
    for i, (seat, card) in enumerate(plays):
        if seat != partner:
            continue
        later = [0, 0, 0, 0]
        for s, c in plays[i:]:
            later[s] |= 1 << c
        # tricks left then: partner's cards then
        if view.hand_sizes[partner] + later[partner].bit_count() <= from_tricks:
            judged.append((i, card, (later[0], later[1], later[2], later[3])))
    if not judged:
        return None
    misere = contract.misere
    explained: list[dict[tuple[Hand, ...], bool]] = [{} for _ in judged]

    def position(n: int, world: tuple[Hand, ...]) -> tuple[Any, Hand] | None:
        """Moment ``n``'s position in ``world`` and partner's legal cards then; None
        where partner had no choice."""
        i, _, later = judged[n]
        hands = [world[s] | later[s] for s in range(4)]
        hands[view.seat] = view.hand | later[view.seat]
        start = i - i % 4
        trick = view.played[start:i]
        hand = hands[partner]
        follow = hand & SUIT_MASKS[trick[0] // 13] if trick else 0
        legal = follow or hand
        if not legal & (legal - 1):
            return None
        leader = plays[start][0]
        return position_for(solver, hands, trick, leader, contract), legal

    def judge(world: tuple[Hand, ...]) -> list[bool]:
        keys = [(world[0], world[1], world[2], world[3]) for _ in judged]
        todo: list[int] = []
        positions = []
        for n, key in enumerate(keys):
            if key in explained[n]:
                continue
            try:
                found = position(n, world)
            except ValueError:
                found = None  # laws mode: a revoke in the trick is no position
            if found is None:
                explained[n][key] = True
                continue
            todo.append(n)
            positions.append(found[0])
        if positions:
            rows: list[dict[int, int] | None]
            if node_limit is None:
                rows = list(solver.solve_batch(positions, cards=True, threads=threads))
            else:
                rows = list(solver.solve_batch_limited(positions, node_limit, threads=threads))
            for n, row in zip(todo, rows, strict=True):
                ok = True
                if row is not None:
                    best = min(row.values()) if misere else max(row.values())
                    ok = row[judged[n][1]] == best
                explained[n][keys[n]] = ok
        return [explained[n][keys[n]] for n in range(len(judged))]

    def weight(world: tuple[Hand, ...], floor: float = 0.0) -> float:
        w = 1.0
        for ok in judge(world):
            if not ok:
                w *= penalty
        return w

    return weight


def world_weight(
    view: View, *, plays: bool = True
) -> Callable[[tuple[Hand, Hand, Hand, Hand]], float] | None:
    """The likelihood of the play and bidding seen so far, or None if nothing is implied.

    ``plays=False`` leaves out the facts from the cards played (for a caller that models
    the play itself, :func:`policy_weight`) and keeps the Swedish bidding facts.
    """
    facts = play_facts(view) if plays else []
    bids = bid_facts(view)
    lengths = lead_facts(view) if plays else []
    if not facts and not bids and not lengths:
        return None
    return fact_weight(facts, bids, Knowledge.from_view(view).played_by, view.dealer, lengths)


__all__ = [
    "CLUB_PRIOR",
    "FOLLOW_MODEL",
    "FREE_MODEL",
    "HIT",
    "LEAD_MODEL",
    "MISS",
    "MODEL_POWER",
    "PARTNER_DD",
    "PARTNER_DD_FROM",
    "PARTNER_DD_NODES",
    "PARTNER_HIT",
    "PARTNER_LEAD_MISS",
    "PARTNER_MISS",
    "PENALTY",
    "SHARP_MISS",
    "Fact",
    "LengthFact",
    "bid_facts",
    "fact_weight",
    "lead_facts",
    "partner_dd_weight",
    "play_facts",
    "policy_model",
    "policy_weight",
    "world_weight",
]
