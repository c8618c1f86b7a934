"""The live rooms of this server: start an actor on demand, forget it when it stops.

With several instances on one Redis (`node` set) a room is opened either as an owning
actor (this instance got the room's lease) or as a `Follower` (another instance owns
it; this one forwards its sockets' operations there). Both look the same to the
WebSocket and HTTP layers: a `LiveRoom`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

from schmier import engine
from schmier.config import Settings
from schmier.logs import event
from schmier.metrics import Metrics
from schmier.protocol import ClientFrame
from schmier.rooms.actor import Peer, RoomActor, RoomGone
from schmier.rooms.codes import new_code
from schmier.rooms.record import RoomRecord
from schmier.store import LeaseLost, RoomStore, StoreError

if TYPE_CHECKING:
    from schmier.cluster import Follower, Node

RETRIES = 5
"""Attempts to reach a room whose actor stops under our feet (idle, or failing to load)."""


OPEN_ATTEMPTS = 50
"""Rounds of "take the lease, or follow its holder" before giving up (the lease can
vanish between the two steps, when its owner stops at that very moment)."""


class LiveRoom(Protocol):
    """A room as the endpoints use it: an owning actor, or a follower of the owner."""

    @property
    def closed(self) -> bool:
        """Whether it stopped (the registry then opens the room afresh)."""

    async def connect(self, peer: Peer, token: str | None) -> bool:
        """Seat `peer` by token, or as a spectator; False for a bad token."""

    async def join(self, name: str, seat: int | None) -> tuple[int, str]:
        """A new player takes a seat: (seat, token)."""

    async def frame(self, peer: Peer, frame: ClientFrame) -> None:
        """A frame of a connected socket."""

    def disconnect(self, peer: Peer) -> None:
        """The socket of `peer` closed."""

    def info(self) -> dict[str, Any]:
        """The room as `GET /api/rooms/{code}` shows it."""


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
        self.followers: dict[str, Follower] = {}
        self.node: Node | None = None
        """Set when several instances may share the store (Redis)."""
        self._loading: dict[str, asyncio.Task[LiveRoom | None]] = {}
        self.closing = False

    async def create(self, variant: str, rules: engine.Rules) -> RoomRecord:
        """Store a new empty room under a fresh code (retrying the rare collision)."""
        while True:
            record = RoomRecord.new(new_code(), variant, rules)
            if await self.store.create(record.code, record.to_bytes()):
                event("room.created", room=record.code, variant=variant)
                return record

    async def get(self, code: str) -> LiveRoom | None:
        """The live room, loading it from the store if needed; None if unknown."""
        if self.closing:
            raise ShuttingDown()
        actor = self.live.get(code)
        if actor is not None and not actor.closed:
            return actor
        follower = self.followers.get(code)
        if follower is not None and not follower.closed:
            return follower
        task = self._loading.get(code)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._open(code))
            self._loading[code] = task
            task.add_done_callback(lambda _t: self._loading.pop(code, None))
        return await asyncio.shield(task)

    async def _open(self, code: str) -> LiveRoom | None:
        """Own the room (single instance, or the lease was free) or follow its owner."""
        node = self.node
        if node is None:
            return await self._load(code)
        from schmier.cluster import Follower

        for _ in range(OPEN_ATTEMPTS):
            lease = await node.acquire(code)
            if lease is not None:
                return await self.load_owned(code, lease)
            holder = await node.holder(code)
            if holder is None:
                continue
            if holder.rpartition(":")[0] == node.instance and code not in self.live:
                # Our own lease without an actor: left by one that stopped; free it.
                await node.store.release_lease(code, holder)
                continue
            stored = await self.store.load(code)
            if stored is None:
                return None
            if self.closing:
                raise ShuttingDown()
            follower = Follower(code, stored, holder, node=node, rooms=self)
            self.followers[code] = follower
            return follower
        raise StoreError(f"room {code}: its owner keeps changing")

    async def load_owned(self, code: str, lease: str) -> RoomActor | None:
        """Start the actor of a room whose lease this instance just took.

        The lease is given back when the room does not exist (or loading fails), so
        that nobody waits for it to expire.
        """
        try:
            actor = await self._load(code, lease)
        except BaseException:
            if self.node is not None:
                self.node.abandon(code)
                await self.node.store.release_lease(code, lease)
            raise
        if actor is None and self.node is not None:
            self.node.abandon(code)
            await self.node.store.release_lease(code, lease)
        return actor

    async def _load(self, code: str, lease: str | None = None) -> RoomActor | None:
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
            lease=lease,
            link=self.node if lease is not None else None,
        )
        self.live[code] = actor
        if lease is not None and self.node is not None:
            self.node.own(actor)
        self.metrics.live_rooms.set(len(self.live))
        actor.start()
        return actor

    def _forget(self, actor: RoomActor) -> None:
        if self.live.get(actor.code) is actor:
            del self.live[actor.code]
        self.metrics.live_rooms.set(len(self.live))

    async def connect(self, code: str, peer: Peer, token: str | None) -> LiveRoom | None:
        """Seat `peer` in the room; the live room, or None for a bad token."""
        for _ in range(RETRIES):
            actor = await self.get(code)
            if actor is None:
                raise UnknownRoom(code)
            try:
                return actor if await actor.connect(peer, token) else None
            except (RoomGone, LeaseLost):
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
            except (RoomGone, LeaseLost):
                continue
        raise StoreError(f"room {code} keeps stopping while loading")

    async def info(self, code: str) -> dict[str, Any] | None:
        """The room as `GET /api/rooms/{code}` shows it, without waking its actor."""
        actor = self.live.get(code)
        if actor is not None and not actor.closed:
            return actor.info()
        follower = self.followers.get(code)
        if follower is not None and not follower.closed:
            return follower.info()
        stored = await self.store.load(code)
        if stored is None:
            return None
        return RoomRecord.from_bytes(stored.snapshot).info(live=False)

    async def stop_all(self) -> None:
        """Stop every actor after its in-flight action (graceful shutdown)."""
        self.closing = True
        for task in list(self._loading.values()):
            task.cancel()
        await asyncio.gather(*(a.stop() for a in list(self.live.values())), return_exceptions=True)
        await asyncio.gather(
            *(f.close() for f in list(self.followers.values())), return_exceptions=True
        )
