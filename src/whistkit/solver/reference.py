"""Pure-Python double-dummy oracle: plain minimax, no clever pruning.

This is the test oracle for the compiled solver and the fallback when the extension
is missing. It is deliberately simple:

* the value of a trick-start position (remaining hands and the leader) is memoised
  exactly, keyed on the real cards (no relative ranks, no equivalent cards);
* inside a trick, every legal card of every seat is tried (alpha-beta with a full
  window at the trick's first card, so the result is exact);
* in misère each side minimises its own tricks, i.e. the node types flip.

All values are tricks of the side NS, converted at the end to the side to play.
It is fine for endings of up to about six cards per hand.
"""

from __future__ import annotations

from ..cards import SUIT_MASKS as _SUIT_MASKS
from ..cards import cards_of
from .position import Position


def _strength(card: int, aces_low: bool) -> int:
    r = card % 13
    return (r + 1) % 13 if aces_low else r


def _playable(hand: int, lead_suit: int | None) -> int:
    """The cards of ``hand`` that may be played to a trick led in ``lead_suit``."""
    if lead_suit is not None:
        follow = hand & _SUIT_MASKS[lead_suit]
        if follow:
            return follow
    return hand


def _legal(hand: int, lead_suit: int | None) -> list[int]:
    return cards_of(_playable(hand, lead_suit))


class _Solver:
    def __init__(self, trump: int | None, misere: bool, aces_low: bool) -> None:
        self.trump = trump
        self.misere = misere
        self.aces_low = aces_low
        self.memo: dict[tuple[int, int, int, int, int], int] = {}
        # the same facts as _strength, _legal and maximiser, looked up rather than worked
        # out at every node (the oracle's speed is the tests' time)
        self.strength = [_strength(c, aces_low) for c in range(52)]
        self.maxi = [self.maximiser(seat) for seat in range(4)]
        self.cards: dict[int, list[int]] = {}

    def winner(self, leader: int, cards: list[int]) -> int:
        """The seat that wins a complete trick led by ``leader``."""
        best = 0
        strength = self.strength
        for i in range(1, 4):
            c, b = cards[i], cards[best]
            cs, bs = c // 13, b // 13
            if cs == bs:
                if strength[c] > strength[b]:
                    best = i
            elif cs == self.trump:
                best = i
        return (leader + best) & 3

    def maximiser(self, seat: int) -> bool:
        """Does this seat's choice maximise NS tricks?"""
        return (seat & 1 == 0) != self.misere

    def legal(self, hand: int, lead_suit: int | None) -> list[int]:
        """:func:`_legal`, each distinct set of cards listed once per solve."""
        cards = _playable(hand, lead_suit)
        found = self.cards.get(cards)
        if found is None:
            found = self.cards[cards] = cards_of(cards)
        return found

    def value(self, hands: list[int], leader: int) -> int:
        """NS tricks from a trick start with exact play."""
        if hands[0] == 0 and hands[1] == 0 and hands[2] == 0 and hands[3] == 0:
            return 0
        key = (hands[0], hands[1], hands[2], hands[3], leader)
        v = self.memo.get(key)
        if v is None:
            n = hands[leader].bit_count()
            v = self.in_trick(hands, leader, [], -1, n + 1)
            self.memo[key] = v
        return v

    def in_trick(
        self, hands: list[int], leader: int, cards: list[int], alpha: int, beta: int
    ) -> int:
        """NS tricks from a mid-trick node (alpha-beta within the trick only)."""
        if len(cards) == 4:
            w = self.winner(leader, cards)
            return (1 if w & 1 == 0 else 0) + self.value(hands, w)
        seat = (leader + len(cards)) & 3
        lead_suit = cards[0] // 13 if cards else None
        maxi = self.maxi[seat]
        best = -1 if maxi else 1 << 30
        for c in self.legal(hands[seat], lead_suit):
            hands[seat] ^= 1 << c
            cards.append(c)
            v = self.in_trick(hands, leader, cards, alpha, beta)
            cards.pop()
            hands[seat] ^= 1 << c
            if maxi:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            elif v < best:
                best = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        return best


def _ns_value(pos: Position, first_card: int | None = None, s: _Solver | None = None) -> int:
    if s is None:
        s = _Solver(pos.trump, pos.misere, pos.aces_low)
    hands = list(pos.hands)
    cards = list(pos.trick)
    if first_card is not None:
        hands[pos.to_play] ^= 1 << first_card
        cards.append(first_card)
    if not cards and all(h == 0 for h in hands):
        return 0
    n = max(h.bit_count() for h in hands) + 1
    return s.in_trick(hands, pos.leader, cards, -1, n + 1)


def tricks_left(pos: Position) -> int:
    """Remaining tricks, counting the current one."""
    return pos.hands[pos.to_play].bit_count()


def legal_cards(pos: Position) -> list[int]:
    lead = pos.trick[0] // 13 if pos.trick else None
    return _legal(pos.hands[pos.to_play], lead)


def _for_side(pos: Position, ns: int) -> int:
    return ns if pos.to_play & 1 == 0 else tricks_left(pos) - ns


def solve(pos: Position) -> int:
    """Tricks the side to play takes from here (counting the current trick)."""
    return _for_side(pos, _ns_value(pos))


def solve_cards(pos: Position) -> dict[int, int]:
    """The value of every legal card for the side to play."""
    # one memo for all the cards: the trick-start values it holds are exact whatever card
    # led to them
    s = _Solver(pos.trump, pos.misere, pos.aces_low)
    return {c: _for_side(pos, _ns_value(pos, c, s)) for c in legal_cards(pos)}


def can_take(pos: Position, k: int) -> bool:
    return solve(pos) >= k
