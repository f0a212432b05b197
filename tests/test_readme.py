"""The README's library examples run as printed: the first for every variant."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from whistkit.variants import VARIANTS

README = Path(__file__).resolve().parents[1] / "README.md"


def library_examples() -> list[str]:
    """The ```python blocks of the README's "As a library" section, in order."""
    found = re.search(r"\n## As a library\n(.*?)(?=\n## |\Z)", README.read_text(), re.S)
    assert found, "README has no 'As a library' section"
    return re.findall(r"```python\n(.*?)```", found.group(1), re.S)


def run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README", "exec"), {})
    return out.getvalue()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_library_example(variant: str) -> None:
    code = library_examples()[0]
    assert 'new_game("felagsvist"' in code
    out = run(code.replace('"felagsvist"', repr(variant)))
    assert re.match(r"\(\d+, \d+\) (NS|EW|draw)\n\{", out), out[:200]


@pytest.mark.parametrize("index", range(1, len(library_examples())))
def test_more_library_examples(index: int) -> None:
    out = run(library_examples()[index])
    assert out.strip(), "the example prints nothing"


def test_positions_example_prints_the_last_two_tricks() -> None:
    (code,) = [c for c in library_examples() if "analysis.positions" in c]
    lines = run(code).splitlines()
    assert len(lines) == 8, lines
    assert all(re.match(r"1[23] [NESW] [2-9TJQKA][SHDC] \{", line) for line in lines), lines
