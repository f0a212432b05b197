"""How well the club rules describe the expert as a partner: the inference's model, calibrated.

Usage:
  python benchmarks/partner_model.py --level expert --seed 11 12 --hands 18 [--worlds 40]
      [--jobs 2] [--out FILE.json]

The expert reads its partner's cards by the club rules (``inference.policy_model``): a
world in which partner's card is the club rules' card (or one equal to it) weighs 1, any
other ``PARTNER_MISS`` (0.5); partner's leads ``PARTNER_LEAD_MISS`` if set. Whether that
factor tells anything depends on how the partner really plays. This plays ``--hands``
hands of Félagsvist (the contracts in their cycle, hearts first; deals from ``--seed``),
North and South by ``--level`` (``benchmarks/paired.py``'s levels) and East and West by the
club rules, and at every North-South decision with two or more legal cards asks:

- ``a``: is the card played the club rules' card in the seat's real hand?
- ``b``: how often is it the club rules' card in the hands partner can imagine for the
  seat then: ``--worlds`` deals drawn uniformly from partner's view at that moment, among
  those where the seat holds the card it played?

``--out`` keeps each decision with the seat's hand, the cards played before it, the
card chosen and the hand's seed and number (``deal``), so that other models of the expert's play can be fitted to the same data.

Over the decisions of a kind, if the club rules' verdict were all partner learned from
the card, the likelihood of a card the rules would not play, relative to one they would,
is ``((1 - a) / (1 - b)) / (a / b)``: the *calibrated factor* printed beside ``a`` and
``b`` for leads and follows, trump and misère contracts, and by cards in hand. A factor
near 1 means the verdict carries no news; the model's own factor is 0.5. (The worlds are
drawn uniformly, not by partner's inference of the play before: an approximation.)

Hand ``h`` of seed ``s`` is dealt by ``random.Random(s * 1000 + h)`` (dealer ``h % 4``), its
seats choose with ``random.Random(h)`` and its worlds are drawn with a stream per
decision, so a seed's figures repeat; ``--seed`` takes several seeds, pooled.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from paired import make_player  # benchmarks/paired.py, beside this script
from whistkit.bots.club import ClubBot, club_card
from whistkit.bots.inference import _same_value
from whistkit.bots.knowledge import Knowledge, rank_keys
from whistkit.bots.sampling import sample_deals
from whistkit.cards import SUIT_MASKS, Card, Hand, iter_cards
from whistkit.deal import deal_cards
from whistkit.state import Deal, State, View, new_game

Row = dict[str, Any]


def _club_explains(view: View, card: Card) -> Callable[[Hand], bool | None]:
    """A judge of hands for the seat to play in ``view``: is ``card`` the club rules' card
    (or one equal to it) from that hand? None where the hand had one legal card."""
    assert view.contract is not None
    keys = rank_keys(view.contract)
    then = replace(view, hand=0, legal=())
    know0 = Knowledge.from_view(then)
    before = 0
    for c in view.played:
        before |= 1 << c
    led = SUIT_MASKS[view.trick[0] // 13] if view.trick else 0

    def judge(hand: Hand) -> bool | None:
        legal = hand & led or hand
        if not legal & (legal - 1):
            return None
        know = know0.with_hand(hand, know0.unseen & ~hand)
        choice = club_card(then, list(iter_cards(legal)), know)
        return choice == card or _same_value(choice, card, hand, before, keys)

    return judge


def dealt(seed: int, hand: int) -> State:
    """Hand ``hand`` of seed ``seed`` as this tool deals it (see the docstring)."""
    dealer = hand % 4
    state = new_game("felagsvist", dealer=dealer).replace(hand_number=hand % 6 + 1)
    return state.apply(Deal(deal_cards(random.Random(seed * 1000 + hand), dealer).hands))


def _hand(args: tuple[str, int, int, int]) -> list[dict[str, Any]]:
    level, seed, hand, n_worlds = args
    player = make_player(level)
    club = ClubBot()
    state = dealt(seed, hand)
    rows: list[dict[str, Any]] = []
    while state.phase == "play":
        seat = state.to_play
        view = state.view(seat)
        legal = [a for a in view.legal if type(a) is int]
        if seat % 2 == 0 and len(legal) > 1:
            card = player.act(state, seat, random.Random(hand))
            assert type(card) is int and view.contract is not None
            judge = _club_explains(view, card)
            worlds_rng = random.Random(hand * 100 + len(view.played))
            drawn = sample_deals(state.view(seat ^ 2), n_worlds, worlds_rng)
            verdicts = [judge(w[seat]) for w in drawn if w[seat] >> card & 1]
            known = [v for v in verdicts if v is not None]
            rows.append(
                {
                    "lead": not view.trick,
                    "left": view.hand_sizes[seat],
                    "misere": view.contract.misere,
                    "a": judge(state.holdings[seat]),
                    "b": sum(known) / len(known) if known else None,
                    # the decision itself, for fitting other models of it later
                    "contract": view.contract.code,
                    "seed": seed,
                    "deal": hand,
                    "seat": seat,
                    "hand": state.holdings[seat],
                    "played": list(view.played),
                    "card": card,
                }
            )
        else:
            card = club.choose(view, random.Random(hand))
        state = state.apply(card)
    return rows


def _line(name: str, rows: list[dict[str, Any]]) -> str:
    rows = [r for r in rows if r["a"] is not None and r["b"] is not None]
    if not rows:
        return f"{name:24s} n=   0"
    a = sum(r["a"] for r in rows) / len(rows)
    b = sum(r["b"] for r in rows) / len(rows)
    factor = ((1 - a) / (1 - b)) / (a / b) if 0 < a < 1 and 0 < b < 1 else float("nan")
    return f"{name:24s} n={len(rows):4d}  a={a:.2f}  b={b:.2f}  calibrated factor {factor:.2f}"


def _in_hand(lead: bool, lo: int, hi: int) -> Callable[[Row], bool]:
    def keep(row: Row) -> bool:
        return row["lead"] is lead and lo <= row["left"] <= hi

    return keep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--level", default="expert")
    parser.add_argument("--seed", type=int, nargs="+", default=[11])
    parser.add_argument("--hands", type=int, default=18)
    parser.add_argument("--worlds", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", help="the decisions as JSON")
    opts = parser.parse_args()
    for name in ("hands", "worlds", "jobs"):
        if getattr(opts, name) < 1:
            parser.error(f"--{name} must be at least 1, not {getattr(opts, name)}")
    try:
        make_player(opts.level)
    except ValueError as exc:
        parser.error(str(exc))
    tasks = [(opts.level, seed, h, opts.worlds) for seed in opts.seed for h in range(opts.hands)]
    fork = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=opts.jobs, mp_context=fork) as pool:
        rows = [r for hand in pool.map(_hand, tasks) for r in hand]
    if opts.out:
        Path(opts.out).write_text(json.dumps(rows), encoding="utf-8")
    seeds = " and ".join(map(str, opts.seed))
    print(f"{opts.level}, seed {seeds}, {opts.hands} hands each, {opts.worlds} worlds a decision")
    groups: list[tuple[str, Callable[[Row], bool]]] = [
        ("all", lambda r: True),
        ("leads", lambda r: bool(r["lead"])),
        ("follows", lambda r: not r["lead"]),
        ("leads, trumps and Grand", lambda r: r["lead"] and not r["misere"]),
        ("leads, misere", lambda r: r["lead"] and r["misere"]),
        ("follows, trumps and Grand", lambda r: not r["lead"] and not r["misere"]),
        ("follows, misere", lambda r: not r["lead"] and r["misere"]),
    ]
    for lo, hi in ((10, 13), (7, 9), (4, 6), (2, 3)):
        for lead in (True, False):
            name = f"{'leads' if lead else 'follows'}, {hi}-{lo} in hand"
            groups.append((name, _in_hand(lead, lo, hi)))
    for name, keep in groups:
        print(_line(name, [r for r in rows if keep(r)]))


if __name__ == "__main__":
    main()
