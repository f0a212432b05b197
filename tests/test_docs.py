"""The repository carries its own reference, and it agrees with the code.

docs/rules.md §8 lists every option of every variant with its default; README, docs,
code and tests point only at files inside the repository.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from whistkit.variants import VARIANTS

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"


def option_rows() -> dict[str, tuple[str, str]]:
    """docs/rules.md §8: option key -> (variants column, default column)."""
    section = RULES.read_text(encoding="utf-8").split("\n## 8. Options\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    rows: dict[str, tuple[str, str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows


def shown(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_option_and_default_is_in_the_rules(name: str) -> None:
    rows = option_rows()
    options = VARIANTS[name].options_class
    for field in dataclasses.fields(options):
        assert field.name in rows, f"docs/rules.md §8 lacks option {field.name!r}"
        variants, default = rows[field.name]
        assert variants == "all" or name in variants, f"{field.name}: {variants} lacks {name}"
        assert f"`{shown(field.default)}`" in default, (
            f"{name}.{field.name}: default {field.default!r}, docs/rules.md says {default}"
        )
        for choice in options.CHOICES.get(field.name, ()):
            assert f"`{choice}`" in RULES.read_text(encoding="utf-8"), (field.name, choice)


def test_the_rules_list_no_option_the_code_lacks() -> None:
    known = {f.name for cls in VARIANTS.values() for f in dataclasses.fields(cls.options_class)}
    assert sorted(set(option_rows()) - known) == []


def test_references_stay_inside_the_repository() -> None:
    # the specifications once lived in a folder beside the repository: nothing may point
    # there, and every docs/*.md named in the text exists
    outside = re.compile(r"shared/|\b(RULES|RECORD|DESIGN|SOLVER|BOTS)\.md")
    named = re.compile(r"docs/([a-z_]+\.md)")
    files = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    for folder in ("src", "tests", "benchmarks"):
        files += [p for p in (ROOT / folder).rglob("*") if p.suffix in {".py", ".js", ".md"}]
    for path in files:
        if path == Path(__file__):
            continue
        text = path.read_text(encoding="utf-8")
        for n, line in enumerate(text.splitlines(), 1):
            assert not outside.search(line), f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for doc in named.findall(text):
            assert (ROOT / "docs" / doc).exists(), f"{path.relative_to(ROOT)} names docs/{doc}"
