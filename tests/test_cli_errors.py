"""Bad input to ``whistkit play`` / ``match`` and the terminal game: one clear line, exit 2,
and nothing already stored is lost."""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from whisthelp import random_game
from whistkit.cards import card_name, iter_cards
from whistkit.cli import main
from whistkit.record import dumps, loads, replay
from whistkit.server import Listening, listen
from whistkit.server.store import Store
from whistkit.text_game import TextGame


def one_line_error(capsys: pytest.CaptureFixture[str], *parts: str) -> None:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for part in parts:
        assert part in err, err


def test_records_folder_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "file"
    f.write_text("kept")
    assert main(["play", "--text", "--level", "club", "--seed", "2", "--records", str(f)]) == 2
    one_line_error(capsys, f"cannot use {f} as the records folder")
    args = ["match", "--ns", "club", "--ew", "beginner", "--deals", "2", "--records", str(f)]
    assert main(args) == 2
    one_line_error(capsys, f"cannot use {f} as the records folder")
    assert f.read_text() == "kept"


def test_negative_seed_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--text", "--seed", "-1"]) == 2
    # the dialog's word: "Game number", not "seed"
    one_line_error(
        capsys, "--seed is the game number, a whole number from 0 to 9223372036854775807, not -1"
    )


@pytest.mark.parametrize("port", [70000, -1])
def test_port_out_of_range(tmp_path: Path, capsys: pytest.CaptureFixture[str], port: int) -> None:
    args = ["play", "--no-browser", "--port", str(port), "--db", str(tmp_path / "g.db")]
    assert main(args) == 2
    one_line_error(capsys, f"--port must be from 0 to 65535, not {port}")


def test_db_that_is_not_sqlite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "notes.txt"
    db.write_text("not a database\n" * 20)
    assert main(["play", "--no-browser", "--port", "0", "--db", str(db)]) == 2
    one_line_error(capsys, f"{db} is not a whistkit games database")
    assert db.read_text() == "not a database\n" * 20


def test_db_of_another_program(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "other.sqlite3"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE games (name TEXT)")
        con.execute("INSERT INTO games VALUES ('chess')")
    con.close()
    with pytest.raises(ValueError, match="is not a whistkit games database"):
        Store(db)
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT name FROM games").fetchall() == [("chess",)]
    con.close()


def test_port_zero_gives_the_real_port() -> None:
    with listen("127.0.0.1", 0) as sock:
        where = Listening("127.0.0.1", sock.getsockname()[1])
    assert where.port > 0 and where.url == f"http://127.0.0.1:{where.port}/"
    assert Listening("::1", 8000).url == "http://[::1]:8000/"


def text_game(
    records: Path, answer: Callable[[TextGame], str | None], variant: str = "felagsvist"
) -> tuple[TextGame, io.StringIO]:
    """A club-level terminal game at seed 4 whose player answers ``answer(game)``."""
    out = io.StringIO()
    box: list[TextGame] = []
    game = TextGame(
        variant=variant,
        options={},
        seed=4,
        level="club",
        records_dir=records,
        out=out,
        read_line=lambda: answer(box[0]),
    )
    box.append(game)
    return game, out


def lines(*answers: str) -> Callable[[TextGame], str | None]:
    it = iter(answers)
    return lambda game: next(it, None)


def a_card_then(*answers: str) -> Callable[[TextGame], str | None]:
    """The player plays a legal card first (so there is a game to keep), then answers."""
    it = iter(answers)
    played: list[bool] = []

    def answer(game: TextGame) -> str | None:
        if played:
            return next(it, None)
        played.append(True)
        card = next(a for a in game.game.state.legal_actions() if type(a) is int)
        return card_name(card)

    return answer


def test_text_game_help_in_swedish_bidding_and_cards_not_held(tmp_path: Path) -> None:
    game, out = text_game(tmp_path, lines("?", "q"), "swedish")
    assert game.run() == 0
    text = out.getvalue()
    line = text[text.index("Legal cards:") :].splitlines()[0]
    assert len(line.split()) == 2 + 13  # the whole hand may be the bottom card
    # a card another seat holds is refused as one the player does not hold
    asked: list[str] = []

    def card_of_another_seat(game: TextGame) -> str | None:
        if asked:
            return None
        state = game.game.state
        asked.append(card_name(next(iter_cards(state.holdings[1] | state.holdings[3]))))
        return asked[0]

    game, out = text_game(tmp_path, card_of_another_seat)
    game.run()
    assert f"Refused: you do not hold {asked[0]}" in out.getvalue()


def test_text_game_never_overwrites_a_record(tmp_path: Path) -> None:
    for n in (1, 3):
        (tmp_path / f"felagsvist-seed4-{n:04d}.json").write_text(f"kept {n}")
    game, out = text_game(tmp_path, a_card_then("q"))
    assert game.run() == 0
    assert (tmp_path / "felagsvist-seed4-0001.json").read_text() == "kept 1"
    assert (tmp_path / "felagsvist-seed4-0003.json").read_text() == "kept 3"
    new = tmp_path / "felagsvist-seed4-0004.json"
    assert f"Game saved to {new}" in out.getvalue()
    replay(loads(new.read_text()))


def test_text_game_that_cannot_save_prints_the_record(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("kept")
    game, out = text_game(blocked, a_card_then("q"))
    assert game.run() == 1
    text = out.getvalue()
    assert f"Could not save the record in {blocked}" in text
    record = text[text.index("{") :]
    assert json.loads(record)["format"].startswith("whistkit-record")
    assert blocked.read_text() == "kept"


def test_text_game_quit_before_playing_keeps_no_record(tmp_path: Path) -> None:
    game, out = text_game(tmp_path, lines("?", "q"))
    assert game.run() == 0
    assert "Nothing played, so no record." in out.getvalue()
    assert list(tmp_path.iterdir()) == []


def test_text_game_ctrl_c_keeps_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Keyboard:
        """Card numbers 1..13 (one is legal), then Ctrl-C."""

        def __init__(self) -> None:
            self.answers = [f"{k}\n" for k in range(1, 14)]

        def readline(self) -> str:
            if not self.answers:
                raise KeyboardInterrupt
            return self.answers.pop(0)

    monkeypatch.setattr("sys.stdin", Keyboard())
    argv = ["play", "--text", "--level", "club", "--seed", "4", "--records", str(tmp_path)]
    assert main(argv) == 130
    (saved,) = tmp_path.glob("*.json")
    assert f"Game saved to {saved}" in capsys.readouterr().out
    assert replay(loads(saved.read_text())).played


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--text", "--port", "8080"], "--port is for the web game, not the terminal game"),
        (["--text", "--no-browser", "--db", "x.db"], "--db, --no-browser are for the web game"),
        (
            ["--seed", "3"],
            "--seed is for the terminal game, not the web game (type the game number into"
            " its new-game dialog)",
        ),
        (["--records", "r"], "--records is for the terminal game, not the web game"),
    ],
)
def test_play_refuses_options_of_the_other_mode(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", *argv]) == 2
    out = capsys.readouterr()
    assert out.out == "" and message in out.err and out.err.count("\n") == 1


# -- standard output that takes no more: one line, exit 1, the game kept ---------------


def test_output_to_a_full_disk_or_a_closed_stdout(tmp_path: Path) -> None:
    # /dev/full (Linux, the machines this runs on) refuses every write with ENOSPC
    record = tmp_path / "game.json"
    record.write_text(dumps(random_game("felagsvist", seed=42)), encoding="utf-8")
    for argv in (["replay", str(record)], ["variants"], ["solve", "W:AK... Q2... J3... T4..."]):
        with open("/dev/full", "w") as full:
            done = subprocess.run(
                [sys.executable, "-m", "whistkit.cli", *argv],
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                check=False,
            )
        assert done.returncode == 1, argv
        assert done.stderr == "whistkit: cannot write to standard output: No space left on device\n"
    closed = subprocess.run(  # started with standard output closed
        ["sh", "-c", '"$0" -m whistkit.cli replay "$1" >&-', sys.executable, str(record)],
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    assert closed.returncode == 1 and closed.stderr == "whistkit: standard output is closed\n"


def test_text_game_whose_output_fails_keeps_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Keyboard:
        """Card numbers 1..13 over and over (one is legal)."""

        def __init__(self) -> None:
            self.answers = iter([f"{k}\n" for _ in range(50) for k in range(1, 14)])

        def readline(self) -> str:
            return next(self.answers)

    class Full(io.StringIO):
        """A terminal that takes no more once the player has played a card."""

        def write(self, text: str) -> int:
            if "S plays" in self.getvalue():
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return super().write(text)

    monkeypatch.setattr("sys.stdin", Keyboard())
    monkeypatch.setattr("sys.stdout", Full())
    argv = ["play", "--text", "--level", "club", "--seed", "4", "--records", str(tmp_path)]
    assert main(argv) == 1
    (saved,) = tmp_path.glob("*.json")
    err = capsys.readouterr().err
    assert err == (
        "whistkit play: cannot write to standard output: No space left on device;"
        f" the game so far is saved in {saved}\n"
    )
    assert replay(loads(saved.read_text())).played
