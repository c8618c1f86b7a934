"""Rate limits, all of them: frames per connection and per seat, chat lines per seat,
and room creations, joins and failed look-ups per client address.

The per-address budgets are counted in this process with the memory store, and in
Redis when the server uses Redis (`SharedBudget`), so that several instances behind
one balancer share one budget per address instead of each allowing the whole of it.

A token bucket lets a burst through and then a steady rate, which fits both a browser
(a few quick clicks) and an abuser (who runs out and stays out). Chat uses a window
instead (at most `burst` lines in any `window` seconds), which is what players are told.
Time comes from `time.monotonic` (or the caller's loop clock) so a clock change cannot
refill anybody.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

from schmier.store.base import StoreError


class TokenBucket:
    """`burst` tokens at most, refilled at `rate` per second."""

    __slots__ = ("_stamp", "_tokens", "burst", "rate")

    def __init__(self, burst: float, rate: float) -> None:
        self.burst = float(burst)
        self.rate = float(rate)
        self._tokens = float(burst)
        self._stamp = time.monotonic()

    def _refill(self, now: float) -> None:
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def take(self) -> bool:
        """Spend one token; False (and nothing spent) when the bucket is empty."""
        self._refill(time.monotonic())
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    def has(self) -> bool:
        """Whether a token is available, without spending it."""
        self._refill(time.monotonic())
        return self._tokens >= 1.0

    def wait(self) -> float:
        """Seconds until a token is available (0 when one is)."""
        self._refill(time.monotonic())
        return max(0.0, (1.0 - self._tokens) / self.rate)

    def full(self) -> bool:
        """Whether the bucket has refilled completely (so it can be forgotten)."""
        self._refill(time.monotonic())
        return self._tokens >= self.burst


class SeatBudgets:
    """One token bucket per seat of a room (frames of all of a seat's sockets)."""

    __slots__ = ("_buckets", "burst", "rate")

    def __init__(self, burst: float, rate: float) -> None:
        self.burst = burst
        self.rate = rate
        self._buckets: dict[int, TokenBucket] = {}

    def take(self, seat: int) -> bool:
        """Spend one token of `seat`; False (nothing spent) when its bucket is empty."""
        bucket = self._buckets.get(seat)
        if bucket is None:
            bucket = self._buckets[seat] = TokenBucket(self.burst, self.rate)
        return bucket.take()


class AddressLimiter:
    """One bucket per client address: `per_minute` events, all of them as a burst."""

    def __init__(self, per_minute: int, max_tracked: int = 50_000) -> None:
        self.per_minute = per_minute
        self._buckets: dict[str, TokenBucket] = {}
        self._max_tracked = max_tracked

    def _bucket(self, address: str) -> TokenBucket:
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= self._max_tracked:
                self._prune()
            bucket = self._buckets[address] = TokenBucket(self.per_minute, self.per_minute / 60)
        return bucket

    def _prune(self) -> None:
        """Forget full buckets (they carry no information), or everything if none is."""
        full = [a for a, b in self._buckets.items() if b.full()]
        for address in full or list(self._buckets):
            del self._buckets[address]

    def take(self, address: str) -> bool:
        """Count one event for `address`; False when it is past its limit."""
        return self._bucket(address).take()

    def exhausted(self, address: str) -> bool:
        """Whether `address` is past its limit, without counting anything."""
        return not self._bucket(address).has()


class SlidingWindow:
    """At most `burst` events per key in any `window` seconds (chat lines per seat)."""

    def __init__(self, burst: int, window: float) -> None:
        self.burst = burst
        self.window = window
        self._events: dict[int, deque[float]] = {}

    def allow(self, key: int, now: float) -> bool:
        """Count one event for `key` at `now`; False (nothing counted) past the limit."""
        events = self._events.setdefault(key, deque())
        while events and events[0] <= now - self.window:
            events.popleft()
        if len(events) >= self.burst:
            return False
        events.append(now)
        return True


class Budget(Protocol):
    """A per-address budget (room creations, joins, failed look-ups), wherever it is
    counted: `take` counts one event, `exhausted` only looks."""

    async def take(self, address: str) -> bool:
        """Count one event for `address`; False when it is past its limit."""

    async def exhausted(self, address: str) -> bool:
        """Whether `address` is past its limit, without counting anything."""


class LocalBudget:
    """A budget counted in this process (the memory store: a single instance)."""

    def __init__(self, per_minute: int) -> None:
        self.limiter = AddressLimiter(per_minute)

    async def take(self, address: str) -> bool:
        return self.limiter.take(address)

    async def exhausted(self, address: str) -> bool:
        return self.limiter.exhausted(address)


class TokenStore(Protocol):
    """Where shared buckets live (`RedisStore.take_token`)."""

    async def take_token(self, name: str, address: str, per_minute: int, *, spend: bool) -> bool:
        """Whether `address` has a token in bucket `name`, spending it if `spend`."""


class SharedBudget:
    """A budget counted in Redis, so every instance sharing it counts against one
    bucket: two instances allow what one allows (a Lua token bucket on Redis' clock,
    `schmier/store/scripts.py`). While Redis does not answer, this instance counts
    alone (its own bucket, as without Redis) rather than refusing everybody or letting
    everybody through; `fallback()` is told each time (a metric)."""

    def __init__(
        self,
        store: TokenStore,
        name: str,
        per_minute: int,
        fallback: Callable[[], None] = lambda: None,
    ) -> None:
        self._store = store
        self._name = name
        self._per_minute = per_minute
        self._local = AddressLimiter(per_minute)
        self._fallback = fallback

    async def take(self, address: str) -> bool:
        try:
            return await self._store.take_token(self._name, address, self._per_minute, spend=True)
        except StoreError:
            self._fallback()
            return self._local.take(address)

    async def exhausted(self, address: str) -> bool:
        try:
            return not await self._store.take_token(
                self._name, address, self._per_minute, spend=False
            )
        except StoreError:
            self._fallback()
            return self._local.exhausted(address)
