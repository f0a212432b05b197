"""Issue 18, done-when 2: the protocol fuzzed on a real server.

``whistkit play`` subprocesses on 127.0.0.1 (free port, its log captured) receive at
least 20,000 WebSocket messages over four sockets each and 2,000 HTTP requests, generated
by hypothesis strategies (seeded: the same messages every run) from plausible
messages with hostile fields (huge numbers, lone surrogates, wrong types, unknown
fields, real game ids and tokens) to raw junk. It asserts: every message is answered
(exactly one ``ack``, ``state``, ``pong``, ``hint`` or ``error`` each, never
``internal``), no socket is dropped, every HTTP answer is below 500 (or a 503 for a full
queue) with the security headers, the server log holds no traceback or ERROR line, the
games the fuzzer holds no token for are stored unchanged, and every stored game
replays. Many messages per hypothesis example keep it within a minute or two.

The run is split in PARTS tests, each with its own server and database and its share of
the messages and requests (drawn from its own hypothesis seed, so the parts send
different ones), so that the workers of a parallel run (pytest-xdist) share them; each
part makes every check above (each of the PARTS servers gets WS_MESSAGES // PARTS
messages and HTTP_REQUESTS // PARTS requests).

Shared tables (issue 22) are fuzzed too: each socket holds the tokens of its own shared
table (its seats S, N, E and its watch token), so that the chat, the host's operations,
watching and joins with names are exercised without one socket taking another's seat
(which closes the older socket, by design); ``POST /api/tables``, the tables' summaries
and the QR codes get hostile requests.
"""

from __future__ import annotations

import collections
import http.client
import json
import random
import sqlite3
import urllib.parse
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection, connect

from whistkit.bots import make_bot
from whistkit.game import Game
from whistkit.record import dumps, loads, replay
from whistkit.server.log import dumps_action
from whistkit.server.security import SECURITY_HEADERS
from whistkit.server.store import Store
from whistkit.server.table import Table

from .liveserver import LiveServer, bad_log_lines

pytestmark = [pytest.mark.timeout(600), pytest.mark.slow]

WS_MESSAGES = 20_000  # over all the parts
HTTP_REQUESTS = 2_000
PARTS = 2  # each its own test and server; WS and HTTP examples below divide by it
BATCH = 50  # messages per example, sent at once on one socket, then their answers read
DRAWN = 10  # of which hypothesis draws these; the others are bred from them
HTTP_BATCH = 20
SOCKETS = 4
ANSWERS = frozenset({"ack", "state", "pong", "hint", "error"})
SERVER_TYPES = ANSWERS | {"event", "seats", "chat", "invite", "hands"}
ERROR_CODES = frozenset(
    {
        "malformed",
        "unknown_type",
        "unknown_game",
        "not_joined",
        "bad_seat",
        "forbidden",
        "not_your_turn",
        "illegal",
        "game_over",
        "hint_failed",
        "busy",
        "stale",
        # shared tables ("replaced" and "seat_closed" must not come: see the docstring)
        "not_shared",
        "not_started",
        "table_ended",
        "bad_name",
        "chat_too_long",
        "chat_empty",
        "chat_bad_text",
        "chat_rate",
        "chat_forbidden",
    }
)
CARDS = [r + s for r in "23456789TJQKA" for s in "SHDC"]
KINDS = ["BottomCard", "Call", "Correct", "Replace", "RejectLead", "NameSuit", "ClaimRevoke"]


# -- strategies ---------------------------------------------------------------------------

HUGE = "\u0000huge"  # stands for a 4,301-6,000 digit number (json.dumps refuses those)

numbers = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, 1, -1, 2**31, 2**53, 2**63, 10**19, 10**40]),
)
texts = st.one_of(
    st.text(max_size=12),
    st.text(st.characters(exclude_categories=()), max_size=6),  # lone surrogates too
    st.sampled_from(["", "S", "QH", "10h", "ö", "\ud800", "\x00", "токен", "a" * 300, HUGE]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, st.floats(), texts)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)


Message = Any  # a JSON value to send as text, or raw ``str`` / ``bytes`` (``Raw``)


class Raw:
    """A message sent as it is: text that need not be JSON, or a binary frame."""

    def __init__(self, data: str | bytes) -> None:
        self.data = data


def messages(ids: list[str], tokens: list[str]) -> st.SearchStrategy[Message]:
    """One client message: a plausible one with hostile fields, any JSON value, or raw
    text or bytes."""
    game = st.one_of(st.sampled_from(ids), texts, values)
    token = st.one_of(st.sampled_from(tokens), texts, values)
    seat = st.one_of(st.sampled_from("NESW"), texts, values)
    card = st.one_of(st.sampled_from(CARDS), texts, values)
    action = st.one_of(
        st.fixed_dictionaries(
            {"kind": st.one_of(st.sampled_from(KINDS), values)},
            optional={"card": card, "seat": seat, "suit": numbers, "remedy": texts, "x": values},
        ),
        values,
    )
    junk = {"x": values}
    since = st.one_of(numbers, values)
    name = st.one_of(st.sampled_from(["Ann", " Bo ", "<b>x</b>", "x" * 25, "\u202e"]), texts)
    chat_text = st.one_of(
        st.sampled_from(["hi", "<script>alert(1)</script>", "é" * 200, "é" * 201, "a\nb"]),
        texts,
        values,
    )
    phrase = st.one_of(st.sampled_from(["hello", "well_played", "good_game", "nope"]), values)
    op = st.one_of(st.sampled_from(["start", "bot", "reopen", "end"]), texts, values)
    return st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("join"), "game": game, "token": token},
            optional={"seat": seat, "since": since, "name": name, **junk},
        ),
        st.fixed_dictionaries(
            {"type": st.just("watch"), "game": game, "token": token},
            optional={"since": since, **junk},
        ),
        st.fixed_dictionaries(
            {"type": st.just("chat")}, optional={"text": chat_text, "phrase": phrase, **junk}
        ),
        st.fixed_dictionaries({"type": st.just("host"), "op": op}, optional={"seat": seat, **junk}),
        st.fixed_dictionaries({"type": st.just("play"), "card": card}, optional=junk),
        st.fixed_dictionaries({"type": st.just("action")}, optional={"action": action, **junk}),
        st.fixed_dictionaries({"type": st.sampled_from(["hint", "ping"])}, optional=junk),
        st.fixed_dictionaries({"type": values}),
        values,
        st.text(max_size=40).map(Raw),
        st.binary(max_size=40).map(Raw),
    )


def offspring(drawn: list[Message], rng: random.Random, count: int) -> list[Message]:
    """``count`` messages bred from hypothesis's ``drawn`` ones (the same every run:
    ``rng`` is hypothesis's): fields of one message crossed into another, a field's
    value swapped for another message's, or for a huge number. Hypothesis drawing each
    message is what costs; breeding many from a few keeps 20,000 within the budget."""
    dicts = [m for m in drawn if isinstance(m, dict)] or [{"type": "ping"}]
    pool = [v for m in dicts for v in m.values()] + [HUGE, -1, "", None, [], {}]
    out: list[Message] = []
    for _ in range(count):
        child = dict(rng.choice(dicts))
        other = rng.choice(dicts)
        for key in other:
            if rng.random() < 0.5:
                child[key] = other[key]
        if child and rng.random() < 0.5:
            child[rng.choice(list(child))] = rng.choice(pool)
        out.append(child)
    return out


def wire(message: Message) -> str | bytes:
    """The frame's content for a message."""
    if isinstance(message, Raw):
        return message.data
    text = json.dumps(message, allow_nan=True)
    while '"\\u0000huge"' in text:
        digits = 4301 + len(text) % 1700
        text = text.replace('"\\u0000huge"', "9" * digits, 1)
    return text


def http_requests(
    ids: list[str], host: str, tokens: list[str]
) -> st.SearchStrategy[tuple[str, str, dict[str, str], bytes]]:
    def path_of(game_id: str, tail: str) -> str:
        return f"/api/games/{urllib.parse.quote(game_id, safe='')}/{tail}"

    def table_path(game_id: str, token: str) -> str:
        return f"/api/tables/{urllib.parse.quote(game_id, safe='')}?" + urllib.parse.urlencode(
            {"t": token}
        )

    def qr_path(url: str) -> str:
        return "/api/qr?" + urllib.parse.urlencode({"u": url})

    paths = st.one_of(
        st.sampled_from(
            [
                "/",
                "/api/meta",
                "/api/games",
                "/api/games?finished=1",
                "/api/games?ids=,x,&finished=x",
            ]
            + ["/static/app.js", "/static/../app.py", "/static/%2e%2e/app.py", "/nowhere"]
            + ["/api/tables", "/api/tables/", "/api/qr", "/api/qr?u=%00"]
        ),
        st.builds(
            table_path,
            st.one_of(st.sampled_from(ids), st.text(max_size=12)),
            st.one_of(st.sampled_from(tokens), st.text(max_size=30)),
        ),
        st.builds(
            qr_path,
            st.one_of(
                st.sampled_from([f"http://{host}/?join=x", "http://evil.example/", ""]),
                st.text(max_size=30).map(lambda t: f"http://{host}/" + t),
                st.integers(500, 700).map(lambda n: f"http://{host}/" + "a" * n),
            ),
        ),
        st.builds(
            path_of,
            st.one_of(st.sampled_from(ids), st.text(max_size=12)),
            st.sampled_from(["record", "analysis", "x", ""]),
        ),
        st.text(max_size=20).map(lambda t: "/" + urllib.parse.quote(t)),
    )
    new_game_bodies = st.fixed_dictionaries(
        {},
        optional={
            "variant": st.one_of(st.sampled_from(["felagsvist", "swedish", "english"]), values),
            "level": st.one_of(st.sampled_from(["beginner", "club"]), values),
            "seed": st.one_of(st.integers(0, 2**63 - 1), values),
            "options": st.one_of(st.dictionaries(texts, values, max_size=3), values),
            "x": values,
            # POST /api/tables
            "seats": st.one_of(
                st.dictionaries(
                    st.sampled_from("NESW"),
                    st.one_of(st.sampled_from(["person", "beginner", "club"]), values),
                    max_size=3,
                ),
                values,
            ),
            "timeout": st.one_of(st.sampled_from([0, 30, 45, 120]), values),
            "watch_hands": st.one_of(st.booleans(), values),
            "name": st.one_of(st.sampled_from(["Ann", "", "x" * 30]), texts),
        },
    )
    bodies = st.one_of(
        new_game_bodies.map(lambda b: json.dumps(b, allow_nan=True).encode()),
        values.map(lambda v: json.dumps(v, allow_nan=True).encode()),
        st.integers(4301, 5000).map(lambda n: b'{"seed": ' + b"7" * n + b"}"),
        st.binary(max_size=80),
    )
    headers = st.fixed_dictionaries(
        {"Host": st.sampled_from([host] * 6 + ["localhost", "evil.example", ""])},
        optional={
            "Origin": st.sampled_from([f"http://{host}", "http://evil.example", "null"]),
            "Content-Type": st.sampled_from(
                ["application/json", "text/plain", "application/json; charset=utf-8"]
            ),
            "Sec-Fetch-Site": st.sampled_from(["same-origin", "cross-site", "none"]),
        },
    )
    methods = st.sampled_from(["GET"] * 4 + ["POST"] * 4 + ["HEAD", "PUT", "DELETE", "OPTIONS"])
    return st.tuples(methods, paths, headers, bodies)


# -- the run ------------------------------------------------------------------------------


def stored_games(db: Path) -> dict[str, tuple[int, str, tuple[str, ...]]]:
    """Each stored game's event version, record (once finished) and logged actions."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT id, version, record FROM games").fetchall()
        return {
            game: (
                version,
                record,
                tuple(
                    r[0]
                    for r in conn.execute(
                        "SELECT action FROM actions WHERE game = ? ORDER BY seq", (game,)
                    )
                ),
            )
            for game, version, record in rows
        }


def finished_game(db: Path) -> str:
    """A whole game played by bots, stored as a finished web game before the server
    starts."""
    g = Game("felagsvist", seed=9, bots={s: make_bot("beginner") for s in range(4)})
    g.run_bots()
    store = Store(db)
    s = g.state
    seats = {"N": "bot:beginner", "E": "bot:beginner", "S": "human", "W": "bot:beginner"}
    ops = store.create_ops(
        "finished1",
        "felagsvist",
        {},
        seats,
        {},
        secret=bytes(32),
        seeded=True,
        seed=9,
        first_dealer=s.results[0].dealer,
    )
    actions = [dumps_action(a) for a in s.actions()]
    score = {"NS": s.score[0], "EW": s.score[1]}
    ops += store.append_ops("finished1", 1, actions, 1, finished=True, winner=s.winner, score=score)
    ops.append(store.record_op("finished1", dumps(s)))
    store.write(ops)
    store.close()
    return "finished1"


def replays(db: Path) -> None:
    """Every stored game loads by replaying its log, to the version stored."""
    store = Store(db)
    try:
        for game in store.list(limit=10_000):
            table, _ = Table.load(store, game)
            # (finished1 was stored by this test with a nominal version)
            assert table.version == game.version or game.id == "finished1", game.id
            if game.finished:
                replay(loads(table.record_json()))
    finally:
        store.close()


def post_game(srv: LiveServer, body: dict[str, Any], path: str = "/api/games") -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    r = conn.getresponse()
    assert r.status == 200
    game: dict[str, Any] = json.loads(r.read())
    conn.close()
    return game


def table_tokens(table: dict[str, Any]) -> list[str]:
    """A shared table's tokens: its seats' and its watch token."""
    return [table["token"], *table["tokens"].values(), table["watch_token"]]


def own_table(message: Message, first: dict[str, Any], mine: dict[str, Any]) -> Message:
    """``message`` with the first shared table's id and tokens (which the strategies
    draw) replaced by those of the socket's own table."""
    if first is mine:
        return message
    theirs = [first["game"], *table_tokens(first)]
    swap = dict(zip(theirs, [mine["game"], *table_tokens(mine)], strict=True))

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return swap.get(value, value)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return message if isinstance(message, Raw) else walk(message)


def read_answers(ws: ClientConnection, count: int, seen: collections.Counter[str]) -> None:
    """Read until ``count`` answers came; check every message on the way, counting them
    by type in ``seen``."""
    answered = 0
    while answered < count:
        text = ws.recv(timeout=60)
        if isinstance(text, str) and text.startswith('{"type": "event", "v": '):
            continue  # a game's event (the table's own; not an answer)
        msg = json.loads(text)
        kind = msg.get("type")
        assert kind in SERVER_TYPES, msg
        seen[kind] += 1
        if kind in ANSWERS:
            answered += 1
        if kind == "error":
            assert msg["code"] in ERROR_CODES, msg
            assert len(msg["message"]) < 400, msg["message"][:400]


@pytest.mark.parametrize("part", range(PARTS), ids=[f"{k + 1}of{PARTS}" for k in range(PARTS)])
def test_protocol_fuzz(tmp_path: Path, part: int) -> None:
    db = tmp_path / "games.sqlite3"
    seen: collections.Counter[str] = collections.Counter()  # the server's messages by type
    finished = finished_game(db)
    env = {
        "WHISTKIT_ANALYSIS_NODE_LIMIT": "20000",
        # the per-socket message and byte rates (their own tests: test_server_abuse_live)
        # would hold the fuzzer's 10,000 messages a part back for minutes
        "WHISTKIT_MAX_MESSAGES_PER_SECOND": "1000000",
        "WHISTKIT_MAX_BYTES_PER_SECOND": "1000000000",
    }
    with LiveServer(tmp_path, env=env) as srv:
        own = [post_game(srv, {"seed": 5}), post_game(srv, {"variant": "swedish", "seed": 6})]
        own.append(post_game(srv, {"options": {"play_mode": "laws"}, "seed": 8}))
        foreign = [post_game(srv, {"seed": 7}) for _ in range(2)]  # their tokens stay here
        # a shared table per socket (people at S, N and E) and one nobody holds a token of
        table_body = {"seats": {"N": "person", "E": "person", "W": "beginner"}, "name": "Ann"}
        tables = [post_game(srv, table_body, "/api/tables") for _ in range(SOCKETS)]
        foreign.append(post_game(srv, table_body, "/api/tables"))
        foreign[-1]["id"] = foreign[-1]["game"]
        ids = [g["id"] for g in own + foreign] + [finished, "0" * 12, tables[0]["game"]]
        tokens = [g["token"] for g in own] + table_tokens(tables[0])
        before = stored_games(db)
        kept = {g["id"]: before[g["id"]] for g in foreign} | {finished: before[finished]}

        sent = {"ws": 0, "http": 0}
        with ExitStack() as stack:
            # no keepalive pings: the client's background thread draws their payload
            # from the global random module, which would shift hypothesis's draws
            # (its "do not use the random module inside strategies" warning)
            sockets = [
                stack.enter_context(
                    connect(
                        srv.ws_url,
                        max_queue=None,
                        max_size=None,
                        open_timeout=10,
                        ping_interval=None,
                    )
                )
                for _ in range(SOCKETS)
            ]

            @hypothesis_seed(part)
            @settings(
                max_examples=(WS_MESSAGES // BATCH + 20) // PARTS,
                derandomize=True,
                database=None,
                deadline=None,
                suppress_health_check=list(HealthCheck),
            )
            @given(
                st.lists(messages(ids, tokens), min_size=DRAWN, max_size=DRAWN),
                st.randoms(use_true_random=False),
            )
            def drive_websocket(drawn: list[Message], rng: random.Random) -> None:
                index = sent["ws"] // BATCH % SOCKETS
                ws = sockets[index]
                batch = drawn + offspring(drawn, rng, BATCH - len(drawn))
                batch = [own_table(m, tables[0], tables[index]) for m in batch]
                # each batch starts at S of the socket's own shared table: its chat and
                # host messages then act on it (until a join drawn moves the socket)
                sit = {"type": "join", "game": tables[index]["game"], "seat": "S"}
                batch.insert(0, {**sit, "token": tables[index]["token"], "name": f"Host {index}"})
                for message in batch:
                    ws.send(wire(message))
                read_answers(ws, len(batch), seen)
                sent["ws"] += len(batch)

            drive_websocket()
            for ws in sockets:  # every socket is still open and answers
                ws.send('{"type": "ping"}')
                read_answers(ws, 1, seen)

        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)

        def fetch(
            method: str, path: str, headers: dict[str, str], body: bytes | None
        ) -> tuple[http.client.HTTPResponse, bytes]:
            """One request; once more on a new connection if the kept-alive one was
            closed while idle (the server's keep-alive timeout), as browsers do."""
            for attempt in (1, 2):
                try:
                    conn.request(method, path, body, headers)
                    r = conn.getresponse()
                    return r, r.read()
                except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                    conn.close()
                    if attempt == 2:
                        raise
            raise AssertionError("unreachable")

        @hypothesis_seed(part)
        @settings(
            max_examples=(HTTP_REQUESTS // HTTP_BATCH + 10) // PARTS,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(
            st.lists(http_requests(ids, srv.host, tokens), min_size=HTTP_BATCH, max_size=HTTP_BATCH)
        )
        def drive_http(batch: list[tuple[str, str, dict[str, str], bytes]]) -> None:
            for method, path, headers, body in batch:
                r, content = fetch(method, path, headers, body if method != "GET" else None)
                assert r.status < 500 or (r.status == 503 and b"busy" in content), (
                    method,
                    path,
                    headers,
                    r.status,
                    content[:300],
                )
                for name, value in SECURITY_HEADERS:
                    assert r.getheader(name.decode()) == value.decode(), (path, r.status)
                if r.getheader("connection") == "close":
                    conn.close()
                sent["http"] += 1

        drive_http()
        conn.close()
    assert sent["ws"] >= WS_MESSAGES // PARTS and sent["http"] >= HTTP_REQUESTS // PARTS, sent
    assert bad_log_lines(srv.log) == [], srv.log[-3000:]
    after = stored_games(db)
    assert {k: after[k] for k in kept} == kept  # untouched without their tokens
    # the shared messages reached the tables: chat lines sent, names given, tables
    # started or ended
    assert seen["chat"] > 0 and seen["seats"] > 0, seen
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        configs = [
            json.loads(
                conn.execute("SELECT config FROM shared_tables WHERE game = ?", (g,)).fetchone()[0]
            )
            for g in (t["game"] for t in tables)
        ]
    assert all(c["names"]["S"].startswith("Host ") for c in configs), configs
    assert any(c["started"] or c["ended"] for c in configs), configs
    replays(db)
