"""Garbage collection on the server's own schedule instead of CPython's.

Why: CPython (3.11) starts a collection when allocations outnumber deallocations by
700, and decides by ratios when to walk the whole heap. In a loaded server both go
badly. Every action replaces a room's state; the replaced state dies by reference
count, which *lowers* the allocation count, so the young generation grows to 20,000
objects or more before a collection starts, and that collection stops the event loop
for 10-20 ms (measured at 300 rooms x 6 seats). A full collection walks everything the
server holds, some 400,000 objects at that size (most of them the per-connection
ASGI machinery), and stops the loop for 150-300 ms: every player whose card arrives
during it waits. Measured with `bench/load.py`, see docs/performance.md.

So the server collects the young generation itself, every `step` seconds (what was
allocated since the last step and is still alive: a few thousand objects, a few
milliseconds at 1,000 tables), and right after each collection freezes everything alive
(`gc.freeze()`, which costs nothing: it moves lists). An object that lives through one
collection (a socket, a room, a room's current state, a suspended coroutine) thus leaves
the collector's sight and is never walked again by a routine collection; it is still
freed by reference counting the moment nothing holds it, which is how almost everything
in the server dies (a replaced state, a closed socket's buffers). Measured in the loaded
server with `gc.callbacks` (thread CPU time, docs/performance.md): walking the old
generation once a minute, as this collector did before, cost one pause of the size of
everything that had arrived meanwhile (222 ms at 300 tables in the minute their sockets
connected, 570 ms at 1,000, 20-45 ms a minute in steady play), and collecting the middle
generation, which held a few steps' survivors, 15-85 ms at 1,000 tables. Steady play
makes almost no cyclic garbage (most young collections free nothing).

Cyclic garbage among frozen objects (the call chain of a socket that closed, say) is
reclaimed only by a full collection, the one pause whose cost grows with the server's
size; it runs every `full` seconds, is timed and exported like the others
(`schmier_gc_pause_seconds`), and logged as `gc.full` with what it freed. With `full` =
0 nothing is ever frozen (frozen cycles would never be freed), so the old generation is
walked once a minute, as CPython would.

The collector is process-wide: the first server started in a process takes over from
CPython's automatic collection, the last one stopped restores what it found.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time

from prometheus_client import Histogram

from schmier.logs import event

SETTLE_SECONDS = 60.0
"""Without freezing (`full` = 0): how often the old generation is collected."""

MIDDLE_EVERY = 4
"""Without freezing: young-generation steps per middle-generation collection."""

_running = 0
"""Collectors started in this process and not yet stopped (servers may run in threads)."""
_lock = threading.Lock()
_was_enabled = True
"""Whether CPython's automatic collection was on when the first collector started."""


class Collector:
    """Runs this process's garbage collection while at least one server runs."""

    def __init__(self, step: float, full: float, pauses: Histogram) -> None:
        self._step = step
        self._full = full
        self._pauses = pauses
        self._task: asyncio.Task[None] | None = None

    @property
    def enabled(self) -> bool:
        return self._step > 0

    def start(self) -> None:
        """Take over from the automatic collector (no-op when `step` is 0)."""
        global _running, _was_enabled
        if not self.enabled or self._task is not None:
            return
        with _lock:
            if _running == 0:
                _was_enabled = gc.isenabled()
                gc.collect()
                if self._full > 0:
                    gc.freeze()
                gc.disable()
            _running += 1
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def aclose(self) -> None:
        """Stop; the last collector stopped restores the collection state it found."""
        global _running
        if self._task is None:
            return
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        self._task = None
        with _lock:
            _running -= 1
            if _running == 0:
                gc.unfreeze()
                if _was_enabled:
                    gc.enable()

    def _collect(self, generation: int) -> int:
        started = time.perf_counter()
        freed = gc.collect(generation)
        self._pauses.labels(str(generation)).observe(time.perf_counter() - started)
        return freed

    def _full_collection(self) -> None:
        started = time.perf_counter()
        gc.unfreeze()
        freed = self._collect(2)
        gc.freeze()
        event(
            "gc.full",
            ms=round(1000 * (time.perf_counter() - started), 1),
            freed=freed,
            frozen=gc.get_freeze_count(),
        )

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        steps = 0
        freezing = self._full > 0
        next_settle = loop.time() + SETTLE_SECONDS
        next_full = loop.time() + self._full
        while True:
            await asyncio.sleep(self._step)
            steps += 1
            now = loop.time()
            if freezing and now >= next_full:
                self._full_collection()
                next_full = now + self._full
            elif not freezing and now >= next_settle:
                self._collect(2)
                next_settle = now + SETTLE_SECONDS
            elif freezing:
                self._collect(0)
                gc.freeze()
            elif steps % MIDDLE_EVERY == 0:
                self._collect(1)
            else:
                self._collect(0)
