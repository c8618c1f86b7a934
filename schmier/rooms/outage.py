"""A room while its store is unreachable: paused, answering at once, and resuming
exactly where its last commit left it.

When the store goes (the store's health says so, or a commit finds out), the room
*pauses*: it tells its sockets (`paused`), answers every action at once with the error
`store_unavailable` (nothing is tried, nothing changes), seats sockets that say hello
without saving that they came, and its timers wait. Its sockets stay open.

The commit that was under way when the store went is *unsettled*: Redis may or may not
have written it. The room keeps it aside (`Pending`), and its sender gets no answer
yet. When the store is back the room first makes sure it still owns the room (a lease
that expired in Redis meanwhile is taken again if nobody else took it; if somebody
did, the room stops as on any lost lease), then reads what is stored:

- the unsettled commit is there: it happened; the room adopts it and everybody sees it
  (its sender as accepted, like any action; a join nobody got the token of is undone);
- it is not there: it did not happen; its sender gets `store_unavailable` now;
- something else is there: another owner wrote meanwhile; the room takes that.

Then the seats' `connected` flags are saved as the sockets are now, the sockets are
told `resumed`, and the timers go on. Nothing accepted is lost: a player only ever saw
as accepted what the store had.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from schmier.logs import event, failure
from schmier.rooms import table
from schmier.rooms.clock import Clock
from schmier.rooms.mailbox import Lease, Store
from schmier.rooms.peers import Link, Peer, Sockets, error_frame
from schmier.rooms.record import RoomRecord, Seat
from schmier.rooms.table import Change, Seating
from schmier.store import Finished, LeaseLost, RoomStore, Stored, StoreError, StoreUnavailable
from schmier.store.health import StoreHealth

PAUSED_FRAME = orjson.dumps(
    {
        "type": "paused",
        "reason": "store_unavailable",
        "message": "the server cannot save moves right now; the game goes on once it can",
    }
)
RESUMED_FRAME = orjson.dumps({"type": "resumed", "message": "the game goes on"})
REFUSED_FRAME = error_frame(
    "store_unavailable",
    "the server cannot save moves right now; nothing changed, try again when resumed",
)


class Paused(StoreUnavailable):
    """The room is paused: nothing was tried, nothing changed."""


class Unsettled(StoreUnavailable):
    """This very commit met the store going away; whether it was written is known only
    once the store answers again (`pending` then settles it)."""

    def __init__(self, pending: Pending) -> None:
        super().__init__("the store went away during a commit")
        self.pending = pending


@dataclass
class Pending:
    """A commit whose outcome is unknown, and what to do once it is known."""

    version: int
    snapshot: bytes
    record: RoomRecord
    lost: list[Callable[[], None]] = field(default_factory=list)
    """Run when it did not happen (answer its sender)."""
    undo: list[Callable[[RoomRecord], Change | None]] = field(default_factory=list)
    """Changes to commit when it did happen but its requester was told it failed."""


class PausedRoom(Protocol):
    """What an outage needs of the room's actor: its public state and its commit."""

    code: str
    lease: str | None
    """The lease value every commit must match; the outage sets a lease taken again."""
    version: int
    record: RoomRecord

    def adopt(self, record: RoomRecord, version: int, snapshot: bytes | None = None) -> None:
        """Take `record` at `version` as the room's and send every view."""

    async def apply(self, change: Change) -> None:
        """Commit `change`, then adopt it and send every view."""


class Outage:
    """One room's part in an outage of its store.

    It is given the room's store, cluster `link` (None for a single instance), sockets
    and clock; of the room itself it uses only what `PausedRoom` names."""

    def __init__(
        self, store: RoomStore, link: Link[Any] | None, sockets: Sockets, clock: Clock
    ) -> None:
        self.paused = False
        self.announced = False
        """Whether this instance's sockets were told `paused` (and not `resumed` since):
        a commit that meets the store going pauses the room before anyone is told."""
        self.pending: Pending | None = None
        self.store = store
        self.link = link
        self.sockets = sockets
        self.clock = clock

    def check(self) -> None:
        """Refuse at once while paused (nothing is tried).

        A store its health has marked down pauses the room here, untold, as a commit
        meeting the store going does: the message that pauses it may still be in the
        mailbox behind the frame being handled (the store marked down between that
        frame's arrival and its handling). Tried anyway, the commit would wait on the
        silent wire with the mailbox blocked, and a room that lost its lease meanwhile
        would stop once the link healed without having told its sockets it paused."""
        health: StoreHealth | None = getattr(self.store, "health", None)
        if health is not None and not health.up:
            self.paused = True
        if self.paused:
            raise Paused("the store is unavailable")

    def unsettled(self, version: int, snapshot: bytes, record: RoomRecord) -> Unsettled:
        """A commit of `version` failed with the store going away: pause, keep it."""
        self.paused = True
        self.pending = Pending(version, snapshot, record)
        return Unsettled(self.pending)

    async def commit(
        self,
        room: PausedRoom,
        version: int,
        snapshot: bytes,
        entries: list[bytes],
        finished: Finished | None = None,
    ) -> None:
        """Commit the room's next version (with the archive's entry of a game it ends);
        a lease that vanished meanwhile (it expired in Redis during an outage) is taken
        again first when nobody else holds it."""
        try:
            await while_up(
                self.store,
                self.store.commit(
                    room.code, version, snapshot, entries, lease=room.lease, finished=finished
                ),
            )
        except LeaseLost:
            if self.link is None:
                raise
            await self.check_lease(room)
            await self.store.commit(
                room.code, version, snapshot, entries, lease=room.lease, finished=finished
            )

    def tell_paused(self, peer: Peer) -> None:
        """A socket of this instance seated during a pause learns of it at once."""
        if self.paused and peer.instance is None:
            peer.send(PAUSED_FRAME)

    async def check_lease(self, room: PausedRoom) -> None:
        """The lease could not be renewed, or the store is back: keep owning the room.

        A lease that vanished (expired in Redis while it was unreachable) is taken again
        when nobody else took it, with a new fence; the store's version check then keeps
        anything stale from being written. Raises `LeaseLost` when another instance
        holds it: the room stops, as for any lost lease.
        """
        if room.lease is None or self.link is None:
            return
        value = await self.link.keep_lease(room)
        if value is None:
            raise LeaseLost(room.code)
        if value != room.lease:
            room.lease = value
            event("room.lease_regained", room=room.code, seq=room.version)

    async def handle(self, room: PausedRoom, message: Store | Lease) -> None:
        """The store went or came back, or the lease could not be renewed."""
        if isinstance(message, Lease):
            # Lost, or only vanished? Gone again: its return brings the room back.
            with contextlib.suppress(StoreUnavailable):
                await self.check_lease(room)
        elif message.up:
            await self.store_back(room)
        elif not self.announced:
            # Pause, and tell this instance's sockets (other instances tell theirs); a
            # commit that met the store going has paused the room already, untold.
            self.paused = self.announced = True
            self.sockets.send_own(PAUSED_FRAME)
            event("room.paused", logging.DEBUG, room=room.code, seq=room.version)

    async def store_back(self, room: PausedRoom) -> None:
        """The store answers again: settle what was unsettled and go on (see the
        module)."""
        if not self.paused:
            return
        try:
            await self.check_lease(room)
            stored = await self.store.load(room.code)
        except StoreUnavailable:
            return  # gone again: its next return brings the room back here
        except StoreError:
            failure("room.resume_failed", room=room.code)
            stored = None
        pending, self.pending = self.pending, None
        self.paused = False
        self.clock.retry_at = 0.0
        undo = _settle(room, pending, stored)
        event("room.resumed", room=room.code, seq=room.version)
        try:
            for make in undo:
                change = make(room.record)
                if change is not None:
                    await room.apply(change)
            presence = table.presence(room.record, self.sockets.has)
            if presence is not None:
                await room.apply(presence)
        except StoreUnavailable:
            return  # paused again by the failed commit; told when the store is back
        self.announced = False
        self.sockets.send_own(RESUMED_FRAME)


async def while_up(store: RoomStore, call: Coroutine[Any, Any, None]) -> None:
    """Await a commit, unless the store's health marks it down first (Redis silent
    past the leases' time, behind a network partition, say): then it raises
    `StoreUnavailable` at once, so the room pauses and tells its sockets instead of
    waiting out the wire's timeout with the room's mailbox blocked. The health cancels
    the wait; a command already written stays on its connection and lands or fails
    there before the probe that brings the store back is answered, one not written yet
    never is: either way the commit stays unsettled until the store is read again."""
    health: StoreHealth | None = getattr(store, "health", None)
    if health is None or not health.up:
        await call
        return
    with health.interrupting() as wait:
        try:
            await call
        except asyncio.CancelledError:
            task = wait.task
            if wait.interrupted and task is not None and task.uncancel() == 0:
                raise StoreUnavailable("the store went down during the commit") from None
            raise


def refuse(error: StoreUnavailable, peer: Peer, refused: Any) -> None:
    """Answer a frame the paused room could not apply: now, or (the commit under way
    when the store went) once it is known not to have happened. `refused`: the metric."""

    def answer() -> None:
        refused.inc()
        peer.send(REFUSED_FRAME)

    if isinstance(error, Unsettled):
        error.pending.lost.append(answer)
    else:
        answer()


def undo_join_if_saved(error: Unsettled, seating: Seating, previous: Seat) -> None:
    """The join is answered as failed; should it have been saved after all, the seat
    whose token nobody got goes back to what it was."""
    hashed = seating.change.record.seats[seating.seat].token_hash or ""
    error.pending.undo.append(lambda record: table.unjoin(record, seating.seat, hashed, previous))


def _settle(
    room: PausedRoom, pending: Pending | None, stored: Stored | None
) -> list[Callable[[RoomRecord], Change | None]]:
    """The commit that met the outage: adopted if Redis has it (then the changes it
    still owes are returned), else its senders are told it did not happen; either way
    the room takes what is stored."""
    landed = (
        pending is not None
        and stored is not None
        and stored.version == pending.version
        and stored.snapshot == pending.snapshot
    )
    if pending is not None and landed:
        room.adopt(pending.record, pending.version, pending.snapshot)
        return pending.undo
    for answer in [] if pending is None else pending.lost:
        answer()
    if stored is not None and stored.version != room.version:
        room.adopt(RoomRecord.from_bytes(stored.snapshot), stored.version)
    return []
