"""The records document of an online evening at its bound (issue 34): its size, and the
time to read and assemble it, for the largest evening (130 tables, 24 hands).

Usage: python benchmarks/online_evening_records.py [--tables 130] [--hands 24] [--seed 1]

A small evening (2 tables, 1 hand) is played by stand-ins to get a real one-hand record;
then an evening of ``4 x --tables`` players gets its results directly (random N-S
tricks, ``--seed``; no play), each hand's result seating the next as in the server,
every table's game holding that record. Printed: a record's size, the document's size,
the time to read the records from SQLite in chunks as ``GET …/records`` does (in a
thread there) and to assemble the document, and those times per record (the ratio that
compares across machines).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from whistkit.evening import derive  # noqa: E402
from whistkit.server import online  # noqa: E402
from whistkit.server.app import Server  # noqa: E402
from whistkit.server.table import choose  # noqa: E402
from whistkit.state import Action, View  # noqa: E402


async def inline_think(level: str, view: View, seed: int) -> Action:
    """Bots choose on the event loop (beginner takes well under a millisecond)."""
    return choose(level, view, seed)


def server(db: Path, turn_scale: float) -> Server:
    return Server(db, 0.0, 1000, think=inline_think, turn_scale=turn_scale, idle_seconds=3600)


async def one_record(folder: Path) -> str:
    small = server(folder / "small.sqlite3", 0.001)
    players = [{"name": f"P{i}", "group": "AB"[i % 2]} for i in range(8)]
    new = online.read_new_evening({"hands": 1, "players": players}, "beginner")
    ev = await small.evenings.create(new)
    while not derive(ev.evening).finished:
        await asyncio.sleep(0.01)
    row = small.store.get(ev.hands[0].games[0])
    await small.close()
    assert row is not None and row.finished
    return row.record


async def main(tables: int, hands: int, seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        record = await one_record(folder)
        big = server(folder / "big.sqlite3", 1000.0)
        players = [{"name": f"P{i}", "group": "AB"[i % 2]} for i in range(4 * tables)]
        body = {"hands": hands, "players": players, "seconds_per_hand": 3600}
        ev = await big.evenings.create(online.read_new_evening(body, "beginner"))
        rng = random.Random(seed)
        for h in range(1, hands + 1):
            for game in list(ev.hands[h - 1].games):
                await big.evenings.result(ev.id, game, rng.randint(0, 13), [])
        games = online.finished_games(ev)
        big.store.write([big.store.record_op(g, record) for g in games])
        start = time.perf_counter()
        rows: dict[str, str] = {}
        for n in range(0, len(games), online.RECORDS_CHUNK):
            chunk = games[n : n + online.RECORDS_CHUNK]
            rows.update({r.id: r.record for r in big.store.list(ids=chunk)})
        read = time.perf_counter() - start
        start = time.perf_counter()
        document = online.records_json(ev, rows)
        made = time.perf_counter() - start
        await big.close()
    print(f"one record: {len(record)} bytes")
    print(f"{len(games)} records ({tables} tables x {hands} hands): {len(document)} bytes")
    print(f"read from SQLite: {read:.3f} s ({1e6 * read / len(games):.0f} us a record)")
    print(f"assembled: {made:.3f} s ({1e6 * made / len(games):.0f} us a record)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=130)
    parser.add_argument("--hands", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    asyncio.run(main(args.tables, args.hands, args.seed))
