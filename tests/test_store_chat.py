"""The chat a store keeps beside a room: the last lines, with the room's expiry, fenced by
the lease like a commit. Shared by every backend (the `store` fixture), then per backend.
"""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from schmier.store import LeaseLost, MemoryStore, RedisStore, RoomStore, Stored
from tests.support.stores import ManualClock


async def test_chat_keeps_the_last_lines_of_a_room(store: RoomStore) -> None:
    assert await store.read_chat("ROOM") == []
    assert not await store.add_chat("ROOM", b"nobody", keep=3)  # no room, no chat
    assert await store.read_chat("ROOM") == []
    await store.create("ROOM", b"v0")
    await store.create("OTHER", b"o0")

    for i in range(5):
        assert await store.add_chat("ROOM", f"line {i}".encode(), keep=3)

    assert await store.read_chat("ROOM") == [b"line 2", b"line 3", b"line 4"]
    assert await store.read_chat("OTHER") == []
    # A chat line is no commit: the version and the log stay as they were.
    assert await store.load("ROOM") == Stored(version=0, snapshot=b"v0")
    assert await store.read_log("ROOM") == []
    await store.commit("ROOM", 1, b"v1", [b"e1"])
    assert await store.read_chat("ROOM") == [b"line 2", b"line 3", b"line 4"]


async def test_delete_and_create_clear_the_chat(store: RoomStore) -> None:
    await store.create("ROOM", b"v0")
    await store.add_chat("ROOM", b"hello", keep=100)
    await store.delete("ROOM")
    assert await store.read_chat("ROOM") == []
    assert await store.create("ROOM", b"fresh")
    assert await store.read_chat("ROOM") == []


async def test_chat_lines_must_be_bytes(store: RoomStore) -> None:
    await store.create("ROOM", b"v0")
    with pytest.raises(TypeError):
        await store.add_chat("ROOM", "text", keep=10)  # type: ignore[arg-type]


async def test_memory_chat_expires_with_its_room_and_renews_it() -> None:
    clock = ManualClock()
    store = MemoryStore(10.0, clock=clock)
    await store.create("ROOM", b"v0")
    clock.advance(8)
    await store.add_chat("ROOM", b"still here", keep=100)  # a line renews the room
    clock.advance(8)
    assert await store.exists("ROOM")
    assert await store.read_chat("ROOM") == [b"still here"]
    clock.advance(2)
    assert not await store.exists("ROOM")
    assert await store.read_chat("ROOM") == []
    assert await store.create("ROOM", b"reborn")
    assert await store.read_chat("ROOM") == []


async def test_redis_chat_expires_with_the_room(
    redis_url: str, redis_prefix: str, raw_redis: aioredis.Redis
) -> None:
    store = RedisStore(redis_url, prefix=redis_prefix, ttl_seconds=600)
    try:
        await store.create("ROOM", b"v0")
        await store.commit("ROOM", 1, b"v1", [b"e1"])
        keys = (store.room_key("ROOM"), store.log_key("ROOM"), store.chat_key("ROOM"))
        assert store.chat_key("ROOM") == store.room_part("ROOM", "chat")
        for key in keys[:2]:
            await raw_redis.pexpire(key, 5000)
        # A chat line renews every key of the room (the chat's own included) ...
        await store.add_chat("ROOM", b"one", keep=100)
        for key in keys:
            assert 5000 < await raw_redis.pttl(key) <= 600_000
        # ... and so does a commit: the room's keys always end together.
        for key in keys:
            await raw_redis.pexpire(key, 5000)
        await store.commit("ROOM", 2, b"v2", [b"e2"])
        for key in keys:
            assert 5000 < await raw_redis.pttl(key) <= 600_000
    finally:
        await store.aclose()


async def test_redis_chat_is_fenced_by_the_lease(redis_store: RedisStore) -> None:
    await redis_store.create("ROOM", b"v0")
    lease = await redis_store.acquire_lease("ROOM", "me", 5000)
    assert lease is not None
    assert await redis_store.add_chat("ROOM", b"mine", keep=10, lease=lease)
    with pytest.raises(LeaseLost):
        await redis_store.add_chat("ROOM", b"stale", keep=10, lease="me:0")
    assert await redis_store.read_chat("ROOM") == [b"mine"]


async def test_redis_create_discards_a_leftover_chat(
    redis_store: RedisStore, raw_redis: aioredis.Redis
) -> None:
    await raw_redis.rpush(redis_store.chat_key("ROOM"), b"stale")
    assert await redis_store.create("ROOM", b"v0")
    assert await redis_store.read_chat("ROOM") == []
