"""The store's writer merges a batch's log appends and progress updates into a few
statements: the same rows as the statements one by one, and a conflict still fails only
the job that caused it."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from whistkit.server.store import MERGED_ROWS, Op, Store, _Job, _merged


def ops_of_games(rng: random.Random, games: int) -> list[list[Op]]:
    """Jobs as the tables make them: creates, runs of appended actions, records."""
    jobs: list[list[Op]] = []
    seqs = dict.fromkeys(range(games), 0)
    for g in range(games):
        ops = Store.create_ops(
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
        job = Store.append_ops(
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
            job.append(Store.record_op(f"g{g}", f"record {g}"))
        jobs.append(job)
    return jobs


def dump(path: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    db = sqlite3.connect(path)
    try:
        games = db.execute(
            "SELECT id, version, finished, winner, score, record FROM games ORDER BY id"
        ).fetchall()
        actions = db.execute("SELECT game, seq, action FROM actions ORDER BY game, seq").fetchall()
        return games, actions
    finally:
        db.close()


def test_a_merged_batch_stores_the_same_rows(tmp_path: Path) -> None:
    jobs = ops_of_games(random.Random(7), 23)
    one_by_one, merged = Store(tmp_path / "a.db"), Store(tmp_path / "b.db")
    try:
        plain = sqlite3.connect(tmp_path / "a.db", isolation_level=None)
        plain.execute("BEGIN")
        for job in jobs:
            for sql, args in job:
                plain.execute(sql, args)
        plain.execute("COMMIT")
        plain.close()
        merged.write([op for job in jobs for op in job])  # one batch, merged
    finally:
        one_by_one.close()
        merged.close()
    games, actions = dump(tmp_path / "a.db")
    assert len(actions) > 4 * MERGED_ROWS and any(g[2] for g in games)
    assert dump(tmp_path / "b.db") == (games, actions)
    ops = [op for job in jobs for op in job]
    # a few statements per run between two records, not one per action and per update
    assert len(_merged(ops)) < len(ops) // 10


def test_a_conflict_in_a_batch_fails_only_its_job(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.db")
    store.write(
        Store.create_ops(
            "g", "felagsvist", {}, {}, {}, secret=b"s", seeded=False, seed=0, first_dealer=0
        )
    )
    store.close()
    score = {"NS": 0, "EW": 0}
    first = Store.append_ops("g", 1, ["1", "2"], 2, finished=False, winner=None, score=score)
    clash = Store.append_ops("g", 2, ["9"], 2, finished=False, winner=None, score=score)
    after = Store.append_ops("g", 3, ["3"], 3, finished=False, winner=None, score=score)
    batch = [_Job(first), _Job(clash), _Job(after)]  # one batch, as the writer takes it
    db = sqlite3.connect(tmp_path / "g.db", isolation_level=None)
    outcomes: list[tuple[_Job, BaseException | None]] = []
    try:
        Store._run(db, batch, outcomes)
        rows = db.execute("SELECT seq, action FROM actions WHERE game = 'g' ORDER BY seq")
        stored = rows.fetchall()
        version = db.execute("SELECT version FROM games WHERE id = 'g'").fetchone()[0]
    finally:
        db.close()
    failed = {id(job): error for job, error in outcomes}
    assert failed[id(batch[0])] is None and failed[id(batch[2])] is None
    assert isinstance(failed[id(batch[1])], sqlite3.IntegrityError)
    assert stored == [(1, "1"), (2, "2"), (3, "3")] and version == 3
