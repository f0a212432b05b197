"""``whistkit play --text`` driven through a pipe, as a user with a script would."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from whistkit.record import loads, replay, summarize


def numbers_until_legal() -> str:
    # card numbers 1..13 over and over: some number is always legal, the rest are refused
    return "".join(f"{k}\n" for _ in range(400) for k in range(1, 14))


def run_play(tmp_path: Path, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "whistkit.cli", "play", "--text", "--records", str(tmp_path), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_whole_felagsvist_game_with_piped_input(tmp_path: Path) -> None:
    done = run_play(tmp_path, numbers_until_legal(), "--seed", "1")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Hand 1 of 12 - " in out and "Hand 12 of 12 - Nóló" in out
    assert "Hand 3 of 12 - Grand (no trump)" in out
    assert "Refused:" in out  # refused numbers are explained, then the game goes on
    final = re.search(r"Game over\. Final score: NS (\d+), EW (\d+)\.", out)
    assert final, out[-2000:]
    ns, ew = int(final.group(1)), int(final.group(2))
    assert ns + ew == 156
    path = Path(re.search(r"Record saved to (.+)", out).group(1).strip())  # type: ignore[union-attr]
    assert path.parent == tmp_path
    state = replay(loads(path.read_text(encoding="utf-8")))
    assert state.is_over and state.score == (ns, ew)
    assert summarize(state)["winner"] == ("NS" if ns > ew else "EW" if ew > ns else "draw")
    # the same seed gives the same game
    again = run_play(tmp_path, numbers_until_legal(), "--seed", "1")
    assert again.stdout.replace("0002", "0001") == out


def test_typed_cards_help_and_quit(tmp_path: Path) -> None:
    numbers = "".join(f"{k}\n" for k in range(1, 14))  # one of them is legal
    done = run_play(tmp_path, "?\nzz\n99\n" + numbers + "q\n", "--seed", "3")
    assert done.returncode == 0
    out = done.stdout
    assert "Legal cards:" in out
    assert "Refused: not a card: 'zz'" in out
    assert "Refused: there is no card number 99" in out
    saved = re.search(r"Game saved to (.+)", out)
    assert saved
    record = json.loads(Path(saved.group(1).strip()).read_text(encoding="utf-8"))
    assert record["players"]["S"] == "You"
    assert len(record["hands"]) == 1


def test_illegal_card_is_refused_with_the_rule(tmp_path: Path) -> None:
    # play every card of the hand by name; those that do not follow suit are refused
    names = [r + s for s in "SHDC" for r in "AKQJT98765432"]
    done = run_play(tmp_path, "\n".join(names * 3) + "\nq\n", "--seed", "7")
    assert "(must follow suit)" in done.stdout or "(card not in hand)" in done.stdout
    assert "S plays" in done.stdout


def test_new_game_and_bad_options(tmp_path: Path) -> None:
    numbers = "".join(f"{k}\n" for k in range(1, 14))  # one of them is legal
    done = run_play(tmp_path, numbers + "n\n" + numbers + "q\n", "--seed", "4")
    assert done.returncode == 0
    new_seed = re.search(r"New game\. Seed (\d+)\.", done.stdout)
    assert new_seed, done.stdout[-500:]
    names = {p.name for p in tmp_path.glob("*.json")}
    assert names == {"felagsvist-seed4-0001.json", f"felagsvist-seed{new_seed.group(1)}-0002.json"}
    nothing = run_play(tmp_path, "n\nq\n", "--seed", "4")
    assert nothing.stdout.count("Nothing played, so no record.") == 2
    assert len(list(tmp_path.glob("*.json"))) == 2
    bad = run_play(tmp_path, "", "--option", "nolo_aces_low=maybe")
    assert bad.returncode == 2 and "nolo_aces_low" in bad.stderr and bad.stdout == ""
    unknown = run_play(tmp_path, "", "--variant", "bridge")
    assert unknown.returncode == 2 and "unknown variant 'bridge'" in unknown.stderr
