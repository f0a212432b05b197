"""The README's library examples run as printed: the first for every variant."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import pytest

from whistkit.variants import VARIANTS

README = Path(__file__).resolve().parents[1] / "README.md"


def library_examples() -> list[str]:
    """The ```python blocks of the README's "As a library" section, in order."""
    found = re.search(r"\n## As a library\n(.*?)(?=\n## |\Z)", README.read_text(), re.S)
    assert found, "README has no 'As a library' section"
    return re.findall(r"```python\n(.*?)```", found.group(1), re.S)


def run(code: str, namespace: dict[str, Any] | None = None) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README", "exec"), {} if namespace is None else namespace)
    return out.getvalue()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_library_example(variant: str) -> None:
    code = library_examples()[0]
    assert 'new_game("felagsvist"' in code
    out = run(code.replace('"felagsvist"', repr(variant)))
    assert re.match(r"\(\d+, \d+\) (NS|EW|draw)\n\{", out), out[:200]


def is_env_example(code: str) -> bool:
    return "from whistkit.env import" in code


# the examples after the first that print what they show (the env example leaves its
# game in env.state instead: checked on its own below)
PRINTING = [i for i, c in enumerate(library_examples()) if i > 0 and not is_env_example(c)]


@pytest.mark.parametrize("index", PRINTING)
def test_more_library_examples(index: int) -> None:
    out = run(library_examples()[index])
    assert out.strip(), "the example prints nothing"


def test_env_example_plays_a_whole_game_in_five_lines() -> None:
    (code,) = [c for c in library_examples() if is_env_example(c)]
    assert len(code.strip().splitlines()) == 5, code
    namespace: dict[str, Any] = {}
    run(code, namespace)
    state = namespace["env"].state
    assert state.is_over and len(state.results) == 12
    assert state.winner in ("NS", "EW", "draw") and sum(state.score) == 12 * 13


def test_positions_example_prints_the_last_two_tricks() -> None:
    (code,) = [c for c in library_examples() if "analysis.positions" in c]
    lines = run(code).splitlines()
    assert len(lines) == 8, lines
    assert all(re.match(r"1[23] [NESW] [2-9TJQKA][SHDC] \{", line) for line in lines), lines
