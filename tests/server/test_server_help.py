"""The in-page "How to play": one JSON file per language, each with every variant and laws mode.

``static/help/<lang>.json`` is ``{"<variant>": {"title": str, "sections": [{"heading":
str, "paragraphs": [str, ...]}]}}`` for every variant of the registry plus ``"laws"``;
every language has the same sections and paragraphs as English, so the page can render
any of them the same way.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from starlette.testclient import TestClient

from whistkit.server.app import STATIC_DIR
from whistkit.variants import VARIANTS

HELP = STATIC_DIR / "help"
LANGS = ["en", "is", "sv", "it", "fr", "ru"]
TOPICS = [*VARIANTS, "laws"]
# a phone screen or two per variant: a bound that keeps the text short
MAX_CHARS = 2000


def load(lang: str) -> dict[str, Any]:
    text = (HELP / f"{lang}.json").read_text(encoding="utf-8")
    data = json.loads(text)  # valid JSON, or the test fails here naming the file
    assert isinstance(data, dict), f"{lang}.json is not an object"
    return data


def shape(data: dict[str, Any]) -> dict[str, list[int]]:
    """The structure without the words: per topic, the paragraph count of each section."""
    return {
        topic: [len(section["paragraphs"]) for section in entry["sections"]]
        for topic, entry in data.items()
    }


def test_one_file_per_language() -> None:
    assert sorted(p.name for p in HELP.iterdir()) == sorted(f"{lang}.json" for lang in LANGS)
    # the same languages as the page's strings
    assert sorted(p.stem for p in (STATIC_DIR / "i18n").glob("*.json")) == sorted(LANGS)


@pytest.mark.parametrize("lang", LANGS)
def test_every_topic_with_non_empty_text(lang: str) -> None:
    data = load(lang)
    assert sorted(data) == sorted(TOPICS), f"{lang}: topics {sorted(data)}"
    for topic, entry in data.items():
        where = f"{lang}/{topic}"
        assert set(entry) == {"title", "sections"}, f"{where}: keys {sorted(entry)}"
        assert isinstance(entry["title"], str) and entry["title"].strip(), f"{where}: title"
        assert isinstance(entry["sections"], list) and entry["sections"], f"{where}: sections"
        size = 0
        for i, section in enumerate(entry["sections"]):
            assert set(section) == {"heading", "paragraphs"}, f"{where} section {i}: keys"
            heading, paragraphs = section["heading"], section["paragraphs"]
            assert isinstance(heading, str) and heading.strip(), f"{where} section {i}: heading"
            assert isinstance(paragraphs, list) and paragraphs, f"{where} section {i}: empty"
            for text in paragraphs:
                assert isinstance(text, str) and text.strip(), f"{where} section {i}: {text!r}"
                assert text == text.strip() and "  " not in text, f"{where}: spacing {text!r}"
                # plain text: the page puts it in with textContent, never as markup
                assert not re.search(r"<[a-zA-Z/]", text), f"{where}: markup in {text!r}"
                size += len(text)
        assert size <= MAX_CHARS, f"{where}: {size} characters, more than {MAX_CHARS}"


@pytest.mark.parametrize("lang", LANGS[1:])
def test_same_structure_as_english(lang: str) -> None:
    assert shape(load(lang)) == shape(load("en"))


@pytest.mark.parametrize("lang", LANGS)
def test_the_words_a_new_player_asks_about(lang: str) -> None:
    # Félagsvist's help names Grand and Nóló and explains "At 78–78"; Swedish whist's
    # gives its target of 13; every text of a language is in that language's script
    data = load(lang)
    felag = json.dumps(data["felagsvist"], ensure_ascii=False).lower()
    assert "78–78" in felag and "156" in felag
    nolo, grand = ("ноло", "гранд") if lang == "ru" else ("nóló", "grand")
    assert nolo in felag and grand in felag, lang
    assert "13" in json.dumps(data["swedish"], ensure_ascii=False)
    cyrillic = len(re.findall(r"[а-яё]", json.dumps(data, ensure_ascii=False).lower()))
    assert (cyrillic > 1000) == (lang == "ru"), f"{lang}: {cyrillic} Cyrillic letters"


def test_served_as_static_files(client: TestClient) -> None:
    for lang in LANGS:
        r = client.get(f"/static/help/{lang}.json")
        assert r.status_code == 200, lang
        assert r.json() == load(lang)
