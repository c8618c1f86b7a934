"""The order in which the suite's worker processes take its files.

A browser test cannot run while the network lock is held exclusively
(`tests/support/netlock.py`): a worker that draws one then sits idle. The container
module holds it for its minutes, and a worker's first fault test holds it while it makes
the worker's uplink to its networks (and the worker's end while it removes it). So:

- every file with a test that asks for the `podman`, `network` or `uplink` fixture is
  one unit of work, handed out first: one worker runs them one after another (the
  container module first), and makes one uplink for all of them;
- the files that need neither a browser nor the lock come next, so the other workers
  have work that runs beside the container module;
- the browser files come last, by when the container module is done; they run beside
  the fault tests, whose hosts the root namespace never sees.

Within each class, the files marked `long` (a module's `pytestmark`: minutes of tests)
go first, so that no worker starts one when the others are nearly done.

The classes are known only once a test's fixtures are: each worker writes what its
collection found to a file the controller named (`pytest_configure_node`), and the
scheduler reads it when it makes the units, after every worker has collected.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

NETWORK, PLAIN, BROWSER = 0, 1, 2
# The fixtures by which a test is known to hold the network lock, or to browse.
LOCK_FIXTURES = frozenset({"network", "podman", "uplink"})
BROWSER_FIXTURES = frozenset({"browser"})
# The one unit of work that holds every file of the lock's tests.
NETWORK_UNIT = "network lock holders"
WORKER_KEY = "schmier_schedule"
CLASSES_FILE = pytest.StashKey[Path]()


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def classes(items: list[pytest.Item]) -> dict[str, int]:
    """Each file's class: NETWORK if any of its tests may take the lock exclusively,
    else BROWSER if any browses, else PLAIN."""
    found: dict[str, int] = {}
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        kind = NETWORK if names & LOCK_FIXTURES else BROWSER if names & BROWSER_FIXTURES else PLAIN
        path = file_of(item.nodeid)
        before = found.get(path, PLAIN)
        found[path] = NETWORK if NETWORK in (kind, before) else max(kind, before)
    return found


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Network files first, browser files last, the long ones first within each class
    (otherwise in collection order); a worker also tells the controller the classes."""
    found = classes(items)
    long = {file_of(item.nodeid) for item in items if item.get_closest_marker("long")}
    items.sort(key=lambda item: (found[file_of(item.nodeid)], file_of(item.nodeid) not in long))
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    target = workerinput.get(WORKER_KEY) if workerinput else None
    if target:
        # Every worker collects the same tests: whichever writes last writes the same.
        part = Path(f"{target}.{os.getpid()}")
        part.write_text(json.dumps(found))
        part.replace(target)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """The file each worker writes its collection's classes to (xdist's controller)."""
    config: pytest.Config = node.config
    if CLASSES_FILE not in config.stash:
        folder = Path(tempfile.mkdtemp(prefix="schmier-schedule-"))
        config.stash[CLASSES_FILE] = folder / "classes.json"
        config.add_cleanup(lambda: _remove(folder))
    node.workerinput[WORKER_KEY] = str(config.stash[CLASSES_FILE])


def _remove(folder: Path) -> None:
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Files as units, as `--dist loadfile` hands them out, in the order above."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LockAwareScheduling(LoadFileScheduling):
        """`loadfile` with the lock's files in one unit, taken in collection order."""

        def __init__(self, config: pytest.Config, log: Any) -> None:
            super().__init__(config, log)
            # The units in the order the workers collected them (above), not by size.
            config.option.loadscopereorder = False
            self._classes: dict[str, int] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self._classes is None:
                source = config.stash.get(CLASSES_FILE, None)
                self._classes = json.loads(source.read_text()) if source and source.exists() else {}
            path = file_of(nodeid)
            return NETWORK_UNIT if self._classes.get(path) == NETWORK else path

    return LockAwareScheduling(config, log)
