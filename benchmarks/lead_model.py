"""Fit and measure a model of the expert's leads (``whistkit.bots.leads``) on its own play.

Usage:
  python benchmarks/lead_model.py DATA.json [DATA.json ...] [--worlds 40] [--l2 1.0] [--free]

``DATA.json`` is ``benchmarks/partner_model.py --out``'s file: every North-South decision
of its hands, each with the seat's hand, the cards played before, the card chosen and
the hand's seed and number. The leads (two or more cards in hand) are kept; for each, the
seat's partner imagines ``--worlds`` hands for the leader, drawn uniformly from its view
then among those holding the card led (as ``partner_model.py`` draws them).

The model is a conditional logit over the cards of the leader's hand (``leads.py``); one
set of coefficients for trump and no-trump contracts, one for misère, fitted by maximum
likelihood with an L2 penalty ``--l2``. Printed per set, on the hands of each seed with
the coefficients fitted on the other seeds' hands (held out), then fitted on all:

- ``log-loss``: the mean of ``-log p(card | real hand)``; ``uniform`` beside it is the
  same for a model that leads any card alike (``log n``);
- ``top-1``: how often the model's likeliest card is the card led;
- ``info``: the mean of ``log p(card | real hand) - log mean p(card | imagined hand)``,
  in nats: how much the lead tells partner about the hand, the worlds weighed by the
  model. ``club`` beside it is the same for the club-rule reading the inference uses
  (1 for the club rules' card, ``PARTNER_MISS`` for any other; from the data's ``a`` and
  ``b``).

The last lines are the coefficients fitted on all the data, to be written into
``leads.COEF_TRUMPS`` and ``leads.COEF_MISERE``.

With ``--free`` the free model instead (``leads.FREE_FEATURES``: the same features and the
club rules' verdict, the club rules' card or one equal to it), for leads, for discards (a
follow in another suit than the one led) and for follows in the suit led (two or more
cards of it held; the model over those cards), each in trumps and Grand and in misère;
the last lines are then ``leads.COEF_FREE``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from partner_model import dealt  # benchmarks/partner_model.py, beside this script
from whistkit.bots.club import club_card
from whistkit.bots.inference import PARTNER_MISS
from whistkit.bots.knowledge import Knowledge
from whistkit.bots.leads import FEATURES, FREE_FEATURES, equal_cards, lead_features
from whistkit.bots.sampling import sample_deals
from whistkit.cards import SUIT_MASKS, cards_in
from whistkit.state import State


@dataclass
class Lead:
    seed: int
    kind: str  # "lead", "discard" or "follow"
    misere: bool
    real: np.ndarray  # features of every card of the real hand, the card led first
    imagined: list[np.ndarray]  # the same for each imagined hand holding the card
    club: float | None  # the club-rule reading's info, from a and b


def _state(seed: int, hand: int, played: list[int]) -> State:
    """A decision of ``partner_model.py``'s data: its hand dealt, the cards before played."""
    state = dealt(seed, hand)
    for card in played:
        state = state.apply(card)
    return state


def _matrix(
    hand: int, gone: int, card: int, contract: Any, then: Any = None, suit: int | None = None
) -> np.ndarray:
    """The features of each card of ``hand`` (of the suit mask ``suit`` alone if given: a
    follow), ``card`` first; with the view ``then`` the free model's (the club rules'
    card from ``hand`` there)."""
    legal = hand if suit is None else hand & suit
    club = None
    if then is not None:
        know0 = Knowledge.from_view(then)
        know = know0.with_hand(hand, know0.unseen & ~hand)
        club = equal_cards(club_card(then, list(cards_in(legal)), know), hand, gone, contract)
    feats = lead_features(hand, gone, contract, club)
    rows = [feats[card]] + [f for c, f in feats.items() if c != card and legal >> c & 1]
    return np.array(rows, dtype=float)


def _club_info(row: dict[str, Any]) -> float | None:
    a, b = row["a"], row["b"]
    if a is None or b is None:
        return None
    mean = b + PARTNER_MISS * (1.0 - b)
    return math.log((1.0 if a else PARTNER_MISS) / mean)


def load(paths: list[str], n_worlds: int, free: bool = False) -> list[Lead]:
    leads = []
    for path in paths:
        try:
            rows = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise SystemExit(f"{path}: no such file") from None
        except json.JSONDecodeError as exc:
            raise SystemExit(f"{path}: not JSON ({exc})") from None
        for row in rows:
            if row["hand"].bit_count() < 2:
                continue
            played = row["played"]
            follow_suit = None  # the whole hand
            if row["lead"]:
                kind = "lead"
            elif not free:
                continue
            elif row["card"] // 13 != played[len(played) - len(played) % 4] // 13:
                kind = "discard"
            else:
                kind = "follow"
                follow_suit = SUIT_MASKS[row["card"] // 13]
                if (row["hand"] & follow_suit).bit_count() < 2:
                    continue
            if "deal" not in row:
                raise SystemExit(f"{path}: rows without 'seed' and 'deal' (an older file)")
            state = _state(row["seed"], row["deal"], row["played"])
            seat, card = row["seat"], row["card"]
            assert state.holdings[seat] == row["hand"], "the replay does not match the data"
            contract = state.contract
            assert contract is not None
            gone = 0
            for c in row["played"]:
                gone |= 1 << c
            rng = random.Random(row["deal"] * 100 + len(row["played"]))
            worlds = sample_deals(state.view(seat ^ 2), n_worlds, rng)
            then = replace(state.view(seat), hand=0, legal=()) if free else None
            imagined = [
                _matrix(w[seat], gone, card, contract, then, follow_suit)
                for w in worlds
                if w[seat] >> card & 1
            ]
            leads.append(
                Lead(
                    row["seed"],
                    kind,
                    contract.misere,
                    _matrix(row["hand"], gone, card, contract, then, follow_suit),
                    imagined,
                    _club_info(row),
                )
            )
    return leads


def _log_p(theta: np.ndarray, m: np.ndarray) -> float:
    s = m @ theta
    top = s.max()
    return float(s[0] - top - math.log(np.exp(s - top).sum()))


def fit(leads: list[Lead], l2: float) -> np.ndarray:
    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        total = l2 * float(theta @ theta) / 2.0
        grad = l2 * theta
        for lead in leads:
            s = lead.real @ theta
            p = np.exp(s - s.max())
            p /= p.sum()
            total -= math.log(p[0])
            grad = grad - (lead.real[0] - p @ lead.real)
        return total, grad

    result = minimize(loss, np.zeros(leads[0].real.shape[1]), jac=True, method="L-BFGS-B")
    return np.asarray(result.x)


def measure(theta: np.ndarray, leads: list[Lead]) -> dict[str, float]:
    logloss = uniform = top = info = 0.0
    n_info = 0
    club = [lead.club for lead in leads if lead.club is not None]
    for lead in leads:
        lp = _log_p(theta, lead.real)
        logloss -= lp
        uniform += math.log(len(lead.real))
        top += float(np.argmax(lead.real @ theta) == 0)
        if lead.imagined:
            mean = sum(math.exp(_log_p(theta, m)) for m in lead.imagined) / len(lead.imagined)
            info += lp - math.log(mean)
            n_info += 1
    n = len(leads)
    return {
        "n": n,
        "log-loss": logloss / n,
        "uniform": uniform / n,
        "top-1": top / n,
        "info": info / max(n_info, 1),
        "club": sum(club) / max(len(club), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", nargs="+")
    parser.add_argument("--worlds", type=int, default=40)
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--free", action="store_true", help="the free model")
    opts = parser.parse_args()
    if opts.worlds < 1:
        parser.error(f"--worlds must be at least 1, not {opts.worlds}")
    if opts.l2 < 0:
        parser.error(f"--l2 must not be negative, not {opts.l2}")
    leads = load(opts.data, opts.worlds, opts.free)
    names = FREE_FEATURES if opts.free else FEATURES
    print(f"{len(leads)} decisions from {', '.join(opts.data)}; {opts.worlds} worlds each")
    kinds = ("lead", "discard", "follow") if opts.free else ("lead",)
    fitted = {}
    for kind in kinds:
        for misere in (False, True):
            name = f"{kind}s, {'misere' if misere else 'trumps and Grand'}"
            group = [x for x in leads if x.kind == kind and x.misere == misere]
            seeds = sorted({x.seed for x in group})
            print(f"\n{name}: {len(group)} decisions")
            if not group:
                fitted[kind, misere] = np.zeros(len(names))  # nothing to fit: all alike
                continue
            for seed in seeds if len(seeds) > 1 else []:
                theta = fit([x for x in group if x.seed != seed], opts.l2)
                r = measure(theta, [x for x in group if x.seed == seed])
                print(
                    f"  seed {seed} held out: n {r['n']}, log-loss {r['log-loss']:.3f} "
                    f"(uniform {r['uniform']:.3f}), top-1 {r['top-1']:.2f}, "
                    f"info {r['info']:+.3f} (club {r['club']:+.3f})"
                )
            theta = fit(group, opts.l2)
            r = measure(theta, group)
            print(
                f"  all, in sample: log-loss {r['log-loss']:.3f} (uniform {r['uniform']:.3f}),"
                f" top-1 {r['top-1']:.2f}, info {r['info']:+.3f} (club {r['club']:+.3f})"
            )
            for f, t in zip(names, theta, strict=True):
                print(f"    {f:14s} {t:+.3f}")
            fitted[kind, misere] = theta

    def values(theta: np.ndarray) -> str:
        return ", ".join(f"{t:.3f}" for t in theta)

    if opts.free:
        print("COEF_FREE = {")
        for (kind, misere), theta in fitted.items():
            print(f'    ("{kind}", {misere}): ({values(theta)}),')
        print("}")
    else:
        print(f"COEF_TRUMPS = ({values(fitted['lead', False])})")
        print(f"COEF_MISERE = ({values(fitted['lead', True])})")


if __name__ == "__main__":
    main()
