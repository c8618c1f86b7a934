"""The structure checks of docs/architecture.md, read from the source text alone.

    python tools/structure.py [REPO] [--package schmier] [--tools bench]
                              [--max-py 450] [--max-js 450]

Checked, each shortfall printed on a line of its own and a summary last (exit status 1
when there is any; `tests/test_structure.py` runs it, so CI does):

- **no import circle** between the modules of the package (`schmier/`) or of the tools
  (`bench/`), counting every import: at the top, inside functions, and under
  `if TYPE_CHECKING:` (a circle that only the type checker sees is still two modules
  that cannot be understood apart). A package's `__init__` importing its own
  submodules is not a circle; an import of a name that a package's `__init__` hands on
  counts as an import of the submodule the name comes from;
- **no file over 450 lines** in the package, the tools and the web client (`web/*.js`,
  the translations apart);
- **no comparison with a variant's name** (`== "schmier5"`, `in ("wisconsin4", ...)`,
  `case "schmier6":`) anywhere in the package but the variant data
  (`schmier/engine/variants.py`), nor in the web client: code asks a variant's flags or
  its rule book, so that a new game is data, not a hunt through `if`s.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

VARIANT_NAMES = ("schmier6", "schmier5", "wisconsin4")
_NAME = "|".join(VARIANT_NAMES)
VARIANT_COMPARISON = re.compile(
    rf"""(===|!==|==|!=)\s*['"]({_NAME})['"]"""
    rf"""|['"]({_NAME})['"]\s*(===|!==|==|!=)"""
    rf"""|\bin\s*[\(\[\{{]\s*['"]({_NAME})['"]"""
    rf"""|\bcase\s+['"]({_NAME})['"]"""
)
"""A comparison with a variant's name, in Python or JavaScript."""

VARIANT_DATA = "engine/variants.py"
"""Where, inside the package, the variants are defined by name (and may be compared)."""


def modules(pkg_dir: Path) -> dict[str, Path]:
    """Every module of the package under `pkg_dir`, by dotted name."""
    out = {}
    for f in sorted(pkg_dir.rglob("*.py")):
        if "__pycache__" in f.parts:
            continue
        parts = list(f.relative_to(pkg_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


def reexports(init: Path, pkg: str) -> dict[str, str]:
    """The names a package's `__init__` hands on, and the submodule each comes from."""
    out: dict[str, str] = {}
    for node in ast.walk(ast.parse(init.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                mod = pkg + ("." + node.module if node.module else "")
            if mod.startswith(pkg + "."):
                for alias in node.names:
                    out[alias.asname or alias.name] = mod
    return out


def imports_of(
    name: str, path: Path, known: set[str], faces: dict[str, dict[str, str]]
) -> set[str]:
    """The modules of `known` that module `name` imports, wherever the import stands."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(filter(None, (resolve(a.name, known) for a in node.names)))
        elif isinstance(node, ast.ImportFrom):
            found.update(imported_from(node, base, name, known, faces))
    found.discard(name)
    return found


def resolve(mod: str, known: set[str]) -> str | None:
    """The module of `known` that the dotted name `mod` lies in, if any."""
    while mod and mod not in known:
        mod = mod.rpartition(".")[0]
    return mod or None


def imported_from(
    node: ast.ImportFrom,
    base: list[str],
    name: str,
    known: set[str],
    faces: dict[str, dict[str, str]],
) -> set[str]:
    """The modules a `from ... import ...` in module `name` (in package `base`) reaches."""
    if node.level:
        anchor = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        mod = ".".join(anchor + ([node.module] if node.module else []))
    else:
        mod = node.module or ""
    found = set()
    for alias in node.names:
        face = faces.get(mod, {})
        if alias.name in face and face[alias.name] in known:
            found.add(face[alias.name])  # through a package's face
            continue
        hit = resolve(f"{mod}.{alias.name}", known) if mod else None
        if not hit or hit == name:
            hit = resolve(mod, known)
        if hit:
            found.add(hit)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = stack[stack.index(v) :]
            del stack[stack.index(v) :]
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def circles(pkg_dir: Path) -> Iterator[str]:
    """Every import circle among the modules under `pkg_dir`."""
    mods = modules(pkg_dir)
    known = set(mods)
    faces = {m: reexports(p, m) for m, p in mods.items() if p.name == "__init__.py"}
    graph = {m: imports_of(m, p, known, faces) for m, p in mods.items()}
    for m, deps in graph.items():
        if mods[m].name == "__init__.py":
            # A package's __init__ importing its own submodules is not a circle.
            graph[m] = {d for d in deps if not d.startswith(m + ".")}
    for circle in cycles(graph):
        yield "import circle: " + " <-> ".join(circle)


def line_count(path: Path) -> int:
    with path.open(encoding="utf-8") as f:
        return sum(1 for _ in f)


def check(repo: Path, package: str, tools: str, max_py: int, max_js: int) -> tuple[int, list[str]]:
    """(how many modules were read, every shortfall found)."""
    fails: list[str] = []
    pkg_dir = repo / package
    if not pkg_dir.is_dir():
        return 0, [f"no package directory {package}/"]
    dirs = [pkg_dir] + ([repo / tools] if (repo / tools).is_dir() else [])
    count = 0
    for d in dirs:
        count += len(modules(d))
        fails += circles(d)
        for path in sorted(p for p in d.rglob("*.py") if "__pycache__" not in p.parts):
            n = line_count(path)
            if n > max_py:
                fails.append(f"{path.relative_to(repo)}: {n} lines (> {max_py})")
    data = pkg_dir / VARIANT_DATA
    sources = [p for p in sorted(pkg_dir.rglob("*.py")) if p != data]
    web = repo / "web"
    scripts = [
        p for p in sorted(web.rglob("*.js")) if "i18n" not in p.parts and "i18n" not in p.name
    ]
    for path in scripts:
        n = line_count(path)
        if n > max_js:
            fails.append(f"{path.relative_to(repo)}: {n} lines (> {max_js})")
    for path in sources + scripts:
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if VARIANT_COMPARISON.search(line):
                fails.append(f"{path.relative_to(repo)}:{i}: compares against a variant name")
    return count, fails


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("repo", nargs="?", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--package", default="schmier")
    parser.add_argument("--tools", default="bench")
    parser.add_argument("--max-py", type=int, default=450)
    parser.add_argument("--max-js", type=int, default=450)
    args = parser.parse_args(argv)
    count, fails = check(Path(args.repo), args.package, args.tools, args.max_py, args.max_js)
    for fail in fails:
        print("-", fail)
    print(f"structure: {count} modules ({args.package}/, {args.tools}/), {len(fails)} shortfalls")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
