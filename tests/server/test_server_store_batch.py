"""The store, on SQLite and PostgreSQL alike: the writer merges a batch's log appends and
progress updates into a few statements (the same rows as one by one, and a conflict
still fails only the job that caused it), fencing refuses the writes of an owner whose
lease is gone, and the schema's migrations are numbered and applied once."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from whistkit.server.database import open_store
from whistkit.server.store import (
    MERGED_ROWS,
    SCHEMA_VERSION,
    BaseStore,
    Fenced,
    Op,
    StoreError,
    _Job,
    merged,
)


def ops_of_games(rng: random.Random, games: int) -> list[list[Op]]:
    """Jobs as the tables make them: creates, runs of appended actions, records."""
    jobs: list[list[Op]] = []
    seqs = dict.fromkeys(range(games), 0)
    for g in range(games):
        ops = BaseStore.create_ops(
            f"g{g}",
            "felagsvist",
            {},
            {"S": "human"},
            {"S": "t"},
            secret=b"s",
            seeded=False,
            seed=0,
            first_dealer=g % 4,
        )
        jobs.append(ops)
    for _ in range(4 * MERGED_ROWS + 17):  # more than one merged statement's rows
        g = rng.randrange(games)
        n = rng.randrange(1, 4)
        actions = [str(rng.randrange(52)) for _ in range(n)]
        done = rng.random() < 0.05
        job = BaseStore.append_ops(
            f"g{g}",
            seqs[g] + 1,
            actions,
            seqs[g] + n,
            finished=done,
            winner="NS" if done else None,
            score={"NS": g, "EW": n},
        )
        seqs[g] += n
        if done:
            job.append(BaseStore.record_op(f"g{g}", f"record {g}"))
        jobs.append(job)
    return jobs


def dump(store: BaseStore) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    games = store._execute(
        "SELECT id, version, finished, winner, score, record FROM games ORDER BY id"
    ).fetchall()
    actions = store._execute("SELECT game, seq, action FROM actions ORDER BY game, seq").fetchall()
    return [tuple(g) for g in games], [tuple(a) for a in actions]


def second(db: str | Path) -> str | Path:
    """Another empty database beside ``db``."""
    if isinstance(db, Path):
        return db.with_name("other.sqlite3")
    base, _, name = db.rpartition("/")
    import psycopg

    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}_b"')
    return f"{base}/{name}_b"


def test_a_merged_batch_stores_the_same_rows(any_db: str | Path) -> None:
    jobs = ops_of_games(random.Random(7), 23)
    one_by_one, together = open_store(any_db), open_store(second(any_db))
    try:
        for job in jobs:  # each job its own transaction: each statement alone
            one_by_one.write(job)
        together.write([op for job in jobs for op in job])  # one batch, merged
        games, actions = dump(one_by_one)
        assert len(actions) > 4 * MERGED_ROWS and any(g[2] for g in games)
        assert dump(together) == (games, actions)
    finally:
        one_by_one.close()
        together.close()
    ops = [op for job in jobs for op in job]
    # a few statements per run between two records, not one per action and per update
    assert len(merged(ops, one_by_one.dialect)) < len(ops) // 10


def create(store: BaseStore, game: str) -> None:
    store.write(
        BaseStore.create_ops(
            game, "felagsvist", {}, {}, {}, secret=b"s", seeded=False, seed=0, first_dealer=0
        )
    )


SCORE = {"NS": 0, "EW": 0}


def test_a_conflict_in_a_batch_fails_only_its_job(any_db: str | Path) -> None:
    store = open_store(any_db)
    try:
        create(store, "g")
        first = BaseStore.append_ops(
            "g", 1, ["1", "2"], 2, finished=False, winner=None, score=SCORE
        )
        clash = BaseStore.append_ops("g", 2, ["9"], 2, finished=False, winner=None, score=SCORE)
        after = BaseStore.append_ops("g", 3, ["3"], 3, finished=False, winner=None, score=SCORE)
        batch = [_Job(first), _Job(clash), _Job(after)]  # one batch, as the writer takes it
        outcomes: list[tuple[_Job, BaseException | None]] = []
        db = store._connect()
        try:
            store._run(db, batch, outcomes)
        finally:
            db.close()
        stored = store._execute("SELECT seq, action FROM actions WHERE game = 'g' ORDER BY seq")
        assert [tuple(r) for r in stored.fetchall()] == [(1, "1"), (2, "2"), (3, "3")]
        assert store.get("g").version == 3  # type: ignore[union-attr]
    finally:
        store.close()
    failed = {id(job): error for job, error in outcomes}
    assert failed[id(batch[0])] is None and failed[id(batch[2])] is None
    assert isinstance(failed[id(batch[1])], StoreError)


def test_fencing_refuses_an_owner_whose_lease_is_gone(any_db: str | Path) -> None:
    store = open_store(any_db)
    try:
        create(store, "g")
        create(store, "h")
        assert store.claim("g", 1)
        store.write(
            BaseStore.append_ops("g", 1, ["a"], 1, finished=False, winner=None, score=SCORE),
            fence=("g", 1),
        )
        assert store.claim("g", 2)  # a new owner, before it reads the game
        assert not store.claim("g", 2)  # the same token twice: no
        assert not store.claim("nope", 9)  # no such game
        stale = BaseStore.append_ops("g", 2, ["b"], 2, finished=False, winner=None, score=SCORE)
        with pytest.raises(Fenced):
            store.write(stale, fence=("g", 1))
        # in one batch with another game's write: only the stale owner's job fails
        other = BaseStore.append_ops("h", 1, ["x"], 1, finished=False, winner=None, score=SCORE)
        old = store.submit(stale, fence=("g", 1))
        fine = store.submit(other, fence=("h", 1))
        with pytest.raises(Fenced):
            old.result()
        fine.result()
        store.write(stale, fence=("g", 2))  # the new owner writes
        assert store.actions("g") == ["a", "b"] and store.actions("h") == ["x"]
        assert store.get("g").fence == 2  # type: ignore[union-attr]
        # a shared table's settings, fenced alike
        with pytest.raises(Fenced):
            store.write([BaseStore.config_op("g", '{"level": "club"}')], fence=("g", 1))
        store.write([BaseStore.config_op("g", '{"level": "club"}')], fence=("g", 2))
        store.write([BaseStore.config_op("g", '{"level": "expert"}')], fence=("g", 2))
        assert store.shared_config("g") == '{"level": "expert"}'
        assert store.shared_config("h") is None
    finally:
        store.close()


def test_migrations_are_numbered_and_applied_once(any_db: str | Path) -> None:
    store = open_store(any_db)
    store.close()
    again = open_store(any_db)  # nothing to apply the second time
    try:
        if isinstance(any_db, Path):
            version = again._execute("PRAGMA user_version").fetchone()[0]
        else:
            version = again._execute("SELECT max(version) FROM schema_version").fetchone()[0]
        assert version == SCHEMA_VERSION
        create(again, "g")
        # a database from a newer whistkit is refused, and left as it was
        if isinstance(any_db, Path):
            again._execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        else:
            again._execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION + 1,))
    finally:
        again.close()
    with pytest.raises(ValueError, match="newer than this whistkit"):
        open_store(any_db)


def test_a_database_from_before_the_migrations_is_brought_up_to_date(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE games (id TEXT PRIMARY KEY, variant TEXT NOT NULL, seed INTEGER NOT NULL,
            seats TEXT NOT NULL, tokens TEXT NOT NULL, record TEXT NOT NULL,
            version INTEGER NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
            finished INTEGER NOT NULL DEFAULT 0, winner TEXT, score TEXT);
        INSERT INTO games VALUES ('old', 'felagsvist', 5, '{}', '{}', '', 0, 1, 1, 0, NULL, NULL);
        """
    )
    db.close()
    store = open_store(path)
    try:
        row = store.get("old")
        assert row is not None and row.fence == 0 and row.seeded and row.seed == 5
        assert store.claim("old", 1)
    finally:
        store.close()


def test_an_unreachable_postgresql_is_named() -> None:
    from services import free_port

    url = f"postgresql://nobody@127.0.0.1:{free_port()}/nothing"
    with pytest.raises(ValueError, match=f"cannot open the games database {url}"):
        open_store(url)


def test_a_postgresql_database_is_served_by_one_lone_process_or_a_cluster(
    postgres: Any,
) -> None:
    """Two processes without a bus would both take every table with nothing to fence
    them: a lone process and processes with a bus exclude each other."""
    from whistkit.server.pgstore import PgStore

    url = postgres.fresh_database("serving")
    stores = [PgStore(url) for _ in range(4)]
    try:
        stores[0].serve(shared=True)
        stores[1].serve(shared=True)  # another process of the cluster
        with pytest.raises(ValueError, match=r"without a bus|--bus"):
            stores[2].serve(shared=False)
        stores[0].close()
        stores[1].close()
        stores[2].serve(shared=False)  # alone now
        with pytest.raises(ValueError, match="--bus"):
            stores[3].serve(shared=True)
        with pytest.raises(ValueError, match="--bus"):
            stores[3].serve(shared=False)
    finally:
        for store in stores:
            store.close()
