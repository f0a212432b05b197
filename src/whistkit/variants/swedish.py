"""Swedish whist, *fyrmanswhist* (docs/rules.md §3).

No trumps ever. Before play each seat commits one of its cards as a "bottom card": red
asks for *spel* (the side tries to win tricks), black passes. The cards are revealed from
forehand clockwise until the first red one, whose owner is the declarer; four black cards
make *nollspel*, where each side avoids tricks. Only one side scores each hand, and the
first side to reach ``sw_target`` (13) at the end of a hand wins.

>>> from whistkit.state import new_game
>>> s = new_game("swedish", dealer=0)
>>> s.phase
'deal'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..cards import RED_SUITS, Card, card_name, iter_cards
from ..seats import Seat, left, seat_name
from ..state import BID, PLAY, Action, Contract, Deal, IllegalAction, SpecialAction, State, _Link
from .base import HandScore, Options, Variant

SPEL_LEADERS = ("forehand", "left_of_declarer", "right_of_declarer")
NOLLSPEL = Contract("NOLLSPEL", None, misere=True, title="Nollspel (no trump, fewest tricks)")


@dataclass(frozen=True)
class BottomCard(SpecialAction):
    """A seat commits ``card`` from its hand as its bottom card (§3.3a).

    Its ``str`` hides the card: the commitment is secret until the reveal.
    """

    card: Card

    def __str__(self) -> str:
        return "commits a bottom card"


@dataclass(frozen=True)
class SwedishBidding:
    """The bidding of one hand: committed cards by seat (-1: not yet) and the reveals."""

    committed: tuple[int, int, int, int] = (-1, -1, -1, -1)
    revealed: tuple[Seat, ...] = ()  # seats whose bottom card is public, in reveal order


@dataclass(frozen=True)
class SwedishOptions(Options):
    # §3.4: who leads trick 1 in spel: "forehand" (S1), "left_of_declarer" (KSR) or
    # "right_of_declarer" (KSE); in nollspel forehand always leads
    sw_spel_leader: str = "forehand"
    # §3.3: all four bottom cards are revealed at once; any red makes spel and the first
    # red clockwise from forehand declares [D5]
    sw_simultaneous_reveal: bool = False
    # §3.7: the first side with this many points at the end of a hand wins
    sw_target: int = 13

    CHOICES: ClassVar[Mapping[str, tuple[Any, ...]]] = {
        **Options.CHOICES,
        "sw_spel_leader": SPEL_LEADERS,
    }


def is_red(card: Card) -> bool:
    return card // 13 in RED_SUITS


def reveal(committed: tuple[int, ...], forehand: Seat, simultaneous: bool) -> tuple[Seat, ...]:
    """The seats whose bottom cards are revealed (§3.3b), in reveal order.

    >>> reveal((13, 0, 14, 1), forehand=1, simultaneous=False)  # E 2S, S 3H: stops at S
    (1, 2)
    """
    order = tuple((forehand + i) & 3 for i in range(4))
    if simultaneous:
        return order
    out = []
    for seat in order:
        out.append(seat)
        if is_red(committed[seat]):
            break
    return tuple(out)


def declarer_of(committed: tuple[int, ...], revealed: tuple[Seat, ...]) -> Seat | None:
    """The first revealed seat with a red card, or None (nollspel)."""
    for seat in revealed:
        if is_red(committed[seat]):
            return seat
    return None


def spel_contract(declarer: Seat) -> Contract:
    return Contract(
        "SPEL", None, declarer=declarer, title=f"Spel, declarer {seat_name(declarer)} (no trump)"
    )


def spel_leader(rule: str, dealer: Seat, declarer: Seat) -> Seat:
    """The first leader in spel under option ``sw_spel_leader`` (§3.4)."""
    if rule == "left_of_declarer":
        return left(declarer)
    if rule == "right_of_declarer":
        return (declarer + 3) & 3
    return left(dealer)


def score_swedish(contract: Contract, tricks: tuple[int, int]) -> tuple[int, int]:
    """Points for NS and EW in one hand (§3.6); exactly one side scores.

    >>> score_swedish(spel_contract(0), (9, 4)), score_swedish(spel_contract(0), (5, 8))
    ((3, 0), (0, 4))
    >>> score_swedish(NOLLSPEL, (4, 9))
    (3, 0)
    """
    if contract.declarer is not None:
        side = contract.declarer & 1
        taken = tricks[side]
        if taken >= 7:
            scorer, pts = side, taken - 6
        else:
            # the defenders score double their overtricks when spel fails
            scorer, pts = side ^ 1, 2 * (7 - taken)
    else:
        # nollspel: the side that stayed at 6 or fewer scores (13 is odd: exactly one did)
        scorer = 0 if tricks[0] <= 6 else 1
        pts = 7 - tricks[scorer]
    return (pts, 0) if scorer == 0 else (0, pts)


class Swedish(Variant):
    """Swedish whist (fyrmanswhist): bottom-card bidding, no trumps, game to 13."""

    name = "swedish"
    aliases = ("fyrmanswhist", "sweden", "svensk")
    title = "Swedish whist"
    options_class = SwedishOptions
    options: SwedishOptions
    contract_codes = ("SPEL", "NOLLSPEL")

    # -- the deal and the bottom cards ------------------------------------------------

    def contract_for(self, state: State, deal: Deal) -> Contract | None:
        return None  # the bottom cards decide it

    def start_hand(self, state: State, deal: Deal) -> State:
        s = super().start_hand(state, deal)
        return s.replace(phase=BID, bidding=SwedishBidding(), to_play=left(state.dealer))

    def bid_actions(self, state: State) -> list[Action]:
        seat = state.to_play
        return [BottomCard(seat, c) for c in iter_cards(state.holdings[seat])]

    def check_bid(self, state: State, action: Action) -> None:
        seat = state.to_play
        who = seat_name(seat)
        if not isinstance(action, BottomCard):
            raise IllegalAction(
                f"{who} is to commit a bottom card, not {_what(action)}",
                "every seat commits a bottom card before play (§3.3)",
            )
        if action.seat != seat:
            raise IllegalAction(
                f"{seat_name(action.seat)} commits out of turn; {who} commits next",
                "bottom cards are committed from forehand clockwise",
            )
        if not (0 <= action.card < 52 and state.holdings[seat] >> action.card & 1):
            raise IllegalAction(
                f"{who} commits {_name(action.card)} but does not hold it",
                "the bottom card is one of the player's own cards",
            )

    def apply_bid(self, state: State, action: Action) -> State:
        assert isinstance(action, BottomCard)
        bidding: SwedishBidding = state.bidding
        committed = list(bidding.committed)
        committed[action.seat] = action.card
        c4 = (committed[0], committed[1], committed[2], committed[3])
        history = _Link(state.history, action)
        nxt = left(action.seat)
        if -1 in c4:
            return state.replace(bidding=SwedishBidding(c4), to_play=nxt, history=history)
        forehand = left(state.dealer)
        revealed = reveal(c4, forehand, self.options.sw_simultaneous_reveal)
        declarer = declarer_of(c4, revealed)
        if declarer is None:
            contract, leader = NOLLSPEL, forehand
        else:
            contract = spel_contract(declarer)
            leader = spel_leader(self.options.sw_spel_leader, state.dealer, declarer)
        return state.replace(
            phase=PLAY,
            bidding=SwedishBidding(c4, revealed),
            contract=contract,
            first_leader=leader,
            leader=leader,
            to_play=leader,
            history=history,
        )

    def card_action(self, state: State, seat: Seat, card: Card) -> Action:
        if state.phase == BID:
            return BottomCard(seat, card)
        return card

    # -- scoring ------------------------------------------------------------------------

    def score_hand(self, state: State) -> HandScore:
        assert state.contract is not None
        points = score_swedish(state.contract, state.tricks)
        score = (state.score[0] + points[0], state.score[1] + points[1])
        winner = None
        target = self.options.sw_target
        if score[0] >= target:
            winner = "NS"
        elif score[1] >= target:
            winner = "EW"
        bidding: SwedishBidding = state.bidding
        extra = {
            "declarer": state.contract.declarer,
            "bottom": bidding.committed,
            "revealed": bidding.revealed,
        }
        return HandScore(points=points, score=score, winner=winner, extra=extra)

    # -- views ----------------------------------------------------------------------------

    def public_contract(self, state: State, seat: Seat) -> Contract | None:
        return state.contract  # set only after the reveal, when it is public

    def public_info(self, state: State, seat: Seat) -> dict[str, Any]:
        info = super().public_info(state, seat)
        bidding = state.bidding
        if not isinstance(bidding, SwedishBidding) or state.phase not in (BID, PLAY):
            return info
        if state.phase == BID:
            info["committed"] = [seat_name(s) for s in range(4) if bidding.committed[s] >= 0]
        else:
            info["revealed"] = {
                seat_name(s): card_name(bidding.committed[s]) for s in bidding.revealed
            }
        own = bidding.committed[seat]
        if own >= 0:
            info["your bottom card"] = card_name(own)
        return info

    def describe(self, state: State) -> str:
        title = state.contract.title if state.contract else "bottom cards"
        target = self.options.sw_target
        return f"Hand {state.hand_number} (game to {target}) - {title}"

    def summary_contract(self, contract: Contract, extra: Mapping[str, Any]) -> dict[str, Any]:
        d = contract.declarer
        return {"declarer": None if d is None else seat_name(d)}


def _name(card: int) -> str:
    return card_name(card) if 0 <= card < 52 else repr(card)


def _what(action: Action) -> str:
    """An action in a message: a card is "to play 7C", not its number."""
    return f"to play {_name(action)}" if type(action) is int else repr(action)


__all__ = [
    "NOLLSPEL",
    "BottomCard",
    "Swedish",
    "SwedishBidding",
    "SwedishOptions",
    "declarer_of",
    "reveal",
    "score_swedish",
    "spel_contract",
    "spel_leader",
]
