"""The web game: a Starlette app serving the page, a small JSON API and the WebSocket.

Routes:

- ``GET /``: the page (plain HTML, CSS and ES modules under ``/static``).
- ``GET /api/meta``: the variants with their options, and the bot levels.
- ``POST /api/games``: a new game ``{"variant", "options", "level", "seed"}``; answers
  ``{"id", "seat", "token"}`` (the token joins that seat).
- ``GET /api/games``: stored games (``?finished=1`` for the finished ones).
- ``GET /api/games/{id}/record``: a finished game's record (shared/RECORD.md) as a download.
- ``GET /api/games/{id}/analysis``: a finished game's double-dummy review
  (:func:`whistkit.analysis.analyse`, as JSON), computed once per game and kept in memory.
- ``WS /ws``: the play protocol of :mod:`whistkit.server.protocol`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import sqlite3
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from .. import analysis
from ..bots import DEFAULT_LEVEL, LEVELS, play_level
from ..record import RecordError, loads
from ..seats import SOUTH, Seat, seat_name
from ..state import Action
from ..variants import VARIANTS, OptionError, UnknownVariant, describe, get_variant
from .protocol import (
    ProtocolError,
    action_to_json,
    error,
    parse_message,
    read_card,
    read_seat,
    read_since,
)
from .store import Store, StoredGame
from .table import BOT_PREFIX, HUMAN, Table, TableError, Tables, Think, think_in_thread
from .workers import bot_thinker

STATIC_DIR = Path(__file__).parent / "static"
BOT_DELAY_ENV = "WHISTKIT_BOT_DELAY"
DEFAULT_BOT_DELAY = 0.7  # seconds between bot cards, so a person can follow the play
NEW_GAME_FIELDS = ("variant", "options", "level", "seed")  # of a POST /api/games body
NODE_LIMIT_ENV = "WHISTKIT_ANALYSIS_NODE_LIMIT"
IDLE_ENV = "WHISTKIT_IDLE_SECONDS"
DEFAULT_IDLE_SECONDS = 30.0  # a table nobody watches leaves memory after this long
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


def default_bot_delay() -> float:
    """The bots' pause: ``$WHISTKIT_BOT_DELAY`` seconds if set, else 0.7."""
    return _env_number(BOT_DELAY_ENV, DEFAULT_BOT_DELAY, float, "a number of seconds", 0.0)


def default_node_limit() -> int:
    """The review's node limit per position: ``$WHISTKIT_ANALYSIS_NODE_LIMIT`` if set,
    else :data:`whistkit.analysis.NODE_LIMIT`."""
    return _env_number(NODE_LIMIT_ENV, analysis.NODE_LIMIT, int, "a whole number", 1)


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
    ) -> None:
        self.store = Store(db)
        self.workers = None if think is not None else bot_thinker()
        self.tables = Tables(
            self.store,
            bot_delay,
            idle_seconds=idle_seconds,
            think=think or (self.workers.think if self.workers else think_in_thread),
        )
        self.node_limit = node_limit
        # the level whose choice a hint is: expert, or club without the solver's core
        self.hint_level = hint_level or play_level()
        # game id -> its review (a finished game never changes): a task while computing,
        # so that requests arriving meanwhile wait for the same analysis
        self.analyses: dict[str, asyncio.Task[dict[str, Any]]] = {}

    async def analysis_of(self, game_id: str, record: str) -> dict[str, Any]:
        """The review of the finished game ``game_id`` (whose record is ``record``), run
        off the event loop the first time and then served from memory."""
        task = self.analyses.get(game_id)
        if task is None:
            task = asyncio.create_task(run_in_threadpool(_analyse_json, record, self.node_limit))
            self.analyses[game_id] = task

            def forget_failure(t: asyncio.Task[dict[str, Any]]) -> None:
                if t.cancelled() or t.exception() is not None:
                    self.analyses.pop(game_id, None)  # a later request tries again

            task.add_done_callback(forget_failure)
        # shielded: a request that goes away does not stop the analysis for the others
        return await asyncio.shield(task)

    async def close(self) -> None:
        await self.tables.close()
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


def _analyse_json(record: str, node_limit: int) -> dict[str, Any]:
    return analysis.analyse(loads(record), node_limit=node_limit, threads=2).to_json()


def create_app(
    db: str | Path,
    *,
    bot_delay: float | None = None,
    preset: Preset | None = None,
    node_limit: int | None = None,
    hint_level: str | None = None,
    idle_seconds: float | None = None,
    think: Think | None = None,
) -> Starlette:
    """The web game's ASGI app storing games in the SQLite file ``db``; ``preset`` is
    what the new-game dialog offers first; ``node_limit`` bounds the review's search
    per position (default :func:`default_node_limit`); ``hint_level`` is the bot level
    whose choice a hint is (default :func:`whistkit.bots.play_level`: ``expert``, or
    ``club`` without the solver's compiled core); ``idle_seconds`` is how long a table
    nobody watches stays in memory (default :func:`default_idle_seconds`); ``think`` is
    how bots choose (default: :mod:`whistkit.server.workers`)."""
    preset = preset or Preset()
    preset.check()
    if node_limit is not None and node_limit < 1:
        raise ValueError(f"the node limit must be at least 1, not {node_limit}")
    if hint_level is not None and hint_level not in LEVELS:
        raise ValueError(f"unknown hint level {hint_level!r}; known: {', '.join(LEVELS)}")
    server = Server(
        db,
        default_bot_delay() if bot_delay is None else bot_delay,
        default_node_limit() if node_limit is None else node_limit,
        hint_level,
        default_idle_seconds() if idle_seconds is None else idle_seconds,
        think,
    )

    async def index(request: Request) -> Response:
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    async def meta(request: Request) -> Response:
        return JSONResponse(preset.meta())

    async def new_game(request: Request) -> Response:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return JSONResponse({"error": "the request body must be JSON"}, status_code=400)
        except RecursionError:
            return JSONResponse({"error": "the request body is nested too deeply to read"}, 400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "the request body must be a JSON object"}, 400)
        unknown = sorted(set(body) - set(NEW_GAME_FIELDS))
        if unknown:
            fields = ", ".join(repr(k) for k in unknown)
            known = ", ".join(NEW_GAME_FIELDS)
            word = "field" if len(unknown) == 1 else "fields"
            return JSONResponse({"error": f"unknown {word} {fields}; known: {known}"}, 400)
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
            return JSONResponse({"error": f"unknown bot level {level!r}; known: {known}"}, 400)
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63
        ):
            return JSONResponse(
                {"error": f"'seed' must be an integer from 0 to 2**63-1, not {seed!r}"}, 400
            )
        human: Seat = SOUTH
        seats = {s: HUMAN if s == human else BOT_PREFIX + level for s in range(4)}
        try:
            table = await server.tables.create_async(variant, options, seed=seed, seats=seats)
        except (OptionError, UnknownVariant, ValueError) as e:
            return JSONResponse({"error": str(e)}, 400)
        except sqlite3.Error as e:
            return JSONResponse({"error": f"the game could not be stored, try again: {e}"}, 503)
        return JSONResponse(
            {"id": table.id, "seat": seat_name(human), "token": table.tokens[human]}
        )

    async def list_games(request: Request) -> Response:
        flag = request.query_params.get("finished")
        finished = None if flag is None else flag not in ("0", "false", "")
        rows = server.store.list(finished=finished)
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
        row = server.store.get(game_id)
        if row is None:
            return game_id, JSONResponse({"error": f"unknown game {game_id!r}"}, 404)
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
        try:
            result = await server.analysis_of(game_id, row.record)
        except RecordError as e:
            return JSONResponse({"error": f"game {game_id}: {e}"}, 500)
        except RuntimeError as e:  # the solver's compiled core is missing
            return JSONResponse({"error": str(e)}, 503)
        return JSONResponse(result)

    async def websocket(ws: WebSocket) -> None:
        await ws.accept()
        out: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        conn = Connection(server.tables, out, server.hint_level)

        async def pump() -> None:
            while True:
                msg = await out.get()
                await ws.send_text(json.dumps(msg, ensure_ascii=False))

        sender = asyncio.create_task(pump())
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                raw = message.get("text")
                if raw is None:
                    raw = message.get("bytes") or b""
                await conn.handle(raw)
        finally:
            conn.leave()
            # let queued messages go out before the socket closes
            with contextlib.suppress(Exception):
                await asyncio.wait_for(_drain(out), timeout=0.5)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await server.close()

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/meta", meta),
            Route("/api/games", new_game, methods=["POST"]),
            Route("/api/games", list_games, methods=["GET"]),
            Route("/api/games/{game_id}/record", record),
            Route("/api/games/{game_id}/analysis", review),
            WebSocketRoute("/ws", websocket),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.server = server
    return app


def _read_seen(value: Any) -> int | None:
    """An action's ``v``: the event version its sender saw (None: not given)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**53:
        raise ProtocolError("malformed", f"'v' must be a version number >= 0, not {value!r}")
    return value


async def _drain(queue: asyncio.Queue[dict[str, Any]]) -> None:
    while not queue.empty():
        await asyncio.sleep(0.01)


class Connection:
    """One WebSocket client: the seat it joined and its outgoing queue."""

    def __init__(
        self, tables: Tables, out: asyncio.Queue[dict[str, Any]], hint_level: str | None = None
    ) -> None:
        self.tables = tables
        self.out = out
        self.table: Table | None = None
        self.seat: Seat = SOUTH
        self.hint_level = hint_level
        # hints being worked out (kept so that they are not collected before they answer)
        self.hints: set[asyncio.Task[None]] = set()

    def send(self, msg: dict[str, Any]) -> None:
        self.out.put_nowait(msg)

    def leave(self) -> None:
        for task in self.hints:
            task.cancel()
        if self.table is not None:
            self.table.unsubscribe(self.out)
            self.table = None

    async def handle(self, raw: str | bytes) -> None:
        """Answer one client message; every refusal is an error message, never a change.
        A socket's messages are answered in order: an action is acknowledged once it is
        stored, before the socket's next message is read."""
        try:
            msg = parse_message(raw)
            kind = msg["type"]
            if kind == "ping":
                self.send({"type": "pong"})
            elif kind == "join":
                await self.join(msg)
            else:
                table = self.table
                if table is None:
                    raise ProtocolError("not_joined", "join a game before playing")
                if kind == "hint":
                    self.hint(table)
                    return
                seen = _read_seen(msg.get("v"))
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
        at once, the answer comes later (the bot thinks off the event loop, so that the
        other tables keep playing meanwhile)."""
        version, job = table.hint_job(self.seat, self.hint_level)

        async def answer() -> None:
            try:
                action = await run_in_threadpool(job)
            except Exception as e:  # a bot's failure is this hint's error, not the server's
                self.send(error("hint_failed", f"no hint could be worked out: {e}"))
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
            raise ProtocolError("unknown_game", f"unknown game {game_id!r}")
        table.check_token(seat, msg.get("token"))
        old = self.table
        for m in table.join_messages(seat, since):
            self.send(m)
        table.subscribe(seat, self.out)  # moves this socket's queue if it was there
        self.table, self.seat = table, seat
        if old is not None and old is not table:
            for task in self.hints:
                task.cancel()
            old.unsubscribe(self.out)
        table.wake_bots()


__all__ = [
    "BOT_DELAY_ENV",
    "IDLE_ENV",
    "NODE_LIMIT_ENV",
    "Connection",
    "Server",
    "create_app",
    "default_bot_delay",
    "default_idle_seconds",
    "default_node_limit",
]
