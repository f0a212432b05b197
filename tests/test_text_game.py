"""``whistkit play --text`` driven through a pipe, as a user with a script would."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from whistkit.cards import card_name
from whistkit.record import loads, replay, summarize
from whistkit.text_game import TextGame


def numbers_until_legal() -> str:
    # card numbers 1..13 over and over: some number is always legal, the rest are refused
    return "".join(f"{k}\n" for _ in range(400) for k in range(1, 14))


def run_play(tmp_path: Path, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "whistkit.cli", "play", "--text", "--records", str(tmp_path), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,  # a guard against a hang, not a speed test
        check=False,
    )


def test_whole_felagsvist_game_with_piped_input(tmp_path: Path) -> None:
    # club bots: the game's flow is the subject here, and expert bots take a minute or
    # more of a loaded machine (the timeout is a guard against a hang, not a speed test)
    done = run_play(tmp_path, numbers_until_legal(), "--seed", "1", "--level", "club")
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
    again = run_play(tmp_path, numbers_until_legal(), "--seed", "1", "--level", "club")
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


def test_record_names_the_bots_with_their_level(tmp_path: Path) -> None:
    # docs/records.md's players: "Bot (expert)"; the names were "Bot (partner)", "Bot", "You"
    numbers = "".join(f"{k}\n" for k in range(1, 14))
    done = run_play(tmp_path, numbers + "q\n", "--seed", "3", "--level", "beginner")
    assert done.returncode == 0, done.stderr
    saved = re.search(r"Game saved to (.+)", done.stdout)
    assert saved, done.stdout[-500:]
    record = json.loads(Path(saved.group(1).strip()).read_text(encoding="utf-8"))
    bot = "Bot (beginner)"
    assert record["players"] == {"N": bot, "E": bot, "S": "You", "W": bot}


def test_illegal_card_is_refused_with_the_rule(tmp_path: Path) -> None:
    # play every card of the hand by name; those that do not follow suit are refused
    names = [r + s for s in "SHDC" for r in "AKQJT98765432"]
    # (club bots: the refusal is the subject; expert bots think for minutes on a busy machine)
    done = run_play(tmp_path, "\n".join(names * 3) + "\nq\n", "--seed", "7", "--level", "club")
    assert "(must follow suit)" in done.stdout or "(card not in hand)" in done.stdout
    assert "S plays" in done.stdout


def test_new_game_and_bad_options(tmp_path: Path) -> None:
    numbers = "".join(f"{k}\n" for k in range(1, 14))  # one of them is legal
    # club bots: the new game is the subject (expert bots think for seconds a trick here)
    club = ("--level", "club")
    done = run_play(tmp_path, numbers + "n\n" + numbers + "q\n", "--seed", "4", *club)
    assert done.returncode == 0
    new_seed = re.search(r"New game\. Seed (\d+)\.", done.stdout)
    assert new_seed, done.stdout[-500:]
    names = {p.name for p in tmp_path.glob("*.json")}
    assert names == {"felagsvist-seed4-0001.json", f"felagsvist-seed{new_seed.group(1)}-0002.json"}
    nothing = run_play(tmp_path, "n\nq\n", "--seed", "4", *club)
    assert nothing.stdout.count("Nothing played, so no record.") == 2
    assert len(list(tmp_path.glob("*.json"))) == 2
    bad = run_play(tmp_path, "", "--option", "nolo_aces_low=maybe")
    assert bad.returncode == 2 and "nolo_aces_low" in bad.stderr and bad.stdout == ""
    unknown = run_play(tmp_path, "", "--variant", "bridge")
    assert unknown.returncode == 2 and "unknown variant 'bridge'" in unknown.stderr


# -- in process: what the player is asked and told ---------------------------------------


def club_game(records: Path, answer: Callable[[TextGame, str], str | None], **kw: Any) -> str:
    """A club-level Félagsvist game at seed 4 whose player answers ``answer(game, output)``;
    returns the whole output."""
    out = io.StringIO()
    box: list[TextGame] = []
    game = TextGame(
        variant="felagsvist",
        options=kw,
        seed=4,
        level="club",
        records_dir=records,
        out=out,
        read_line=lambda: answer(box[0], out.getvalue()),
    )
    box.append(game)
    game.run()
    return out.getvalue()


def lawful(game: TextGame) -> list[int]:
    return [a for a in game.game.state.legal_actions() if type(a) is int]


def test_only_legal_card_is_played_without_asking(tmp_path: Path) -> None:
    asked: list[int] = []  # the number of legal cards at each question

    def first_legal(game: TextGame, out: str) -> str | None:
        if out.endswith("Type n for a new game, anything else quits.\n"):
            return None
        asked.append(len(lawful(game)))
        return card_name(lawful(game)[0])

    out = club_game(tmp_path, first_legal)
    assert "Game over." in out
    assert min(asked) >= 2  # never asked for a card that is the only legal one
    # every hand's last card at least, announced as the player's
    assert re.search(r"^S plays \w\w \(your only legal card\)$", out, re.M)
    assert out.count("(your only legal card)") >= 12
    assert len(re.findall(r"\bS plays ", out)) == 12 * 13


def test_laws_mode_asks_even_for_one_lawful_card(tmp_path: Path) -> None:
    # the player may revoke: with one card of the led suit and others he is still asked
    asked: list[tuple[int, int]] = []

    def first_legal(game: TextGame, out: str) -> str | None:
        if "Hand 2 of 12" in out:
            return "q"
        state = game.game.state
        asked.append((len(lawful(game)), state.holdings[2].bit_count()))
        return card_name(lawful(game)[0])

    out = club_game(tmp_path, first_legal, play_mode="laws")
    assert (1, 1) not in asked and any(n == 1 for n, _ in asked)
    assert "(your only legal card)" in out  # the hand's last card


def test_hand_result_comes_before_the_next_hands_cards(tmp_path: Path) -> None:
    def first_legal(game: TextGame, out: str) -> str | None:
        if "Hand 4 of 12" in out:
            return "q"
        return card_name(lawful(game)[0])

    out = club_game(tmp_path, first_legal)
    for k in (1, 2, 3):
        before = out[: out.index(f"Hand {k} over:")]
        # all of hand k's cards and none of hand k+1's (whose leader may be a bot)
        assert len(re.findall(r"\b[NESW] plays ", before)) == 52 * k


def test_hand_result_names_the_revokes(tmp_path: Path) -> None:
    revoked: list[str] = []

    def revoke_once(game: TextGame, out: str) -> str | None:
        if "Hand 2 of 12" in out:
            return "q"
        if out.endswith("Correct? "):
            return ""  # the revoke stands
        state = game.game.state
        others = [c for c in range(52) if state.holdings[2] >> c & 1 and c not in lawful(game)]
        if not revoked and state.trick and others and state.trick_number < 12:
            revoked.append(card_name(others[0]))
            return revoked[0]
        return card_name(lawful(game)[0])

    out = club_game(tmp_path, revoke_once, play_mode="laws")
    assert revoked
    line = re.search(r"^Revokes: S (\w\w) \(trick (\d+)\); penalised: 1\.$", out, re.M)
    assert line and line.group(1) == revoked[0], out[-1500:]
    assert out.index("Hand 1 over:") < line.start()
