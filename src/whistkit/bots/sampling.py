"""Dealing the hidden cards consistently with a view: exact, uniform, constrained.

The cards a seat cannot see are grouped into *classes* by the set of other seats allowed
to hold them (a seat that showed out of a suit may hold none of it; publicly placed cards
are pinned to their owner). With three hidden seats there are at most seven classes. A
dynamic programme over the classes, whose state is the number of cards each hidden seat
still needs, counts the consistent deals exactly:

    f(k, r) = sum over splits x of class k:  multinomial(m_k; x) * f(k + 1, r - x)

Sampling the splits class by class with those weights, then shuffling inside each class,
gives every consistent deal with the same probability (docs/bots.md §3). Dealing card by card
to a random allowed seat would not: it is biased toward the seats with fewer constraints.

>>> import random
>>> from whistkit.state import new_game, Deal
>>> from whistkit.deal import deal_cards
>>> s = new_game("felagsvist", dealer=0)
>>> s = s.apply(Deal(deal_cards(random.Random(1), 0).hands))
>>> worlds = sample_deals(s.view(1), 3, random.Random(2))
>>> all(w[1] == s.holdings[1] for w in worlds)
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from math import factorial

from .._checks import counted
from ..cards import SUIT_MASKS, Hand, iter_cards
from ..seats import seat_name
from ..state import View
from .knowledge import Knowledge

World = tuple[Hand, Hand, Hand, Hand]


class InconsistentView(ValueError):
    """No deal of the hidden cards agrees with the view (a bug upstream, or a bad view)."""


def _splits(m: int, allowed: tuple[int, ...], cap: tuple[int, int, int]) -> list[tuple[int, ...]]:
    """Every way to give ``m`` cards to the ``allowed`` hidden seats within their caps."""
    out: list[tuple[int, ...]] = []

    def rec(i: int, left: int, acc: list[int]) -> None:
        if i == len(allowed) - 1:
            if left <= cap[allowed[i]]:
                acc[allowed[i]] = left
                out.append(tuple(acc))
                acc[allowed[i]] = 0
            return
        for x in range(min(left, cap[allowed[i]]) + 1):
            acc[allowed[i]] = x
            rec(i + 1, left - x, acc)
        acc[allowed[i]] = 0

    rec(0, m, [0, 0, 0])
    return out


class DealSampler:
    """Counts and samples the deals of the hidden cards consistent with one view."""

    def __init__(
        self, view: View, knowledge: Knowledge | None = None, *, voids: bool = True
    ) -> None:
        know = knowledge or Knowledge.from_view(view)
        self.seat = view.seat
        self.hidden = tuple(s for s in range(4) if s != view.seat)
        pinned = [know.held[s] for s in self.hidden]
        if know.held[view.seat] & ~view.hand:
            raise InconsistentView(
                f"{seat_name(view.seat)} is publicly placed with cards it does not hold"
            )
        free = know.unseen & ~(pinned[0] | pinned[1] | pinned[2])
        needs = []
        for i, s in enumerate(self.hidden):
            if pinned[i] & ~know.unseen:
                raise InconsistentView(
                    f"cards placed with {seat_name(s)} are not among the unseen cards"
                )
            need = view.hand_sizes[s] - pinned[i].bit_count()
            if need < 0:
                placed = pinned[i].bit_count()
                raise InconsistentView(
                    f"{seat_name(s)} holds {counted(view.hand_sizes[s], 'card')} but"
                    f" {placed} {'are' if placed != 1 else 'is'} placed with it"
                )
            needs.append(need)
        self.needs = (needs[0], needs[1], needs[2])
        self.pinned = (pinned[0], pinned[1], pinned[2])
        # the classes: cards grouped by the hidden seats allowed to hold them
        by_allowed: dict[tuple[int, ...], list[int]] = {}
        for suit in range(4):
            allowed = tuple(
                i for i, s in enumerate(self.hidden) if not (voids and know.voids[s] >> suit & 1)
            )
            cards = list(iter_cards(free & SUIT_MASKS[suit]))
            if not cards:
                continue
            if not allowed:
                raise InconsistentView(
                    f"{counted(len(cards), 'unseen card')} of suit {'SHDC'[suit]}"
                    " but every other seat has shown out of it"
                )
            by_allowed.setdefault(allowed, []).extend(cards)
        self.classes = sorted(by_allowed.items())
        # each class's cards as one-bit masks (shuffled in their place: the same
        # permutation, and a hand is then the sum of its share)
        self._bits = [tuple(1 << c for c in cards) for _, cards in self.classes]
        if sum(len(c) for _, c in self.classes) != sum(self.needs):
            raise InconsistentView(
                f"{counted(free.bit_count(), 'hidden card')} to deal but the other"
                f" seats need {sum(self.needs)}"
            )
        self._memo: dict[tuple[int, int, int, int], int] = {}
        self._split_memo: dict[tuple[int, int, int, int], list[tuple[tuple[int, ...], int]]] = {}
        self.count = self._f(0, self.needs)
        if self.count == 0:
            raise InconsistentView(
                "no deal of the hidden cards fits the voids shown and the hand sizes"
            )

    def _weighted_splits(
        self, k: int, r: tuple[int, int, int]
    ) -> list[tuple[tuple[int, ...], int]]:
        key = (k, *r)
        got = self._split_memo.get(key)
        if got is not None:
            return got
        allowed, cards = self.classes[k]
        m = len(cards)
        fm = factorial(m)
        out = []
        for x in _splits(m, allowed, r):
            rest = (r[0] - x[0], r[1] - x[1], r[2] - x[2])
            w = self._f(k + 1, rest)
            if w:
                out.append((x, fm // (factorial(x[0]) * factorial(x[1]) * factorial(x[2])) * w))
        self._split_memo[key] = out
        return out

    def _f(self, k: int, r: tuple[int, int, int]) -> int:
        if k == len(self.classes):
            return 1 if r == (0, 0, 0) else 0
        key = (k, *r)
        got = self._memo.get(key)
        if got is None:
            got = sum(w for _, w in self._weighted_splits(k, r))
            self._memo[key] = got
        return got

    def sample(self, rng: random.Random) -> World:
        """One consistent deal, every one equally likely; hands indexed by seat."""
        hands = [0, 0, 0, 0]
        for i, s in enumerate(self.hidden):
            hands[s] = self.pinned[i]
        r = self.needs
        for k, bits in enumerate(self._bits):
            options = self._weighted_splits(k, r)
            pick = rng.randrange(self._f(k, r))  # the options' weights summed (memoised)
            x = options[-1][0]
            for split, w in options:
                if pick < w:
                    x = split
                    break
                pick -= w
            shuffled = list(bits)
            rng.shuffle(shuffled)
            at = 0
            for i, s in enumerate(self.hidden):
                if x[i]:
                    hands[s] |= sum(shuffled[at : at + x[i]])
                    at += x[i]
            r = (r[0] - x[0], r[1] - x[1], r[2] - x[2])
        return (hands[0], hands[1], hands[2], hands[3])


Likelihood = Callable[[World, float], float]


class WorldChain:
    """A Metropolis chain over the consistent deals of one view, at rest in proportion to
    a likelihood: for the views where rejection sampling accepts almost nothing.

    ``likelihood(world, floor)`` is a weight in [0, 1] that may stop early, returning a
    value below ``floor``, once it knows the weight is below it (as
    :func:`whistkit.bots.inference.policy_weight` does). A step proposes one of two moves:
    with probability ``fresh`` a new uniform deal from the sampler (an independence
    proposal, which reaches every consistent deal even where voids cut the swaps apart),
    else two hidden cards drawn at random change places, when they lie with different
    seats and each may lie with the other (a symmetric proposal). The move is taken with
    probability ``min(1, new / current)``, decided with the floor ``u * current``, so the
    likelihood need not be finished where it falls short. Deterministic for a seeded
    ``rng``.
    """

    def __init__(
        self,
        sampler: DealSampler,
        likelihood: Likelihood,
        start: World,
        rng: random.Random,
        *,
        fresh: float = 0.1,
    ) -> None:
        self.sampler = sampler
        self.likelihood = likelihood
        self.rng = rng
        self.fresh = fresh
        self.world = list(start)
        self.weight = likelihood(start, 0.0)
        # the cards that can move: each with the seats (by number) it may lie with
        self._cards = [c for _, cards in sampler.classes for c in cards]
        self._allowed = {
            c: sum(1 << sampler.hidden[i] for i in allowed)
            for allowed, cards in sampler.classes
            for c in cards
        }
        self.steps = 0
        self.moves = 0  # steps taken (accepted)

    def _owner(self, card: int) -> int:
        bit = 1 << card
        for s in range(4):
            if self.world[s] & bit:
                return s
        raise AssertionError(f"card {card} is in no hand")

    def step(self) -> None:
        rng = self.rng
        self.steps += 1
        if rng.random() < self.fresh:
            hands = list(self.sampler.sample(rng))
            own = self.sampler.seat
            hands[own] = self.world[own]  # the seat's own hand, as the chain was given it
            new = (hands[0], hands[1], hands[2], hands[3])
        else:
            n = len(self._cards)
            if n < 2:
                return
            i = rng.randrange(n)
            j = rng.randrange(n - 1)
            j += j >= i
            a, b = self._cards[i], self._cards[j]
            sa, sb = self._owner(a), self._owner(b)
            if sa == sb or not (self._allowed[a] >> sb & 1 and self._allowed[b] >> sa & 1):
                return
            hands = list(self.world)
            swap = 1 << a | 1 << b
            hands[sa] ^= swap
            hands[sb] ^= swap
            new = (hands[0], hands[1], hands[2], hands[3])
        floor = rng.random() * self.weight
        wt = self.likelihood(new, floor)
        # from a world of weight 0 (a caller's miss=0, say) every move is taken
        if wt > floor or (wt == floor and self.weight == 0.0):
            self.world = list(new)
            self.weight = wt
            self.moves += 1

    def draw(self, steps: int) -> World:
        """The world after ``steps`` more steps."""
        for _ in range(steps):
            self.step()
        w = self.world
        return (w[0], w[1], w[2], w[3])


def sampler_for(view: View) -> DealSampler:
    """The sampler of a view; where the voids shown cannot all be true (a revoke in laws
    mode: a player who showed out still holds the suit), voids are ignored."""
    try:
        return DealSampler(view)
    except InconsistentView:
        if view.options.get("play_mode") != "laws":
            raise
        return DealSampler(view, voids=False)


def count_deals(view: View) -> int:
    """The number of deals of the hidden cards consistent with the view."""
    return DealSampler(view).count


def sample_deals(
    view: View,
    n: int,
    rng: random.Random,
    *,
    weight: Callable[[World], float] | None = None,
    oversample: int = 4,
) -> list[World]:
    """``n`` deals of the hidden cards consistent with everything public in ``view``.

    Each world gives all four current holdings (the seat's own hand as it is; cards in
    the current trick are not in any hand). Without ``weight`` the worlds are independent
    and uniform over the consistent deals. With ``weight`` (a likelihood of the bidding
    and play seen so far, given a world), ``n * oversample`` uniform worlds are drawn and
    ``n`` of them resampled in proportion to their weights.
    """
    if n < 0:
        raise ValueError(f"number of deals must be at least 0, not {n}")
    sampler = sampler_for(view)
    hand = view.hand
    seat = view.seat

    def one() -> World:
        w = list(sampler.sample(rng))
        w[seat] = hand
        return (w[0], w[1], w[2], w[3])

    if weight is None:
        return [one() for _ in range(n)]
    pool = [one() for _ in range(n * max(1, oversample))]
    weights: Sequence[float] = [weight(w) for w in pool]
    if not any(w > 0 for w in weights):
        return pool[:n]
    return rng.choices(pool, weights=weights, k=n)


__all__ = [
    "DealSampler",
    "InconsistentView",
    "Likelihood",
    "World",
    "WorldChain",
    "count_deals",
    "sample_deals",
    "sampler_for",
]
