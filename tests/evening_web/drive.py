"""Driving an evening through its HTTP API, as the pages do (tests and benchmarks)."""

from __future__ import annotations

import random
from typing import Any

import httpx
from starlette.testclient import TestClient
from starlette.types import ASGIApp

HALL = "http://127.0.0.1:8000"  # where the test clients think the organiser is


def hall_client(app: ASGIApp, address: str = "127.0.0.1") -> TestClient:
    """A client of ``app`` at ``address`` (the laptop itself by default; a phone on the
    hall's Wi-Fi with e.g. ``192.168.1.23``), with its own cookies (its own device)."""
    return TestClient(app, base_url=HALL, client=(address, 50000))


FIRST = ["Anna", "Bjarni", "Guðrún", "Dóri", "Edda", "Finnur", "Gunna", "Helgi", "Inga", "Jón"]


def player_lines(n_a: int, n_b: int) -> str:
    """``n_a`` group-A and ``n_b`` group-B players with unique names, one a line."""
    lines = [f"{FIRST[i % len(FIRST)]} A{i + 1}, A" for i in range(n_a)]
    lines += [f"{FIRST[(i + 3) % len(FIRST)]} B{i + 1}, B" for i in range(n_b)]
    return "\n".join(lines)


class Driver:
    """A host (a client keeping the host cookie) and the tables' links; what a player
    sends from a table goes from that player's own phone (a client of its own, which has
    opened the table's view), as in the hall: the phone that entered a result cannot
    confirm it."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.id = ""
        self.phones: dict[int, httpx.Client] = {}

    def phone(self, player: int) -> httpx.Client:
        """Player ``player``'s phone."""
        if player not in self.phones:
            app = getattr(self.client, "app", None)
            if app is not None:  # a TestClient: another one of the same app
                self.phones[player] = TestClient(
                    app, base_url=str(self.client.base_url), client=("127.0.0.1", 40000 + player)
                )
            else:
                self.phones[player] = httpx.Client(base_url=self.client.base_url, timeout=60)
        return self.phones[player]

    def post(self, path: str, body: dict[str, Any], status: int = 200) -> Any:
        client = self.client
        if path.startswith("/api/t/") and isinstance(body.get("by"), int):
            client = self.phone(body["by"])
            view = path.rsplit("/", 1)[0]
            if not any(c.name == "wk_phone" for c in client.cookies.jar):
                assert client.get(view).status_code == 200  # the table's page, once
        r = client.post(path, json=body)
        assert r.status_code == status, (path, r.status_code, r.text)
        return r.json()

    def create(self, config: dict[str, Any], title: str = "Test evening") -> str:
        self.id = self.post("/api/evenings", {"title": title, "config": config})["id"]
        return self.id

    def state(self) -> dict[str, Any]:
        r = self.client.get(f"/api/e/{self.id}")
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data

    def setup(self, n_a: int, n_b: int, seed: int = 1) -> None:
        self.post(f"/api/e/{self.id}/import", {"text": player_lines(n_a, n_b)})
        self.post(f"/api/e/{self.id}/seat", {"mode": "random", "seed": seed})
        self.post(f"/api/e/{self.id}/status", {"action": "start"})

    def token_path(self, table: int) -> str:
        """The path of table ``table``'s page API (from its card's link)."""
        url = next(t["url"] for t in self.state()["tables"] if t["number"] == table)
        return "/api/t/" + url.split("/t/", 1)[1]

    def play_hand(self, rng: random.Random) -> dict[int, int]:
        """Every table of the hand in progress enters (N) and confirms (E) a random
        result; the N-S tricks by table."""
        st = self.state()
        hand = st["current"]["number"]
        out = {}
        for tb in st["hand_states"][hand - 1]["tables"]:
            ns = rng.randint(0, 13)
            path = self.token_path(tb["table"])
            self.post(
                f"{path}/enter", {"hand": hand, "side": "NS", "tricks": ns, "by": tb["seats"]["N"]}
            )
            self.post(f"{path}/confirm", {"hand": hand, "by": tb["seats"]["E"], "ns": ns})
            out[tb["table"]] = ns
        return out
