"""The live rooms of this server: start an actor on demand, forget it when it stops."""

from __future__ import annotations

import asyncio
from typing import Any

from app import engine
from app.config import Settings
from app.logs import event
from app.metrics import Metrics
from app.rooms.actor import Peer, RoomActor, RoomGone
from app.rooms.codes import new_code
from app.rooms.record import RoomRecord
from app.store import RoomStore, StoreError

RETRIES = 5
"""Attempts to reach a room whose actor stops under our feet (idle, or failing to load)."""


class UnknownRoom(Exception):
    """No room is stored under this code."""


class ShuttingDown(Exception):
    """The server is stopping and starts no more rooms."""


class Rooms:
    """Registry of live room actors, kept on `app.state.rooms`."""

    def __init__(self, store: RoomStore, settings: Settings, metrics: Metrics) -> None:
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.live: dict[str, RoomActor] = {}
        self._loading: dict[str, asyncio.Task[RoomActor | None]] = {}
        self.closing = False

    async def create(self, variant: str, rules: engine.Rules) -> RoomRecord:
        """Store a new empty room under a fresh code (retrying the rare collision)."""
        while True:
            record = RoomRecord.new(new_code(), variant, rules)
            if await self.store.create(record.code, record.to_bytes()):
                event("room.created", room=record.code, variant=variant)
                return record

    async def get(self, code: str) -> RoomActor | None:
        """The room's live actor, loading it from the store if needed; None if unknown."""
        if self.closing:
            raise ShuttingDown()
        actor = self.live.get(code)
        if actor is not None and not actor.closed:
            return actor
        task = self._loading.get(code)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._load(code))
            self._loading[code] = task
            task.add_done_callback(lambda _t: self._loading.pop(code, None))
        return await asyncio.shield(task)

    async def _load(self, code: str) -> RoomActor | None:
        stored = await self.store.load(code)
        if stored is None:
            return None
        if self.closing:
            raise ShuttingDown()
        actor = RoomActor(
            RoomRecord.from_bytes(stored.snapshot),
            stored.version,
            store=self.store,
            settings=self.settings,
            metrics=self.metrics,
            on_exit=self._forget,
        )
        self.live[code] = actor
        self.metrics.live_rooms.set(len(self.live))
        actor.start()
        return actor

    def _forget(self, actor: RoomActor) -> None:
        if self.live.get(actor.code) is actor:
            del self.live[actor.code]
        self.metrics.live_rooms.set(len(self.live))

    async def connect(self, code: str, peer: Peer, token: str | None) -> RoomActor | None:
        """Seat `peer` in the room; the actor, or None for a bad token."""
        for _ in range(RETRIES):
            actor = await self.get(code)
            if actor is None:
                raise UnknownRoom(code)
            try:
                return actor if await actor.connect(peer, token) else None
            except RoomGone:
                continue
        raise StoreError(f"room {code} keeps stopping while loading")

    async def join(self, code: str, name: str, seat: int | None) -> tuple[int, str]:
        """A new player takes a seat: (seat, token)."""
        for _ in range(RETRIES):
            actor = await self.get(code)
            if actor is None:
                raise UnknownRoom(code)
            try:
                return await actor.join(name, seat)
            except RoomGone:
                continue
        raise StoreError(f"room {code} keeps stopping while loading")

    async def info(self, code: str) -> dict[str, Any] | None:
        """The room as `GET /api/rooms/{code}` shows it, without waking its actor."""
        actor = self.live.get(code)
        if actor is not None and not actor.closed:
            return actor.info()
        stored = await self.store.load(code)
        if stored is None:
            return None
        record = RoomRecord.from_bytes(stored.snapshot)
        return {
            "code": record.code,
            "variant": record.variant,
            "rules": engine.rules_to_json(record.rules),
            "phase": record.phase,
            "seats": record.public_seats(live=False),
        }

    async def stop_all(self) -> None:
        """Stop every actor after its in-flight action (graceful shutdown)."""
        self.closing = True
        for task in list(self._loading.values()):
            task.cancel()
        await asyncio.gather(*(a.stop() for a in list(self.live.values())), return_exceptions=True)
