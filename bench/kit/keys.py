"""Redis keys under a prefix: a fresh prefix per run, and every key under it deleted after.

Tools and tests share one Redis with whatever else runs on the machine; each keeps to a
prefix of its own and removes it when done, so nothing is left behind.
"""

from __future__ import annotations

import uuid
from typing import Any

CHUNK = 1000
"""Keys per SCAN step and per DEL command."""


def fresh_prefix(kind: str, length: int = 10) -> str:
    """A key prefix nobody else uses, e.g. `schmier-bench:3f2a9c1b7e:`."""
    return f"{kind}:{uuid.uuid4().hex[:length]}:"


def delete_prefix(url: str, prefix: str) -> int:
    """Delete every key under `prefix` in the Redis at `url`; how many there were."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=prefix + "*", count=CHUNK))
        for i in range(0, len(keys), CHUNK):
            client.delete(*keys[i : i + CHUNK])
    finally:
        client.close()
    return len(keys)


async def delete_prefix_async(client: Any, prefix: str) -> int:
    """The same through an open `redis.asyncio` client (left open)."""
    keys = [key async for key in client.scan_iter(match=prefix + "*", count=CHUNK)]
    for i in range(0, len(keys), CHUNK):
        await client.delete(*keys[i : i + CHUNK])
    return len(keys)
