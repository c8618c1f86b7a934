"""The event-loop lag sampler (schmier/looplag.py) and its histogram on `/metrics`."""

from __future__ import annotations

import asyncio
import re

from prometheus_client import CollectorRegistry, Histogram

from schmier.looplag import BUCKETS, LoopLag
from tests.support import loopback
from tests.support.servers import RunningServer


class FakeTime:
    """A clock that moves only when the fake sleep says so: each sleep takes the
    interval plus the next of the overshoots it was given."""

    def __init__(self, overshoots: list[float]) -> None:
        self.now = 100.0
        self.overshoots = overshoots
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds + self.overshoots.pop(0)


async def test_the_sampler_observes_how_late_each_sleep_woke() -> None:
    fake = FakeTime([0.0, 0.004, 0.25, -0.001])
    seen: list[float] = []
    lag = LoopLag(seen.append, interval=0.01, clock=fake.clock, sleep=fake.sleep)
    for _ in range(4):
        await lag.sample()
    assert fake.slept == [0.01] * 4
    # Overshoots as measured; a clock that says it woke early counts as no lag.
    assert [round(x, 6) for x in seen] == [0.0, 0.004, 0.25, 0.0]


async def test_the_sampler_runs_as_a_task_until_closed() -> None:
    seen: list[float] = []
    lag = LoopLag(seen.append, interval=0.001)
    lag.start()
    lag.start()  # one task, however often started
    await asyncio.sleep(0.1)
    await lag.aclose()
    count = len(seen)
    assert count >= 5
    assert all(x >= 0 for x in seen)
    await asyncio.sleep(0.05)
    assert len(seen) == count


def test_the_buckets_span_a_millisecond_to_a_second() -> None:
    assert BUCKETS[0] == 0.001 and BUCKETS[-1] == 1.0
    assert list(BUCKETS) == sorted(set(BUCKETS))
    histogram = Histogram("lag", "test", buckets=BUCKETS, registry=CollectorRegistry())
    LoopLag(histogram.observe)  # the histogram's observe is what the server passes


async def _lag_samples(server: RunningServer) -> tuple[dict[str, float], float, float]:
    async with loopback.async_client(base_url=server.base_url) as http:
        text = (await http.get("/metrics")).text
    assert "# TYPE schmier_loop_lag_seconds histogram" in text
    buckets = {
        m.group(1): float(m.group(2))
        for m in re.finditer(r'^schmier_loop_lag_seconds_bucket\{le="([^"]+)"\} (\S+)$', text, re.M)
    }
    count = re.search(r"^schmier_loop_lag_seconds_count (\S+)$", text, re.M)
    total = re.search(r"^schmier_loop_lag_seconds_sum (\S+)$", text, re.M)
    assert count is not None and total is not None, text
    return buckets, float(count.group(1)), float(total.group(1))


async def test_a_running_server_exports_its_loop_lag(server: RunningServer) -> None:
    buckets, count, total = await _lag_samples(server)
    # Every bound, cumulative counts, +Inf equal to the count.
    assert list(buckets) == [*(repr(float(b)) for b in BUCKETS), "+Inf"]
    values = list(buckets.values())
    assert values == sorted(values)
    assert buckets["+Inf"] == count
    assert total >= 0
    await asyncio.sleep(0.3)  # about 30 samples at 10 ms
    _, later, _ = await _lag_samples(server)
    assert later >= count + 5
