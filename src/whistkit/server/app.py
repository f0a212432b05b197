"""The web game: a Starlette app serving the page, a small JSON API and the WebSocket.

Routes:

- ``GET /``: the page (plain HTML, CSS and ES modules under ``/static``).
- ``GET /api/meta``: the variants with their options, and the bot levels.
- ``POST /api/games``: a new game ``{"variant", "options", "level", "seed"}``; answers
  ``{"id", "seat", "token"}`` (the token joins that seat).
- ``GET /api/games?ids=ID,ID``: the stored games among those named (at most
  ``LIST_IDS_MAX``; ``&finished=1`` for the finished ones). Nothing lists the games of
  others: a browser names the games it took part in (the page keeps their ids).
- ``GET /api/games/{id}/record``: a finished game's record (docs/records.md) as a download.
- ``GET /api/games/{id}/analysis``: a finished game's double-dummy review
  (:func:`whistkit.analysis.analyse`, as JSON), computed once per game and kept in memory;
  with ``?wait=0`` it answers at once: 202 ``{"progress": {"done", "total"}}`` (cards
  judged so far) while the review is being worked out. A review with ranges (positions
  the node limit left unsettled, Nóló hands mostly) is then worked out again in the
  background with ``REFINE_FACTOR`` times the node limit; until that is done the first
  review is served with ``"refining": {"done", "total", "node_limit"}``, then the
  refined one (without the key).
- ``POST /api/tables``, ``GET /api/tables/{id}`` (``X-Table-Token: T``), ``POST
  /api/qr``: shared tables (:mod:`whistkit.server.shared`; the protocol's docstring
  describes them).
- ``/api/online-evenings…``: online evenings (:mod:`whistkit.server.online`,
  docs/online.md), among them ``GET …/{id}/card/{player}`` (a player's card of hands)
  and ``GET …/{id}/records`` (every table's record of the hands over, one JSON document).
- ``WS /ws``: the play protocol of :mod:`whistkit.server.protocol`.

Everything passes :class:`whistkit.server.security.Edge` first (host and origin checks,
body limit, security headers); every client message is checked against the protocol's
schema, and one that still fails answers an ``internal`` error, never a dropped socket.
The limits (:class:`whistkit.server.limits.Limits`) bound what each client may cost.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from .. import analysis
from ..bots import DEFAULT_LEVEL, LEVELS, play_level
from ..record import RecordError
from ..seats import SOUTH, Seat, seat_name
from ..state import Action
from ..variants import VARIANTS, OptionError, UnknownVariant, describe, get_variant
from . import online, shared
from .admission import Admission, Refused
from .cluster import Cluster, Elsewhere
from .collector import full_collections
from .database import open_store
from .limits import Bucket, Busy, Limits, Outbox, WorkQueue
from .pgstore import PgStore
from .protocol import (
    GAME_ID_CHARS,
    ProtocolError,
    action_to_json,
    dumps_message,
    error,
    parse_message,
    quote,
    read_card,
    read_game_id,
    read_json,
    read_name,
    read_seat,
    read_since,
)
from .relay import Relays, RemoteOut
from .security import Edge, allowed_hosts, public_origin, quiet_accept_failures
from .store import StoredGame, StoreError
from .table import BOT_PREFIX, HUMAN, Table, TableError, Tables, Think, think_in_thread
from .workers import IN_THREADS, bot_thinker, workers_of

STATIC_DIR = Path(__file__).parent / "static"
BOT_DELAY_ENV = "WHISTKIT_BOT_DELAY"
DEFAULT_BOT_DELAY = 0.7  # seconds between bot cards, so a person can follow the play
NEW_GAME_FIELDS = ("variant", "options", "level", "seed")  # of a POST /api/games body
NODE_LIMIT_ENV = "WHISTKIT_ANALYSIS_NODE_LIMIT"
# what a new game's body may hold: short names, and option values that are short
NAME_CHARS = 32
OPTION_COUNT = 32
log = logging.getLogger("whistkit.server")
IDLE_ENV = "WHISTKIT_IDLE_SECONDS"
DEFAULT_IDLE_SECONDS = 30.0  # a table nobody watches leaves memory after this long
TURN_SCALE_ENV = "WHISTKIT_TURN_TIME_SCALE"  # tests: a shared table's turn time, scaled
QR_URL_CHARS = 512
TOKEN_HEADER = "x-table-token"  # a shared table's token, for GET /api/tables/ID
_N = TypeVar("_N", int, float)


def _env_number(name: str, default: _N, parse: Callable[[str], _N], kind: str, least: _N) -> _N:
    """``$name`` read by ``parse`` (``kind`` names what it must be), at least ``least``;
    ``default`` when it is not set. A bad value is a ``ValueError`` naming the variable."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = parse(raw)
    except ValueError:
        raise ValueError(f"{name} must be {kind}, not {raw!r}") from None
    if value < least:
        raise ValueError(f"{name} must be at least {least:g}, not {raw!r}")
    return value


# the background pass over a review with ranges searches each position this many times
# longer than the first (8 M nodes by default: about 1-4 s per unsettled 13-card misère
# position); it runs in the review queue like any review, one per game at most
REFINE_FACTOR = 8
REFINED = "#refined"  # the refined review's key in the review queue: game id + this


def unsettled(review: Mapping[str, Any]) -> bool:
    """Does a review (as JSON) hold a card or a par the search left as a range?"""
    for hand in review.get("hands", ()):
        if hand.get("par_ns") is None and hand.get("par_ns_range") is not None:
            return True
        if any(card.get("solved") is False for card in hand.get("cards", ())):
            return True
    return False


def default_bot_delay() -> float:
    """The bots' pause: ``$WHISTKIT_BOT_DELAY`` seconds if set, else 0.7."""
    return _env_number(BOT_DELAY_ENV, DEFAULT_BOT_DELAY, float, "a number of seconds", 0.0)


def default_node_limit() -> int:
    """The review's node limit per position: ``$WHISTKIT_ANALYSIS_NODE_LIMIT`` if set,
    else :data:`whistkit.analysis.NODE_LIMIT`."""
    return _env_number(NODE_LIMIT_ENV, analysis.NODE_LIMIT, int, "a whole number", 1)


def default_turn_scale() -> float:
    """How a shared table's turn time is scaled: ``$WHISTKIT_TURN_TIME_SCALE`` if set
    (tests: 0.01 makes 30 s a third of a second), else 1."""
    return _env_number(TURN_SCALE_ENV, 1.0, float, "a number", 0.0)


def default_idle_seconds() -> float:
    """How long an idle table stays in memory: ``$WHISTKIT_IDLE_SECONDS`` if set, else 30."""
    return _env_number(IDLE_ENV, DEFAULT_IDLE_SECONDS, float, "a number of seconds", 0.0)


class Server:
    """The app's state: the store, the tables in memory and the finished games' reviews."""

    def __init__(
        self,
        db: str | Path,
        bot_delay: float,
        node_limit: int,
        hint_level: str | None = None,
        idle_seconds: float = DEFAULT_IDLE_SECONDS,
        think: Think | None = None,
        limits: Limits | None = None,
        turn_scale: float = 1.0,
        bus: str | None = None,
    ) -> None:
        self.limits = limits or Limits()
        self.cluster = None if bus is None else Cluster(bus)
        self.store = open_store(db)
        if isinstance(self.store, PgStore):
            try:
                self.store.serve(shared=bus is not None)
            except ValueError:
                self.store.close()
                raise
        self.workers = None if think is not None else bot_thinker()
        self.tables = Tables(
            self.store,
            bot_delay,
            idle_seconds=idle_seconds,
            think=think or (self.workers.think if self.workers else think_in_thread),
            table_class=shared.table_class(turn_scale),
            cluster=self.cluster,
        )
        # online evenings (issue 34): made here, driven by their tables' results
        self.evenings = online.Evenings(self.tables, turn_scale)
        self.tables.on_over = self.evenings.table_over
        # sockets relayed to and from the other processes (with a bus)
        self.relays: Relays | None = None
        # the addresses invite links use: --public-url, else the LAN address (listening
        # on all interfaces), else the address a request came to
        self.bases: list[str] = []
        self.node_limit = node_limit
        # the level whose choice a hint is: expert, or club without the solver's core
        self.hint_level = hint_level or play_level()
        lim = self.limits
        # (game, seat, version, level) -> the hint: one run per position, a few at once
        self.hints: WorkQueue[tuple[str, Seat, int, str], Action] = WorkQueue(
            lim.hint_workers, lim.hint_queue, lim.hint_cache
        )
        # game id -> its review (a finished game never changes): queued, then cached
        self.analyses: WorkQueue[str, dict[str, Any]] = WorkQueue(
            lim.review_workers, lim.review_queue, lim.review_cache
        )
        # game id -> (cards judged, cards to judge) of a review being worked out
        self.progress: dict[str, tuple[int, int]] = {}
        # game id -> why its last review failed, told once to the next poll (a few kept)
        self.failures: dict[str, BaseException] = {}
        # the bounds on new games per client address and in all (shared with a bus)
        self.admission = Admission(
            self.limits, self.store, None if self.cluster is None else self.cluster.redis
        )

    async def analysis_of(
        self, game_id: str, record: str, wait: bool = True
    ) -> dict[str, Any] | None:
        """The review of the finished game ``game_id`` (whose record is ``record``), run
        in a worker process the first time (queued behind at most ``review_workers``
        others) and then served from memory; None at once when ``wait`` is false and it
        is not ready (its progress is in ``self.progress``). Raises :class:`Busy` when the
        queue is full."""
        failure = self.failures.pop(game_id, None)
        if failure is not None:
            raise failure
        hit = self.analyses.cached(game_id)
        if hit is not None:
            return self.refined(game_id, record, hit)
        fresh = not self.analyses.in_flight(game_id)

        def report(done: int, total: int) -> None:
            self.progress[game_id] = (done, total)

        workers = self.workers or IN_THREADS
        at_once = self.limits.review_workers
        task = self.analyses.submit(
            game_id, lambda: workers.review(record, self.node_limit, report, at_once)
        )
        if fresh:
            self.progress[game_id] = (0, 0)

            def settle(t: asyncio.Task[dict[str, Any]]) -> None:
                self.progress.pop(game_id, None)
                failure = None if t.cancelled() else t.exception()
                if failure is not None and not wait:
                    while len(self.failures) >= 64:  # bounded: the oldest untold goes
                        self.failures.pop(next(iter(self.failures)))
                    self.failures[game_id] = failure  # for the next poll

            task.add_done_callback(settle)
        if not wait and not task.done():
            return None
        # shielded: a request that goes away does not stop the review for the others
        return self.refined(game_id, record, await asyncio.shield(task))

    def refined(self, game_id: str, record: str, first: dict[str, Any]) -> dict[str, Any]:
        """The review to serve: the refined one once it is done, else ``first``, with the
        refinement's progress while it runs or waits. A review with ranges starts its
        refinement here (one per game: the queue shares a run per key) when no other
        review is under way or waiting, so that first reviews go first; else the next
        request asks again. A failed refinement leaves ``first`` as the review."""
        key = game_id + REFINED
        hit = self.analyses.cached(key)
        if hit is not None:
            return hit
        if not unsettled(first):
            return first
        limit = self.node_limit * REFINE_FACTOR
        if not self.analyses.in_flight(key) and not self.analyses.running:

            def report(done: int, total: int) -> None:
                self.progress[key] = (done, total)

            workers = self.workers or IN_THREADS
            at_once = self.limits.review_workers
            task = self.analyses.submit(key, lambda: workers.review(record, limit, report, at_once))
            self.progress[key] = (0, 0)

            def settle(t: asyncio.Task[dict[str, Any]]) -> None:
                self.progress.pop(key, None)
                if t.cancelled() or t.exception() is not None:
                    # the first review stands (a refinement is only ever tried once)
                    self.analyses.cache.put(key, first)

            task.add_done_callback(settle)
        done, total = self.progress.get(key, (0, 0))
        return {**first, "refining": {"done": done, "total": total, "node_limit": limit}}

    async def start(self) -> None:
        """Join the cluster (with a bus): its channel, its leases' keeping; take up the
        online evenings under way."""
        if self.cluster is not None:
            await self.cluster.start()
        # the online evenings under way when the server stopped go on (with a bus, the
        # process holding each one's lease drives it: whistkit.server.online)
        await self.evenings.resume()

    async def close(self) -> None:
        if self.relays is not None:
            await self.relays.shutdown()
        await self.evenings.close()
        await self.tables.close()
        if self.cluster is not None:
            await self.cluster.close()
        if self.workers is not None:
            self.workers.close()
        self.store.close()


@dataclasses.dataclass(frozen=True)
class Preset:
    """What the new-game dialog starts from (``whistkit play --variant/--level/--option``)."""

    variant: str = "felagsvist"
    level: str = DEFAULT_LEVEL
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def check(self) -> None:
        """``ValueError`` naming an unknown variant, option or level."""
        if self.level not in LEVELS:
            raise ValueError(f"unknown level {self.level!r}; known: {', '.join(LEVELS)}")
        try:
            get_variant(self.variant, dict(self.options))
        except (OptionError, UnknownVariant) as e:
            raise ValueError(str(e)) from None

    def meta(self) -> dict[str, Any]:
        """The dialog's choices, with this variant's options defaulting to the preset."""
        variants = []
        for cls in VARIANTS.values():
            entry = describe(cls)
            if cls.name == self.variant:
                for opt in entry["options"]:
                    if opt["key"] in self.options:
                        opt["default"] = self.options[opt["key"]]
            variants.append(entry)
        return {
            "variants": variants,
            "levels": list(LEVELS),
            "default_level": self.level,
            "default_variant": self.variant,
        }


def create_app(
    db: str | Path,
    *,
    bot_delay: float | None = None,
    preset: Preset | None = None,
    node_limit: int | None = None,
    hint_level: str | None = None,
    host: str = "127.0.0.1",
    public_url: str | None = None,
    limits: Limits | None = None,
    idle_seconds: float | None = None,
    think: Think | None = None,
    lan_url: str | None = None,
    turn_scale: float | None = None,
    bus: str | None = None,
) -> Starlette:
    """The web game's ASGI app storing games in the SQLite file ``db``; ``preset`` is
    what the new-game dialog offers first; ``node_limit`` bounds the review's search
    per position (default :func:`default_node_limit`); ``hint_level`` is the bot level
    whose choice a hint is (default :func:`whistkit.bots.play_level`: ``expert``, or
    ``club`` without the solver's compiled core); ``idle_seconds`` is how long a table
    nobody watches stays in memory (default :func:`default_idle_seconds`); ``think`` is
    how bots choose (default: :mod:`whistkit.server.workers`). The server answers for
    loopback names, ``host`` (where it listens) and the host of ``public_url`` (a proxy's
    address, whose origin is then also the page's); ``limits`` default to
    :meth:`Limits.from_env`; ``lan_url`` is the server's address on the network when it
    listens on all interfaces (invite links use it when there is no ``public_url``);
    ``turn_scale`` scales shared tables' turn times (default :func:`default_turn_scale`).
    ``db`` may be a ``postgresql://`` URL, and ``bus`` a ``redis://`` URL: then this
    process is one of several sharing them (:mod:`whistkit.server.cluster`)."""
    preset = preset or Preset()
    preset.check()
    if node_limit is not None and node_limit < 1:
        raise ValueError(f"the node limit must be at least 1, not {node_limit}")
    if hint_level is not None and hint_level not in LEVELS:
        raise ValueError(f"unknown hint level {hint_level!r}; known: {', '.join(LEVELS)}")
    limits = Limits.from_env() if limits is None else limits
    hosts = allowed_hosts(host, public_url)
    if lan_url:  # the address phones on the network open
        from urllib.parse import urlsplit

        lan_host = urlsplit(lan_url).hostname
        hosts = hosts | ({lan_host.lower()} if lan_host else set())
    server = Server(
        db,
        default_bot_delay() if bot_delay is None else bot_delay,
        default_node_limit() if node_limit is None else node_limit,
        hint_level,
        default_idle_seconds() if idle_seconds is None else idle_seconds,
        think,
        limits,
        default_turn_scale() if turn_scale is None else turn_scale,
        bus,
    )
    origin, _ = public_origin(public_url)
    server.bases = [b.rstrip("/") + "/" for b in (origin, lan_url) if b]
    if server.cluster is not None:

        def remote(out: RemoteOut, base: str) -> Connection:
            """A socket relayed here by another process, as one of this process's own."""
            conn = Connection(
                server.tables,
                out,
                server.hint_level,
                server.hints,
                limits.max_frame_bytes,
                server.relays,
                limits.max_sockets_per_game,
            )
            conn.base = server.bases[0] if server.bases else base
            return conn

        server.relays = Relays(server.cluster, remote)
        server.evenings.ask = server.relays.call

    def base_of(url: Any) -> str:
        """The base of invite links for a request to ``url`` (http(s) or ws(s))."""
        if server.bases:
            return server.bases[0]
        scheme = "https" if url.scheme in ("https", "wss") else "http"
        return f"{scheme}://{url.netloc}/"

    async def index(request: Request) -> Response:
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    async def meta(request: Request) -> Response:
        return JSONResponse(preset.meta())

    async def json_body(request: Request) -> Any:
        """The request's JSON body, or the Response refusing it (wrong type, too large,
        not JSON, or the client gone before its body came: no traceback then)."""
        media = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media != "application/json":
            return JSONResponse(
                {"error": f"the request body must be application/json, not {quote(media)}"}, 415
            )
        try:
            return read_json(await request.body(), "the request body", limits.max_body_bytes)
        except ClientDisconnect:
            return Response(status_code=400)
        except ProtocolError as e:
            return JSONResponse({"error": e.message.replace("is not JSON", "must be JSON")}, 400)

    def too_many(e: Refused) -> Response:
        """The 429 of a refusal by the admission ledger, saying when to ask again."""
        return JSONResponse({"error": e.message}, 429, headers={"Retry-After": str(e.retry_after)})

    async def admitted(request: Request) -> Response | None:
        """The 429 refusing a new game from this client's address, or None."""
        try:
            await server.admission.admit(client_address(request))
        except Refused as e:
            return too_many(e)
        return None

    async def new_game(request: Request) -> Response:
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        refusal = await admitted(request)
        if refusal is not None:
            return refusal
        problem = new_game_problem(body)
        if problem is not None:
            return JSONResponse({"error": problem}, 400)
        variant = body.get("variant", "felagsvist")
        options = body.get("options")
        options = {} if options is None else options
        level = body.get("level")
        level = DEFAULT_LEVEL if level is None else level
        seed = body.get("seed")
        if not isinstance(variant, str):
            return JSONResponse({"error": "'variant' must be a string"}, 400)
        if not isinstance(options, dict):
            return JSONResponse({"error": "'options' must be an object"}, 400)
        if not isinstance(level, str) or level not in LEVELS:
            known = ", ".join(LEVELS)
            return JSONResponse({"error": f"unknown bot level {quote(level)}; known: {known}"}, 400)
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63
        ):
            return JSONResponse(
                {"error": f"'seed' must be an integer from 0 to 2**63-1, not {quote(seed)}"}, 400
            )
        human: Seat = SOUTH
        seats = {s: HUMAN if s == human else BOT_PREFIX + level for s in range(4)}
        try:
            table = await server.tables.create_async(variant, options, seed=seed, seats=seats)
        except (OptionError, UnknownVariant, ValueError) as e:
            return JSONResponse({"error": str(e)}, 400)
        except StoreError as e:
            return JSONResponse({"error": f"the game could not be stored, try again: {e}"}, 503)
        await server.admission.made(client_address(request), table.id)
        return JSONResponse(
            {"id": table.id, "seat": seat_name(human), "token": table.tokens[human]}
        )

    async def new_table(request: Request) -> Response:
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        try:
            problem = new_game_problem(
                {k: v for k, v in body.items() if k in NEW_GAME_FIELDS}
                if isinstance(body, dict)
                else body
            )
            if problem is not None:
                return JSONResponse({"error": problem}, 400)
            new = shared.read_new_table(body, preset.level)
        except ProtocolError as e:
            return JSONResponse({"error": e.message.replace("is not JSON", "must be JSON")}, 400)
        refusal = await admitted(request)
        if refusal is not None:
            return refusal
        try:
            table = await shared.create(server.tables, new)
        except (OptionError, UnknownVariant, ValueError) as e:
            return JSONResponse({"error": str(e)}, 400)
        except StoreError as e:
            return JSONResponse({"error": f"the table could not be stored, try again: {e}"}, 503)
        await server.admission.made(client_address(request), table.id)
        return JSONResponse(shared.created_json(table, base_of(request.url)))

    async def new_online_evening(request: Request) -> Response:
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        # an evening is created as a game is: at the same rate per address (its tables,
        # made by the server hand by hand, are bounded by the evening's own limits)
        refused = await admitted(request)
        if refused is not None:
            return refused
        try:
            new = online.read_new_evening(body, preset.level)
            ev = await server.evenings.create(new)
        except online.OnlineError as e:
            return JSONResponse({"error": e.message}, e.status)
        except StoreError as e:
            return JSONResponse({"error": f"the evening could not be stored, try again: {e}"}, 503)
        return JSONResponse(online.created_json(ev, base_of(request.url)))

    async def online_evening_of(request: Request) -> online.OnlineEvening | Response:
        evening_id = request.path_params["evening_id"]
        ev = None
        if isinstance(evening_id, str) and evening_id.isalnum() and len(evening_id) <= 32:
            try:
                ev = await server.evenings.get(evening_id)
            except StoreError as e:
                return JSONResponse(
                    {"error": f"the evening could not be read, try again: {e}"}, 503
                )
        if ev is None:
            return JSONResponse({"error": f"no online evening {quote(evening_id)}"}, 404)
        return ev

    async def online_evening(request: Request) -> Response:
        """The host's view (``?key=`` the host key): each hand's seating and results,
        every player's total, the links' state."""
        ev = await online_evening_of(request)
        if isinstance(ev, Response):
            return ev
        if not ev.is_host(request.query_params.get("key")):
            return JSONResponse(
                {"error": "the evening's state needs its host key (?key=, from the host link)"},
                403,
            )
        return JSONResponse(online.room_json(ev, host=True, base=base_of(request.url)))

    async def online_room(request: Request) -> Response:
        ev = await online_evening_of(request)
        if isinstance(ev, Response):
            return ev
        return JSONResponse(online.room_json(ev))

    async def online_player(request: Request) -> Response:
        ev = await online_evening_of(request)
        if isinstance(ev, Response):
            return ev
        try:
            player = await server.evenings.player_of(ev, request.query_params.get("t"))
        except StoreError as e:
            return JSONResponse({"error": f"the evening could not be read, try again: {e}"}, 503)
        if player is None:
            return JSONResponse({"error": "no player of this evening has this link"}, 404)
        await server.evenings.mark_seen(ev, player)
        return JSONResponse(online.player_json(ev, player, base_of(request.url)))

    async def online_card(request: Request) -> Response:
        """A player's card of hands (the hands over at every table): public, as the
        room's leaderboard is."""
        ev = await online_evening_of(request)
        if isinstance(ev, Response):
            return ev
        try:
            player = online.read_player(ev, request.path_params["player"])
        except online.OnlineError as e:
            return JSONResponse({"error": e.message}, e.status)
        return JSONResponse(online.card_json(ev, player))

    evening_records = online.RecordsCache()

    def finished_records(ids: list[str]) -> dict[str, str]:
        return {r.id: r.record for r in server.store.list(ids=ids) if r.finished and r.record}

    async def online_records(request: Request) -> Response:
        """Every table's record of the hands over at every table, in one JSON document
        (a download)."""
        ev = await online_evening_of(request)
        if isinstance(ev, Response):
            return ev
        try:
            document = await evening_records.document(ev, finished_records)
        except StoreError as e:
            return JSONResponse({"error": f"the records could not be read, try again: {e}"}, 503)
        return Response(
            document,
            media_type="application/json",
            headers={
                "Content-Disposition": f'attachment; filename="whistkit-evening-{ev.id}.json"'
            },
        )

    async def online_end_hand(request: Request) -> Response:
        """The host ends the hand in play: stand-ins finish its tables still playing."""
        ev = await online_evening_of(request)
        if isinstance(ev, Response):
            return ev
        if not ev.is_host(request.query_params.get("key")):
            return JSONResponse({"error": "ending a hand needs the host key (?key=)"}, 403)
        try:
            current = await server.evenings.finish_hand(ev)
        except StoreError as e:
            return JSONResponse({"error": f"the change could not be stored, try again: {e}"}, 503)
        if current is None:
            if ev.gathering:
                return JSONResponse(
                    {"error": "the evening has not started: no hand is in play"}, 409
                )
            return JSONResponse({"error": "the evening is over"}, 409)
        return JSONResponse({"hand": current, "finishing": True})

    async def online_start(request: Request) -> Response:
        """The host starts an evening that gathered its players through the join link:
        bots fill the tables and hand 1 is seated."""
        ev = await online_evening_of(request)
        if isinstance(ev, Response):
            return ev
        if not ev.is_host(request.query_params.get("key")):
            return JSONResponse({"error": "starting the evening needs the host key (?key=)"}, 403)
        try:
            await server.evenings.start_evening(ev)
        except online.OnlineError as e:
            said = {"error": e.message} if e.code is None else {"error": e.message, "code": e.code}
            return JSONResponse(said, e.status)
        except StoreError as e:
            return JSONResponse({"error": f"the start could not be stored, try again: {e}"}, 503)
        return JSONResponse({"hand": ev.in_play(), "players": len(ev.evening.players)})

    async def online_remove(request: Request) -> Response:
        """The host removes a player while the evening gathers: ``{"player": ID}``."""
        ev = await online_evening_of(request)
        if isinstance(ev, Response):
            return ev
        if not ev.is_host(request.query_params.get("key")):
            return JSONResponse({"error": "removing a player needs the host key (?key=)"}, 403)
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        if not isinstance(body, dict) or set(body) != {"player"}:
            return JSONResponse(
                {"error": f'the body must be {{"player": ID}}, not {quote(body)}'}, 400
            )
        try:
            name = await server.evenings.remove(ev, body["player"])
        except online.OnlineError as e:
            said = {"error": e.message} if e.code is None else {"error": e.message, "code": e.code}
            return JSONResponse(said, e.status)
        except StoreError as e:
            return JSONResponse({"error": f"the change could not be stored, try again: {e}"}, 503)
        return JSONResponse({"removed": name, "players": len(ev.evening.players)})

    async def online_join(request: Request) -> Response:
        """A new player through the evening's open join link: ``{"name", "group"}``;
        the answer is their personal link, as the host's players get."""
        ev = await online_evening_of(request)
        if isinstance(ev, Response):
            return ev
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        if not isinstance(body, dict):
            return JSONResponse(
                {"error": f"the body must be a JSON object, not {quote(body)}"}, 400
            )
        unknown = [k for k in body if k not in online.JOIN_FIELDS]
        if unknown:
            known = ", ".join(online.JOIN_FIELDS)
            return JSONResponse(
                {"error": f"unknown field {quote(unknown[0])}; known: {known}"}, 400
            )
        try:
            await server.admission.admit_join(client_address(request))
        except Refused as e:
            return too_many(e)
        try:
            pid, token = await server.evenings.join(ev, body.get("name"), body.get("group"))
        except online.OnlineError as e:
            said = {"error": e.message} if e.code is None else {"error": e.message, "code": e.code}
            return JSONResponse(said, e.status)
        except StoreError as e:
            return JSONResponse({"error": f"the join could not be stored, try again: {e}"}, 503)
        player = ev.evening.player(pid)
        return JSONResponse(
            {
                "player": {"id": pid, "name": player.name, "group": player.group},
                "from_hand": player.arrives,
                "url": f"{base_of(request.url)}?evening={ev.id}#t={token}",
            }
        )

    async def online_join_link(request: Request) -> Response:
        """The host opens or closes the join link: ``{"open": true | false}``."""
        ev = await online_evening_of(request)
        if isinstance(ev, Response):
            return ev
        if not ev.is_host(request.query_params.get("key")):
            return JSONResponse(
                {"error": "opening or closing the join link needs the host key (?key=)"}, 403
            )
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        if (
            not isinstance(body, dict)
            or set(body) != {"open"}
            or not isinstance(body["open"], bool)
        ):
            return JSONResponse(
                {
                    "error": f'the body must be {{"open": true}} or {{"open": false}}, not {quote(body)}'
                },
                400,
            )
        try:
            await server.evenings.set_join(ev, body["open"])
        except StoreError as e:
            return JSONResponse({"error": f"the change could not be stored, try again: {e}"}, 503)
        return JSONResponse(
            {"open_join": ev.open_join, "join_url": f"{base_of(request.url)}?join-evening={ev.id}"}
        )

    async def table_summary(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        # the header keeps the token out of the URL (and so out of proxies' logs)
        token = request.headers.get(TOKEN_HEADER) or request.query_params.get("t")
        unknown = JSONResponse({"error": f"no table {quote(game_id)} with this token"}, 404)
        if not _is_game_id(game_id) or token is None or len(token) > 128:
            return unknown
        try:
            answer = await summary_of(game_id, token)
        except Elsewhere as e:
            assert server.relays is not None
            answer = await server.relays.call(e.node, "summary", {"g": game_id, "tok": token})
        return unknown if answer is None else JSONResponse(answer)

    async def summary_of(game_id: str, token: str) -> dict[str, Any] | None:
        """A shared table's summary for the holder of ``token`` (None: no such table or
        token), from this process; :class:`Elsewhere` if another owns the table."""
        table = await server.tables.open(game_id)
        if not isinstance(table, shared.SharedTable):
            return None
        you = table.token_holder(token)
        return None if you is None else table.summary(you)

    async def answer(op: str, msg: dict[str, Any]) -> Any:
        """A request from another process (the owner's part of a relayed request)."""
        if op == "summary":
            game_id, token = msg.get("g"), msg.get("tok")
            if not isinstance(game_id, str) or not isinstance(token, str):
                return None
            with contextlib.suppress(Elsewhere):
                return await summary_of(game_id, token)
        elif op == "evening_finish":  # the evening's clock: stand-ins finish this table
            game_id = msg.get("g")
            if isinstance(game_id, str) and _is_game_id(game_id):
                with contextlib.suppress(Elsewhere):
                    await server.evenings.finish_table(game_id)
        elif op == "evening_moved":  # the next hand is seated: tell this process's tables
            evening_id, hand = msg.get("e"), msg.get("h")
            if isinstance(evening_id, str) and isinstance(hand, int):
                await server.evenings.moved(evening_id, hand)
        return None

    async def qr(request: Request) -> Response:
        if request.method == "POST":
            body = await json_body(request)
            if isinstance(body, Response):
                return body
            if not isinstance(body, dict) or not isinstance(body.get("u"), str) or len(body) > 1:
                return JSONResponse({"error": 'the body must be {"u": URL}'}, 400)
            url: str = body["u"]
        else:
            url = request.query_params.get("u", "")
        bases = server.bases or [base_of(request.url)]
        if len(url) > QR_URL_CHARS:
            return JSONResponse(
                {"error": f"'u' has {len(url)} characters; at most {QR_URL_CHARS}"}, 400
            )
        if not any(url.startswith(b) for b in bases):
            return JSONResponse(
                {"error": f"'u' must be a URL of this server ({bases[0]}...), not {quote(url)}"},
                400,
            )
        return Response(
            shared.qr_svg(url),
            media_type="image/svg+xml",
            headers={"Cache-Control": "private, max-age=3600"},
        )

    async def list_games(request: Request) -> Response:
        flag = request.query_params.get("finished")
        finished = None if flag is None else flag not in ("0", "false", "")
        ids = _listed_ids(request.query_params.get("ids"))
        if isinstance(ids, str):
            return JSONResponse({"error": ids}, 400)
        rows = server.store.list(finished=finished, ids=ids)
        return JSONResponse(
            [
                {
                    "id": r.id,
                    "variant": r.variant,
                    "created": r.created,
                    "updated": r.updated,
                    "finished": r.finished,
                    "winner": r.winner,
                    "score": r.score,
                    "seeded": r.seeded,
                }
                for r in rows
            ]
        )

    def finished_row(request: Request, what: str) -> tuple[str, StoredGame | Response]:
        """The game id and its stored row, or an error response when the game is unknown
        or unfinished (its record or review would show hidden cards)."""
        game_id = request.path_params["game_id"]
        row = server.store.get(game_id) if _is_game_id(game_id) else None
        if row is None:
            return game_id, JSONResponse({"error": f"unknown game {quote(game_id)}"}, 404)
        if not row.finished:
            return game_id, JSONResponse(
                {"error": f"game {game_id} is not finished; its {what} would show hidden cards"},
                409,
            )
        return game_id, row

    async def record(request: Request) -> Response:
        game_id, row = finished_row(request, "record")
        if isinstance(row, Response):
            return row
        return Response(
            row.record,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="whistkit-{game_id}.json"'},
        )

    async def review(request: Request) -> Response:
        game_id, row = finished_row(request, "review")
        if isinstance(row, Response):
            return row
        wait = request.query_params.get("wait") != "0"
        try:
            result = await server.analysis_of(game_id, row.record, wait)
        except RecordError as e:
            return JSONResponse({"error": f"game {game_id}: {e}"}, 500)
        except RuntimeError as e:  # the solver's compiled core is missing
            return JSONResponse({"error": str(e)}, 503)
        except Busy:
            return JSONResponse(
                {"error": "the server is busy with other reviews; try again in a minute"},
                503,
                headers={"Retry-After": "30"},
            )
        if result is None:
            done, total = server.progress.get(game_id, (0, 0))
            return JSONResponse({"progress": {"done": done, "total": total}}, 202)
        return JSONResponse(result)

    async def websocket(ws: WebSocket) -> None:
        await ws.accept()
        too_slow = asyncio.Event()
        out = Outbox(limits.max_outbox_bytes, too_slow.set, dumps_message)
        conn = Connection(
            server.tables,
            out,
            server.hint_level,
            server.hints,
            limits.max_frame_bytes,
            server.relays,
            limits.max_sockets_per_game,
        )
        conn.base = base_of(ws.url)

        async def pump() -> None:
            while True:
                await ws.send_text(await out.next_text())

        loop = asyncio.get_running_loop()
        opened = heard = loop.time()
        # the message rate: a client over it is not read until it is back under (the
        # server reads nothing more of the socket meanwhile, and TCP holds the sender)
        rate = limits.max_messages_per_second
        messages = Bucket(rate, 2 * rate, opened)
        volume = Bucket(
            limits.max_bytes_per_second,
            limits.max_frame_bytes + limits.max_bytes_per_second,
            opened,
        )

        async def read() -> None:
            nonlocal heard
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    return
                raw = message.get("text")
                if raw is None:
                    raw = message.get("bytes") or b""
                now = heard = loop.time()
                size = len(raw) if isinstance(raw, bytes) or raw.isascii() else len(raw.encode())
                # a frame over the size limit (possible where uvicorn's own check is not
                # in front, as in-process) is refused unread: it costs one frame's worth
                size = min(size, limits.max_frame_bytes)
                wait = max(messages.take(1, now), volume.take(size, now))
                if wait > 0:
                    await asyncio.sleep(wait)
                await conn.handle(raw)
                # let the answers go out between messages a client sent at once, so a
                # batch of joins does not pile up its replays in the outbox
                await asyncio.sleep(0)

        async def watch() -> str:
            """Why the socket is closed: it joined no game in time, or went silent."""
            while True:
                now = loop.time()
                joined = conn.table is not None or conn.relay is not None
                if not joined and now >= opened + limits.join_timeout:
                    return f"no game joined within {limits.join_timeout} s"
                if now >= heard + limits.idle_timeout:
                    return f"nothing heard for {limits.idle_timeout} s"
                due = heard + limits.idle_timeout
                if not joined:
                    due = min(due, opened + limits.join_timeout)
                await asyncio.sleep(max(due - now, 0.01))

        sender = asyncio.create_task(pump())
        reader = asyncio.create_task(read())
        slow = asyncio.create_task(too_slow.wait())
        kicked = asyncio.create_task(conn.kicked.wait())
        moved = asyncio.create_task(conn.moved.wait())
        watcher = asyncio.create_task(watch())
        try:
            await asyncio.wait(
                {reader, slow, sender, kicked, moved, watcher},
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            conn.close()
            reader.cancel()
            slow.cancel()
            kicked.cancel()
            moved.cancel()
            watcher.cancel()
            if watcher.done() and not watcher.cancelled():
                # idle: 1001 (going away; the page reconnects), never joined: 1008
                sender.cancel()
                reason = watcher.result()
                code = 1008 if reason.startswith("no game") else 1001
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(code, reason), 1.0)
            elif too_slow.is_set():
                # the client does not read what it is sent: drop it, the game goes on
                sender.cancel()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(
                        ws.close(1008, "too slow: messages waiting passed the limit"), 1.0
                    )
            else:
                # let queued messages go out before the socket closes
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(_drain(out), timeout=0.5)
                sender.cancel()
                if conn.kicked.is_set():  # a shared table let it go (its error says why)
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(ws.close(4000, "the seat is elsewhere"), 1.0)
                elif conn.moved.is_set():  # the table moved to another process: reconnect
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(ws.close(1012, "the table moved; reconnect"), 1.0)
            for task in (sender, reader, slow, kicked, moved, watcher):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        quiet_accept_failures(asyncio.get_running_loop())
        await server.start()
        # serve() sets the period of full garbage collections (server.collector)
        seconds = getattr(app.state, "full_gc_seconds", None)
        collecting = None if seconds is None else asyncio.create_task(full_collections(seconds))
        yield
        if collecting is not None:
            collecting.cancel()
        await server.close()

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/meta", meta),
            Route("/api/games", new_game, methods=["POST"]),
            Route("/api/games", list_games, methods=["GET"]),
            Route("/api/games/{game_id}/record", record),
            Route("/api/games/{game_id}/analysis", review),
            Route("/api/tables", new_table, methods=["POST"]),
            Route("/api/tables/{game_id}", table_summary),
            Route("/api/qr", qr, methods=["GET", "POST"]),
            Route("/api/online-evenings", new_online_evening, methods=["POST"]),
            Route("/api/online-evenings/{evening_id}", online_evening),
            Route("/api/online-evenings/{evening_id}/room", online_room),
            Route("/api/online-evenings/{evening_id}/me", online_player),
            Route("/api/online-evenings/{evening_id}/card/{player}", online_card),
            Route("/api/online-evenings/{evening_id}/records", online_records),
            Route("/api/online-evenings/{evening_id}/end-hand", online_end_hand, methods=["POST"]),
            Route("/api/online-evenings/{evening_id}/start", online_start, methods=["POST"]),
            Route("/api/online-evenings/{evening_id}/remove", online_remove, methods=["POST"]),
            Route("/api/online-evenings/{evening_id}/join", online_join, methods=["POST"]),
            Route(
                "/api/online-evenings/{evening_id}/join-link", online_join_link, methods=["POST"]
            ),
            WebSocketRoute("/ws", websocket),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ],
        middleware=[
            Middleware(
                Edge,
                hosts=hosts,
                public_url=public_url,
                max_body_bytes=limits.max_body_bytes,
                body_timeout=limits.body_timeout,
            )
        ],
        lifespan=lifespan,
    )
    app.state.server = server
    if server.relays is not None:
        server.relays.answer = answer
    return app


LIST_IDS_MAX = 200  # games named in one GET /api/games
LIST_IDS_CHARS = LIST_IDS_MAX * (GAME_ID_CHARS + 1)


def _listed_ids(param: str | None) -> list[str] | str:
    """The game ids of ``GET /api/games?ids=``, or what is wrong with them."""
    if param is None:
        return (
            "name the games to list: /api/games?ids=ID,ID,... (the server lists no games"
            " to whoever asks; the page names the games it took part in)"
        )
    # longer than the most ids of the longest kind and their commas: refused unsplit
    ids = [i for i in param.split(",") if i] if len(param) < LIST_IDS_CHARS else None
    if ids is None or len(ids) > LIST_IDS_MAX:
        return f"'ids' names at most {LIST_IDS_MAX} games"
    for i in ids:
        if not _is_game_id(i):
            return f"'ids' holds {quote(i[:40])}, which is not a game id"
    return ids


def _is_game_id(value: str) -> bool:
    try:
        return read_game_id(value) == value
    except ProtocolError:
        return False


def client_address(request: Request) -> str:
    """The client's address (a proxy's X-Forwarded-For from loopback, as uvicorn reads
    it), "" if unknown."""
    return request.client.host if request.client is not None else ""


def _short_word(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= NAME_CHARS and value.isascii()


def new_game_problem(body: Any) -> str | None:
    """What is wrong with a ``POST /api/games`` body's shape (None if nothing): a JSON
    object of :data:`NEW_GAME_FIELDS`, with short ASCII names and options whose values
    are short strings, small numbers, booleans or null. The variant, options and level
    themselves are checked where they are used."""
    if not isinstance(body, dict):
        return f"the request body must be a JSON object, not {quote(body)}"
    unknown = sorted(set(body) - set(NEW_GAME_FIELDS))
    if unknown:
        fields = ", ".join(quote(k) for k in unknown[:5])
        known = ", ".join(NEW_GAME_FIELDS)
        word = "field" if len(unknown) == 1 else "fields"
        return f"unknown {word} {fields}; known: {known}"
    for name in ("variant", "level"):
        value = body.get(name)
        if isinstance(value, str) and not _short_word(value):
            return f"{name!r} must be a name (at most {NAME_CHARS} characters), not {quote(value)}"
    options = body.get("options")
    if options is None:
        return None
    if not isinstance(options, dict):
        return f"'options' must be an object, not {quote(options)}"
    if len(options) > OPTION_COUNT:
        return f"'options' has {len(options)} entries; at most {OPTION_COUNT}"
    for key, value in options.items():
        if not _short_word(key):
            return f"unknown option {quote(key)}"
        ok = (
            value is None
            or isinstance(value, bool)
            or (isinstance(value, int) and -(10**9) <= value <= 10**9)
            or _short_word(value)
        )
        if not ok:
            return (
                f"option {key!r} must be a short text, a number, true or false, not {quote(value)}"
            )
    return None


def _may_join(raw: str | bytes) -> bool:
    """Might this client message be a join or a watch (which a relayed socket reads
    itself, to route another game anew)? A cheap test before the full parse."""
    return (
        (b"join" in raw or b"watch" in raw)
        if isinstance(raw, bytes)
        else ("join" in raw or "watch" in raw)
    )


async def _drain(queue: asyncio.Queue[dict[str, Any]]) -> None:
    while not queue.empty():
        await asyncio.sleep(0.01)


class Connection:
    """One WebSocket client: the seat it joined and its outgoing queue."""

    def __init__(
        self,
        tables: Tables,
        out: asyncio.Queue[dict[str, Any]],
        hint_level: str | None = None,
        hint_queue: WorkQueue[tuple[str, Seat, int, str], Action] | None = None,
        max_message: int = Limits.max_frame_bytes,
        relays: Relays | None = None,
        max_followers: int = Limits.max_sockets_per_game,
    ) -> None:
        self.tables = tables
        self.out = out
        # the table drops its connections through their queues (Tables.lost)
        out.conn = self  # type: ignore[attr-defined]
        self.table: Table | None = None
        self.seat: Seat = SOUTH
        self.hint_level = hint_level or play_level()
        self.hint_queue = hint_queue or WorkQueue(1, 0, 0)
        self.max_message = max_message
        # hints being worked out (kept so that they are not collected before they answer)
        self.hints: set[asyncio.Task[None]] = set()
        self.watching = False  # a watcher of a shared table (self.seat means nothing)
        self.kicked = asyncio.Event()  # set when a shared table closes this connection
        self.moved = asyncio.Event()  # set when its table moved to another process
        self.base = ""  # the base of invite links, for the host's reopen
        # several processes: this socket's messages go to the table's owner elsewhere
        self.relays = relays
        self.relay: tuple[str, str] | None = None  # (relay id, game) while relayed
        self.max_followers = max_followers  # sockets following one table, at most

    def kick(self, code: str, message: str) -> None:
        """A shared table let this connection go (its seat taken over or closed): tell
        the client, leave the table and close the socket."""
        if isinstance(self.out, RemoteOut):  # the socket is another process's
            self.leave()
            self.out.relays.kick(self.out, dumps_message(error(code, message)))
            return
        self.send(error(code, message))
        self.leave()
        self.kicked.set()

    def kick_text(self, text: str) -> None:
        """:meth:`kick` from the owner of a relayed table (its error as JSON text)."""
        self.relay = None
        self.deliver([text])
        self.leave()
        self.kicked.set()

    def drop(self) -> None:
        """The table moved to another process: close the socket so that the page
        reconnects (to any process) and joins again."""
        if isinstance(self.out, RemoteOut):
            self.leave()
            self.out.relays.drop(self.out)
            return
        self.relay = None
        self.leave()
        self.moved.set()

    def deliver(self, texts: list[str]) -> None:
        """Messages from the owner of a relayed table, already JSON text."""
        put = getattr(self.out, "put_text", None)
        for text in texts:
            if put is not None:
                put(text)
            else:
                self.out.put_nowait(json.loads(text))

    def send(self, msg: dict[str, Any]) -> None:
        self.out.put_nowait(msg)

    def close(self) -> None:
        """The socket is gone: stop its hints (nobody is left to answer) and leave."""
        for task in self.hints:
            task.cancel()
        self.unrelay()
        self.leave()

    def unrelay(self) -> None:
        if self.relay is not None and self.relays is not None:
            self.relays.close(self.relay[0])
        self.relay = None

    def leave(self) -> None:
        # hints under way still answer (a join elsewhere does not unask them)
        if self.table is not None:
            self.table.unsubscribe(self.out)
            self.table = None
        self.watching = False

    async def handle(self, raw: str | bytes) -> None:
        """Answer one client message; every refusal is an error message, never a change.
        A socket's messages are answered in order: an action is acknowledged once it is
        stored, before the socket's next message is read.

        Whatever happens, the message is answered: a failure the schema did not foresee
        is logged (with its traceback, for the server's operator) and answered with an
        ``internal`` error, and the connection stays open."""
        try:
            await self._handle(raw)
        except Exception:
            log.exception("a client message could not be handled: %s", quote(raw, 200))
            self.send(error("internal", "the server could not handle this message"))

    async def _handle(self, raw: str | bytes) -> None:
        relay = self.relay
        if relay is not None and self.relays is not None and not _may_join(raw):
            self.relays.forward(relay[0], raw)  # the owner reads it (and answers)
            return
        try:
            msg = parse_message(raw, self.max_message)
            kind = msg["type"]
            if relay is not None and self.relays is not None:
                if kind in ("join", "watch") and msg.get("game") != relay[1]:
                    self.unrelay()  # another game: route it again
                else:
                    self.relays.forward(relay[0], raw)
                    return
            if kind == "ping":
                self.send({"type": "pong"})
            elif kind in ("join", "watch"):
                try:
                    if kind == "join":
                        await self.join(msg)
                    else:
                        await shared.watch(self, msg)
                except Elsewhere as e:  # another process owns the table: relay there
                    if self.relays is None or isinstance(self.out, RemoteOut):
                        # relayed here, but the table moved on meanwhile: the socket
                        # reconnects and is routed again
                        self.drop()
                        return
                    self.leave()
                    cid = self.relays.open(self, e.game, e.node, raw, self.base)
                    self.relay = (cid, e.game)
            else:
                table = self.table
                if table is None:
                    raise ProtocolError("not_joined", "join a game before playing")
                if kind in ("chat", "host"):
                    await shared.handle(self, table, msg)
                    return
                if self.watching:
                    raise ProtocolError("forbidden", "a watcher does not play")
                if kind == "hint":
                    self.hint(table)
                    return
                seen: int | None = msg.get("v")  # checked by the schema
                action: Action
                if kind == "play":
                    action = read_card(msg.get("card"))
                else:
                    action = table.parse_action(self.seat, msg)
                version = await table.act_async(self.seat, action, seen)
                self.send({"type": "ack", "v": version})
        except (ProtocolError, TableError) as e:
            self.send(error(e.code, e.message))

    def hint(self, table: Table) -> None:
        """Start working out a hint for this seat; a refusal raises :class:`TableError`
        at once, the answer comes later (the bot thinks in a worker process of the pool
        the tables' bots think in, so that the other tables keep playing meanwhile)."""
        version, job = table.hint_job(self.seat, self.hint_level)
        workers = workers_of(self.tables.think)
        key = (table.id, self.seat, version, self.hint_level)
        queue = self.hint_queue
        cached = queue.cached(key)
        if cached is not None:  # the same position: the same hint, at once
            self.send({"type": "hint", "v": version, "action": action_to_json(cached)})
            return
        if any(k[:2] == key[:2] and k != key for k in queue.running):
            raise ProtocolError(
                "busy", "a hint for this seat is still being worked out; ask again once it comes"
            )

        async def answer() -> None:
            try:
                action = await queue.run(key, lambda: workers.hint(*job))
            except Busy:
                self.send(error("busy", "the server is working out other hints; ask again soon"))
                return
            except Exception as e:  # a bot's failure is this hint's error, not the server's
                self.send(error("hint_failed", f"no hint could be worked out: {quote(str(e))}"))
                return
            self.send({"type": "hint", "v": version, "action": action_to_json(action)})

        task = asyncio.get_running_loop().create_task(answer())
        self.hints.add(task)
        task.add_done_callback(self.hints.discard)

    async def join(self, msg: dict[str, Any]) -> None:
        """Join a seat (again): the socket follows one seat of one live table. A join of
        the seat it follows, or of another seat or game, is answered like the first; the
        old table is let go only after the new one holds the socket, so that it is never
        unloaded under it."""
        game_id = msg.get("game")
        if not isinstance(game_id, str) or not game_id:
            raise ProtocolError("malformed", "'game' must be a game id string")
        seat = read_seat(msg.get("seat", "S"))
        since = read_since(msg.get("since"))
        table = await self.tables.open(game_id)
        # no await from here on: the table stays loaded until it holds this socket
        if table is None:
            raise ProtocolError("unknown_game", f"unknown game {quote(game_id)}")
        table.check_token(seat, msg.get("token"))
        name = None if msg.get("name") is None else read_name(msg["name"])
        shared.check_room(table, self)
        if name is not None and isinstance(table, shared.SharedTable) and table.shared:
            table.check_name(seat, name)  # before the socket follows the table
        old = self.table
        for m in table.join_messages(seat, since):
            self.send(m)
        if old is table and self.watching:
            old.unsubscribe(self.out)  # a watcher sits down at the same table
            old = None
        self.watching = False
        table.subscribe(seat, self.out)  # moves this socket's queue if it was there
        self.table, self.seat = table, seat
        if old is not None and old is not table:
            # hints asked at the old table still answer (each message gets its answer)
            old.unsubscribe(self.out)
        if isinstance(table, shared.SharedTable) and table.shared is not None:
            table.seated(seat, self, name)
        table.wake_bots()


__all__ = [
    "BOT_DELAY_ENV",
    "IDLE_ENV",
    "NODE_LIMIT_ENV",
    "REFINE_FACTOR",
    "Connection",
    "Server",
    "create_app",
    "default_bot_delay",
    "default_idle_seconds",
    "default_node_limit",
]
