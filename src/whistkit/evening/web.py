"""The evening organiser's web app: host pages, table pages, projector, print, export.

``whistkit evening`` serves it (see docs/evening.md, "Running an evening"). Pages are
plain HTML and ES modules under ``/static``; data comes from a small JSON API:

- Host (the laptop; a cookie holding the evening's host key, set when the evening is
  created, or by opening ``/e/{id}/host?key=...`` as printed in the terminal):
  ``POST /api/evenings`` creates; ``GET /api/e/{id}`` is the whole state;
  ``POST /api/e/{id}/{config,players,import,balance,seat,status,result,correct,hide}``
  change it; ``GET /api/e/{id}/cards`` gives the score cards, ``/e/{id}/export.csv`` and
  ``/e/{id}/export.json`` the exports, ``/e/{id}/qr/{n}.svg`` a table's QR code.
- Tables (a phone, no login: the link on the table card carries the table's token):
  ``GET /api/t/{id}/{token}``, ``POST /api/t/{id}/{token}/{enter,confirm,reject}``.
- The projector: ``GET /api/e/{id}/projector`` (host cookie).

The host's and the projector's state take ``?since=V``: the answer comes at once when the
evening's version is not V, else when it changes (at most :data:`WAIT_SECONDS` later); a
table's view takes ``?since=ETAG`` and waits for its own table's view to change. So pages
follow the evening by long polling, one request at a time each, with a bound on the
number of waiting requests. Every write is committed to SQLite before it is answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import dataclasses
import hashlib
import hmac
import html
import json
import secrets
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .._checks import is_whole
from ..server.security import Edge, allowed_hosts, quiet_accept_failures
from . import (
    SEATINGS,
    Derivation,
    Evening,
    EveningError,
    balance_groups,
    derive,
    live,
    with_config,
    with_players,
)
from . import (
    start as start_evening,
)
from .edge import from_this_machine
from .store import Conflict, EveningStore, Player, StoredEvening

STATIC_DIR = Path(__file__).parent / "static"
WAIT_SECONDS = 20.0  # longest a long poll is held open
MAX_WAITERS = 4000  # long polls held at once (a 130-table hall with a few devices each)
MAX_BODY = 256 * 1024  # bytes of a request body
MAX_PLAYERS = 520
MAX_NAME = 40
MAX_TITLE = 80
MAX_REASON = 200
MAX_OPEN_EVENINGS = 50
MAX_SERIES_LOOKUP = 200  # evenings looked through for a series' running total
COOKIE = "wk_host_"  # + evening id
CREATOR_COOKIE = "wk_creator"  # the terminal's key for creating evenings from elsewhere
PHONE_COOKIE = "wk_phone"  # a phone's session: the one that entered a result cannot confirm it


def phone_label(request: Request) -> str | None:
    """The label of the phone's session (a digest of its cookie, never the cookie), or
    None for a browser that has not opened a table's page."""
    token = request.cookies.get(PHONE_COOKIE, "")
    if not 16 <= len(token) <= 64 or not token.replace("-", "").replace("_", "").isalnum():
        return None
    return hashlib.sha256(token.encode()).hexdigest()[:10]


def with_phone_session(request: Request, response: Response) -> Response:
    """``response`` giving this browser a phone session if it has none."""
    if phone_label(request) is None:
        response.set_cookie(
            PHONE_COOKIE,
            secrets.token_urlsafe(16),
            max_age=2 * 86400,
            httponly=True,
            samesite="strict",
        )
    return response


class Refused(Exception):
    """A request refused with a status and a message naming what is wrong."""

    def __init__(self, status: int, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


LANGUAGES = ("en", "is", "sv", "it", "fr", "ru")
_strings: dict[str, dict[str, str]] = {}


def strings_of(lang: str) -> dict[str, str]:
    """The pages' strings in ``lang`` (static/i18n), read once."""
    if lang not in _strings:
        path = STATIC_DIR / "i18n" / f"{lang}.json"
        _strings[lang] = json.loads(path.read_text("utf-8"))
    return _strings[lang]


def language_of(request: Request) -> str:
    """The first of the browser's languages (``Accept-Language``) the pages have, else
    English: what the pages pick by themselves (``navigator.language``)."""
    ranked = []
    for n, part in enumerate(request.headers.get("accept-language", "")[:400].split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        ranked.append((-q, n, tag.strip().lower().split("-")[0]))
    for _, _, lang in sorted(ranked):
        if lang in LANGUAGES:
            return lang
    return "en"


def html_refusal(request: Request, status: int, code: str | None, message: str) -> Response:
    """A refused page (a host link with a wrong key, the print or export pages without
    the host's key) as a page in the browser's language, not raw JSON."""
    lang = language_of(request)
    strings = strings_of(lang)
    said = strings.get(f"err_{code}") if code else None
    body = (
        f'<!doctype html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<title>whistkit</title><link rel="stylesheet" href="/static/evening.css"></head>'
        f'<body><main class="refused"><h1>whistkit</h1><p class="big" id="refused" data-code="'
        f'{html.escape(code or "")}">{html.escape(said or message)}</p></main></body></html>\n'
    )
    return HTMLResponse(body, status, headers={"Cache-Control": "no-cache"})


def refusal(message: str, status: int, code: str | None) -> JSONResponse:
    """An error answer: the message in English and, where the pages know the kind, its
    ``code`` (the pages show the code's string in their language)."""
    body: dict[str, str] = {"error": message}
    if code is not None:
        body["code"] = code
    return JSONResponse(body, status)


class Hub:
    """Who waits for which evening's next version; bounded."""

    def __init__(self) -> None:
        self.events: dict[str, asyncio.Event] = {}
        self.waiting = 0
        self.closing = False
        self.loop: asyncio.AbstractEventLoop | None = None

    def close(self) -> None:
        """Answer every waiting page now (the server stops)."""
        self.closing = True
        for ev in self.events.values():
            ev.set()
        self.events.clear()

    def close_threadsafe(self) -> None:
        """:meth:`close` from a signal handler or another thread."""
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.close)

    def changed(self, evening: str) -> None:
        ev = self.events.pop(evening, None)
        if ev is not None:
            ev.set()

    async def wait(
        self,
        evening: str,
        since: int,
        version: Callable[[], int | None],
        seconds: float = WAIT_SECONDS,
    ) -> None:
        """Return when ``version()`` differs from ``since`` or after ``seconds``."""
        if version() != since or self.closing or seconds <= 0:
            return
        self.loop = asyncio.get_running_loop()
        if self.waiting >= MAX_WAITERS:
            raise Refused(
                503, "too many pages are waiting for updates; try again shortly", code="busy"
            )
        ev = self.events.setdefault(evening, asyncio.Event())
        self.waiting += 1
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ev.wait(), seconds)
        finally:
            self.waiting -= 1


class Organiser:
    """The app's state: the store, the waiting pages and the derived evenings."""

    def __init__(self, db: str | Path) -> None:
        self.store = EveningStore(db)
        self.hub = Hub()
        self.cache: dict[str, live.Live] = {}
        self.derived: dict[str, tuple[Any, Derivation | None]] = {}
        self.locks: dict[str, asyncio.Lock] = {}

    def stored(self, evening: str) -> StoredEvening:
        row = self.store.get(evening)
        if row is None:
            raise Refused(404, f"unknown evening {evening!r}", code="no_evening")
        return row

    async def live(self, evening: str) -> live.Live:
        """The evening with its derived state. Built once per stored version; the model's
        derivation (about 0.4 s for 520 players) is made again only when what it reads
        changed (not for an entry waiting for confirmation), in a worker thread so that
        the other pages are answered meanwhile, one at a time per evening."""
        have = self.cache.get(evening)
        version = self.store.version(evening)
        if version is None:
            raise Refused(404, f"unknown evening {evening!r}", code="no_evening")
        if have is not None and have.stored.version == version:
            return have
        lock = self.locks.setdefault(evening, asyncio.Lock())
        async with lock:
            have = self.cache.get(evening)
            stored = self.stored(evening)
            if have is not None and have.stored.version == stored.version:
                return have
            key = live.truth_key(stored)
            done = self.derived.get(evening)
            if done is None or done[0] != key:
                derivation = await run_in_threadpool(live.derivation_of, stored)
                done = (key, derivation)
                self.derived[evening] = done
            made = live.Live(stored, done[1])
            if made.tables > len(stored.tables):  # late arrivals fill a new table
                self.store.add_tables(
                    evening,
                    {
                        n: secrets.token_urlsafe(16)
                        for n in range(1, made.tables + 1)
                        if n not in stored.tables
                    },
                )
                made = live.Live(self.stored(evening), done[1])
            self.cache[evening] = made
            return made

    def changed(self, evening: str) -> None:
        self.hub.changed(evening)

    async def warm_up(self) -> None:
        """Derive every evening in play (a bad one is left for its pages to report)."""
        for evening, _, status, _ in self.store.list():
            if status in ("running", "paused"):
                with contextlib.suppress(Refused, EveningError, ValueError):
                    await self.live(evening)


# -- reading requests ---------------------------------------------------------------------


async def read_json(request: Request, fields: tuple[str, ...]) -> dict[str, Any]:
    """The JSON object of a request body with only ``fields``; bounded in size."""
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    if kind != "application/json":
        # also keeps other sites' plain forms out: they cannot send JSON without asking
        raise Refused(415, "the request body must be JSON (Content-Type: application/json)")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused(413, f"the request body is over {MAX_BODY // 1024} KB")
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise Refused(400, "the request body must be JSON") from None
    except RecursionError:
        raise Refused(400, "the request body is nested too deeply to read") from None
    if not isinstance(data, dict):
        raise Refused(400, "the request body must be a JSON object")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise Refused(
            400, f"unknown field {', '.join(map(repr, unknown))}; known: {', '.join(fields)}"
        )
    return data


def whole(data: dict[str, Any], key: str, low: int, high: int) -> int:
    value = data.get(key)
    if not is_whole(value) or not low <= value <= high:
        raise Refused(400, f"{key!r} must be a whole number from {low} to {high}, not {value!r}")
    return value


def text(value: object, what: str, longest: int, *, empty: bool = False) -> str:
    """A one-line text: stripped, NFC, no control characters, at most ``longest`` long."""
    if not isinstance(value, str):
        raise Refused(400, f"{what} must be text, not {value!r}")
    value = unicodedata.normalize("NFC", " ".join(str(value).split()))
    if not value and not empty:
        raise Refused(400, f"{what} is empty")
    if len(value) > longest:
        raise Refused(400, f"{what} is {len(value)} characters long; at most {longest}")
    if any(unicodedata.category(c)[0] == "C" for c in value):
        raise Refused(400, f"{what} has a control character")
    return value


def read_players(items: Any, hands: int) -> list[Player]:
    """Players from ``[{"name", "group", "fixed", "other_group", "arrives", "leaves",
    "id"}]`` (only the name is required); a player without an id gets the next free one."""
    if not isinstance(items, list):
        raise Refused(400, "'players' must be a list")
    if len(items) > MAX_PLAYERS:
        raise Refused(400, f"{len(items)} players; at most {MAX_PLAYERS}")
    fields = {"id", "name", "group", "fixed", "other_group", "arrives", "leaves"}
    out: list[Player] = []
    seen: set[str] = set()
    ids = {item.get("id") for item in items if isinstance(item, dict)}
    next_id = max((i for i in ids if is_whole(i)), default=0) + 1
    taken: set[int] = set()
    for n, item in enumerate(items, 1):
        if not isinstance(item, dict) or set(item) - fields:
            raise Refused(400, f"player {n} must be an object with {', '.join(sorted(fields))}")
        name = text(item.get("name"), f"player {n}'s name", MAX_NAME)
        who = f"player {n} ({name})"
        pid = item.get("id")
        if pid is None:
            pid, next_id = next_id, next_id + 1
        elif not is_whole(pid) or not 1 <= pid <= 10**6 or pid in taken:
            raise Refused(400, f"{who}: 'id' must be a new whole number from 1, not {pid!r}")
        taken.add(pid)
        group = item.get("group", "A")
        if group not in ("A", "B"):
            raise Refused(400, f"{who}: the group must be A or B, not {group!r}")
        flags = {}
        for key in ("fixed", "other_group"):
            flags[key] = item.get(key, False)
            if not isinstance(flags[key], bool):
                raise Refused(400, f"{who}: {key!r} must be true or false")
        arrives = item.get("arrives", 1)
        if not is_whole(arrives) or not 1 <= arrives <= hands:
            raise Refused(400, f"{who}: 'arrives' must be a hand from 1 to {hands}")
        leaves = item.get("leaves")
        if leaves is not None and (not is_whole(leaves) or not arrives <= leaves <= hands):
            raise Refused(400, f"{who}: 'leaves' must be a hand from {arrives} to {hands}")
        if name.casefold() in seen:
            raise Refused(400, f"{who}: the name is there twice")
        seen.add(name.casefold())
        out.append(Player(pid, name, group, flags["fixed"], flags["other_group"], arrives, leaves))
    return out


def player_name(ev: live.Live, player: int) -> str:
    """A player's name (``#id`` for an id not on the list)."""
    return next((p.name for p in ev.stored.players if p.id == player), f"#{player}")


HEADER_NAMES = frozenset(
    {"name", "names", "nafn", "namn", "nome", "nom", "имя", "player", "spilari"}
)
HEADER_GROUPS = frozenset(
    {"group", "hópur", "hopur", "flokkur", "grupp", "grupo", "gruppo", "groupe", "группа"}
)
FIXED_WORDS = ("fixed", "fast", "yes", "já", "ja", "1", "true", "x")
NOT_FIXED_WORDS = ("", "no", "0", "false")


def split_player_line(line: str) -> list[str]:
    """The cells of one pasted line: split at tabs if it has one, else at semicolons if it
    has one, else at commas (quotes keep a separator in a name, as in CSV)."""
    delimiter = "\t" if "\t" in line else (";" if ";" in line else ",")
    row = next(csv.reader([line], delimiter=delimiter), [])
    return [c.strip() for c in row]


def parse_player_lines(
    raw: str, taken: Iterable[str] = ()
) -> tuple[list[dict[str, Any]], list[str]]:
    """Players from pasted lines or CSV: ``name, group[, fixed]`` per line, the separator
    decided line by line (a tab, else a semicolon, else a comma; docs/evening.md). A header
    line (``name,group``) first is skipped. A line is never guessed at: one without a group
    of A or B, with an unknown third column, or whose name is not one a player may have
    (too long, a control character, there twice, or one of ``taken``: the names on the
    list already) is a problem naming its line and text. Every problem is found, not only
    the first. Returns the players and the problems."""
    players: list[dict[str, Any]] = []
    problems: list[str] = []
    seen = {name.casefold(): 0 for name in taken}  # name -> its line (0: on the list)
    lines = raw.splitlines()
    if len(lines) > MAX_PLAYERS + 1:
        return [], [f"{len(lines)} lines; at most {MAX_PLAYERS} players"]
    first = True
    for n, line in enumerate(lines, 1):
        cells = split_player_line(line)
        if not any(cells):
            continue
        if first:
            first = False
            if cells[0].casefold() in HEADER_NAMES and (
                len(cells) < 2 or cells[1].casefold() in HEADER_GROUPS
            ):
                continue
        shown = " ".join(line.split())
        if len(shown) > 60:
            shown = shown[:57] + "..."
        where = f"line {n} ({shown!r})"
        name = cells[0]
        if len(cells) < 2 or not cells[1]:
            problems.append(
                f"{where}: no group; write the name, a comma and A or B (e.g. 'Anna, B')"
            )
            continue
        group = cells[1].upper()
        if group not in ("A", "B"):
            problems.append(f"{where}: the group must be A or B, not {cells[1]!r}")
            continue
        flag = cells[2].casefold() if len(cells) > 2 else ""
        if flag not in FIXED_WORDS + NOT_FIXED_WORDS or len(cells) > 3:
            problems.append(
                f"{where}: the third column must be 'fixed' or empty, not {', '.join(cells[2:])!r}"
            )
            continue
        if not name:
            problems.append(f"{where}: no name")
            continue
        try:
            name = text(name, "the name", MAX_NAME)
        except Refused as e:
            problems.append(f"{where}: {e.message}")
            continue
        before = seen.get(name.casefold())
        if before is not None:
            problems.append(
                f"{where}: {name} is on the list already"
                if before == 0
                else f"{where}: {name} is there twice (line {before} too)"
            )
            continue
        seen[name.casefold()] = n
        players.append({"name": name, "group": group, "fixed": flag in FIXED_WORDS})
    return players, problems


# -- the app --------------------------------------------------------------------------------


def create_app(
    db: str | Path,
    public_url: str | None = None,
    *,
    hosts: Iterable[str] | None = None,
    creator_key: str | None = None,
) -> Starlette:
    """The organiser's ASGI app storing evenings in the SQLite file ``db``; the table
    cards' links start with ``public_url`` (e.g. ``http://192.168.1.20:8000/``), else with
    the address the host's page was opened with.

    The app answers only for ``hosts`` (default: loopback names and the host of
    ``public_url``), takes state-changing requests only from its own origin and gives
    every answer the security headers (the game server's
    :class:`whistkit.server.security.Edge`). Evenings are created from this machine
    (:func:`whistkit.evening.edge.from_this_machine`), or by a browser that opened
    ``/?key=creator_key`` (the link the terminal prints)."""
    org = Organiser(db)
    if hosts is None:
        hosts = allowed_hosts("127.0.0.1", public_url)

    def base_url(request: Request) -> str:
        return public_url or str(request.base_url)

    no_cache = {"Cache-Control": "no-cache"}

    def page(name: str) -> Callable[[Request], Awaitable[Response]]:
        async def serve(request: Request) -> Response:
            return FileResponse(STATIC_DIR / name, headers=no_cache)

        return serve

    async def front_page(request: Request) -> Response:
        key = request.query_params.get("key")
        if key is None:
            return FileResponse(STATIC_DIR / "host.html", headers=no_cache)
        if creator_key is None or not hmac.compare_digest(key.encode(), creator_key.encode()):
            raise Refused(403, "this link's key is wrong: open the one the terminal shows")
        to = RedirectResponse("/", 303)  # the key in a cookie, out of the address bar
        to.set_cookie(CREATOR_COOKIE, key, httponly=True, samesite="strict")
        return to

    def may_create(request: Request) -> bool:
        if from_this_machine(request):
            return True
        key = request.cookies.get(CREATOR_COOKIE, "")
        return creator_key is not None and hmac.compare_digest(key.encode(), creator_key.encode())

    def host_id(request: Request) -> str:
        """The evening of the path if this browser holds its host key, else refused."""
        evening: str = request.path_params["evening"]
        want = org.store.host_key(evening)
        if want is None:
            raise Refused(404, f"unknown evening {evening!r}", code="no_evening")
        key = request.cookies.get(COOKIE + evening, "")
        if not hmac.compare_digest(key.encode(), want.encode()):
            raise Refused(
                403, "this page is the host's: open the host link of the evening", code="host_only"
            )
        return evening

    def host_of(request: Request) -> StoredEvening:
        """The stored evening of the path, for its host only."""
        return org.stored(host_id(request))

    async def table_of(request: Request) -> tuple[live.Live, int]:
        evening = request.path_params["evening"]
        token = request.path_params["token"]
        ev = await org.live(evening)
        for number, tok in ev.stored.tables.items():
            if hmac.compare_digest(tok.encode(), token.encode()):
                return ev, number
        raise Refused(
            404, "no such table in this evening: open the link on the table card", code="no_table"
        )

    def handle(
        fn: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            try:
                return await fn(request)
            except Refused as e:
                return refusal(e.message, e.status, e.code)
            except Conflict as e:
                return refusal(str(e), 409, e.code)
            except EveningError as e:
                return refusal(str(e), 400, e.code)
            except ClientDisconnect:  # gone (or cut off by the body timeout): nobody to answer
                return Response(status_code=400)

        return run

    async def since_of(request: Request, evening: str) -> None:
        raw = request.query_params.get("since")
        if raw is None:
            return
        if not raw.isdigit() or len(raw) > 12:
            raise Refused(400, f"'since' must be a version number, not {raw!r}")
        await org.hub.wait(evening, int(raw), lambda: org.store.version(evening))

    def shown(
        fn: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        """A page a person opens in the browser: refused as a page in their language."""

        async def run(request: Request) -> Response:
            try:
                return await fn(request)
            except Refused as e:
                return html_refusal(request, e.status, e.code, e.message)

        return run

    # -- host pages --------------------------------------------------------------------

    async def host_page(request: Request) -> Response:
        evening = request.path_params["evening"]
        key = request.query_params.get("key")
        if key is not None:  # the printed host link: keep the key in a cookie, drop it from the URL
            row = org.stored(evening)
            if not hmac.compare_digest(key.encode(), row.host_key.encode()):
                raise Refused(403, "this host link's key is wrong", code="wrong_key")
            to = RedirectResponse(f"/e/{evening}/host", 303)
            set_host_cookie(to, evening, row.host_key)
            return to
        return FileResponse(STATIC_DIR / "host.html", headers=no_cache)

    def set_host_cookie(response: Response, evening: str, key: str) -> None:
        response.set_cookie(
            COOKIE + evening, key, max_age=30 * 86400, httponly=True, samesite="strict"
        )

    async def host_only_page(request: Request) -> Response:
        name = request.path_params.get("kind")
        try:
            host_id(request)
        except Refused as e:
            if name:
                raise
            # the projector says so itself, in its language, rather than as bare JSON
            return FileResponse(STATIC_DIR / "projector.html", e.status, headers=no_cache)
        return FileResponse(
            STATIC_DIR / ("print.html" if name else "projector.html"), headers=no_cache
        )

    async def new_evening(request: Request) -> Response:
        if not may_create(request):
            # a phone on the hall's Wi-Fi neither creates evenings nor fills the list
            raise Refused(
                403,
                "evenings are created on the laptop the organiser runs on (or with the link"
                " its terminal shows)",
                code="creator_only",
            )
        data = await read_json(request, ("title", "config"))
        title = text(data.get("title", ""), "the title", MAX_TITLE, empty=True) or "Félagsvist"
        config = live.config_to_json(live.config_from_json(data.get("config", {})))
        if org.store.count_open() >= MAX_OPEN_EVENINGS:
            raise Refused(409, f"{MAX_OPEN_EVENINGS} evenings are open; finish one first")
        evening = secrets.token_hex(4)
        key = secrets.token_urlsafe(24)
        org.store.create(evening, title, config, key)
        response = JSONResponse({"id": evening, "url": f"/e/{evening}/host"})
        set_host_cookie(response, evening, key)
        return response

    async def meta(request: Request) -> Response:
        return JSONResponse({**live.meta(), "max_players": MAX_PLAYERS, "max_name": MAX_NAME})

    async def my_evenings(request: Request) -> Response:
        mine = []
        for evening, title, status, updated in org.store.list():
            key = request.cookies.get(COOKIE + evening)
            if key is not None:
                row = org.store.get(evening)
                if row is not None and hmac.compare_digest(key.encode(), row.host_key.encode()):
                    mine.append(
                        {"id": evening, "title": title, "status": status, "updated": updated}
                    )
        return JSONResponse(mine)

    async def host_state(request: Request) -> Response:
        eid = host_id(request)
        await since_of(request, eid)
        audit = [
            {"at": a.at, "actor": a.actor, "action": a.action, "detail": a.detail}
            for a in org.store.audit(eid, limit=300)
        ]
        state = (await org.live(eid)).host_json(base_url(request), audit)
        state["series"] = await series_of(org.stored(eid))
        return JSONResponse(state)

    async def series_of(row: StoredEvening) -> dict[str, Any] | None:
        """The running total of the evening's series: every evening on this laptop with
        the same series name, each player's totals added up by name (the same name in
        another evening is the same player), the groups as in the latest evening."""
        name = str(row.config.get("series") or "").strip()
        if not name:
            return None
        evenings = []
        for eid, title, _, _ in reversed(org.store.list(limit=MAX_SERIES_LOOKUP)):
            other = org.store.get(eid)
            if other is None or other.seating is None:
                continue
            if str(other.config.get("series") or "").strip().casefold() == name.casefold():
                evenings.append((eid, title))
        sums: dict[str, dict[str, Any]] = {}
        for eid, _ in evenings:
            for r in (await org.live(eid)).standings():
                key = r["name"].casefold()
                have = sums.setdefault(key, {"name": r["name"], "total": 0.0, "evenings": 0})
                have["total"] += float(r["total"])
                have["evenings"] += 1
                have["group"] = r["group"]
        rows = sorted(sums.values(), key=lambda r: (-r["total"], r["name"]))
        for r in rows:
            r["rank"] = 1 + sum(
                1 for o in rows if o["group"] == r["group"] and o["total"] > r["total"]
            )
            r["total"] = live._fmt(r["total"])
        return {
            "name": name,
            "evenings": [{"id": e, "title": t} for e, t in evenings],
            "standings": rows,
        }

    async def projector_state(request: Request) -> Response:
        eid = host_id(request)
        await since_of(request, eid)
        return JSONResponse((await org.live(eid)).projector_json())

    async def score_cards(request: Request) -> Response:
        eid = host_id(request)
        return JSONResponse((await org.live(eid)).cards_json())

    def done(evening: str, version: int) -> Response:
        org.changed(evening)
        return JSONResponse({"version": version})

    async def set_config(request: Request) -> Response:
        row = host_of(request)
        data = await read_json(request, ("title", "config"))
        title = text(data.get("title", row.title), "the title", MAX_TITLE)
        config = live.config_from_json(data.get("config", row.config))
        if row.seating is not None:  # the model says what may change once results exist
            with_config(live.model_evening(row), config)
        return done(row.id, org.store.update_config(row.id, title, live.config_to_json(config)))

    def check_players(row: StoredEvening, players: list[Player]) -> None:
        """The model's checks of a new player list: each player, and once the evening has
        started, that no hand up to the one in play would be seated otherwise."""
        for p in players:
            live.model_player(p).check(live.config_from_json(row.config).hands)
        if row.status != "setup":
            evening = live.model_evening(row)
            with_players(evening, [live.model_player(p) for p in players])

    async def set_players(request: Request) -> Response:
        row = host_of(request)
        data = await read_json(request, ("players",))
        players = read_players(data.get("players"), live.config_from_json(row.config).hands)
        await run_in_threadpool(check_players, row, players)
        return done(row.id, org.store.set_players(row.id, players))

    async def import_players(request: Request) -> Response:
        row = host_of(request)
        data = await read_json(request, ("text", "replace"))
        raw = data.get("text")
        if not isinstance(raw, str):
            raise Refused(400, "'text' must be the pasted lines")
        replace = data.get("replace") is True
        found, problems = parse_player_lines(raw, () if replace else (p.name for p in row.players))
        if problems:  # nothing is guessed: the host mends the lines and imports again
            raise Refused(  # every problem, each with its pasted line's number
                400,
                f"Nothing imported: {len(problems)} line{'s' if len(problems) > 1 else ''}"
                " not understood. Mend them and import again.\n" + "\n".join(problems),
            )
        if not found:
            raise Refused(400, "Nothing imported: no player lines (name, group) were pasted")
        if data.get("replace") and row.status != "setup":
            raise Refused(409, "the evening has started: add players, do not replace the list")
        before = (
            []
            if data.get("replace")
            else [
                {
                    "id": p.id,
                    "name": p.name,
                    "group": p.group,
                    "fixed": p.fixed,
                    "other_group": p.other_group,
                    "arrives": p.arrives,
                    "leaves": p.leaves,
                }
                for p in row.players
            ]
        )
        if row.status != "setup":  # late arrivals: from the hand after the one in play
            arrives = (await org.live(row.id)).arrival_hand()
            found = [{**f, "arrives": arrives} for f in found]
        hands = live.config_from_json(row.config).hands
        players = read_players(before + found, hands)
        await run_in_threadpool(check_players, row, players)
        version = org.store.set_players(row.id, players)
        org.changed(row.id)
        # what was imported, for the host to check against the pasted list
        return JSONResponse(
            {"version": version, "imported": [[f["name"], f["group"], f["fixed"]] for f in found]}
        )

    async def balance(request: Request) -> Response:
        row = host_of(request)
        await read_json(request, ())
        if row.status != "setup":
            raise Refused(409, "the groups are balanced before the start")
        flipped = balance_groups([live.model_player(p) for p in row.players])
        players = [
            dataclasses.replace(p, other_group=m.other_group)
            for p, m in zip(row.players, flipped, strict=True)
        ]
        return done(row.id, org.store.set_players(row.id, players))

    async def seat(request: Request) -> Response:
        row = host_of(request)
        data = await read_json(request, ("mode", "seed"))
        mode = data.get("mode", "random")
        if mode not in SEATINGS:
            raise Refused(400, f"'mode' must be one of {', '.join(SEATINGS)}, not {mode!r}")
        seed = data.get("seed")
        if seed is None:
            seed = secrets.randbelow(2**31)
        elif not is_whole(seed) or not 0 <= seed < 2**63:
            raise Refused(400, f"'seed' must be a whole number from 0 to 2**63-1, not {seed!r}")
        if len(row.players) < 4:
            raise Refused(409, "a table needs four players: enter the players first")
        config = dataclasses.replace(live.config_from_json(row.config), seating=mode, seed=seed)
        evening = Evening(config, tuple(live.model_player(p) for p in row.players))
        first = derive(evening).hands[0]  # the model refuses what cannot be seated
        tokens = {
            n: row.tables.get(n) or secrets.token_urlsafe(16)
            for n in range(1, len(first.tables) + 1)
        }
        version = org.store.set_seating(
            row.id, {"mode": mode, "seed": seed}, live.config_to_json(config), tokens
        )
        return done(row.id, version)

    async def set_status(request: Request) -> Response:
        row = host_of(request)
        data = await read_json(request, ("action",))
        action = data.get("action")
        moves = {
            "start": ("running", ("setup",)),
            "pause": ("paused", ("running",)),
            "resume": ("running", ("paused",)),
            "finish": ("finished", ("running", "paused")),
        }
        if action not in moves:
            raise Refused(400, f"'action' must be one of {', '.join(moves)}, not {action!r}")
        status, allowed = moves[action]
        if action == "start":
            if row.seating is None:
                raise Refused(409, "seat the players before the start")
            start_evening(live.model_evening(row))  # the model's checks of a start
        return done(row.id, org.store.set_status(row.id, status, allowed))

    async def host_result(request: Request) -> Response:
        row = host_of(request)
        data = await read_json(request, ("hand", "table", "ns", "replace"))
        ev = await org.live(row.id)
        hand = whole(data, "hand", 1, ev.hands)
        table = whole(data, "table", 1, max(1, ev.tables))
        ns = whole(data, "ns", 0, 13)
        ev.check_can_report(hand, table)
        pending = ev.stored.pending.get((hand, table))
        if pending is not None and pending.ns != ns and data.get("replace") is not True:
            # the host may override a phone's entry, but knowingly
            raise Refused(
                409,
                f"table {table} has an entry waiting for confirmation (N–S {pending.ns}, by"
                f" {player_name(ev, pending.entered_by)}); send 'replace': true to save"
                f" N–S {ns} instead",
            )
        version = org.store.confirm(
            row.id, hand, table, ns, entered_by=None, confirmed_by=None, actor="host"
        )
        return done(row.id, version)

    async def correct(request: Request) -> Response:
        row = host_of(request)
        data = await read_json(request, ("hand", "table", "ns", "reason"))
        ev = await org.live(row.id)
        hand = whole(data, "hand", 1, ev.hands)
        table = whole(data, "table", 1, max(1, ev.tables))
        ns = whole(data, "ns", 0, 13)
        reason = text(data.get("reason", ""), "the reason", MAX_REASON, empty=True)
        ev.check_correction(hand, table)
        return done(row.id, org.store.correct(row.id, hand, table, ns, reason))

    async def hide(request: Request) -> Response:
        row = host_of(request)
        data = await read_json(request, ("hidden",))
        hidden = data.get("hidden")
        if not isinstance(hidden, bool):
            raise Refused(400, "'hidden' must be true or false")
        return done(row.id, org.store.set_hidden(row.id, hidden))

    async def qr_svg(request: Request) -> Response:
        eid = host_id(request)
        n = request.path_params["n"]
        tables = (await org.live(eid)).stored.tables
        if n not in tables:
            raise Refused(404, f"no table {n}")
        url = f"{base_url(request)}t/{eid}/{tables[n]}"
        return Response(live.qr_svg(url), media_type="image/svg+xml", headers=no_cache)

    async def export_csv(request: Request) -> Response:
        eid = host_id(request)
        return PlainTextResponse(
            (await org.live(eid)).results_csv(),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="evening-{eid}.csv"'},
        )

    async def export_json(request: Request) -> Response:
        eid = host_id(request)
        body = json.dumps((await org.live(eid)).export_json(), ensure_ascii=False, indent=1)
        return Response(
            body,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="evening-{eid}.json"'},
        )

    # -- table pages --------------------------------------------------------------------

    async def table_page(request: Request) -> Response:
        return with_phone_session(
            request, FileResponse(STATIC_DIR / "table.html", headers=no_cache)
        )

    def need_phone(request: Request) -> str:
        label = phone_label(request)
        if label is None:
            raise Refused(
                400,
                "this phone has no session at this evening: open the table's page again",
                code="no_phone",
            )
        return label

    async def table_state(request: Request) -> Response:
        """A table's view; with ``?since=ETAG`` (the ``etag`` of the view the page has) it
        waits until this table's view changes, so 130 phones are not all woken by every
        other table's entry."""
        ev, number = await table_of(request)
        evening = ev.stored.id
        since = request.query_params.get("since")
        if since is not None and (len(since) > 40 or not since.isalnum()):
            raise Refused(400, f"'since' must be a view's etag, not {since!r}")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_SECONDS
        view = ev.table_json(number)
        while view["etag"] == since and not org.hub.closing:
            left = deadline - loop.time()
            if left <= 0:
                break
            await org.hub.wait(evening, ev.stored.version, lambda: org.store.version(evening), left)
            ev, number = await table_of(request)
            view = ev.table_json(number)
        pending = (view.get("hand") or {}).get("pending")
        if pending is not None:  # whether this phone entered it (then another confirms)
            entered = ev.stored.pending.get((view["hand"]["number"], number))
            mine = entered is not None and entered.device == phone_label(request)
            view = {**view, "hand": {**view["hand"], "pending": {**pending, "mine": mine}}}
        return with_phone_session(request, JSONResponse(view))

    async def table_enter(request: Request) -> Response:
        ev, number = await table_of(request)
        data = await read_json(request, ("hand", "side", "tricks", "by", "replace"))
        hand = whole(data, "hand", 1, ev.hands)
        tricks = whole(data, "tricks", 0, 13)
        side = data.get("side")
        if side not in ("NS", "EW"):
            raise Refused(400, f"'side' must be 'NS' or 'EW', not {side!r}")
        by = whole(data, "by", 1, 10**6)
        ev.check_entry(hand, number, side, by)
        ns = tricks if side == "NS" else 13 - tricks
        pending = ev.stored.pending.get((hand, number))
        if (
            pending is not None
            and (pending.ns, pending.entered_by) != (ns, by)
            and data.get("replace") is not True
        ):
            # a second phone does not silently replace an entry waiting for confirmation
            raise Refused(
                409,
                f"{player_name(ev, pending.entered_by)} has already entered N–S {pending.ns}"
                f" · E–W {13 - pending.ns}: an opponent confirms it, or taps 'Not right'"
                " to enter again",
                code="already_entered",
            )
        phone = need_phone(request)
        return done(ev.stored.id, org.store.enter(ev.stored.id, hand, number, ns, by, phone))

    async def table_confirm(request: Request) -> Response:
        ev, number = await table_of(request)
        data = await read_json(request, ("hand", "by", "ns"))
        hand = whole(data, "hand", 1, ev.hands)
        by = whole(data, "by", 1, 10**6)
        ns = whole(data, "ns", 0, 13)  # what the confirming page showed
        pending = ev.check_confirm(hand, number, by)
        if pending.ns != ns:
            raise Refused(409, "the entry changed meanwhile; look at it again", code="changed")
        phone = need_phone(request)
        if pending.device == phone:
            # the player id is only claimed: a second phone (or the host) is the check
            raise Refused(
                409,
                "this phone entered the result: an opponent confirms it on their own phone,"
                " or the host on the laptop",
                code="own_phone",
            )
        version = org.store.confirm(
            ev.stored.id,
            hand,
            number,
            pending.ns,
            entered_by=pending.entered_by,
            confirmed_by=by,
            actor=f"table {number}",
            entered_phone=pending.device,
            confirmed_phone=phone,
        )
        return done(ev.stored.id, version)

    async def table_reject(request: Request) -> Response:
        ev, number = await table_of(request)
        data = await read_json(request, ("hand", "by"))
        hand = whole(data, "hand", 1, ev.hands)
        by = whole(data, "by", 1, 10**6)
        ev.check_reject(hand, number, by)
        return done(ev.stored.id, org.store.reject(ev.stored.id, hand, number, by))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # derive the open evenings now, so that the first page after a restart is quick
        # running out of descriptors is said once in a while, not per accept
        quiet_accept_failures(asyncio.get_running_loop())
        warm = asyncio.create_task(org.warm_up())
        yield
        warm.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await warm
        org.store.close()

    h = handle
    app = Starlette(
        routes=[
            Route("/", h(front_page)),
            Route("/e/{evening}/host", shown(host_page)),
            Route("/e/{evening}/projector", shown(host_only_page)),
            Route("/e/{evening}/print/{kind:str}", shown(host_only_page)),
            Route("/e/{evening}/qr/{n:int}.svg", h(qr_svg)),
            Route("/e/{evening}/export.csv", shown(export_csv)),
            Route("/e/{evening}/export.json", shown(export_json)),
            Route("/t/{evening}/{token}", table_page),
            Route("/api/meta", h(meta)),
            Route("/api/evenings", h(new_evening), methods=["POST"]),
            Route("/api/evenings", h(my_evenings), methods=["GET"]),
            Route("/api/e/{evening}", h(host_state)),
            Route("/api/e/{evening}/projector", h(projector_state)),
            Route("/api/e/{evening}/cards", h(score_cards)),
            Route("/api/e/{evening}/config", h(set_config), methods=["POST"]),
            Route("/api/e/{evening}/players", h(set_players), methods=["POST"]),
            Route("/api/e/{evening}/import", h(import_players), methods=["POST"]),
            Route("/api/e/{evening}/seat", h(seat), methods=["POST"]),
            Route("/api/e/{evening}/balance", h(balance), methods=["POST"]),
            Route("/api/e/{evening}/status", h(set_status), methods=["POST"]),
            Route("/api/e/{evening}/result", h(host_result), methods=["POST"]),
            Route("/api/e/{evening}/correct", h(correct), methods=["POST"]),
            Route("/api/e/{evening}/hide", h(hide), methods=["POST"]),
            Route("/api/t/{evening}/{token}", h(table_state)),
            Route("/api/t/{evening}/{token}/enter", h(table_enter), methods=["POST"]),
            Route("/api/t/{evening}/{token}/confirm", h(table_confirm), methods=["POST"]),
            Route("/api/t/{evening}/{token}/reject", h(table_reject), methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ],
        lifespan=lifespan,
        middleware=[Middleware(Edge, hosts=hosts, public_url=public_url, max_body_bytes=MAX_BODY)],
    )
    app.state.organiser = org
    return app


__all__ = ["create_app", "parse_player_lines"]
