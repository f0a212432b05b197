"""A double-dummy position: each seat's remaining cards, the current trick and the contract.

Its own module so that the solver's package and its pure-Python oracle
(:mod:`whistkit.solver.reference`) both import it without importing each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .._checks import counted, is_whole
from ..cards import FULL_DECK as _FULL
from ..cards import SUIT_MASKS as _SUIT_MASKS
from ..cards import SUIT_NAMES as _SUIT_NAMES
from ..cards import cards_of

_SEATS = "NESW"
_RANKS = "23456789TJQKA"


def _name(card: int) -> str:
    return _RANKS[card % 13] + "SHDC"[card // 13]


@dataclass(frozen=True)
class Position:
    """A double-dummy position.

    ``hands`` excludes the cards already in the current trick; ``trick`` lists those
    cards in order from ``leader``. ``trump`` is a suit index (0..3 = S H D C) or
    ``None`` for no trump.
    """

    hands: tuple[int, int, int, int]
    trick: tuple[int, ...] = ()
    leader: int = 0
    trump: int | None = None
    misere: bool = False
    aces_low: bool = False

    def __post_init__(self) -> None:
        # lists are taken as tuples, so that a position stays hashable
        for name in ("hands", "trick"):
            value = getattr(self, name)
            if isinstance(value, list):
                object.__setattr__(self, name, tuple(value))
        self.check()

    @property
    def to_play(self) -> int:
        """The seat to play next."""
        return (self.leader + len(self.trick)) & 3

    @property
    def tricks_left(self) -> int:
        """Remaining tricks, the current one included."""
        return self.hands[self.to_play].bit_count()

    def check(self) -> None:
        """Raise ``ValueError`` naming what is wrong with the position (``TypeError``
        for a field of the wrong type)."""
        for name in ("hands", "trick"):
            if not isinstance(getattr(self, name), tuple):
                raise TypeError(
                    f"{name} must be a tuple or list, got {type(getattr(self, name)).__name__}"
                )
        for name in ("misere", "aces_low"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if len(self.hands) != 4:
            raise ValueError(f"hands must hold 4 masks, got {len(self.hands)}")
        if not (is_whole(self.leader) and 0 <= self.leader <= 3):
            raise ValueError(f"leader must be a seat 0..3, got {self.leader!r}")
        if self.trump is not None and not (is_whole(self.trump) and 0 <= self.trump <= 3):
            raise ValueError(f"trump must be a suit 0..3 or None, got {self.trump!r}")
        if len(self.trick) > 3:
            raise ValueError(f"the current trick holds at most 3 cards, got {len(self.trick)}")
        seen = 0
        for seat, h in enumerate(self.hands):
            if not is_whole(h) or h < 0 or h & ~_FULL:
                raise ValueError(f"hand of {_SEATS[seat]} is not a 52-bit card mask")
            if seen & h:
                raise ValueError(f"hand of {_SEATS[seat]} shares cards with another hand")
            seen |= h
        for c in self.trick:
            if not (is_whole(c) and 0 <= c < 52):
                raise ValueError(f"trick card {c!r} is not a card 0..51")
            if seen >> c & 1:
                where = [_SEATS[i] for i, h in enumerate(self.hands) if h >> c & 1]
                held = f"is also in {where[0]}'s hand" if where else "is twice in the trick"
                raise ValueError(f"trick card {_name(c)} {held}")
            seen |= 1 << c
        n = self.tricks_left
        # every seat holds as many cards, less one for each seat that played to the trick
        counts = [
            self.hands[(self.leader + i) & 3].bit_count() + (i < len(self.trick)) for i in range(4)
        ]
        if len(set(counts)) > 1:
            held = ", ".join(f"{_SEATS[seat]} {self.hands[seat].bit_count()}" for seat in range(4))
            played = len(self.trick)
            note = f"; {counted(played, 'card')} in the trick" if played else ""
            raise ValueError(
                f"the hands must hold equal numbers of cards, less one for each seat that"
                f" has played to the trick: {held}{note}"
            )
        if self.trick and n == 0:
            raise ValueError("the seat to play has no card to complete the trick")
        if self.trick:
            lead = self.trick[0] // 13
            for i, c in enumerate(self.trick[1:], start=1):
                seat = (self.leader + i) & 3
                if c // 13 != lead and self.hands[seat] & _SUIT_MASKS[lead]:
                    raise ValueError(
                        f"{_SEATS[seat]} played {_name(c)} but holds a"
                        f" {_SUIT_NAMES[lead][:-1]} (must follow suit)"
                    )

    def legal_cards(self) -> list[int]:
        """The legal cards of the seat to play, lowest index first."""
        hand = self.hands[self.to_play]
        if self.trick:
            follow = hand & _SUIT_MASKS[self.trick[0] // 13]
            if follow:
                hand = follow
        return cards_of(hand)


class ContractTerms(Protocol):
    """What a position takes from a contract (:class:`whistkit.state.Contract` has it)."""

    @property
    def trump(self) -> int | None: ...
    @property
    def misere(self) -> bool: ...
    @property
    def aces_low(self) -> bool: ...


def position_for(
    api: Any,
    hands: Sequence[int],
    trick: Sequence[int],
    leader: int,
    contract: ContractTerms,
) -> Any:
    """The solver's ``Position`` for holdings, the current trick and the contract.

    The one converter from the game to the solver's positions: ``api`` is the solver
    (the :mod:`whistkit.solver` module, or a stand-in with its API, as the bots' tests
    use), whose ``Position`` is built. The bots call it with sampled holdings and
    :func:`whistkit.analysis.solver_position` with a state's.
    """
    return api.Position(
        hands=(hands[0], hands[1], hands[2], hands[3]),
        trick=tuple(trick),
        leader=leader,
        trump=contract.trump,
        misere=contract.misere,
        aces_low=contract.aces_low,
    )


__all__ = ["ContractTerms", "Position", "position_for"]
