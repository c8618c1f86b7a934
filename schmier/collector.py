"""Garbage collection on the server's own schedule instead of CPython's.

Why: CPython (3.11) starts a collection when allocations outnumber deallocations by
700, and decides by ratios when to walk the whole heap. In a loaded server both go
badly. Every action replaces a room's state; the replaced state dies by reference
count, which *lowers* the allocation count, so the young generation grows to tens of
thousands of objects before a collection starts, and that collection stops the event
loop for milliseconds. A full collection walks everything the server holds (most of it
the per-connection machinery) and stops the loop for hundreds of milliseconds: every
player whose card arrives during it waits (measured with `python -m bench.load`:
bench/results/2026-11-30-load-four-changes.md).

So the server collects the young generation itself, every `step` seconds (what was
allocated since the last step and is still alive: a few thousand objects, a few
milliseconds at 1,000 tables), and right after each collection freezes everything alive
(`gc.freeze()`, which costs nothing: it moves lists). An object that lives through one
collection (a socket, a room, a room's current state, a suspended coroutine) thus leaves
the collector's sight and is never walked again by a routine collection; it is still
freed by reference counting the moment nothing holds it, which is how almost everything
in the server dies (a replaced state, a closed socket's buffers). Measured in the loaded
server with `gc.callbacks` (thread CPU time, bench/results/2026-12-01-thousand-tables.md):
walking the old generation once a minute, as this collector did before, cost one pause
of the size of everything that had arrived meanwhile (hundreds of milliseconds in the
minute the sockets connected), and collecting the middle generation, which held a few
steps' survivors, tens of milliseconds at 1,000 tables. Steady play makes almost no
cyclic garbage (most young collections free nothing).

Cyclic garbage among frozen objects (the call chain of a socket that closed, say) is
reclaimed only by a full collection, the one pause whose cost grows with the server's
size (most of a second at 1,000 busy tables, docs/performance.md). So it runs only
when it pays: when the Python heap (`sys.getallocatedblocks()`, read once a second,
under a millisecond) has grown by `growth` over its smallest size since the last full
collection. That is CPython's own rule for its full collections (a quarter more than
survived the last one). A server in steady play makes almost no cyclic garbage (a
clock-driven collection at 1,000 tables freed a few thousand objects); a server that
grows, tables opening and their games filling the heap with live data, meets the rule
several times on the way up, and each of those collections frees almost nothing. So a
collection that freed less than `PAYS` of the heap makes the next one wait for
`MAX_BACKOFF` times `growth`, and one that paid brings it back: cyclic garbage never
holds more than that share of the heap, and a collection that would find nothing is not
run in the middle of play (one did at 1,000 tables, and one at 300 when the wait only
doubled: tables that have just opened keep growing the heap as their games fill;
bench/results/2026-12-02-load-second-series.md and -third-series.md). `full` seconds,
if set, adds a clock as well.

The heap is measured per member of the server's population (its live rooms and open
sockets, plus one), not as a whole: tables opening grow the heap with live data in
proportion to themselves, so a hundred tables opening (or a thousand resuming at once
after a restart) no longer call a full collection that frees nothing and stops every
table, while garbage that grows while they stay still does. When the population falls
by a tenth or more within `DROP_CHECKS` checks (sockets closing en masse: every player
of an instance whose network went), the heap per member it leaves is the measure from
then on: a playing room holds several times what a socket does, so the heap per member
had tripled as the 6,000 sockets of the 10-minute soak of docs/performance.md closed,
and a full collection of half a second stopped the tables still playing. What members
that go held is freed as they go: rooms and bots leave no reference cycle behind
(`tests/test_rooms.py`). Each full collection is timed and exported like the
others (`schmier_gc_pause_seconds`), and logged as `gc.full` with why it ran, what it
freed, the heap's size before and after and the growth the next one waits for. With
neither a growth nor a clock nothing is ever frozen (frozen cycles would never be
freed), so the old generation is walked once a minute, as CPython would.

The collector is process-wide: the first server started in a process takes over from
CPython's automatic collection, the last one stopped restores what it found.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable

from prometheus_client import Histogram
from prometheus_client.core import GaugeMetricFamily, Metric

from schmier.logs import event

SETTLE_SECONDS = 60.0
"""Without freezing (`full` = 0): how often the old generation is collected."""

MIDDLE_EVERY = 4
"""Without freezing: young-generation steps per middle-generation collection."""

PAYS = 0.02
"""A full collection that frees less than this share of the heap's blocks did not pay:
the growth that called it was live data (tables filling up), not garbage."""

MAX_BACKOFF = 8
"""After a full collection that did not pay, the next one waits for this many times
`growth` (with 25%: 200%, a heap at most three times its smallest before cyclic garbage
is collected); after one that paid, for `growth` again. Doubling the wait instead (25,
50, 100%) left the threshold of a server that had just opened 300 tables barely above
the heap its games then grew to, and one run in three crossed it in play
(bench/results/2026-12-02-load-third-series.md)."""

DROP_CHECKS = 10
"""A population that fell by `DROP_SHARE` below its largest of the last this many checks
makes the heap per member it leaves the growth rule's measure."""

DROP_SHARE = 0.1

GROWTH_CHECK_SECONDS = 1.0
"""How often the heap's size is compared with its smallest since the last full collection."""

_running = 0
"""Collectors started in this process and not yet stopped (servers may run in threads)."""
_lock = threading.Lock()
_was_enabled = True
"""Whether CPython's automatic collection was on when the first collector started."""


class Collector:
    """Runs this process's garbage collection while at least one server runs."""

    def __init__(
        self,
        step: float,
        full: float,
        pauses: Histogram,
        growth: float = 0.0,
        population: Callable[[], int] | None = None,
    ) -> None:
        """`step`: seconds between young collections (0: CPython collects); `full`:
        seconds between full collections (0: no clock); `growth`: the heap's growth, as
        a fraction, that calls for a full collection (0: none by growth); `population`:
        how many rooms and sockets the server holds now (the heap is measured per
        member of it plus one; None: the whole heap)."""
        self._step = step
        self._full = full
        self._growth = growth
        self._population = population
        self._pauses = pauses
        self._task: asyncio.Task[None] | None = None
        self._smallest = 0.0
        self._recent: deque[int] = deque(maxlen=DROP_CHECKS)
        """The population at the last `DROP_CHECKS` checks of the heap."""
        """The heap's smallest size (`size`) since the last full collection."""
        self.longest_full = 0.0
        """Seconds of the longest full collection so far."""
        self._backoff = 1
        """The growth waited for is `growth` times this (see MAX_BACKOFF)."""

    @property
    def freezing(self) -> bool:
        """Whether survivors are frozen: only if some full collection will free them."""
        return self._full > 0 or self._growth > 0

    @property
    def growth_now(self) -> float:
        """The growth, as a fraction, the next full collection waits for."""
        return self._growth * self._backoff

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
                if self.freezing:
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

    def size(self) -> float:
        """The heap's size as the growth rule measures it: allocated blocks, per member
        of the population (plus one) when there is one."""
        blocks = sys.getallocatedblocks()
        if self._population is None:
            return float(blocks)
        return blocks / (1 + self._population())

    def _full_collection(self, reason: str) -> None:
        started = time.perf_counter()
        before = sys.getallocatedblocks()
        gc.unfreeze()
        freed = self._collect(2)
        gc.freeze()
        self.longest_full = max(self.longest_full, time.perf_counter() - started)
        after = sys.getallocatedblocks()
        self._smallest = self.size()
        # Why back off: at 1,000 tables a full collection stops the server for most of a
        # second and, while tables open and their games fill the heap with live data,
        # one every quarter of growth frees almost nothing; the next one lands in play
        # (bench/results/2026-12-02-load-third-series.md). One that pays brings the
        # threshold back.
        paid = before - after >= PAYS * before
        self._backoff = 1 if paid else MAX_BACKOFF
        event(
            "gc.full",
            reason=reason,
            ms=round(1000 * (time.perf_counter() - started), 1),
            freed=freed,
            blocks_before=before,
            blocks_after=after,
            next_growth_pct=round(100 * self.growth_now),
        )

    def _grown(self) -> bool:
        """Whether the heap has grown by `growth_now` over its smallest since the last
        full collection (which is then its new smallest, if it shrank); after the
        population fell by `DROP_SHARE`, the size it leaves is the smallest."""
        size = self.size()
        dropped = False
        if self._population is not None:
            population = self._population()
            self._recent.append(population)
            dropped = population < (1 - DROP_SHARE) * max(self._recent)
        if size < self._smallest or self._smallest == 0 or dropped:
            self._smallest = size
            return False
        return size > self._smallest * (1 + self.growth_now)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        steps = 0
        freezing = self.freezing
        self._smallest = self.size()
        next_settle = loop.time() + SETTLE_SECONDS
        next_full = loop.time() + self._full if self._full > 0 else float("inf")
        next_check = loop.time() + GROWTH_CHECK_SECONDS if self._growth > 0 else float("inf")
        while True:
            await asyncio.sleep(self._step)
            steps += 1
            now = loop.time()
            grown = False
            if now >= next_check:
                next_check = now + GROWTH_CHECK_SECONDS
                grown = self._grown()
            if grown or now >= next_full:
                self._full_collection("growth" if grown else "clock")
                if self._full > 0:
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


class HeapMetrics:
    """The longest full collection so far, and, if asked for (`count_objects`), what a
    full collection would walk: the objects frozen out of the routine collections.

    Why the count is not exported by default: CPython keeps no size of the frozen
    generation, and `gc.get_freeze_count()` walks its list, about 80 ns an object in a
    server's scattered heap: 25-40 ms at 300 tables, 60-100 ms at 1,000, with the event
    loop stopped. Read at every scrape of `/metrics` it put a stall of that size into
    play each time (the load benchmark, scraping every half second, measured a players'
    p99 of 58 ms at 300 tables against 16 ms for the baseline server in the same run:
    bench/results/2026-12-05-scrape-stall.md)."""

    def __init__(self, collector: Collector, *, count_objects: bool = False) -> None:
        self._collector = collector
        self._count_objects = count_objects

    def collect(self) -> Iterable[Metric]:
        if self._count_objects:
            yield GaugeMetricFamily(
                "schmier_gc_frozen_objects",
                "Objects the garbage collector tracks that survived a collection and were "
                "frozen (what a full collection walks, besides the young ones); counted "
                "at each scrape (SCHMIER_GC_COUNT_OBJECTS), which stops the server for "
                "about 80 ns an object.",
                value=gc.get_freeze_count(),
            )
        yield GaugeMetricFamily(
            "schmier_gc_full_longest_seconds",
            "The longest full garbage collection since the server started.",
            value=self._collector.longest_full,
        )
