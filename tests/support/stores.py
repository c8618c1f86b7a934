"""Store fixtures: one `store` fixture that runs a test against every backend.

The shared suite in tests/test_store.py is what makes MemoryStore and RedisStore
interchangeable; other test modules may use `store`, `memory_store` or `redis_store`.
`unix_redis_store` is the RedisStore reached over a Unix socket (`unix://...`, Redis on
the same machine without the loopback's TCP), on a Redis of the test session's own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from schmier.store import MemoryStore, RedisStore, RoomStore
from tests.support.redis_procs import RedisProcess

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


@pytest.fixture(scope="session")
def unix_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Redis of the session's own that also listens on a Unix socket: its `unix://`
    URL. (Its TCP port only tells the fixture that it is up.)"""
    directory: Path = tmp_path_factory.mktemp("unix-redis")
    path = directory / "redis.sock"
    server = RedisProcess(directory, "--unixsocket", str(path), "--unixsocketperm", "700")
    server.start()
    try:
        yield f"unix://{path}?db=0"
    finally:
        server.kill()


@pytest.fixture
async def unix_redis_store(unix_redis: str, redis_prefix: str) -> AsyncIterator[RedisStore]:
    """A RedisStore whose every connection (commits, pool, subscriptions) is the socket."""
    store = RedisStore(unix_redis, prefix=redis_prefix, ttl_seconds=TEST_TTL)
    yield store
    await store.aclose()


@pytest.fixture(params=["memory", "redis", "unix_redis"])
def store(request: pytest.FixtureRequest) -> RoomStore:
    """Each backend in turn; the Redis ones skip (or fail) when Redis is absent.

    Deliberately synchronous: it only picks one of the async fixtures above, and
    `getfixturevalue` cannot set up an async fixture from inside a running loop."""
    backend: RoomStore = request.getfixturevalue(f"{request.param}_store")
    return backend
