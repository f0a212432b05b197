"""The web game's hint: how long a person waits for it, beside the expert's own time for
the same decisions.

Usage: python benchmarks/hints.py [--games G] [--level club] [--json]

Starts the web server as ``whistkit play`` does (a fresh SQLite database in a temporary
folder, 127.0.0.1, a free port; the bots at the table play at once, ``bot_delay=0``, so
the run is the hints' time, not the table's pace), and plays G Félagsvist games as the
person at S over the WebSocket: at each of S's turns with two or more legal cards it
asks for a hint (``{"type": "hint"}``), times the wait for the answer, and plays the
hinted card (so the games are those of a person who follows the hints). The bots at the
other seats are ``--level`` (default ``club``: they take no CPU from the hints).

The anchor, in the same run: each game's record is replayed, and at each of S's hinted
decisions this process works out the hint itself, as the server's worker process does
(:func:`whistkit.server.workers.hint_choice` with the server's level, S's view and the
same seed), and times it. The two give the same card (checked), so their ratio is what
the server adds: the worker pool's queue and pipes, the event loop and the socket.

Printed: decisions, median, p95 and max of the wait and of the anchor, and their ratio.
The goal (issue 35): the hint within the expert's decision goal, median <= 300 ms and
p95 <= 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

import machine  # benchmarks/machine.py, beside this script
from whistkit.cards import card_name, parse_card
from whistkit.record import loads
from whistkit.server.workers import hint_choice
from whistkit.state import Deal, new_game
from whistkit.variants import find_variant

SERVER = """
import sys
from whistkit.server import serve
serve(sys.argv[1], host="127.0.0.1", port=0, bot_delay=0.0,
      ready=lambda where: print(where.port, flush=True))
"""


def start_server(folder: Path) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(folder / "games.sqlite3")],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.strip():
        proc.kill()
        raise SystemExit("the server did not start")
    return proc, int(line)


async def play(port: int, level: str) -> tuple[str, list[tuple[int, str, float]]]:
    """One game as S, a hint at every choice: the game's id and, per hint, its version,
    its card and the seconds waited."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
        r = await http.post("/api/games", json={"variant": "felagsvist", "level": level})
        r.raise_for_status()
        game = r.json()
    hints: list[tuple[int, str, float]] = []
    async with connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
        await ws.send(
            json.dumps({"type": "join", "game": game["id"], "seat": "S", "token": game["token"]})
        )
        asked_at = -1
        while True:
            msg = json.loads(await ws.recv())
            if msg["type"] == "error":
                raise SystemExit(f"the server refused: {msg['code']}: {msg['message']}")
            view = msg.get("view")
            if view is None:
                continue
            if view["winner"]:
                return game["id"], hints
            v = msg["v"]
            if view["to_play"] != "S" or v <= asked_at or not view["legal"]:
                continue
            asked_at = v
            legal = view["legal"]
            if len(legal) == 1:
                await ws.send(json.dumps(legal[0]))
                continue
            start = time.perf_counter()
            await ws.send(json.dumps({"type": "hint"}))
            while True:
                answer = json.loads(await ws.recv())
                if answer["type"] == "hint":
                    break
                if answer["type"] == "error":
                    raise SystemExit(f"no hint: {answer['code']}: {answer['message']}")
            waited = time.perf_counter() - start
            action = answer["action"]
            hints.append((answer["v"], action["card"], waited))
            await ws.send(json.dumps(action))


def anchor(record: str, game_id: str, hints: list[tuple[int, str, float]]) -> list[float]:
    """This process's time for each of the game's hints (the same view and seed)."""
    rec = loads(record)
    state = new_game(find_variant(rec.variant)(rec.options), dealer=rec.hands[0].dealer)
    level = "expert"
    times: list[float] = []
    k = 0
    for hand in rec.hands:
        state = state.apply(Deal(hand.hands, hand.turned))
        for card in hand.play:
            if state.to_play == 2 and len([a for a in state.legal_actions()]) > 1:
                version, hinted, _ = hints[k]
                k += 1
                view = state.view(2)
                start = time.perf_counter()
                chose = hint_choice(level, view, f"{game_id}:hint:S:{version}")
                times.append(time.perf_counter() - start)
                if type(chose) is not int or card_name(chose) != hinted:
                    raise SystemExit(
                        f"game {game_id}, hint {k}: the server hinted {hinted}, this"
                        f" process {chose!r}: not the same job"
                    )
                if parse_card(hinted) != card:
                    raise SystemExit(f"game {game_id}: the hinted {hinted} was not played")
            state = state.apply(card)
    if k != len(hints):
        raise SystemExit(f"game {game_id}: {len(hints)} hints, {k} decisions in the record")
    return times


def summary(xs: list[float]) -> dict[str, float]:
    s = sorted(xs)
    return {
        "n": len(s),
        "median_ms": 1000 * statistics.median(s),
        "p95_ms": 1000 * s[min(len(s) - 1, int(0.95 * len(s)))],
        "max_ms": 1000 * s[-1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--level", default="club", help="the bots at N, E and W")
    parser.add_argument("--seed", type=int, default=1, help="(the server deals; unused)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    random.seed(args.seed)
    print(machine.describe(), flush=True)
    waits: list[float] = []
    own: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = start_server(Path(tmp))
        try:
            for g in range(args.games):
                game_id, hints = asyncio.run(play(port, args.level))
                waits.extend(h[2] for h in hints)
                r = httpx.get(f"http://127.0.0.1:{port}/api/games/{game_id}/record", timeout=60)
                r.raise_for_status()
                own.extend(anchor(r.text, game_id, hints))
                print(f"game {g + 1}: {len(hints)} hints", file=sys.stderr, flush=True)
        finally:
            proc.terminate()
            proc.wait(10)
    out = {"hint": summary(waits), "anchor": summary(own)}
    if args.json:
        print(json.dumps(out))
        return
    print("| what | decisions | median | p95 | max |")
    print("|---|---|---|---|---|")
    for name, s in (
        ("hint over the WebSocket", out["hint"]),
        ("anchor: in this process", out["anchor"]),
    ):
        print(
            f"| {name} | {s['n']} | {s['median_ms']:.0f} ms | {s['p95_ms']:.0f} ms | {s['max_ms']:.0f} ms |"
        )
    h, a = out["hint"], out["anchor"]
    print(
        f"ratio hint / anchor: median {h['median_ms'] / a['median_ms']:.2f},"
        f" p95 {h['p95_ms'] / a['p95_ms']:.2f}"
    )


if __name__ == "__main__":
    main()
