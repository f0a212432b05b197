"""``club``: a card-counting rule player (docs/bots.md §1).

It remembers, from the view alone, which cards are gone, who has shown out of which suit
and which cards are *boss* (no unplayed card of the suit outranks them). On that memory
it plays the partnership rules of club whist:

* trick-taking contracts (trumps, Grand): cash boss cards the opponents cannot ruff; lead
  trumps with length or to return partner's trump lead; return partner's suit; lead to
  partner's void when he may ruff; otherwise lead from length (top of a sequence, else
  low); second hand low unless covering an honour; third hand high (the lowest of
  equivalent cards), but never over partner's sure winner; fourth hand as cheaply as it
  can; ruff low, overruff cheaply, never ruff partner's winner; discard from the weakest
  suit;
* misère (Nóló, nollspel): lead the card least likely to win; duck with the highest card
  that still loses; unable to duck, play low unless last (then win with the highest);
  when void, shed the most dangerous high card first.

Félagsvist forbids signals, so it makes only natural inferences.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..cards import SUIT_MASKS, Card, Hand, cards_in, cards_of, iter_cards
from ..seats import partner
from ..state import Action, Contract, View, trick_winner_index
from .bottom import club_bottom, is_bottom_choice
from .knowledge import Knowledge, outranking, rank_keys

# per (aces low, trump suit): the rank keys, an order for lowest/highest (rank, trumps
# above the other suits, then the card) and the masks of the cards above and below each
_Tables = tuple[tuple[int, ...], tuple[int, ...], tuple[Hand, ...], tuple[Hand, ...]]
_TABLES: dict[tuple[bool, int | None], _Tables] = {}


def _tables(contract: Contract) -> _Tables:
    key = (contract.aces_low, contract.trump)
    got = _TABLES.get(key)
    if got is None:
        keys = rank_keys(contract)
        order = tuple(
            (keys[c] % 13 + (13 if c // 13 == contract.trump else 0)) * 64 + c for c in range(52)
        )
        above, below = outranking(keys)
        got = _TABLES[key] = (keys, order, above, below)
    return got


class ClubBot:
    """Rule-based play with card memory and partnership conventions."""

    name = "club"

    def choose(self, view: View, rng: random.Random) -> Action:
        legal = view.legal
        if not legal:
            raise ValueError(f"seat {view.seat} has nothing to do")
        if is_bottom_choice(legal):
            return club_bottom(view)
        cards = [a for a in legal if type(a) is int]
        if not cards or view.contract is None:
            # laws mode: a decision the engine waits for; the first choice is the plain one
            return legal[0]
        if len(cards) == 1:
            return cards[0]
        # laws mode may offer special actions beside the cards: a bot plays strict
        return _Decision(view, cards).choose()


def club_card(view: View, cards: list[Card], know: Knowledge) -> Card:
    """The club rules' card among ``cards`` for a seat whose knowledge is ``know``.

    ``view`` supplies only the trick, its leader and the contract; the hand and card
    counting come from ``know``. The policy model (:mod:`whistkit.bots.inference`) asks
    this for the same past moment in many sampled worlds, building ``know`` once, and
    relies on this: when the seat follows suit, the choice depends on its hand only
    through its cards of the led suit and of trumps (``tests/bots/test_bots_club.py``
    checks it).
    """
    return _Decision(view, cards, know).choose()


class _Decision:
    """One card decision: the view, its knowledge and the rules."""

    def __init__(self, view: View, cards: list[Card], know: Knowledge | None = None) -> None:
        assert view.contract is not None
        self.view = view
        self.contract: Contract = view.contract
        self.cards = cards
        self.legal = 0
        for c in cards:
            self.legal |= 1 << c
        self.know = Knowledge.from_view(view) if know is None else know
        self.keys, self.order, self.above, self.below = _tables(self.contract)
        self.trump = self.contract.trump
        self.me = view.seat
        self.pard = partner(view.seat)

    # -- card facts ------------------------------------------------------------------

    def rank(self, c: Card) -> int:
        return self.keys[c] % 13

    def is_boss(self, c: Card) -> bool:
        """No card anyone else may hold in the suit outranks ``c``."""
        return not self.know.unseen & self.above[c]

    def lowest(self, cs: Sequence[Card]) -> Card:
        """By rank, any trump above the other suits; of equal ranks the lowest card."""
        return min(cs, key=self.order.__getitem__)

    def highest(self, cs: Sequence[Card]) -> Card:
        return max(cs, key=self.order.__getitem__)

    def suit_cards(self, suit: int) -> tuple[Card, ...]:
        return cards_in(self.legal & SUIT_MASKS[suit])

    def beating(self) -> list[Card]:
        """Our cards that would win the trick so far (as ``trick_winner_index`` rules)."""
        trick = self.view.trick
        win = trick[trick_winner_index(trick, self.contract)]
        suit, key, keys, trump = win // 13, self.keys[win], self.keys, self.trump
        if suit == trump:
            return [c for c in self.cards if c // 13 == suit and keys[c] > key]
        return [c for c in self.cards if (c // 13 == suit and keys[c] > key) or c // 13 == trump]

    def equivalent_low(self, c: Card) -> Card:
        """The lowest of our cards touching ``c`` (no unseen card between them)."""
        mine = sorted(
            cards_of(self.know.hand & SUIT_MASKS[c // 13]), key=lambda x: self.keys[x], reverse=True
        )
        i = mine.index(c)
        best = c
        for lower in mine[i + 1 :]:
            between = [
                u
                for u in iter_cards(self.know.unseen & SUIT_MASKS[c // 13])
                if self.keys[lower] < self.keys[u] < self.keys[best]
            ]
            if between:
                break
            best = lower
        return best

    def opponents_may_ruff(self, suit: int) -> bool:
        if self.trump is None or suit == self.trump:
            return False
        if not self.know.outstanding(self.trump):
            return False
        return any(self.know.is_void(s, suit) for s in ((self.me + 1) & 3, (self.me + 3) & 3))

    def may_hold(self, seat: int, suit: int) -> bool:
        return not self.know.is_void(seat, suit) and bool(self.know.outstanding(suit))

    def choose(self) -> Card:
        if self.contract.misere:
            return self.misere_lead() if not self.view.trick else self.misere_follow()
        return self.lead() if not self.view.trick else self.follow()

    # -- trick-taking: leads ---------------------------------------------------------

    def lead(self) -> Card:
        hand = self.know.hand
        trump = self.trump
        side_suits = [s for s in range(4) if s != trump and hand & SUIT_MASKS[s]]
        opps_trumps = trump is not None and bool(self.know.outstanding(trump))
        # 1. cash a boss card in a side suit the opponents cannot ruff
        for s in side_suits:
            top = self.highest(self.suit_cards(s))
            if self.is_boss(top) and not self.opponents_may_ruff(s) and self.know.outstanding(s):
                return top
        # 2. trumps: draw them with length, or return partner's trump lead
        if trump is not None and opps_trumps and hand & SUIT_MASKS[trump]:
            n_trumps = (hand & SUIT_MASKS[trump]).bit_count()
            partner_led = bool(self.know.led_by[self.pard] >> trump & 1)
            if n_trumps >= 5 or partner_led or not side_suits:
                return self.lead_from(trump)
        # 3. lead to partner's void when he may still ruff
        if trump is not None and not self.know.is_void(self.pard, trump):
            for s in side_suits:
                if self.know.is_void(self.pard, s) and not self.opponents_may_ruff(s):
                    return self.lowest(self.suit_cards(s))
        # 4. return partner's first suit
        ps = self.know.first_lead[self.pard]
        if ps >= 0 and ps != trump and hand & SUIT_MASKS[ps]:
            mine = self.suit_cards(ps)
            top = self.highest(mine)
            if self.is_boss(top) or len(mine) == 2:
                return top
            return self.lowest(mine)
        # 5. from length, preferring suits nobody can ruff
        if side_suits:

            def value(s: int) -> tuple[int, int, int]:
                mine = (hand & SUIT_MASKS[s]).bit_count()
                strength = sum(max(0, self.rank(c) - 8) for c in iter_cards(hand & SUIT_MASKS[s]))
                return (0 if self.opponents_may_ruff(s) else 1, mine, strength)

            return self.lead_from(max(side_suits, key=value))
        return self.lead_from(trump if trump is not None else self.cards[0] // 13)

    def lead_from(self, suit: int) -> Card:
        """Top of a sequence of two or more honours, the boss, else the lowest."""
        mine = sorted(self.suit_cards(suit), key=lambda c: self.keys[c], reverse=True)
        top = mine[0]
        if self.is_boss(top):
            return top
        if len(mine) >= 2 and self.rank(top) >= 9 and self.equivalent_low(top) != top:
            return top
        return mine[-1]

    # -- trick-taking: following -----------------------------------------------------

    def follow(self) -> Card:
        trick = self.view.trick
        pos = len(trick)  # 1: second hand, 2: third, 3: fourth
        win_i = trick_winner_index(trick, self.contract)
        winner_seat = (self.view.leader + win_i) & 3
        win_card = trick[win_i]
        led = trick[0] // 13
        beats = self.beating()
        following = bool(self.legal & SUIT_MASKS[led])
        partner_winning = winner_seat == self.pard
        if partner_winning and self.partner_sure(win_card, pos):
            return self.discard() if not following else self.lowest(self.cards)
        if not beats:
            return self.lowest(self.cards) if following else self.discard()
        cheapest = self.lowest(beats)
        if not following:
            # ruffing (or overruffing) with the cheapest winning trump
            if pos == 1 and not self.is_boss(win_card) and self.may_hold(self.pard, led):
                # second hand: partner may still win the trick; keep the trump
                return self.discard()
            n_trumps = (
                (self.know.hand & SUIT_MASKS[self.trump]).bit_count()
                if (self.trump is not None)
                else 0
            )
            if pos == 1 and n_trumps >= 4 and not self.is_boss(win_card):
                return self.discard()
            return cheapest
        if pos == 3:
            return cheapest
        if pos == 2:
            # third hand: win cheaply if that is sure, else play high (the lowest of the
            # cards equivalent to our best), but never over partner's card needlessly
            sure = [c for c in beats if not self.fourth_can_beat(c)]
            if sure:
                return self.lowest(sure)
            if partner_winning:
                return self.lowest(self.cards)
            top = self.equivalent_low(self.highest(beats))
            return top if top in beats else cheapest
        # second hand: low, but cover an honour and take a sure trick with a boss card
        led_card = trick[0]
        if self.rank(led_card) >= 9:
            return cheapest
        bosses = [c for c in beats if self.is_boss(c) and not self.opponents_may_ruff(led)]
        if bosses and self.rank(led_card) >= 7:
            return self.lowest(bosses)
        return self.lowest(self.cards)

    def partner_sure(self, win_card: Card, pos: int) -> bool:
        """Partner's card wins the trick whatever the players after us hold."""
        if pos == 3:
            return True
        # pos 1 or 2: the remaining players include an opponent after us
        return not self.fourth_can_beat(win_card)

    def fourth_can_beat(self, card: Card) -> bool:
        """Could the last player (an opponent when we are third) beat ``card``?"""
        last = (self.view.leader + 3) & 3
        led = self.view.trick[0] // 13
        higher_out = bool(self.know.unseen & self.above[card])
        if card // 13 == led:
            if self.may_hold(last, led) and higher_out:
                return True
            return (
                self.trump is not None
                and led != self.trump
                and self.know.is_void(last, led)
                and self.may_hold(last, self.trump)
            )
        # a ruff: overruffed only by a void player with a higher trump
        return self.know.is_void(last, led) and higher_out and self.may_hold(last, card // 13)

    def discard(self) -> Card:
        """A card from the weakest suit: worthless singletons first, never a trump if avoidable."""
        hand = self.know.hand
        side = [c for c in self.cards if c // 13 != self.trump] or self.cards
        suits: dict[int, tuple[Card, int]] = {}  # suit: (its lowest card, its worth)

        def cost(c: Card) -> tuple[int, int, int]:
            s = c // 13
            got = suits.get(s)
            if got is None:
                mine = cards_in(hand & SUIT_MASKS[s])
                bosses = sum(1 for x in mine if self.is_boss(x))
                length = len(mine)
                # a suit with boss cards or long enough to establish is worth keeping
                worth = 10 * bosses + (length if length >= 4 else 0)
                if length == 1 and not bosses:
                    worth -= 5
                if length == 2 and any(self.rank(x) >= 10 for x in mine):
                    worth += 4  # an honour's guard
                got = suits[s] = (self.lowest(mine), worth)
            if c != got[0]:
                return (100, 0, 0)
            return (got[1], self.rank(c), c)

        return min(side, key=cost)

    # -- misère ------------------------------------------------------------------------

    def danger(self, c: Card) -> int:
        """How many cards others may play under ``c`` in its suit (they can duck it)."""
        return (self.know.unseen & self.below[c]).bit_count()

    def misere_lead(self) -> Card:
        def risk(c: Card) -> tuple[int, int, int]:
            s = c // 13
            higher = (self.know.unseen & self.above[c]).bit_count()
            if not higher:
                return (1, 0, c)  # sure to win this trick
            # fewer opponents' cards below ours = safer; prefer suits they still hold
            opps_void = sum(
                1 for o in ((self.me + 1) & 3, (self.me + 3) & 3) if self.know.is_void(o, s)
            )
            return (0, self.danger(c) * 2 + opps_void * 3 - higher, self.rank(c))

        return min(self.cards, key=risk)

    def misere_follow(self) -> Card:
        trick = self.view.trick
        pos = len(trick)
        led = trick[0] // 13
        following = bool(self.legal & SUIT_MASKS[led])
        if not following:
            # shed the card others can most easily duck under
            return max(self.cards, key=lambda c: (self.danger(c), self.rank(c), c))
        beats = self.beating()
        losers = [c for c in self.cards if c not in beats]
        if losers:
            return self.highest(losers)
        if pos == 3 or self.sure_to_win(self.lowest(self.cards)):
            # the trick is ours whatever we play: shed the highest card
            return self.highest(self.cards)
        return self.lowest(self.cards)

    def sure_to_win(self, card: Card) -> bool:
        """No player after us can beat ``card`` (misère has no trumps)."""
        after = range(len(self.view.trick) + 1, 4)
        higher = bool(self.know.unseen & self.above[card])
        led = self.view.trick[0] // 13
        return not higher or all(self.know.is_void((self.view.leader + i) & 3, led) for i in after)
