"""The table: one object per game that takes human and bot moves alike.

Like lichess's round actor, a :class:`Table` owns the game's state, validates every
action against the rules, stores the game before it acknowledges anything, and publishes
numbered events. Each event says what each seat may see of it: a seat that may not see
an event still gets its version number, so a client that reconnects with the last version
it saw catches up without gaps, and nothing hidden ever leaves the server.

:class:`Tables` is the registry: one live table per game in the process, loaded from the
store on demand and unloaded when it has been idle for a while. An action is applied in
memory, appended to the store's log by the store's writer thread (a group commit, off the
event loop) and only then published and acknowledged; one action at a time per table.

Deals come from the operating system's CSPRNG, unless a person typed a seed for a solo
game (the game is then marked as seeded, and the seed fixes its deals as in the terminal
game). The bots' randomness comes from the game's 256-bit secret, stored with the game and
never sent, so that a bot plays the same after a restart.

Any seat may be a person's connection; the others are bots that play on the server after
a short pause so that a person can follow the play.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import random
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..bots import DEFAULT_LEVEL, LEVELS, make_bot, play_level
from ..cards import card_name, iter_cards, sorted_for_display
from ..deal import deal_cards
from ..record import dumps, loads, replay
from ..seats import SEATS, SIDES, Seat, seat_name
from ..state import (
    PLAY,
    Action,
    Deal,
    HandResult,
    IllegalAction,
    SpecialAction,
    State,
    View,
    new_game,
)
from ..variants import Variant, get_variant, laws, variant_of
from .cluster import Cluster, Elsewhere, Lease
from .log import dumps_action, loads_action
from .protocol import action_to_json, result_json, sides, to_json_value, view_json
from .store import BaseStore, Fenced, Op, StoredGame, StoreError

HUMAN = "human"
# laws-mode actions a seat may take when it is not its turn to play (view's "irregular")
OUT_OF_TURN = frozenset({"Correct", "Call", "Replace", "RejectLead"})
BOT_PREFIX = "bot:"
SECRET_BYTES = 32  # a game's secret: 256 bits from the OS CSPRNG
# a client that reconnects more than this many events behind gets the state, not events
MAX_CATCH_UP = 200
# a bot's choice: (level, the seat's view, a seed for its randomness) -> the action
Think = Callable[[str, View, int], Awaitable[Action]]


def seeded_secret(seed: int) -> bytes:
    """A seeded game's secret: fixed by the seed, so that the same seed plays the same."""
    return hashlib.sha256(f"whistkit-seeded-game:{seed}".encode()).digest()


def choose(level: str, view: View, seed: int) -> Action:
    """A ``level`` bot's choice from ``view`` with randomness from ``seed`` (any thread
    or process: bots keep nothing between choices)."""
    bots: dict[str, Any] | None = getattr(_BOTS, "bots", None)
    if bots is None:
        bots = _BOTS.bots = {}
    bot = bots.get(level)
    if bot is None:  # one per level and thread: a bot's search is not shared by threads
        bot = bots[level] = make_bot(level)
    return bot.choose(view, random.Random(seed))


_BOTS = threading.local()
_log = logging.getLogger("whistkit.server")


def _always() -> bool:
    return True


async def think_in_thread(level: str, view: View, seed: int) -> Action:
    """The default :data:`Think`: a worker thread (an expert searches for up to a second)."""
    return await asyncio.to_thread(choose, level, view, seed)


class TableError(ValueError):
    """An action the table refuses; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# One numbered event, a flat tuple: (version, private, key, value, key, value...), the
# keys and values what everyone sees, or (version, private, None) when the other seats
# may see nothing of it but its number; ``private`` is what only some seats see (None:
# nothing). Flat, of strings and numbers, so that the garbage collector stops tracking a
# card's event the first time it looks at it (an object holding a dict, or a tuple
# holding tuples, stays tracked for one or more collections): a game in play keeps all
# its events, and tracked they were scanned again in every later collection
# (docs/web.md, "Garbage collection").
Event = tuple[Any, ...]


def event_public(event: Event) -> dict[str, Any] | None:
    """What everyone sees of the event (None: only its number)."""
    if len(event) == 3 and event[2] is None:
        return None
    pairs = iter(event[2:])
    return dict(zip(pairs, pairs, strict=True))


def event_for_seat(event: Event, seat: Seat) -> dict[str, Any] | None:
    """The event as ``seat`` may see it, or None (only the version)."""
    public, private = event_public(event), event[1]
    if private is not None and seat in private:
        return {**(public or {}), **private[seat]}
    return public


def event_type(event: Event) -> Any:
    """The ``type`` of what everyone sees of the event (None: they see nothing)."""
    public = event_public(event)
    return None if public is None else public.get("type")


Subscriber = asyncio.Queue[dict[str, Any]]


class Table:
    """One game in play. Build with :meth:`new`, :meth:`create` or :meth:`load`."""

    def __init__(
        self,
        game_id: str,
        variant: Variant,
        seats: Mapping[Seat, str],
        store: BaseStore,
        bot_delay: float,
        tokens: Mapping[Seat, str] | None = None,
        *,
        secret: bytes,
        seeded: bool,
        seed: int = 0,
        first_dealer: Seat | None = None,
        think: Think = think_in_thread,
    ) -> None:
        self.id = game_id
        self.seats = dict(seats)
        # a person's seat is joined with its secret token; a bot's seat is never joined
        self.tokens = dict(tokens or {})
        self.store = store
        self.bot_delay = bot_delay
        self.secret = secret
        self.seeded = seeded
        self.seed = seed
        self.think = think
        # the deals: the typed seed's sequence (as the terminal game deals it), else the OS
        self.deal_rng: random.Random = random.Random(seed) if seeded else secrets.SystemRandom()
        dealer = self.deal_rng.randrange(4)
        if first_dealer is not None:
            dealer = first_dealer
        self.first_dealer = dealer
        self.state: State = new_game(variant, dealer=dealer)
        self.events: list[Event] = []
        self.bots: dict[Seat, str] = {
            s: who[len(BOT_PREFIX) :] for s, who in self.seats.items() if who.startswith(BOT_PREFIX)
        }
        self.subscribers: list[tuple[Seat, Subscriber]] = []
        self._results: dict[int, tuple[HandResult, dict[str, Any]]] = {}
        # view_of's last answer per seat, and players()' (see there)
        self._views: dict[Seat, tuple[State, dict[Seat, str], dict[str, Any]]] = {}
        self._players: tuple[tuple[tuple[Seat, str], ...], dict[Seat, str]] | None = None
        self._bot_task: asyncio.Task[None] | None = None
        self._lock: asyncio.Lock | None = None
        self.logged = 0  # actions in the store's log
        self.unlogged: list[Action] = []  # applied, not yet stored
        self.busy = 0  # actions being stored
        self.closed = False
        self.last_active = time.monotonic()
        # called when nobody watches and no bot is thinking, so memory can be freed
        self.on_idle: Callable[[Table], None] | None = None
        # several processes (whistkit.server.cluster): the owner's fencing token, which
        # every write carries, whether the lease is still held, and who hears it is not
        self.fence: int | None = None
        self.still_owned: Callable[[], bool] = _always
        self.on_lost: Callable[[Table], None] | None = None
        # called once the action that ended the game is stored (an online evening takes
        # the table's result from there)
        self.on_over: Callable[[Table], None] | None = None

    # -- building -----------------------------------------------------------------

    @classmethod
    def new(
        cls,
        store: BaseStore,
        variant: str,
        options: Mapping[str, Any] | None = None,
        *,
        seed: int | None = None,
        seats: Mapping[Seat, str] | None = None,
        bot_delay: float = 0.0,
        game_id: str | None = None,
        think: Think = think_in_thread,
        first_dealer: Seat | None = None,
        secret: bytes | None = None,
    ) -> tuple[Table, list[Op]]:
        """A new game with its first hand dealt, and the statements that store it
        (nothing is stored yet); ``first_dealer`` deals first (default: drawn);
        ``secret`` is the bots' randomness (default: from the seed, else the OS's; a
        duplicate evening's tables share a seed, not their bots' play). Raises
        OptionError, ValueError."""
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
        seeded = seed is not None
        if secret is None:
            secret = seeded_secret(seed) if seed is not None else secrets.token_bytes(SECRET_BYTES)
        game_id = game_id or secrets.token_hex(6)
        tokens = {s: secrets.token_urlsafe(16) for s, w in seats.items() if w == HUMAN}
        table = cls(
            game_id,
            v,
            seats,
            store,
            bot_delay,
            tokens,
            secret=secret,
            seeded=seeded,
            seed=seed or 0,
            first_dealer=first_dealer,
            think=think,
        )
        ops = store.create_ops(
            game_id,
            v.name,
            v.options_dict(),
            {seat_name(s): w for s, w in seats.items()},
            {seat_name(s): t for s, t in tokens.items()},
            secret=secret,
            seeded=seeded,
            seed=seed or 0,
            first_dealer=table.first_dealer,
        )
        table._deal_if_needed()
        return table, ops + table._pending_ops()

    @classmethod
    def create(
        cls, store: BaseStore, variant: str, options: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Table:
        """A new stored game (:meth:`new`, then stored; waits for the disk, so not from
        the event loop: :meth:`Tables.create` is its form there)."""
        table, ops = cls.new(store, variant, options, **kwargs)
        store.write(ops)
        table._stored()
        return table

    @classmethod
    def load(
        cls,
        store: BaseStore,
        row: StoredGame,
        bot_delay: float = 0.0,
        think: Think = think_in_thread,
    ) -> tuple[Table, list[Op]]:
        """A stored game, resumed by replaying its log (slow for a long game: call it off
        the event loop), and the statements still to store: a game stored before the log
        gets its log written, a hand ended without its next deal gets it."""
        logged = [loads_action(a) for a in store.actions(row.id)]
        options = row.options
        first_dealer: int | None = row.first_dealer
        legacy = not logged and bool(row.record)
        if legacy:  # a game stored as its record (before the log)
            record = loads(row.record)
            final = replay(record)
            logged = final.actions()
            options = variant_of(final).options_dict()
            first_dealer = record.hands[0].dealer if record.hands else None
        variant = get_variant(row.variant, options)
        seats = {SEATS.index(k): w for k, w in row.seats.items()}
        tokens = {SEATS.index(k): t for k, t in row.tokens.items()}
        secret = row.secret if row.secret is not None else seeded_secret(row.seed)
        table = cls(
            row.id,
            variant,
            seats,
            store,
            bot_delay,
            tokens,
            secret=secret,
            seeded=row.seeded,
            seed=row.seed,
            first_dealer=first_dealer,
            think=think,
        )
        for action in logged:
            if isinstance(action, Deal) and table.seeded:
                deal_cards(table.deal_rng, table.state.dealer)  # the seed's deals to come
            table._apply(action)
        if legacy:
            table.unlogged = list(logged)
        else:
            table.logged = len(logged)
            table.unlogged.clear()
        table._deal_if_needed()
        ops = table._pending_ops() if table.unlogged else []
        if legacy:
            ops.insert(0, store.legacy_op(row.id, table.first_dealer, variant.options_dict()))
        return table, ops

    # -- queries ------------------------------------------------------------------

    @property
    def version(self) -> int:
        """The number of the last event (0 before any)."""
        return len(self.events)

    @property
    def variant(self) -> Variant:
        return variant_of(self.state)

    def players(self) -> dict[Seat, str]:
        """Display names per seat for the record and the page (made again only when the
        seats change; the same dict otherwise: read it, do not change it)."""
        key = tuple(sorted(self.seats.items()))
        if self._players is None or self._players[0] != key:
            names = {s: ("You" if w == HUMAN else f"Bot ({w[len(BOT_PREFIX) :]})") for s, w in key}
            self._players = (key, names)
        return self._players[1]

    def check_token(self, seat: Seat, token: object) -> None:
        """Raise :class:`TableError` unless ``token`` opens ``seat``."""
        if self.seats.get(seat) != HUMAN:
            raise TableError("bad_seat", f"seat {seat_name(seat)} is played by a bot")
        expected = self.tokens.get(seat, "").encode()
        if not isinstance(token, str) or not hmac.compare_digest(
            token.encode("utf-8", "surrogatepass"), expected
        ):
            raise TableError(
                "forbidden", f"seat {seat_name(seat)} of game {self.id} needs its token"
            )

    def view_of(self, seat: Seat) -> dict[str, Any]:
        """The seat's view as protocol JSON, with the match's public standing (games won,
        the rubber: what ``whistkit replay`` lists beside the hands) and whether the game
        was dealt from a seed a person typed.

        Made once per seat and state (and seats): every socket of the seat, and a join,
        gets the same dict until the game moves on, so read it, do not change it."""
        state, players = self.state, self.players()
        cached = self._views.get(seat)
        if cached is not None and cached[0] is state and cached[1] is players:
            return cached[2]
        view = state.view(seat)
        # the finished hands' results never change: their JSON is made once per game
        results = [self._result_json(r) for r in view.results]
        out = view_json(view, players, results=results)
        out["match"] = to_json_value(self.variant.summary_match(state))
        out["irregular"] = [action_to_json(a) for a in self.irregular_actions(seat)]
        out["seeded"] = self.seeded
        self._views[seat] = (state, players, out)
        return out

    def _result_json(self, result: HandResult) -> dict[str, Any]:
        cached = self._results.get(result.number)
        if cached is None or cached[0] is not result:
            cached = (result, result_json(result))
            self._results[result.number] = cached
        return cached[1]

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
            {"type": "event", "v": e[0], "event": event_for_seat(e, seat)}
            for e in self.events[since:]
        ]

    def record_json(self) -> str:
        """The game's record (docs/records.md)."""
        return dumps(self.state, self.players())

    # -- acting -------------------------------------------------------------------

    def _check_actor(self, seat: Seat, seen: int | None) -> None:
        if self.closed:
            raise TableError("storage", f"game {self.id} was unloaded meanwhile; join again")
        if self.state.is_over:
            raise TableError("game_over", f"game {self.id} is over ({self.state.winner})")
        if self.seats.get(seat) != HUMAN:
            raise TableError("bad_seat", f"seat {seat_name(seat)} is played by a bot")
        if seen is not None and seen != self.version:
            raise TableError(
                "stale",
                f"the action was chosen at version {seen} but the game is at version"
                f" {self.version}; nothing was stored, look at the new view",
            )

    def act(self, seat: Seat, action: Action, seen: int | None = None) -> int:
        """A person's action at ``seat``: validated, applied, stored, then published.

        ``seen`` is the event version the action was chosen at (None: not checked); a
        stale one is refused. Returns the version after it. Raises :class:`TableError` and
        changes nothing if the action is refused. Waits for the disk: from the event loop
        use :meth:`act_async`.
        """
        self._check_actor(seat, seen)
        first_new, undo = self._stage(seat, action)
        try:
            self.store.write(self._pending_ops(), self.fenced())
        except (StoreError, OSError) as e:
            self._undo(undo)
            raise self._storage_error(e) from None
        self._stored()
        self._publish(first_new)
        with contextlib.suppress(RuntimeError):  # outside an event loop no bot plays
            self.wake_bots()
        return self.version

    async def act_async(self, seat: Seat, action: Action, seen: int | None = None) -> int:
        """:meth:`act` from the event loop: one action at a time per table, stored by the
        store's writer thread; the version is returned once the action is on disk. A
        caller that goes away meanwhile does not interrupt the storing."""
        task = asyncio.ensure_future(self._act_locked(seat, action, seen, person=True))
        # a refusal nobody waits for any more (the caller went) is not an error to log
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        return await asyncio.shield(task)

    def _locked(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def _act_locked(self, seat: Seat, action: Action, seen: int | None, person: bool) -> int:
        self.busy += 1
        try:
            async with self._locked():
                if not self.owned():
                    raise TableError(
                        "moved", f"game {self.id} moved to another process; join again"
                    )
                if person:
                    self._check_actor(seat, seen)
                first_new, undo = self._stage(seat, action)
                try:
                    await self.store.submit_async(self._pending_ops(), self.fenced())
                except (StoreError, OSError) as e:
                    self._undo(undo)
                    raise self._storage_error(e) from None
                self._stored()
                self._publish(first_new)
                if person:
                    self.wake_bots()
                if self.state.is_over and self.on_over is not None:
                    self.on_over(self)
                return self.version
        finally:
            self.busy -= 1
            self.last_active = time.monotonic()
            self._check_idle()

    def owned(self) -> bool:
        """Does this process still own the table? (Always, in one process.) A table found
        no longer owned is let go at once (:attr:`on_lost`): nothing of it is stored or
        sent from here any more."""
        if self.still_owned():
            return True
        self.lose()
        return False

    def lose(self) -> None:
        """The lease is gone: stop, and let the registry drop the table and its sockets."""
        if self.closed:
            return
        self.closed = True
        if self._bot_task is not None:
            self._bot_task.cancel()
        if self.on_lost is not None:
            self.on_lost(self)

    def fenced(self) -> tuple[str, int] | None:
        """What a write of this table carries: (game, the owner's fencing token)."""
        return None if self.fence is None else (self.id, self.fence)

    def _storage_error(self, e: BaseException) -> TableError:
        if isinstance(e, Fenced):
            self.lose()
            return TableError("moved", f"game {self.id} moved to another process; join again")
        return TableError("storage", f"the game could not be stored, try again: {e}")

    def hint_job(self, seat: Seat, level: str | None = None) -> tuple[int, tuple[str, View, str]]:
        """What a strong player would do at ``seat`` now: ``(version, job)``, where
        ``job`` is ``(level, view, seed)``, the arguments of
        :func:`whistkit.server.workers.hint_choice` (slow: it runs in a worker process),
        which returns the action a ``level`` bot (default
        :func:`whistkit.bots.play_level`: ``expert``, or ``club`` without the solver's
        compiled core) chooses from the seat's view alone.

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
        seed = f"{self.id}:hint:{seat_name(seat)}:{self.version}"
        return self.version, (level or play_level(), self.bot_view(state, seat), seed)

    def bot_view(self, state: State, seat: Seat) -> View:
        """``seat``'s view as a bot (or a hint) gets it: with the seats people play, a
        stand-in's included, whose cards carry no signal (:meth:`View.with_people`)."""
        return state.view(seat).with_people(s for s, who in self.seats.items() if who == HUMAN)

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

    def _apply(self, action: Action) -> None:
        """Apply an action and append its events (no storing, no publishing)."""
        before = self.state
        after = before.apply(action)
        self.state = after
        self.unlogged.append(action)
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
        flat: tuple[Any, ...] = (None,)
        if public is not None:
            flat = tuple(x for pair in public.items() for x in pair)
        self.events.append((len(self.events) + 1, dict(private) if private else None, *flat))

    def _deal_if_needed(self) -> None:
        if not self.state.needs_deal:
            return
        dealt = deal_cards(self.deal_rng, self.state.dealer)
        turned = dealt.last_card if self.variant.uses_turned_card else None
        self._apply(Deal(dealt.hands, turned))

    def _stage(self, seat: Seat, action: Action) -> tuple[int, tuple[Any, ...]]:
        """Check and apply a seat's action (and the next deal) in memory; returns the
        first new event's index and what :meth:`_undo` needs."""
        state = self.state
        actor = action.seat if isinstance(action, SpecialAction) else state.to_play
        if actor != seat or (state.to_play != seat and not isinstance(action, SpecialAction)):
            raise TableError("not_your_turn", self._turn_text(seat))
        try:
            state.check(action)
        except IllegalAction as e:
            raise TableError("illegal", str(e)) from None
        first_new = len(self.events)
        rng_state = self.deal_rng.getstate() if self.seeded else None
        self._apply(action)
        self._deal_if_needed()
        return first_new, (state, rng_state, first_new)

    def _undo(self, undo: tuple[Any, ...]) -> None:
        """Forget the staged actions, as if they never came (nothing was acknowledged)."""
        state, rng_state, first_new = undo
        self.state = state
        del self.events[first_new:]
        if rng_state is not None:
            self.deal_rng.setstate(rng_state)
        self.unlogged.clear()

    def _pending_ops(self) -> list[Op]:
        """The statements storing the actions applied since the last store."""
        s = self.state
        ops = self.store.append_ops(
            self.id,
            self.logged + 1,
            [dumps_action(a) for a in self.unlogged],
            self.version,
            finished=s.is_over,
            winner=s.winner,
            score={SIDES[0]: s.score[0], SIDES[1]: s.score[1]},
        )
        if s.is_over:  # the finished game's record, built once
            ops.append(self.store.record_op(self.id, self.record_json()))
        return ops

    def _stored(self) -> None:
        self.logged += len(self.unlogged)
        self.unlogged.clear()

    # -- publishing ---------------------------------------------------------------

    def subscribe(self, seat: Seat, queue: Subscriber) -> None:
        """Put this seat's event messages into ``queue`` from now on (once per queue: a
        queue already subscribed moves to ``seat``)."""
        self.subscribers = [(s, q) for s, q in self.subscribers if q is not queue]
        self.subscribers.append((seat, queue))
        self.last_active = time.monotonic()

    def unsubscribe(self, queue: Subscriber) -> None:
        """Stop sending to ``queue``; the table may then be unloaded from memory."""
        self.subscribers = [(s, q) for s, q in self.subscribers if q is not queue]
        self.last_active = time.monotonic()
        self._check_idle()

    @property
    def idle(self) -> bool:
        """Nobody is connected, no bot is about to act and nothing is being stored."""
        running = self._bot_task is not None and not self._bot_task.done()
        return not self.subscribers and not running and not self.busy

    def _check_idle(self) -> None:
        if self.on_idle is not None and self.idle:
            self.on_idle(self)

    def _publish(self, first_new: int) -> None:
        if not self.owned():
            return
        new = self.events[first_new:]
        for seat, queue in self.subscribers:
            view = self.view_of(seat)
            for i, e in enumerate(new):
                msg: dict[str, Any] = {"type": "event", "v": e[0], "event": event_for_seat(e, seat)}
                if i == len(new) - 1:
                    msg["view"] = view
                queue.put_nowait(msg)

    def join_messages(self, seat: Seat, since: int) -> list[dict[str, Any]]:
        """What a seat joining with the last version it saw gets: the events after it
        (none for a new client, or one too far behind) and then its whole view."""
        if since > self.version:
            since = 0  # a client from before a lost database: start over
        out = []
        if since > 0 and self.version - since <= MAX_CATCH_UP:
            out = self.events_since(seat, since)
        out.append({"type": "state", "v": self.version, "view": self.view_of(seat)})
        return out

    # -- bots ---------------------------------------------------------------------

    def bot_seed(self, seat: Seat) -> int:
        """The randomness of ``seat``'s bot now: from the game's secret, the seat and the
        version (the same after a restart; nothing of it reaches a client)."""
        what = f"bot:{seat}:{self.version}".encode()
        return int.from_bytes(hashlib.blake2b(what, key=self.secret, digest_size=32).digest())

    def bot_level(self, seat: Seat) -> str | None:
        """The level of the bot that acts for ``seat`` now, None if a person does (a
        shared table's stand-ins: :mod:`whistkit.server.shared`)."""
        return self.bots.get(seat)

    def wake_bots(self) -> None:
        """Start the bots' loop if a bot is to act (call from the event loop)."""
        if self.closed or self.state.is_over or self.bot_level(self.state.to_play) is None:
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
            if state.is_over or self.bot_level(seat) is None:
                return
            # a longer pause after a completed trick, so a person sees who won it
            pause = self.bot_delay * (2.5 if not state.trick else 1.0)
            if pause > 0:
                await asyncio.sleep(pause)
            if self.state is not state:  # someone else acted meanwhile; look again
                continue
            # an expert searches for up to a second: think off the event loop so the
            # server keeps answering the other connections meanwhile
            level = self.bot_level(seat)
            if level is None:  # a person came back meanwhile
                return
            if not self.owned():
                return
            action = await self.think(level, self.bot_view(state, seat), self.bot_seed(seat))
            if self.closed or self.state is not state or self.bot_level(seat) is None:
                continue
            try:
                # awaited in this task, not a task of its own behind a shield as a person's
                # action is (one task and future fewer per bot card): only close() cancels
                # this task, and a closed table is never used again, so an action cut off
                # while being stored is either on disk (and loaded from there) or nowhere
                await self._act_locked(seat, action, None, person=False)
            except TableError as e:
                if e.code == "moved":
                    return
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
    """The registry: one live :class:`Table` per game, loaded from the store on demand
    (off the event loop, once however many ask at the same time) and unloaded once it
    has been idle for ``idle_seconds`` (stored, it is loaded again when asked for).

    With a ``cluster`` (several processes, :mod:`whistkit.server.cluster`) a table is
    live only in the process that holds its lease: :meth:`open` takes the lease (raising
    :class:`~whistkit.server.cluster.Elsewhere` when another process holds it), raises
    the game's fencing token in the store, then loads it; a new game is stored and left
    for the first process a person joins it on; a lease found lost drops the table and
    closes its sockets (:meth:`lost`), so that they reconnect to whichever process takes
    it next."""

    def __init__(
        self,
        store: BaseStore,
        bot_delay: float = 0.0,
        *,
        idle_seconds: float = 30.0,
        think: Think = think_in_thread,
        table_class: type[Table] = Table,
        cluster: Cluster | None = None,
    ) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.idle_seconds = idle_seconds
        self.think = think
        # the class of the tables it makes and loads (the server's: shared.SharedTable)
        self.table_class = table_class
        self.cluster = cluster
        self.tables: dict[str, Table] = {}
        self._loading: dict[str, asyncio.Future[Table | None]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._releasing: set[asyncio.Task[None]] = set()
        # told when a game it keeps is over (the online evenings take results from it)
        self.on_over: Callable[[Table], None] | None = None
        if cluster is not None:
            cluster.on_lost = self._lease_lost

    def create(self, variant: str, options: Mapping[str, Any] | None, **kwargs: Any) -> Table:
        """A new stored game (see :meth:`Table.create`; waits for the disk, so not from
        the event loop: there use :meth:`create_async`)."""
        table, ops = self.table_class.new(
            self.store, variant, options, bot_delay=self.bot_delay, think=self.think, **kwargs
        )
        self.store.write(ops)
        table._stored()
        self.adopt(table)
        return table

    async def create_async(
        self, variant: str, options: Mapping[str, Any] | None, **kwargs: Any
    ) -> Table:
        """A new game, stored (off the event loop) before it is returned."""
        table, ops = self.table_class.new(
            self.store, variant, options, bot_delay=self.bot_delay, think=self.think, **kwargs
        )
        await self.store.submit_async(ops)
        table._stored()
        self.adopt(table)
        return table

    def adopt(self, table: Table) -> None:
        """A new game, just stored: kept live in one process; with a cluster, left to the
        process its first person joins on (where a proxy routing by game sends them all)."""
        if self.cluster is None:
            self._keep(table)
        else:
            table.closed = True

    def own(self, table: Table) -> asyncio.Future[Table]:
        """A new game, just stored, to be played here at once (an online evening's
        table, where bots may hold every seat): kept live in this process, with a cluster
        once its lease is taken (:class:`~whistkit.server.cluster.Elsewhere` if another
        process took it first: the table is left to it). Call it as soon as the game is
        stored, before the event loop runs anything else: an :meth:`open` of the game
        meanwhile waits for it instead of loading a second copy of the table."""

        async def take() -> Table:
            if self.cluster is not None:
                try:
                    lease = await self._lease(table.id)
                except BaseException:
                    table.closed = True
                    raise
                if lease is None:  # not expected: it was just stored
                    table.closed = True
                    raise Elsewhere(table.id, "nobody")
                self._owned_by_lease(table, lease)
            self._keep(table)
            return table

        pending: asyncio.Future[Table] = asyncio.ensure_future(take())
        self._loading[table.id] = pending  # type: ignore[assignment]
        pending.add_done_callback(lambda _: self._loading.pop(table.id, None))
        return pending

    def loaded(self, game_id: str) -> Table | None:
        """The game's table if it is in memory."""
        return self.tables.get(game_id)

    def get(self, game_id: str) -> Table | None:
        """The live table of a game, loaded from the store if needed (waiting for it: for
        tools and tests in one process, not the event loop, whose form is :meth:`open`);
        None if unknown."""
        table = self.tables.get(game_id)
        if table is None:
            row = self.store.get(game_id)
            if row is None:
                return None
            table, ops = self.table_class.load(self.store, row, self.bot_delay, self.think)
            if ops:
                self.store.write(ops)
                table._stored()
            self._keep(table)
        return table

    async def open(self, game_id: str) -> Table | None:
        """The live table of a game, loaded from the store if needed; None if unknown;
        :class:`Elsewhere` if another process owns it. Between this returning and the
        caller's next ``await`` the table stays loaded."""
        table = self.tables.get(game_id)
        if table is not None and table.owned():
            return table
        pending = self._loading.get(game_id)
        if pending is None:
            pending = asyncio.ensure_future(self._load(game_id))
            self._loading[game_id] = pending
            pending.add_done_callback(lambda _: self._loading.pop(game_id, None))
        table = await asyncio.shield(pending)
        if table is not None:
            # armed only now: the caller subscribes before the loop runs anything else
            self._idle(table)
        return table

    async def _load(self, game_id: str) -> Table | None:
        lease = None
        if self.cluster is not None:
            lease = await self._lease(game_id)
            if lease is None:
                return None

        def load() -> tuple[Table, list[Op]] | None:
            row = self.store.get(game_id)
            if row is None:
                return None
            return self.table_class.load(self.store, row, self.bot_delay, self.think)

        try:
            loaded = await asyncio.to_thread(load)
        except BaseException:
            if lease is not None:
                await self._release(lease)
            raise
        if loaded is None:
            if lease is not None:
                await self._release(lease)
            return None
        table, ops = loaded
        if lease is not None:
            self._owned_by_lease(table, lease)
        if ops:
            try:
                await self.store.submit_async(ops, table.fenced())
            except BaseException:
                if lease is not None:
                    table.closed = True
                    await self._release(lease)
                raise
            table._stored()
        self._keep(table, arm=False)
        return table

    async def _lease(self, game_id: str) -> Lease | None:
        """Take the game's lease and raise its fencing token in the store; None if the
        game is unknown; :class:`Elsewhere` if another process holds the lease."""
        cluster = self.cluster
        assert cluster is not None
        for _ in range(100):
            got = await cluster.acquire(game_id)
            if isinstance(got, str):
                if got != cluster.node:
                    raise Elsewhere(game_id, got)
                # this process's own lease, being let go just now: wait for it
                await asyncio.sleep(0.02)
                continue
            claimed = await asyncio.to_thread(self.store.claim, game_id, got.token)
            if claimed:
                return got
            row = await asyncio.to_thread(self.store.get, game_id)
            await self._release(got)
            if row is None:
                return None
            # the row holds a newer token than Redis gave (Redis lost its data): move
            # the counter past it and take the lease again
            await cluster.redis.set(f"wk:fence:{game_id}", row.fence)
        raise Elsewhere(game_id, cluster.node)

    def _owned_by_lease(self, table: Table, lease: Lease) -> None:
        cluster = self.cluster
        assert cluster is not None
        game = table.id
        table.fence = lease.token
        table.still_owned = lambda: cluster.leases.get(game) is lease and cluster.valid(game)
        table.on_lost = self.lost

    async def _release(self, lease: Lease) -> None:
        cluster = self.cluster
        if cluster is not None and cluster.leases.get(lease.game) is lease:
            with contextlib.suppress(Exception):
                await cluster.release(lease.game)

    def _keep(self, table: Table, arm: bool = True) -> None:
        self.tables[table.id] = table
        table.on_idle = self._idle
        table.on_over = self.on_over
        if arm:
            self._idle(table)  # nobody may ever join it

    def _idle(self, table: Table) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a table made outside the server's loop stays in memory
            return
        old = self._timers.pop(table.id, None)
        if old is not None:
            old.cancel()
        self._timers[table.id] = loop.call_later(self.idle_seconds, self._unload, table)

    def _unload(self, table: Table) -> None:
        """Free a table that stayed idle; it is stored, and the next join loads it."""
        self._timers.pop(table.id, None)
        if self.tables.get(table.id) is not table or not table.idle:
            return
        if time.monotonic() - table.last_active < self.idle_seconds * 0.9:
            self._idle(table)  # it was busy meanwhile: wait again
            return
        del self.tables[table.id]
        table.closed = True
        self._let_go(table.id)

    def _let_go(self, game_id: str) -> None:
        """Release the lease of a table this process no longer keeps."""
        cluster = self.cluster
        if cluster is None or game_id not in cluster.leases:
            return
        task = asyncio.get_running_loop().create_task(cluster.release(game_id))
        self._releasing.add(task)
        task.add_done_callback(self._releasing.discard)

    def _lease_lost(self, game_id: str) -> None:
        table = self.tables.get(game_id)
        if table is not None:
            table.lose()

    def lost(self, table: Table) -> None:
        """The table's lease is gone: drop it and close its sockets (they reconnect,
        to whichever process owns it next); nothing more of it is stored or sent."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        _log.warning("the lease of game %s was lost; letting the table go", table.id)
        timer = self._timers.pop(table.id, None)
        if timer is not None:
            timer.cancel()
        if self.cluster is not None:
            self.cluster.forget(table.id)
        queues = [q for _, q in table.subscribers] + list(getattr(table, "watchers", ()))
        table.subscribers = []
        for queue in queues:
            conn = getattr(queue, "conn", None)
            if conn is not None:
                conn.drop()

    async def close(self) -> None:
        """Stop every table's bots (a table freed meanwhile, its page gone, is skipped)."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for t in list(self.tables.values()):
            if self.tables.get(t.id) is t:
                await t.close()
        for task in list(self._releasing):
            with contextlib.suppress(Exception):
                await task


__all__ = [
    "BOT_PREFIX",
    "HUMAN",
    "Event",
    "Table",
    "TableError",
    "Tables",
    "choose",
    "event_for_seat",
    "event_public",
    "event_type",
]
