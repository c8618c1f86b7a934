"""The repository stands on its own: a fresh clone is all a contributor has.

No tracked file names a document or a path outside the repository (the rules, the wire
contract and the design live in docs/rules.md, docs/protocol.md and
docs/architecture.md), and every relative link of the Markdown docs leads to a file of
the repository, and to a heading of it where it names one.
"""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

OUTSIDE = re.compile(
    r"\.\./shared"  # the folder beside the checkout that the docs once cited
    r"|\b(RULES|PROTOCOL|DESIGN)\.md\b"  # the documents that lived there
    r"|(?<![\w.])/(work|root|home)/"  # a path of one machine
)
"""What a file of the repository must not mention."""

ALLOWED = {
    # A path inside the root file system of the image that tools/container-bases
    # builds, not one of this machine.
    "tools/container-bases": ('"$root"/root/',),
}

THIS = "tests/test_self_contained.py"
"""This file, which spells out what it looks for (and is checked below to find it)."""

SKIPPED_SUFFIXES = {".png", ".ico", ".jpg", ".jpeg", ".gif", ".webp", ".woff", ".woff2", ".ogg"}


def repository_files() -> list[str]:
    """The files of the repository: tracked ones and new ones not ignored (git), or,
    outside a git checkout, every file but the caches."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "__pycache__", ".ci", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
        listed = [
            str(p.relative_to(REPO))
            for p in REPO.rglob("*")
            if p.is_file() and not skip & set(p.relative_to(REPO).parts)
        ]
    return sorted(f for f in listed if (REPO / f).is_file())


def test_no_file_refers_outside_the_repository() -> None:
    found = []
    files = repository_files()
    assert "docs/protocol.md" in files and "CHANGELOG.md" in files
    for name in files:
        if Path(name).suffix.lower() in SKIPPED_SUFFIXES or name in (THIS, "uv.lock"):
            continue
        data = (REPO / name).read_bytes()
        if b"\0" in data:
            continue
        text = data.decode("utf-8", errors="replace")
        for allowed in ALLOWED.get(name, ()):
            text = text.replace(allowed, "")
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{name}:{number}: {line.strip()}")
    assert not found, "references outside the repository:\n" + "\n".join(found)


def test_the_check_sees_what_it_looks_for() -> None:
    for line in (
        "see ../shared/tools/structure.py",
        "as in RULES.md, step 4",
        "the contract (PROTOCOL.md)",
        "DESIGN.md says",
        "sys.path.insert(0, '/work/main')",
        "cd /root/schmier",
        "`/home/me/schmier`",
    ):
        assert OUTSIDE.search(line), line
    for line in ("docs/rules.md", "python -m bench.load", "/opt/schmier/bin/python"):
        assert not OUTSIDE.search(line), line


# ------------------------------------------------------------------ links


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_files() -> list[Path]:
    return sorted(REPO / f for f in repository_files() if f.endswith(".md"))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, only letters, marks, digits,
    underscores, spaces and hyphens kept, spaces made hyphens."""
    kept = "".join(
        c for c in heading.strip().lower() if c in " -_" or unicodedata.category(c)[0] in "LMN"
    )
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings (repeated ones numbered as GitHub does)."""
    seen: dict[str, int] = {}
    out = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or not line.startswith("#"):
            continue
        base = slug(line.lstrip("#"))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def links(path: Path) -> list[tuple[int, str]]:
    """Every link target of a Markdown file outside code blocks, with its line."""
    out = []
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        line = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        out += [(number, m.group(1)) for m in LINK.finditer(line)]
    return out


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(path: Path) -> None:
    broken = []
    for number, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue  # http:, https:, mailto: and the like
        file_part, _, anchor = target.partition("#")
        goal = (path.parent / file_part).resolve() if file_part else path
        if not goal.exists() or REPO not in (goal, *goal.parents):
            broken.append(f"{number}: {target} (no such file in the repository)")
        elif anchor and goal.suffix == ".md" and anchor not in anchors(goal):
            broken.append(f"{number}: {target} (no heading #{anchor})")
    assert not broken, f"{path.relative_to(REPO)}:\n" + "\n".join(broken)


def test_anchors_are_githubs() -> None:
    assert slug(" Failover time, measured") == "failover-time-measured"
    assert slug("`strong`: determinized search") == "strong-determinized-search"
    assert slug("300 rooms × 6, think 1 s") == "300-rooms--6-think-1-s"
    assert slug("The room's history") == "the-rooms-history"
