"""Signals at no cost: which of a run of equal cards the expert plays, and how its partner
reads it (issue 35, docs/bots.md).

Cards of one suit with no card still out between them (in another hand or in the trick
being played) are worth exactly the same to the end of the hand: the double-dummy
solver gives each the same value in every world. Which of such a *run* a seat plays then
costs nothing, and a partnership can agree what it says. A convention here maps the
seat's hand before the card to *high* (play the run's highest card) or *low* (its lowest):

- ``"count"``: high when the seat keeps an even number of the suit after this card;
- ``"above"``: high when the seat holds a card of the suit ranked above the run.

The expert playing a convention plays by it wherever its chosen card lies in a run of
two or more (:func:`signal_card`); its partner's inference weighs each world by whether
partner's card so chosen fits the convention in partner's hand in that world
(:func:`signal_fits`): a card that does not weighs ``SIGNAL_MISS``. Both in Félagsvist
only, where it was measured (docs/bots.md, issue 35's sixteenth pass); and a seat reads
no signal from a partner whose seat a person plays (``view.public["people"]``, which
the web game's tables and :class:`whistkit.game.Game` give their bots): a person plays
no convention, and would be misread by one.
"""

from __future__ import annotations

from ..cards import SUIT_MASKS, Card, Hand, cards_in
from ..state import Contract, View
from .knowledge import rank_keys
from .leads import equal_cards

SIGNALS = ("count", "above")
# the weight of a world in which partner's card from a run is not the one the convention
# gives (the expert never plays so; the factor is kept above 0 so that a partner who
# does not signal cannot make every world impossible)
SIGNAL_MISS = 0.05


def check_signal(signal: str | None) -> str | None:
    """``signal`` if it names a convention (or is None: none), else a ValueError."""
    if signal is not None and signal not in SIGNALS:
        raise ValueError(f"signal must be None or one of {', '.join(SIGNALS)}, not {signal!r}")
    return signal


def reads_signal(view: View, signal: str | None) -> str | None:
    """The convention by which a seat reads its partner's cards in ``view``: ``signal``
    in Félagsvist (where it was measured) when partner is not one of the seats people
    play (``view.public["people"]``, :meth:`whistkit.state.View.with_people`: a person
    plays no convention), else None."""
    if signal is None or view.variant != "felagsvist":
        return None
    return None if (view.seat ^ 2) in view.public.get("people", ()) else signal


def _run(card: Card, hand: Hand, gone: Hand, contract: Contract) -> list[Card]:
    """The cards of ``hand`` worth the same as ``card`` (itself included), weakest first;
    ``gone``: the cards of the tricks already complete."""
    keys = rank_keys(contract)
    return sorted(cards_in(equal_cards(card, hand, gone, contract)), key=lambda c: keys[c])


def _high(signal: str, run: list[Card], hand: Hand, contract: Contract) -> bool:
    suit = hand & SUIT_MASKS[run[0] // 13]
    if signal == "count":
        return (suit.bit_count() - 1) % 2 == 0
    keys = rank_keys(contract)
    top = keys[run[-1]]
    return any(keys[c] > top for c in cards_in(suit))


def signal_card(signal: str, card: Card, hand: Hand, gone: Hand, contract: Contract) -> Card:
    """The card of ``card``'s run in ``hand`` (the seat's hand before it plays) that the
    convention ``signal`` gives; ``gone``: the cards of the complete tricks."""
    run = _run(card, hand, gone, contract)
    if len(run) < 2:
        return card
    return run[-1] if _high(signal, run, hand, contract) else run[0]


def signal_fits(signal: str, card: Card, hand: Hand, gone: Hand, contract: Contract) -> bool:
    """Whether ``card``, played from ``hand``, is what the convention gives (True where
    its run is the card alone: nothing was chosen)."""
    return signal_card(signal, card, hand, gone, contract) == card


__all__ = [
    "SIGNALS",
    "SIGNAL_MISS",
    "check_signal",
    "reads_signal",
    "signal_card",
    "signal_fits",
]
