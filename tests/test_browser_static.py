"""Static checks of web/: what the browser tests cannot see on every code path.

The browser tests catch a CSP violation or an untranslated key only on the paths they
happen to run; these checks read the sources, so a forbidden construct or a missing
translation fails even where no test clicks.
"""

from __future__ import annotations

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
    for path in [WEB / "index.html", WEB / "style.css", *SCRIPTS]:
        text = path.read_text(encoding="utf-8")
        outside = re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[/\w.-]*", text)
        allowed = {"//www.w3.org/2000/svg", "http://www.w3.org/2000/svg"}
        assert set(outside) <= allowed, f"{path.name} refers to {set(outside) - allowed}"
        assert "@import" not in text


def language_tables() -> dict[str, set[str]]:
    """The keys of each language's table in i18n.js."""
    text = source("i18n.js")
    tables: dict[str, set[str]] = {}
    for lang in LANGUAGES:
        block = re.search(rf"^const {lang} = \{{\n(.*?)^\}};", text, re.S | re.M)
        assert block, f"no table for {lang}"
        keys = re.findall(r'^  (?:"([^"]+)"|(\w+)):', block.group(1), re.M)
        tables[lang] = {quoted or bare for quoted, bare in keys}
    return tables


def test_every_language_has_every_text() -> None:
    tables = language_tables()
    english = tables["en"]
    assert len(english) > 100
    for lang, keys in tables.items():
        assert keys == english, (lang, english - keys, keys - english)


def test_every_text_the_scripts_ask_for_exists() -> None:
    english = language_tables()["en"]
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
        + [f"rank.{r}" for r in "23456789TJQKA"]
        + [f"suit.{s}" for s in "SHDC"]
        + [f"suit_of.{s}" for s in "SHDC"]
        + [f"variant.{v}" for v in ("schmier6", "schmier5", "wisconsin4")]
        + [f"variant.{v}.about" for v in ("schmier6", "schmier5", "wisconsin4")]
    )
    assert set(dynamic) <= english, set(dynamic) - english
