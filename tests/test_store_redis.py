"""The Redis store's own ways: every key of a room under one hash tag, rooms of older
versions (untagged keys) read and moved, the token bucket shared by every instance, and
an unreachable Redis reported once to the store's health."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
import redis.asyncio as aioredis

from schmier.store import RedisStore, Stored, StoreUnavailable


@pytest.fixture
def dead_url() -> Iterator[str]:
    """A URL whose port is reserved (bound) but not listening, so connecting is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"redis://127.0.0.1:{sock.getsockname()[1]}/0"


async def test_redis_keys_of_one_room_share_a_hash_tag(redis_store: RedisStore) -> None:
    """Every key of a room hashes to one Redis Cluster slot: its code is the tag."""
    keys = [redis_store.room_part("abc", part) for part in ("room", "log", "lease", "fence")]
    assert {key[key.index("{") + 1 : key.index("}")] for key in keys} == {"abc"}


async def test_redis_rooms_stored_by_older_versions_are_read_and_moved(
    redis_store: RedisStore, raw_redis: aioredis.Redis, redis_prefix: str
) -> None:
    """A room under the untagged names of 0.2.0 (`room:CODE`, `log:CODE`) is found and
    moved to the tagged names on first use, with its expiry; the old names are gone."""
    old_room, old_log = f"{redis_prefix}room:OLD", f"{redis_prefix}log:OLD"
    await raw_redis.hset(old_room, mapping={"version": 3, "snapshot": b"s3"})
    await raw_redis.rpush(old_log, b"e1", b"e2", b"e3")
    await raw_redis.pexpire(old_room, 60_000)
    await raw_redis.pexpire(old_log, 60_000)
    await raw_redis.set(f"{redis_prefix}lease:OLD", "old-instance:4")
    await raw_redis.set(f"{redis_prefix}fence:OLD", 4)

    stored = await redis_store.load("OLD")
    assert stored == Stored(version=3, snapshot=b"s3")
    assert await redis_store.read_log("OLD") == [b"e1", b"e2", b"e3"]
    assert await raw_redis.exists(old_room, old_log, f"{redis_prefix}lease:OLD") == 0
    assert 0 < await raw_redis.pttl(redis_store.room_key("OLD")) <= 60_000
    await redis_store.commit("OLD", 4, b"s4", [b"e4"])
    assert await redis_store.read_log("OLD", 3) == [b"e4"]

    # Found by `exists` and `read_log` too, whichever comes first.
    await raw_redis.hset(f"{redis_prefix}room:OLD2", mapping={"version": 0, "snapshot": b"s"})
    await raw_redis.rpush(f"{redis_prefix}log:OLD2", b"x")
    assert await redis_store.read_log("OLD2") == [b"x"]
    await raw_redis.hset(f"{redis_prefix}room:OLD3", mapping={"version": 0, "snapshot": b"s"})
    assert await redis_store.exists("OLD3")
    assert not await redis_store.exists("NEVER")
    assert await redis_store.load("NEVER") is None


async def test_redis_token_bucket_is_shared_by_every_client(
    redis_url: str, redis_prefix: str
) -> None:
    """Two stores (two instances) spend one bucket; looking spends nothing."""
    first = RedisStore(redis_url, prefix=redis_prefix, ttl_seconds=60)
    second = RedisStore(redis_url, prefix=redis_prefix, ttl_seconds=60)
    try:
        spent = [
            await store.take_token("failed", "192.0.2.7", 4, spend=True)
            for store in (first, second, first, second)
        ]
        assert spent == [True] * 4
        assert not await first.take_token("failed", "192.0.2.7", 4, spend=False)
        assert not await second.take_token("failed", "192.0.2.7", 4, spend=True)
        # Other addresses and other limits have budgets of their own.
        assert await second.take_token("failed", "192.0.2.8", 4, spend=True)
        assert await first.take_token("join", "192.0.2.7", 4, spend=True)
    finally:
        await first.aclose()
        await second.aclose()


async def test_redis_outage_is_reported_once_to_the_health(dead_url: str) -> None:
    store = RedisStore(dead_url, ttl_seconds=60)
    seen: list[bool] = []

    class Listener:
        def store_changed(self, up: bool) -> None:
            seen.append(up)

    store.health.listen(Listener())
    try:
        for _ in range(3):
            with pytest.raises(StoreUnavailable):
                await store.load("ROOM")
        with pytest.raises(StoreUnavailable):
            await store.commit("ROOM", 1, b"v1")
        assert seen == [False] and not store.health.up and store.health.outages == 1
    finally:
        await store.aclose()
