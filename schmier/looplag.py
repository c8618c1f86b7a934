"""How late the event loop wakes up: the stall every player on this process feels.

Why: every room, socket and timer of a server shares one event loop, so a single turn
of the loop that runs for 80 ms (a full garbage collection, a burst of lease renewals,
a broadcast to thousands of sockets) delays every action that arrives meanwhile by up
to 80 ms, and no per-action metric shows where that time went. A task that sleeps a
fixed interval and measures by how much it overslept sees every such stall from the
outside, whatever caused it. Its overshoots go into `schmier_loop_lag_seconds`
(buckets from 1 ms to 1 s); the load generator (`python -m bench.load`) reads the
histogram at both ends of its window. An idle loop oversleeps by a fraction of a
millisecond.

The clock and the sleep are injectable so the sampler can be tested without time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

INTERVAL_SECONDS = 0.01
"""How long the sampler sleeps between samples: often enough to see a 10 ms stall,
rare enough to cost nothing (100 wake-ups a second)."""

BUCKETS = (
    0.001,
    0.0025,
    0.005,
    0.0075,
    0.01,
    0.015,
    0.02,
    0.03,
    0.05,
    0.075,
    0.1,
    0.15,
    0.2,
    0.3,
    0.5,
    1.0,
)
"""Upper bounds of the lag histogram: fine around the 20-100 ms a player starts to feel."""


class LoopLag:
    """Samples the loop's lag while started (one task per server)."""

    def __init__(
        self,
        observe: Callable[[float], None],
        *,
        interval: float = INTERVAL_SECONDS,
        clock: Callable[[], float] = time.perf_counter,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self._observe = observe
        self._interval = interval
        self._clock = clock
        self._sleep = sleep
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start sampling on the running loop (idempotent)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.run(), name="loop-lag")

    async def aclose(self) -> None:
        """Stop sampling."""
        if self._task is None:
            return
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        self._task = None

    async def sample(self) -> float:
        """Sleep one interval; the overshoot (observed, and returned)."""
        before = self._clock()
        await self._sleep(self._interval)
        lag = max(0.0, self._clock() - before - self._interval)
        self._observe(lag)
        return lag

    async def run(self) -> None:
        """Sample forever."""
        while True:
            await self.sample()
