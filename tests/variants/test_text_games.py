"""A whole game in the terminal per variant, with piped input, and its record replays."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")
# card numbers 1..13 again and again: each refused number is simply retried; the empty
# line after each lets a revoke stand (laws mode asks at once) and is skipped otherwise
ANSWERS = "".join(f"{k}\n\n" for _ in range(600) for k in range(1, 14))


def run(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "whistkit.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("variant", "options", "expect"),
    [
        ("swedish", [], ["reveals", "bottom card", "(game to 13)"]),
        ("english", [], ["(turned ", "Honours:", "Rubber to", "Rubber:"]),
        ("american", [], ["(turned ", "Game to"]),
        ("american", ["--option", "american_match=rubber"], ["Rubber:"]),
        # laws mode: the piped numbers make S revoke, and the record keeps the revokes
        ("swedish", ["--option", "play_mode=laws"], ["That is a revoke"]),
        ("english", ["--option", "play_mode=laws", "--option", "auto_claim=false"], ["revoke"]),
    ],
)
def test_text_game_to_the_end(tmp_path, variant, options, expect):
    records = tmp_path / "records"
    proc = run(
        [
            "play",
            "--text",
            "--variant",
            variant,
            "--seed",
            "1",
            "--level",
            "club",  # the game's flow is tested here; expert bots take minutes under load
            "--records",
            str(records),
            *options,
        ],
        ANSWERS,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Game over. Final score" in out
    assert "win (" in out
    for text in expect:
        assert text in out, text
    assert "\n  turned:" not in out  # the header says it already
    files = sorted(records.glob("*.json"))
    assert len(files) == 1
    rep = run(["replay", str(files[0])], "")
    assert rep.returncode == 0, rep.stderr
    summary = json.loads(rep.stdout)
    assert summary["variant"] == variant
    assert summary["winner"] in ("NS", "EW")
    if "play_mode=laws" in options:
        assert any("revokes" in h for h in summary["hands"])
    final = out.split("Game over. Final score: ")[1].splitlines()[0]
    assert final == f"NS {summary['score']['NS']}, EW {summary['score']['EW']}."


def revoke_once(tmp_path, answers):
    """An American laws-mode game (seed 5, beginner bots) in which S revokes at the first
    chance, then gives ``answers`` ("{fix}": a card of the led suit), then plays its first
    legal card until the game ends. Returns the exit code and the output."""
    import io

    from whistkit.cards import SUIT_MASKS, card_name, iter_cards
    from whistkit.text_game import TextGame

    out = io.StringIO()
    box: list[TextGame] = []
    script: list[str] = []

    def read_line() -> str | None:
        if script:
            return script.pop(0) + "\n"
        s = box[0].game.state
        hand = s.holdings[2]
        if s.trick and "That is a revoke" not in out.getvalue():
            follow = hand & SUIT_MASKS[s.trick[0] // 13]
            off = [c for c in iter_cards(hand) if not follow >> c & 1]
            if follow and off:
                fix = card_name(next(iter_cards(follow)))
                script.extend(a.replace("{fix}", fix) for a in answers)
                return card_name(off[0]) + "\n"
        legal = s.legal_actions()
        if not legal:
            return None  # the game is over: do not start another
        return (card_name(legal[0]) if type(legal[0]) is int else "1") + "\n"

    game = TextGame(
        variant="american",
        options={"play_mode": "laws"},
        seed=5,
        level="beginner",
        records_dir=tmp_path,
        out=out,
        read_line=read_line,
    )
    box.append(game)
    return game.run(), out.getvalue()


def test_text_game_revoke_and_correct(tmp_path):
    """In laws mode S revokes once and takes it back with 'correct CARD'."""
    from whistkit.record import loads, replay, summarize

    code, text = revoke_once(tmp_path, ["correct {fix}"])
    assert code == 0
    assert "That is a revoke" in text and "S corrects the revoke with" in text
    record = next(tmp_path.glob("*.json")).read_text()
    summary = summarize(replay(loads(record)))
    assert summary["winner"] in ("NS", "EW")
    assert all("revokes" not in h for h in summary["hands"])  # corrected: no penalty
    assert '"type": "correct"' in record


@pytest.mark.parametrize("then", ["q", "{fix}"])
def test_the_correction_prompt_takes_a_card_help_or_quit(tmp_path, then):
    """After a revoke: '?' explains, a non-card is refused, then q quits (the game is kept)
    or the card itself (no 'correct' needed) takes the revoke back."""
    code, text = revoke_once(tmp_path, ["?", "zz", then])
    assert code == 0
    assert "Type the card to play instead (a card of the led suit" in text
    assert "Refused: not a card: 'zz'" in text
    if then == "q":
        assert "S corrects" not in text and "Game saved to" in text
    else:
        assert "S corrects the revoke with" in text
