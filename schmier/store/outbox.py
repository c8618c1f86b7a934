"""The archive's outbox in Redis (docs/archive.md, "The outbox"): the finished games
not archived yet.

A sorted set `archive:queue` holds their ids by the time their game ended, a hash
`archive:entries` their entries; both are filled by the commit that ends a game
(`scripts.COMMIT_FINISHED`), in the same atomic step, and emptied by the archive's
worker once a game is written. A claim `archive:claim:<game>` (a key that expires)
keeps other instances off an entry one of them is archiving.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import redis.asyncio as aioredis

from schmier.store import scripts
from schmier.store.keys import Keys


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisOutbox:
    """The outbox's four operations, for `RedisStore` (which delegates to them)."""

    def __init__(
        self,
        client: aioredis.Redis,
        keys: Keys,
        calling: Callable[[str], AbstractContextManager[None]],
    ) -> None:
        self._client = client
        self._keys = keys
        self._calling = calling
        self._done = client.register_script(scripts.OUTBOX_DONE)
        self._claim = client.register_script(scripts.OUTBOX_CLAIM)

    async def pending(self, limit: int) -> list[tuple[str, bytes]]:
        """Up to `limit` entries, oldest first; an id without its entry is dropped."""
        if limit <= 0:
            return []
        with self._calling("outbox"):
            games: list[Any] = await self._client.zrange(self._keys.outbox("queue"), 0, limit - 1)
            if not games:
                return []
            payloads: list[Any] = await self._client.hmget(self._keys.outbox("entries"), games)
        pending = []
        for game, payload in zip(games, payloads, strict=True):
            if payload is not None and isinstance(payload, bytes):
                pending.append((_text(game), payload))
            else:
                await self.done(_text(game))
        return pending

    async def claim(self, game: str, owner: str, ms: int) -> bool:
        """Take (or renew) the claim on `game` for `ms`; False while another holds it."""
        with self._calling("outbox"):
            taken: Any = await self._claim(
                keys=[self._keys.outbox(f"claim:{game}")], args=[owner, max(1, ms)]
            )
        return bool(int(taken))

    async def done(self, game: str) -> None:
        """The game is archived: its id, entry and claim go, in one step."""
        keys = [
            self._keys.outbox("queue"),
            self._keys.outbox("entries"),
            self._keys.outbox(f"claim:{game}"),
        ]
        with self._calling("outbox"):
            await self._done(keys=keys, args=[game])

    async def stats(self) -> tuple[int, int | None]:
        """How many wait, and when the oldest ended (Unix ms)."""
        with self._calling("outbox"):
            async with self._client.pipeline(transaction=False) as pipe:
                pipe.zcard(self._keys.outbox("queue"))
                pipe.zrange(self._keys.outbox("queue"), 0, 0, withscores=True)
                count, oldest = await pipe.execute()
        if not oldest:
            return int(count), None
        return int(count), int(oldest[0][1])
