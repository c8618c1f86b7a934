"""Store fixtures: one `store` fixture that runs a test against every backend.

The shared suite in tests/test_store.py is what makes MemoryStore and RedisStore
interchangeable; other test modules may use `store`, `memory_store` or `redis_store`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from schmier.store import MemoryStore, RedisStore, RoomStore

#: Long enough that nothing expires during a test unless the test arranges it.
TEST_TTL = 600.0


class ManualClock:
    """A monotonic clock that moves only when told, for MemoryStore expiry tests."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move time forward; backwards would break the monotonic contract."""
        assert seconds >= 0
        self.now += seconds


@pytest.fixture
async def memory_store() -> AsyncIterator[MemoryStore]:
    """A fresh MemoryStore on the real monotonic clock."""
    store = MemoryStore(TEST_TTL)
    yield store
    await store.aclose()


@pytest.fixture
async def redis_store(redis_url: str, redis_prefix: str) -> AsyncIterator[RedisStore]:
    """A RedisStore on the real Redis, confined to this test's key prefix."""
    store = RedisStore(redis_url, prefix=redis_prefix, ttl_seconds=TEST_TTL)
    yield store
    await store.aclose()


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> RoomStore:
    """Each backend in turn; the Redis one skips (or fails) when Redis is absent.

    Deliberately synchronous: it only picks one of the async fixtures above, and
    `getfixturevalue` cannot set up an async fixture from inside a running loop."""
    backend: RoomStore = request.getfixturevalue(f"{request.param}_store")
    return backend
