"""How a follower keeps up with its room's ownership: it watches the lease, finds a new
owner (and sends it every socket and pending operation), takes the room over when
nobody owns it (`takeover.py`), and rides out an outage of the store (pauses its
sockets, holds what was in flight, catches up once the store is back).

A mixin of `Follower` (`follower.py`), kept apart because it is a job of its own: the
room API and the bus messages stay there, the lease watching lives here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import replace
from typing import Any

from schmier.cluster import bus
from schmier.cluster.hub import Hub, instance_of
from schmier.cluster.takeover import promote
from schmier.logs import event, failure_unless_outage
from schmier.rooms.actor import RoomActor
from schmier.rooms.outage import PAUSED_FRAME, REFUSED_FRAME, RESUMED_FRAME
from schmier.rooms.peers import settle
from schmier.rooms.record import RoomRecord
from schmier.rooms.stagger import next_slot, phase
from schmier.store import StoreError, StoreUnavailable

RECHECK_SECONDS = 0.25
"""How often a follower whose owner did not hear it checks whether it listens again."""


class Ownership:
    """The follower's watch over its room's lease (see the module)."""

    code: str
    owner: str
    node: Hub
    local: RoomActor | None
    sockets: dict[str, Any]
    hellos: dict[str, Any]
    pending: dict[str, bus.Op]
    waiting: dict[str, asyncio.Future[Any]]
    undelivered: set[str]
    held: dict[str, str]
    paused: bool
    promoting: bool
    _closed: bool
    _lock: asyncio.Lock
    _idle_since: float
    _waiting_out: bool
    next_check: float
    """When the lease is checked next (the loop's time)."""

    def _send(self, op: bus.Op) -> None: ...
    def _forget(self, op_id: str) -> None: ...
    def _spawn(self, work: Coroutine[Any, Any, None]) -> None: ...
    def promotion_over(self) -> None: ...
    def became_owner(self, actor: RoomActor) -> None: ...
    async def close(self) -> None: ...

    def store_changed(self, up: bool) -> None:
        """The store went (the sockets are told, frames refused here) or came back (told
        too; the owner gets every socket and pending operation again, since messages
        may have been lost meanwhile: it skips what it already applied)."""
        if self.paused == (not up) or self.local is not None or self._closed:
            return
        self.paused = not up
        if not up:
            self._refuse_pending()
        for sock in self.sockets.values():
            sock.peer.send(RESUMED_FRAME if up else PAUSED_FRAME)
        if up:
            self._spawn(self._catch_up())

    def _refuse_pending(self) -> None:
        """The store went: nothing pending is sent again (no action may be applied
        later than its player could expect). Hellos and joins fail now; a frame is
        held until the owner's next snapshot says whether it was applied before the
        store went (its id is in the record) or not (then it is answered
        `store_unavailable`, as the owner would). Disconnections stay pending."""
        for op_id, op in list(self.pending.items()):
            if op.kind == "disconnect":
                continue
            future = self.waiting.get(op_id)
            self._forget(op_id)
            if future is not None:
                settle(future, StoreUnavailable(f"room {self.code}: the store is unavailable"))
            if op.kind == "frame":
                self.held[op_id] = op.peer

    def _settle_held(self, record: RoomRecord) -> None:
        held, self.held = self.held, {}
        for op_id, pid in held.items():
            sock = self.sockets.get(pid)
            if op_id not in record.ops and sock is not None:
                sock.peer.send(REFUSED_FRAME)

    async def _catch_up(self) -> None:
        try:
            await self._check(force=False)
            self.resync()
        except Exception:
            failure_unless_outage("cluster.check_failed", room=self.code)

    def resync(self) -> None:
        """Register every socket with the owner again and resend what is pending: after
        this instance or the owner could not hear the bus for a while (the owner answers
        each socket with its snapshot and skips what it already applied)."""
        if self.local is None and not self._closed and not self.paused and not self.promoting:
            self._resend(notified=False)

    def _unreachable(self) -> None:
        """Nobody listens on the owner's channel: it died. Take over when its lease ends."""
        if not self._closed and self.local is None:
            self._spawn(self._wait_out())

    async def _wait_out(self) -> None:
        """Nobody heard the owner's channel: it died, or it is resubscribing (Redis just
        came back). Until its lease expires, watch whether it listens again; if so, send
        it again what it missed; else check the moment the lease expires (a take-over
        need not wait for the next periodic check: the lease's time left is known)."""
        if self._waiting_out:
            return
        self._waiting_out = True
        try:
            owner = self.owner
            while (left := await self.node.store.lease_ttl_ms(self.code)) > 0:
                if self.owner == owner and await self.node.listening(instance_of(owner)):
                    self.resync()
                    return
                await asyncio.sleep(min(left / 1000 + 0.005, RECHECK_SECONDS))
            await self._check(force=False)
        except Exception:
            failure_unless_outage("cluster.check_failed", room=self.code)
        finally:
            self._waiting_out = False

    async def _safe_check(self, *, force: bool) -> None:
        """`_check` as a task of its own: a failure is logged, the watcher retries."""
        try:
            await self._check(force=force)
        except Exception:
            failure_unless_outage("cluster.check_failed", room=self.code)

    async def _watch(self) -> None:
        """Check the lease every third of the lease time; stop when unused.

        Each room checks in its own slot of that period (`stagger.next_slot`): the
        followers an instance opens together (its sockets back after a restart of
        either instance) would otherwise send their checks, two round trips each, to
        Redis in the same moment every period. The first check comes at most one period
        after the follower opened, as before, and every later one exactly a period after
        the one before."""
        loop = asyncio.get_running_loop()
        grace = self.node.settings.hello_timeout + self.node.lease_ms / 1000
        period, place = self.node.lease_ms / 3000, phase(self.code)
        at = loop.time()
        while not self._closed and self.local is None:
            # After the slot just used (a timer may fire a hair early: never twice in one).
            at = self.next_check = next_slot(max(loop.time(), at), period, place)
            await asyncio.sleep(at - loop.time())
            try:
                await self._check(force=False)
                if self.local is None and not await self.node.listening(instance_of(self.owner)):
                    self._unreachable()
            except Exception:
                failure_unless_outage("cluster.follow_failed", room=self.code)
            idle = not self.sockets and not self.waiting
            if idle and self.local is None and loop.time() - self._idle_since > grace:
                await self.close()

    async def _check(self, *, force: bool) -> None:
        """Find the owner; take the room if nobody has it; resend if it changed.

        `force` (the owner said it gave the room up, or did not know it) resends the
        pending operations even when the lease value looks unchanged.
        """
        async with self._lock:
            if self.local is not None or self._closed:
                return
            try:
                holder = await self._holder()
                if holder is None and not self.sockets and not self.waiting:
                    # Nobody here to serve: let the next hello or join open the room.
                    await self.close()
                    return
                if holder is None:
                    lease = await self.node.acquire(self.code)
                    if lease is not None:
                        await promote(self, lease, notified=force)
                        return
                    holder = await self.node.holder(self.code)
            except StoreError:
                failure_unless_outage("cluster.check_failed", room=self.code)
                return
            if holder is None:
                return
            if holder != self.owner or force:
                if holder != self.owner:
                    event("room.new_owner", room=self.code, owner=instance_of(holder))
                self.owner = holder
                if force:
                    await asyncio.sleep(0.05)  # let a just-started owner get ready
                self._resend(notified=force)

    async def _holder(self) -> str | None:
        """The room's lease holder; a lease of ours that no actor uses is freed first
        (left over by an actor of ours that stopped)."""
        holder = await self.node.holder(self.code)
        ours = holder is not None and instance_of(holder) == self.node.instance
        if holder is not None and ours and self.node.rooms.owned(self.code) is None:
            await self.node.store.release_lease(self.code, holder)
            return None
        return holder

    def _resend(self, *, notified: bool) -> None:
        """Register the sockets with the new owner and hand it the pending operations.

        `notified`: the previous owner said it did not (or no longer) serve the room,
        which it only says after answering everything it applied; so the pending joins
        were not applied and may go to the next owner too. So may a join that reached
        nobody. Otherwise (the owner died holding it) a join may have been applied with
        its token lost: it fails, and the client asks again.
        """
        for sock in self.sockets.values():
            connect = bus.Op(self.code, self.node.new_id(), self.node.instance, "connect", sock.pid)
            self._send(replace(connect, hash=sock.token_hash))
        for op_id, op in list(self.pending.items()):
            if op.kind == "join" and not notified and op_id not in self.undelivered:
                # The old owner may have seated the player, and the token exists only
                # in its answer: a resend could seat them twice. The client retries.
                self.pending.pop(op_id)
                future = self.waiting.pop(op_id, None)
                if future is not None:
                    settle(future, StoreError("the room changed owner; try again"))
                continue
            self._send(op)
