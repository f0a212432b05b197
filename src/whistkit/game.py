"""A seeded game with bots at some seats: the loop the terminal game, the server and
the matches share.

The seed fixes everything random: the first dealer and every deal come from one
``random.Random(seed)``, and each bot seat has its own ``random.Random(f"{seed}:{seat}")``
(string seeds are hashed with SHA-512, so they are the same on every machine).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Protocol

from .deal import deal_cards
from .seats import Seat, as_seat
from .state import Action, Deal, State, View, new_game
from .variants import Variant, variant_of


class Bot(Protocol):
    """Anything that picks an action from a view: a bot sees one seat's view and a seeded
    RNG and returns an action. It never sees another seat's cards. (The levels are in
    :mod:`whistkit.bots`, which sits above the core; this is the protocol they meet.)"""

    name: str

    def choose(self, view: View, rng: random.Random) -> Action: ...


class Game:
    """One game: its state, the dealing RNG and the bots. Humans act through :meth:`act`."""

    def __init__(
        self,
        variant: str | Variant = "felagsvist",
        options: Mapping[str, Any] | None = None,
        *,
        seed: int,
        bots: Mapping[Seat, Bot],
    ) -> None:
        self.seed = seed
        self.deal_rng = random.Random(seed)
        self.state: State = new_game(variant, options, dealer=self.deal_rng.randrange(4))
        # seats as 0..3 or "N"...: one bot per seat, keyed 0..3
        self.bots = {as_seat(seat, "a bot's seat"): bot for seat, bot in bots.items()}
        self.bot_rngs = {seat: random.Random(f"{seed}:{seat}") for seat in self.bots}
        self.deal_if_needed()

    @property
    def variant(self) -> Variant:
        return variant_of(self.state)

    def deal_if_needed(self) -> bool:
        """Deal the next hand if the game waits for one."""
        if not self.state.needs_deal:
            return False
        dealt = deal_cards(self.deal_rng, self.state.dealer)
        turned = dealt.last_card if self.variant.uses_turned_card else None
        self.state = self.state.apply(Deal(dealt.hands, turned))
        return True

    def bot_to_act(self) -> Seat | None:
        seat = self.state.to_play
        return seat if seat in self.bots and not self.state.is_over else None

    def bot_step(self) -> tuple[Seat, Action]:
        """Let the bot whose turn it is act; returns who acted and what."""
        seat = self.state.to_play
        bot = self.bots[seat]
        people = [s for s in range(4) if s not in self.bots]
        action = bot.choose(self.state.view(seat).with_people(people), self.bot_rngs[seat])
        self.act(action)
        return seat, action

    def act(self, action: Action) -> None:
        """Apply an action (raises IllegalAction, leaving the game unchanged)."""
        self.state = self.state.apply(action)
        self.deal_if_needed()

    def run_bots(self) -> list[tuple[Seat, Action]]:
        """Let bots act until a human is to act or the game is over."""
        done = []
        while self.bot_to_act() is not None:
            done.append(self.bot_step())
        return done
