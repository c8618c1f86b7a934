"""Player names: what a name may be, and when two names look alike.

A name is shown to everybody at a table, so it must show something, show it plainly,
and not pass for somebody else's:

- **Normalised** (NFKC): a name typed with compatibility characters (full-width
  letters, ligatures, the Hangul filler) is the name a reader sees.
- **Nothing invisible**: control, format, private-use and unassigned characters are
  dropped, and so are the default-ignorable characters that are letters or marks
  (U+3164 HANGUL FILLER and its kin, the Mongolian and Khmer ones, the combining grapheme
  joiner); U+2800 BRAILLE PATTERN BLANK counts as a space. Whitespace is collapsed and
  trimmed. A name with nothing visible left (blanks, format characters or marks alone,
  variation selectors alone) is refused.
- **Marks capped**: at most `MARKS_PER_LETTER` combining marks on one letter (enough for
  Vietnamese, Hebrew points, Indic vowel signs; not for "Zalgo" text, whose marks pile
  up over other players' names); a mark with no letter before it is dropped.
- **No look-alikes at a table**: two names whose Unicode TR39 skeletons (the Unicode
  confusables data, case folded; `disarm.skeleton_key`) are equal look alike (Cyrillic
  "Аlice" and Latin "Alice", "Ian" and "lan", "ALICE" and "alice"), and a join under a
  name that looks like one at the table is refused (`look_alike`). docs/security.md says
  why that library.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from disarm import skeleton_key

from schmier.protocol.vocabulary import NAME_MAX

MARKS_PER_LETTER = 3
"""Combining marks one letter may carry."""

INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u3164\uffa0")
"""Default-ignorable code points (Unicode's DerivedCoreProperties) that are not in a
"C" category, so the rule for those misses them: they render as nothing. Variation
selectors (U+FE00..FE0F, U+E0100..E01EF) are default-ignorable too, but choose how the
character before them looks (an emoji's colour): they are kept, as marks."""

BLANKS = frozenset("\u2800")
"""Graphic characters that render as an empty cell: counted as a space."""


def _kept(ch: str) -> bool:
    return not unicodedata.category(ch).startswith("C") and ch not in INVISIBLE


def _marks_capped(text: str) -> str:
    """`text` without the marks that follow no letter; ValueError past the cap."""
    out: list[str] = []
    marks = 0
    base = False
    for ch in text:
        if unicodedata.category(ch).startswith("M"):
            if not base:
                continue
            marks += 1
            if marks > MARKS_PER_LETTER:
                raise ValueError(f"a letter may carry at most {MARKS_PER_LETTER} marks")
        else:
            base = not ch.isspace()
            marks = 0
        out.append(ch)
    return "".join(out)


def clean_name(raw: str) -> str:
    """A player name made safe to show (see the module's rules).

    Raises ValueError unless 1 to `NAME_MAX` characters remain with something visible,
    so a name can never carry an invisible or layout-breaking character, or pile marks,
    onto other players' screens."""
    text = unicodedata.normalize("NFKC", raw)
    text = "".join(" " if ch in BLANKS else ch for ch in text if _kept(ch))
    # A dropped character may have kept a letter and its mark apart: compose them now.
    text = unicodedata.normalize("NFC", text)
    name = " ".join(_marks_capped(" ".join(text.split())).split())
    if not name:
        raise ValueError("a name must show something: it has no visible character")
    if len(name) > NAME_MAX:
        raise ValueError(f"a name is 1 to {NAME_MAX} printable characters")
    if not name.isprintable():
        raise ValueError("a name must be printable")
    return name


def _keys(name: str) -> set[str]:
    """The skeletons `name` may be read as: as written, and case folded first (the
    skeleton folds confusables before case, so that "I" and "l" meet, which leaves
    "ALICE" apart from "Alice" unless the case is folded first too)."""
    return {
        skeleton_key(name, digit_policy="tr39"),
        skeleton_key(name.casefold(), digit_policy="tr39"),
    }


def look_alike(name: str, others: Iterable[str]) -> str | None:
    """The first of `others` that `name` looks like (a TR39 skeleton in common, with
    digits that look like letters read as those letters), or None."""
    keys = _keys(name)
    for other in others:
        if keys & _keys(other):
            return other
    return None
