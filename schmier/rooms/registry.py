"""The live rooms of this server: start an actor on demand, forget it when it stops.

Alone, this instance owns every room it opens. With several instances on one Redis an
`opener` (the cluster's node) decides how a room is opened: as an owning actor (this
instance took the room's lease) or by following the instance that owns it. Both look the
same to the WebSocket and HTTP layers: a `LiveRoom`. The registry knows nothing of
leases or followers; the cluster depends on it, never the other way round.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, Protocol

from schmier import engine
from schmier.config import Settings
from schmier.logs import event, fault_of
from schmier.metrics import Metrics
from schmier.protocol import ClientFrame
from schmier.rooms import finished, thinking
from schmier.rooms.actor import RoomActor
from schmier.rooms.archive import Archive
from schmier.rooms.codes import new_code
from schmier.rooms.peers import Link, Peer, RoomGone
from schmier.rooms.record import RoomRecord
from schmier.shutdown import Part, stop_in_order
from schmier.store import LeaseLost, RoomStore, StoreError, health_of

RETRIES = 5
"""Attempts to reach a room whose actor stops under our feet (idle, or failing to load)."""


class LiveRoom(Protocol):
    """A room as the endpoints use it: an owning actor, or a follower of the owner."""

    @property
    def closed(self) -> bool:
        """Whether it stopped (the registry then opens the room afresh)."""

    async def connect(self, peer: Peer, token: str | None) -> bool:
        """Seat `peer` by token, or as a spectator; False for a bad token."""

    async def join(
        self, name: str, seat: int | None, *, member: str | None = None
    ) -> tuple[int, str]:
        """A new player (a club's `member`, joined with a member key) takes a seat:
        (seat, token)."""

    async def frame(self, peer: Peer, frame: ClientFrame, raw: str) -> None:
        """A frame of a connected socket (`raw`: its text as received)."""

    def disconnect(self, peer: Peer) -> None:
        """The socket of `peer` closed."""

    def info(self) -> dict[str, Any]:
        """The room as `GET /api/rooms/{code}` shows it."""


class RoomOpener(Protocol):
    """How rooms are opened when several instances may share the store (the cluster)."""

    def serving(self, code: str) -> LiveRoom | None:
        """The room, when this instance already serves it without owning it."""

    async def open(self, code: str) -> LiveRoom | None:
        """Own the room or follow its owner; None when no such room is stored."""

    async def close(self) -> None:
        """Stop serving the rooms owned elsewhere (the server stops)."""


class UnknownRoom(Exception):
    """No room is stored under this code."""


class ShuttingDown(Exception):
    """The server is stopping and starts no more rooms."""


class Rooms:
    """Registry of live room actors, kept on `app.state.rooms`."""

    def __init__(
        self,
        store: RoomStore,
        settings: Settings,
        metrics: Metrics,
        pool: thinking.Pool | None = None,
    ) -> None:
        self.store = store
        self.pool = pool or thinking.Pool(
            settings.thinking_workers, settings.bot_nice, settings.think_queue, settings.bot_slack
        )
        """The workers every room's bots decide in (`thinking.py`)."""
        metrics.registry.register(self.pool.budgets.collector(self.pool.waiting_by_kind))
        self.settings = settings
        self.metrics = metrics
        self.opener: RoomOpener | None = None
        """Set when several instances may share the store (Redis)."""
        self.live: dict[str, RoomActor] = {}
        """The actors running on this instance, by room code."""
        self._loading: dict[str, asyncio.Task[LiveRoom | None]] = {}
        self.closing = False
        self.archive = Archive(store)
        """The finished hands of the rooms, read from the store (any room, live or not)."""
        health = health_of(store)
        if health is not None:
            health.listen(self)

    def store_changed(self, up: bool) -> None:
        """The store went away or came back: every live actor pauses or resumes."""
        for actor in list(self.live.values()):
            actor.store_changed(up)

    async def create(
        self, variant: str, rules: engine.Rules, club: str | None = None
    ) -> RoomRecord:
        """Store a new empty room under a fresh code (retrying the rare collision);
        `club`: the club whose room it is."""
        while True:
            record = RoomRecord.new(new_code(), variant, rules, club)
            if await self.store.create(record.code, record.to_bytes()):
                event("room.created", room=record.code, variant=variant)
                return record

    def owned(self, code: str) -> RoomActor | None:
        """The running actor of the room on this instance, if any."""
        actor = self.live.get(code)
        return actor if actor is not None and not actor.closed else None

    async def get(self, code: str) -> LiveRoom | None:
        """The live room, loading it from the store if needed; None if unknown."""
        if self.closing:
            raise ShuttingDown()
        actor = self.owned(code)
        if actor is not None:
            return actor
        served = None if self.opener is None else self.opener.serving(code)
        if served is not None and not served.closed:
            return served
        task = self._loading.get(code)
        if task is None:
            opening = self.start(code) if self.opener is None else self.opener.open(code)
            task = asyncio.get_running_loop().create_task(opening)
            self._loading[code] = task
            task.add_done_callback(functools.partial(self._loaded, code))
        return await asyncio.shield(task)

    def _loaded(self, code: str, task: asyncio.Task[LiveRoom | None]) -> None:
        """A load is over: the next `get` starts afresh. A store's failure or the stop is
        for the callers still waiting to report (`fault_of`)."""
        self._loading.pop(code, None)
        fault_of(task, "room.load_failed", (StoreError, LeaseLost, ShuttingDown), room=code)

    async def start(
        self, code: str, lease: str | None = None, link: Link[RoomActor] | None = None
    ) -> RoomActor | None:
        """Load the room and start its actor here; None when no such room is stored.

        `lease` and `link`: the room's lease, just taken by this instance, and the cluster
        the actor reaches other instances through.
        """
        stored = await self.store.load(code)
        if stored is None:
            return None
        if self.closing:
            raise ShuttingDown()
        # A snapshot from before games were numbered gets its game's number first.
        record = await finished.numbered(RoomRecord.from_bytes(stored.snapshot), self.store)
        actor = RoomActor(
            record,
            stored.version,
            store=self.store,
            settings=self.settings,
            metrics=self.metrics,
            on_exit=self._forget,
            lease=lease,
            link=link,
            pool=self.pool,
        )
        self.live[code] = actor
        self.metrics.live_rooms.set(len(self.live))
        actor.start()
        return actor

    async def record(self, code: str) -> RoomRecord | None:
        """The room's record as stored (or as its live actor holds it); None: unknown."""
        actor = self.owned(code)
        if actor is not None:
            return actor.record
        stored = await self.store.load(code)
        return None if stored is None else RoomRecord.from_bytes(stored.snapshot)

    def _forget(self, actor: RoomActor) -> None:
        if self.live.get(actor.code) is actor:
            del self.live[actor.code]
        self.metrics.live_rooms.set(len(self.live))

    async def connect(self, code: str, peer: Peer, token: str | None) -> LiveRoom | None:
        """Seat `peer` in the room; the live room, or None for a bad token."""
        for _ in range(RETRIES):
            room = await self.get(code)
            if room is None:
                raise UnknownRoom(code)
            try:
                return room if await room.connect(peer, token) else None
            except (RoomGone, LeaseLost):
                continue
        raise StoreError(f"room {code} keeps stopping while loading")

    async def join(
        self, code: str, name: str, seat: int | None, member: str | None = None
    ) -> tuple[int, str]:
        """A new player (a club's `member`, joined with a member key) takes a seat:
        (seat, token)."""
        for _ in range(RETRIES):
            room = await self.get(code)
            if room is None:
                raise UnknownRoom(code)
            try:
                return await room.join(name, seat, member=member)
            except (RoomGone, LeaseLost):
                continue
        raise StoreError(f"room {code} keeps stopping while loading")

    async def info(self, code: str) -> dict[str, Any] | None:
        """The room as `GET /api/rooms/{code}` shows it, without waking its actor."""
        actor = self.owned(code)
        if actor is not None:
            return actor.info()
        served = None if self.opener is None else self.opener.serving(code)
        if served is not None and not served.closed:
            return served.info()
        stored = await self.store.load(code)
        if stored is None:
            return None
        return RoomRecord.from_bytes(stored.snapshot).info(live=False)

    def parts_to_stop(self) -> list[Part]:
        """What stopping the rooms takes, in order (a graceful shutdown, through
        `shutdown.stop_in_order`): every actor after its in-flight action (each frees
        its lease and tells the instances following its room, which take it over at
        once), then the rooms followed here, then the bot workers."""
        parts: list[Part] = [("actors", self._stop_actors)]
        if self.opener is not None:
            parts.append(("followers", self.opener.close))
        parts.append(("bot workers", self.pool.close))
        return parts

    async def stop_all(self) -> None:
        """Stop every part of `parts_to_stop`."""
        await stop_in_order(self.parts_to_stop())

    async def _stop_actors(self) -> None:
        self.closing = True
        for task in list(self._loading.values()):
            task.cancel()
        actors = list(self.live.values())
        await asyncio.gather(*(a.stop() for a in actors), return_exceptions=True)
