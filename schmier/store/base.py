"""The room store contract shared by every backend.

A room is a versioned snapshot plus an append-only log of the actions that led to it, and
the last lines of its chat. All three expire together.
The room actor is the only writer of a live room, but after a restart or with several
instances two writers can briefly believe they own the same room; the version check in
`commit` is what keeps them from overwriting each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class Stored:
    """A room as last committed.

    `version` is the number of commits since `create` (0 right after it); the room
    actor uses it as the protocol's `seq`. `snapshot` is opaque to the store.
    """

    version: int
    snapshot: bytes


@dataclass(frozen=True, slots=True)
class Finished:
    """A game that ended with a commit: the archive's outbox entry, written in the same
    atomic step as the commit that ended the game (docs/archive.md, "The outbox").

    `game` is the game's id (the outbox is idempotent by it), `at_ms` when it ended
    (Unix milliseconds: the outbox's order and its age), `payload` the entry itself
    (`schmier.rooms.finished`), opaque to the store like a snapshot.
    """

    game: str
    at_ms: int
    payload: bytes


class StoreError(Exception):
    """The backend failed (Redis down, timed out, answered nonsense).

    Kept apart from `VersionConflict` because the caller reacts differently: a conflict
    means "reload and retry", a store error means "the room cannot be saved right now".
    """


class StoreUnavailable(StoreError):
    """The store cannot be reached or is not serving right now: the connection was
    refused, lost or timed out, or Redis answered that it cannot take writes at the
    moment (loading its data, a replica since a failover, no master, ...).

    An outage rather than a bug: the server pauses the rooms and waits for the store
    to come back (docs/scaling.md, "When Redis is down") instead of logging a
    traceback for every attempt. What a failed write did is unknown: it may or may not
    have been applied, which is why a room checks the store before going on.
    """

    outage = True
    """Logged once per outage by the store's health, not by whoever met it."""


class VersionConflict(Exception):
    """A commit was refused because the stored version is not `version - 1`.

    Nothing was written. `actual` is the version found, or None when the room does not
    exist (never created, deleted, or expired), so the caller can tell a lost race from
    a vanished room.
    """

    def __init__(self, code: str, version: int, actual: int | None) -> None:
        self.code = code
        self.version = version
        self.actual = actual
        found = "no room" if actual is None else f"version {actual}"
        super().__init__(f"room {code!r}: commit of version {version} refused, found {found}")


class LeaseLost(Exception):
    """A commit was refused because the room's lease is no longer the caller's.

    Nothing was written. It means another instance owns the room now (the caller was
    paused, cut off from Redis, or too slow to renew): the caller must stop serving the
    room instead of reloading and retrying, or two owners would take turns.
    """

    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(f"room {code!r}: the lease is held by another owner")


@runtime_checkable
class RoomStore(Protocol):
    """Where rooms live between actions; see docs/architecture.md for the contract."""

    async def create(self, code: str, snapshot: bytes) -> bool:
        """Store version 0 of a new room; False (and no write) when `code` exists."""
        ...

    async def load(self, code: str) -> Stored | None:
        """The room's current version and snapshot, or None when it does not exist."""
        ...

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
        """Compare-and-set: store `snapshot` as `version` and append `entries` to the log.

        Succeeds only when the stored version is `version - 1`; otherwise raises
        `VersionConflict` and writes nothing. Renews the room's expiry. With `lease`
        (several instances on Redis) it also succeeds only while the room's lease key
        holds exactly that value, else raises `LeaseLost`: this is the fencing check
        that keeps an owner which lost its lease from ever writing again. A single
        instance passes None and no lease is checked. With `finished` (the commit ends a
        game) the same atomic step puts that entry in the archive's outbox.
        """
        ...

    async def read_log(self, code: str, start: int = 0) -> list[bytes]:
        """The log entries from index `start` on, oldest first; [] for an unknown room."""
        ...

    async def add_chat(
        self, code: str, line: bytes, *, keep: int, lease: str | None = None
    ) -> bool:
        """Append one chat line and keep only the last `keep`; False (and no write) when
        the room does not exist.

        Not versioned (a chat line is no change of the room's state, so `seq` stays), but
        fenced like a commit: with `lease`, raises `LeaseLost` unless the room's lease key
        holds exactly that value. Renews the expiry of the whole room, so its snapshot,
        its log and its chat always expire together.
        """
        ...

    async def read_chat(self, code: str) -> list[bytes]:
        """The kept chat lines, oldest first; [] for an unknown room."""
        ...

    async def analysis_put(self, code: str, n: int, data: bytes) -> bool:
        """Keep `data` (opaque: a finished hand's analysis, or its progress) as the room's
        analysis of hand `n`, replacing any; False (and no write) when the room does not
        exist. It expires and is deleted with the room, and renews nothing."""
        ...

    async def analysis_get(self, code: str, n: int) -> bytes | None:
        """The room's kept analysis of hand `n`, or None."""
        ...

    async def table_add(self, code: str, n: int, table: str, most: int) -> bool:
        """Count room `table` (a practice room made from hand `n`) among the tables that
        played hand `n` of room `code`, after those already counted; False (and no write)
        when the room does not exist or `most` are counted already. Kept, expiring and
        deleted with the room like an analysis; renews nothing."""
        ...

    async def tables_get(self, code: str, n: int) -> list[str]:
        """The rooms counted for hand `n` of room `code`, oldest first ([]: none)."""
        ...

    async def exists(self, code: str) -> bool:
        """Whether a room with this code is stored (and not expired)."""
        ...

    async def delete(self, code: str) -> None:
        """Remove the room, its log and its chat; a missing room is not an error."""
        ...

    async def ping(self) -> bool:
        """Whether the backend answers; never raises (used by the health check)."""
        ...

    async def outbox_pending(self, limit: int) -> list[tuple[str, bytes]]:
        """Up to `limit` entries of the archive's outbox, oldest first: (game, payload)."""
        ...

    async def outbox_claim(self, game: str, owner: str, ms: int) -> bool:
        """Take entry `game` for `ms` milliseconds, unless another owner holds it (so
        several instances do not archive one game at the same time; the archive's
        write is idempotent all the same). True without Redis: one instance."""
        ...

    async def outbox_done(self, game: str) -> None:
        """Remove entry `game` (it is archived); a missing entry is not an error."""
        ...

    async def outbox_stats(self) -> tuple[int, int | None]:
        """How many entries wait, and when the oldest ended (Unix ms; None: none)."""
        ...

    async def aclose(self) -> None:
        """Release connections; the store must not be used afterwards."""
        ...


def check_commit_args(version: int, entries: Sequence[bytes]) -> None:
    """Refuse arguments no backend could store meaningfully, before touching it.

    Version 0 belongs to `create`, so a commit always carries version 1 or more; the log
    holds bytes only (a str would silently be encoded by Redis but not by the dict).
    """
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValueError(f"commit version must be an int >= 1, got {version!r}")
    for entry in entries:
        if not isinstance(entry, bytes | bytearray | memoryview):
            raise TypeError(f"log entries must be bytes, got {type(entry).__name__}")


def check_chat_args(line: bytes, lease: str | None) -> None:
    """A chat line is bytes (as log entries are); an empty lease would check nothing."""
    if not isinstance(line, bytes | bytearray | memoryview):
        raise TypeError(f"a chat line must be bytes, got {type(line).__name__}")
    if lease == "":
        raise ValueError("an empty lease value would disable the lease check")
