"""The structure checks of docs/architecture.md ("Structure checks"), run on the
repository, and shown to catch what they look for on a small tree made to break them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TOOL = REPO / "tools" / "structure.py"


def structure(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), str(repo)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_repository_keeps_its_structure() -> None:
    done = structure(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("0 shortfalls"), done.stdout


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_each_shortfall_is_found(tmp_path: Path) -> None:
    """A circle seen only by the type checker, one through a function-level import and
    through a package's face, a file one line too long in the package and in the tools,
    a long script, and variant names compared in Python and JavaScript (allowed in the
    variant data and the translations only)."""
    pkg = tmp_path / "schmier"
    write(pkg / "__init__.py", "")
    write(
        pkg / "a.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from schmier.b import B\n",
    )
    write(pkg / "b.py", "from . import a\nB = 1\n")
    write(pkg / "rooms" / "__init__.py", "from .table import Table\n")
    write(pkg / "rooms" / "table.py", "def f():\n    from schmier.c import g\nTable = 1\n")
    write(pkg / "c.py", "from schmier.rooms import Table\ndef g(): pass\n")
    write(pkg / "long.py", "x = 1\n" * 451)
    write(pkg / "fine.py", "x = 1\n" * 450)
    write(pkg / "engine" / "__init__.py", "")
    write(pkg / "engine" / "variants.py", 'SIX = "schmier6"\nOK = SIX == "schmier6"\n')
    write(pkg / "engine" / "bidding.py", 'def f(v):\n    return v in ("wisconsin4", "x")\n')
    write(
        pkg / "engine" / "play.py",
        'def f(v):\n    match v:\n        case "schmier5":\n            pass\n',
    )
    write(tmp_path / "bench" / "__init__.py", "")
    write(tmp_path / "bench" / "tool.py", "x = 1\n" * 451)
    write(tmp_path / "web" / "app.js", 'if (view.variant === "schmier5") {}\n')
    write(tmp_path / "web" / "big.js", "let x;\n" * 451)
    write(tmp_path / "web" / "i18n" / "en.js", 'const x = v == "schmier6";\n')

    done = structure(tmp_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[-1] == "structure: 14 modules (schmier/, bench/), 8 shortfalls", done.stdout
    assert sorted(lines[:-1]) == sorted(
        [
            "- import circle: schmier.a <-> schmier.b",
            "- import circle: schmier.c <-> schmier.rooms.table",
            "- schmier/long.py: 451 lines (> 450)",
            "- bench/tool.py: 451 lines (> 450)",
            "- web/big.js: 451 lines (> 450)",
            "- schmier/engine/bidding.py:2: compares against a variant name",
            "- schmier/engine/play.py:3: compares against a variant name",
            "- web/app.js:1: compares against a variant name",
        ]
    )
