"""benchmarks/paired.py, the paired match: a run records its deals and commit, ``pair``
pairs two levels on the deals both played (``--below``: the first deals only) and
refuses files that deal different deals."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from helpers_bots import run_benchmark


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_benchmark("paired.py", *args)


def _play(out: Path, seed: str, *levels: str) -> dict[str, Any]:
    args = ["run", "--a", levels[0], "--seed", seed, "--games", "0:1", "--jobs", "1"]
    if len(levels) > 1:
        args += ["--b", levels[1]]
    done = _run(*args, "--out", str(out))
    assert done.returncode == 0, done.stderr
    doc: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return doc


def test_a_stored_level_pairs_with_a_later_run_and_below_keeps_the_first_deals(
    tmp_path: Path,
) -> None:
    both = _play(tmp_path / "both.json", "3", "club", "beginner")
    assert {len(rows) for rows in both["levels"].values()} == {12}  # a game of Félagsvist
    assert both["commit"]  # the checkout's commit: which code played the stored scores
    # the club level alone, later: the same deals play the same
    alone = _play(tmp_path / "club.json", "3", "club")
    assert alone["levels"]["club"] == both["levels"]["club"]
    done = _run(
        "pair", str(tmp_path / "club.json"), str(tmp_path / "both.json"),
        "--a", "club", "--b", "beginner", "--below", "6",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "6 deals" in done.stdout
    scores = {lv: [r["score"] for r in rows[:6]] for lv, rows in both["levels"].items()}
    mean = sum(a - b for a, b in zip(scores["club"], scores["beginner"], strict=True)) / 6
    assert f"club - beginner, 6 deals: {mean:+.3f}" in done.stdout


def test_files_of_other_deals_are_refused_by_name(tmp_path: Path) -> None:
    _play(tmp_path / "s3.json", "3", "club")
    _play(tmp_path / "s4.json", "4", "beginner")
    done = _run("pair", str(tmp_path / "s3.json"), str(tmp_path / "s4.json"), "--a", "club")
    assert done.returncode != 0
    assert "different deals" in done.stderr and "seed 3" in done.stderr
    assert "seed 4" in done.stderr and "s4.json" in done.stderr
    # one level's name with other scores on the same deal: two versions of the code
    doc = json.loads((tmp_path / "s3.json").read_text(encoding="utf-8"))
    doc["levels"]["club"][0]["score"] += 2
    (tmp_path / "other.json").write_text(json.dumps(doc), encoding="utf-8")
    done = _run("pair", str(tmp_path / "s3.json"), str(tmp_path / "other.json"), "--a", "club")
    assert done.returncode != 0 and "club scores deal 0" in done.stderr
    assert "different code" in done.stderr
    (tmp_path / "bad.json").write_text("[1, 2]\n", encoding="utf-8")
    done = _run("pair", str(tmp_path / "bad.json"), str(tmp_path / "s3.json"), "--a", "club")
    assert done.returncode != 0 and "bad.json: not a run's scores" in done.stderr


def test_sees_partner_draws_its_worlds_with_partner_s_real_hand() -> None:
    # paired.py's sees-partner level: the match expert with partner's hand face up in its
    # view (a measuring stick for a perfect model of partner); the view it decides on
    # places all of partner's cards, and nothing of the opponents'
    import importlib.util
    import random

    from helpers_bots import late_positions

    from whistkit.bots.knowledge import Knowledge

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "paired.py"
    spec = importlib.util.spec_from_file_location("paired_tool", path)
    assert spec is not None and spec.loader is not None
    paired = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(paired)
    player = paired.make_player("sees-partner:worlds={4: 8, 3: 8}")
    seen: list[Any] = []
    choose = player.bot.choose
    player.bot.choose = lambda view, rng: seen.append(view) or choose(view, rng)
    for i, state in enumerate(late_positions("felagsvist", 6, seed=4, tricks_left=4)):
        seat = state.to_play
        assert player.act(state, seat, random.Random(i)) in state.legal_actions()
        held = Knowledge.from_view(seen[-1]).held
        assert held[(seat + 2) & 3] == state.holdings[(seat + 2) & 3]
        assert held[(seat + 1) & 3] == held[(seat + 3) & 3] == 0
