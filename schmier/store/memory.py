"""The embedded store: rooms in a dict, for a single instance without Redis.

Nothing survives a restart; that is the price of needing no other service. Every method
runs without awaiting anything, so under asyncio each one is atomic and the
compare-and-set in `commit` needs no lock.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from schmier.store.base import (
    Finished,
    Stored,
    VersionConflict,
    check_chat_args,
    check_commit_args,
)

#: The longest a dead room may linger in memory before a sweep removes it, even when
#: the TTL is long (rooms that are never touched again are only found by a sweep).
MAX_SWEEP_INTERVAL = 60.0


@dataclass(slots=True)
class _Room:
    version: int
    snapshot: bytes
    expires_at: float
    log: list[bytes] = field(default_factory=list)
    chat: list[bytes] = field(default_factory=list)
    analyses: dict[int, bytes] = field(default_factory=dict)
    tables: dict[int, list[str]] = field(default_factory=dict)


class MemoryStore:
    """A `RoomStore` in process memory with the same expiry rules as Redis.

    `clock` is injectable so tests can move time instead of sleeping; it must be
    monotonic, because a wall clock jumping backwards would keep rooms alive forever.
    """

    def __init__(self, ttl_seconds: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        if ttl_seconds <= 0:
            raise ValueError(f"ttl_seconds must be positive, got {ttl_seconds!r}")
        self._ttl = float(ttl_seconds)
        self._clock = clock
        self._rooms: dict[str, _Room] = {}
        self._outbox: dict[str, tuple[int, bytes]] = {}
        """The archive's outbox: game id -> (ended at, Unix ms; entry). In memory like
        the rooms whose logs it points into (docs/archive.md argues why)."""
        self._sweep_interval = min(self._ttl, MAX_SWEEP_INTERVAL)
        self._next_sweep = clock() + self._sweep_interval

    def __len__(self) -> int:
        """How many rooms are held, expired or not (what the sweep keeps bounded)."""
        return len(self._rooms)

    def _live(self, code: str) -> _Room | None:
        """The room if it exists and has not expired; an expired one is dropped here."""
        now = self._clock()
        if now >= self._next_sweep:
            self._sweep(now)
        room = self._rooms.get(code)
        if room is None:
            return None
        if room.expires_at <= now:
            del self._rooms[code]
            return None
        return room

    def _sweep(self, now: float) -> None:
        """Drop every expired room; runs at most once per sweep interval, so its cost
        is spread over many calls and memory cannot grow with abandoned rooms."""
        expired = [code for code, room in self._rooms.items() if room.expires_at <= now]
        for code in expired:
            del self._rooms[code]
        self._next_sweep = now + self._sweep_interval

    async def create(self, code: str, snapshot: bytes) -> bool:
        if self._live(code) is not None:
            return False
        self._rooms[code] = _Room(
            version=0, snapshot=bytes(snapshot), expires_at=self._clock() + self._ttl
        )
        return True

    async def load(self, code: str) -> Stored | None:
        room = self._live(code)
        if room is None:
            return None
        return Stored(version=room.version, snapshot=room.snapshot)

    async def commit(
        self,
        code: str,
        version: int,
        snapshot: bytes,
        entries: Sequence[bytes] = (),
        *,
        lease: str | None = None,
        finished: Finished | None = None,
    ) -> None:
        # One process is the only writer of a memory store, so there is no lease to
        # check: `lease` is accepted for the shared signature and must stay None.
        if lease is not None:
            raise ValueError("the memory store serves a single instance and has no leases")
        check_commit_args(version, entries)
        room = self._live(code)
        if room is None:
            raise VersionConflict(code, version, None)
        if room.version != version - 1:
            raise VersionConflict(code, version, room.version)
        room.version = version
        room.snapshot = bytes(snapshot)
        room.log.extend(bytes(entry) for entry in entries)
        room.expires_at = self._clock() + self._ttl
        if finished is not None:
            self._outbox.setdefault(finished.game, (finished.at_ms, bytes(finished.payload)))

    async def read_log(self, code: str, start: int = 0) -> list[bytes]:
        room = self._live(code)
        if room is None:
            return []
        return room.log[max(start, 0) :]

    async def add_chat(
        self, code: str, line: bytes, *, keep: int, lease: str | None = None
    ) -> bool:
        if lease is not None:
            raise ValueError("the memory store serves a single instance and has no leases")
        check_chat_args(line, lease)
        room = self._live(code)
        if room is None:
            return False
        room.chat.append(bytes(line))
        del room.chat[: max(len(room.chat) - keep, 0)]
        room.expires_at = self._clock() + self._ttl
        return True

    async def read_chat(self, code: str) -> list[bytes]:
        room = self._live(code)
        return [] if room is None else list(room.chat)

    async def analysis_put(self, code: str, n: int, data: bytes) -> bool:
        room = self._live(code)
        if room is None:
            return False
        room.analyses[int(n)] = bytes(data)
        return True

    async def analysis_get(self, code: str, n: int) -> bytes | None:
        room = self._live(code)
        return None if room is None else room.analyses.get(int(n))

    async def table_add(self, code: str, n: int, table: str, most: int) -> bool:
        room = self._live(code)
        kept = None if room is None else room.tables.setdefault(int(n), [])
        if kept is None or len(kept) >= most:
            return False
        kept.append(str(table))
        return True

    async def tables_get(self, code: str, n: int) -> list[str]:
        room = self._live(code)
        return [] if room is None else list(room.tables.get(int(n), []))

    async def exists(self, code: str) -> bool:
        return self._live(code) is not None

    async def delete(self, code: str) -> None:
        self._rooms.pop(code, None)

    async def ping(self) -> bool:
        return True

    async def outbox_pending(self, limit: int) -> list[tuple[str, bytes]]:
        oldest = sorted(self._outbox.items(), key=lambda item: (item[1][0], item[0]))
        return [(game, payload) for game, (_at, payload) in oldest[: max(limit, 0)]]

    async def outbox_claim(self, game: str, owner: str, ms: int) -> bool:
        return game in self._outbox  # one instance: nobody else could hold it

    async def outbox_done(self, game: str) -> None:
        self._outbox.pop(game, None)

    async def outbox_stats(self) -> tuple[int, int | None]:
        if not self._outbox:
            return 0, None
        return len(self._outbox), min(at for at, _payload in self._outbox.values())

    async def aclose(self) -> None:
        self._rooms.clear()
