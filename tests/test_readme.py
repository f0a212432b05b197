"""The README's library example runs as printed, for every variant."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from whistkit.variants import VARIANTS

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_library_example(variant: str) -> None:
    found = re.search(r"## As a library\n\n```python\n(.*?)```", README.read_text(), re.S)
    assert found, "README has no library example"
    code = found.group(1)
    assert 'new_game("felagsvist"' in code
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.replace('"felagsvist"', repr(variant)), "README", "exec"), {})
    assert re.match(r"\(\d+, \d+\) (NS|EW|draw)\n\{", out.getvalue()), out.getvalue()[:200]
