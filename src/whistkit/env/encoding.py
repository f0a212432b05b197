"""The fixed-size encoding of one seat's view and the action space (docs/env.md).

Everything here reads a :class:`whistkit.state.View` (what one seat may know) and nothing
else, so an observation never carries a card its seat may not see. Seats are relative to
the observing seat: 0 is the seat itself, 1 its left-hand opponent, 2 its partner, 3 its
right-hand opponent.

The action space is the 52 cards (``suit * 13 + rank``, suits S H D C, ranks 2..A). A
card is played in the trick phase; in Swedish whist's bottom-card phase the same index
commits that card as the seat's bottom card. No variant has another action in strict
play (laws mode, with its claims and penalties, is not offered by the environments).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from ..cards import parse_card
from ..state import BID, DEAL, OVER, PLAY, Action, SpecialAction, View

NUM_ACTIONS = 52
PHASES = (DEAL, BID, PLAY, OVER)
CONTRACTS = ("H", "S", "D", "C", "NT", "NOLO", "SPEL", "NOLLSPEL")

# (name, offset, size) of every block; the first BITS entries are 0/1 flags
_BLOCKS = (
    ("hand", 52),  # own cards still held
    ("trick", 4 * 52),  # the current trick: the card each relative seat played to it
    ("played", 4 * 52),  # this hand's cards played so far, by relative seat
    ("turned", 52),  # classic whist's turned-up trump card, while it lies face up
    ("own_bottom", 52),  # Swedish: own committed bottom card
    ("revealed_bottom", 4 * 52),  # Swedish: revealed bottom cards, by relative seat
    ("phase", 4),  # deal, bid, play, over
    ("to_play", 4),  # relative seat to act
    ("dealer", 4),  # relative seat of the dealer
    ("leader", 4),  # relative seat that led (or leads) the current trick
    ("contract", len(CONTRACTS)),  # H S D C NT NOLO SPEL NOLLSPEL, once public
    ("trump", 4),  # trump suit S H D C (none: all zero)
    ("misere", 1),  # the contract is misère (Nóló, nollspel)
    ("aces_low", 1),  # the ace ranks below the two (Félagsvist nolo_aces_low)
    ("declarer", 4),  # Swedish spel: relative seat of the declarer
    ("committed", 4),  # Swedish: which relative seats have committed a bottom card
)
OFFSETS: dict[str, tuple[int, int]] = {}
_at = 0
for _name, _size in _BLOCKS:
    OFFSETS[_name] = (_at, _size)
    _at += _size
BITS = _at
# then whole numbers: tricks this hand (own side, other side), the game score (own side,
# other side) and the number of the current hand
NUMBERS = ("tricks_own", "tricks_other", "score_own", "score_other", "hand_number")
for _i, _name in enumerate(NUMBERS):
    OFFSETS[_name] = (BITS + _i, 1)
OBS_SIZE = BITS + len(NUMBERS)
_BYTES = (BITS + 7) // 8


def _card(name: Any) -> int:
    return parse_card(str(name))


def played_by(view: View) -> tuple[int, int, int, int]:
    """The cards each seat (absolute) played this hand, as masks (public facts)."""
    out = [0, 0, 0, 0]
    for seat, card in view.plays():
        out[seat] |= 1 << card
    return (out[0], out[1], out[2], out[3])


def observation_bits(view: View, played: tuple[int, int, int, int] | None = None) -> int:
    """The 0/1 part of the encoding as one int, bit ``i`` for entry ``i``.

    ``played`` is :func:`played_by` of the view, when the caller keeps it up to date
    (the environment does, card by card).
    """
    me = view.seat
    bits = view.hand
    if played is None:
        played = played_by(view)
    played_at = OFFSETS["played"][0]
    trick_at = OFFSETS["trick"][0]
    for rel in range(4):
        bits |= played[(me + rel) & 3] << (played_at + 52 * rel)
    leader = view.leader
    for i, card in enumerate(view.trick):
        bits |= 1 << (trick_at + 52 * ((leader + i - me) & 3) + card)
    public: Mapping[str, Any] = view.public
    if public:
        turned = public.get("turned")
        if turned is not None:
            bits |= 1 << (OFFSETS["turned"][0] + _card(turned))
        own = public.get("your bottom card")
        if own is not None:
            bits |= 1 << (OFFSETS["own_bottom"][0] + _card(own))
        revealed = public.get("revealed")
        if revealed:
            at = OFFSETS["revealed_bottom"][0]
            for name, card in revealed.items():
                rel = ("NESW".index(name) - me) & 3
                bits |= 1 << (at + 52 * rel + _card(card))
            for name in revealed:
                bits |= 1 << (OFFSETS["committed"][0] + (("NESW".index(name) - me) & 3))
        committed = public.get("committed")
        if committed:
            for name in committed:
                bits |= 1 << (OFFSETS["committed"][0] + (("NESW".index(name) - me) & 3))
    bits |= 1 << (OFFSETS["phase"][0] + PHASES.index(view.phase))
    if view.to_play >= 0:
        bits |= 1 << (OFFSETS["to_play"][0] + ((view.to_play - me) & 3))
    bits |= 1 << (OFFSETS["dealer"][0] + ((view.dealer - me) & 3))
    if view.phase == PLAY:
        bits |= 1 << (OFFSETS["leader"][0] + ((view.leader - me) & 3))
    contract = view.contract
    if contract is not None:
        bits |= 1 << (OFFSETS["contract"][0] + CONTRACTS.index(contract.code))
        if contract.trump is not None:
            bits |= 1 << (OFFSETS["trump"][0] + contract.trump)
        if contract.misere:
            bits |= 1 << OFFSETS["misere"][0]
        if contract.aces_low:
            bits |= 1 << OFFSETS["aces_low"][0]
        if contract.declarer is not None:
            bits |= 1 << (OFFSETS["declarer"][0] + ((contract.declarer - me) & 3))
    return bits


def encode(
    view: View,
    out: npt.NDArray[np.float32] | None = None,
    played: tuple[int, int, int, int] | None = None,
) -> npt.NDArray[np.float32]:
    """The observation of ``view``: a float32 vector of :data:`OBS_SIZE` entries."""
    if out is None:
        out = np.empty(OBS_SIZE, np.float32)
    raw = np.frombuffer(observation_bits(view, played).to_bytes(_BYTES, "little"), np.uint8)
    out[:BITS] = np.unpackbits(raw, count=BITS, bitorder="little")
    side = view.seat & 1
    out[BITS] = view.tricks[side]
    out[BITS + 1] = view.tricks[side ^ 1]
    out[BITS + 2] = view.score[side]
    out[BITS + 3] = view.score[side ^ 1]
    out[BITS + 4] = view.hand_number
    return out


def action_index(action: Action) -> int:
    """The index in the action space of a state's action (a card or a bottom card)."""
    if type(action) is int:
        return action
    if isinstance(action, SpecialAction) and isinstance(getattr(action, "card", None), int):
        card: int = action.card  # type: ignore[attr-defined]
        return card
    raise ValueError(f"{action!r} has no index in the action space")


def legal_mask(view: View) -> npt.NDArray[np.int8]:
    """1 for each legal action index of the seat in ``view``, else 0."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for action in view.legal:
        mask[action_index(action)] = 1
    return mask


__all__ = [
    "BITS",
    "CONTRACTS",
    "NUMBERS",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "OFFSETS",
    "PHASES",
    "action_index",
    "encode",
    "legal_mask",
    "observation_bits",
    "played_by",
]
