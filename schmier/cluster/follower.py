"""A room owned by another instance, served to this instance's sockets.

The follower never changes the room. It keeps the last snapshot the owner published,
builds its own sockets' views from it with the same function the owner uses, and
forwards everything its sockets say to the owner as operations with unique ids (a frame
as the very text the socket sent). An operation stays pending until the owner answers
`Done`; when the owner changes (its lease expired or was released) the pending
operations go to the new owner, which skips those already applied (their ids are
committed with the change they caused, in `RoomRecord.ops`). So nothing is applied twice
and nothing is lost.

When nobody owns the room any more, the follower takes the lease itself and becomes the
owner (`takeover.py`): a local actor seats its sockets and takes the pending operations;
from then on the follower only passes calls through to that actor. Watching the lease,
resending to a new owner and riding out an outage of the store are in `ownership.py`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from schmier.cluster import bus
from schmier.cluster.hub import Hub, instance_of
from schmier.cluster.ownership import Ownership
from schmier.cluster.sockets import Socket, deliver
from schmier.protocol import ClientFrame
from schmier.rooms.actor import RoomActor
from schmier.rooms.codes import hash_token
from schmier.rooms.frames import LatestFrames
from schmier.rooms.outage import REFUSED_FRAME
from schmier.rooms.peers import JoinRefused, Peer, RoomGone, seat_of, settle
from schmier.rooms.record import RoomRecord
from schmier.store import Stored, StoreError, StoreUnavailable

MAX_PENDING = 512
"""Forwarded operations awaiting their `done` before sockets count as flooding."""


class Follower(Ownership):
    """The room as seen from an instance that holds sockets but not the lease."""

    def __init__(self, code: str, stored: Stored, owner: str, *, node: Hub) -> None:
        self.code = code
        self.record = RoomRecord.from_bytes(stored.snapshot)
        self.version = stored.version
        self.owner = owner
        """The lease value of the owner the operations go to."""
        self._closed = False
        self.local: RoomActor | None = None
        """The actor of this instance once it took the room over."""
        self.node = node
        self.sockets: dict[str, Socket] = {}
        self._frames = LatestFrames()
        self._pids: dict[Peer, str] = {}
        self.pending: dict[str, bus.Op] = {}
        self.waiting: dict[str, asyncio.Future[Any]] = {}
        self.hellos: dict[str, Socket] = {}
        self._lock = asyncio.Lock()
        self._waiting_out = False
        self.next_check = float("inf")
        """When the lease is checked next (`_watch` sets it: the room's slot)."""
        self.undelivered: set[str] = set()
        """Operations that reached nobody (PUBLISH counted 0 receivers): never applied."""
        self.promoting = False
        """Taking the room over: operations wait here until every socket is seated."""
        self.paused = False
        """The store is unreachable: frames are refused here, nothing is forwarded."""
        self.held: dict[str, str] = {}
        """Frames in flight when the store went (op id: socket id), answered once a
        snapshot of the owner says whether they were applied (`_settle_held`)."""
        self._promoted = asyncio.Event()
        loop = asyncio.get_running_loop()
        self._idle_since = loop.time()
        self._watcher = loop.create_task(self._watch(), name=f"follow:{code}")
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------ the room API

    @property
    def closed(self) -> bool:
        """Stopped following; after a take-over, whether the local actor stopped."""
        if self.local is not None:
            return self.local.closed
        return self._closed

    async def _settled(self) -> RoomActor | None:
        """Wait out a take-over in progress; the local actor once there is one."""
        if self.promoting:
            await self._promoted.wait()
        if self.local is None and self._closed:
            raise RoomGone(self.code)
        return self.local

    async def connect(self, peer: Peer, token: str | None) -> bool:
        """Register the socket with the owner (which marks the seat connected)."""
        local = await self._settled()
        if local is not None:
            return await local.connect(peer, token)
        if self.paused:
            raise StoreUnavailable(f"room {self.code}: the store is unavailable")
        hashed = None if token is None else hash_token(token)
        sock = Socket(peer, self.node.new_id(), hashed)
        peer.seat = None
        op_id, future = self._request("connect", sock.pid, hash=hashed)
        self.hellos[op_id] = sock
        # The owner may be dying: the hello waits for the take-over (lease time plus a
        # check) instead of failing, as the protocol promises.
        wait = self.node.lease_ms / 1000 * 2 + self.node.settings.hello_timeout
        try:
            async with asyncio.timeout(wait):
                result = await asyncio.shield(future)
        except BaseException as exc:
            # Timed out, or the socket went away meanwhile: should the owner still seat
            # it, the disconnection that follows undoes that (no ghost seat).
            self._forget(op_id)
            if self.local is None and not self._closed:
                self._request("disconnect", sock.pid, wait=False)
            if isinstance(exc, TimeoutError):
                raise StoreError(f"room {self.code}: no owner answered") from None
            raise
        finally:
            self.hellos.pop(op_id, None)
        if result == "local":
            return True  # taken over meanwhile: the local actor seated it and sent the view
        if result == "bad_token":
            return False
        if result != "ok":
            raise StoreError(f"room {self.code}: the owner could not seat the socket")
        local = await self._settled()
        if local is not None:
            # Taken over between the answer and now: seat it with the new actor (which
            # sends the chat history again; what the old owner sent is dropped).
            return await local.connect(peer, None, hashed)
        peer.seat = None if hashed is None else seat_of(self.record, None, hashed)
        self.sockets[sock.pid] = sock
        self._pids[peer] = sock.pid
        sock.started(self._frames.frame(self.record, self.version, peer.seat))
        return True

    async def join(
        self, name: str, seat: int | None, *, member: str | None = None
    ) -> tuple[int, str]:
        """Forward a join; a join is never sent twice (its token could not be resent)."""
        local = await self._settled()
        if local is not None:
            return await local.join(name, seat, member=member)
        if self.paused:
            raise StoreUnavailable(f"room {self.code}: the store is unavailable")
        op_id, future = self._request("join", "", name=name, wanted=seat, member=member)
        try:
            async with asyncio.timeout(self.node.lease_ms / 1000 * 2 + 5):
                answer: bus.Joined = await asyncio.shield(future)
        except TimeoutError:
            self._forget(op_id)
            raise StoreError(f"room {self.code}: no owner answered the join") from None
        if answer.token is not None and answer.seat is not None:
            return answer.seat, answer.token
        raise JoinRefused(answer.status or 503, answer.detail or "the join failed")

    async def frame(self, peer: Peer, frame: ClientFrame, raw: str) -> None:
        """Forward a frame of a registered socket (answered by the owner, in order)."""
        if self.local is not None:
            await self.local.frame(peer, frame)
            return
        if self._closed:
            raise RoomGone(self.code)
        pid = self._pids.get(peer)
        if pid is None:
            return
        if self.paused:
            peer.send(REFUSED_FRAME)  # the owner could not save it either
            return
        if len(self.pending) >= MAX_PENDING:
            raise RoomGone(self.code)
        # The new local actor of a take-over must see this socket seated before its
        # frames: while promoting, operations are held here, not sent.
        self._request("frame", pid, seat=peer.seat, frame=raw, wait=False, send=not self.promoting)

    def disconnect(self, peer: Peer) -> None:
        """The socket closed: tell the owner (which marks the seat disconnected)."""
        if self.local is not None:
            self.local.disconnect(peer)
            return
        pid = self._pids.pop(peer, None)
        if pid is None:
            return
        self.sockets.pop(pid, None)
        if self.promoting or not self._closed:
            self._request("disconnect", pid, wait=False, send=not self.promoting)
        if not self.sockets:
            self._idle_since = asyncio.get_running_loop().time()

    def info(self) -> dict[str, Any]:
        """The room as `GET /api/rooms/{code}` shows it (from the last snapshot)."""
        return self.record.info()

    async def close(self) -> None:
        """Stop following (no sockets left, or the server stops)."""
        if self._closed:
            return
        self._closed = True
        self.node.forget(self)
        for future in self.waiting.values():
            settle(future, RoomGone(self.code))
        self.waiting.clear()
        if asyncio.current_task() is not self._watcher:
            self._watcher.cancel()
            await asyncio.gather(self._watcher, return_exceptions=True)

    # ------------------------------------------------------------ messages

    def _request(
        self,
        kind: bus.OpKind,
        pid: str,
        *,
        wait: bool = True,
        send: bool = True,
        **fields: Any,
    ) -> tuple[str, asyncio.Future[Any]]:
        """A new operation, pending until answered: sent to the owner (or, `send` false,
        held for the actor of a take-over in progress); its id and its answer's future."""
        op_id = self.node.new_id()
        op = bus.Op(self.code, op_id, self.node.instance, kind, pid, **fields)
        self.pending[op_id] = op
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if wait:
            self.waiting[op_id] = future
        if send:
            self._send(op)
        return op_id, future

    def _send(self, op: bus.Op) -> None:
        op_id = op.id
        self.undelivered.discard(op_id)

        def unreachable() -> None:
            if op_id in self.pending:
                self.undelivered.add(op_id)
            self._unreachable()

        self.node.send(instance_of(self.owner), op, unreachable)

    def _forget(self, op_id: str) -> None:
        self.pending.pop(op_id, None)
        self.waiting.pop(op_id, None)
        self.undelivered.discard(op_id)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` as a task kept referenced (asyncio holds tasks only weakly)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def on_message(self, message: bus.Message) -> None:
        """A message of the owner (the node's listener calls this, in bus order)."""
        match message:
            case bus.State(seq=seq, snap=snap):
                if seq > self.version:
                    self.record = RoomRecord.from_bytes(snap.encode())
                    self.version = seq
                    self._broadcast()
                if self.held and seq >= self.version:
                    self._settle_held(self.record)
            case bus.Send(peer=pid, data=data):
                deliver(self.sockets.get(pid), self.hellos.values(), pid, data.encode())
            case bus.Close(peer=pid, code=code, reason=reason):
                sock = self.sockets.get(pid)
                if sock is not None:
                    sock.peer.close(code, reason)
            case bus.Done(id=op_id, result=result):
                self._answered(op_id, result, done=True)
            case bus.Joined(id=op_id):
                self._answered(op_id, message)
            case bus.Released():
                self._spawn(self._safe_check(force=True))

    def _answered(self, op_id: str, answer: Any, *, done: bool = False) -> None:
        """The owner settled an operation. A join's answer is its `Joined`; the `Done`
        that follows it finds the join settled already."""
        op = self.pending.get(op_id)
        if done and op is not None and op.kind == "join":
            return
        self.pending.pop(op_id, None)
        self.undelivered.discard(op_id)
        future = self.waiting.pop(op_id, None)
        if future is not None:
            settle(future, answer)

    def _broadcast(self) -> None:
        """Send the new snapshot's views to this instance's sockets."""
        for sock in self.sockets.values():
            peer = sock.peer
            # A seat left (and went to a bot) or was taken over: the socket watches.
            if sock.token_hash is not None:
                peer.seat = seat_of(self.record, None, sock.token_hash)
            peer.send(self._frames.frame(self.record, self.version, peer.seat))

    # ------------------------------------------------------------ ownership

    def promotion_over(self) -> None:
        """A take-over ended (done or failed): calls held meanwhile go on."""
        self.promoting = False
        self._promoted.set()

    def became_owner(self, actor: RoomActor) -> None:
        """The take-over succeeded: everything goes to `actor` from now on."""
        self._settle_held(actor.record)
        self.local = actor
        self._closed = True
        self.node.forget(self)
        self.sockets.clear()
        self._pids.clear()
        if asyncio.current_task() is not self._watcher:
            self._watcher.cancel()
