"""Issue 32, item 17: names at a shared table are one per table (compared NFKC and case
folded), and names and chat lines carry at most a few combining marks per character.
The server in process (tests/server/shared_helpers.py)."""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from whistkit.server.protocol import MARKS_PER_CHAR, ProtocolError, read_chat, read_name

from .shared_helpers import Client, make_server, new_table

pytestmark = pytest.mark.timeout(120)


def run(db: Path, body: Callable[[Any], Awaitable[None]]) -> None:
    async def main() -> None:
        server = make_server(db)
        try:
            await body(server)
        finally:
            await server.close()

    asyncio.run(main())


@pytest.mark.parametrize("taken", ["Host", "HOST", "host", "Ｈｏｓｔ", " Host ", "Bot (beginner)"])
def test_a_name_taken_at_the_table_is_refused(db_path: Path, taken: str) -> None:
    """Before: E could call itself "Host" as S does. Now the join is refused with
    ``name_taken`` naming the seat that has the name (a bot's included), and the socket
    holds no seat; another name is taken."""

    async def body(server: Any) -> None:
        _, made = await new_table(
            server, seats={"N": "person", "E": "person", "W": "beginner"}, name="Host"
        )
        host = Client(server)
        assert (await host.join(made["game"], "S", made["token"], name="Host"))["type"] == "state"
        east = Client(server)
        answer = await east.join(made["game"], "E", made["tokens"]["E"], name=taken)
        assert answer["type"] == "error" and answer["code"] == "name_taken", answer
        assert "is taken at this table" in answer["message"]
        assert east.conn.table is None
        assert not any(m["type"] == "state" for m in east.log)
        answer = await east.join(made["game"], "E", made["tokens"]["E"], name="Eve")
        assert answer["type"] == "state"
        names = {k: v["name"] for k, v in east.seats()["seats"].items()}
        assert names["S"] == "Host" and names["E"] == "Eve"
        # one's own name again (a reconnect) is no clash
        again = Client(server)
        assert (await again.join(made["game"], "E", made["tokens"]["E"], name="eve"))[
            "type"
        ] == "state"

    run(db_path, body)


def test_combining_marks_are_bounded_in_names_and_chat() -> None:
    """Before: a chat line took 200 combining marks on one letter. Now at most
    MARKS_PER_CHAR per character (counted once composed: é written as e + U+0301 is one
    letter and no mark); accents of real languages pass."""
    zalgo = "a" + "\u0301" * 199  # the first composes with the a: 198 marks left
    with pytest.raises(ProtocolError) as e:
        read_chat({"text": zalgo})
    assert e.value.code == "chat_bad_text"
    assert "198 combining marks on one character; at most 4" in e.value.message
    with pytest.raises(ProtocolError) as e:
        read_name("Z" + "\u0336\u0337\u0338\u0339\u033a")
    assert e.value.code == "bad_name" and "5 combining marks" in e.value.message
    # real text passes: decomposed Vietnamese, Icelandic, Hindi, Tibetan stacks
    for text in (
        unicodedata.normalize("NFD", "Nguyễn Thị Ánh"),
        "Þórdís Guðmundsdóttir",
        "क्षत्रिय",
        "བསྒྲུབས",
        "x" + "\u0301" * MARKS_PER_CHAR,
    ):
        assert read_chat({"text": text})[0] == text
        assert read_name(text[:24]) == text[:24].strip()
