"""Shared tables (issue 22, docs/friends.md): several people at one game, each from their
own device, bots in the other seats, stand-ins for the absent, watchers and a chat.

A shared table is a :class:`SharedTable`: a :class:`whistkit.server.table.Table` whose
:attr:`SharedTable.shared` is set (the server's registry makes every table of this class;
a solo game's ``shared`` is None and it behaves exactly as a plain table). What a shared
table adds lives here, beside the game's own row and log:

- its settings and people (:class:`Shared`: the level of its bots and stand-ins, the
  turn time, whether watchers see the hands after each hand, the watch token, the names,
  started and ended), stored as JSON in the ``shared_tables`` table of the same database;
- who is connected: one connection per person seat (:class:`Member`); a second join of
  the seat takes it over and the first is closed (``replaced``);
- stand-ins: a person's action is taken by a bot of the table's level when the person
  did not act within the table's time (that action only), or is away (disconnected on
  their turn for the table's time, or 30 s when it has none; or not yet arrived when the
  host started): then every action of the seat until they join again;
- watchers: the public part of every event and a view with no hidden card
  (:meth:`SharedTable.watcher_view`), and the hands as dealt once a hand is over if the
  table allows it;
- the chat (plain text or a phrase key, at most 10 lines per 10 s per seat) and the
  host's operations.

The protocol of all this is in :mod:`whistkit.server.protocol`'s docstring.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import hmac
import json
import math
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..bots import LEVELS
from ..seats import SEATS, SOUTH, Seat, seat_name
from ..state import View
from .protocol import (
    ProtocolError,
    name_key,
    quote,
    read_chat,
    read_host,
    read_name,
    to_json_value,
    view_json,
)
from .store import BaseStore, Fenced, Op
from .table import (
    BOT_PREFIX,
    HUMAN,
    Subscriber,
    Table,
    TableError,
    Tables,
    event_for_seat,
    event_public,
    event_type,
)

TIMEOUTS = (0, 30, 60, 120)  # the turn times a table may have (seconds; 0: off)
AWAY_GRACE = 30.0  # an absent person's turn waits this long when the table has no time
CHAT_LINES = 10  # at most this many chat lines ...
CHAT_WINDOW = 10.0  # ... per this many seconds, per seat
CHAT_KEPT = 30  # the last chat lines a joining client gets
TOKEN_BYTES = 16  # 128-bit secrets
GUEST = "Guest"  # a person seat's name until its person gives one
PERSON = "person"
TABLE_FIELDS = ("variant", "options", "level", "seats", "timeout", "watch_hands", "name", "seed")


class Seated(Protocol):
    """A client connection as the table sees it: its outbox and a way to close it."""

    @property
    def out(self) -> Subscriber: ...

    def kick(self, code: str, message: str) -> None: ...


class Client(Seated, Protocol):
    """A client connection as the shared messages use it (``app.Connection``)."""

    table: Table | None
    seat: Seat
    watching: bool
    base: str
    tables: Tables

    def send(self, msg: dict[str, Any]) -> None: ...


@dataclass
class Shared:
    """A shared table's settings and people (stored as JSON)."""

    level: str
    timeout: int = 0
    watch_hands: bool = False
    watch_token: str = ""
    names: dict[Seat, str] = field(default_factory=dict)
    started: bool = False
    ended: bool = False
    host: Seat = SOUTH
    # the online evening the table plays a hand of ("": none): its stand-ins play even
    # when nobody is connected, and it stays in memory until its hand is over
    evening: str = ""
    # the evening's hand time is up (or its host ended the hand): stand-ins play every
    # person's cards to the end
    finish: bool = False

    def to_json(self) -> str:
        return json.dumps(
            {
                "level": self.level,
                "timeout": self.timeout,
                "watch_hands": self.watch_hands,
                "watch_token": self.watch_token,
                "names": {seat_name(s): n for s, n in sorted(self.names.items())},
                "started": self.started,
                "ended": self.ended,
                "host": seat_name(self.host),
                "evening": self.evening,
                "finish": self.finish,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> Shared:
        d = json.loads(text)
        return cls(
            level=d["level"],
            timeout=int(d.get("timeout", 0)),
            watch_hands=bool(d.get("watch_hands", False)),
            watch_token=d.get("watch_token", ""),
            names={SEATS.index(k): str(v) for k, v in d.get("names", {}).items()},
            started=bool(d.get("started", False)),
            ended=bool(d.get("ended", False)),
            host=SEATS.index(d.get("host", "S")),
            evening=str(d.get("evening", "")),
            finish=bool(d.get("finish", False)),
        )


@dataclass
class Member:
    """The connection that holds a person seat now."""

    conn: Seated


def _same(token: object, expected: str) -> bool:
    """Constant-time token comparison (a wrong type or an empty secret never matches)."""
    if not isinstance(token, str) or not expected:
        return False
    return hmac.compare_digest(token.encode("utf-8", "surrogatepass"), expected.encode())


def _ignore_failure(future: asyncio.Future[None]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved: a lost name or flag is written again next time


class SharedTable(Table):
    """A table that may be shared (:attr:`shared` set); see the module's docstring."""

    # how much of the table's time passes per real second (tests make it tiny)
    time_scale: float = 1.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shared: Shared | None = None
        self.members: dict[Seat, Member] = {}
        self.watchers: list[Subscriber] = []
        self.away: set[Seat] = set()  # absent persons: a stand-in plays every action
        self.timed_out: dict[Seat, int] = {}  # seat -> the version its time ran out at
        self.chat_log: collections.deque[dict[str, Any]] = collections.deque(maxlen=CHAT_KEPT)
        self.chat_times: dict[Seat, collections.deque[float]] = {}
        self.clock: Callable[[], float] = time.monotonic
        self._timer: asyncio.TimerHandle | None = None
        self._timer_key: tuple[Seat, int, bool] | None = None
        self._timer_due = 0.0  # the loop's time when the armed timer fires
        self._seats_sent: dict[str, Any] | None = None

    # -- loading and storing ---------------------------------------------------------

    @classmethod
    def load(cls, store: BaseStore, row: Any, *args: Any, **kwargs: Any) -> tuple[Table, list[Op]]:
        table, ops = super().load(store, row, *args, **kwargs)
        assert isinstance(table, SharedTable)
        config = read_config(store, row.id)
        if config is not None:
            table.shared = config
        return table, ops

    def config_ops(self, seats: bool = False) -> list[Op]:
        """The statements storing the shared settings (and the seats and tokens)."""
        assert self.shared is not None
        ops: list[Op] = [self.store.config_op(self.id, self.shared.to_json())]
        if seats:
            ops.append(
                self.store.seats_op(
                    self.id,
                    json.dumps({seat_name(s): w for s, w in sorted(self.seats.items())}),
                    json.dumps({seat_name(s): t for s, t in sorted(self.tokens.items())}),
                )
            )
        return ops

    def _save(self, seats: bool = False) -> asyncio.Future[None]:
        future = self.store.submit_async(self.config_ops(seats), self.fenced())
        future.add_done_callback(self._save_failed)
        return future

    def _save_failed(self, future: asyncio.Future[None]) -> None:
        if not future.cancelled() and isinstance(future.exception(), Fenced):
            self.lose()  # another process owns the table now
        _ignore_failure(future)

    # -- who is where ----------------------------------------------------------------

    def persons(self) -> list[Seat]:
        return [s for s in range(4) if self.seats.get(s) == HUMAN]

    def connected(self, seat: Seat) -> bool:
        return seat in self.members

    def standin(self, seat: Seat) -> bool:
        """A bot plays this person's seat now (away, or out of time for this action)."""
        if self.shared is None or self.seats.get(seat) != HUMAN or not self.shared.started:
            return False
        if self.shared.ended or self.state.is_over:
            return False
        if self.shared.finish:
            return True
        away = seat in self.away and not self.connected(seat)
        return away or self.timed_out.get(seat) == self.version

    def players(self) -> dict[Seat, str]:
        if self.shared is None:
            return super().players()
        return {
            s: (self.shared.names.get(s, GUEST) if w == HUMAN else f"Bot ({w[len(BOT_PREFIX) :]})")
            for s, w in sorted(self.seats.items())
        }

    def seats_json(self) -> dict[str, Any]:
        """The ``seats`` message."""
        assert self.shared is not None
        seats: dict[str, dict[str, Any]] = {}
        for s in range(4):
            who = self.seats[s]
            person = who == HUMAN
            seats[seat_name(s)] = {
                "kind": PERSON if person else "bot",
                "name": self.shared.names.get(s) if person else None,
                "connected": self.connected(s),
                "standin": self.standin(s),
                "level": None if person else who[len(BOT_PREFIX) :],
            }
            key = self._timer_key
            if person and key is not None and key[0] == s and not key[2]:
                # away on their turn: a stand-in plays in this many seconds
                seats[seat_name(s)]["standin_in"] = self._seconds_left()
        return {
            "type": "seats",
            "seats": seats,
            "started": self.shared.started,
            "ended": self.shared.ended,
            "timeout": self.shared.timeout,
            "watch_hands": self.shared.watch_hands,
            "level": self.shared.level,
            "host": seat_name(self.shared.host),
            "watchers": len(self.watchers),
        }

    def summary(self, you: str) -> dict[str, Any]:
        """The table's public summary (``GET /api/tables/ID``)."""
        seats = self.seats_json()
        state = self.state
        return {
            "game": self.id,
            "variant": self.variant.name,
            "options": self.variant.options_dict(),
            "level": seats["level"],
            "seats": seats["seats"],
            "started": seats["started"],
            "ended": seats["ended"],
            "finished": state.is_over,
            "winner": state.winner,
            "score": {"NS": state.score[0], "EW": state.score[1]},
            "hand_number": state.hand_number,
            "timeout": seats["timeout"],
            "watch_hands": seats["watch_hands"],
            "you": you,
        }

    def token_holder(self, token: object) -> str | None:
        """Whose token this is: a seat letter, ``"watch"``, or None (constant time per
        secret compared)."""
        if self.shared is None:
            return None
        found = None
        for s in range(4):
            if self.seats.get(s) == HUMAN and _same(token, self.tokens.get(s, "")):
                found = seat_name(s)
        if _same(token, self.shared.watch_token):
            found = "watch"
        return found

    # -- sending ---------------------------------------------------------------------

    def send_all(self, msg: dict[str, Any]) -> None:
        """A message to every seat's connection and every watcher."""
        if not self.owned():
            return
        for _, queue in self.subscribers:
            queue.put_nowait(msg)
        for queue in self.watchers:
            queue.put_nowait(msg)

    def send_seats(self, each: Mapping[Seat, dict[str, Any]], others: dict[str, Any]) -> None:
        """To each seat's connections its own message of ``each`` (``others`` to a seat
        not in it), and ``others`` to every watcher."""
        if not self.owned():
            return
        for seat, queue in self.subscribers:
            queue.put_nowait(each.get(seat, others))
        for queue in self.watchers:
            queue.put_nowait(others)

    def _seats_changed(self) -> None:
        if self.shared is None:
            return
        now = self.seats_json()
        if now != self._seats_sent:
            self._seats_sent = now
            self.send_all(now)

    def watcher_view(self) -> dict[str, Any]:
        """What a watcher sees: the public part of a seat's view, no hand, no legal
        actions, only the public information that every seat shares."""
        views = [self.state.view(s) for s in range(4)]
        common = dict(views[0].public)
        for v in views[1:]:
            common = {k: x for k, x in common.items() if k in v.public and v.public[k] == x}
        base: View = dataclasses.replace(views[0], results=(), hand=0, legal=(), public=common)
        out = view_json(base, self.players())
        out["seat"] = None
        out["results"] = [self._result_json(r) for r in views[0].results]
        out["match"] = to_json_value(self.variant.summary_match(self.state))
        out["irregular"] = []
        out["seeded"] = self.seeded
        return out

    def _publish(self, first_new: int) -> None:
        super()._publish(first_new)
        if self.shared is None:
            return
        if self.watchers:
            new = self.events[first_new:]
            view = self.watcher_view()
            for i, e in enumerate(new):
                msg: dict[str, Any] = {"type": "event", "v": e[0], "event": event_for_seat(e, -1)}
                if i == len(new) - 1:
                    msg["view"] = view
                for queue in self.watchers:
                    queue.put_nowait(msg)
                if self.shared.watch_hands and event_type(e) == "hand_end":
                    hands = self.dealt_hands(e[0])
                    if hands is not None:
                        for queue in self.watchers:
                            queue.put_nowait(hands)
        self.review()

    def dealt_hands(self, version: int) -> dict[str, Any] | None:
        """The ``hands`` message of the hand that ended at event ``version``."""
        for e in reversed(self.events[:version]):
            pub, private = event_public(e) or {}, e[1]
            if pub.get("type") == "deal":
                return {
                    "type": "hands",
                    "hand_number": pub.get("hand_number"),
                    "hands": {
                        seat_name(s): list(p["hand"]) for s, p in sorted((private or {}).items())
                    },
                }
        return None

    def watch_messages(self, since: int) -> list[dict[str, Any]]:
        """What a watcher joining with the last version it saw gets (as a seat would)."""
        if since > self.version:
            since = 0
        out: list[dict[str, Any]] = []
        if since > 0 and self.version - since <= 200:
            out = [
                {"type": "event", "v": e[0], "event": event_for_seat(e, -1)}
                for e in self.events[since:]
            ]
        out.append({"type": "state", "v": self.version, "view": self.watcher_view()})
        return out

    # -- connections -------------------------------------------------------------------

    def check_name(self, seat: Seat, name: str) -> None:
        """``ProtocolError`` (``name_taken``) when another seat goes by ``name`` (a
        person's name or a bot's, compared NFKC and case folded: :func:`name_key`)."""
        key = name_key(name)
        for other, shown in self.players().items():
            if other != seat and name_key(shown) == key:
                raise ProtocolError(
                    "name_taken",
                    f"the name {quote(name)} is taken at this table (seat"
                    f" {seat_name(other)} goes by {quote(shown)}); choose another name",
                )

    def seated(self, seat: Seat, conn: Seated, name: str | None) -> None:
        """``conn`` (already subscribed to ``seat``) now holds the seat: an older
        connection of the seat is closed, the person is back (no stand-in), the table
        starts if everyone is there; ``conn`` gets the seats and the chat so far."""
        assert self.shared is not None
        for other, member in list(self.members.items()):
            if member.conn is conn and other != seat:  # this connection changed seats
                del self.members[other]
        old = self.members.get(seat)
        self.members[seat] = Member(conn)
        if old is not None and old.conn is not conn:
            old.conn.kick(
                "replaced", f"seat {seat_name(seat)} was taken over by another connection"
            )
        self.away.discard(seat)
        self.timed_out.pop(seat, None)
        if name is not None and self.shared.names.get(seat) != name:
            self.shared.names[seat] = name
            self._save()
        if not self.shared.started and all(self.connected(s) for s in self.persons()):
            self.shared.started = True
            self._save()
        conn.out.put_nowait(self.seats_json())
        for line in self.chat_log:
            conn.out.put_nowait(line)
        self.review()
        self.wake_bots()

    def watch(self, queue: Subscriber) -> None:
        assert self.shared is not None
        if queue not in self.watchers:
            self.watchers.append(queue)
        self.last_active = time.monotonic()
        queue.put_nowait(self.seats_json())
        for line in self.chat_log:
            queue.put_nowait(line)
        self._seats_changed()

    def unsubscribe(self, queue: Subscriber) -> None:
        self.watchers = [q for q in self.watchers if q is not queue]
        for seat, member in list(self.members.items()):
            if member.conn.out is queue:
                del self.members[seat]
        super().unsubscribe(queue)
        if self.shared is not None and not self.closed:
            self.review()

    @property
    def idle(self) -> bool:
        playing = self.shared is not None and bool(self.shared.evening)
        if playing and not self.state.is_over and not self.shared.ended:  # type: ignore[union-attr]
            return False  # an evening's hand is played to its end, people or not
        return super().idle and not self.watchers

    # -- stand-ins and the turn's time -------------------------------------------------

    def bot_level(self, seat: Seat) -> str | None:
        shared = self.shared
        if shared is None:
            return super().bot_level(seat)
        if not shared.started or shared.ended:
            return None
        level = super().bot_level(seat)
        if level is not None or self.seats.get(seat) != HUMAN:
            return level
        if not self.members and not shared.evening:
            return None  # nobody left at the table: nobody plays for the absent
        return shared.level if self.standin(seat) else None

    def review(self) -> None:
        """After any change: arm the turn's timer (or let a stand-in play), and tell
        everyone if the seats changed (an away person's countdown among them)."""
        self._arm()
        self._seats_changed()

    def _seconds_left(self) -> int:
        """Whole seconds (rounded up) until the armed timer fires, in real time."""
        try:
            now = asyncio.get_running_loop().time()
        except RuntimeError:
            return 0
        return max(0, math.ceil(self._timer_due - now))

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        self._timer_key = None

    def _arm(self) -> None:
        shared, state = self.shared, self.state
        if (
            shared is None
            or not shared.started
            or shared.ended
            or self.closed
            or state.is_over
            or (not self.members and not shared.evening)
        ):
            self._cancel_timer()
            return
        seat = state.to_play
        if seat < 0 or self.seats.get(seat) != HUMAN or self.standin(seat):
            self._cancel_timer()
            with contextlib.suppress(RuntimeError):
                self.wake_bots()
            return
        connected = self.connected(seat)
        if connected and not shared.timeout:
            self._cancel_timer()
            return
        seconds = float(shared.timeout or AWAY_GRACE)
        key = (seat, self.version, connected)
        if key == self._timer_key:
            return
        self._cancel_timer()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timer_key = key
        self._timer_due = loop.time() + seconds * self.time_scale
        self._timer = loop.call_later(seconds * self.time_scale, self._expire, key)

    def _expire(self, key: tuple[Seat, int, bool]) -> None:
        if key != self._timer_key or self.closed or not self.owned():
            return
        self._timer, self._timer_key = None, None
        seat, version, connected = key
        if self.version != version or self.state.to_play != seat:
            return
        if connected:
            self.timed_out[seat] = version
        else:
            self.away.add(seat)
        self.review()

    def _check_actor(self, seat: Seat, seen: int | None) -> None:
        super()._check_actor(seat, seen)
        if self.shared is not None:
            if self.shared.ended:
                raise TableError("table_ended", f"the table of game {self.id} has ended")
            if not self.shared.started:
                raise TableError(
                    "not_started", "the table waits for its people (or the host's start)"
                )

    async def close(self) -> None:
        self._cancel_timer()
        await super().close()

    # -- chat ----------------------------------------------------------------------------

    def chat(self, seat: Seat, text: str | None, phrase: str | None) -> None:
        """A chat line from ``seat`` to everyone; ``TableError`` ``chat_rate`` beyond
        :data:`CHAT_LINES` lines in :data:`CHAT_WINDOW` seconds."""
        assert self.shared is not None
        now = self.clock()
        times = self.chat_times.setdefault(seat, collections.deque())
        while times and now - times[0] >= CHAT_WINDOW:
            times.popleft()
        if len(times) >= CHAT_LINES:
            wait = max(1, int(CHAT_WINDOW - (now - times[0]) + 0.999))
            raise TableError(
                "chat_rate",
                f"at most {CHAT_LINES} chat lines in {CHAT_WINDOW:g} seconds;"
                f" wait {wait} s before the next",
            )
        times.append(now)
        line: dict[str, Any] = {
            "type": "chat",
            "seat": seat_name(seat),
            "name": self.shared.names.get(seat, GUEST),
            "at": round(time.time(), 3),
        }
        if text is not None:
            line["text"] = text
        else:
            line["phrase"] = phrase
        self.chat_log.append(line)
        self.send_all(line)

    # -- the host's operations ---------------------------------------------------------

    async def host_op(self, op: str, seat: Seat | None) -> dict[str, Any] | None:
        """Start, turn a seat into a bot, reopen a seat, end; the host's answer (the new
        invite of a reopened seat) or None."""
        shared = self.shared
        assert shared is not None
        if shared.ended:
            raise TableError("table_ended", f"the table of game {self.id} has ended")
        answer = None
        if op == "start":
            if not shared.started:
                shared.started = True
                self.away |= {s for s in self.persons() if not self.connected(s)}
                await self._save()
        elif op == "end":
            shared.ended = True
            self._cancel_timer()
            await self._save()
        else:
            assert seat is not None
            if seat == shared.host:
                raise TableError("bad_seat", "the host's own seat stays the host's")
            member = self.members.pop(seat, None)
            if op == "bot":
                if self.seats[seat] != HUMAN:
                    raise TableError("bad_seat", f"seat {seat_name(seat)} is a bot already")
                self.seats[seat] = BOT_PREFIX + shared.level
                self.bots[seat] = shared.level
                self.tokens.pop(seat, None)
                shared.names.pop(seat, None)
                text = f"seat {seat_name(seat)} is played by a bot from now on"
            else:  # reopen
                self.seats[seat] = HUMAN
                self.bots.pop(seat, None)
                self.tokens[seat] = secrets.token_urlsafe(TOKEN_BYTES)
                shared.names.pop(seat, None)
                if shared.started:
                    self.away.add(seat)
                text = f"seat {seat_name(seat)} was reopened for another person"
                answer = {"type": "invite", "seat": seat_name(seat), "token": self.tokens[seat]}
            if op == "bot":
                self.away.discard(seat)
            self.timed_out.pop(seat, None)
            if member is not None:
                member.conn.kick("seat_closed", text)
            if not shared.started and all(self.connected(s) for s in self.persons()):
                shared.started = True
            await self._save(seats=True)
        self.review()
        self.wake_bots()
        return answer


def read_config(store: BaseStore, game_id: str) -> Shared | None:
    """A game's shared settings, None for a solo game (reads: any thread)."""
    text = store.shared_config(game_id)
    return None if text is None else Shared.from_json(text)


def table_class(time_scale: float = 1.0) -> type[SharedTable]:
    """The registry's table class, with the turn's time scaled by ``time_scale``."""
    if time_scale == 1.0:
        return SharedTable
    return type("ScaledSharedTable", (SharedTable,), {"time_scale": time_scale})


# -- creating a table -----------------------------------------------------------------------


@dataclass(frozen=True)
class NewTable:
    """A checked ``POST /api/tables`` body."""

    variant: str
    options: Mapping[str, Any]
    level: str
    seats: dict[Seat, str]  # "human" or "bot:<level>" for N, E, S, W
    timeout: int
    watch_hands: bool
    name: str


def read_new_table(body: Any, default_level: str) -> NewTable:
    """A ``POST /api/tables`` body, checked; ``ProtocolError`` (code ``malformed``) names
    what is wrong. The variant and options are checked when the game is made."""
    if not isinstance(body, dict):
        raise ProtocolError("malformed", f"the body must be a JSON object, not {quote(body)}")
    unknown = [k for k in body if k not in TABLE_FIELDS]
    if unknown:
        raise ProtocolError(
            "malformed", f"unknown field {quote(unknown[0])}; known: {', '.join(TABLE_FIELDS)}"
        )
    if body.get("seed") is not None:
        raise ProtocolError(
            "malformed",
            "a shared table takes no 'seed': its deals come from the server's secret, so"
            " that nobody at it can know them (seeds are for solo games)",
        )
    variant = body.get("variant", "felagsvist")
    if not isinstance(variant, str) or not 0 < len(variant) <= 32 or not variant.isascii():
        raise ProtocolError("malformed", f"'variant' must be a variant name, not {quote(variant)}")
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise ProtocolError("malformed", f"'options' must be an object, not {quote(options)}")
    level = body.get("level", default_level)
    if not isinstance(level, str) or level not in LEVELS:
        raise ProtocolError(
            "malformed", f"unknown bot level {quote(level)}; known: {', '.join(LEVELS)}"
        )
    raw_seats = body.get("seats") or {}
    if not isinstance(raw_seats, dict):
        raise ProtocolError("malformed", f"'seats' must be an object, not {quote(raw_seats)}")
    seats: dict[Seat, str] = {SOUTH: HUMAN}
    for key, who in raw_seats.items():
        if key not in ("N", "E", "W"):
            raise ProtocolError(
                "malformed", f"'seats' names N, E and W (the host sits at S), not {quote(key)}"
            )
        if who == PERSON:
            seats[SEATS.index(key)] = HUMAN
        elif isinstance(who, str) and who in LEVELS:
            seats[SEATS.index(key)] = BOT_PREFIX + who
        else:
            raise ProtocolError(
                "malformed",
                f"seat {key} must be 'person' or a bot level ({', '.join(LEVELS)}),"
                f" not {quote(who)}",
            )
    for s in range(4):
        seats.setdefault(s, BOT_PREFIX + level)
    timeout = body.get("timeout", 0)
    if isinstance(timeout, bool) or timeout not in TIMEOUTS:
        raise ProtocolError(
            "malformed",
            f"'timeout' must be one of {', '.join(map(str, TIMEOUTS))} (seconds; 0 = off),"
            f" not {quote(timeout)}",
        )
    watch_hands = body.get("watch_hands", False)
    if not isinstance(watch_hands, bool):
        raise ProtocolError(
            "malformed", f"'watch_hands' must be true or false, not {quote(watch_hands)}"
        )
    name = read_name(body.get("name", GUEST))
    return NewTable(variant, options, level, seats, int(timeout), watch_hands, name)


async def create(tables: Tables, new: NewTable) -> SharedTable:
    """A new shared table, stored before it is returned (``OptionError``,
    ``UnknownVariant``, ``ValueError`` for a bad variant or options)."""
    table, ops = tables.table_class.new(
        tables.store,
        new.variant,
        new.options,
        seats=new.seats,
        bot_delay=tables.bot_delay,
        think=tables.think,
    )
    assert isinstance(table, SharedTable)
    table.shared = Shared(
        level=new.level,
        timeout=new.timeout,
        watch_hands=new.watch_hands,
        watch_token=secrets.token_urlsafe(TOKEN_BYTES),
        names={SOUTH: new.name},
    )
    await tables.store.submit_async(ops + table.config_ops())
    table._stored()
    tables.adopt(table)
    return table


# -- the shared messages of a connection -----------------------------------------------------


def check_room(table: Table, conn: Any) -> None:
    """``ProtocolError`` (``game_full``) when ``table`` has as many sockets following it
    as ``conn.max_followers`` and ``conn`` is not one of them (a join at the same table
    moves a socket, it adds none)."""
    most: int = getattr(conn, "max_followers", 0) or 0
    full = bool(most) and len(table.subscribers) >= most
    if full and not any(q is conn.out for _, q in table.subscribers):
        raise ProtocolError(
            "game_full",
            f"game {table.id} has {len(table.subscribers)} connections already; at most"
            f" {most} (--max-sockets-per-game)",
        )


async def watch(conn: Client, msg: Mapping[str, Any]) -> None:
    """A ``watch`` message: follow the table as a watcher (with its watch token)."""
    game_id = msg.get("game")
    since = msg.get("since") or 0
    table = await conn.tables.open(str(game_id))
    # no await from here on: the table stays loaded until it holds this connection
    if table is None:
        raise ProtocolError("unknown_game", f"unknown game {quote(game_id)}")
    if not isinstance(table, SharedTable) or table.shared is None:
        raise ProtocolError("not_shared", f"game {game_id} is not a shared table")
    if not _same(msg.get("token"), table.shared.watch_token):
        raise ProtocolError("forbidden", f"watching game {game_id} needs its watch token")
    check_room(table, conn)
    old = conn.table
    for m in table.watch_messages(int(since)):
        conn.send(m)
    if old is table:
        table.unsubscribe(conn.out)  # a seat's connection becomes a watcher
    table.watch(conn.out)
    conn.table, conn.watching = table, True
    if old is not None and old is not table:
        old.unsubscribe(conn.out)


async def handle(conn: Client, table: Table, msg: Mapping[str, Any]) -> None:
    """A ``chat`` or ``host`` message at the connection's table."""
    if not isinstance(table, SharedTable) or table.shared is None:
        raise ProtocolError("not_shared", f"game {table.id} is not a shared table")
    if msg["type"] == "chat":
        text, phrase = read_chat(msg)
        if conn.watching:
            raise ProtocolError("chat_forbidden", "watchers read the chat; the players write")
        table.chat(conn.seat, text, phrase)
        conn.send({"type": "ack", "v": table.version})
        return
    op, seat = read_host(msg)
    if conn.watching or conn.seat != table.shared.host:
        raise ProtocolError("forbidden", "only the host (seat S) may do that")
    answer = await table.host_op(op, seat)
    if answer is not None:
        answer["url"] = conn.base + invite_path(table.id, answer["seat"], answer["token"])
        conn.send(answer)
    conn.send({"type": "ack", "v": table.version})


def qr_svg(url: str) -> bytes:
    """An SVG QR code of ``url``."""
    import io

    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=4, border=2, xmldecl=False)
    return out.getvalue()


def invite_path(game: str, seat: str, token: str) -> str:
    """An invite link's path: the token in the fragment, which a browser never sends (no
    proxy's log holds it); the page reads it, and still reads ``&t=`` of older links."""
    return f"?join={game}&seat={seat}#t={token}"


def watch_path(game: str, token: str) -> str:
    return f"?watch={game}#t={token}"


def created_json(table: SharedTable, base: str) -> dict[str, Any]:
    """The answer to ``POST /api/tables``."""
    assert table.shared is not None
    host = table.shared.host
    others = [s for s in table.persons() if s != host]
    return {
        "game": table.id,
        "seat": seat_name(host),
        "token": table.tokens[host],
        "name": table.shared.names.get(host, GUEST),
        "invites": {
            seat_name(s): base + invite_path(table.id, seat_name(s), table.tokens[s])
            for s in others
        },
        "tokens": {seat_name(s): table.tokens[s] for s in others},
        "watch": base + watch_path(table.id, table.shared.watch_token),
        "watch_token": table.shared.watch_token,
    }


__all__ = [
    "NewTable",
    "Shared",
    "SharedTable",
    "create",
    "created_json",
    "read_config",
    "read_new_table",
    "table_class",
]
