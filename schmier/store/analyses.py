"""Finished hands' analyses in Redis (docs/protocol.md, "Analysis of a finished hand").

An analysis is kept as a field `analysis:<n>` of the room's own hash (`room:{<code>}`),
beside its snapshot: it expires with the room (every commit renews the hash's expiry),
goes when the room is deleted, survives restarts, and a room made anew under the same
code starts without any. The field holds the analysis when it is done, or its progress
while an instance computes it (`rooms.analyses`).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import redis.asyncio as aioredis

from schmier.store import scripts


def field_of(n: int) -> str:
    """The room hash's field that holds hand `n`'s analysis."""
    return f"analysis:{int(n)}"


class RedisAnalyses:
    """The two operations, for `RedisStore` (which delegates to them)."""

    def __init__(
        self,
        client: aioredis.Redis,
        room_key: Callable[[str], str],
        calling: Callable[[str], AbstractContextManager[None]],
    ) -> None:
        self._client = client
        self._room_key = room_key
        self._calling = calling
        self._put = client.register_script(scripts.PUT_IF_ROOM)

    async def put(self, code: str, n: int, data: bytes) -> bool:
        with self._calling("analysis_put"):
            done: Any = await self._put(keys=[self._room_key(code)], args=[field_of(n), data])
        return bool(done)

    async def get(self, code: str, n: int) -> bytes | None:
        with self._calling("analysis_get"):
            found: Any = await self._client.hget(self._room_key(code), field_of(n))
        return None if found is None else bytes(found)
