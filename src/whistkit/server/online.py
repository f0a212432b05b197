"""Online evenings (issue 34, docs/online.md): a whole félagsvist evening on shared tables.

The small layer between two packages that stay apart: the hall organiser's pure model
(:mod:`whistkit.evening`: seating, moves, scoring, prizes, all derived from the stored
facts) decides who sits where and what everyone has; the game server's shared tables
(:mod:`whistkit.server.shared`) play the hands. This module turns each hand's seating
into shared tables and each finished table into the evening's result, and nothing else.

**The state** of an evening is one JSON document in the store (``online_evenings``, with
a version that grows by one with each change; the store never writes an older version
over a newer one): the organiser's :class:`~whistkit.evening.Evening` (config, players,
results), the players' secret tokens, which of them are bots filling a table, and per
hand the game of each table with its seats' tokens. Everything else (seatings, moves,
totals, prizes, the leaderboard) is derived from it when asked.

**The moves are driven by the tables.** A table's game is one hand of félagsvist
(option ``evening_hand``); when its last card is stored the table calls
:meth:`Evenings.table_over`, which adds the table's N-S tricks to the evening as its
result. The result that completes a hand seats the next one: the organiser's rules
seat it, and a shared table is made per table, people at their seats, bots in the seats
of filler players. A clock per evening ends a hand that runs past its time: every table
still playing is finished by stand-ins (the host can do the same at once).

**Gathering.** An evening made with ``gather`` has no hand seated yet: people join through
the join link (players from hand 1) until the host starts it, and only then are the
filler bots chosen and hand 1 seated (:meth:`Evenings.start_evening`); one that nobody
starts within :data:`GATHER_SECONDS` ends unplayed.

**Presence.** Online nobody sits out. A person who is not at their table is played for
by a stand-in (issue 22's rules: after the table's grace on their turn; at once when
they were away at the end of the previous hand); a player whose link was never opened
is listed as absent (one at their table when the last hand ended has opened it).

**Several processes** (``--bus``, docs/online.md): every change of the evening is a
compare-and-set on the document's version (:class:`~whistkit.server.store.Stale` when
another process changed it first: the change is made again on the state as stored), so
the owner of whichever table finishes a hand records its result, and the result that
completes a hand seats the next one in the same transaction; the process that seats a
hand takes its tables' leases (bots may hold every seat of a table) and people's sockets
landing elsewhere are relayed to it. The evening's own lease (``evening-ID``, kept as a
table's) makes one process its clock: it ends a hand whose time is up (asking each
table's owner to let stand-ins finish it), records the results of tables whose owner
went before telling, and takes up tables nobody owns. The word that the next hand is
seated goes to each table's owner over the bus; pages also follow the state by polling,
which any process answers from the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from ..bots import LEVELS
from ..evening import (
    Config,
    Derivation,
    Evening,
    EveningError,
    Player,
    Prizes,
    Result,
    derive,
    new_evening,
    start,
    with_players,
)
from ..evening.live import prizes_from_json
from ..seats import seat_name
from .cluster import Elsewhere
from .protocol import ProtocolError, quote, read_name
from .shared import TOKEN_BYTES, Shared, SharedTable
from .store import Stale, StoreError
from .table import BOT_PREFIX, HUMAN, Table, Tables

log = logging.getLogger("whistkit.server.online")

FIELDS = (
    "title",
    "hands",
    "players",
    "seconds_per_hand",
    "duplicate",
    "level",
    "open_join",
    "gather",
    "groups",
    "prizes",
)
JOIN_FIELDS = ("name", "group")  # POST .../join
GROUP_PRIZES = ("top_per_group", "lowest_per_group")  # prizes that need groups A and B
MAX_HANDS = 24  # any number of hands from 1 (12, 18 and 24 are usual)
MIN_PLAYERS = 2
MAX_PLAYERS = 520  # 130 tables, as the hall organiser
MAX_TITLE = 80
SECONDS_PER_HAND = (60, 3600)  # the bounds of a hand's time
DEFAULT_SECONDS = 600
TURN_SECONDS = 30  # a person's turn at an evening's table, then a stand-in plays it
MAX_LIVE = 20  # evenings under way in one server ...
MAX_LIVE_PLAYERS = 2000  # ... and their players (stand-ins play for every absent one)
RESUME_SECONDS = 2 * 24 * 3600  # at start, evenings stored within this long are taken up
KEPT_OVER = 16  # finished evenings kept in memory (the oldest read goes first)
SAVE_DELAY = 0.25  # a result is stored with the others that come within this time
STALE_SECONDS = 1.0  # a page's totals may be this old while a hand is played
TICK = 0.25  # seconds between looks at an evening's clock (scaled as the turn times)
FORMAT = "whistkit-online-evening/1"
# several processes (--bus)
RETRIES = 100  # a change made again on the state as stored, at most (another process won)
FOLLOW_SECONDS = 0.5  # a process's copy of an evening is compared with the store this often
RECOVER_SECONDS = 2.0  # the clock's look at tables done without a word, and tables unowned
LEASE_PREFIX = "evening-"  # the evening's lease: the process holding it is its clock
WATCH_SECONDS = 5.0  # how often a process looks for evenings that no process drives
# an evening that gathers its players through the join link: the host starts it within
# this long of its making, or it ends unplayed (it holds one of the server's MAX_LIVE)
GATHER_SECONDS = 3 * 3600

T = TypeVar("T")


class OnlineError(Exception):
    """A request about an online evening refused: ``status`` and a message naming what."""

    def __init__(self, status: int, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code  # for the pages' own words (the join link's refusals)


# -- the stored state -----------------------------------------------------------------------


@dataclass
class HandTables:
    """The shared tables of one hand: table n is ``games[n - 1]``."""

    games: list[str]
    # per table: seat letter -> the seat's token (person seats only)
    tokens: list[dict[str, str]]
    started: float  # wall-clock time the tables were made
    finishing: bool = False  # its time ran out or the host ended it: stand-ins finish
    # per table: the seats whose person was not connected when the table finished
    away: list[list[str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "tokens": self.tokens,
            "started": self.started,
            "finishing": self.finishing,
            "away": self.away,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> HandTables:
        return cls(
            list(d["games"]),
            [dict(t) for t in d["tokens"]],
            float(d["started"]),
            bool(d.get("finishing", False)),
            [list(a) for a in d.get("away", [])],
        )


@dataclass
class OnlineEvening:
    """One online evening's stored state (see the module's docstring)."""

    id: str
    title: str
    host_key: str
    level: str
    seconds_per_hand: int
    duplicate: bool
    evening: Evening
    tokens: dict[int, str]  # player id -> the player's secret (their personal link)
    bots: list[int]  # the ids of the filler players, played by bots
    secret: str  # the duplicate deals' seed material; never leaves the server
    hands: list[HandTables] = field(default_factory=list)
    seen: list[int] = field(default_factory=list)  # players who opened their link
    version: int = 1
    created: float = 0.0
    open_join: bool = False  # the open join link takes new players by name
    grouped: bool = True  # the host gave the players groups A and B
    # the players gather through the join link until the host starts the evening: no
    # hand is seated yet, and the filler bots are chosen at the start
    gathering: bool = False
    # the highest player id ever given (a removed player's id is never given again)
    last_id: int = 0
    # the organiser's derivation, kept: (the evening it is of, it, when it was made)
    _derived: tuple[Evening, Derivation, float] | None = field(
        default=None, repr=False, compare=False
    )
    # what everyone may see of a duplicate hand in play, kept: (hand, players, derivation)
    _shown: tuple[int, tuple[Any, ...], Derivation] | None = field(
        default=None, repr=False, compare=False
    )

    def in_play(self) -> int | None:
        """The hand in play, None while the players gather or once the evening is over
        (from the stored facts, without deriving: a hand's next one is seated in the step
        that completes it)."""
        if not self.hands:
            return None
        hand = len(self.hands)
        reported = sum(1 for r in self.evening.results if r.hand == hand)
        return hand if reported < len(self.hands[-1].games) else None

    def over(self) -> bool:
        """Is the evening over (played to its end, or never started)?"""
        return not self.gathering and self.in_play() is None

    def reported(self, hand: int, table: int) -> bool:
        return any(r.hand == hand and r.table == table for r in self.evening.results)

    def derived(self, fresh: bool = False) -> Derivation:
        """The organiser's derivation of the evening. Deriving a room of 130 tables
        takes a tenth of a second or more, so the pages get one at most
        :data:`STALE_SECONDS` old while the same hand is in play (only the points of
        tables that finished meanwhile are missing); ``fresh`` or a new hand derives."""
        kept = self._derived
        if kept is not None and kept[0] is self.evening:
            return kept[1]
        if (
            not fresh
            and kept is not None
            and time.monotonic() - kept[2] < STALE_SECONDS
            and kept[1].current == self.in_play()
        ):
            return kept[1]
        done = derive(self.evening)
        self._derived = (self.evening, done, time.monotonic())
        return done

    def shown(self, done: Derivation) -> Derivation:
        """What everyone may see of the evening (``done``: its derivation now). In
        duplicate every table of a hand plays the same deal, so while a hand is played
        the room shows the evening as it was before that hand's results: a table's
        tricks or anyone's points from it would tell a player still at the deal how it
        went elsewhere. Otherwise ``done`` itself."""
        hand = done.current
        if not self.duplicate or hand is None:
            return done
        kept = self._shown
        if kept is not None and kept[0] == hand and kept[1] is self.evening.players:
            return kept[2]
        results = tuple(r for r in self.evening.results if r.hand != hand)
        before = derive(replace(self.evening, results=results))
        self._shown = (hand, self.evening.players, before)
        return before

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": FORMAT,
                "id": self.id,
                "title": self.title,
                "host_key": self.host_key,
                "level": self.level,
                "seconds_per_hand": self.seconds_per_hand,
                "duplicate": self.duplicate,
                "evening": self.evening.to_json(),
                "tokens": {str(k): v for k, v in self.tokens.items()},
                "bots": self.bots,
                "secret": self.secret,
                "hands": [h.to_json() for h in self.hands],
                "seen": self.seen,
                "version": self.version,
                "created": self.created,
                "open_join": self.open_join,
                "grouped": self.grouped,
                "gathering": self.gathering,
                "last_id": self.last_id,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> OnlineEvening:
        d = json.loads(text)
        if d.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} document")
        evening = Evening.from_json(d["evening"])
        return cls(
            id=d["id"],
            title=d["title"],
            host_key=d["host_key"],
            level=d["level"],
            seconds_per_hand=int(d["seconds_per_hand"]),
            duplicate=bool(d["duplicate"]),
            evening=evening,
            tokens={int(k): str(v) for k, v in d["tokens"].items()},
            bots=[int(b) for b in d["bots"]],
            secret=d["secret"],
            hands=[HandTables.from_json(h) for h in d["hands"]],
            seen=[int(s) for s in d.get("seen", [])],
            version=int(d["version"]),
            created=float(d.get("created", 0.0)),
            open_join=bool(d.get("open_join", False)),
            # before it was stored: groups were given when their prizes were
            grouped=bool(d.get("grouped", evening.config.prizes.top_per_group > 0)),
            gathering=bool(d.get("gathering", False)),
            last_id=int(d.get("last_id", 0)),
        )

    def name(self, player: int) -> str:
        return self.evening.player(player).name

    def next_id(self) -> int:
        """The id for a new player: never one given before, even to a removed player."""
        return max(self.last_id, max((p.id for p in self.evening.players), default=0)) + 1

    def player_of(self, token: object) -> int | None:
        """The player holding ``token`` (constant-time comparisons), None if nobody."""
        if not isinstance(token, str) or not token or len(token) > 128:
            return None
        found = None
        for pid, secret in self.tokens.items():
            if hmac.compare_digest(token.encode("utf-8", "surrogatepass"), secret.encode()):
                found = pid
        return found

    def is_host(self, key: object) -> bool:
        if not isinstance(key, str) or not key or len(key) > 128:
            return False
        return hmac.compare_digest(key.encode("utf-8", "surrogatepass"), self.host_key.encode())

    def hand_of_game(self, game: str) -> tuple[int, int] | None:
        """(hand, table) of a table's game."""
        for h, hand in enumerate(self.hands, start=1):
            if game in hand.games:
                return h, hand.games.index(game) + 1
        return None


# -- creating -------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewEvening:
    """A checked ``POST /api/online-evenings`` body."""

    title: str
    hands: int
    players: tuple[tuple[str, str | None], ...]  # (name, group or None)
    seconds_per_hand: int
    duplicate: bool
    level: str
    open_join: bool = False
    prizes: Prizes | None = None  # None: the default prizes
    gather: bool = False  # the players gather through the join link; the host starts
    grouped: bool = False  # groups A and B (given by the players, or ``groups``)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_new_evening(body: Any, default_level: str) -> NewEvening:
    """A ``POST /api/online-evenings`` body, checked; :class:`OnlineError` (400) names
    what is wrong."""

    def bad(message: str) -> OnlineError:
        return OnlineError(400, message)

    if not isinstance(body, dict):
        raise bad(f"the body must be a JSON object, not {quote(body)}")
    unknown = [k for k in body if k not in FIELDS]
    if unknown:
        raise bad(f"unknown field {quote(unknown[0])}; known: {', '.join(FIELDS)}")
    title = body.get("title", "Félagsvist")
    if not isinstance(title, str) or not 1 <= len(" ".join(title.split())) <= MAX_TITLE:
        raise bad(f"'title' must be a text of 1 to {MAX_TITLE} characters, not {quote(title)}")
    title = " ".join(title.split())
    if any(ord(c) < 32 for c in title):
        raise bad("'title' has a control character")
    hands = body.get("hands", 12)
    if not _whole(hands) or not 1 <= hands <= MAX_HANDS:
        raise bad(
            f"'hands' must be a whole number from 1 to {MAX_HANDS} (12, 18 and 24 are"
            f" usual), not {quote(hands)}"
        )
    seconds = body.get("seconds_per_hand", DEFAULT_SECONDS)
    low, high = SECONDS_PER_HAND
    if not _whole(seconds) or not low <= seconds <= high:
        raise bad(
            f"'seconds_per_hand' must be a whole number from {low} to {high}, not {quote(seconds)}"
        )
    duplicate = body.get("duplicate", False)
    if not isinstance(duplicate, bool):
        raise bad(f"'duplicate' must be true or false, not {quote(duplicate)}")
    level = body.get("level", default_level)
    if not isinstance(level, str) or level not in LEVELS:
        raise bad(f"unknown bot level {quote(level)}; known: {', '.join(LEVELS)}")
    gather = body.get("gather", False)
    if not isinstance(gather, bool):
        raise bad(f"'gather' must be true or false, not {quote(gather)}")
    raw = body.get("players", [] if gather else None)
    least = 0 if gather else MIN_PLAYERS
    if not isinstance(raw, list) or not least <= len(raw) <= MAX_PLAYERS:
        got = f"{len(raw)} of them" if isinstance(raw, list) else quote(raw)
        raise bad(
            f"'players' must be a list of {least} to {MAX_PLAYERS} players"
            f' ({{"name", "group"}}), not {got}'
            + ("" if gather else " (or set 'gather' and let them join through the join link)")
        )
    players: list[tuple[str, str | None]] = []
    seen: set[str] = set()
    for n, item in enumerate(raw, start=1):
        if not isinstance(item, dict) or set(item) - {"name", "group"}:
            raise bad(f'player {n} must be an object {{"name", "group"}}, not {quote(item)}')
        try:
            name = read_name(item.get("name"))
        except ProtocolError as e:
            raise bad(f"player {n}: {e.message}") from None
        if name.casefold() in seen:
            raise bad(f"player {n}: the name {quote(name)} is used twice; make them differ")
        seen.add(name.casefold())
        group = item.get("group")
        if group not in ("A", "B", None):
            raise bad(
                f'player {n} ({name}): \'group\' must be "A", "B" or null, not {quote(group)}'
            )
        players.append((name, group))
    kinds = {g is not None for _, g in players}
    if len(kinds) > 1:
        raise bad("give every player a group (A or B), or none of them")
    groups = body.get("groups", None)
    if groups is not None and not isinstance(groups, bool):
        raise bad(f"'groups' must be true or false, not {quote(groups)}")
    grouped = kinds == {True} if players else bool(groups)
    if groups is not None and players and groups != grouped:
        raise bad(
            "'groups' is true but the players have no group (give each A or B)"
            if groups
            else "'groups' is false but the players have groups (leave them out)"
        )
    open_join = body.get("open_join", gather)
    if not isinstance(open_join, bool):
        raise bad(f"'open_join' must be true or false, not {quote(open_join)}")
    if gather and not open_join:
        raise bad(
            "'gather' needs the open join link ('open_join' true): the players join"
            " through it until the host starts the evening"
        )
    prizes = None
    if "prizes" in body:
        # as the hall organiser takes them (whistkit.evening.live)
        try:
            prizes = prizes_from_json(body["prizes"])
        except (EveningError, TypeError) as e:
            said = str(e)
            raise bad(said if said.startswith("'prizes'") else f"'prizes': {said}") from None
        if not grouped:
            given = [k for k in GROUP_PRIZES if getattr(prizes, k)]
            if given:
                raise bad(
                    f"'prizes': {given[0]} needs groups; give the players groups A and B,"
                    f" or set {given[0]} to {quote(0 if given[0] == 'top_per_group' else False)}"
                )
    return NewEvening(
        title, hands, tuple(players), seconds, duplicate, level, open_join, prizes, gather, grouped
    )


def evening_model(new: NewEvening, seed: int) -> tuple[Evening, list[int]]:
    """The organiser's evening for ``new`` (started: hand 1 is seated; with ``gather``
    not started, and without bots until the start) and the ids of the filler players
    added so that every table has two of each group (bots play them). Without groups
    the players are split A, B, A, B in the order given."""
    players = [
        Player(n, name, group or ("A" if n % 2 else "B"))
        for n, (name, group) in enumerate(new.players, start=1)
    ]
    prizes = new.prizes or (
        Prizes(top_per_group=3) if new.grouped else Prizes(top=3, top_per_group=0)
    )
    config = Config(preset="felagsvist", hands=new.hands, seed=seed, prizes=prizes)
    if new.gather:
        # the bots come at the start; an evening they could not fill is refused now
        check_fill({g: sum(p.group == g for p in players) for g in ("A", "B")})
        return new_evening(config, players), []
    return started(new_evening(config, players))


def started(evening: Evening, first_id: int = 0) -> tuple[Evening, list[int]]:
    """``evening`` (not started) with the filler players that give every table two of
    each group, started (hand 1 seated); and the fillers' ids (from ``first_id`` on, or
    the first after the players')."""
    players = list(evening.players)
    count = {g: sum(p.group == g for p in players) for g in ("A", "B")}
    check_fill(count)
    per_group = max(2, count["A"], count["B"])
    per_group += per_group % 2  # two of each group at every table
    taken = {p.name.casefold() for p in players}
    bots: list[int] = []
    pid = max(first_id, max((p.id for p in players), default=0) + 1)
    for g in ("A", "B"):
        for _ in range(per_group - count[g]):
            n = len(bots) + 1
            while f"bot {n}" in taken:  # a person who joined as "Bot 1"
                n += 1
            taken.add(f"bot {n}")
            bots.append(pid)
            players.append(Player(pid, f"Bot {n}", g))
            pid += 1
    return start(with_players(evening, players)), bots


def check_fill(count: Mapping[str, int]) -> None:
    """Refused (400) if players of groups A and B (``count``) need more than
    :data:`MAX_PLAYERS` seats once bots give every table two of each group."""
    per_group = max(2, count["A"], count["B"])
    per_group += per_group % 2
    bots = 2 * per_group - count["A"] - count["B"]
    if 2 * per_group > MAX_PLAYERS:
        raise OnlineError(
            400,
            f"{count['A']} players of group A and {count['B']} of group B need"
            f" {bots} bots to fill their tables (two of each group at a table):"
            f" {2 * per_group} seats, at most {MAX_PLAYERS}; balance the groups",
        )


def deal_seed(secret: str, hand: int) -> int:
    """The duplicate deal of ``hand``: the same at every table, unknown to the players."""
    digest = hashlib.blake2b(f"{secret}:{hand}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


# -- the runtime ----------------------------------------------------------------------------


class Evenings:
    """The online evenings of one server process: made, driven by their tables' results
    and their clocks, and read for the pages. With a cluster (``tables.cluster``) the
    stored state is the evening's and this process's copy follows it (see the module's
    docstring)."""

    def __init__(self, tables: Tables, time_scale: float = 1.0) -> None:
        self.tables = tables
        self.store = tables.store
        self.cluster = tables.cluster
        self.time_scale = time_scale
        self.live: dict[str, OnlineEvening] = {}
        self.over: dict[str, OnlineEvening] = {}  # finished evenings read lately
        self._locks: dict[str, asyncio.Lock] = {}
        self._clocks: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._saving: set[str] = set()  # evenings with a write coming (_save_soon)
        # with a cluster: a request to another process (node, op, arguments), the relays'
        self.ask: Callable[[str, str, dict[str, Any]], Coroutine[Any, Any, Any]] | None = None
        self._checked: dict[str, float] = {}  # when each copy was compared with the store
        self._unsaved_seen: dict[str, set[int]] = {}  # players seen, not yet stored
        # with a cluster: the evenings this process drives (made here, or their lease
        # held: the limits count these), and when each lease was last tried
        self._driven: set[str] = set()
        self._tried: dict[str, float] = {}
        # with a cluster: results told here, not yet stored (game -> N-S tricks, away)
        self._pending: dict[str, dict[str, tuple[int, list[str]]]] = {}
        # with a cluster: the evenings stored lately found over (not looked at again)
        self._finished: set[str] = set()

    def _lock(self, evening_id: str) -> asyncio.Lock:
        return self._locks.setdefault(evening_id, asyncio.Lock())

    async def get(self, evening_id: str) -> OnlineEvening | None:
        ev = self.live.get(evening_id)
        if ev is not None:
            self._start_clock(ev)  # (running already, but for a task that ended)
            await self._refresh(ev, force=False)
            return ev
        if not evening_id.isalnum() or len(evening_id) > 32:
            return None
        row = await asyncio.to_thread(self.store.online_evening, evening_id)
        if row is None:
            return None
        ev = self.over.get(evening_id)
        if ev is not None and ev.version == row[1]:
            return ev
        ev = OnlineEvening.from_json(row[0])
        ev.version = row[1]
        if not ev.over():
            ev = self.live.setdefault(evening_id, ev)  # another request may have read it
            self._checked[evening_id] = time.monotonic()
            self._start_clock(ev)
        else:  # kept with its derivation: a finished room is read again and again
            self.over[evening_id] = ev
            while len(self.over) > KEPT_OVER:
                self.over.pop(next(iter(self.over)))
        return ev

    async def _refresh(self, ev: OnlineEvening, force: bool = True, behind: bool = False) -> None:
        """With a cluster: this process's copy of the evening made the stored state, if
        another process changed it (``force``: now; else if the copy was last compared
        more than :data:`FOLLOW_SECONDS` ago). The players seen here and not yet stored
        stay seen. ``behind``: a write found the copy behind the store (in one process
        too: a commit that succeeded but was reported as failed); results kept only in
        memory are then left to the clock's :meth:`_recover`."""
        if self.cluster is None and not behind:
            return
        now = time.monotonic()
        if not force and now - self._checked.get(ev.id, 0.0) < FOLLOW_SECONDS:
            return
        self._checked[ev.id] = now
        version = await asyncio.to_thread(self.store.online_evening_version, ev.id)
        if version is None or version <= ev.version:
            return
        row = await asyncio.to_thread(self.store.online_evening, ev.id)
        if row is None or row[1] <= ev.version:  # this process's own write came first
            return
        fresh = OnlineEvening.from_json(row[0])
        fresh.version = row[1]  # the row's (the compare-and-set's), whatever the text says
        for f in dataclasses.fields(OnlineEvening):
            setattr(ev, f.name, getattr(fresh, f.name))
        ev.seen += [p for p in sorted(self._unsaved_seen.get(ev.id, ())) if p not in ev.seen]
        pending = self._pending.get(ev.id, {})
        for game, (tricks, away) in list(pending.items()):
            applied = with_result(ev, game, tricks, away)
            if applied is None:
                del pending[game]  # stored meanwhile (by this process or another)
            else:
                ev.evening, ev.hands = applied
        if ev.over() and not pending:
            self._ended(ev)

    def _ended(self, ev: OnlineEvening) -> None:
        """The evening is over: no longer live here."""
        self.live.pop(ev.id, None)
        self._checked.pop(ev.id, None)
        self._unsaved_seen.pop(ev.id, None)
        self._tried.pop(ev.id, None)
        self._pending.pop(ev.id, None)
        self._locks.pop(ev.id, None)  # (a step holding it goes on with it)
        if self.cluster is not None:
            self._finished.add(ev.id)

    def _running(self) -> list[OnlineEvening]:
        """The evenings under way that this process answers for (the limits'): all live
        ones, or with a cluster those it drives (other processes' are live here too,
        for their pages)."""
        if self.cluster is None:
            return list(self.live.values())
        return [e for e in self.live.values() if e.id in self._driven]

    async def _changing(self, ev: OnlineEvening, step: Callable[[], Awaitable[T]]) -> T:
        """Run ``step`` (which reads the evening and stores its change with
        :meth:`_commit`) under the evening's lock; with a cluster on the state as stored,
        and again whenever another process changed the evening first (:class:`Stale`)."""
        async with self._lock(ev.id):
            behind = False
            for _ in range(RETRIES):
                await self._refresh(ev, behind=behind)
                try:
                    return await step()
                except Stale:
                    behind = True
        raise StoreError(
            f"the evening changed {RETRIES} times while this change was being stored; try again"
        )

    async def resume(self) -> None:
        """At the server's start: take up again every unfinished evening stored within
        :data:`RESUME_SECONDS` (at most :data:`MAX_LIVE`): its clock runs again (a hand
        whose time ran out while the server was down is finished by stand-ins at its
        first tick), a hand being finished is finished again, and a table whose game
        ended without its result in the evening (the server stopped in between) gets it
        recorded. An evening not taken up here is when it is next asked for. With a
        cluster every process takes them up, and the one that holds an evening's lease
        does the rest from its clock."""
        since = time.time() - RESUME_SECONDS
        for evening_id in await asyncio.to_thread(self.store.online_evening_ids, since):
            if len(self.live) >= MAX_LIVE:
                break
            try:
                ev = await self.get(evening_id)
                if ev is not None and ev.in_play() is not None and self.cluster is None:
                    await self._recover(ev)
            except (StoreError, ValueError, KeyError):
                log.exception("online evening %s could not be taken up again", evening_id)
        if self.cluster is not None:
            self._spawn(self._watch())

    async def _watch(self) -> None:
        """With a cluster, every :data:`WATCH_SECONDS`: take up the unfinished evenings
        stored within :data:`RESUME_SECONDS` whose lease nobody holds (the process that
        drove one stopped, and no page of it reached another process since)."""
        assert self.cluster is not None
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            try:
                since = time.time() - RESUME_SECONDS
                stored = await asyncio.to_thread(self.store.online_evening_ids, since)
                self._finished &= set(stored)  # bounded by the evenings stored lately
                ids = [i for i in stored if i not in self.live and i not in self._finished]
                holders = await self.cluster.holders([LEASE_PREFIX + i for i in ids])
                for evening_id, holder in zip(ids, holders, strict=True):
                    if holder is not None or len(self._running()) >= MAX_LIVE:
                        continue
                    try:
                        ev = await self.get(evening_id)  # live: its clock takes the lease
                    except (ValueError, KeyError):  # a state that cannot be read: once
                        log.exception("online evening %s cannot be taken up", evening_id)
                        self._finished.add(evening_id)
                        continue
                    if ev is not None and ev.over():
                        self._finished.add(evening_id)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("looking for evenings nobody drives failed (%s); again later", e)

    async def _recover(self, ev: OnlineEvening, settle: float = 0.0) -> None:
        """The results of the hand in play whose tables are over in the store (for at
        least ``settle`` seconds: their owner tells the result itself, with who was away)
        but not in the evening, recorded (a result whose write failed, or whose owner
        stopped first); its tables finished again if they were being; with a cluster, its
        unfinished tables that no process owns taken up here (their bots and stand-ins
        play on)."""
        hand = ev.in_play()
        if hand is None:
            return
        tables = ev.hands[hand - 1]
        missing = [g for n, g in enumerate(tables.games, start=1) if not ev.reported(hand, n)]
        done = await asyncio.to_thread(self.store.finished_at, missing)
        for game, updated in done.items():
            if time.time() - updated < settle:
                continue
            tricks = await self._stored_tricks(game)
            if tricks is not None:
                # who was away at its end is not known: nobody (their pages come back)
                await self.result(ev.id, game, tricks, [])
        if ev.in_play() != hand:
            return
        playing = [g for g in missing if g not in done]
        if tables.finishing:
            await self._finish_tables(playing)
        elif self.cluster is not None:
            for game, holder in zip(playing, await self.cluster.holders(playing), strict=True):
                if holder is None:
                    with contextlib.suppress(Elsewhere):
                        table = await self.tables.open(game)
                        if isinstance(table, SharedTable):
                            table.review()
                            table.wake_bots()

    async def _stored_tricks(self, game: str) -> int | None:
        """N-S's tricks at a table whose game is over, from the table in memory or (read
        only: it never changes again) from the store."""
        table: Table | None = self.tables.loaded(game)
        if table is None:
            row = await asyncio.to_thread(self.store.get, game)
            if row is None or not row.finished:
                return None
            table, _ops = await asyncio.to_thread(
                self.tables.table_class.load, self.store, row, 0.0, self.tables.think
            )
        if table is None or not table.state.is_over:
            return None
        return table.state.results[-1].tricks[0]

    async def _commit(
        self,
        ev: OnlineEvening,
        staged: OnlineEvening,
        ops: list[Any] | None = None,
        done: Derivation | None = None,
    ) -> None:
        """Store ``ops`` and ``staged`` (the evening's next state) in one transaction,
        if the stored version is still the one in memory (:class:`Stale` if not), then
        make it the state in memory (with ``done``, its derivation, if known)."""
        staged.version = ev.version + 1
        expect = None if ev.version == 0 else (ev.id, ev.version)  # 0: a new evening
        op = self.store.evening_op(ev.id, staged.to_json(), staged.version)
        await self.store.submit_async([*(ops or []), op], expect=expect)
        if ev.version < staged.version:  # not overtaken meanwhile by a newer copy read
            seen_here = [p for p in ev.seen if p not in staged.seen and p in staged.tokens]
            for f in dataclasses.fields(OnlineEvening):
                setattr(ev, f.name, getattr(staged, f.name))
            ev.seen = [*staged.seen, *seen_here]
            ev._derived = None if done is None else (staged.evening, done, time.monotonic())
        pending = self._pending.get(ev.id)
        if pending:
            for game in list(pending):
                where = staged.hand_of_game(game)
                if where is None or staged.reported(*where):
                    del pending[game]

    async def _save(self, ev: OnlineEvening) -> None:
        await self._commit(ev, replace(ev, seen=list(ev.seen)), done=None)

    async def create(self, new: NewEvening) -> OnlineEvening:
        """A new evening with its first hand's tables made and stored (with ``gather``
        stored without tables: the host starts it)."""
        running = self._running()
        if len(running) >= MAX_LIVE:
            raise OnlineError(
                503, f"{MAX_LIVE} evenings are under way on this server; try again later"
            )
        playing = sum(len(e.evening.players) for e in running)
        if playing + len(new.players) > MAX_LIVE_PLAYERS:
            raise OnlineError(
                503,
                f"the evenings under way on this server have {playing} players, and at most"
                f" {MAX_LIVE_PLAYERS} can play at once; try again later",
            )
        seed = secrets.randbelow(2**63)
        try:
            evening, bots = evening_model(new, seed)
        except EveningError as e:
            raise OnlineError(400, str(e)) from None
        ev = OnlineEvening(
            id=secrets.token_hex(6),
            title=new.title,
            host_key=secrets.token_urlsafe(TOKEN_BYTES),
            level=new.level,
            seconds_per_hand=new.seconds_per_hand,
            duplicate=new.duplicate,
            evening=evening,
            tokens={
                p.id: secrets.token_urlsafe(TOKEN_BYTES)
                for p in evening.players
                if p.id not in bots
            },
            bots=bots,
            secret=secrets.token_hex(16),
            created=time.time(),
            version=0,
            open_join=new.open_join,
            grouped=new.grouped,
            gathering=new.gather,
        )
        self.live[ev.id] = ev
        self._checked[ev.id] = time.monotonic()
        if self.cluster is not None:
            self._driven.add(ev.id)  # until its clock knows who holds its lease
        try:
            async with self._lock(ev.id):
                if ev.gathering:
                    await self._save(ev)
                else:
                    await self._seat(ev, evening, derive(evening), 1)
        except BaseException:
            self._ended(ev)
            raise
        self._start_clock(ev)
        return ev

    async def _seat(
        self,
        ev: OnlineEvening,
        evening: Evening,
        done: Derivation,
        hand: int,
        basis: OnlineEvening | None = None,
    ) -> None:
        """Make the shared tables of ``hand`` as the organiser's rules seat it in
        ``evening`` (derived: ``done``), store them with the evening's new state, and
        only then make that state the one in memory, so that no page is sent to a table
        not yet stored; then play them here (with a cluster, holding their leases).
        ``basis``: the state the new one is made from, if not ``ev``'s own (the start of
        a gathered evening: its bots and players). Call with the evening's lock."""
        b = ev if basis is None else replace(basis, evening=evening)
        seated = done.hand(hand)
        prev_away: set[int] = set()
        # at their table when the last hand ended: they have opened their link, even if
        # the process that saw them open it lost that (paused past its lease, restarted);
        # a table whose result was recovered (_recover) names nobody away, so its people
        # count as come: at worst a stand-in waits the table's grace for one who never came
        prev_present: set[int] = set()
        if hand > 1:
            before = done.hand(hand - 1)
            tables_before = ev.hands[hand - 2]
            for t in before.tables:
                gone = tables_before.away[t.table - 1] if tables_before.away else []
                for letter, pid in t.seat_map().items():
                    if pid not in b.bots:
                        (prev_away if letter in gone else prev_present).add(pid)
        seen = set(ev.seen) | prev_present
        made: list[SharedTable] = []
        ops = []
        dealer_seat = None
        for t in seated.tables:
            seats = {
                s: (BOT_PREFIX + b.level if pid in b.bots else HUMAN)
                for s, pid in enumerate(t.seats)
            }
            first_dealer = t.seats.index(t.dealer)
            if b.duplicate:  # the same deal, dealer and leader at every table
                dealer_seat = first_dealer if dealer_seat is None else dealer_seat
                first_dealer = dealer_seat
            table, table_ops = self.tables.table_class.new(
                self.store,
                "felagsvist",
                {"evening_hand": hand},
                seed=deal_seed(b.secret, hand) if b.duplicate else None,
                seats=seats,
                bot_delay=self.tables.bot_delay,
                think=self.tables.think,
                first_dealer=first_dealer,
                secret=secrets.token_bytes(32),
            )
            assert isinstance(table, SharedTable)
            table.shared = Shared(
                level=b.level,
                timeout=TURN_SECONDS,
                watch_token=secrets.token_urlsafe(TOKEN_BYTES),
                names={s: b.name(pid) for s, pid in enumerate(t.seats) if pid not in b.bots},
                started=True,
                evening=b.id,
            )
            # a person away at the end of the last hand (or whose link was never opened
            # since): a stand-in plays at once, until they join
            table.away = {
                s
                for s, pid in enumerate(t.seats)
                if pid not in b.bots and (pid in prev_away or (hand > 1 and pid not in seen))
            }
            made.append(table)
            ops += table_ops + table.config_ops()
        tables = HandTables(
            games=[t.id for t in made],
            tokens=[{seat_name(s): tok for s, tok in t.tokens.items()} for t in made],
            started=time.time(),
        )
        staged = replace(
            b,
            evening=evening,
            hands=[*ev.hands, tables],
            seen=[*ev.seen, *sorted(prev_present - set(ev.seen))],
        )
        await self._commit(ev, staged, ops, done)
        for table in made:
            table._stored()
        # kept at once (before any await: a page sent to its new table meanwhile must
        # not load a second copy of it), with a cluster once its lease is taken
        owning = [self.tables.own(t) for t in made]
        # the word goes out at once, before any await: a person who found the new table
        # by a poll meanwhile would have left the old one before being told
        self._tell_moved(ev, hand)
        owned = await asyncio.gather(*owning, return_exceptions=True)
        for table, here in zip(made, owned, strict=True):
            if here is table:
                table.review()
                table.wake_bots()
            elif isinstance(here, Exception) and not isinstance(here, Elsewhere):
                # the bus failed: the evening's clock takes the table up (_recover)
                log.warning("table %s of evening %s was left unowned: %s", table.id, b.id, here)

    def _save_soon(self, ev: OnlineEvening) -> None:
        """Store the evening's state in :data:`SAVE_DELAY` seconds (once for all the
        changes until then)."""
        if ev.id in self._saving:
            return
        self._saving.add(ev.id)

        async def later() -> None:
            await asyncio.sleep(SAVE_DELAY)
            self._saving.discard(ev.id)
            unsaved = self._unsaved_seen.get(ev.id, set())
            saving = set(unsaved)

            async def flush() -> None:
                # results kept here may complete the hand on the state as stored (another
                # process's results came first): then they seat the next one
                complete = self.live.get(ev.id) is ev and ev.in_play() is None
                if not (complete and await self._advance(ev, ev.evening, ev.hands)):
                    await self._save(ev)

            await self._changing(ev, flush)
            unsaved -= saving

        self._spawn(later())

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task: asyncio.Task[Any] = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _tell_moved(self, ev: OnlineEvening, hand: int) -> None:
        """Tell the people still at the tables of the hand before ``hand`` (just seated,
        or ``hands + 1``: the evening is over) where they go now; with a cluster, the
        tables owned by other processes are told by their owners."""
        self.tell_moved_here(ev, hand)
        if self.cluster is not None and 2 <= hand <= len(ev.hands) + 1:
            self._spawn(self._tell_owners(ev.id, ev.hands[hand - 2].games, hand))

    async def _tell_owners(self, evening_id: str, games: list[str], hand: int) -> None:
        assert self.cluster is not None
        if self.ask is None:
            return
        nodes = {n for n in await self.cluster.holders(games) if n and n != self.cluster.node}
        args = {"e": evening_id, "h": hand}
        await asyncio.gather(*(self.ask(n, "evening_moved", args) for n in sorted(nodes)))

    async def moved(self, evening_id: str, hand: int) -> None:
        """Another process seated ``hand`` (or ended the evening): tell the people at the
        tables of the hand before it that this process owns."""
        ev = self.live.get(evening_id) or await self.get(evening_id)
        if ev is None:
            return
        await self._refresh(ev)
        self.tell_moved_here(ev, hand)

    def tell_moved_here(self, ev: OnlineEvening, hand: int) -> None:
        """Tell the people at this process's tables of the hand before ``hand`` where
        they go now: each person's own sockets get their link's state as ``GET .../me``
        answers it (with the new seat's token: nobody else's socket gets it), so that no
        page has to ask; watchers get the word alone."""
        if hand < 2 or hand - 2 >= len(ev.hands):
            return
        if len(ev.hands) < hand and ev.in_play() is not None:
            return  # this copy has not the new seating yet
        done = ev.derived()
        before = done.hand(hand - 1)
        for t, game in zip(before.tables, ev.hands[hand - 2].games, strict=True):
            table = self.tables.loaded(game)
            if not isinstance(table, SharedTable) or table.shared is None:
                continue
            word: dict[str, Any] = {"type": "evening_next", "hand": done.current}
            table.send_seats(
                {
                    seat: {**word, "me": player_json(ev, pid, "/")}
                    for seat, pid in enumerate(t.seats)
                    if pid not in ev.bots
                },
                word,
            )

    def table_over(self, table: Table) -> None:
        """A table's game is over (its last action stored): its result goes into the
        evening (in a task: the table's own lock is held now)."""
        if not isinstance(table, SharedTable) or table.shared is None:
            return
        evening_id = table.shared.evening
        if not evening_id:
            return
        away = [seat_name(s) for s in table.persons() if not table.connected(s)]
        tricks = table.state.results[-1].tricks[0]
        self._spawn(self.result(evening_id, table.id, tricks, away))

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("an online evening's step failed", exc_info=task.exception())

    async def result(self, evening_id: str, game: str, ns_tricks: int, away: list[str]) -> None:
        """A table's result into its evening; the hand's last one seats the next hand."""
        ev = await self.get(evening_id)
        if ev is None:
            return

        async def step() -> None:
            applied = with_result(ev, game, ns_tricks, away)
            if applied is None:
                self._pending.get(ev.id, {}).pop(game, None)
                return  # told twice (a reload, or another process): the first stands
            evening, hands = applied
            if not await self._advance(ev, evening, hands):
                # a result that does not complete its hand changes no seating: it is
                # the evening's at once and stored with the next write (one for the
                # many results of a burst); the table's own record keeps it meanwhile,
                # and with a cluster this process keeps it to add to the state as
                # stored until it is stored (another process may write first)
                ev.evening, ev.hands = evening, hands
                if self.cluster is not None:
                    self._pending.setdefault(ev.id, {})[game] = (ns_tricks, away)
                self._save_soon(ev)

        await self._changing(ev, step)

    async def _advance(self, ev: OnlineEvening, evening: Evening, hands: list[HandTables]) -> bool:
        """If ``evening`` (the evening's results with ``hands``) completes the hand in
        play: seat the next one, or end the evening, storing all (True); else False."""
        hand = len(hands)
        reported = sum(1 for r in evening.results if r.hand == hand)
        if not hands or reported < len(hands[-1].games):
            return False
        after = derive(evening)  # the rules seat the next hand (one derivation a hand)
        if after.current is not None:
            ev.hands = hands  # who was away: read by the seating, stored with it
            await self._seat(ev, evening, after, after.current)
        else:  # the evening is over
            staged = replace(ev, evening=evening, hands=hands, seen=list(ev.seen))
            await self._commit(ev, staged, [], after)
            self._tell_moved(ev, hand + 1)
        if after.finished:
            self._ended(ev)
        return True

    async def finish_hand(self, ev: OnlineEvening, hand: int | None = None) -> int | None:
        """Stand-ins finish every table of ``hand`` still playing (its time is up, or
        the host ended it; None: the hand in play as stored, with a cluster read at the
        change). The hand, or None if the evening is over."""

        async def step() -> tuple[int | None, bool]:
            which = ev.in_play()
            if which is None or (hand is not None and hand != which):
                return which, False  # over (the clock's copy may have been behind)
            if ev.hands[which - 1].finishing:
                return which, False
            hands = list(ev.hands)
            hands[which - 1] = replace(hands[which - 1], finishing=True)
            await self._commit(ev, replace(ev, hands=hands, seen=list(ev.seen)))
            return which, True

        which, changed = await self._changing(ev, step)
        if which is not None and changed:
            await self._finish_tables(ev.hands[which - 1].games)
        return which

    async def _finish_tables(self, games: list[str]) -> None:
        for game in games:
            try:
                await self.finish_table(game)
            except Elsewhere as e:
                if self.ask is not None:  # its owner does it
                    self._spawn(self.ask(e.node, "evening_finish", {"g": game}))

    async def finish_table(self, game: str) -> None:
        """Stand-ins finish this table of an evening (:class:`Elsewhere`: another
        process owns it)."""
        table = await self.tables.open(game)
        if not isinstance(table, SharedTable) or table.shared is None:
            return
        if not table.shared.evening or table.state.is_over:
            return  # not an evening's table (asked over the bus), or done
        if not table.shared.finish:
            table.shared.finish = True
            with contextlib.suppress(StoreError):
                await table._save()
        # woken even if it was finishing already: a table loaded from the store (after a
        # restart, or by a new owner) with its finish set has nobody playing yet
        table.review()
        table.wake_bots()

    def _start_clock(self, ev: OnlineEvening) -> None:
        if ev.id in self._clocks:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self._clock(ev.id))
        self._clocks[ev.id] = task

        def done(task: asyncio.Task[None]) -> None:
            self._clocks.pop(ev.id, None)
            if not task.cancelled() and task.exception() is not None:
                log.error("evening %s: its clock stopped", ev.id, exc_info=task.exception())

        task.add_done_callback(done)

    async def _clock(self, evening_id: str) -> None:
        """End the hand in play when its time is up, and every :data:`RECOVER_SECONDS`
        record the results of tables done without a word (:meth:`_recover`), until the
        evening is over; with a cluster, while this process holds the evening's lease. A
        failure (the database or the bus out of reach) is logged and tried again at the
        next tick: the clock never stops before the evening does."""
        looked = time.monotonic()
        failing = False  # told once in the log until a step works again
        try:
            while True:
                await asyncio.sleep(TICK)
                ev = self.live.get(evening_id)
                if ev is None:
                    return
                try:
                    if self.cluster is not None:
                        if not await self._hold(evening_id):
                            continue
                        await self._refresh(ev, force=False)
                    if ev.gathering:
                        if time.time() - ev.created >= GATHER_SECONDS * self.time_scale:
                            await self.start_evening(ev, expired=True)
                        continue
                    # None: over (then no longer live), or a hand complete in memory whose
                    # next one is being seated
                    if ev.in_play() is None:
                        continue
                    if time.monotonic() - looked >= RECOVER_SECONDS:
                        looked = time.monotonic()
                        await self._recover(ev, settle=RECOVER_SECONDS)
                    current = ev.in_play()
                    if current is None:
                        continue
                    tables = ev.hands[current - 1]
                    limit = ev.seconds_per_hand * self.time_scale
                    if not tables.finishing and time.time() - tables.started >= limit:
                        await self.finish_hand(ev, current)
                    if failing:
                        log.warning("evening %s: its clock works again", ev.id)
                        failing = False
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    if not failing:
                        log.warning(
                            "evening %s: its clock's step failed (%s); trying again", ev.id, e
                        )
                        failing = True
        finally:
            self._driven.discard(evening_id)
            if self.cluster is not None and self.cluster.leases.get(LEASE_PREFIX + evening_id):
                with contextlib.suppress(Exception):
                    await self.cluster.release(LEASE_PREFIX + evening_id)

    async def _hold(self, evening_id: str) -> bool:
        """Does this process hold the evening's lease (taking it if it is free; tried
        at most twice a lease's time)?"""
        cluster = self.cluster
        assert cluster is not None
        key = LEASE_PREFIX + evening_id
        if cluster.valid(key):
            self._driven.add(evening_id)
            return True
        self._driven.discard(evening_id)
        now = time.monotonic()
        if now - self._tried.get(evening_id, 0.0) < cluster.lease_seconds / 2:
            return False
        self._tried[evening_id] = now
        cluster.forget(key)  # lapsed here (a stopped process): taken again if free
        try:
            held = not isinstance(await cluster.acquire(key), str)
        except Exception as e:  # the bus unreachable: try again later
            log.warning("evening %s: its lease could not be taken: %s", evening_id, e)
            return False
        if held:
            self._driven.add(evening_id)
        return held

    async def close(self) -> None:
        for task in list(self._clocks.values()) + list(self._tasks):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    # -- the open join link --------------------------------------------------------------

    async def join(self, ev: OnlineEvening, name: Any, group: Any) -> tuple[int, str]:
        """A new player through the open join link: ``(id, their token)``. They play
        from the next hand (an arrival, in the organiser's terms); the filler bots are
        balanced for it (a bot of their group leaves after the hand in play, or new ones
        come with them) so that every table still has two of each group. With groups
        the joiner chooses one (None: the smaller); without, they are put in the smaller
        of the two halves. :class:`OnlineError` names what is refused."""
        try:
            name = read_name(name)
        except ProtocolError as e:
            raise OnlineError(400, e.message) from None
        if group not in ("A", "B", None):
            raise OnlineError(400, f'\'group\' must be "A", "B" or null, not {quote(group)}')

        async def step() -> tuple[int, str]:
            chosen = group
            if not ev.open_join:
                raise OnlineError(403, "the host has closed this evening's join link", "closed")
            current = ev.in_play()
            if ev.gathering:
                current = 0  # they play from hand 1, as those the host entered
            elif current is None:
                raise OnlineError(409, "the evening is over", "no_hand_left")
            if current >= ev.evening.config.hands:
                raise OnlineError(
                    409,
                    f"hand {current} is the evening's last: there is no hand left to join",
                    "no_hand_left",
                )
            taken = {p.name.casefold() for p in ev.evening.players}
            if name.casefold() in taken:
                raise OnlineError(
                    400,
                    f"the name {quote(name)} is taken in this evening; choose another",
                    "name_taken",
                )
            arrives = current + 1
            bots = set(ev.bots)
            there = [p for p in ev.evening.players if p.present(arrives)]
            people = {g: sum(p.id not in bots and p.group == g for p in there) for g in "AB"}
            if chosen is None or not ev.grouped:
                chosen = "A" if people["A"] <= people["B"] else "B"
            people[chosen] += 1
            per_group = max(2, people["A"], people["B"])
            per_group += per_group % 2
            if 2 * per_group > MAX_PLAYERS:
                raise OnlineError(
                    409, f"the evening is full: its tables have {MAX_PLAYERS} seats at most"
                )
            players = list(ev.evening.players)
            new_bots = list(ev.bots)
            pid = ev.next_id()
            players.append(Player(pid, name, chosen, arrives=arrives))
            # gathering: the bots come at the start, for the players there then
            for g in "AB" if current else ():
                staying = sorted(
                    (p for p in there if p.id in bots and p.group == g), key=lambda p: p.arrives
                )
                need = per_group - people[g]
                for bot in staying[need:]:  # its place is the joiner's from the next hand
                    if bot.arrives > current:  # never seated: it goes
                        players.remove(bot)
                        new_bots.remove(bot.id)
                    else:
                        players[players.index(bot)] = replace(bot, leaves=current)
                for _ in range(need - len(staying)):
                    n = len(new_bots) + 1
                    while f"bot {n}" in taken:
                        n += 1
                    taken.add(f"bot {n}")
                    new_bots.append(max(p.id for p in players) + 1)
                    players.append(Player(new_bots[-1], f"Bot {n}", g, arrives=arrives))
            added = len(players) - len(ev.evening.players)
            playing = sum(len(e.evening.players) for e in self._running())
            if playing + added > MAX_LIVE_PLAYERS:
                raise OnlineError(
                    503,
                    f"the evenings under way on this server have {playing} players, and at"
                    f" most {MAX_LIVE_PLAYERS} can play at once; try again later",
                )
            try:
                evening = with_players(ev.evening, players)
            except EveningError as e:  # not expected: the seated hands stay as they are
                raise OnlineError(409, f"no player can join now: {e}") from None
            token = secrets.token_urlsafe(TOKEN_BYTES)
            staged = replace(
                ev,
                evening=evening,
                tokens={**ev.tokens, pid: token},
                bots=new_bots,
                last_id=max(p.id for p in players),
                seen=[*ev.seen, pid],  # they are on the page
            )
            await self._commit(ev, staged)  # a derivation kept has not the new players
            return pid, token

        return await self._changing(ev, step)

    async def set_join(self, ev: OnlineEvening, open_join: bool) -> None:
        """The host opens or closes the join link."""

        async def step() -> None:
            if ev.over():
                raise OnlineError(409, "the evening is over", "over")
            if ev.open_join != open_join:
                await self._commit(ev, replace(ev, open_join=open_join, seen=list(ev.seen)))

        await self._changing(ev, step)

    async def remove(self, ev: OnlineEvening, player: Any) -> str:
        """The host removes a player while the evening gathers (one who joined twice, or
        a name that should not be there): their link stops working. The name removed."""
        if not _whole(player):
            raise OnlineError(400, f"'player' must be a player's id, not {quote(player)}")

        async def step() -> str:
            if ev.over():
                raise OnlineError(409, "the evening is over", "over")
            if not ev.gathering:
                raise OnlineError(
                    409,
                    "players are removed only while the evening gathers; once it has"
                    " started a stand-in plays for whoever is away",
                    "started",
                )
            if not any(p.id == player for p in ev.evening.players):
                raise OnlineError(404, f"no player {player} in this evening")
            name = ev.name(player)
            players = [p for p in ev.evening.players if p.id != player]
            tokens = {k: v for k, v in ev.tokens.items() if k != player}
            staged = replace(
                ev,
                evening=with_players(ev.evening, players),
                tokens=tokens,
                seen=[p for p in ev.seen if p != player],
                last_id=ev.next_id() - 1,
            )
            await self._commit(ev, staged)
            self._unsaved_seen.get(ev.id, set()).discard(player)
            return name

        return await self._changing(ev, step)

    async def start_evening(self, ev: OnlineEvening, expired: bool = False) -> None:
        """The host starts an evening that gathered its players through the join link:
        filler bots join them so that every table has two of each group, and hand 1 is
        seated. ``expired``: nobody started it within :data:`GATHER_SECONDS`, and it
        ends unplayed. :class:`OnlineError` names what is refused."""

        async def step() -> None:
            if not ev.gathering:
                if expired:
                    return
                if ev.hands:
                    raise OnlineError(409, "the evening has started already", "started")
                raise OnlineError(409, "the evening is over: it was not started in time", "over")
            if expired:
                await self._commit(ev, replace(ev, gathering=False, seen=list(ev.seen)))
                self._ended(ev)
                return
            people = len(ev.evening.players)
            if people < MIN_PLAYERS:
                raise OnlineError(
                    409,
                    f"at least {MIN_PLAYERS} players are needed to start; {people} so far",
                    "too_few",
                )
            try:
                evening, bots = started(ev.evening, ev.next_id())
            except EveningError as e:  # not expected: the joins were checked
                raise OnlineError(409, f"the evening cannot start: {e}") from None
            playing = sum(len(e.evening.players) for e in self._running())
            if playing + len(bots) > MAX_LIVE_PLAYERS:
                raise OnlineError(
                    503,
                    f"the evenings under way on this server have {playing} players, and at"
                    f" most {MAX_LIVE_PLAYERS} can play at once; try again later",
                )
            basis = replace(ev, bots=bots, gathering=False, last_id=max([ev.last_id, *bots]))
            await self._seat(ev, evening, derive(evening), 1, basis=basis)

        await self._changing(ev, step)

    # -- what the pages get ------------------------------------------------------------

    async def player_of(self, ev: OnlineEvening, token: object) -> int | None:
        """The player holding ``token``; with a cluster, a token this copy does not know
        is looked for in the state as stored too (a person who just joined through
        another process: their page's first look may come here before this copy is
        compared with the store again)."""
        player = ev.player_of(token)
        if player is None and self.cluster is not None and isinstance(token, str) and token:
            await self._refresh(ev)
            player = ev.player_of(token)
        return player

    async def mark_seen(self, ev: OnlineEvening, player: int) -> None:
        """A player opened their link: at once in memory, stored with the next write
        (one for all the players of a burst; each stored alone, 520 players opening their
        links at an evening's start wrote the whole evening 520 times, one after the
        other). A restart within the delay loses only that they came: a stand-in then
        plays until they join."""
        if player in ev.seen:
            return
        ev.seen.append(player)
        # kept seen when the stored state is read again (another process's change)
        self._unsaved_seen.setdefault(ev.id, set()).add(player)
        self._save_soon(ev)


def with_result(
    ev: OnlineEvening, game: str, ns_tricks: int, away: list[str]
) -> tuple[Evening, list[HandTables]] | None:
    """The evening's results and hands with a table's result (N-S's tricks, who was away
    at its end) added; None if the table is not of the hand in play or has reported."""
    where = ev.hand_of_game(game)
    if where is None:
        return None
    hand, table = where
    if ev.in_play() != hand or ev.reported(hand, table):
        return None
    # the organiser's add_result, less its check by a whole derivation (a tenth of a
    # second in a big room, for each table): the table is seated in the hand in play (it
    # is a game of it) and has not reported (checked above)
    result = Result(hand, table, ns_tricks)
    result.check()
    evening = replace(ev.evening, results=(*ev.evening.results, result))
    last = ev.hands[hand - 1]
    away_now = [list(a) for a in last.away] or [[] for _ in last.games]
    away_now[table - 1] = away
    return evening, [*ev.hands[:-1], replace(last, away=away_now)]


def hand_in_play(ev: OnlineEvening) -> int | None:
    """The hand being played (None once the evening is over)."""
    return ev.in_play()


def _seat_json(
    ev: OnlineEvening, done: Derivation, hand: int, player: int
) -> dict[str, Any] | None:
    t = done.hand(hand).table_of(player)
    if t is None:  # a player who joined during the hand: they come in the next one
        return None
    seat = t.seat_of(player)
    return {
        "hand": hand,
        "contract": done.hand(hand).contract,
        "table": t.table,
        "seat": seat,
        "partner": ev.name(t.partner_of(player)),
        "game": ev.hands[hand - 1].games[t.table - 1],
    }


def player_json(ev: OnlineEvening, player: int, base: str) -> dict[str, Any]:
    """A player's page: where they sit now (with the seat's token), their last hand's
    outcome and their total."""
    done = ev.derived()
    out: dict[str, Any] = {
        "evening": ev.id,
        "title": ev.title,
        "hands": ev.evening.config.hands,
        "player": {"id": player, "name": ev.name(player)},
        "total": done.totals[player],
        "finished": ev.over(),
        "room_url": f"{base}?room={ev.id}",
    }
    if ev.gathering:  # the host starts it; meanwhile the page says who has come
        out["gathering"] = True
        # those who came: joined through the link, or opened the link the host made
        seen = set(ev.seen)
        out["joined"] = sum(p.id in seen for p in ev.evening.players)
        return out
    if not ev.hands:
        out["unplayed"] = True  # nobody started it in time
        return out
    current = done.current
    if current is not None and current <= len(ev.hands):
        now = _seat_json(ev, done, current, player)
        if now is not None:
            now["token"] = ev.hands[current - 1].tokens[now["table"] - 1][now["seat"]]
            out["now"] = now
        else:  # joined through the open link during the hand: they play from the next
            out["from_hand"] = ev.evening.player(player).arrives
    last = (current - 1) if current is not None else len(done.hands)
    t = done.hand(last).table_of(player) if last >= 1 else None
    if t is not None:
        assert t.points is not None
        mine = t.points_of(player)
        out["last"] = {
            "hand": last,
            "table": t.table,
            "points": mine,
            "won": t.winner == t.side_of(player),
        }
    return out


def room_json(ev: OnlineEvening, host: bool = False, base: str = "") -> dict[str, Any]:
    """The room's page (everyone): the leaderboard by group, who is still playing, the
    hands' seatings and moves; the host's answer adds the players' personal links and
    the organiser's document."""
    done = ev.derived()
    # in duplicate, nothing of the hand in play (the same deal at every table)
    shown = done if host else ev.shown(done)
    hidden = shown is not done  # the tricks and points of the hand in play
    reported = {(r.hand, r.table) for r in ev.evening.results}  # the tables that finished
    bots = set(ev.bots)
    seen = set(ev.seen)

    def who(pid: int) -> dict[str, Any]:
        return {"id": pid, "name": ev.name(pid), "bot": pid in bots}

    grouped = ev.grouped
    boards: dict[str, list[dict[str, Any]]] = {}
    for group in ("A", "B") if grouped else (None,):
        boards[group or "all"] = [
            {**who(s.player), "place": s.place, "total": s.total, "hands": s.hands_played}
            for s in shown.standings(group)
        ]
    hands = []
    for hand in done.hands if ev.hands else ():  # (an evening not started has none)
        tables = ev.hands[hand.number - 1] if hand.number <= len(ev.hands) else None
        secret = hidden and hand.number == done.current
        hands.append(
            {
                "hand": hand.number,
                "contract": hand.contract,
                "complete": hand.complete,
                "finishing": bool(tables and tables.finishing),
                "tables": [
                    {
                        "table": t.table,
                        "seats": {k: who(v) for k, v in t.seat_map().items()},
                        # a table's game (whose record and review anyone may then fetch)
                        # only once the whole hand is over: in duplicate the other
                        # tables are still playing the same deal
                        "game": tables.games[t.table - 1] if tables and hand.complete else None,
                        "ns_tricks": None if secret else t.ns_tricks,
                        "points": list(t.points) if t.points and not secret else None,
                        "over": (hand.number, t.table) in reported,
                    }
                    for t in hand.tables
                ],
                "moves": [
                    {"player": m.player, "from": m.from_table, "to": m.to_table}
                    for m in hand.moves
                    if m.player not in bots
                ],
            }
        )
    people = [p for p in ev.evening.players if p.id not in bots]
    out: dict[str, Any] = {
        "id": ev.id,
        "title": ev.title,
        "hands_total": ev.evening.config.hands,
        "current": None if ev.gathering else done.current,
        "finished": ev.over(),
        # the players gather through the join link until the host starts the evening
        "gathering": ev.gathering,
        "unplayed": ev.over() and not ev.hands,  # nobody started it in time
        "duplicate": ev.duplicate,
        "seconds_per_hand": ev.seconds_per_hand,
        "version": ev.version,
        # the open join link (?join-evening=ID): open (the host's choice), and taking players
        # now (open, and a hand left after the one in play)
        "open_join": ev.open_join,
        "joinable": ev.open_join
        and (ev.gathering or (done.current is not None and done.current < ev.evening.config.hands)),
        "grouped": ev.grouped,
        "leaderboard": boards,
        "totals": {str(p.id): shown.totals[p.id] for p in ev.evening.players},
        "players": [{**who(p.id), "group": p.group, "absent": p.id not in seen} for p in people],
        "absent": [p.id for p in people if p.id not in seen],
        "hands": hands,
        "prizes": [
            {
                "category": z.category,
                "place": z.place,
                "players": [ev.name(p) for p in z.players],
                "value": z.value,
            }
            for z in done.prizes
            if not set(z.players) & bots
        ]
        if ev.over() and ev.hands
        else [],
    }
    if done.current is not None and ev.hands:
        waiting = done.hand(done.current).waiting
        out["playing"] = list(waiting)
    if host:
        # the organiser's own document (whistkit-evening/1: config with its seed,
        # players, results), which the hall organiser reads too
        out["evening"] = ev.evening.to_json()
        out["links"] = created_json(ev, base)["players"]
        out["join_url"] = f"{base}?join-evening={ev.id}"
    return out


def created_json(ev: OnlineEvening, base: str) -> dict[str, Any]:
    """The answer to ``POST /api/online-evenings``: the personal links carry the
    token in the URL's fragment (``#t=``), which no request sends to a server."""
    return {
        "id": ev.id,
        "host_url": f"{base}?room={ev.id}#k={ev.host_key}",
        "host_key": ev.host_key,
        "room_url": f"{base}?room={ev.id}",
        "join_url": f"{base}?join-evening={ev.id}" if ev.open_join else None,
        "players": [
            {"name": ev.name(pid), "url": f"{base}?evening={ev.id}#t={token}"}
            for pid, token in ev.tokens.items()
        ],
    }


# -- the room at the end: cards of hands and the tables' records ---------------------------

RECORDS_FORMAT = "whistkit-online-evening-records/1"
RECORDS_CHUNK = 500  # games read from the store in one query
RECORDS_KEPT = 4  # evenings whose records document is kept built (at most 2.8 MB each)
# the records document holds at most MAX_PLAYERS / 4 tables times MAX_HANDS hands
MAX_RECORDS = (MAX_PLAYERS // 4) * MAX_HANDS


def read_player(ev: OnlineEvening, raw: str) -> int:
    """A player's number from a URL (the leaderboard's ``id``); :class:`OnlineError`
    names what is wrong (400: not a number, 404: no such player)."""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 4:
        raise OnlineError(
            400, f"a player is named by their number (the leaderboard's id), not {quote(raw)}"
        )
    player = int(raw)
    if not any(p.id == player for p in ev.evening.players):
        raise OnlineError(404, f"the evening has no player {player}")
    return player


def card_json(ev: OnlineEvening, player: int) -> dict[str, Any]:
    """A player's card of hands, as the hall organiser's score card holds it (table,
    seat, partner, the side's tricks, points, running total), with the opponents, the
    contract and each table's game (its record and review). Only hands that are over
    at every table: in duplicate the other tables play the same deal meanwhile."""
    done = ev.derived()
    bots = set(ev.bots)
    lines: list[dict[str, Any]] = []
    total = 0
    for hand in done.hands:
        if not hand.complete or hand.number > len(ev.hands):
            break  # the hand in play, and any after it
        t = hand.table_of(player)
        if t is None or t.points is None or t.ns_tricks is None:
            continue  # online nobody sits out; kept safe for the organiser's model
        seat = t.seats.index(player)
        side = seat % 2
        points = t.points[side]
        total += points
        lines.append(
            {
                "hand": hand.number,
                "contract": hand.contract,
                "table": t.table,
                "seat": seat_name(seat),
                "partner": ev.name(t.seats[(seat + 2) % 4]),
                "opponents": [ev.name(t.seats[(seat + 1) % 4]), ev.name(t.seats[(seat + 3) % 4])],
                "tricks": t.ns_tricks if side == 0 else 13 - t.ns_tricks,
                "points": points,
                "total": total,
                "won": t.winner == side,
                "game": ev.hands[hand.number - 1].games[t.table - 1],
            }
        )
    me = ev.evening.player(player)
    return {
        "evening": ev.id,
        "title": ev.title,
        "player": {"id": player, "name": me.name, "group": me.group, "bot": player in bots},
        "hands": ev.evening.config.hands,
        "finished": ev.over(),
        "total": total,
        "lines": lines,
    }


def records_json(ev: OnlineEvening, rows: Mapping[str, str]) -> bytes:
    """Every table's record (whistkit-record/1) of the hands over at every table, as one
    JSON document: ``{"format", "evening", "title", "finished", "records": [{"hand",
    "table", "game", "record"}]}``, the records as the server stores them (``rows``:
    game id -> record text; a game missing there is left out). At most
    :data:`MAX_RECORDS` records: each a hand of 52 cards."""
    done = ev.derived()
    parts: list[str] = []
    for hand in done.hands:
        if not hand.complete or hand.number > len(ev.hands):
            break
        for t, game in enumerate(ev.hands[hand.number - 1].games, start=1):
            record = rows.get(game)
            if record is None:
                continue
            head = json.dumps({"hand": hand.number, "table": t, "game": game})
            parts.append(f'{head[:-1]}, "record": {record}}}')
    head = json.dumps(
        {"format": RECORDS_FORMAT, "evening": ev.id, "title": ev.title, "finished": ev.over()}
    )
    return f'{head[:-1]}, "records": [{", ".join(parts)}]}}'.encode()


def finished_games(ev: OnlineEvening) -> list[str]:
    """The games of the hands over at every table (whose records may be shown)."""
    done = ev.derived()
    games: list[str] = []
    for hand in done.hands:
        if not hand.complete or hand.number > len(ev.hands):
            break
        games += ev.hands[hand.number - 1].games
    return games[:MAX_RECORDS]


class RecordsCache:
    """The records documents of the last :data:`RECORDS_KEPT` evenings asked, each built
    once per hand over (the records of a hand over at every table never change), one
    build at a time per evening: a room's burst of downloads at the end, or a client
    asking again and again, reads the store once a hand."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[int, bytes]] = {}  # id -> (records in it, document)
        self._locks: dict[str, asyncio.Lock] = {}

    async def document(self, ev: OnlineEvening, read: Any) -> bytes:
        """The evening's records document; ``read(ids)`` gives the stored records of the
        finished games among ``ids`` as a mapping (run in a thread: it reads the store)."""
        games = finished_games(ev)
        kept = self._kept.get(ev.id)
        if kept is not None and kept[0] == len(games):
            return kept[1]
        lock = self._locks.setdefault(ev.id, asyncio.Lock())
        async with lock:
            kept = self._kept.get(ev.id)
            if kept is not None and kept[0] == len(games):
                return kept[1]

            def build() -> dict[str, str]:
                rows: dict[str, str] = {}
                for n in range(0, len(games), RECORDS_CHUNK):
                    rows.update(read(games[n : n + RECORDS_CHUNK]))
                return rows

            rows = await asyncio.to_thread(build)
            text = records_json(ev, {g: rows[g] for g in games if g in rows})
            if len(rows) == len(games):  # a record missing is looked for again next time
                self._kept.pop(ev.id, None)
                self._kept[ev.id] = (len(games), text)
                while len(self._kept) > RECORDS_KEPT:
                    self._kept.pop(next(iter(self._kept)))
        self._locks.pop(ev.id, None)
        return text


__all__ = [
    "Evenings",
    "HandTables",
    "NewEvening",
    "OnlineError",
    "OnlineEvening",
    "RecordsCache",
    "card_json",
    "created_json",
    "evening_model",
    "hand_in_play",
    "player_json",
    "read_new_evening",
    "read_player",
    "records_json",
    "room_json",
]
