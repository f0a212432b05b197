"""Fixtures for the server's protocol tests: an app on a temporary database, no browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from whistkit.server.app import create_app


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    app = create_app(db_path, bot_delay=0)
    with TestClient(app) as c:
        yield c
