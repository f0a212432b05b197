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

import struct
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..cards import card_name
from ..seats import Seat
from ..state import BID, DEAL, OVER, PLAY, Action, SpecialAction, State, View

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


# card names as views show them (turned card, bottom cards) back to cards
_CARD_OF = {card_name(c): c for c in range(52)}
_SEAT_OF = {name: i for i, name in enumerate("NESW")}
_CONTRACT_OF = {code: i for i, code in enumerate(CONTRACTS)}
_PHASE_OF = {phase: i for i, phase in enumerate(PHASES)}

# offsets as constants for the hot path: the 0/1 blocks up to "phase" are card blocks;
# the small blocks from "phase" on are built as one small int (the tail), shifted once
_TRICK = OFFSETS["trick"][0]
_PLAYED = OFFSETS["played"][0]
_TURNED = OFFSETS["turned"][0]
_OWN_BOTTOM = OFFSETS["own_bottom"][0]
_REVEALED = OFFSETS["revealed_bottom"][0]
_TAIL = OFFSETS["phase"][0]
_T_TO_PLAY = OFFSETS["to_play"][0] - _TAIL
_T_DEALER = OFFSETS["dealer"][0] - _TAIL
_T_LEADER = OFFSETS["leader"][0] - _TAIL
_T_CONTRACT = OFFSETS["contract"][0] - _TAIL
_T_TRUMP = OFFSETS["trump"][0] - _TAIL
_T_MISERE = OFFSETS["misere"][0] - _TAIL
_T_ACES_LOW = OFFSETS["aces_low"][0] - _TAIL
_T_DECLARER = OFFSETS["declarer"][0] - _TAIL
_T_COMMITTED = OFFSETS["committed"][0] - _TAIL
_PLAY_PHASE = PHASES.index(PLAY)


def played_by(view: View) -> tuple[int, int, int, int]:
    """The cards each seat (absolute) played this hand, as masks (public facts)."""
    out = [0, 0, 0, 0]
    for seat, card in view.plays():
        out[seat] |= 1 << card
    return (out[0], out[1], out[2], out[3])


def observation_bits(view: View, played: Sequence[int] | None = None) -> int:
    """The 0/1 part of the encoding as one int, bit ``i`` for entry ``i``.

    ``played`` is :func:`played_by` of the view, when the caller keeps it up to date
    (the environment does, card by card).
    """
    me = view.seat
    if played is None:
        played = played_by(view)
    bits = (
        view.hand
        | (
            played[me]
            | played[(me + 1) & 3] << 52
            | played[(me + 2) & 3] << 104
            | played[(me + 3) & 3] << 156
        )
        << _PLAYED
    )
    trick = view.trick
    if trick:
        rel = (view.leader - me) & 3
        for card in trick:
            bits |= 1 << (_TRICK + 52 * rel + card)
            rel = (rel + 1) & 3
    phase = _PHASE_OF[view.phase]
    tail = 1 << phase | 1 << (_T_DEALER + ((view.dealer - me) & 3))
    if view.to_play >= 0:
        tail |= 1 << (_T_TO_PLAY + ((view.to_play - me) & 3))
    if phase == _PLAY_PHASE:
        tail |= 1 << (_T_LEADER + ((view.leader - me) & 3))
    contract = view.contract
    if contract is not None:
        tail |= 1 << (_T_CONTRACT + _CONTRACT_OF[contract.code])
        if contract.trump is not None:
            tail |= 1 << (_T_TRUMP + contract.trump)
        if contract.misere:
            tail |= 1 << _T_MISERE
        if contract.aces_low:
            tail |= 1 << _T_ACES_LOW
        if contract.declarer is not None:
            tail |= 1 << (_T_DECLARER + ((contract.declarer - me) & 3))
    public: Mapping[str, Any] = view.public
    if public:
        turned = public.get("turned")
        if turned is not None:
            bits |= 1 << (_TURNED + _CARD_OF[str(turned)])
        own = public.get("your bottom card")
        if own is not None:
            bits |= 1 << (_OWN_BOTTOM + _CARD_OF[str(own)])
        revealed = public.get("revealed")
        if revealed:
            for name, card in revealed.items():
                rel = (_SEAT_OF[name] - me) & 3
                bits |= 1 << (_REVEALED + 52 * rel + _CARD_OF[str(card)])
                tail |= 1 << (_T_COMMITTED + rel)
        committed = public.get("committed")
        if committed:
            for name in committed:
                tail |= 1 << (_T_COMMITTED + ((_SEAT_OF[name] - me) & 3))
    return bits | tail << _TAIL


def encode(
    view: View,
    out: npt.NDArray[np.float32] | None = None,
    played: Sequence[int] | None = None,
) -> npt.NDArray[np.float32]:
    """The observation of ``view``: a float32 vector of :data:`OBS_SIZE` entries."""
    if out is None:
        out = np.empty(OBS_SIZE, np.float32)
    raw = np.frombuffer(observation_bits(view, played).to_bytes(_BYTES, "little"), np.uint8)
    out[:BITS] = np.unpackbits(raw, count=BITS, bitorder="little")
    side = view.seat & 1
    tricks = view.tricks
    score = view.score
    out[BITS] = tricks[side]
    out[BITS + 1] = tricks[side ^ 1]
    out[BITS + 2] = score[side]
    out[BITS + 3] = score[side ^ 1]
    out[BITS + 4] = view.hand_number
    return out


_F1 = struct.pack("<f", 1.0)
_F0 = bytes(4)
_NO_TRICK = bytes(4 * 4 * 52)
_TO_BYTE = bytes.maketrans(b"01", b"\x00\x01")
_B_TURNED = 4 * _TURNED
_B_TO_PLAY = 4 * (_TAIL + _T_TO_PLAY)
_B_LEADER = 4 * (_TAIL + _T_LEADER)
_B_TRICKS = 4 * BITS
# one relative seat marked in a block of four (to_play, leader)
_SEAT_BLOCK = tuple(_F0 * r + _F1 + _F0 * (3 - r) for r in range(4))


def _leaves_hand(buf: bytearray, r: int, card: int) -> None:
    """``card`` leaves the hand of the seat ``r`` places after the buffer's own (0: its
    own hand) and counts as played by that seat."""
    if r == 0:
        buf[4 * card : 4 * card + 4] = _F0
    i = 4 * (_PLAYED + 52 * r + card)
    buf[i : i + 4] = _F1


class Observations:
    """The four seats' observations of one game's current state, kept card by card.

    A card played in a hand that goes on changes a few entries of each seat's vector
    (its holder's hand, the trick, the cards played, who is to play; at the end of a trick
    the leader and the tricks taken): :meth:`played` writes just those, into each seat's
    float32 bytes. Any other action (a deal, a Swedish bottom card, the end of a hand) or
    a state it was not told about makes :meth:`observation` encode the seat's view afresh
    (:func:`encode`), the reference that tests/env compares these vectors with.
    """

    def __init__(self) -> None:
        self.state: State | None = None  # the state the buffers describe
        self._bufs: list[bytearray | None] = [None, None, None, None]

    def moved(self, state: State) -> None:
        """The game is now at ``state``, reached some other way than by :meth:`played`."""
        self.state = state
        self._bufs = [None, None, None, None]

    def played(self, before: State, after: State, card: int) -> None:
        """``after`` is ``before`` with ``card`` played, strict play, the hand going on."""
        if before is not self.state:
            self.moved(after)
            return
        self.state = after
        p = before.to_play
        nxt = after.to_play
        turned = card == before.turned  # the turned card leaves the table when played
        if after.trick:
            for k, buf in enumerate(self._bufs):
                if buf is None:
                    continue
                r = (p - k) & 3
                _leaves_hand(buf, r, card)
                i = 4 * (_TRICK + 52 * r + card)
                buf[i : i + 4] = _F1
                buf[_B_TO_PLAY : _B_TO_PLAY + 16] = _SEAT_BLOCK[(nxt - k) & 3]
                if turned:
                    buf[_B_TURNED + 4 * card : _B_TURNED + 4 * card + 4] = _F0
            return
        # the trick is complete: its winner ``nxt`` leads the next one
        tricks = after.tricks
        counts = (
            struct.pack("<2f", tricks[0], tricks[1]),
            struct.pack("<2f", tricks[1], tricks[0]),
        )
        for k, buf in enumerate(self._bufs):
            if buf is None:
                continue
            r = (p - k) & 3
            _leaves_hand(buf, r, card)
            buf[4 * _TRICK : 4 * (_TRICK + 208)] = _NO_TRICK
            block = _SEAT_BLOCK[(nxt - k) & 3]
            buf[_B_TO_PLAY : _B_TO_PLAY + 16] = block
            buf[_B_LEADER : _B_LEADER + 16] = block
            buf[_B_TRICKS : _B_TRICKS + 8] = counts[k & 1]
            if turned:
                buf[_B_TURNED + 4 * card : _B_TURNED + 4 * card + 4] = _F0

    def observation(self, state: State, seat: Seat) -> npt.NDArray[np.float32]:
        """A new float32 vector: :func:`encode` of ``state.view(seat)``."""
        if state is not self.state:
            self.moved(state)
        buf = self._bufs[seat]
        if buf is None:
            buf = self._bufs[seat] = bytearray(encode(state.view(seat)).tobytes())
        return np.frombuffer(bytearray(buf), np.float32)

    def action_mask(self, state: State, seat: Seat) -> npt.NDArray[np.int8]:
        """A new action mask: :func:`legal_mask` of ``state.view(seat)``."""
        if state.to_play != seat:
            bits = 0
        elif state.phase == PLAY and not state.variant.laws:
            bits = state.legal_mask()
        else:
            bits = legal_bits(state.view(seat))
        return mask_of(bits)


def action_index(action: Action) -> int:
    """The index in the action space of a state's action (a card or a bottom card)."""
    if type(action) is int:
        return action
    if isinstance(action, SpecialAction) and isinstance(getattr(action, "card", None), int):
        card: int = action.card  # type: ignore[attr-defined]
        return card
    raise ValueError(f"{action!r} has no index in the action space")


def legal_bits(view: View) -> int:
    """The legal action indices of the seat in ``view`` as one int, bit ``i`` for index
    ``i`` (0 when it is not that seat's turn)."""
    legal = view.legal
    if not legal:
        return 0
    if type(legal[0]) is int:  # cards: every action of a phase has the same kind
        return sum(map(_BIT.__getitem__, legal))  # type: ignore[arg-type]
    bits = 0
    for action in legal:
        bits |= 1 << action_index(action)
    return bits


_BIT = tuple(1 << i for i in range(NUM_ACTIONS))


def mask_of(bits: int) -> npt.NDArray[np.int8]:
    """The action mask (int8, :data:`NUM_ACTIONS`) of :func:`legal_bits`."""
    # one numpy call: the bits as "0"/"1" characters, lowest first, made bytes 0 and 1
    text = format(bits, "052b")[::-1].encode().translate(_TO_BYTE)
    return np.frombuffer(bytearray(text), np.int8)


def legal_mask(view: View) -> npt.NDArray[np.int8]:
    """1 for each legal action index of the seat in ``view``, else 0."""
    return mask_of(legal_bits(view))


__all__ = [
    "BITS",
    "CONTRACTS",
    "NUMBERS",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "OFFSETS",
    "PHASES",
    "Observations",
    "action_index",
    "encode",
    "legal_bits",
    "legal_mask",
    "mask_of",
    "observation_bits",
    "played_by",
]
