"""Fixtures for the server's protocol tests: an app on a temporary database, no browser."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from whistkit.server.app import create_app
from whistkit.server.workers import WORKERS_ENV

# The server answers only for its own names (issue 18: a DNS-rebinding page must get
# nothing); TestClient's default host, "testserver", is not one of them.
LOCAL_URL = "http://127.0.0.1"


@pytest.fixture(autouse=True)
def _local_test_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every TestClient of these tests talks to the server as http://127.0.0.1 (its
    WebSockets too: ``websocket_connect`` always names "testserver" otherwise)."""
    original = TestClient.__init__
    original_ws = TestClient.websocket_connect

    def init(self: TestClient, app: Any, base_url: str = LOCAL_URL, **kwargs: Any) -> None:
        original(self, app, base_url=base_url, **kwargs)

    def websocket_connect(self: TestClient, url: str, *args: Any, **kwargs: Any) -> Any:
        headers = dict(kwargs.pop("headers", None) or {})
        headers.setdefault("host", "127.0.0.1")
        return original_ws(self, url, *args, headers=headers, **kwargs)

    monkeypatch.setattr(TestClient, "__init__", init)
    monkeypatch.setattr(TestClient, "websocket_connect", websocket_connect)


@pytest.fixture
def in_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The servers made from now on work out bots' decisions, hints and reviews in
    threads of the test's process ($WHISTKIT_BOT_WORKERS=0), not in worker processes:
    for the tests that replace a bot or the review by a stand-in (a monkeypatch reaches
    this process only). Ask for it before the server (``usefixtures``)."""
    monkeypatch.setenv(WORKERS_ENV, "0")


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    app = create_app(db_path, bot_delay=0)
    with TestClient(app) as c:
        yield c


@pytest.fixture(scope="session")
def postgres() -> Iterator[Any]:
    """A private PostgreSQL for this test process (Debian's package, a free port)."""
    from services import Postgres

    pg = Postgres().start()
    try:
        yield pg
    finally:
        pg.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[Any]:
    """A private redis-server for this test process."""
    import tempfile

    from services import Redis

    with tempfile.TemporaryDirectory(prefix="whistkit-redis-") as folder:
        rd = Redis(Path(folder)).start()
        try:
            yield rd
        finally:
            rd.stop()


_databases = iter(range(1, 1_000_000))


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """A new empty games database of each kind: a SQLite file, a PostgreSQL URL."""
    if request.param == "sqlite":
        return tmp_path / "games.sqlite3"
    pg = request.getfixturevalue("postgres")
    url: str = pg.fresh_database(f"t{next(_databases)}")
    return url


@pytest.fixture
def db(postgres: Any, tmp_path: Path) -> str:
    """A new empty PostgreSQL database for the processes of a cluster test."""
    url: str = postgres.fresh_database(f"c{os.getpid()}_{tmp_path.name[-20:]}".replace("-", "_"))
    return url


@pytest.fixture
def bus(redis_server: Any) -> str:
    """The private Redis, emptied: the bus of a cluster test's processes."""
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    url: str = redis_server.url
    return url
