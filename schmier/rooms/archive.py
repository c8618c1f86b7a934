"""Where this process keeps the rooms' books of finished hands, brought up to date from
the store on each request.

Any instance answers for any room, owner or not, live or not: a book is made from the
stored snapshot (variant, rules, first dealer) and the stored log, and only the log
entries appended since the last request are read and folded in. A few recently asked
rooms are kept; the others are folded afresh if asked again.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from schmier.rooms.record import RoomRecord
from schmier.rooms.records import Book
from schmier.store import RoomStore

KEPT_BOOKS = 64
"""Rooms whose book stays in memory between requests (least recently asked go first)."""

FOLD_CHUNK = 256
"""Log entries folded between two turns of the event loop."""


class Archive:
    """The books of this process, by room code."""

    def __init__(self, store: RoomStore, kept: int = KEPT_BOOKS) -> None:
        self._store = store
        self._kept = kept
        self._books: OrderedDict[str, Book] = OrderedDict()

    async def book(self, code: str) -> Book | None:
        """The room's book with every hand finished by now; None for an unknown room."""
        stored = await self._store.load(code)
        if stored is None:
            self._books.pop(code, None)
            return None
        record = RoomRecord.from_bytes(stored.snapshot)
        book = self._books.get(code)
        if book is None or (book.created, book.first_dealer) != (
            record.created,
            record.first_dealer,
        ):
            book = Book.of(record)
            self._books[code] = book
        self._books.move_to_end(code)
        while len(self._books) > self._kept:
            self._books.popitem(last=False)
        if book.first_dealer is None or book.broken:
            return book  # the lobby: no game, no log yet
        start = book.consumed
        entries = await self._store.read_log(code, start)
        # Entry i of this read is log entry start + i (the log only grows); another
        # request may fold some of them in meanwhile. A long log is folded a chunk at a
        # time, so the first look at a big room does not hold the event loop.
        while not book.broken and book.consumed - start < len(entries):
            done = book.consumed - start
            book.feed(entries[done : done + FOLD_CHUNK])
            await asyncio.sleep(0)
        return book
