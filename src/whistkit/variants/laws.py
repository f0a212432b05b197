"""Laws mode (docs/rules.md §6): irregular play and the rulings on it, for every variant.

With ``play_mode = "laws"`` a human may revoke, correct a revoke before it is
established, lead out of turn, expose a card; the opponents may call exposed cards, reject
a wrong lead and choose its remedy, and claim revokes. Bots always play strict: the
legal actions of a seat are only its *lawful* ones (lawful cards, or the decision the
engine waits for), while :func:`check` also accepts the irregular ones.

The per-hand facts live in ``State.irregular`` as an immutable :class:`LawsHand`.

Actions (each a :class:`~whistkit.state.SpecialAction`, a plain int being a card played
by the seat to play, lawful or a revoke):

- :class:`LeadOutOfTurn` ``(seat, card)``: lead when another seat was due (§6.6);
- :class:`RejectLead` ``(seat, remedy)``: an opponent of the wrong leader takes the
  trick's cards back; ``remedy`` ``"expose"`` or ``"call_suit"``;
- :class:`NameSuit` ``(seat, suit)``: the opponents name the suit the offending side
  must lead (remedy ``call_suit``); ``suit`` -1 waives it;
- :class:`Expose` ``(seat, card)``: a card shown by accident (§6.5);
- :class:`Call` ``(seat, card)``: an opponent calls an exposed card at its owner's turn;
- :class:`Correct` ``(seat, card)``: the revoker takes his card back and plays ``card``
  (§6.2) while the revoke is not established;
- :class:`CorrectionPenalty` ``(seat, choice)``: with ``revoke_correction = "laws"``, the
  opponents' choice after a correction: ``"expose"`` the withdrawn card, make the
  offender play his ``"highest"`` or ``"lowest"`` lawful card, or ``"none"``;
- :class:`Replace` ``(seat, card)``: an opponent who played after a corrected revoke
  replaces his card;
- :class:`ClaimRevoke` / :class:`WaiveClaim` ``(seat)``: with ``auto_claim`` off, the
  non-offenders claim (or do not) at the end of the hand (§6.3);
- :class:`ChooseMethod` ``(seat, method)``: English ``claimant_choice`` (§6.4).

The record form of these actions (docs/records.md) is in :mod:`whistkit.record_events`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Protocol

from ..cards import SUIT_MASKS, SUIT_NAMES, Card, Hand, card_name, iter_cards
from ..seats import Seat, left, seat_name
from ..state import (
    DEAL,
    PLAY,
    Action,
    HandResult,
    IllegalAction,
    SpecialAction,
    State,
    _Link,
    trick_winner_index,
)
from .options import Options


class Variant(Protocol):
    """What laws mode asks of the variant it rules for (every
    :class:`whistkit.variants.base.Variant` is one; the base class calls this module)."""

    @property
    def options(self) -> Options: ...

    # True if the variant's scorer applies revoke penalties in points (classic whist)
    @property
    def points_penalties(self) -> bool: ...

    def settle_hand(self, state: State) -> State:
        """Score the finished hand (after the rulings) and move on."""
        ...


# -- actions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class LeadOutOfTurn(SpecialAction):
    """``seat`` leads ``card`` although another seat was due to lead (§6.6)."""

    card: Card

    def __str__(self) -> str:
        return f"leads {card_name(self.card)} out of turn"


@dataclass(frozen=True)
class RejectLead(SpecialAction):
    """An opponent of the wrong leader has the trick taken back, with a remedy (§6.6)."""

    remedy: str  # "expose" or "call_suit"

    def __str__(self) -> str:
        what = "the led card is exposed" if self.remedy == "expose" else "a suit will be called"
        return f"rejects the lead out of turn ({what})"


@dataclass(frozen=True)
class NameSuit(SpecialAction):
    """The opponents name the suit the offending side must lead; -1 waives (§6.6b)."""

    suit: int

    def __str__(self) -> str:
        return "waives the suit call" if self.suit < 0 else f"calls {SUIT_NAMES[self.suit]}"


@dataclass(frozen=True)
class Expose(SpecialAction):
    """``seat`` shows ``card`` by accident; it stays in his hand, face up (§6.5)."""

    card: Card

    def __str__(self) -> str:
        return f"exposes {card_name(self.card)}"


@dataclass(frozen=True)
class Call(SpecialAction):
    """An opponent calls the exposed ``card``: its owner must play it now (§6.5)."""

    card: Card

    def __str__(self) -> str:
        return f"calls the exposed {card_name(self.card)}"


@dataclass(frozen=True)
class Correct(SpecialAction):
    """The revoker takes his card back and plays ``card`` instead (§6.2)."""

    card: Card

    def __str__(self) -> str:
        return f"corrects the revoke with {card_name(self.card)}"


@dataclass(frozen=True)
class CorrectionPenalty(SpecialAction):
    """The opponents' ruling on a corrected revoke under ``revoke_correction = "laws"``."""

    choice: str  # "expose", "highest", "lowest" or "none"

    def __str__(self) -> str:
        return f"rules on the corrected revoke: {self.choice}"


@dataclass(frozen=True)
class Replace(SpecialAction):
    """After a corrected revoke, an opponent who played after it plays ``card`` instead."""

    card: Card

    def __str__(self) -> str:
        return f"replaces his card with {card_name(self.card)}"


@dataclass(frozen=True)
class ClaimRevoke(SpecialAction):
    """The non-offenders claim the opponents' established revokes (§6.3)."""

    def __str__(self) -> str:
        return "claims the revoke"


@dataclass(frozen=True)
class WaiveClaim(SpecialAction):
    """The non-offenders let the revoke go unclaimed."""

    def __str__(self) -> str:
        return "does not claim the revoke"


@dataclass(frozen=True)
class ChooseMethod(SpecialAction):
    """English ``claimant_choice``: the claimants choose the revoke penalty (§6.4)."""

    method: str  # "add", "deduct" or "transfer"

    def __str__(self) -> str:
        return f"chooses the revoke penalty: {self.method}"


REMEDIES = ("expose", "call_suit")
CORRECTION_CHOICES = ("expose", "highest", "lowest", "none")
METHODS = ("add", "deduct", "transfer")
# actions that put a card on the table: the card is in the record's play list
CARD_ACTIONS = {LeadOutOfTurn: "out_of_turn", Correct: "correct", Replace: "replace"}


# -- the per-hand state ----------------------------------------------------------------------


@dataclass(frozen=True)
class Revoke:
    """A revoke (§6.1) as the engine saw it."""

    seat: Seat
    trick: int  # 0-based
    card: Card
    kind: str  # "follow", "call" (a called card not played) or "named_suit"
    lawful: Hand  # the cards the offender should have chosen from
    established: bool = False


@dataclass(frozen=True)
class LawsHand:
    """Laws-mode facts of the hand in progress (immutable)."""

    revokes: tuple[Revoke, ...] = ()
    exposed: tuple[Hand, Hand, Hand, Hand] = (0, 0, 0, 0)
    called: Card | None = None  # exposed card called for its owner's current turn
    wrong_lead: tuple[Seat, Seat] | None = None  # (offender, due leader) of this trick
    lead_penalty: int | None = None  # side that must lead a suit the opponents name
    named_suit: tuple[Seat, int] | None = None  # (leader, suit) he must lead if he can
    replace_rights: frozenset[Seat] = frozenset()
    pending: str | None = None  # "name_suit", "correction_penalty", "claim", "method"
    decider: Seat = -1
    correction: Revoke | None = None  # the corrected revoke awaiting the opponents' ruling
    claim_done: bool = False
    claimed: bool = False
    method: str | None = None
    penalised: tuple[int, ...] = ()  # offending side of each revoke penalised at the end
    leaders: tuple[Seat, ...] = ()  # leader of each finished trick
    played_tricks: tuple[int, int] | None = None  # the tricks as played, before a transfer
    record_index: int = 0  # cards put on the table so far (the record's play index)


def hand_state(state: State) -> LawsHand:
    irr = state.irregular
    assert isinstance(irr, LawsHand), "laws mode without its hand state"
    return irr


def _opponents(a: Seat, b: Seat) -> bool:
    return (a ^ b) & 1 == 1


def lawful_mask(state: State, seat: Seat, irr: LawsHand) -> Hand:
    """The cards ``seat`` may lawfully play now (follow suit, named suit, called card)."""
    hand = state.holdings[seat]
    if state.trick:
        follow = hand & SUIT_MASKS[state.trick[0] // 13]
        lawful = follow or hand
    else:
        lawful = hand
        if irr.named_suit is not None and irr.named_suit[0] == seat and irr.named_suit[1] >= 0:
            lawful = hand & SUIT_MASKS[irr.named_suit[1]] or hand
    if irr.called is not None and lawful >> irr.called & 1:
        lawful = 1 << irr.called
    return lawful


def natural_to_play(state: State) -> Seat:
    return (state.leader + len(state.trick)) & 3


# -- legal actions, check, apply ------------------------------------------------------------


def legal(variant: Variant, state: State) -> list[Action]:
    """The lawful actions of the seat to act (what bots choose from)."""
    irr = hand_state(state)
    seat = state.to_play
    if irr.pending == "name_suit":
        return [*(NameSuit(seat, s) for s in range(4)), NameSuit(seat, -1)]
    if irr.pending == "correction_penalty":
        return [CorrectionPenalty(seat, c) for c in CORRECTION_CHOICES]
    if irr.pending == "claim":
        return [ClaimRevoke(seat), WaiveClaim(seat)]
    if irr.pending == "method":
        return [ChooseMethod(seat, m) for m in METHODS]
    return list(iter_cards(lawful_mask(state, seat, irr)))


def check(variant: Variant, state: State, action: Action) -> None:
    """Raise :class:`IllegalAction` naming the law if ``action`` cannot be made now."""
    irr = hand_state(state)
    seat = action.seat if isinstance(action, SpecialAction) else state.to_play
    who = seat_name(seat) if 0 <= seat < 4 else repr(seat)
    if isinstance(action, SpecialAction) and not 0 <= action.seat < 4:
        raise IllegalAction(f"{action.seat!r} is not a seat", "seats are N E S W")
    decisions = {
        "name_suit": NameSuit,
        "correction_penalty": CorrectionPenalty,
        "claim": (ClaimRevoke, WaiveClaim),
        "method": ChooseMethod,
    }
    if irr.pending is not None:
        if not isinstance(action, decisions[irr.pending]):  # type: ignore[arg-type]
            raise IllegalAction(
                f"{seat_name(irr.decider)} must first decide ({_pending_text(irr)})",
                "the opponents' choice comes first",
            )
        if _opponents(seat, irr.decider) and irr.pending != "name_suit":
            raise IllegalAction(
                f"{who} cannot decide for the other side", "the choice is the opponents'"
            )
        if irr.pending == "name_suit":
            leader = state.leader
            if not _opponents(seat, leader):
                raise IllegalAction(
                    f"{who} is on the leader's side", "the opponents name the suit (§6.6b)"
                )
            assert isinstance(action, NameSuit)
            if not -1 <= action.suit < 4:
                raise IllegalAction(f"{action.suit!r} is not a suit", "name a suit")
        if isinstance(action, CorrectionPenalty):
            _check_choice(
                action.choice, CORRECTION_CHOICES, "a ruling", "revoke_correction laws (§6.2)"
            )
        if isinstance(action, ChooseMethod):
            _check_choice(action.method, METHODS, "a penalty", "claimant_choice (§6.4)")
        return
    if len(state.trick_winners) == 13:
        raise IllegalAction("the hand is over", "no play after the 13th trick")
    if type(action) is int:
        _check_held(state, seat, action)
        return
    if isinstance(action, LeadOutOfTurn):
        if state.trick:
            raise IllegalAction(
                f"{who} plays out of turn in the middle of a trick",
                "only a lead out of turn is ruled on (§6.6)",
            )
        if seat == state.to_play:
            raise IllegalAction(f"{who} is due to lead; play the card normally", "lead in turn")
        _check_held(state, seat, action.card)
    elif isinstance(action, RejectLead):
        if irr.wrong_lead is None:
            raise IllegalAction("this trick was not led out of turn", "lead out of turn (§6.6)")
        if not _opponents(seat, irr.wrong_lead[0]):
            raise IllegalAction(
                f"{who} is on the wrong leader's side", "the offender's opponents choose (§6.6)"
            )
        _check_choice(action.remedy, REMEDIES, "a remedy", "lead out of turn (§6.6)")
    elif isinstance(action, Expose):
        _check_held(state, seat, action.card)
        if irr.exposed[seat] >> action.card & 1:
            raise IllegalAction(f"{card_name(action.card)} is already exposed", "exposed card")
    elif isinstance(action, Call):
        card = action.card
        owner = state.to_play
        if not (0 <= card < 52 and irr.exposed[owner] >> card & 1):
            raise IllegalAction(
                f"{_name(card)} is not an exposed card of {seat_name(owner)}, who is to play",
                "only an exposed card may be called, at its owner's turn (§6.5)",
            )
        if not _opponents(seat, owner):
            raise IllegalAction(f"{who} is the owner's partner", "the opponents call (§6.5)")
        plain = dataclasses.replace(irr, called=None)
        if not lawful_mask(state, owner, plain) >> card & 1:
            raise IllegalAction(
                f"{seat_name(owner)} cannot lawfully play {card_name(card)} now",
                "a call may never force a revoke (§6.5)",
            )
    elif isinstance(action, Correct):
        revoke = _open_revoke(state, irr, seat)
        if revoke is None:
            raise IllegalAction(
                f"{who} has no revoke to correct",
                "only a revoke not yet established can be corrected (§6.2)",
            )
        _check_held(state, seat, action.card)
        if not revoke.lawful >> action.card & 1:
            raise IllegalAction(
                f"{who} corrects with {card_name(action.card)}, which is not lawful either",
                "the correction must be a lawful card (§6.2)",
            )
    elif isinstance(action, Replace):
        if seat not in irr.replace_rights:
            raise IllegalAction(
                f"{who} may not take his card back",
                "only an opponent who played after the corrected revoke may (§6.2)",
            )
        _check_held(state, seat, action.card)
        cards, leader, _base, _done = _open_trick(state, irr)
        mine = cards[(seat - leader) & 3]
        hand = state.holdings[seat] | 1 << mine
        follow = hand & SUIT_MASKS[cards[0] // 13]
        if follow and not follow >> action.card & 1:
            raise IllegalAction(
                f"{who} replaces with {card_name(action.card)} but holds a"
                f" {SUIT_NAMES[cards[0] // 13][:-1]}",
                "must follow suit",
            )
    elif isinstance(action, (NameSuit, CorrectionPenalty, ClaimRevoke, WaiveClaim, ChooseMethod)):
        raise IllegalAction(f"nobody is asked to decide ({action})", "no decision pending")
    else:
        raise IllegalAction(f"{action!r} is not an action of the play", "play a card")


def _check_choice(value: str, choices: tuple[str, ...], what: str, law: str) -> None:
    """Refuse a decision's ``value`` unless it is one of ``choices`` (``what``: "a remedy")."""
    if value not in choices:
        raise IllegalAction(f"{value!r} is not {what}; one of {', '.join(choices)}", law)


def _check_held(state: State, seat: Seat, card: Any) -> None:
    who = seat_name(seat)
    if type(card) is not int or not 0 <= card < 52:
        raise IllegalAction(f"{card!r} is not a card", "play a card")
    if not state.holdings[seat] >> card & 1:
        if state.played_mask >> card & 1:
            raise IllegalAction(
                f"{who} played {card_name(card)} but it was already played", "card played twice"
            )
        raise IllegalAction(
            f"{who} played {card_name(card)} but does not hold it", "card not in hand"
        )


def _name(card: int) -> str:
    return card_name(card) if 0 <= card < 52 else repr(card)


def _open_trick(state: State, irr: LawsHand) -> tuple[tuple[Card, ...], Seat, int, bool]:
    """The trick a correction can still change: (cards, leader, index in played, complete).

    It is the trick in progress, or the last complete one while the next has no card.
    """
    if state.trick:
        return state.trick, state.leader, len(state.played) - len(state.trick), False
    played = state.played
    return played[-4:], irr.leaders[-1], len(played) - 4, True


def _open_revoke(state: State, irr: LawsHand, seat: Seat) -> Revoke | None:
    current = len(state.trick_winners)
    open_index = current if state.trick else current - 1
    for r in irr.revokes:
        if r.seat == seat and not r.established and r.trick == open_index:
            return r
    return None


def apply(variant: Variant, state: State, action: Action) -> State:
    """Apply a checked laws-mode action."""
    irr = hand_state(state)
    if type(action) is int:
        return _play_card(variant, state, irr, state.to_play, action, action)
    if isinstance(action, LeadOutOfTurn):
        due = state.to_play
        first = state.first_leader if state.trick_winners else action.seat
        s = state.replace(leader=action.seat, to_play=action.seat, first_leader=first)
        irr = dataclasses.replace(irr, wrong_lead=(action.seat, due))
        return _play_card(variant, s, irr, action.seat, action.card, action)
    history = _Link(state.history, action)
    if isinstance(action, RejectLead):
        return _settle(variant, _reject_lead(state, irr, action), history)
    if isinstance(action, NameSuit):
        irr = dataclasses.replace(
            irr, named_suit=(state.leader, action.suit), lead_penalty=None, pending=None
        )
        return _settle(variant, state.replace(irregular=irr), history)
    if isinstance(action, Expose):
        irr = _expose(irr, action.seat, action.card)
        return _settle(variant, state.replace(irregular=irr), history)
    if isinstance(action, Call):
        irr = dataclasses.replace(irr, called=action.card)
        return _settle(variant, state.replace(irregular=irr), history)
    if isinstance(action, Correct):
        revoke = _open_revoke(state, irr, action.seat)
        assert revoke is not None
        s, irr = _swap(state, irr, action.seat, action.card)
        cards, leader, _base, _done = _open_trick(s, irr)
        pos = (action.seat - leader) & 3
        # the opponents who played after him may take their cards back (§6.2, [D14])
        rights = frozenset(
            (leader + p) & 3
            for p in range(pos + 1, len(cards))
            if _opponents((leader + p) & 3, action.seat)
        )
        irr = dataclasses.replace(
            irr,
            revokes=tuple(r for r in irr.revokes if r is not revoke),
            replace_rights=irr.replace_rights | rights,
            record_index=irr.record_index + 1,
        )
        if variant.options.revoke_correction == "laws":
            irr = dataclasses.replace(
                irr, pending="correction_penalty", decider=left(action.seat), correction=revoke
            )
        return _settle(variant, s.replace(irregular=irr), history)
    if isinstance(action, CorrectionPenalty):
        revoke = irr.correction
        assert revoke is not None
        irr = dataclasses.replace(irr, pending=None, correction=None)
        s = state
        if action.choice == "expose":
            irr = _expose(irr, revoke.seat, revoke.card)
        elif action.choice in ("highest", "lowest"):
            cards, leader, _base, _done = _open_trick(state, irr)
            now = cards[(revoke.seat - leader) & 3]
            choices = (state.holdings[revoke.seat] | 1 << now) & revoke.lawful
            forced = max(iter_cards(choices), key=lambda c: c % 13)
            if action.choice == "lowest":
                forced = min(iter_cards(choices), key=lambda c: c % 13)
            if forced != now:
                s, irr = _swap(state, irr, revoke.seat, forced)
        return _settle(variant, s.replace(irregular=irr), history)
    if isinstance(action, Replace):
        s, irr = _swap(state, irr, action.seat, action.card)
        irr = dataclasses.replace(
            irr,
            replace_rights=irr.replace_rights - {action.seat},
            record_index=irr.record_index + 1,
        )
        return _settle(variant, s.replace(irregular=irr), history)
    if isinstance(action, (ClaimRevoke, WaiveClaim)):
        irr = dataclasses.replace(
            irr, pending=None, claim_done=True, claimed=isinstance(action, ClaimRevoke)
        )
        return finish(variant, state.replace(irregular=irr, history=history))
    if isinstance(action, ChooseMethod):
        irr = dataclasses.replace(irr, pending=None, method=action.method)
        return finish(variant, state.replace(irregular=irr, history=history))
    raise AssertionError(f"unchecked action {action!r}")


def _four(xs: list[int]) -> tuple[int, int, int, int]:
    return xs[0], xs[1], xs[2], xs[3]


def _expose(irr: LawsHand, seat: Seat, card: Card) -> LawsHand:
    """``irr`` with ``card`` of ``seat`` face up (shown by accident, or a corrected revoke)."""
    exposed = list(irr.exposed)
    exposed[seat] |= 1 << card
    return dataclasses.replace(irr, exposed=_four(exposed))


def _play_card(
    variant: Variant, state: State, irr: LawsHand, seat: Seat, card: Card, action: Action
) -> State:
    """Put a card on the table for ``seat`` (the seat to play), ruling on revokes."""
    index = len(state.trick_winners)
    revokes = irr.revokes
    lawful = lawful_mask(state, seat, irr)
    if not lawful >> card & 1 and not isinstance(action, LeadOutOfTurn):
        if irr.called is not None and lawful == 1 << irr.called:
            kind = "call"
        elif not state.trick:
            kind = "named_suit"
        else:
            kind = "follow"
        revokes += (Revoke(seat, index, card, kind, lawful),)
    rights = irr.replace_rights
    if not state.trick:
        # the first card of a trick turns the last one: its revokes are established
        revokes = tuple(
            dataclasses.replace(r, established=True) if r.trick < index else r for r in revokes
        )
        rights = frozenset()
    exposed = list(irr.exposed)
    exposed[seat] &= ~(1 << card)
    named = irr.named_suit
    if named is not None and named[0] == seat and not state.trick:
        named = None
    irr = dataclasses.replace(
        irr,
        revokes=revokes,
        replace_rights=rights,
        exposed=_four(exposed),
        called=None,
        named_suit=named,
        record_index=irr.record_index + 1,
    )
    holdings = list(state.holdings)
    holdings[seat] ^= 1 << card
    trick = (*state.trick, card)
    changes: dict[str, Any] = {
        "holdings": _four(holdings),
        "played": (*state.played, card),
        "played_mask": state.played_mask | 1 << card,
    }
    if len(trick) < 4:
        changes.update(trick=trick, to_play=left(seat))
    else:
        assert state.contract is not None
        w = (state.leader + trick_winner_index(trick, state.contract)) & 3
        t = state.tricks
        changes.update(
            trick=(),
            tricks=(t[0] + 1, t[1]) if w & 1 == 0 else (t[0], t[1] + 1),
            trick_winners=(*state.trick_winners, w),
            leader=w,
            to_play=w,
        )
        # a trick all four played to stands, even if it was led out of turn (§6.6)
        irr = dataclasses.replace(
            irr, leaders=(*irr.leaders, state.leader), wrong_lead=None, named_suit=None
        )
    s = state.replace(irregular=irr, **changes)
    if len(s.trick_winners) == 13:
        return finish(variant, s.replace(history=_Link(state.history, action)))
    return _settle(variant, s, _Link(state.history, action))


def _swap(state: State, irr: LawsHand, seat: Seat, card: Card) -> tuple[State, LawsHand]:
    """``seat`` takes back his card of the open trick and puts ``card`` in its place."""
    cards, leader, base, done = _open_trick(state, irr)
    pos = (seat - leader) & 3
    old = cards[pos]
    new_cards = cards[:pos] + (card,) + cards[pos + 1 :]
    holdings = list(state.holdings)
    holdings[seat] = (holdings[seat] | 1 << old) & ~(1 << card)
    played = list(state.played)
    played[base + pos] = card
    exposed = list(irr.exposed)
    exposed[seat] &= ~(1 << card)
    changes: dict[str, Any] = {
        "holdings": _four(holdings),
        "played": tuple(played),
        "played_mask": (state.played_mask & ~(1 << old)) | 1 << card,
    }
    if not done:
        changes["trick"] = new_cards
    else:
        assert state.contract is not None
        w = (leader + trick_winner_index(new_cards, state.contract)) & 3
        was = state.trick_winners[-1]
        if w != was:
            t = list(state.tricks)
            t[was & 1] -= 1
            t[w & 1] += 1
            changes.update(
                tricks=(t[0], t[1]),
                trick_winners=(*state.trick_winners[:-1], w),
                leader=w,
                to_play=w,
            )
    # a card taken back is no longer a revoke of this trick
    index = len(state.trick_winners) - (1 if done else 0)
    revokes = tuple(r for r in irr.revokes if not (r.seat == seat and r.trick == index))
    irr = dataclasses.replace(irr, exposed=_four(exposed), revokes=revokes)
    return state.replace(**changes), irr


def _reject_lead(state: State, irr: LawsHand, action: RejectLead) -> State:
    """Take the trick led out of turn back and apply the remedy (§6.6)."""
    assert irr.wrong_lead is not None
    offender, due = irr.wrong_lead
    holdings = list(state.holdings)
    mask = state.played_mask
    for pos, card in enumerate(state.trick):
        holdings[(state.leader + pos) & 3] |= 1 << card
        mask &= ~(1 << card)
    exposed = list(irr.exposed)
    penalty = irr.lead_penalty
    if action.remedy == "expose":
        exposed[offender] |= 1 << state.trick[0]
    else:
        penalty = offender & 1
    index = len(state.trick_winners)
    irr = dataclasses.replace(
        irr,
        wrong_lead=None,
        exposed=_four(exposed),
        lead_penalty=penalty,
        called=None,
        revokes=tuple(r for r in irr.revokes if r.trick != index),
    )
    return state.replace(
        holdings=_four(holdings),
        played=state.played[: len(state.played) - len(state.trick)],
        played_mask=mask,
        trick=(),
        leader=due,
        first_leader=due if index == 0 else state.first_leader,
        irregular=irr,
    )


def _settle(variant: Variant, state: State, history: _Link) -> State:
    """Who acts next: a pending decision's seat, else the seat whose turn it is."""
    irr = hand_state(state)
    if (
        irr.pending is None
        and not state.trick
        and irr.lead_penalty is not None
        and state.leader & 1 == irr.lead_penalty
    ):
        irr = dataclasses.replace(irr, pending="name_suit", decider=left(state.leader))
    to_play = irr.decider if irr.pending is not None else natural_to_play(state)
    return state.replace(irregular=irr, to_play=to_play, history=history)


# -- the end of the hand ----------------------------------------------------------------------


def claimant_seat(side: int) -> Seat:
    """The seat asked to claim for a side: S for NS (the app's human), W for EW."""
    return 2 if side == 0 else 3


def finish(variant: Variant, state: State) -> State:
    """After the 13th trick: rule on the revokes, ask for claims, then score (§6.3-6.4)."""
    irr = hand_state(state)
    revokes = tuple(dataclasses.replace(r, established=True) for r in irr.revokes)
    irr = dataclasses.replace(irr, revokes=revokes)
    counts = [0, 0]
    for r in revokes:
        counts[r.seat & 1] += 1
    state = state.replace(irregular=irr)
    if counts[0] and counts[1] and variant.options.both_sides_revoke == "redeal":
        return _void(state, irr)
    surplus = counts[0] - counts[1]
    offenders = (0,) * surplus if surplus > 0 else (1,) * -surplus
    if offenders:
        claimants = offenders[0] ^ 1
        if not variant.options.auto_claim and not irr.claim_done:
            return _ask_claimants(state, irr, "claim", claimants)
        if irr.claim_done and not irr.claimed:
            offenders = ()
        elif (
            getattr(variant.options, "revoke_method", None) == "claimant_choice"
            and irr.method is None
        ):
            return _ask_claimants(state, irr, "method", claimants)
    irr = dataclasses.replace(irr, pending=None, penalised=offenders)
    state = state.replace(irregular=irr)
    if offenders and not variant.points_penalties:
        irr = dataclasses.replace(irr, played_tricks=state.tricks)
        state = state.replace(irregular=irr, tricks=transfer_tricks(state, offenders))
    return variant.settle_hand(state)


def _ask_claimants(state: State, irr: LawsHand, pending: str, side: int) -> State:
    """Stop the end of the hand until the claimant of ``side`` makes the ``pending`` choice."""
    irr = dataclasses.replace(irr, pending=pending, decider=claimant_seat(side))
    return state.replace(irregular=irr, to_play=irr.decider)


def transfer_tricks(state: State, offenders: tuple[int, ...]) -> tuple[int, int]:
    """[D11]: each penalised revoke moves 3 tricks against the offenders.

    In a trick-taking contract up to 3 of the offenders' tricks go to the other side; in
    a misère (Nóló, nollspel) up to 3 of the other side's tricks go to the offenders.
    """
    assert state.contract is not None
    t = [state.tricks[0], state.tricks[1]]
    for side in offenders:
        giver = side ^ 1 if state.contract.misere else side
        moved = min(3, t[giver])
        t[giver] -= moved
        t[giver ^ 1] += moved
    return t[0], t[1]


def _void(state: State, irr: LawsHand) -> State:
    """Both sides revoked: the deal is void and the same dealer deals again (§6.4)."""
    assert state.contract is not None
    extra: dict[str, Any] = {
        "void": True,
        "revokes": revokes_summary(irr.revokes),
        "turned": state.turned,
        "declarer": state.contract.declarer,
    }
    result = HandResult(
        number=state.hand_number,
        dealer=state.dealer,
        leader=state.first_leader,
        contract=state.contract,
        tricks=state.tricks,
        points=(0, 0),
        score=state.score,
        extra=extra,
    )
    return state.replace(phase=DEAL, results=(*state.results, result), to_play=-1, irregular=None)


def revokes_summary(revokes: tuple[Revoke, ...]) -> list[dict[str, Any]]:
    return [
        {"seat": seat_name(r.seat), "trick": r.trick + 1, "card": card_name(r.card)}
        for r in revokes
    ]


# -- views ---------------------------------------------------------------------------------------


def public(state: State, seat: Seat) -> dict[str, Any]:
    """Laws-mode facts every seat sees: exposed cards, calls, wrong leads, decisions."""
    irr = state.irregular
    if not isinstance(irr, LawsHand) or state.phase != PLAY:
        return {}
    info: dict[str, Any] = {}
    exposed = {
        seat_name(s): [card_name(c) for c in iter_cards(irr.exposed[s])]
        for s in range(4)
        if irr.exposed[s]
    }
    if exposed:
        info["exposed"] = exposed
    if irr.called is not None:
        info["called"] = card_name(irr.called)
    if irr.wrong_lead is not None:
        info["led out of turn"] = seat_name(irr.wrong_lead[0])
    if irr.named_suit is not None and irr.named_suit[1] >= 0:
        info["must lead"] = f"{seat_name(irr.named_suit[0])} {SUIT_NAMES[irr.named_suit[1]]}"
    if irr.pending is not None:
        info["waiting for"] = f"{seat_name(irr.decider)}: {_pending_text(irr)}"
    if irr.replace_rights and seat in irr.replace_rights:
        info["you may replace your card"] = True
    own = [r for r in irr.revokes if r.seat == seat and not r.established]
    if own:
        info["your revoke"] = card_name(own[0].card)
    info["trick leaders"] = [seat_name(s) for s in (*irr.leaders, state.leader)]
    return info


def _pending_text(irr: LawsHand) -> str:
    return {
        "name_suit": "name a suit for the lead",
        "correction_penalty": "rule on the corrected revoke",
        "claim": "claim the revoke or not",
        "method": "choose the revoke penalty",
    }.get(irr.pending or "", "")


__all__ = [
    "Call",
    "ChooseMethod",
    "ClaimRevoke",
    "Correct",
    "CorrectionPenalty",
    "Expose",
    "LawsHand",
    "LeadOutOfTurn",
    "NameSuit",
    "RejectLead",
    "Replace",
    "Revoke",
    "WaiveClaim",
    "claimant_seat",
    "lawful_mask",
    "public",
    "transfer_tricks",
]
