"""A subscription whose socket fails with a timeout is lost, not spun on.

redis-py reports the kernel's `ETIMEDOUT` on a subscription's socket (TCP keepalive
giving up on a Redis behind a network partition) as "no message" and keeps the dead
connection: a listener that skipped empty reads then spun without ever yielding, and
the whole instance stopped answering (`tests/test_netfaults.py`, the minute-long cut).
Here the real socket of a real subscription gets that very error (set on its reader,
as the transport does when the kernel reports it), without waiting out keepalive.
"""

from __future__ import annotations

import asyncio
import errno

import pytest
import redis.asyncio as aioredis

from schmier.store import RedisStore, StoreUnavailable


async def test_a_timed_out_subscription_is_lost(
    redis_url: str, redis_prefix: str, raw_redis: aioredis.Redis
) -> None:
    store = RedisStore(redis_url, prefix=redis_prefix, ttl_seconds=60)
    channel = store.key("channel")
    try:
        async with store.subscribe(channel) as messages:
            await raw_redis.publish(channel, b"first")
            assert await asyncio.wait_for(messages.next(), 10) == b"first"
            reader = messages._pubsub.connection._reader  # type: ignore[union-attr]
            reader.set_exception(TimeoutError(errno.ETIMEDOUT, "Connection timed out"))
            with pytest.raises(StoreUnavailable):
                await asyncio.wait_for(messages.next(), 10)
        assert not store.health.up  # an outage, as any unreachable Redis
        async with store.subscribe(channel) as messages:  # a new connection works
            await raw_redis.publish(channel, b"second")
            assert await asyncio.wait_for(messages.next(), 10) == b"second"
    finally:
        await store.aclose()
