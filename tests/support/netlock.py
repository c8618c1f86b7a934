"""Browsers and network namespaces apart, across the suite's worker processes.

A worker's uplink to its fault tests' networks (tests/support/netns.py) and podman's
containers (tests/test_container.py) put bridges and veth ends into the root namespace
and take them out again. Chromium watches the machine's links and addresses, takes such
a change for the network changing, and aborts every load and socket it has in flight
(`net::ERR_NETWORK_CHANGED`): a browser test running at that moment fails for nothing it
did. So each browser test holds the lock shared, and the making and removing of an
uplink and the whole container module the lock exclusive, on a file every worker process
opens (`fcntl.flock`). A fault test's own hosts are made inside namespaces and need no
lock: browser tests run beside it.

A waiting network goes first: it holds the turnstile while it waits, and a browser test
passes the turnstile before it takes its shared lock, so a stream of browser tests on
the other workers cannot keep a network waiting until its test's time is up.
"""

from __future__ import annotations

import fcntl
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

LOCK = Path(tempfile.gettempdir()) / "schmier-tests-network.lock"
TURNSTILE = Path(tempfile.gettempdir()) / "schmier-tests-network.turnstile"


@contextmanager
def _held(shared: bool) -> Iterator[None]:
    """The lock, shared or exclusive, taken through the turnstile (held exclusive by a
    waiting network, so that no browser test passes it meanwhile)."""
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    with LOCK.open("a+") as handle, TURNSTILE.open("a+") as turnstile:
        fcntl.flock(turnstile, mode)
        try:
            fcntl.flock(handle, mode)
        finally:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def browsing() -> AbstractContextManager[None]:
    """Held by a browser test: no network is made or removed meanwhile."""
    return _held(shared=True)


def plumbing() -> AbstractContextManager[None]:
    """Held while a network exists: no browser test runs meanwhile."""
    return _held(shared=False)
