"""A model of the expert's leads, so that its partner can read them.

The inference (:func:`whistkit.bots.inference.policy_model`) reads every card partner
played by the club rules: a card they would play weighs 1, any other a factor. For
partner's *follows* that fits the expert (docs/bots.md, thirteenth pass: calibrated 0.4
against the model's 0.5); for its *leads* it tells nothing (0.97). This module gives the
leads a model of their own: a conditional logit over the cards of the leader's hand,

    p(card | hand) = exp(theta . f(card, hand)) / sum over c in hand of exp(theta . f(c, hand)),

with features ``f`` that describe the card in its hand (its suit's length, its place in
the suit, a card touching it, the suit's master, trumps) and coefficients ``theta``
fitted to the expert's own leads by ``benchmarks/lead_model.py`` (one set for trump and
no-trump contracts, one for misère). In a drawn world, partner's lead weighs
``p(card | partner's hand then)``: hands in which the expert would lead that card more
often are the likelier.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import exp
from operator import mul

from ..cards import SUIT_MASKS, Card, Hand, cards_in
from ..state import Contract

FEATURES = (
    "length",  # cards held in the card's suit
    "singleton",
    "doubleton",
    "longest",  # the suit is (one of) the hand's longest
    "top",  # no card of the hand's suit above it
    "bottom",  # no card of the hand's suit below it (two or more held)
    "master",  # every card still out above it is the hand's own
    "touch_above",  # the next card still out above it is the hand's own
    "touch_below",  # the next card still out below it is the hand's own
    "trump",  # a trump
    "trump_length",  # a trump: trumps held
    "depth",  # its place among the suit's cards still out: 0 the highest, 1 the lowest
    "others",  # the suit's cards still out in other hands
    "ruff_short",  # a singleton of a side suit, trumps held
    "honour",  # ace, king, queen or jack of its suit
    "three",  # three cards held in the suit
    "four",  # four
    "five_up",  # five or more
    "sequence_top",  # touches the card below it, not the one above: the top of a sequence
    "trump_top",  # a trump, the hand's highest
    "trump_master",  # a trump, master
    "long_low",  # the lowest of four or more
    "short_top",  # the highest of one or two
)
N_FEATURES = len(FEATURES)
# the free model's: a lead or a discard, the club rules' verdict among the features
FREE_FEATURES = (*FEATURES, "club")  # the club rules' card or one equal to it

# Fitted by `python benchmarks/lead_model.py` (its docstring; docs/bots.md, issue 35's
# fourteenth pass) on 2,818 leads of North-South experts against club players: the
# decisions of `benchmarks/partner_model.py --level expert --seed 21 22 --hands 70` and
# `--seed 23 24 25 26 --hands 72` (`--worlds 8 --out`). Held out seed by seed, the model
# tells partner +0.10 to +0.17 nats a lead in trumps and Grand (the club rules' verdict
# +0.00 to +0.04) and +0.29 to +0.52 in Nóló (club +0.02 to +0.08).
COEF_TRUMPS: tuple[float, ...] = (
    0.009, 0.785, -0.112, 0.467, 1.177, 1.487, 0.979, 0.889, -2.551, 0.576, -0.029, -0.166,
    -0.023, 0.664, 0.118, -0.150, -0.296, -0.228, 2.983, -0.837, 0.258, -0.335, 0.353,
)  # fmt: skip
COEF_MISERE: tuple[float, ...] = (
    -0.245, 1.147, -0.497, -0.100, -1.119, 0.931, -0.301, 0.854, -2.140, 0.000, 0.000, 1.459,
    0.096, 0.000, 0.103, -0.260, -0.205, -0.185, -0.888, 0.000, 0.000, 0.237, 1.367,
)  # fmt: skip
assert len(COEF_TRUMPS) == len(COEF_MISERE) == N_FEATURES
# The free model (FREE_FEATURES) for leads, discards and follows, in trumps and Grand
# (False) and in misère (True): fitted by `python benchmarks/lead_model.py --free
# --worlds 20` on the same decisions (8,951: 2,818 leads, 2,155 discards, 3,978 follows
# with two or more cards of the suit led). Held out seed by seed it tells partner, in
# nats a card: leads in trumps and Grand +0.13 to +0.22, in Nóló +0.34 to +0.61;
# discards +0.35 to +0.54 and +0.08 to +0.39; follows +0.19 to +0.30 and -0.09 to -0.02
# (the club rules' verdict alone: leads +0.00 to +0.08, discards +0.15 to +0.19 and
# +0.10 to +0.16, follows +0.04 to +0.09 and +0.01 to +0.06). So the follows in misère
# stay with the verdict (inference.FOLLOW_MODEL: the trump contracts and Grand only).
COEF_FREE: dict[tuple[str, bool], tuple[float, ...]] = {
    ("lead", False): (
        -0.006, 0.788, -0.121, 0.405, 1.127, 1.480, 0.427, 0.863, -2.591, 0.592, -0.006,
        -0.387, -0.029, 0.648, -0.005, -0.126, -0.264, -0.277, 2.996, -0.879, 0.750,
        -0.317, 0.338, 0.741,
    ),
    ("lead", True): (
        -0.301, 1.135, -0.554, -0.098, -1.237, 0.865, -0.346, 0.937, -2.242, 0.000,
        0.000, 0.448, 0.055, 0.000, -0.061, -0.262, -0.202, -0.117, -0.891, 0.000,
        0.000, 0.218, 1.427, 0.872,
    ),
    ("discard", False): (
        0.076, 0.902, 0.064, -0.021, -1.005, 0.888, -0.233, 0.223, -2.459, 0.705, 0.016,
        0.488, 0.067, 1.008, -0.255, 0.060, -0.699, -0.327, -0.468, 1.050, -0.203,
        1.033, 0.627, 1.602,
    ),
    ("discard", True): (
        -0.718, 0.740, -0.541, 0.591, 0.469, 1.079, -0.532, 0.792, -0.850, 0.000, 0.000,
        -2.387, 0.132, 0.000, 0.000, 0.190, -0.356, -0.032, 1.928, 0.000, 0.000, 0.862,
        0.640, 1.304,
    ),
    ("follow", False): (
        0.000, 0.000, 0.000, 0.000, -0.499, 0.915, -0.567, 0.368, -2.485, 0.000, 0.000,
        -0.629, 0.000, 0.000, 1.587, 0.000, 0.000, 0.000, 0.325, -0.201, -1.167, 0.454,
        0.437, 2.132,
    ),
    ("follow", True): (
        0.000, 0.000, 0.000, 0.000, -0.209, -0.634, 0.426, 0.265, -1.375, 0.000, 0.000,
        -0.533, 0.000, 0.000, -0.858, 0.000, 0.000, 0.000, 1.325, 0.000, 0.000, 0.312,
        0.457, 2.118,
    ),
}  # fmt: skip
assert all(len(c) == len(FREE_FEATURES) for c in COEF_FREE.values())


def _rank_space(cards: Hand, suit: int, aces_low: bool) -> int:
    """The suit's cards among ``cards`` as 13 bits by strength, the weakest lowest."""
    bits = cards >> 13 * suit & 0x1FFF
    return ((bits << 1) | (bits >> 12)) & 0x1FFF if aces_low else bits


def lead_features(
    hand: Hand, gone: Hand, contract: Contract, club: Hand | None = None
) -> dict[Card, tuple[float, ...]]:
    """The features of leading each card of ``hand``, the cards ``gone`` already played;
    with ``club`` (the club rules' card and the cards equal to it) ``FREE_FEATURES``."""
    extra: tuple[tuple[float, ...], tuple[float, ...]] = (
        ((), ()) if club is None else ((0.0,), (1.0,))
    )
    aces_low = contract.aces_low
    trump = contract.trump
    lengths = [(hand & m).bit_count() for m in SUIT_MASKS]
    longest = max(lengths)
    trumps = lengths[trump] if trump is not None else 0
    out: dict[Card, tuple[float, ...]] = {}
    for s in range(4):
        length = lengths[s]
        if not length:
            continue
        mine = _rank_space(hand, s, aces_low)
        live = _rank_space(~gone, s, aces_low)  # the suit's cards not yet played
        n = live.bit_count()
        is_trump = 1.0 if s == trump else 0.0
        for c in cards_in(hand & SUIT_MASKS[s]):
            r = c % 13
            p = (r + 1) % 13 if aces_low else r  # its strength, 0 the weakest
            higher = live >> (p + 1)  # the live cards above it, shifted down
            lower = live & ((1 << p) - 1)
            top = 0.0 if mine >> (p + 1) else 1.0
            bottom = length > 1 and not mine & ((1 << p) - 1)
            master = 0.0 if higher & ~(mine >> (p + 1)) else 1.0
            touch_above = bool(higher & (mine >> (p + 1)) & -higher)
            touch_below = bool(lower and mine >> (lower.bit_length() - 1) & 1)
            out[c] = (
                float(length),
                1.0 if length == 1 else 0.0,
                1.0 if length == 2 else 0.0,
                1.0 if length == longest else 0.0,
                top,
                1.0 if bottom else 0.0,
                master,
                1.0 if touch_above else 0.0,
                1.0 if touch_below else 0.0,
                is_trump,
                is_trump * trumps,
                higher.bit_count() / (n - 1) if n > 1 else 0.0,
                float(n - length),
                1.0 if length == 1 and trumps and s != trump else 0.0,
                1.0 if p >= 9 else 0.0,
                1.0 if length == 3 else 0.0,
                1.0 if length == 4 else 0.0,
                1.0 if length >= 5 else 0.0,
                1.0 if touch_below and not touch_above else 0.0,
                is_trump * top,
                is_trump * master,
                1.0 if length >= 4 and bottom else 0.0,
                1.0 if length <= 2 and top else 0.0,
            ) + extra[club is not None and club >> c & 1]
    return out


def equal_cards(card: Card, hand: Hand, gone: Hand, contract: Contract) -> Hand:
    """``card`` and the cards of ``hand`` worth the same: of its suit, with no card still
    out in another hand ranked between them."""
    s = card // 13
    aces_low = contract.aces_low
    others = _rank_space(~gone & ~hand, s, aces_low)
    p = (card % 13 + 1) % 13 if aces_low else card % 13
    out = 1 << card
    for c in cards_in(hand & SUIT_MASKS[s]):
        q = (c % 13 + 1) % 13 if aces_low else c % 13
        lo, hi = min(p, q), max(p, q)
        if not others & ((1 << hi) - (2 << lo)):
            out |= 1 << c
    return out


def coefficients(contract: Contract) -> tuple[float, ...]:
    """The fitted coefficients for leads in ``contract``."""
    return COEF_MISERE if contract.misere else COEF_TRUMPS


def free_coefficients(contract: Contract, kind: str) -> tuple[float, ...]:
    """The fitted coefficients of the free model (``FREE_FEATURES``) for a ``kind`` of
    card in ``contract``: ``"lead"``, ``"discard"`` (a card of another suit than the one
    led) or ``"follow"`` (a card of the suit led)."""
    return COEF_FREE[(kind, contract.misere)]


def lead_probability(
    card: Card,
    hand: Hand,
    gone: Hand,
    contract: Contract,
    coef: Sequence[float],
    club: Hand | None = None,
    legal: Hand | None = None,
) -> float:
    """``p(card | hand)`` under the model with coefficients ``coef`` (with ``club``, the
    club rules' card and those equal to it, the free model's), over the cards of
    ``legal`` (None: the whole hand)."""
    total = mine = 0.0
    for c, f in lead_features(hand, gone, contract, club).items():
        if legal is not None and not legal >> c & 1:
            continue
        score = exp(sum(map(mul, coef, f)))
        total += score
        if c == card:
            mine = score
    return mine / total
