"""Every language has every string of the English set, with the same placeholders."""

from __future__ import annotations

import json
import re

import pytest

from whistkit.bots import LEVELS
from whistkit.server.app import STATIC_DIR
from whistkit.variants import VARIANTS, describe

I18N = STATIC_DIR / "i18n"
LANGS = ["en", "is", "sv", "it", "fr", "ru"]
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def strings(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def test_the_six_languages_are_there() -> None:
    assert sorted(p.stem for p in I18N.glob("*.json")) == sorted(LANGS)
    js = (STATIC_DIR / "i18n.js").read_text(encoding="utf-8")
    assert all(f'"{lang}"' in js for lang in LANGS)


@pytest.mark.parametrize("lang", LANGS[1:])
def test_every_key_translated(lang: str) -> None:
    en, tr = strings("en"), strings(lang)
    assert sorted(set(en) - set(tr)) == [], f"{lang} lacks keys"
    assert sorted(set(tr) - set(en)) == [], f"{lang} has keys English lacks"
    for key, text in tr.items():
        assert isinstance(text, str) and text.strip(), f"{lang}: {key} is empty"
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(en[key])), (
            f"{lang}: {key} has placeholders {PLACEHOLDER.findall(text)},"
            f" English {PLACEHOLDER.findall(en[key])}"
        )
    # most strings really are translated (names such as "Félagsvist" may stay)
    same = [k for k in en if en[k] == tr[k] and "{" not in en[k]]
    assert len(same) < len(en) // 10, f"{lang}: untranslated? {same}"


def test_page_and_script_keys_exist_in_english() -> None:
    en = strings("en")
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    # every ES module of the page, not only app.js
    js = "\n".join(p.read_text(encoding="utf-8") for p in sorted(STATIC_DIR.glob("*.js")))
    used = set(re.findall(r'data-t="(\w+)"', html)) | set(re.findall(r'\bt\("(\w+)"', js))
    assert used, "no keys found"
    assert sorted(used - set(en)) == []
    # keys built at run time: suits, ranks, contracts, seats
    for prefix, names in (
        ("rank_", "AKQJT98765432"),
        ("suit_", "SHDC"),
        ("suit_of_", "SHDC"),
        ("seat_", "NESW"),
    ):
        for n in names:
            assert prefix + n in en
    for code in ("H", "S", "D", "C", "NT", "NOLO", "SPEL", "NOLLSPEL"):
        assert f"contract_{code}" in en


def test_card_faces_are_packaged() -> None:
    cards = STATIC_DIR / "cards"
    names = {p.stem for p in cards.glob("*.svg")}
    assert {r + s for r in "AKQJT98765432" for s in "SHDC"} | {"back"} == names
    credits = (cards / "CREDITS").read_text(encoding="utf-8")
    assert "Adrian Kennard" in credits and "CC0" in credits


def test_names_the_page_builds_from_the_server_exist_in_english() -> None:
    # the new-game dialog labels levels, variants, options and their choices by key
    en = strings("en")
    keys = [f"level_{level}" for level in LEVELS]
    for cls in VARIANTS.values():
        keys.append(f"variant_{cls.name}")
        for opt in describe(cls)["options"]:
            keys.append(f"opt_{opt['key']}")
            if opt["kind"] == "choice":
                keys += [f"opt_{opt['key']}_{choice}" for choice in opt["choices"]]
    assert sorted(k for k in keys if k not in en) == []


# the word each language uses for a plant's seed, which is not what the game number is
PLANT_SEED = {"en": "seed", "is": "fræ", "sv": "frö", "it": "seme", "fr": "graine", "ru": "зерн"}


@pytest.mark.parametrize("lang", LANGS)
def test_game_number_is_not_a_plant_seed(lang: str) -> None:
    """Finding 15: the seed is the game's number (Italian "Seme" reads as "suit")."""
    tr = strings(lang)
    for key in ("seed", "bad_seed"):
        text = PLACEHOLDER.sub("", tr[key]).lower()  # the {seed} placeholder is no word
        assert PLANT_SEED[lang] not in text, f"{lang}: {key} = {tr[key]!r}"


@pytest.mark.parametrize("lang", LANGS[1:])
def test_the_keys_help_names_enter_and_space_in_each_language(lang: str) -> None:
    """Finding 15: "Enter, Space" in the Keys dialog is a string of its own, translated."""
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    assert '<dt data-t="key_enter_space">' in html
    assert strings(lang)["key_enter_space"] != strings("en")["key_enter_space"]


# the word for a revoke in each language's card-game usage (docs/web.md names them): the
# stem every string about a revoke uses, and the other spellings that once crept in
REVOKE_WORD = {
    "sv": ("renons", re.compile(r"\brenon(?!s)\w*", re.IGNORECASE)),
    "it": ("rinunc", re.compile(r"\b(?:renon|renunc|rifiut[oi]\b|rifiuta non)\w*", re.IGNORECASE)),
}
OFFENDERS = {"opt_revoke_method_deduct", "opt_both_sides_revoke_cancel_equal", "opt_revoker_capped"}


def help_texts(lang: str) -> list[str]:
    """Every string of the How to play help in ``lang``."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads((STATIC_DIR / "help" / f"{lang}.json").read_text(encoding="utf-8")))
    return found


@pytest.mark.parametrize("lang", sorted(REVOKE_WORD))
def test_one_spelling_of_revoke_in_each_language(lang: str) -> None:
    """Swedish says "renons" and Italian "rinuncia" throughout (issue 32's leftovers): no
    "renonce" (French), "renuncia" (Spanish) or "rifiuto" (an Italian discard) beside it."""
    stem, other = REVOKE_WORD[lang]
    en, tr = strings("en"), strings(lang)
    for key, text in tr.items():
        assert not other.search(text), f"{lang}: {key} spells the revoke {text!r}"
        # every string that speaks of a revoke in English names it with the one word (but
        # those that say "the offenders" instead)
        if re.search(r"\brevok", en[key], re.IGNORECASE) and key not in OFFENDERS:
            assert stem in text.lower(), f"{lang}: {key} {text!r} lacks {stem!r}"
    for text in help_texts(lang):
        assert not other.search(text), f"{lang} help: {text!r}"


# a person's name after a preposition that governs a case: the page cannot decline names
# (Icelandic "með Anna" should be "með Önnu", Russian "с Анна" should be "с Анной")
CASE_PREPOSITIONS = {
    "is": re.compile(r"\b(með|við|frá|hjá|til|um|af|án|handa)\s+\{(name|host|partner|names)\}"),
    "ru": re.compile(r"(^|\s)(с|со|у|к|от|для|без|про|о|об)\s+\{(name|host|partner|names)\}"),
}


@pytest.mark.parametrize("lang", sorted(CASE_PREPOSITIONS))
def test_names_are_not_put_where_they_would_need_declining(lang: str) -> None:
    """A player's name is shown as typed (nominative): in Icelandic and Russian no string
    puts it after a preposition that wants another case; the sentence is built around it
    ("gestgjafi Anna", "хозяин стола — Анна") instead."""
    for key, text in strings(lang).items():
        assert not CASE_PREPOSITIONS[lang].search(text), f"{lang}: {key} {text!r}"
