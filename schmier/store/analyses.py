"""Finished hands' analyses in Redis (docs/protocol.md, "Analysis of a finished hand").

An analysis is kept as a field `analysis:<n>` of the room's own hash (`room:{<code>}`),
beside its snapshot: it expires with the room (every commit renews the hash's expiry),
goes when the room is deleted, survives restarts, and a room made anew under the same
code starts without any. The field holds the analysis when it is done, or its progress
while an instance computes it (`rooms.analyses`).

The tables that played a finished hand again (`rooms.tables`) are kept the same way, as
a field `tables:<n>` of the room's hash: the practice rooms' codes, space-separated,
appended by a script that refuses past the most a hand may have (so two instances
adding at once cannot go past it or lose one).
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


def tables_field(n: int) -> str:
    """The room hash's field that holds the practice rooms made from hand `n`."""
    return f"tables:{int(n)}"


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
        self._add_table = client.register_script(scripts.ADD_TABLE)

    async def put(self, code: str, n: int, data: bytes) -> bool:
        with self._calling("analysis_put"):
            done: Any = await self._put(keys=[self._room_key(code)], args=[field_of(n), data])
        return bool(done)

    async def get(self, code: str, n: int) -> bytes | None:
        with self._calling("analysis_get"):
            found: Any = await self._client.hget(self._room_key(code), field_of(n))
        return None if found is None else bytes(found)

    async def add_table(self, code: str, n: int, table: str, most: int) -> bool:
        with self._calling("table_add"):
            args: list[str | int] = [tables_field(n), table, int(most)]
            done: Any = await self._add_table(keys=[self._room_key(code)], args=args)
        return bool(done)

    async def tables(self, code: str, n: int) -> list[str]:
        with self._calling("tables_get"):
            found: Any = await self._client.hget(self._room_key(code), tables_field(n))
        return [] if found is None else bytes(found).decode().split()
