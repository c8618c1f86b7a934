"""Room persistence: the `RoomStore` contract and its two backends.

`open_store` picks the backend from configuration, so the rest of the server never
imports Redis directly and runs unchanged with or without it.
"""

from __future__ import annotations

from schmier.store.base import LeaseLost, RoomStore, Stored, StoreError, VersionConflict
from schmier.store.memory import MemoryStore
from schmier.store.redis import RedisStore

__all__ = [
    "LeaseLost",
    "MemoryStore",
    "RedisStore",
    "RoomStore",
    "StoreError",
    "Stored",
    "VersionConflict",
    "open_store",
]


def open_store(redis_url: str | None, *, prefix: str, ttl_seconds: float) -> RoomStore:
    """The configured store: Redis when a URL is given, otherwise process memory.

    Does not connect; the first command (or `ping`) does, so a server can start while
    Redis is still coming up and report it through its health check.
    """
    if redis_url:
        return RedisStore(redis_url, prefix=prefix, ttl_seconds=ttl_seconds)
    return MemoryStore(ttl_seconds)
