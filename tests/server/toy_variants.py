"""Two one-hand stand-ins for the variants still being built elsewhere.

They use the same hooks as Swedish and classic whist will (a bidding phase of special
actions, a turned-up card, public information), so the server's generic paths are tested
before those variants are merged. They are registered only inside the tests that use them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from whistkit.cards import RED_SUITS, SUITS, card_name, iter_cards
from whistkit.record import HandRecord
from whistkit.seats import Seat, left, seat_name
from whistkit.state import BID, PLAY, Action, Contract, Deal, IllegalAction, SpecialAction, State
from whistkit.variants.base import HandScore, Variant, winner_of


@dataclass(frozen=True)
class Bottom(SpecialAction):
    """A seat commits one of its cards as its bottom card."""

    card: int


class ToySwedish(Variant):
    """Bottom cards committed in turn from forehand; the first red one makes it spel."""

    name = "toyswedish"
    title = "Toy Swedish"

    def contract_for(self, state: State, deal: Deal) -> Contract | None:
        return None

    def start_hand(self, state: State, deal: Deal) -> State:
        s = super().start_hand(state, deal)
        return s.replace(phase=BID, bidding=())

    def bid_actions(self, state: State) -> list[Action]:
        seat = state.to_play
        return [Bottom(seat, c) for c in iter_cards(state.holdings[seat])]

    def check_bid(self, state: State, action: Action) -> None:
        if not isinstance(action, Bottom):
            raise IllegalAction(f"{action!r} is not a bottom card", "commit a bottom card")
        if action.seat != state.to_play:
            raise IllegalAction(f"{seat_name(action.seat)} is not to commit", "in turn")
        if not state.holdings[action.seat] >> action.card & 1:
            raise IllegalAction(f"{card_name(action.card)} is not held", "card not in hand")

    def apply_bid(self, state: State, action: Action) -> State:
        assert isinstance(action, Bottom)
        from whistkit.state import _Link

        bidding = (*state.bidding, (action.seat, action.card))
        history = _Link(state.history, action)
        if len(bidding) < 4:
            return state.replace(bidding=bidding, to_play=left(action.seat), history=history)
        declarer = next((s for s, c in bidding if c // 13 in RED_SUITS), None)
        contract = (
            Contract("SPEL", None, declarer=declarer, title="Spel")
            if declarer is not None
            else Contract("NOLLSPEL", None, misere=True, title="Nollspel")
        )
        return state.replace(
            phase=PLAY,
            bidding=bidding,
            contract=contract,
            to_play=state.first_leader,
            history=history,
        )

    def public_info(self, state: State, seat: Seat) -> dict[str, Any]:
        committed = dict(state.bidding or ())
        if state.phase == BID:
            return {"bottom": {seat: committed[seat]}} if seat in committed else {}
        revealed: dict[Seat, int] = {}
        for s, c in state.bidding or ():
            revealed[s] = c
            if c // 13 in RED_SUITS:
                break
        return {"revealed": revealed}

    def score_hand(self, state: State) -> HandScore:
        return HandScore(points=state.tricks, score=state.tricks, winner=winner_of(state.tricks))

    def record_special(self, hand: HandRecord, action: Action) -> None:
        assert isinstance(action, Bottom)
        hand.bottom = {**(hand.bottom or {}), action.seat: action.card}

    def record_actions(self, state: State, hand: HandRecord) -> list[Action]:
        return [Bottom(s, c) for s, c in (hand.bottom or {}).items()]


class ToyClassic(Variant):
    """The dealer's last card turned up for trump, public until he plays it."""

    name = "toyclassic"
    title = "Toy classic"
    uses_turned_card = True

    def contract_for(self, state: State, deal: Deal) -> Contract:
        assert deal.turned is not None
        suit = deal.turned // 13
        return Contract(SUITS[suit], suit, title=SUITS[suit])

    def public_info(self, state: State, seat: Seat) -> dict[str, Any]:
        t = state.turned
        if t is None or state.played_mask >> t & 1 or state.contract is None:
            return {}
        return {"turned": t}

    def score_hand(self, state: State) -> HandScore:
        return HandScore(points=state.tricks, score=state.tricks, winner=winner_of(state.tricks))

    def summary_match(self, state: State) -> dict[str, Any]:
        """Each finished hand stands in for a game of a rubber."""
        games = [
            {
                "winner": winner_of(r.score),
                "score": {"NS": r.score[0], "EW": r.score[1]},
                "value": 1,
            }
            for r in state.results
        ]
        return {"games": games}


TOYS: dict[str, type[Variant]] = {"toyswedish": ToySwedish, "toyclassic": ToyClassic}
