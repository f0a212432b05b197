"""whistkit's games as OpenSpiel games registered from Python (docs/env.md).

``import whistkit.env.openspiel`` registers ``whistkit_felagsvist``, ``whistkit_swedish``,
``whistkit_english`` and ``whistkit_american`` (default options; the game parameter
``options`` takes the variant's options as JSON). Chance picks the first dealer (4
outcomes), then deals each hand card by card, clockwise from the dealer's left as
:func:`whistkit.deal.deal_cards` does (the last card is the dealer's, turned up in classic
whist). Players act with the same 52 action indices as the PettingZoo environment; the
returns at the end are +1 for the winning side, -1 for the losing one, 0 for a draw.

The observation tensor is the environment's encoding of the player's view
(:mod:`whistkit.env.encoding`); the information-state tensor adds the order in which this
hand's cards were played (52 slots of 52), which makes it perfect recall within the hand:
an earlier hand bears on the rest of the game only through the public score and dealer.
The information-state string is perfect recall over the whole game.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]

from ..bots.sampling import sample_deals
from ..cards import card_name, iter_cards
from ..seats import left, seat_name
from ..state import BID, DEAL, OVER, PLAY, Deal, SpecialAction, State, new_game
from ..variants import VARIANTS
from ..variants.base import Variant, winner_of
from .aec import new_variant, result_of
from .encoding import NUM_ACTIONS, OBS_SIZE, action_index, encode

PLAY_ORDER = 52 * 52
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_CHANCE = int(pyspiel.PlayerId.CHANCE)
# a generous bound on a game's hands (Félagsvist 12, Swedish at most 25, American 13, an
# English rubber at most 3 games of 9); every hand is 52 deals, 4 bottom cards, 52 plays
MAX_HANDS = 40
MAX_GAME_LENGTH = 1 + MAX_HANDS * (52 + 4 + 52)


def game_name(variant: str) -> str:
    return f"whistkit_{variant}"


def _game_type(variant: str) -> Any:
    return pyspiel.GameType(
        short_name=game_name(variant),
        long_name=f"whistkit {variant}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=4,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"options": "{}", "max_hands": 0},
    )


_GAME_INFO = pyspiel.GameInfo(
    num_distinct_actions=NUM_ACTIONS,
    max_chance_outcomes=52,
    num_players=4,
    min_utility=-1.0,
    max_utility=1.0,
    utility_sum=0.0,
    max_game_length=MAX_GAME_LENGTH,
)


class WhistGame(pyspiel.Game):  # type: ignore[misc]
    """One variant with its options as an OpenSpiel game."""

    variant_name = "felagsvist"

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        super().__init__(_game_type(self.variant_name), _GAME_INFO, params)
        raw = params.get("options", "{}")
        options = json.loads(raw) if isinstance(raw, str) else raw
        self.variant: Variant = new_variant(self.variant_name, options)
        # a game cut short after this many hands (0: the whole game), won on the score
        self.max_hands = int(params.get("max_hands", 0))

    def new_initial_state(self) -> WhistState:
        return WhistState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> WhistObserver:
        return WhistObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class _Shared:
    """Something immutable that a clone shares instead of copying (OpenSpiel clones a
    Python state with ``deepcopy``; a whistkit state is immutable and its history long)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled (OpenSpiel's serialisation) as the variant and the actions, short
        v = self.value
        if isinstance(v, State):
            first = v.results[0].dealer if v.results else v.dealer
            spec = (v.variant.name, v.variant.options_dict())
            return (_replayed, (spec, first, v.actions()))
        return (_variant_shared, (v.name, v.options_dict()))


def _variant_shared(name: str, options: dict[str, Any]) -> _Shared:
    return _Shared(new_variant(name, options))


def _replayed(spec: tuple[str, dict[str, Any]], first: int, actions: list[Any]) -> _Shared:
    state = new_game(new_variant(*spec), dealer=first)
    for action in actions:
        state = state.apply(action)
    return _Shared(state)


class WhistState(pyspiel.State):  # type: ignore[misc]
    """A whistkit :class:`~whistkit.state.State` plus the deal in progress."""

    def __init__(self, game: WhistGame) -> None:
        super().__init__(game)
        self._variant = _Shared(game.variant)
        self._state = _Shared(new_game(game.variant))
        self.max_hands: int = game.max_hands
        self.dealer_chosen = False
        self.dealt: list[int] = []  # the cards dealt so far of the hand being dealt

    @property
    def state(self) -> State:
        """The whistkit state (immutable; each action makes a new one)."""
        st: State = self._state.value
        return st

    @state.setter
    def state(self, value: State) -> None:
        self._state = _Shared(value)

    @property
    def variant(self) -> Variant:
        v: Variant = self._variant.value
        return v

    # -- whose turn ----------------------------------------------------------------------

    def _cut(self) -> bool:
        return 0 < self.max_hands <= len(self.state.results)

    def current_player(self) -> int:
        st: State = self._state.value  # asked before and after every action: kept short
        phase = st.phase
        if phase == OVER or 0 < self.max_hands <= len(st.results):
            return _TERMINAL
        if phase == DEAL or not self.dealer_chosen:
            return _CHANCE
        return st.to_play

    def _legal_actions(self, player: int) -> list[int]:
        st = self.state
        if st.phase == PLAY:  # strict play: the cards, lowest first
            return list(iter_cards(st.legal_mask()))
        return sorted(action_index(a) for a in st.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.dealer_chosen:
            return [(d, 0.25) for d in range(4)]
        left_cards = sorted(set(range(52)) - set(self.dealt))
        p = 1.0 / len(left_cards)
        return [(c, p) for c in left_cards]

    def _apply_action(self, action: int) -> None:
        if not self.dealer_chosen:
            self.state = new_game(self.variant, dealer=action)
            self.dealer_chosen = True
            return
        if self.state.needs_deal:
            self.dealt.append(action)
            if len(self.dealt) == 52:
                hands = [0, 0, 0, 0]
                seat = left(self.state.dealer)
                for c in self.dealt:
                    hands[seat] |= 1 << c
                    seat = left(seat)
                turned = self.dealt[-1] if self.variant.uses_turned_card else None
                self.dealt = []
                self.state = self.state.apply(
                    Deal((hands[0], hands[1], hands[2], hands[3]), turned)
                )
            return
        s = self.state
        self.state = s.apply(self.variant.card_action(s, s.to_play, action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            if not self.dealer_chosen:
                return f"dealer {seat_name(action)}"
            return f"deal {card_name(action)}"
        if self.state.phase == BID:
            return f"bottom {card_name(action)}"
        return card_name(action)

    def is_terminal(self) -> bool:
        st: State = self._state.value
        return st.phase == OVER or 0 < self.max_hands <= len(st.results)

    def returns(self) -> list[float]:
        st = self.state
        if st.is_over:
            return [result_of(st.winner, p & 1) for p in range(4)]
        if self._cut():
            return [result_of(winner_of(st.score), p & 1) for p in range(4)]
        return [0.0, 0.0, 0.0, 0.0]

    def __str__(self) -> str:
        s = self.state
        hands = " ".join(
            f"{seat_name(i)}:{','.join(card_name(c) for c in range(52) if h >> c & 1)}"
            for i, h in enumerate(s.holdings)
        )
        return f"{s!r} {hands} dealt={len(self.dealt)}"

    # -- determinisation -------------------------------------------------------------------

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float] | None = None
    ) -> WhistState:
        """A state with this player's information state, the hidden cards dealt afresh
        uniformly among the deals consistent with it (the bots' constrained dealing)."""
        seed = int(probability_sampler() * 2**53) if probability_sampler else 0
        return resample(self, player_id, random.Random(seed))


def _deck_of(hands: tuple[int, ...], dealer: int, turned: int | None) -> list[int]:
    """A dealing order (chance actions) that gives ``hands``, ``turned`` dealt last."""
    per_seat = [[c for c in range(52) if h >> c & 1] for h in hands]
    if turned is not None:
        cards = per_seat[dealer]
        cards.remove(turned)
        cards.append(turned)
    deck = []
    seat = left(dealer)
    for i in range(52):
        deck.append(per_seat[seat][i // 4])
        seat = left(seat)
    return deck


def chance_actions(state: State) -> list[int]:
    """The OpenSpiel actions (chance and players) that play whistkit game ``state``."""
    out = [state.results[0].dealer if state.results else state.dealer]
    first_dealer = out[0]
    dealer = first_dealer
    number = 0
    for action in state.actions():
        if isinstance(action, Deal):
            if number < len(state.results):
                dealer = state.results[number].dealer
            else:
                dealer = state.dealer
            out.extend(_deck_of(action.hands, dealer, action.turned))
            number += 1
        else:
            out.append(action_index(action))
    return out


def resample(os_state: WhistState, player: int, rng: random.Random) -> WhistState:
    """See :meth:`WhistState.resample_from_infostate`."""
    st = os_state.state
    game = os_state.get_game()
    if not os_state.dealer_chosen or st.is_over:
        return os_state.clone()  # type: ignore[no-any-return]
    history = st.actions()
    # the hands before the current one are public by their end, all but the bottom cards
    # a Swedish seat committed and nobody saw: those are dealt afresh from its hand
    new_actions: list[Any] = []
    hand_start = max(i for i, a in enumerate(history) if isinstance(a, Deal)) if history else 0
    current_deal: Deal | None = None
    world: tuple[int, int, int, int] | None = None
    if not st.needs_deal and history:
        view = st.view(player)
        held = sample_deals(view, 1, rng)[0]
        played_by = [0, 0, 0, 0]
        for seat, card in view.plays():
            played_by[seat] |= 1 << card
        world = (
            held[0] | played_by[0],
            held[1] | played_by[1],
            held[2] | played_by[2],
            held[3] | played_by[3],
        )
        deal = history[hand_start]
        assert isinstance(deal, Deal)
        current_deal = Deal(world, deal.turned)
    hand = -1
    dealt_hands: tuple[int, ...] = (0, 0, 0, 0)
    for i, action in enumerate(history):
        if isinstance(action, Deal):
            hand += 1
            if i == hand_start and current_deal is not None:
                action = current_deal
            dealt_hands = action.hands
        elif isinstance(action, SpecialAction) and action.seat != player:
            revealed = _revealed(st, hand)
            if action.seat not in revealed:
                card = rng.choice([c for c in range(52) if dealt_hands[action.seat] >> c & 1])
                action = type(action)(action.seat, card)  # type: ignore[call-arg]
        new_actions.append(action)
    out = game.new_initial_state()
    first = st.results[0].dealer if st.results else st.dealer
    out.apply_action(first)
    replay = new_game(os_state.variant, dealer=first)
    for action in new_actions:
        if isinstance(action, Deal):
            for c in _deck_of(action.hands, replay.dealer, action.turned):
                out.apply_action(c)
        else:
            out.apply_action(action_index(action))
        replay = out.state
    for c in os_state.dealt:  # a deal in progress: the same cards so far
        out.apply_action(c)
    return out  # type: ignore[no-any-return]


def _revealed(state: State, hand: int) -> tuple[int, ...]:
    """The seats whose Swedish bottom card was revealed in hand ``hand`` (0-based)."""
    if hand < len(state.results):
        got: tuple[int, ...] = state.results[hand].extra.get("revealed", ())
        return got
    bidding = state.bidding
    return tuple(getattr(bidding, "revealed", ()))


class WhistObserver:
    """OpenSpiel's Python observer: the tensors and strings of one player's information."""

    def __init__(self, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        size = OBS_SIZE + (PLAY_ORDER if self.perfect_recall else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"view": self.tensor[:OBS_SIZE]}
        if self.perfect_recall:
            self.dict["play_order"] = self.tensor[OBS_SIZE:].reshape(52, 52)

    def set_from(self, state: WhistState, player: int) -> None:
        view = state.state.view(player)
        encode(view, self.tensor[:OBS_SIZE])
        if self.perfect_recall:
            order = self.dict["play_order"]
            order.fill(0.0)
            for k, card in enumerate(view.played):
                order[k, card] = 1.0

    def string_from(self, state: WhistState, player: int) -> str:
        st = state.state
        if not self.perfect_recall:
            view = st.view(player)
            played = " ".join(card_name(c) for c in view.played)
            hand = ",".join(card_name(c) for c in range(52) if view.hand >> c & 1)
            return (
                f"p{player} hand {view.hand_number} {view.phase} score {view.score}"
                f" contract {view.contract.code if view.contract else '-'}"
                f" dealer {seat_name(view.dealer)} to_play {view.to_play} hand:{hand}"
                f" played:{played} public:{sorted(view.public.items())}"
            )
        return info_state_string(state, player)


def info_state_string(os_state: WhistState, player: int) -> str:
    """Everything ``player`` has seen since the start, in order."""
    st = os_state.state
    if not os_state.dealer_chosen:
        return f"p{player}"
    first = st.results[0].dealer if st.results else st.dealer
    parts = [f"p{player} dealer {seat_name(first)}"]
    hand = -1
    bids = 0
    for action in st.actions():
        if isinstance(action, Deal):
            hand += 1
            bids = 0
            own = ",".join(card_name(c) for c in range(52) if action.hands[player] >> c & 1)
            turned = "" if action.turned is None else f" turned {card_name(action.turned)}"
            parts.append(f"| deal {own}{turned}")
        elif isinstance(action, SpecialAction):
            card = action_index(action)
            parts.append(f"bottom {card_name(card)}" if action.seat == player else "bottom ?")
            bids += 1
            if bids == 4:
                revealed = _revealed(st, hand)
                if hand < len(st.results):
                    committed = st.results[hand].extra["bottom"]
                else:
                    committed = st.bidding.committed
                shown = " ".join(f"{seat_name(s)}:{card_name(committed[s])}" for s in revealed)
                parts.append(f"revealed {shown}")
        else:
            parts.append(card_name(action_index(action)))
    if os_state.dealt:  # the deal in progress: which of its cards came to this player
        dealer = st.dealer
        mine = [
            card_name(c) for i, c in enumerate(os_state.dealt) if (left(dealer) + i) & 3 == player
        ]
        parts.append(f"| dealing {len(os_state.dealt)} {','.join(mine)}")
    return " ".join(parts)


def _register() -> None:
    for name in VARIANTS:
        game_class = type(f"WhistGame_{name}", (WhistGame,), {"variant_name": name})
        pyspiel.register_game(_game_type(name), game_class)


_register()


def load_game(variant: str, options: dict[str, Any] | None = None, max_hands: int = 0) -> Any:
    """``pyspiel.load_game`` of a variant with options (``max_hands``: cut the game short
    after that many hands, won on the score then)."""
    return pyspiel.load_game(
        game_name(variant), {"options": json.dumps(options or {}), "max_hands": max_hands}
    )


__all__ = [
    "MAX_GAME_LENGTH",
    "WhistGame",
    "WhistObserver",
    "WhistState",
    "chance_actions",
    "game_name",
    "info_state_string",
    "load_game",
    "resample",
]
