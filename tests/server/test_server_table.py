"""The table without a network: resuming rebuilds the same events; bots pause."""

from __future__ import annotations

import asyncio
import itertools
import time
from pathlib import Path

import pytest

from whistkit.server.database import open_store
from whistkit.server.store import BaseStore, Store
from whistkit.server.table import HUMAN, Table, TableError


def play_first_legal(table: Table, count: int) -> None:
    """Act for whichever seat is to play (every seat is a person here)."""
    for _ in range(count):
        seat = table.state.to_play
        table.act(seat, table.state.legal_actions()[0])


def all_human(store: BaseStore, seed: int = 1) -> Table:
    return Table.create(store, "felagsvist", seed=seed, seats={s: HUMAN for s in range(4)})


def test_resuming_rebuilds_the_same_numbered_events(any_db: str | Path) -> None:
    store = open_store(any_db)
    table = all_human(store)
    play_first_legal(table, 13 * 4 + 7)  # into the second hand
    row = store.get(table.id)
    assert row is not None and row.version == table.version
    again, ops = Table.load(open_store(any_db), row)
    assert ops == []  # nothing to store: the log holds every action
    assert again.events == table.events
    assert again.state.view(2) == table.state.view(2)
    assert again.tokens == table.tokens and again.secret == table.secret
    # a seeded game's deals to come are the seed's, whichever copy deals them
    assert again.deal_rng.getstate() == table.deal_rng.getstate()
    # the log is the game: two copies cannot both write the same action
    play_first_legal(again, 1)
    with pytest.raises(TableError) as err:
        play_first_legal(table, 1)
    assert err.value.code == "storage" and "unique" in err.value.message.lower()
    play_first_legal(again, 52 * 12 - 60)
    final = Table.load(open_store(any_db), store.get(table.id))[0]  # type: ignore[arg-type]
    assert again.state.is_over and final.state.results == again.state.results
    assert final.events == again.events


def test_same_seed_deals_as_the_terminal_game(tmp_path: Path) -> None:
    from whistkit.bots import make_bot
    from whistkit.game import Game

    table = all_human(Store(tmp_path / "g.db"), seed=77)
    game = Game("felagsvist", seed=77, bots={s: make_bot() for s in (0, 1, 3)})
    assert table.state.deal == game.state.deal and table.state.dealer == game.state.dealer


def test_refused_action_changes_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.db")
    table = all_human(store)
    seat = table.state.to_play
    before = (table.state, table.version, store.get(table.id))
    wrong = (seat + 1) & 3
    with pytest.raises(TableError) as err:
        table.act(wrong, next(iter(table.state.legal_actions())))  # type: ignore[arg-type]
    assert err.value.code == "not_your_turn"
    with pytest.raises(TableError) as err:
        table.act(seat, 99)
    assert err.value.code == "illegal" and "not a card" in err.value.message
    assert (table.state, table.version, store.get(table.id)) == before


def test_bots_pause_between_cards(tmp_path: Path) -> None:
    async def run() -> list[float]:
        store = Store(tmp_path / "g.db")
        table = Table.create(
            store,
            "felagsvist",
            seed=3,
            seats={0: "bot:beginner", 1: "bot:beginner", 2: "bot:beginner", 3: "bot:beginner"},
            bot_delay=0.04,
        )
        queue: asyncio.Queue[dict[str, object]] = asyncio.Queue()
        table.subscribe(2, queue)
        table.wake_bots()
        times = []
        for _ in range(6):
            await queue.get()
            times.append(time.monotonic())
        await table.close()
        return times

    times = asyncio.run(run())
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert min(gaps) >= 0.035, gaps


def test_closing_survives_tables_freed_meanwhile(tmp_path: Path) -> None:
    # at shutdown a page may disconnect while another table's bots are being stopped,
    # which frees that table from memory: closing must go on (it once raised
    # "dictionary changed size during iteration")
    from whistkit.server.table import Tables

    async def main() -> None:
        tables = Tables(Store(tmp_path / "g.db"), idle_seconds=0)
        humans = {s: HUMAN for s in range(4)}
        kept = [tables.create("felagsvist", None, seats=humans, seed=s) for s in range(3)]
        closed: list[Table] = []
        first_close = kept[0].close

        async def close_first() -> None:
            for t in kept[1:]:
                tables._unload(t)  # their pages went away while we wait
            closed.append(kept[0])
            await first_close()

        kept[0].close = close_first  # type: ignore[method-assign]
        await tables.close()
        assert closed == [kept[0]]

    asyncio.run(main())


def test_a_database_from_before_the_log_is_read_and_continued(tmp_path: Path) -> None:
    # main's schema: the record in the game's row, no log; the game goes on from it
    import json
    import sqlite3

    from whistkit.game import Game
    from whistkit.record import dumps
    from whistkit.server.table import Tables

    game = Game("felagsvist", {"nolo_aces_low": True}, seed=5, bots={})
    for _ in range(30):
        game.act(game.state.legal_actions()[0])
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE games (id TEXT PRIMARY KEY, variant TEXT NOT NULL, seed INTEGER NOT"
            " NULL, seats TEXT NOT NULL, tokens TEXT NOT NULL, record TEXT NOT NULL, version"
            " INTEGER NOT NULL, created REAL NOT NULL, updated REAL NOT NULL, finished INTEGER"
            " NOT NULL DEFAULT 0, winner TEXT, score TEXT);"
        )
        seats = json.dumps({"N": "human", "E": "human", "S": "human", "W": "human"})
        con.execute(
            "INSERT INTO games VALUES ('old1', 'felagsvist', 5, ?, '{}', ?, 31, 0, 0, 0, NULL,"
            " NULL)",
            (seats, dumps(game.state)),
        )
    store = Store(path)
    table = Tables(store).get("old1")
    assert table is not None
    assert table.state.actions() == game.state.actions()
    assert table.variant.options_dict() == {"nolo_aces_low": True}
    assert len(store.actions("old1")) == len(game.state.actions())  # its log is written
    table.act(table.state.to_play, table.state.legal_actions()[0])
    again = Tables(Store(path)).get("old1")  # now read from the log
    assert again is not None and again.state.actions() == table.state.actions()
    assert again.variant.options_dict() == {"nolo_aces_low": True}
    assert again.events == table.events
