"""Rule-based bots that need no search.

``beginner``: sensible legal play with no memory. In trick-taking contracts it wins as
cheaply as it can unless its partner is already winning, and otherwise plays low; in
misère it ducks under the current winner with its highest safe card.
"""

from __future__ import annotations

import random

from ..cards import Card
from ..seats import partner
from ..state import RANK_KEY_ACES_LOW, RANK_KEY_HIGH, Action, View, trick_winner_index
from ..variants.swedish import BottomCard

# Swedish bottom card: ask for spel (red) from this many high-card points (A4 K3 Q2 J1);
# docs/bots.md §2 measures the crossover of spel and nollspel at about 12-13 under greedy play
SPEL_HCP = 12


class BeginnerBot:
    name = "beginner"

    def choose(self, view: View, rng: random.Random) -> Action:
        legal = view.legal
        if not legal:
            raise ValueError(f"seat {view.seat} has nothing to do")
        cards = [a for a in legal if type(a) is int]
        bottoms = [a for a in legal if isinstance(a, BottomCard)]
        if bottoms:
            return self.bottom_card(bottoms)
        if cards and view.contract is not None:
            # laws mode offers lawful special actions too (calls, claims); a bot plays
            # strict and takes none of them while it has a card to play
            return self.play(view, cards)
        # a decision the engine waits for (laws mode): the first choice is the plain one
        # (claim the revoke, add the penalty, expose the card)
        return legal[0]

    def bottom_card(self, choices: list[BottomCard]) -> BottomCard:
        """Red (spel) with enough high cards, else black; the lowest card of the colour."""
        hcp = sum(max(0, a.card % 13 - 8) for a in choices)
        want_red = hcp >= SPEL_HCP
        fitting = [a for a in choices if (a.card // 13 in (1, 2)) == want_red] or choices
        return min(fitting, key=lambda a: (a.card % 13, a.card))

    def play(self, view: View, cards: list[Card]) -> Card:
        contract = view.contract
        assert contract is not None
        keys = RANK_KEY_ACES_LOW if contract.aces_low else RANK_KEY_HIGH
        trump = contract.trump

        def strength(c: Card) -> int:
            # comparable across suits only for picking "lowest"/"highest" in general
            return (keys[c] % 13) + (13 if c // 13 == trump else 0)

        if not view.trick:
            if contract.misere:
                return min(cards, key=strength)
            # lead an ace of a side suit if we have one, else low from the longest suit
            aces = [c for c in cards if keys[c] % 13 == 12 and c // 13 != trump]
            if aces:
                return aces[0]
            by_suit: dict[int, list[Card]] = {}
            for c in cards:
                by_suit.setdefault(c // 13, []).append(c)
            longest = max(by_suit.values(), key=lambda cs: (len(cs), -cs[0] // 13))
            return min(longest, key=strength)
        win_pos = trick_winner_index(view.trick, contract)
        winning_card = view.trick[win_pos]
        winner_seat = (view.leader + win_pos) & 3
        beats = [
            c for c in cards if trick_winner_index((*view.trick, c), contract) == len(view.trick)
        ]
        if contract.misere:
            losers = [c for c in cards if c not in beats]
            last = len(view.trick) == 3
            if losers:
                return max(losers, key=strength)
            return max(cards, key=strength) if last else min(cards, key=strength)
        if winner_seat == partner(view.seat) and (
            len(view.trick) == 3 or keys[winning_card] % 13 >= 11 or winning_card // 13 == trump
        ):
            return min(cards, key=strength)
        if beats:
            return min(beats, key=strength)
        return min(cards, key=strength)
