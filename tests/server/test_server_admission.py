"""Issue 32, item 16 in process: a finished game frees its address's place, and the
shared tables count with the games (the live tests start real servers:
test_server_abuse_live.py, test_server_abuse_cluster.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from starlette.testclient import TestClient

from whistkit.server.app import create_app
from whistkit.server.limits import Limits


def test_a_finished_game_no_longer_counts_for_its_address(db_path: Path) -> None:
    limits = Limits(max_live_games_per_client=2, new_games_per_minute=100)
    with TestClient(create_app(db_path, bot_delay=0, limits=limits)) as client:
        first = client.post("/api/games", json={"seed": 1}).json()
        table = client.post(
            "/api/tables", json={"name": "Anna", "seats": {"N": "club", "E": "club", "W": "club"}}
        )
        assert table.status_code == 200
        refused = client.post("/api/games", json={"seed": 2})
        assert refused.status_code == 429
        assert "has 2 unfinished games" in refused.json()["error"]
        # a game finished meanwhile frees a place: ask again in min(--live-game-seconds, 600)
        assert refused.headers["Retry-After"] == "600"
        with sqlite3.connect(db_path) as db:  # the first game comes to its end
            db.execute("UPDATE games SET finished = 1 WHERE id = ?", (first["id"],))
        assert client.post("/api/games", json={"seed": 3}).status_code == 200
        assert client.post("/api/games", json={"seed": 4}).status_code == 429
