"""Static checks of web/: what the browser tests cannot see on every code path.

The browser tests catch a CSP violation or an untranslated key only on the paths they
happen to run; these checks read the sources, so a forbidden construct or a missing
translation fails even where no test clicks.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[1] / "web"
SCRIPTS = sorted(WEB.glob("*.js"))
LANGUAGES = ["en", "ms", "bg", "ja", "ko"]


def source(name: str) -> str:
    return (WEB / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_scripts_never_parse_text_as_html(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for forbidden in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert forbidden not in text, f"{path.name} uses {forbidden}"
    # Inline style attributes are refused by the CSP; styles go through the CSSOM.
    assert not re.search(r"setAttribute\(\s*[\"']style", text)
    assert not re.search(r"""[{,]\s*["']?style["']?\s*:""", text)


def test_the_page_has_nothing_inline_and_nothing_from_elsewhere() -> None:
    html = source("index.html")
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "inline script"
    assert not re.search(r"<style", html), "inline stylesheet"
    assert not re.search(r"\sstyle=", html), "style attribute"
    assert not re.search(r"\son\w+=", html), "event handler attribute"
    for path in [
        WEB / "index.html",
        *sorted(WEB.glob("*.css")),
        *SCRIPTS,
        *sorted(WEB.glob("i18n/*.json")),
    ]:
        text = path.read_text(encoding="utf-8")
        outside = re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[/\w.-]*", text)
        allowed = {"//www.w3.org/2000/svg", "http://www.w3.org/2000/svg"}
        assert set(outside) <= allowed, f"{path.name} refers to {set(outside) - allowed}"
        assert "@import" not in text


PLURAL_CATEGORIES = {
    "en": {"one", "other"},
    "ms": {"other"},
    "bg": {"one", "other"},
    "ja": {"other"},
    "ko": {"other"},
}
"""CLDR's cardinal plural categories of each language, as `Intl.PluralRules` has them
(tests/test_browser_i18n.py checks this table against Chromium's own)."""
PLURAL_SUFFIX = re.compile(r"_(zero|one|two|few|many|other)$")


def catalogue(lang: str) -> dict[str, str]:
    """One language's message catalogue (i18next JSON v4, flat keys)."""
    data = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict) and all(isinstance(v, str) for v in data.values()), lang
    return data


def catalogues() -> dict[str, dict[str, str]]:
    return {lang: catalogue(lang) for lang in LANGUAGES}


def base_keys(keys: set[str] | dict[str, str]) -> tuple[set[str], set[str]]:
    """(plain keys, plural keys without their suffix) of a catalogue."""
    plain = {k for k in keys if not PLURAL_SUFFIX.search(k)}
    plural = {PLURAL_SUFFIX.sub("", k) for k in keys if PLURAL_SUFFIX.search(k)}
    return plain, plural


def test_the_language_list_names_every_catalogue() -> None:
    names = json.loads((WEB / "i18n" / "languages.json").read_text(encoding="utf-8"))
    assert list(names) == LANGUAGES
    files = sorted(p.stem for p in (WEB / "i18n").glob("*.json") if p.stem != "languages")
    assert files == sorted(LANGUAGES)


def test_every_language_has_every_text_and_every_plural_form() -> None:
    tables = catalogues()
    english_plain, english_plural = base_keys(tables["en"])
    assert len(english_plain) > 100 and english_plural
    assert not english_plain & english_plural, "a key both plain and plural"
    for lang, table in tables.items():
        plain, plural = base_keys(table)
        assert plain == english_plain, (lang, english_plain - plain, plain - english_plain)
        assert plural == english_plural, (lang, english_plural ^ plural)
        for key in plural:
            forms = {k.rsplit("_", 1)[1] for k in table if PLURAL_SUFFIX.sub("", k) == key}
            assert forms == PLURAL_CATEGORIES[lang], (lang, key, forms)
        for key, text in table.items():
            assert text.strip(), (lang, key)
            # The same placeholders as English (a plural form may leave out `count`).
            english = tables["en"].get(key) or tables["en"][PLURAL_SUFFIX.sub("", key) + "_other"]
            wanted = set(re.findall(r"\{\{(\w+)\}\}", english))
            found = set(re.findall(r"\{\{(\w+)\}\}", text))
            assert found <= wanted and wanted - found <= {"count"}, (lang, key, text)
            assert not re.search(r"(?<!\{)\{\w+\}(?!\})", text), (lang, key, "single braces")


def test_no_message_lives_in_a_script() -> None:
    """The catalogues are the only home of the words: i18n.js holds no table."""
    text = source("i18n.js")
    assert "card.joker" not in text and "Spades" not in text


def help_catalogue(lang: str) -> dict[str, str]:
    """One language's words of the rules pages (web/i18n/help/, loaded on demand)."""
    data = json.loads((WEB / "i18n" / "help" / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict) and all(isinstance(v, str) for v in data.values()), lang
    return data


def test_the_rules_pages_have_every_text_in_every_language() -> None:
    english = help_catalogue("en")
    assert english and all(k.startswith("help.") for k in english)
    assert not set(english) & set(catalogue("en")), "a key in both catalogues"
    for lang in LANGUAGES:
        table = help_catalogue(lang)
        assert set(table) == set(english), (lang, set(english) ^ set(table))
        for key, text in table.items():
            assert text.strip(), (lang, key)
            wanted = set(re.findall(r"\{\{(\w+)\}\}", english[key]))
            assert set(re.findall(r"\{\{(\w+)\}\}", text)) == wanted, (lang, key, text)


def test_every_text_the_scripts_ask_for_exists() -> None:
    plain, plural = base_keys(catalogue("en"))
    english = plain | plural | set(help_catalogue("en"))
    used: set[str] = set()
    for path in SCRIPTS:
        used |= set(re.findall(r"""\bt\(\s*["']([^"']+)["']""", path.read_text("utf-8")))
    assert used, "no t() calls found"
    assert used <= english, used - english
    # Keys built at run time: every protocol error code, point, rank, suit and game.
    dynamic = (
        [f"err.{c}" for c in ("not_your_turn", "illegal", "forbidden", "rate_limited")]
        + ["err.bad_message"]
        + [f"point.{p}" for p in ("high", "low", "right", "left", "jack", "joker", "game")]
        + ["point.joker1", "point.joker2"]
        + [f"point.{p}.help" for p in ("high", "low", "right", "left", "jack", "joker", "game")]
        + ["point.joker1.help", "point.joker2.help"]
        + [f"rank.{r}" for r in "23456789TJQKA"]
        + [f"suit.{s}" for s in "SHDC"]
        + [f"suit_of.{s}" for s in "SHDC"]
        + [f"variant.{v}" for v in ("schmier6", "schmier5", "wisconsin4")]
        + [f"variant.{v}.about" for v in ("schmier6", "schmier5", "wisconsin4")]
    )
    assert set(dynamic) <= english, set(dynamic) - english


@pytest.mark.parametrize("path", sorted(WEB.glob("*.css")), ids=lambda p: p.name)
def test_every_stylesheet_closes_each_rule_it_opens(path: Path) -> None:
    """A rule left open swallows every rule after it (Chromium reads them as nested in
    it, and they apply nowhere): the coach's last rule once did that to review
    together's and the tables' styles, and no browser test saw it fail."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r'"[^"\n]*"|\'[^\'\n]*\'', '""', text)
    depth = 0
    for line_number, line in enumerate(text.splitlines(), start=1):
        if re.match(r"[.#a-z*:\[@]", line) and "{" in line:
            # A rule written at the start of a line is one of the file's own: the one
            # before it must be closed (those inside an @media block are indented).
            assert depth == 0, f"{path.name}:{line_number}: a rule starts inside another"
        for char in line:
            depth += {"{": 1, "}": -1}.get(char, 0)
            assert depth >= 0, f"{path.name}:{line_number}: a brace closes nothing"
    assert depth == 0, f"{path.name}: {depth} rule(s) never closed"
