"""Rate limits: a token bucket per connection and per client address.

A token bucket lets a burst through and then a steady rate, which fits both a browser
(a few quick clicks) and an abuser (who runs out and stays out). Time comes from
`time.monotonic` so a clock change cannot refill anybody.
"""

from __future__ import annotations

import time


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

    def full(self) -> bool:
        """Whether the bucket has refilled completely (so it can be forgotten)."""
        self._refill(time.monotonic())
        return self._tokens >= self.burst


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
