"""No private (underscore) attribute of asyncio, uvicorn, Starlette or websockets in
schmier/: what a library keeps private may change in any release, and a socket path
built on it breaks with the upgrade, not with a test.

The check reads the libraries' own sources for every private name they define or use
(`_asyncio_future_blocking`, `_loop`, `_ready`, ...), then every module of schmier/ for
uses of those names that are not Schmier's own: an attribute read or set on anything
but Schmier's own members, an import of a private name from one of the libraries, an
attribute of one of the libraries' modules, a `getattr`-style look-up by name. What
Schmier uses of uvicorn below ASGI is public-named and pinned by
tests/test_uvicorn_contract.py.
"""

from __future__ import annotations

import ast
import importlib.util
from functools import cache
from pathlib import Path

LIBRARIES = ("asyncio", "uvicorn", "starlette", "websockets")
ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "schmier"
LOOKUPS = {"getattr", "setattr", "hasattr", "delattr"}


NAMEDTUPLE = {"_replace", "_asdict", "_fields", "_field_defaults", "_make"}
"""A named tuple's documented methods: public, though spelt with an underscore so as not
to clash with its fields (the libraries use them on their own named tuples too)."""


def private(name: str) -> bool:
    dunder = name.startswith("__") and name.endswith("__")
    return name.startswith("_") and not dunder and name not in NAMEDTUPLE


def _names(tree: ast.AST) -> set[str]:
    """Every private name a module defines or uses."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.alias):
            found.add(node.asname or node.name.rsplit(".", 1)[-1])
    return {name for name in found if private(name)}


@cache
def library_private_names() -> dict[str, frozenset[str]]:
    """Each library's private names, read from its installed sources."""
    names: dict[str, frozenset[str]] = {}
    for library in LIBRARIES:
        spec = importlib.util.find_spec(library)
        assert spec is not None and spec.origin is not None, library
        found: set[str] = set()
        for path in sorted(Path(spec.origin).parent.rglob("*.py")):
            found |= _names(ast.parse(path.read_bytes(), str(path)))
        names[library] = frozenset(found)
    return names


def own_names(trees: list[ast.AST]) -> set[str]:
    """The private members Schmier defines itself: functions and classes, names bound
    in a class body or a module, attributes assigned on `self`, `__slots__` entries."""
    own: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                own.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id in {"self", "cls"}
            ):
                own.add(node.attr)
            elif isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "__slots__" for target in node.targets
            ):
                own |= {
                    item.value
                    for item in ast.walk(node.value)
                    if isinstance(item, ast.Constant) and isinstance(item.value, str)
                }
    return {name for name in own if private(name)}


def _library_modules(tree: ast.AST) -> set[str]:
    """The local names under which a module imported one of the libraries' modules."""
    local: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in LIBRARIES:
                    local.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in LIBRARIES:
            local |= {alias.asname or alias.name for alias in node.names}
    return local


def private_uses(source: str, own: set[str], where: str = "<source>") -> list[str]:
    """Each use in `source` of a private name of the libraries (see the module)."""
    theirs = frozenset().union(*library_private_names().values())
    tree = ast.parse(source, where)
    modules = _library_modules(tree)
    uses: list[str] = []
    for node in ast.walk(tree):
        line = f"{where}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in LIBRARIES:
            uses += [
                f"{line}: from {node.module} import {a.name}" for a in node.names if private(a.name)
            ]
            if any(private(part) for part in (node.module or "").split(".")):
                uses.append(f"{line}: from {node.module} import ...")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] in LIBRARIES and any(private(part) for part in parts):
                    uses.append(f"{line}: import {alias.name}")
        elif isinstance(node, ast.Attribute) and private(node.attr):
            of_module = isinstance(node.value, ast.Name) and node.value.id in modules
            if of_module or (node.attr in theirs and node.attr not in own):
                uses.append(f"{line}: .{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in LOOKUPS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and node.args[1].value in theirs
            and node.args[1].value not in own
        ):
            uses.append(f"{line}: {node.func.id}(..., {node.args[1].value!r})")
    return uses


def _package() -> list[tuple[str, str]]:
    return [
        (str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def _own() -> set[str]:
    return own_names([ast.parse(source) for _, source in _package()])


def test_the_libraries_private_names_are_read() -> None:
    names = library_private_names()
    assert all(names[library] for library in LIBRARIES)
    assert "_asyncio_future_blocking" in names["asyncio"]
    assert "_loop" in names["asyncio"]


def test_schmier_uses_no_private_attribute_of_asyncio_uvicorn_starlette_or_websockets() -> None:
    own = _own()
    uses = [use for where, source in _package() for use in private_uses(source, own, where)]
    assert uses == []


def test_the_check_finds_each_kind_of_private_use() -> None:
    """What `api/ws.py` once did, and the other ways in, are each found."""
    own = _own()
    cases = {
        "awaited._asyncio_future_blocking = False": "._asyncio_future_blocking",
        "flag = future._asyncio_future_blocking": "._asyncio_future_blocking",
        "from asyncio.futures import _chain_future": "import _chain_future",
        "import asyncio\nasyncio._get_running_loop()": "._get_running_loop",
        "from uvicorn.protocols import utils\nutils._anything": "._anything",
        "import asyncio.base_events as ev\nev._run_until_complete_cb": "._run_until_complete_cb",
        "blocking = getattr(f, '_asyncio_future_blocking')": "getattr(",
        "import websockets._private_module": "import websockets._private_module",
    }
    for source, expected in cases.items():
        uses = private_uses(source, own)
        assert len(uses) == 1 and expected in uses[0], (source, uses)
    # Schmier's own members, the same name as a library's, are Schmier's business.
    assert private_uses("self._loop = 1\nself._loop.time()", own) == []
