"""The archive's worker: takes finished games from the store's outbox and writes them to
the database, behind the games and never in their way.

Each instance runs one. It looks at the outbox every `POLL_SECONDS` (the rooms know
nothing of the archive: a game's end is only the entry its commit wrote), takes the
oldest entries, claims each (so two instances rarely do the same work), folds the
game's hands from its room's log (`rooms.archive.Archive`: the very records the room
serves), writes the game (idempotent by its id) and only then removes the entry. A
server killed at any point leaves the entry in the outbox, or the game archived and the
entry there: either way the next attempt ends with the game archived exactly once.
While the database (or the store) does not answer, it waits, longer each time up to
`MAX_BACKOFF` seconds, and counts each failed attempt.

A stopping server lets the write in hand finish rather than cancel it: a database call
cut off by a cancellation can leave its connection (with SQLite: a connection holding
the file's write lock, whose close the cancellation also abandoned) in a state nothing
cleans up, and every later write waits for it. A server stopped that way once never
finished stopping (its archive waited for ever). Only a write still unfinished
`STOP_GRACE` seconds past the final drain is cancelled, as a last resort, and logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

import orjson

from schmier.ledger import games
from schmier.ledger.build import IncompleteGame, archived_game
from schmier.ledger.database import STOP_GRACE, Database, DatabaseUnavailable
from schmier.logs import event, failure
from schmier.metrics import Metrics
from schmier.rooms.archive import Archive
from schmier.shutdown import finish_or_cut
from schmier.store import RoomStore, StoreError

POLL_SECONDS = 0.5
BATCH = 16
CLAIM_MS = 10_000
"""How long a claim keeps other instances off an entry: far longer than archiving one
game takes, short enough that a dead instance's claims do not hold the archive up."""
MAX_BACKOFF = 8.0
FINAL_DRAIN = 5.0
"""Seconds a stopping server spends archiving what is still in the outbox."""


class Archiver:
    """One instance's worker between the outbox and the database."""

    def __init__(
        self,
        store: RoomStore,
        books: Archive,
        database: Database,
        metrics: Metrics,
        owner: str,
    ) -> None:
        self._store = store
        self._books = books
        self._db = database
        self._metrics = metrics
        self._owner = owner
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        self._deadline: float | None = None
        """Set when the server stops: no game is begun past this time (the loop's)."""

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="archiver")

    async def aclose(self, drain_seconds: float = FINAL_DRAIN) -> None:
        """Stop; first archive what waits, for a few seconds at most (a server stopped
        properly leaves nothing behind, which matters most with the memory store). The
        write in hand is finished, not cancelled (see the module's docstring)."""
        task = self._task
        if task is None or task.done():
            return
        if not self._db.ready.is_set():
            # Still waiting for the schema: no database call is in hand to cut off.
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            return
        self._deadline = asyncio.get_running_loop().time() + drain_seconds
        self._stopping.set()
        await finish_or_cut(task, drain_seconds + STOP_GRACE, "archive.stop_cut")

    async def _run(self) -> None:
        await self._db.ready.wait()
        backoff = 0.0
        while not self._stopping.is_set():
            try:
                await self.drain()
                backoff = 0.0
            except (DatabaseUnavailable, StoreError):
                self._metrics.archive_failures.inc()
                backoff = min(MAX_BACKOFF, max(0.5, backoff * 2))
            except Exception:
                self._metrics.archive_failures.inc()
                failure("archive.failed")
                backoff = MAX_BACKOFF
            await self._stats()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(backoff or POLL_SECONDS):
                    await self._stopping.wait()
        # The server stops: what still waits is archived, until the deadline.
        if self._db.up:
            try:
                await self.drain()
            except (DatabaseUnavailable, StoreError):
                pass  # left in the outbox, for the next start or another instance
            except Exception:
                failure("archive.failed")

    def _past_deadline(self) -> bool:
        return self._deadline is not None and asyncio.get_running_loop().time() > self._deadline

    async def drain(self) -> int:
        """Archive what the outbox holds now; how many games this call wrote. Raises
        `DatabaseUnavailable` or `StoreError` when either does not answer (the entry
        in hand stays in the outbox). A stopping server begins no game past its
        deadline."""
        written = 0
        while True:
            pending = await self._store.outbox_pending(BATCH)
            progressed = False
            for game_id, payload in pending:
                if self._past_deadline():
                    return written
                if not await self._store.outbox_claim(game_id, self._owner, CLAIM_MS):
                    continue
                progressed = True
                if await self._archive(game_id, orjson.loads(payload)):
                    written += 1
            if not progressed or len(pending) < BATCH:
                return written

    async def _archive(self, game_id: str, entry: dict[str, Any]) -> bool:
        book = await self._books.book(entry["room"])
        try:
            if book is None or book.created != entry["created"]:
                raise IncompleteGame(f"game {game_id}: its room is gone")
            game = archived_game(entry, book.records)
        except IncompleteGame:
            self._metrics.archive_lost.inc()
            event("archive.game_lost", logging.ERROR, game=game_id)
            await self._store.outbox_done(game_id)
            return False
        async with self._db.begin() as conn:
            new = await games.write(conn, game)
        await self._store.outbox_done(game_id)
        if new:
            self._metrics.archived.inc()
            event("archive.game", game=game_id, hands=len(game.records), club=bool(game.club))
        return new

    async def _stats(self) -> None:
        try:
            pending, oldest = await self._store.outbox_stats()
        except StoreError:
            return
        self._metrics.outbox_pending.set(pending)
        age = 0.0 if oldest is None else max(0.0, time.time() - oldest / 1000)
        self._metrics.outbox_oldest.set(age)
