"""Room persistence: the `RoomStore` contract and its two backends.

`open_store` picks the backend from configuration, so the rest of the server never
imports Redis directly and runs unchanged with or without it.
"""

from __future__ import annotations

from collections.abc import Sequence

from schmier.store.base import (
    Finished,
    LeaseLost,
    RoomStore,
    Stored,
    StoreError,
    StoreUnavailable,
    VersionConflict,
)
from schmier.store.health import StoreHealth
from schmier.store.memory import MemoryStore
from schmier.store.redis import RedisStore
from schmier.store.sentinel import Address, parse_sentinels

__all__ = [
    "Finished",
    "LeaseLost",
    "MemoryStore",
    "RedisStore",
    "RoomStore",
    "StoreError",
    "StoreHealth",
    "StoreUnavailable",
    "Stored",
    "VersionConflict",
    "health_of",
    "open_store",
    "parse_sentinels",
]


def open_store(
    redis_url: str | None,
    *,
    prefix: str,
    ttl_seconds: float,
    sentinels: Sequence[Address] = (),
    sentinel_master: str = "mymaster",
    wait_replicas: int = 0,
    wait_ms: int = 1000,
    wait_strict: bool = False,
) -> RoomStore:
    """The configured store: Redis when a URL or sentinels are given, otherwise memory.

    With sentinels the URL (default `redis://`) gives only the database, password and
    TLS options; the master's address comes from the sentinels. Does not connect; the
    first command (or `ping`) does, so a server can start while Redis is still coming
    up and report it through its health check.
    """
    if redis_url or sentinels:
        return RedisStore(
            redis_url or "redis://",
            prefix=prefix,
            ttl_seconds=ttl_seconds,
            sentinels=sentinels,
            sentinel_master=sentinel_master,
            wait_replicas=wait_replicas,
            wait_ms=wait_ms,
            wait_strict=wait_strict,
        )
    return MemoryStore(ttl_seconds)


def health_of(store: RoomStore) -> StoreHealth | None:
    """The store's health, for a store that can become unreachable (Redis); None for
    one that cannot (memory, or a test's own store)."""
    health = getattr(store, "health", None)
    return health if isinstance(health, StoreHealth) else None
