"""The evening pages' strings: every language has every key with the same {placeholders},
and every key the pages ask for exists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "src/whistkit/evening/static"
LANGS = ["en", "is", "sv", "it", "fr", "ru"]


def strings(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


@pytest.mark.parametrize("lang", LANGS[1:])
def test_every_language_has_every_string_with_its_placeholders(lang: str) -> None:
    en, other = strings("en"), strings(lang)
    assert set(other) == set(en)
    for key, text in en.items():
        assert set(re.findall(r"\{(\w+)[}|]", other[key])) == set(
            re.findall(r"\{(\w+)[}|]", text)
        ), key
        assert other[key].strip(), key


def test_the_pages_ask_only_for_strings_that_exist() -> None:
    en = strings("en")
    used: set[str] = set()
    prefixes: set[str] = set()
    for page in STATIC.glob("*.js"):
        code = page.read_text("utf-8")
        used |= set(re.findall(r"\bt\(\"([a-z_A-Z-]+)\"", code))
        prefixes |= set(re.findall(r"t\(`([a-z_]+_)\$\{", code))
    for page in STATIC.glob("*.html"):
        used |= set(re.findall(r'data-t="([a-z_]+)"', page.read_text("utf-8")))
    assert used and used <= set(en), sorted(used - set(en))
    for prefix in prefixes:
        assert any(k.startswith(prefix) for k in en), prefix
    code = (STATIC / "ev.js").read_text("utf-8")
    found = re.search(r"LANGUAGES = \[(.*?)\]", code)
    assert found and found.group(1).replace('"', "").split(", ") == LANGS


def test_every_name_the_model_uses_has_a_string() -> None:
    from whistkit.evening import CONTRACTS, PRESETS, PRIZE_CATEGORIES, SIT_OUT_POLICIES, TIE_RULES
    from whistkit.evening.store import STATUSES

    en = strings("en")
    names = (
        [f"preset_{p}" for p in PRESETS]
        + [f"sitout_{p}" for p in SIT_OUT_POLICIES]
        + [f"ties_{p}" for p in TIE_RULES]
        + [f"prize_{c}" for c in PRIZE_CATEGORIES]
        + [f"contract_{c}" for c in CONTRACTS]
        + [f"status_{s}" for s in STATUSES]
    )
    assert [n for n in names if n not in en] == []
