"""The server's own garbage-collection schedule (schmier/collector.py): it takes over from
CPython while running, collects in small steps, reclaims cycles among frozen objects at
its full collection, and gives everything back when stopped."""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref

import pytest
from prometheus_client import CollectorRegistry, Histogram

from schmier import collector as collector_module
from schmier.collector import Collector


class Node:
    """A reference cycle, the kind of garbage only the cyclic collector frees."""

    def __init__(self) -> None:
        self.me = self


def pauses() -> Histogram:
    return Histogram("pauses", "test", ["generation"], registry=CollectorRegistry())


def observed(histogram: Histogram, generation: str) -> float:
    for metric in histogram.collect():
        for sample in metric.samples:
            if sample.name.endswith("_count") and sample.labels == {"generation": generation}:
                return sample.value
    return 0.0


async def test_steps_then_hands_collection_back() -> None:
    assert gc.isenabled()
    histogram = pauses()
    collector = Collector(step=0.01, full=600, pauses=histogram)
    collector.start()
    try:
        assert not gc.isenabled()
        assert gc.get_freeze_count() > 0
        await asyncio.sleep(0.3)
        assert observed(histogram, "0") >= 5
        assert observed(histogram, "1") == 0  # survivors are frozen instead
        # Young garbage is freed by the steps, with CPython's own collector off.
        cycle = Node()
        ref = weakref.ref(cycle)
        del cycle
        await asyncio.sleep(0.15)
        assert ref() is None
    finally:
        await collector.aclose()
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


async def test_survivors_are_frozen_without_walking_the_old_generation() -> None:
    """What lives through a young collection is frozen at once: no routine step walks
    the middle or the old generation (their pauses would be the size of everything that
    arrived since they last ran)."""
    histogram = pauses()
    collector = Collector(step=0.01, full=600, pauses=histogram)
    collector.start()
    try:
        before = gc.get_freeze_count()
        kept = [Node() for _ in range(1000)]
        await asyncio.sleep(0.2)
        assert gc.get_freeze_count() >= before + len(kept)
        # In no generation a collection walks: frozen.
        assert not any(obj is kept[0] for obj in gc.get_objects())
        assert observed(histogram, "2") == 0
        assert observed(histogram, "1") == 0
        assert observed(histogram, "0") >= 5
    finally:
        await collector.aclose()


async def test_the_full_collection_frees_cycles_among_frozen_objects() -> None:
    cycle = Node()
    ref = weakref.ref(cycle)
    collector = Collector(step=0.01, full=0.3, pauses=pauses())
    collector.start()  # freezes everything alive now, `cycle` included
    try:
        del cycle
        await asyncio.sleep(0.1)
        assert ref() is not None  # frozen: routine steps do not look at it
        await asyncio.sleep(0.5)
        assert ref() is None  # the full collection unfroze and freed it
    finally:
        await collector.aclose()


async def test_the_heap_growing_by_the_share_calls_the_full_collection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With no clock, a frozen cycle stays until the heap has grown by `growth` over
    its smallest size; then a full collection frees it (and only then)."""
    monkeypatch.setattr(collector_module, "GROWTH_CHECK_SECONDS", 0.05)
    cycle = Node()
    ref = weakref.ref(cycle)
    histogram = pauses()
    collector = Collector(step=0.01, full=0, pauses=histogram, growth=0.25)
    collector.start()  # freezes `cycle` with everything else alive now
    try:
        assert collector.freezing
        del cycle
        await asyncio.sleep(0.3)
        assert ref() is not None  # the heap has not grown: no full collection
        assert observed(histogram, "2") == 0
        # Grow the heap by well over a quarter, in blocks that stay alive.
        kept = [[i] for i in range(sys.getallocatedblocks() // 2)]
        await asyncio.sleep(0.3)
        assert ref() is None
        assert observed(histogram, "2") == 1
        # The grown heap is the new measure: no second full collection for it.
        await asyncio.sleep(0.3)
        assert observed(histogram, "2") == 1
        del kept
    finally:
        await collector.aclose()


async def test_the_smallest_heap_is_the_measure_after_it_shrinks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Memory freed since the last full collection lowers the mark that growth is
    measured from, so cyclic garbage never takes more than the share of what is alive."""
    monkeypatch.setattr(collector_module, "GROWTH_CHECK_SECONDS", 0.05)
    ballast = [[i] for i in range(sys.getallocatedblocks() // 2)]
    histogram = pauses()
    collector = Collector(step=0.01, full=0, pauses=histogram, growth=0.25)
    collector.start()
    try:
        await asyncio.sleep(0.2)
        del ballast  # the heap shrinks by about a third
        await asyncio.sleep(0.2)
        assert observed(histogram, "2") == 0
        # Back to the size it had at the start: that is growth over the new smallest.
        again = [[i] for i in range(sys.getallocatedblocks() // 2)]
        await asyncio.sleep(0.3)
        assert observed(histogram, "2") == 1
        del again
    finally:
        await collector.aclose()


async def test_step_zero_leaves_cpython_in_charge() -> None:
    collector = Collector(step=0, full=600, pauses=pauses())
    collector.start()
    assert not collector.enabled
    assert gc.isenabled()
    await collector.aclose()
    assert gc.isenabled()


async def test_two_servers_in_one_process_share_the_takeover() -> None:
    first = Collector(step=0.01, full=0, pauses=pauses())
    second = Collector(step=0.01, full=0, pauses=pauses())
    first.start()
    second.start()
    await first.aclose()
    assert not gc.isenabled()  # the second one still runs
    await second.aclose()
    assert gc.isenabled()


async def test_without_full_collections_nothing_is_frozen() -> None:
    """Frozen cycles are freed only by a full collection: with none, freezing would
    keep them for ever, so nothing is frozen and the routine collections free them.
    (CPython 3.12's own full collection moves some immortal objects of its own into the
    permanent generation: the collector must not add any to those.)"""
    gc.collect()
    before = gc.get_freeze_count()
    histogram = pauses()
    collector = Collector(step=0.01, full=0, pauses=histogram)
    collector.start()
    try:
        assert gc.get_freeze_count() == before
        await asyncio.sleep(0.2)
        assert gc.get_freeze_count() == before
        assert observed(histogram, "1") >= 1  # the middle generation is collected instead
    finally:
        await collector.aclose()


async def test_the_state_found_is_restored() -> None:
    gc.disable()
    try:
        collector = Collector(step=0.01, full=0, pauses=pauses())
        collector.start()
        await collector.aclose()
        assert not gc.isenabled()  # it was off before: it stays off
    finally:
        gc.enable()


async def test_a_full_collection_that_frees_nothing_backs_the_next_one_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Growth that is live data (tables filling up) makes the next full collection wait
    for `MAX_BACKOFF` times the growth; a collection that frees a real share of the heap
    (cyclic garbage) brings it back to `growth`."""
    monkeypatch.setattr(collector_module, "GROWTH_CHECK_SECONDS", 0.05)
    monkeypatch.setattr(collector_module, "MAX_BACKOFF", 4)
    histogram = pauses()
    collector = Collector(step=0.01, full=0, pauses=histogram, growth=0.25)
    collector.start()
    try:
        assert collector.growth_now == 0.25
        await asyncio.sleep(0.1)  # the collector takes the heap's measure
        # Live data: over a quarter more, kept. The collection frees nothing of it.
        live = [[i] for i in range(sys.getallocatedblocks() // 2)]
        await asyncio.sleep(0.3)
        assert observed(histogram, "2") == 1
        assert collector.growth_now == 1.0
        # 60% more in cycles, alive: past what a doubled wait (50%) would allow, under
        # the backed-off one (100%).
        base = sys.getallocatedblocks()
        cycles: list[Node] = []
        while sys.getallocatedblocks() < base * 1.6:
            cycles.extend(Node() for _ in range(1000))
        await asyncio.sleep(0.3)  # steps freeze them; no full collection
        assert observed(histogram, "2") == 1
        del cycles  # frozen garbage now: only a full collection frees it
        more: list[list[int]] = []
        while sys.getallocatedblocks() < base * 2.1:
            more.extend([i] for i in range(1000))
        await asyncio.sleep(0.3)
        assert observed(histogram, "2") == 2  # past 100%: it runs, and frees the cycles
        assert collector.growth_now == 0.25
        del live, more
    finally:
        await collector.aclose()


def started_with_population(members: list[int]) -> tuple[Collector, Histogram]:
    """A started collector whose growth rule (a quarter) counts `members[0]` members."""
    histogram = pauses()
    collector = Collector(
        step=0.01, full=0, pauses=histogram, growth=0.25, population=lambda: members[0]
    )
    collector.start()
    return collector, histogram


async def test_a_heap_growing_with_its_tables_calls_no_full_collection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The heap is measured per member of the population (rooms and sockets): tables
    opening, whose live data grows the heap in proportion to them, call no full
    collection (at a thousand tables one stops every table for most of a second, and
    frees nothing); the heap growing while the population stays still does."""
    monkeypatch.setattr(collector_module, "GROWTH_CHECK_SECONDS", 0.05)
    members = [1000]
    collector, histogram = started_with_population(members)
    try:
        await asyncio.sleep(0.2)
        before = sys.getallocatedblocks()
        tables = [[i] for i in range(before // 2)]
        # As many more members as the heap grew: the heap per member stays the same.
        members[0] = round(members[0] * sys.getallocatedblocks() / before)
        await asyncio.sleep(0.3)
        assert observed(histogram, "2") == 0
        garbage = [[i] for i in range(sys.getallocatedblocks() // 2)]
        await asyncio.sleep(0.3)
        assert observed(histogram, "2") == 1
        assert collector.longest_full > 0
        del tables, garbage
    finally:
        await collector.aclose()


async def test_a_mass_disconnect_calls_no_full_collection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Most of the population goes at once (6,000 sockets of 1,000 tables whose rooms
    stay): the heap shrinks by far less than the population, so the heap per member
    grows with nothing to collect; a full collection then stopped the tables still
    playing for half a second. The heap growing afterwards, with the population still,
    does call one."""
    monkeypatch.setattr(collector_module, "GROWTH_CHECK_SECONDS", 0.05)
    members = [7000]
    sockets = [[i] for i in range(sys.getallocatedblocks() // 4)]
    collector, histogram = started_with_population(members)
    try:
        await asyncio.sleep(0.2)
        before = collector.size()
        members[0] = 1000
        del sockets  # what the sockets held is freed; the rooms' heap stays
        await asyncio.sleep(0.3)
        assert collector.size() > 3 * before  # per member: far over the growth
        assert observed(histogram, "2") == 0
        # Once the drop has left the checks' memory, the heap per member it left is
        # the measure: growth over it calls the full collection.
        await asyncio.sleep(collector_module.DROP_CHECKS * 0.05 + 0.1)
        assert observed(histogram, "2") == 0
        garbage = [[i] for i in range(sys.getallocatedblocks() // 2)]
        await asyncio.sleep(0.3)
        assert observed(histogram, "2") == 1
        del garbage
    finally:
        await collector.aclose()
