"""The table: one object per game that takes human and bot moves alike.

Like lichess's round actor, a :class:`Table` owns the game's state, validates every
action against the rules, stores the game before it acknowledges anything, and publishes
numbered events. Each event says what each seat may see of it: a seat that may not see
an event still gets its version number, so a client that reconnects with the last version
it saw catches up without gaps, and nothing hidden ever leaves the server.

Any seat may be a person's connection; the others are bots that play on the server after
a short pause so that a person can follow the play.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import random
import secrets
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..bots import DEFAULT_LEVEL, LEVELS, Bot, make_bot, play_level
from ..cards import card_name, iter_cards, sorted_for_display
from ..deal import deal_cards
from ..record import dumps, loads, replay
from ..seats import SEATS, SIDES, Seat, seat_name
from ..state import PLAY, Action, Deal, IllegalAction, SpecialAction, State, new_game
from ..variants import Variant, get_variant, laws, variant_of
from .protocol import action_to_json, result_json, sides, to_json_value, view_json
from .store import Store, StoredGame

HUMAN = "human"
# laws-mode actions a seat may take when it is not its turn to play (view's "irregular")
OUT_OF_TURN = frozenset({"Correct", "Call", "Replace", "RejectLead"})
BOT_PREFIX = "bot:"


class TableError(ValueError):
    """An action the table refuses; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Event:
    """One numbered event: what everyone sees (``public``) and what only some seats see.

    ``public`` is None when the other seats may see nothing of it but its number.
    """

    version: int
    public: Mapping[str, Any] | None
    private: Mapping[Seat, Mapping[str, Any]] = field(default_factory=dict)

    def for_seat(self, seat: Seat) -> dict[str, Any] | None:
        """The event as ``seat`` may see it, or None (only the version)."""
        if seat in self.private:
            return {**(self.public or {}), **self.private[seat]}
        return None if self.public is None else dict(self.public)


Subscriber = asyncio.Queue[dict[str, Any]]


class Table:
    """One game in play. Build with :meth:`create` or :meth:`load`, never directly."""

    def __init__(
        self,
        game_id: str,
        variant: Variant,
        seed: int,
        seats: Mapping[Seat, str],
        store: Store,
        bot_delay: float,
        tokens: Mapping[Seat, str] | None = None,
    ) -> None:
        self.id = game_id
        self.seed = seed
        self.seats = dict(seats)
        # a person's seat is joined with its secret token; a bot's seat is never joined
        self.tokens = dict(tokens or {})
        self.store = store
        self.bot_delay = bot_delay
        self.deal_rng = random.Random(seed)
        first_dealer = self.deal_rng.randrange(4)
        self.state: State = new_game(variant, dealer=first_dealer)
        self.events: list[Event] = []
        self.bots: dict[Seat, Bot] = {
            s: make_bot(who[len(BOT_PREFIX) :])
            for s, who in self.seats.items()
            if who.startswith(BOT_PREFIX)
        }
        self.subscribers: list[tuple[Seat, Subscriber]] = []
        self._bot_task: asyncio.Task[None] | None = None
        self.closed = False
        # called when nobody watches and no bot is thinking, so memory can be freed
        self.on_idle: Callable[[Table], None] | None = None

    # -- building -----------------------------------------------------------------

    @classmethod
    def create(
        cls,
        store: Store,
        variant: str,
        options: Mapping[str, Any] | None = None,
        *,
        seed: int | None = None,
        seats: Mapping[Seat, str] | None = None,
        bot_delay: float = 0.0,
        game_id: str | None = None,
    ) -> Table:
        """A new game, stored with its first hand dealt. Raises OptionError, ValueError."""
        v = get_variant(variant, options)
        if seats is None:  # a person at S, bots elsewhere
            seats = {s: HUMAN if s == 2 else BOT_PREFIX + DEFAULT_LEVEL for s in range(4)}
        if sorted(seats) != [0, 1, 2, 3]:
            raise ValueError("seats must name a player for each of N, E, S and W")
        for s, who in seats.items():
            if who != HUMAN and not (
                who.startswith(BOT_PREFIX) and who[len(BOT_PREFIX) :] in LEVELS
            ):
                raise ValueError(
                    f"seat {seat_name(s)}: {who!r} is neither 'human' nor a bot level"
                    f" ({', '.join(BOT_PREFIX + k for k in LEVELS)})"
                )
        if seed is None:
            seed = secrets.randbits(31)
        game_id = game_id or secrets.token_hex(6)
        tokens = {s: secrets.token_urlsafe(16) for s, w in seats.items() if w == HUMAN}
        table = cls(game_id, v, seed, seats, store, bot_delay, tokens)
        store.create(
            game_id,
            v.name,
            seed,
            {seat_name(s): w for s, w in seats.items()},
            {seat_name(s): t for s, t in tokens.items()},
        )
        table._deal_if_needed()
        table._save()
        return table

    @classmethod
    def load(cls, store: Store, row: StoredGame, bot_delay: float = 0.0) -> Table:
        """A stored game, resumed by replaying its record (docs/records.md)."""
        record = loads(row.record)
        final = replay(record)
        seats = {SEATS.index(k): w for k, w in row.seats.items()}
        tokens = {SEATS.index(k): t for k, t in row.tokens.items()}
        table = cls(row.id, variant_of(final), row.seed, seats, store, bot_delay, tokens)
        # the same first dealer and deals as the seed gave; rebuild the events in order
        first_dealer = record.hands[0].dealer if record.hands else table.state.dealer
        table.state = new_game(final.variant, dealer=first_dealer)
        for hand in record.hands:
            deal_cards(table.deal_rng, hand.dealer)
        for action in final.actions():
            table._apply(action)
        if table.state.needs_deal:
            table._deal_if_needed()
            table._save()
        return table

    # -- queries ------------------------------------------------------------------

    @property
    def version(self) -> int:
        """The number of the last event (0 before any)."""
        return len(self.events)

    @property
    def variant(self) -> Variant:
        return variant_of(self.state)

    def players(self) -> dict[Seat, str]:
        """Display names per seat for the record and the page."""
        return {
            s: ("You" if w == HUMAN else f"Bot ({w[len(BOT_PREFIX) :]})")
            for s, w in sorted(self.seats.items())
        }

    def check_token(self, seat: Seat, token: object) -> None:
        """Raise :class:`TableError` unless ``token`` opens ``seat``."""
        if self.seats.get(seat) != HUMAN:
            raise TableError("bad_seat", f"seat {seat_name(seat)} is played by a bot")
        expected = self.tokens.get(seat, "")
        if not isinstance(token, str) or not hmac.compare_digest(token, expected):
            raise TableError(
                "forbidden", f"seat {seat_name(seat)} of game {self.id} needs its token"
            )

    def view_of(self, seat: Seat) -> dict[str, Any]:
        """The seat's view as protocol JSON, with the match's public standing (games won,
        the rubber: what ``whistkit replay`` lists beside the hands)."""
        out = view_json(self.state.view(seat), self.players())
        out["match"] = to_json_value(self.variant.summary_match(self.state))
        out["irregular"] = [action_to_json(a) for a in self.irregular_actions(seat)]
        return out

    def irregular_actions(self, seat: Seat) -> list[Action]:
        """Laws mode: what ``seat`` may do now beyond its lawful ``legal`` actions.

        A card that does not follow suit (a revoke, ruled on by docs/rules.md §6), the
        correction of its own revoke while it is not established, the call of an
        opponent's exposed card, the replacement of a card played after a corrected revoke,
        and the rejection of a lead out of turn. Leading out of turn and exposing a card
        by accident are not offered.
        """
        state = self.state
        if not self.variant.laws or state.phase != PLAY or self.seats.get(seat) != HUMAN:
            return []
        legal = state.legal_actions() if state.to_play == seat else []
        candidates: list[Action] = []
        if state.to_play == seat and not any(isinstance(a, SpecialAction) for a in legal):
            candidates += iter_cards(state.holdings[seat])
        candidates += [
            cls(seat, card) for cls in (laws.Correct, laws.Call, laws.Replace) for card in range(52)
        ]
        candidates += [laws.RejectLead(seat, remedy) for remedy in laws.REMEDIES]
        return [a for a in candidates if a not in legal and state.is_legal(a)]

    def events_since(self, seat: Seat, since: int) -> list[dict[str, Any]]:
        """Event messages after version ``since`` as ``seat`` may see them."""
        return [
            {"type": "event", "v": e.version, "event": e.for_seat(seat)}
            for e in self.events[since:]
        ]

    def record_json(self) -> str:
        """The game's record (docs/records.md)."""
        return dumps(self.state, self.players())

    # -- acting -------------------------------------------------------------------

    def act(self, seat: Seat, action: Action) -> int:
        """A person's action at ``seat``: validated, applied, stored, then published.

        Returns the version after it. Raises :class:`TableError` and changes nothing if
        the action is refused.
        """
        if self.state.is_over:
            raise TableError("game_over", f"game {self.id} is over ({self.state.winner})")
        if self.seats.get(seat) != HUMAN:
            raise TableError("bad_seat", f"seat {seat_name(seat)} is played by a bot")
        self._act(seat, action)
        self.wake_bots()
        return self.version

    def hint_job(self, seat: Seat, level: str | None = None) -> tuple[int, Callable[[], Action]]:
        """What a strong player would do at ``seat`` now: ``(version, job)``, where
        ``job()`` (slow: run it off the event loop) returns the action a ``level`` bot
        (default :func:`whistkit.bots.play_level`: ``expert``, or ``club`` without the
        solver's compiled core) chooses from the seat's view alone.

        The bot gets ``state.view(seat)`` and a random generator seeded by the game, the
        seat and the version, so the same position gives the same hint; nothing of the
        game changes. Raises :class:`TableError` unless ``seat`` is a person's and is to
        act in a game that is not over.
        """
        state = self.state
        if state.is_over:
            raise TableError("game_over", f"game {self.id} is over ({state.winner})")
        if self.seats.get(seat) != HUMAN:
            raise TableError("bad_seat", f"seat {seat_name(seat)} is played by a bot")
        if state.to_play != seat or not state.legal_actions():
            raise TableError(
                "not_your_turn", "a hint is given on your turn only: " + self._turn_text(seat)
            )
        view = state.view(seat)
        rng = random.Random(f"{self.id}:hint:{seat_name(seat)}:{self.version}")
        bot = make_bot(level or play_level())
        return self.version, lambda: bot.choose(view, rng)

    def parse_action(self, seat: Seat, message: Mapping[str, Any]) -> Action:
        """The legal special action equal to a message's ``action`` object."""
        wanted = message.get("action")
        if not isinstance(wanted, dict):
            raise TableError("malformed", "'action' must be an object listed in the view's legal")
        for a in self.irregular_actions(seat):  # laws mode: calls, corrections, ...
            if isinstance(a, SpecialAction) and action_to_json(a)["action"] == wanted:
                return a
        if self.variant.laws and wanted.get("kind") in OUT_OF_TURN:
            raise TableError(
                "illegal",
                f"{wanted!r} is not one of the actions open to {seat_name(seat)} now"
                " (view's irregular)",
            )
        if self.state.to_play != seat:
            raise TableError("not_your_turn", self._turn_text(seat))
        for a in self.state.legal_actions():
            if isinstance(a, SpecialAction) and action_to_json(a)["action"] == wanted:
                return a
        raise TableError("illegal", f"{wanted!r} is not one of the legal actions now")

    def _turn_text(self, seat: Seat) -> str:
        s = self.state
        if s.to_play < 0:
            return f"nobody is to act in game {self.id}"
        return (
            f"it is {seat_name(s.to_play)}'s turn, not {seat_name(seat)}'s"
            f" (hand {s.hand_number}, trick {s.trick_number})"
        )

    def _act(self, seat: Seat, action: Action) -> None:
        state = self.state
        actor = action.seat if isinstance(action, SpecialAction) else state.to_play
        if actor != seat or (state.to_play != seat and not isinstance(action, SpecialAction)):
            raise TableError("not_your_turn", self._turn_text(seat))
        try:
            state.check(action)
        except IllegalAction as e:
            raise TableError("illegal", str(e)) from None
        first_new = len(self.events)
        rng_state = self.deal_rng.getstate()
        try:
            self._apply(action)
            self._deal_if_needed()
            self._save()  # stored before anyone hears of it
        except (sqlite3.Error, OSError) as e:
            # nothing was acknowledged: forget the action, as if it never came
            self.state = state
            del self.events[first_new:]
            self.deal_rng.setstate(rng_state)
            raise TableError("storage", f"the game could not be stored, try again: {e}") from None
        self._publish(first_new)

    def _apply(self, action: Action) -> None:
        """Apply an action and append its events (no storing, no publishing)."""
        before = self.state
        after = before.apply(action)
        self.state = after
        if isinstance(action, Deal):
            public: dict[str, Any] = {
                "type": "deal",
                "hand_number": after.hand_number,
                "dealer": seat_name(after.dealer),
            }
            if action.turned is not None:
                public["turned"] = card_name(action.turned)
            private = {
                s: {"hand": [card_name(c) for c in sorted_for_display(action.hands[s])]}
                for s in range(4)
            }
            self._event(public, private)
            return
        if isinstance(action, SpecialAction):
            shown = {"action": action_to_json(action)["action"]}
            if type(action).__module__ == laws.__name__:
                # laws-mode actions are made openly at the table: everyone sees them
                self._event({"type": "action", "seat": seat_name(action.seat), **shown})
            else:  # a Swedish bottom card: only its owner sees it before the reveal
                self._event(
                    {"type": "action", "seat": seat_name(action.seat)}, {action.seat: shown}
                )
        else:
            event: dict[str, Any] = {
                "type": "play",
                "seat": seat_name(before.to_play),
                "card": card_name(action),
            }
            if len(after.trick_winners) > len(before.trick_winners):
                event["trick_complete"] = True
                event["winner"] = seat_name(after.trick_winners[-1])
            self._event(event)
        if len(after.results) > len(before.results):
            self._event({"type": "hand_end", "result": result_json(after.results[-1])})
        if after.is_over and not before.is_over:
            self._event({"type": "game_over", "winner": after.winner, "score": sides(after.score)})

    def _event(
        self,
        public: Mapping[str, Any] | None,
        private: Mapping[Seat, Mapping[str, Any]] | None = None,
    ) -> None:
        self.events.append(Event(len(self.events) + 1, public, dict(private or {})))

    def _deal_if_needed(self) -> None:
        if not self.state.needs_deal:
            return
        dealt = deal_cards(self.deal_rng, self.state.dealer)
        turned = dealt.last_card if self.variant.uses_turned_card else None
        self._apply(Deal(dealt.hands, turned))

    def _save(self) -> None:
        s = self.state
        self.store.save(
            self.id,
            self.record_json(),
            self.version,
            finished=s.is_over,
            winner=s.winner,
            score={SIDES[0]: s.score[0], SIDES[1]: s.score[1]},
        )

    # -- publishing ---------------------------------------------------------------

    def subscribe(self, seat: Seat, queue: Subscriber) -> None:
        """Put this seat's event messages into ``queue`` from now on."""
        self.subscribers.append((seat, queue))

    def unsubscribe(self, queue: Subscriber) -> None:
        """Stop sending to ``queue``; the table may then be freed from memory."""
        self.subscribers = [(s, q) for s, q in self.subscribers if q is not queue]
        self._check_idle()

    @property
    def idle(self) -> bool:
        """Nobody is connected and no bot is about to act."""
        running = self._bot_task is not None and not self._bot_task.done()
        return not self.subscribers and not running

    def _check_idle(self) -> None:
        if self.on_idle is not None and self.idle:
            self.on_idle(self)

    def _publish(self, first_new: int) -> None:
        new = self.events[first_new:]
        for seat, queue in self.subscribers:
            view = self.view_of(seat)
            for i, e in enumerate(new):
                msg: dict[str, Any] = {"type": "event", "v": e.version, "event": e.for_seat(seat)}
                if i == len(new) - 1:
                    msg["view"] = view
                queue.put_nowait(msg)

    # -- bots ---------------------------------------------------------------------

    def wake_bots(self) -> None:
        """Start the bots' loop if a bot is to act (call from the event loop)."""
        if self.closed or self.state.is_over or self.state.to_play not in self.bots:
            return
        if self._bot_task is None or self._bot_task.done():
            self._bot_task = asyncio.get_running_loop().create_task(self._run_bots())

    async def _run_bots(self) -> None:
        try:
            await self._bot_loop()
        finally:
            self._bot_task = None
            self._check_idle()

    async def _bot_loop(self) -> None:
        while not self.closed:
            state = self.state
            seat = state.to_play
            if state.is_over or seat not in self.bots:
                return
            # a longer pause after a completed trick, so a person sees who won it
            pause = self.bot_delay * (2.5 if not state.trick else 1.0)
            await asyncio.sleep(pause)
            if self.state is not state:  # someone else acted meanwhile; look again
                continue
            rng = random.Random(f"{self.seed}:{seat}:{self.version}")
            # an expert searches for up to a second: think off the event loop so the
            # server keeps answering the other connections meanwhile
            action = await asyncio.to_thread(self.bots[seat].choose, state.view(seat), rng)
            if self.closed or self.state is not state:
                continue
            try:
                self._act(seat, action)
            except TableError as e:
                if e.code != "storage":
                    raise
                await asyncio.sleep(max(self.bot_delay, 0.5))  # the disk may come back

    async def close(self) -> None:
        """Stop the bots' loop."""
        self.closed = True
        if self._bot_task is not None:
            self._bot_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._bot_task


class Tables:
    """The tables in memory, loaded from the store on demand."""

    def __init__(self, store: Store, bot_delay: float = 0.0) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.tables: dict[str, Table] = {}

    def create(self, variant: str, options: Mapping[str, Any] | None, **kwargs: Any) -> Table:
        """A new stored game (see :meth:`Table.create`)."""
        table = Table.create(self.store, variant, options, bot_delay=self.bot_delay, **kwargs)
        self._keep(table)
        return table

    def get(self, game_id: str) -> Table | None:
        """The table of a game, resumed from the store if needed; None if unknown."""
        table = self.tables.get(game_id)
        if table is None:
            row = self.store.get(game_id)
            if row is None:
                return None
            table = Table.load(self.store, row, self.bot_delay)
            self._keep(table)
        return table

    def _keep(self, table: Table) -> None:
        self.tables[table.id] = table
        table.on_idle = self._forget

    def _forget(self, table: Table) -> None:
        """Free an idle table; it is stored, and the next join resumes it."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
            table.closed = True

    async def close(self) -> None:
        """Stop every table's bots (a table freed meanwhile, its page gone, is skipped)."""
        for t in list(self.tables.values()):
            if self.tables.get(t.id) is t:
                await t.close()


__all__ = ["BOT_PREFIX", "HUMAN", "Event", "Table", "TableError", "Tables"]
