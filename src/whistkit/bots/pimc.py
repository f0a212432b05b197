"""``expert`` (sampling + double-dummy, PIMC) and ``oracle`` (double-dummy, all hands open).

The expert deals the hidden cards many times consistently with its view
(:func:`~whistkit.bots.sampling.sample_deals`), solves every world double-dummy in the
hand's contract kind with the solver's batch call, maps each world's tricks through the
variant's scoring, and plays the card with the best mean for its side (docs/bots.md §3).
Worlds come in batches until the schedule's number of worlds is reached, the best card
leads the second by three standard errors, or the time budget is spent. Cards whose means
are equal are split by the club rules (the conventional card, the lowest of equals).
With few tricks left the expert also holds its own next move consistent across the worlds
(:mod:`whistkit.bots.lookahead`), so it does not count on guessing right later. Misère
with 12-13 tricks left, too deep to solve, is searched by rollouts instead: each card
played out by the club rules and solved from 8 tricks left, the club rules' own card kept
unless another clearly gains on it.

The oracle is a measurement tool: it reads the full state, so it is never offered to
players (it is not in :data:`whistkit.bots.LEVELS`; matches build it).

Both talk to :mod:`whistkit.solver` (``Position``, ``solve_batch``) through an object
passed as ``solver``; by default the module itself (a missing solver is reported when
the bot is built, not in the middle of a game).
"""

from __future__ import annotations

import math
import random
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..cards import Card
from ..seats import Seat, side_of
from ..solver.position import position_for
from ..state import Action, Contract, State, View
from ..variants.swedish import score_swedish
from .bidding import bottom_action, expert_wants_red, is_bottom_choice
from .club import ClubBot
from .inference import (
    CLUB_PRIOR,
    FOLLOW_MODEL,
    FREE_MODEL,
    HIT,
    LEAD_MODEL,
    MISS,
    MODEL_POWER,
    PARTNER_DD,
    PARTNER_DD_NODES,
    PARTNER_HIT,
    PARTNER_LEAD_MISS,
    PARTNER_MISS,
    SHARP_MISS,
    partner_dd_weight,
    policy_model,
    world_weight,
)
from .lookahead import Lookahead, OverBudget, check_observe, check_respond
from .sampling import World, WorldChain, sampler_for
from .signals import check_signal, reads_signal, signal_card

Scorer = Callable[[int], float]
BIDDING = ("simulate", "red", "black")

# Worlds per decision by tricks left, for trick-taking and misère contracts, and the node
# budget of each world's search, tuned to the solver's speed on the project's 2-core
# machine (docs/bots.md). A world whose search needs more than NODE_LIMIT nodes (about
# 0.2 s) is left out; with fewer than MIN_SOLVED worlds solved the club rules decide. A
# misère deal with more than SOLVE_MISERE_FROM tricks left almost never fits the budget
# (budgeted bounds at 13 tricks span 6-7 tricks even with 1 M nodes), so there each
# candidate card is played out in ROLLOUT_WORLDS[tricks left] worlds, by the club rules
# to ROLLOUT_TO tricks left, solved from there within ROLLOUT_NODES nodes, and a card
# other than the club rules' is played only where it gains by ROLLOUT_SE standard
# errors of the paired difference over the worlds (the best card of 8 worlds' sums,
# taken as it was, took Nóló's expert - club from +2.05 to +0.98 points per hand on the
# 400-deal ladder; with the gate, 133 Nóló deals paired against the club rules there:
# -0.08 [-0.44, +0.27]; docs/bots.md). No ROLLOUT_WORLDS entry: the club rules decide.
WORLDS_NORMAL = {13: 16, 12: 24, 11: 32, 10: 48, 9: 64}
WORLDS_MISERE = {11: 16, 10: 24, 9: 48, 8: 64}
ROLLOUT_WORLDS = {13: 16, 12: 16}
WORLDS_DEFAULT = 96
SOLVE_MISERE_FROM = 11
NODE_LIMIT = 2_000_000
ROLLOUT_TO = 8
ROLLOUT_NODES = 50_000
ROLLOUT_SE = 2.5
MIN_SOLVED = 3
# Draws per world in the rejection sampling of the inferred worlds. Where they find no
# world, a Metropolis chain over the deals (started from the likeliest world drawn) draws
# the rest of the decision's worlds: CHAIN_BURN steps before the first, CHAIN_THIN
# between worlds (docs/bots.md, "Drawing the worlds"; CHAIN_THIN 0: the likeliest of
# each MAX_TRIES draws stands in instead, as before the chain).
MAX_TRIES = 30
CHAIN_BURN = 50
CHAIN_THIN = 10
# Own moves held consistent across the worlds by tricks left (whistkit.bots.lookahead);
# elsewhere 1, plain PIMC. The worlds are grouped by a coarse view of the other seats'
# cards (OBSERVE); with exact cards the look-ahead from 8 tricks left played worse. Three
# own moves at 8-4 tricks left: +0.129 (seed 1) and +0.051 (seed 2) a deal over two, on
# the ladder's 334 trump and Grand deals of each seed (docs/bots.md, issue 35's tenth pass)
LOOKAHEAD = {8: 3, 7: 3, 6: 3, 5: 3, 4: 3, 3: 2}
# Swedish spel (no trump) keeps two own moves until the three are measured on its deals
LOOKAHEAD_SPEL = {8: 2, 7: 2, 6: 2, 5: 2, 4: 2, 3: 2}
# In misère contracts (Nóló, nollspel) over LOOKAHEAD: two own moves at 11-9 tricks left,
# where plain PIMC played before (docs/bots.md, issue 35's sixth pass), and three at 8-4,
# where the misère lead decides who is left to take the tricks (the seventh pass)
LOOKAHEAD_MISERE: dict[int, int] = {11: 2, 10: 2, 9: 2, 8: 3, 7: 3, 6: 3, 5: 3, 4: 3}
# The most search nodes one decision's look-ahead may spend on its solves; past them plain
# PIMC decides (a deterministic bound on the decision's time: docs/bots.md)
LOOKAHEAD_NODES = 30_000_000
# The same for the expert's leads only, in trump and no-trump contracts, where LOOKAHEAD
# has none (docs/bots.md: most of the tricks the expert gives up are on leads at 10 to 5
# tricks left)
LEAD_LOOKAHEAD: dict[int, int] = {}
# Own moves held consistent in Félagsvist's Grand (no trump, code NT) by tricks left, over
# LOOKAHEAD: three at 9 tricks left too, +0.119 and +0.179 a Grand deal on the ladders'
# 67 of seeds 1 and 2, +0.103 and +0.147 on 68 fresh ones each, paired (docs/bots.md,
# issue 35's eleventh pass; in the trump contracts it gained nothing). Swedish spel has
# LOOKAHEAD_SPEL
LOOKAHEAD_GRAND: dict[int, int] = {9: 3}
OBSERVE = "coarse"
# How the other seats answer inside the look-ahead until the expert's next turn:
# double-dummy ("dd"), by the club rules from their hands in each world ("club": the
# model the inference already uses), or the opponents by the club rules and partner
# double-dummy ("club-opponents", the default: paired against "club" on 240 deals of
# seed 1, +0.175 [+0.045, +0.305] points per hand; docs/bots.md). "partner-guesses",
# partner's card the best over the worlds it cannot tell apart, changed 42 and 35 of the
# ladders' 400 deals and gained nothing: -0.018 and +0.007 a deal (docs/bots.md, "Issue
# 35, fifteenth pass")
RESPONSE = "club-opponents"
# At the look-ahead's last own move, value each card by playing the hand out to its end
# in each world, the expert's side double-dummy and the opponents as RESPONSE says,
# instead of solving the world double-dummy for all four seats. Off: paired against the
# expert without it on 120 deals of seed 1, -0.100 [-0.307, +0.107] points per hand at
# 1.9 times the CPU (docs/bots.md, "Issue 35, third pass")
TAIL = False
# Plain PIMC by tricks left: the club rules' card unless another card gains on it world
# by world by more than this many standard errors of the paired difference (the
# rollouts' gate, ROLLOUT_SE); elsewhere the best mean. Empty: at tricks 1-3 with 1.5
# standard errors, -0.175 [-0.466, +0.116] on 120 paired deals (docs/bots.md)
GATE: dict[int, float] = {}
# Weigh each drawn world by the softened club policy's likelihood of the play so far
# over the drawing's own (inference.policy_model's ratio), in every sum over the worlds
# (docs/bots.md, "Weighted worlds"). Off: paired against the expert without them on 240
# deals of seed 1 it gave -0.017 [-0.207, +0.173] points per hand.
WEIGH = False
# Plain PIMC at these tricks left with the opponents' answers in the card's own trick by
# the club rules (after a lead and after third hand's card), the position then solved
# double-dummy (Lookahead.reply_rows). Empty: off (docs/bots.md, "Issue 35, fifth pass")
REPLY: frozenset[int] = frozenset()


# Play the club rules' card wherever its mean over the worlds is within this many margin
# points (two to a trick) of the best card's, so that partner, who reads the expert's
# cards by the club rules (inference.policy_model), reads them right more often; 0: the
# best mean only, the club rules splitting exact ties. At 0.25: -0.216 and -0.186 a deal
# on 204 deals of each ladder, paired (docs/bots.md, issue 35's thirteenth pass)
CONVENTION = 0.0
# a signalling convention among equal cards that the partnership plays and reads
# (whistkit.bots.signals; None: the club rules split such ties and nothing is read).
# "above" (the highest of a run when holding a card of the suit above it): +0.033 and
# +0.107 a deal on the ladders of seeds 1 and 2, paired (docs/bots.md, issue 35's
# sixteenth pass); Félagsvist only
SIGNAL: str | None = "above"


def default_solver() -> Any:
    """The double-dummy solver module, with an error that says what is missing."""
    try:
        from .. import solver  # type: ignore[attr-defined, unused-ignore]
    except ImportError as e:
        raise RuntimeError(
            "the expert and oracle levels need the double-dummy solver (whistkit.solver),"
            f" which is not available: {e}"
        ) from None
    return solver


def hand_scorer(variant: str, contract: Contract, side: int, tricks: tuple[int, int]) -> Scorer:
    """Map the tricks ``side`` takes from now on to its margin under the variant's scoring.

    The margin is the side's points minus the other side's for the whole hand, so means
    over worlds compare cards correctly where scoring is not linear in tricks (Swedish
    spel jumps from -2 to +1 between six and seven tricks). Classic whist counts odd
    tricks only (honours do not depend on the play; game and rubber effects are left out).
    """
    own, other = tricks[side], tricks[1 - side]
    left = 13 - own - other

    def final(future: int) -> tuple[int, int]:
        """Final tricks of (NS, EW)."""
        mine, theirs = own + future, other + left - future
        return (mine, theirs) if side == 0 else (theirs, mine)

    if variant == "swedish":

        def swedish(future: int) -> float:
            pts = score_swedish(contract, final(future))
            return float(pts[side] - pts[1 - side])

        return swedish
    if variant in ("english", "american"):

        def odd_tricks(future: int) -> float:
            t = final(future)
            return float(max(0, t[side] - 6) - max(0, t[1 - side] - 6))

        return odd_tricks
    sign = -1.0 if contract.misere else 1.0

    def linear(future: int) -> float:
        t = final(future)
        return sign * (t[side] - t[1 - side])

    return linear


def _position(solver: Any, hands: Sequence[int], state_like: View | State) -> Any:
    assert state_like.contract is not None
    return position_for(solver, hands, state_like.trick, state_like.leader, state_like.contract)


def _club_card(view: View, rng: random.Random) -> Card:
    card = ClubBot().choose(view, rng)
    assert type(card) is int
    return card


def _clear_gain(diffs: list[float], se: float, weights: Sequence[float] | None = None) -> bool:
    """Is the mean of the paired differences ``diffs`` (one per world) above ``se``
    standard errors of it? Never with fewer than two worlds (no spread to judge by).
    With ``weights`` (one per world) the mean is weighted and the standard error counts
    the worlds' effective number, (sum of weights)^2 / sum of squared weights; equal
    weights give the unweighted test."""
    n = len(diffs)
    if n < 2:
        return False
    if weights is None:
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        return mean > se * math.sqrt(var / n)
    total = sum(weights)
    squares = sum(w * w for w in weights)
    if total <= 0.0 or squares <= 0.0:
        return False
    eff = total * total / squares
    if eff <= 1.0 + 1e-9:
        return False  # one world carries all the weight: no spread to judge by
    mean = sum(w * d for w, d in zip(weights, diffs, strict=True)) / total
    var = sum(w * (d - mean) ** 2 for w, d in zip(weights, diffs, strict=True)) / total
    var *= eff / (eff - 1.0)
    return mean > se * math.sqrt(var / eff)


def _beats_by(
    rows: dict[Card, list[float]],
    base: Card,
    se: float,
    weights: Sequence[float] | None = None,
) -> Card:
    """The card with the best mean gain over ``base`` world by world among those whose
    gain exceeds ``se`` standard errors of its paired difference; ``base`` if none does.
    Noisy values (a few worlds, each played out by rules) rank the cards at random where
    they differ little, and a card picked at random loses to the rules' own. ``weights``
    (one per world): weighted means and standard errors (:func:`_clear_gain`)."""
    best, gain = base, 0.0
    for card, row in rows.items():
        diffs = [a - b for a, b in zip(row, rows[base], strict=True)]
        if weights is None:
            mean = sum(diffs) / len(diffs)
        else:
            mean = sum(w * d for w, d in zip(weights, diffs, strict=True)) / max(
                sum(weights), 1e-300
            )
        if mean > gain and _clear_gain(diffs, se, weights):
            best, gain = card, mean
    return best


def _pick(
    view: View,
    cards: list[Card],
    totals: Mapping[Card, float],
    mass: float,
    rng: random.Random,
    convention: float,
    tol: float,
) -> Card:
    """The card with the best of ``totals`` (sums over worlds of total weight ``mass``),
    ties within ``tol`` split by the club rules; with ``convention`` the club rules' card
    wherever its mean is within that many points of the best mean."""
    top = max(totals.values())
    best = [c for c in cards if totals[c] >= top - tol]
    if convention > 0.0 and len(best) < len(cards):
        club = ClubBot().choose(view, rng)
        if type(club) is int and club in totals and totals[club] >= top - convention * mass - tol:
            return club
    return _tie_break(view, best, rng)


def _tie_break(view: View, best: list[Card], rng: random.Random) -> Card:
    """Among equally good cards, the one the club rules pick if it is among them."""
    if len(best) == 1:
        return best[0]
    club = ClubBot().choose(view, rng)
    if type(club) is int and club in best:
        return club
    return min(best)


# The most cards in hand at which the oracle solves a misère position (more: the club rules)
ORACLE_MISERE_FROM = 10


def card_scores(solver: Any, state: State, seat: Seat) -> dict[Card, float]:
    """Each of ``seat``'s legal cards in ``state`` (its turn, the play phase) valued by
    the solver with every hand open: the margin its side then ends the hand with
    (:func:`hand_scorer`)."""
    assert state.contract is not None
    values: dict[int, int] = solver.solve_cards(_position(solver, state.holdings, state))
    score = hand_scorer(state.variant.name, state.contract, side_of(seat), state.tricks)
    return {c: score(values[c]) for c in state.legal_actions() if type(c) is int}


class OracleBot:
    """Double-dummy play with every hand open: the measurement ceiling, never a player.

    It implements the match interface ``act(state, seat, rng)``, not the view protocol.
    Misère positions with more than ``misere_from`` tricks left are beyond the solver's
    reach in reasonable time, so the club rules play them (the ceiling is lower there).
    """

    name = "oracle"

    def __init__(self, solver: Any = None, *, misere_from: int = ORACLE_MISERE_FROM) -> None:
        self.solver: Any = default_solver() if solver is None else solver
        self.misere_from = misere_from

    def act(self, state: State, seat: Seat, rng: random.Random) -> Action:
        legal = state.legal_actions()
        if not legal:
            raise ValueError(f"seat {seat} has nothing to do")
        cards = [a for a in legal if type(a) is int]
        view = state.view(seat)
        if not cards or state.contract is None:
            return ClubBot().choose(view, rng)  # bidding, laws-mode decisions
        if len(cards) == 1:
            return cards[0]
        if state.contract.misere and state.holdings[seat].bit_count() > self.misere_from:
            # beyond the solver's reach in misère: the club rules decide
            return _club_card(view, rng)
        means = card_scores(self.solver, state, seat)
        top = max(means.values())
        return _tie_break(view, [c for c in cards if means[c] == top], rng)


class ExpertBot:
    """Sampling plus double-dummy (PIMC) with a deterministic world schedule.

    ``worlds(tricks_left, misere)`` gives the most worlds to solve (0: play by the club
    rules, for positions too deep for the solver; see :func:`default_worlds`);
    ``batch`` worlds are solved per call; after ``min_worlds`` the search stops once the
    best card leads the runner-up by ``stop_se`` standard errors of their paired
    difference. The default schedule meets the latency goal by itself, so by default
    there is no time budget and a seed fixes every choice; ``time_budget`` (seconds), if
    set, stops adding batches when the next one would likely overrun it (judged by the
    last batch), at the cost of determinism. With ``infer`` the worlds
    follow what the other seats' plays imply (:mod:`whistkit.bots.inference`): a world is
    kept with probability equal to its weight, up to ``max_tries`` draws; where none is
    kept, a Metropolis chain over the deals (:class:`~whistkit.bots.sampling.WorldChain`,
    started from the likeliest drawn) gives the decision's other worlds, ``chain_burn``
    steps before the first and ``chain_thin`` between them (``chain_thin=0``: the
    likeliest of each ``max_tries`` draws stands in instead). The weight comes from the
    policy model (``model``: the club rules replayed in the world, a factor ``miss`` per
    opponent's card they would not play and ``partner_miss`` per partner's), or with
    ``model=False`` from rule-based facts. With ``weigh`` (and the policy model) each
    drawn world also carries a weight in every sum over the worlds: the likelihood of the
    play so far under the *softened* club policy (the rules' card with probability
    ``hit``, partner's ``partner_hit``, the rest spread over the other legal cards)
    divided by the drawing's own (:func:`~whistkit.bots.inference.policy_model`).
    ``lookahead(tricks_left, misere)`` gives the own moves held consistent across
    the worlds (1: plain PIMC; None: the variant's, :func:`default_lookahead`), which group the worlds by
    what the expert would see, ``observe`` (``"coarse"`` or ``"cards"``,
    :mod:`whistkit.bots.lookahead`); ``respond`` says how the other seats answer there
    until the expert's next turn (``"dd"`` double-dummy, ``"club"`` by the club rules
    from their hands in each world, ``"club-opponents"``, the default, the opponents so and partner double-dummy,
    ``"partner-guesses"`` the opponents so and partner's card the best over the worlds
    with the same cards played and the same legal cards for partner); a lead
    look-ahead ``lead_lookahead`` maps tricks left to own moves held consistent at the
    expert's leads in normal contracts where ``lookahead`` gives 1; ``grand_lookahead``
    the own moves by tricks left in Félagsvist's Grand, over ``lookahead`` too, so a
    plain-PIMC ``lookahead`` needs ``grand_lookahead={}`` as well; None:
    ``LOOKAHEAD_GRAND``). With ``tail`` the
    look-ahead's last own move is valued by playing each world out to the end, the
    expert's side double-dummy and the opponents as ``respond`` says; ``gate`` maps
    tricks left to standard errors: plain PIMC there plays the club rules' card unless
    another card gains on it world by world by that many (both off by default, measured
    in docs/bots.md). With ``partner_dd`` below 1 the drawing also weighs each of
    partner's cards played with few tricks left (``PARTNER_DD_FROM``) by whether it was
    among partner's double-dummy best cards in the world, a factor ``partner_dd`` if not
    (:func:`~whistkit.bots.inference.partner_dd_weight`: a model of a partner who is an
    expert; off by default). ``partner_lead_miss`` gives partner's leads a factor of
    their own in the policy model (None: ``partner_miss``); with ``convention`` the
    expert plays the club rules' card wherever its mean is within that many margin points
    of the best card's (0, the default: the best mean). Both measured and not kept
    (docs/bots.md, issue 35's thirteenth pass). With ``lead_model`` partner's leads are
    read by a model fitted to the expert's own leads (:mod:`whistkit.bots.leads`) in
    place of the club rules' verdict; with ``free_model`` its leads and discards by a
    model fitted the same way with the club rules' verdict among its features, and with
    ``follow_model`` its follows in the suit led in the trump contracts and Grand, in
    Félagsvist, where they were fitted and measured; their probabilities raised to
    ``model_power``. With ``signal`` (:mod:`whistkit.bots.signals`, Félagsvist only) the
    expert plays the convention's card of a run of equal cards and reads its partner's
    cards by it (unless a person plays partner's seat). ``bidding``
    picks the Swedish bottom card's colour: ``"simulate"`` (:func:`expert_wants_red` over
    ``bid_worlds`` deals), or always ``"red"`` / ``"black"`` (baselines for measurement).
    """

    name = "expert"

    def __init__(
        self,
        *,
        solver: Any = None,
        worlds: Callable[[int, bool], int] | None = None,
        batch: int = 4,
        min_worlds: int = 32,
        stop_se: float = 3.0,
        time_budget: float | None = None,
        threads: int = 2,
        infer: bool = True,
        max_tries: int = MAX_TRIES,
        chain_burn: int = CHAIN_BURN,
        chain_thin: int = CHAIN_THIN,
        bidding: str = "simulate",
        bid_worlds: int = 24,
        node_limit: int | None = NODE_LIMIT,
        min_solved: int = MIN_SOLVED,
        model: bool = True,
        miss: float = MISS,
        partner_miss: float = PARTNER_MISS,
        partner_lead_miss: float | None = PARTNER_LEAD_MISS,
        lead_model: bool = LEAD_MODEL,
        free_model: bool = FREE_MODEL,
        follow_model: bool = FOLLOW_MODEL,
        model_power: float = MODEL_POWER,
        weigh: bool = WEIGH,
        hit: float = HIT,
        partner_hit: float = PARTNER_HIT,
        lookahead: Callable[[int, bool], int] | None = None,
        lead_lookahead: Mapping[int, int] | None = None,
        grand_lookahead: Mapping[int, int] | None = None,
        observe: str = OBSERVE,
        respond: str = RESPONSE,
        tail: bool = TAIL,
        gate: Mapping[int, float] | None = None,
        partner_dd: float = PARTNER_DD,
        club_prior: float = CLUB_PRIOR,
        sharp: float = SHARP_MISS,
        reply: Iterable[int] | None = None,
        convention: float = CONVENTION,
        lookahead_nodes: int | None = LOOKAHEAD_NODES,
        signal: str | None = SIGNAL,
    ) -> None:
        if bidding not in BIDDING:
            raise ValueError(f"bidding must be one of {', '.join(BIDDING)}, not {bidding!r}")
        for name, value, least in (
            ("max_tries", max_tries, 1),
            ("chain_burn", chain_burn, 0),
            ("chain_thin", chain_thin, 0),
        ):
            if type(value) is not int or value < least:
                raise ValueError(
                    f"{name} must be a whole number of at least {least}, not {value!r}"
                )
        if type(tail) is not bool:
            raise ValueError(f"tail must be True or False, not {tail!r}")
        for left, se in (gate or {}).items():
            if type(left) is not int or not 1 <= left <= 13 or type(se) not in (int, float):
                raise ValueError(
                    f"gate must map tricks left (1-13) to standard errors, not {left!r}: {se!r}"
                )
        if type(partner_dd) not in (int, float) or not 0.0 < partner_dd <= 1.0:
            raise ValueError(
                f"partner_dd must be a likelihood above 0 and at most 1, not {partner_dd!r}"
            )
        for name, prob in (("club_prior", club_prior), ("sharp", sharp)):
            if type(prob) not in (int, float) or not 0.0 <= prob <= 1.0:
                raise ValueError(f"{name} must be a probability from 0 to 1, not {prob!r}")
        for name, prob in (("hit", hit), ("partner_hit", partner_hit)):
            if type(prob) not in (int, float) or not 0.0 < prob < 1.0:
                raise ValueError(f"{name} must be a probability above 0 and below 1, not {prob!r}")
        self.solver: Any = default_solver() if solver is None else solver
        self.worlds = worlds or default_worlds
        self.batch = batch
        self.min_worlds = min_worlds
        self.stop_se = stop_se
        self.time_budget = time_budget
        self.threads = threads
        self.infer = infer
        self.max_tries = max_tries
        self.chain_burn = chain_burn
        self.chain_thin = chain_thin
        self.bidding = bidding
        self.bid_worlds = bid_worlds
        # a deterministic bound on each world's search (solvers with a node budget only)
        self.node_limit = node_limit if hasattr(self.solver, "solve_batch_limited") else None
        self.min_solved = min_solved
        self.model = model
        self.miss = miss
        self.partner_miss = partner_miss
        if partner_lead_miss is not None and (
            type(partner_lead_miss) not in (int, float) or not 0.0 < partner_lead_miss <= 1.0
        ):
            raise ValueError(
                "partner_lead_miss must be a likelihood above 0 and at most 1 (or None: as"
                f" partner_miss), not {partner_lead_miss!r}"
            )
        self.partner_lead_miss = partner_lead_miss
        if type(lead_model) is not bool:
            raise ValueError(f"lead_model must be True or False, not {lead_model!r}")
        self.lead_model = lead_model
        if type(free_model) is not bool:
            raise ValueError(f"free_model must be True or False, not {free_model!r}")
        self.free_model = free_model
        if type(follow_model) is not bool:
            raise ValueError(f"follow_model must be True or False, not {follow_model!r}")
        self.follow_model = follow_model
        if type(model_power) not in (int, float) or not 0.0 < model_power <= 1.0:
            raise ValueError(f"model_power must be above 0 and at most 1, not {model_power!r}")
        self.model_power = float(model_power)
        self.weigh = weigh
        self.hit = float(hit)
        self.partner_hit = float(partner_hit)
        # None: the variant's schedule (default_lookahead)
        self.lookahead = lookahead
        self.lead_lookahead = dict(LEAD_LOOKAHEAD if lead_lookahead is None else lead_lookahead)
        self.grand_lookahead = dict(LOOKAHEAD_GRAND if grand_lookahead is None else grand_lookahead)
        for name, table in (
            ("lead_lookahead", self.lead_lookahead),
            ("grand_lookahead", self.grand_lookahead),
        ):
            for left, moves in table.items():
                if (
                    type(left) is not int
                    or not 1 <= left <= 13
                    or type(moves) is not int
                    or moves < 1
                ):
                    raise ValueError(
                        f"{name} must map tricks left (1-13) to own moves (1 or more),"
                        f" not {left!r}: {moves!r}"
                    )
        # checked here: the look-ahead's errors are caught in play (laws-mode revokes)
        self.observe = check_observe(observe)
        self.respond = check_respond(respond)
        self.tail = tail
        self.gate = dict(GATE if gate is None else gate)
        self.partner_dd = float(partner_dd)
        self.club_prior = float(club_prior)
        self.sharp = float(sharp)
        if isinstance(reply, int):
            raise ValueError(f"reply must be a collection of tricks left, not {reply!r}")
        self.reply = frozenset(REPLY if reply is None else reply)
        if type(convention) not in (int, float) or not 0.0 <= convention < 26.0:
            raise ValueError(
                f"convention must be margin points from 0 up to 26, not {convention!r}"
            )
        self.convention = float(convention)
        if not all(type(t) is int and 1 <= t <= 13 for t in self.reply):
            raise ValueError(f"reply must hold tricks left from 1 to 13, not {reply!r}")
        if lookahead_nodes is not None and (
            type(lookahead_nodes) is not int or lookahead_nodes < 1
        ):
            raise ValueError(
                f"lookahead_nodes must be a whole number of at least 1, not {lookahead_nodes!r}"
            )
        # the look-ahead's node budget: deterministic, so only with the worlds' node limit
        self.lookahead_nodes = None if self.node_limit is None else lookahead_nodes
        self.signal = check_signal(signal)
        self.last_worlds = 0  # worlds solved at the last decision (for benchmarks)

    def choose(self, view: View, rng: random.Random) -> Action:
        legal = view.legal
        if not legal:
            raise ValueError(f"seat {view.seat} has nothing to do")
        self.last_worlds = 0
        if is_bottom_choice(legal):
            return self.bid(view, rng)
        cards = [a for a in legal if type(a) is int]
        if not cards or view.contract is None:
            return ClubBot().choose(view, rng)
        if len(cards) == 1:
            return cards[0]
        card = self.play(view, cards, rng)
        if self.signal is None or view.variant != "felagsvist":
            return card
        # which of a run of equal cards: the convention's (the same value in every world)
        complete = 0
        for c in view.played[: len(view.played) - len(view.trick)]:
            complete |= 1 << c
        chosen = signal_card(self.signal, card, view.hand, complete, view.contract)
        return chosen if chosen in cards else card

    def bid(self, view: View, rng: random.Random) -> Action:
        """The Swedish bottom card: simulated, or a fixed colour (for measurement)."""
        if self.bidding == "red":
            return bottom_action(view, True)
        if self.bidding == "black":
            return bottom_action(view, False)
        red = expert_wants_red(view, rng, worlds=self.bid_worlds)
        return bottom_action(view, red)

    def play(self, view: View, cards: list[Card], rng: random.Random) -> Card:
        assert view.contract is not None
        start = time.perf_counter()
        solver = self.solver
        tricks_left = view.hand_sizes[view.to_play]
        limit = self.worlds(tricks_left, view.contract.misere)
        if limit <= 0:
            # too deep for the solver within the latency goal: the club rules decide
            self.last_worlds = 0
            return _club_card(view, rng)
        score = hand_scorer(view.variant, view.contract, side_of(view.seat), view.tricks)
        draw, weigh = self._drawer(view, rng)
        if view.contract.misere and tricks_left > SOLVE_MISERE_FROM:
            worlds = [draw() for _ in range(limit)]
            return self._play_rollout(view, cards, rng, worlds, score, _weights(weigh, worlds))
        misere = view.contract.misere
        depth = (
            default_lookahead(tricks_left, misere, view.variant)
            if self.lookahead is None
            else self.lookahead(tricks_left, misere)
        )
        if view.contract.code == "NT" and tricks_left in self.grand_lookahead:
            depth = self.grand_lookahead[tricks_left]
        if depth <= 1 and not view.trick and not misere:
            depth = self.lead_lookahead.get(tricks_left, 1)
        drawn: deque[list[int]] = deque()
        if depth > 1:
            worlds = [draw() for _ in range(limit)]
            ahead = self._play_ahead(
                view, cards, rng, worlds, depth, score, _weights(weigh, worlds)
            )
            if ahead is not None:
                return ahead
            # over the look-ahead's node budget: plain PIMC decides, in the same worlds
            # first (so exactly as without the look-ahead)
            drawn.extend(worlds)

        totals = dict.fromkeys(cards, 0.0)
        rows: list[dict[int, float]] = []
        weights: list[float] | None = None if weigh is None else []
        # the opponents who answer this card in its trick, by the club rules
        reply = (
            Lookahead(solver, view, score, threads=self.threads, respond="club-opponents")
            if tricks_left in self.reply and len(view.trick) in (0, 2)
            else None
        )
        tried = 0
        while tried < limit:
            n = min(self.batch, limit - tried)
            tried += n
            worlds = []
            for _ in range(n):
                worlds.append(drawn.popleft() if drawn else draw())
            batch_start = time.perf_counter()
            found: list[dict[int, float] | None]
            try:
                if reply is not None:
                    found = reply.reply_rows(worlds, cards, self.node_limit)
                else:
                    found = self._pimc_rows(view, worlds, cards, score)
            except ValueError:
                # laws mode: a revoke in the current trick is no double-dummy position
                return _club_card(view, rng)
            batch_time = time.perf_counter() - batch_start
            for world, row in zip(worlds, found, strict=True):
                if row is None:
                    continue  # over the node budget: the world is left out
                rows.append(row)
                wt = 1.0
                if weights is not None and weigh is not None:
                    wt = weigh(world)
                    weights.append(wt)
                for c in cards:
                    totals[c] += wt * row[c]
            if len(rows) >= self.min_worlds and self._decided(rows, totals, cards, weights):
                break
            if (
                self.time_budget is not None
                and time.perf_counter() - start + batch_time > self.time_budget
            ):
                break  # the next batch would likely overrun the budget
        self.last_worlds = len(rows)
        if len(rows) < self.min_solved:
            # too few worlds within the node budget to trust: the club rules decide
            return _club_card(view, rng)
        se = self.gate.get(tricks_left)
        if se is not None:
            per_card = {c: [row[c] for row in rows] for c in cards}
            return _beats_by(per_card, _club_card(view, rng), se, weights)
        # equal in every world but for rounding of the weighted sums: a tie
        tol = (
            1e-9
            if weights is None
            else 1e-9 * max(1.0, sum(weights)) * max(1.0, max(abs(v) for v in totals.values()))
        )
        mass = float(len(rows)) if weights is None else sum(weights)
        return _pick(view, cards, totals, mass, rng, self.convention, tol)

    def _pimc_rows(
        self, view: View, worlds: list[list[int]], cards: list[Card], score: Scorer
    ) -> list[dict[int, float] | None]:
        """Each card's score in each world solved double-dummy (None: over the node
        budget)."""
        solver = self.solver
        positions = [_position(solver, w, view) for w in worlds]
        results: list[dict[int, int] | None]
        if self.node_limit is None:
            results = solver.solve_batch(positions, cards=True, threads=self.threads)
        else:
            results = solver.solve_batch_limited(positions, self.node_limit, threads=self.threads)
        return [None if res is None else {c: score(res[c]) for c in cards} for res in results]

    def _drawer(
        self, view: View, rng: random.Random
    ) -> tuple[Callable[[], list[int]], Callable[[Sequence[int]], float] | None]:
        """Draw one world (a holding per seat, the expert's own hand included) from the
        view, weighted by what the other seats' plays imply when ``infer`` is on; and the
        weight of a drawn world in the sums over the worlds (``weigh``; None: all equal)."""
        sampler = sampler_for(view)
        weight = world_weight(view, plays=not self.model) if self.infer else None
        model = (
            policy_model(
                view,
                self.miss,
                self.partner_miss,
                self.hit,
                self.partner_hit,
                self.club_prior,
                self.sharp,
                self.partner_lead_miss,
                self.lead_model,
                # fitted to and measured in Félagsvist's play: elsewhere the club reading
                self.free_model and view.variant == "felagsvist",
                self.follow_model and view.variant == "felagsvist",
                self.model_power,
                reads_signal(view, self.signal),
            )
            if self.infer and self.model
            else None
        )
        policy = None if model is None else model[0]
        ratio = None if model is None or not self.weigh else model[1]
        # partner judged double-dummy, only in worlds the other terms leave above the floor
        dd = (
            partner_dd_weight(
                view,
                self.solver,
                self.partner_dd,
                node_limit=None if self.node_limit is None else PARTNER_DD_NODES,
                threads=1,
            )
            if self.infer
            else None
        )

        def likelihood(w: World, floor: float) -> float:
            wt = 1.0 if weight is None else weight(w)
            if policy is not None and wt > floor:
                wt *= policy(w, floor / wt)
            if dd is not None and wt > floor:
                wt *= dd(w, floor / wt)
            return wt

        chain: WorldChain | None = None

        def pick() -> World:
            # rejection sampling: exact for the weighted distribution (weights <= 1),
            # with a cap on the tries for views that break many facts in most worlds;
            # once a world is not found within it, a Metropolis chain over the deals
            # (started from the likeliest world tried) draws this decision's worlds
            nonlocal chain
            if weight is None and policy is None and dd is None:
                return sampler.sample(rng)
            if chain is not None:
                return chain.draw(self.chain_thin)
            best: World | None = None
            best_wt = -1.0
            for _ in range(self.max_tries):
                w = sampler.sample(rng)
                u = rng.random()
                wt = likelihood(w, u)
                if wt > u:
                    return w
                if wt > best_wt:
                    best, best_wt = w, wt
            assert best is not None
            if self.chain_thin <= 0:
                return best  # the likeliest world tried stands in
            chain = WorldChain(sampler, likelihood, best, rng)
            return chain.draw(self.chain_burn)

        def draw() -> list[int]:
            w = list(pick())
            w[view.seat] = view.hand
            return w

        if ratio is None:
            return draw, None
        soft = ratio

        def weigh(world: Sequence[int]) -> float:
            return soft((world[0], world[1], world[2], world[3]))

        return draw, weigh

    def _play_ahead(
        self,
        view: View,
        cards: list[Card],
        rng: random.Random,
        worlds: list[list[int]],
        depth: int,
        score: Scorer,
        weights: list[float] | None = None,
    ) -> Card | None:
        """The card with the best summed score when ``depth`` own moves are held
        consistent across the worlds (:mod:`whistkit.bots.lookahead`); ``weights``: each
        world's weight in the sums. None: the solves needed more than the
        ``lookahead_nodes`` budget."""
        try:
            ahead = Lookahead(
                self.solver,
                view,
                score,
                self.threads,
                self.observe,
                self.respond,
                self.tail,
                node_budget=self.lookahead_nodes,
            )
            totals = ahead.values(worlds, cards, depth, weights)
        except OverBudget:
            return None
        except ValueError:
            # laws mode: a revoke in the current trick is no double-dummy position
            return _club_card(view, rng)
        self.last_worlds = len(worlds)
        tol = 1e-9 * max(1.0, max(abs(v) for v in totals.values()))
        mass = float(len(worlds)) if weights is None else sum(weights)
        return _pick(view, cards, totals, mass, rng, self.convention, tol)

    def _play_rollout(
        self,
        view: View,
        cards: list[Card],
        rng: random.Random,
        worlds: list[list[int]],
        score: Scorer,
        weights: list[float] | None = None,
    ) -> Card:
        """Misère positions too deep to solve: each card's score in each world when
        every seat then plays by the club rules down to ``ROLLOUT_TO`` tricks left and
        the solver takes over within ``ROLLOUT_NODES`` nodes
        (:meth:`Lookahead.rollout_rows`); the club rules' card unless another gains on it
        by ``ROLLOUT_SE`` standard errors (:func:`_beats_by`)."""
        try:
            ahead = Lookahead(self.solver, view, score, self.threads, self.observe, "club")
            limit = ROLLOUT_NODES if self.node_limit is not None else None
            rows = ahead.rollout_rows(worlds, cards, ROLLOUT_TO, limit)
        except ValueError:
            # laws mode: a revoke in the current trick is no double-dummy position
            return _club_card(view, rng)
        self.last_worlds = len(worlds)
        return _beats_by(rows, _club_card(view, rng), ROLLOUT_SE, weights)

    def _decided(
        self,
        rows: list[dict[int, float]],
        totals: dict[int, float],
        cards: list[Card],
        weights: list[float] | None = None,
    ) -> bool:
        """Does the best card lead the best card that differs from it by ``stop_se`` SEs?"""
        ranked = sorted(cards, key=lambda c: totals[c], reverse=True)
        best = ranked[0]
        for other in ranked[1:]:
            diffs = [r[best] - r[other] for r in rows]
            if any(diffs):
                break
        else:
            return True  # every card is worth the same in every world
        return _clear_gain(diffs, self.stop_se, weights)


def _weights(
    weigh: Callable[[Sequence[int]], float] | None, worlds: list[list[int]]
) -> list[float] | None:
    """Each world's weight in the sums over the worlds, scaled to a mean of 1 (None: all
    equal)."""
    if weigh is None or not worlds:
        return None
    raw = [weigh(w) for w in worlds]
    total = sum(raw)
    if total <= 0.0:
        return None
    return [w * len(raw) / total for w in raw]


def default_lookahead(tricks_left: int, misere: bool, variant: str = "felagsvist") -> int:
    """Own moves held consistent across the worlds (1: plain PIMC) in the variant."""
    if misere and tricks_left in LOOKAHEAD_MISERE:
        return LOOKAHEAD_MISERE[tricks_left]
    if variant == "swedish":
        return LOOKAHEAD_SPEL.get(tricks_left, 1)
    return LOOKAHEAD.get(tricks_left, 1)


def default_worlds(tricks_left: int, misere: bool) -> int:
    """The most worlds per decision (0: decide by the club rules instead). Misère with
    more than ``SOLVE_MISERE_FROM`` tricks left: the worlds of the club-rule rollouts
    (``ROLLOUT_WORLDS``)."""
    if misere:
        if tricks_left > SOLVE_MISERE_FROM:
            return ROLLOUT_WORLDS.get(tricks_left, 0)
        return WORLDS_MISERE.get(tricks_left, WORLDS_DEFAULT)
    return WORLDS_NORMAL.get(tricks_left, WORLDS_DEFAULT)


__all__ = [
    "CHAIN_BURN",
    "CHAIN_THIN",
    "LEAD_LOOKAHEAD",
    "LOOKAHEAD",
    "LOOKAHEAD_GRAND",
    "LOOKAHEAD_MISERE",
    "LOOKAHEAD_NODES",
    "LOOKAHEAD_SPEL",
    "MAX_TRIES",
    "MIN_SOLVED",
    "NODE_LIMIT",
    "OBSERVE",
    "ORACLE_MISERE_FROM",
    "REPLY",
    "ROLLOUT_NODES",
    "ROLLOUT_TO",
    "ROLLOUT_WORLDS",
    "SOLVE_MISERE_FROM",
    "WEIGH",
    "WORLDS_DEFAULT",
    "WORLDS_MISERE",
    "WORLDS_NORMAL",
    "ExpertBot",
    "OracleBot",
    "card_scores",
    "default_lookahead",
    "default_solver",
    "default_worlds",
    "hand_scorer",
]
