"""A room owned by another instance, served to this instance's sockets.

The follower never changes the room. It keeps the last snapshot the owner published,
builds its own sockets' views from it with the same function the owner uses, and
forwards everything its sockets say to the owner as operations with unique ids. An
operation stays pending until the owner answers `done`; when the owner changes (its
lease expired or was released) the pending operations go to the new owner, which
skips those already applied (their ids are committed with the change they caused, in
`RoomRecord.ops`). So nothing is applied twice and nothing is lost.

When nobody owns the room any more, the follower takes the lease itself and becomes
the owner: it starts a local actor, seats its sockets there and hands it the pending
operations; from then on it only passes calls through to that actor.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from schmier.config import Settings
from schmier.logs import event, failure
from schmier.protocol import ClientFrame, CloseCode, parse_client_frame
from schmier.rooms.actor import (
    JoinRefused,
    Peer,
    Refused,
    RoomActor,
    RoomGone,
    seat_of,
)
from schmier.rooms.codes import hash_token
from schmier.rooms.frames import StateFrames
from schmier.rooms.record import RoomRecord
from schmier.store import LeaseLost, Stored, StoreError

if TYPE_CHECKING:
    from schmier.cluster.node import Node
    from schmier.rooms.registry import Rooms

MAX_PENDING = 512
"""Forwarded operations awaiting their `done` before sockets count as flooding."""


@dataclass
class _Socket:
    peer: Peer
    pid: str
    token_hash: str | None
    """The hash of the token the socket said hello with (None for a spectator)."""


def _settle(future: asyncio.Future[Any], outcome: Any) -> None:
    if future.done():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


class Follower:
    """The room as seen from an instance that holds sockets but not the lease."""

    def __init__(self, code: str, stored: Stored, owner: str, *, node: Node, rooms: Rooms) -> None:
        self.code = code
        self.record = RoomRecord.from_bytes(stored.snapshot)
        self.version = stored.version
        self.owner = owner
        """The lease value of the owner the operations go to."""
        self._closed = False
        self.local: RoomActor | None = None
        """The actor of this instance once it took the room over."""
        self._node = node
        self._rooms = rooms
        self._settings: Settings = node.settings
        self._sockets: dict[str, _Socket] = {}
        self._frames: StateFrames | None = None
        self._pids: dict[Peer, str] = {}
        self._pending: dict[str, dict[str, Any]] = {}
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._hellos: dict[str, _Socket] = {}
        self._lock = asyncio.Lock()
        self._waiting_out = False
        self._undelivered: set[str] = set()
        """Operations that reached nobody (PUBLISH counted 0 receivers): never applied."""
        self._promoting = False
        """Taking the room over: operations wait here until every socket is seated."""
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

    async def connect(self, peer: Peer, token: str | None) -> bool:
        """Register the socket with the owner (which marks the seat connected)."""
        if self._promoting:
            await self._promoted.wait()
        if self.local is not None:
            return await self.local.connect(peer, token)
        if self._closed:
            raise RoomGone(self.code)
        hashed = None if token is None else hash_token(token)
        sock = _Socket(peer, self._node.new_id(), hashed)
        peer.seat = None
        op_id, future = self._request({"kind": "connect", "peer": sock.pid, "hash": hashed})
        self._hellos[op_id] = sock
        # The owner may be dying: the hello waits for the take-over (lease time plus a
        # check) instead of failing, as the protocol promises.
        wait = self._node.lease_ms / 1000 * 2 + self._settings.hello_timeout
        try:
            async with asyncio.timeout(wait):
                result = await asyncio.shield(future)
        except BaseException as exc:
            # Timed out, or the socket went away meanwhile: should the owner still
            # seat it, the disconnection that follows undoes that (no ghost seat).
            self._forget(op_id)
            if self.local is None and not self._closed:
                self._request({"kind": "disconnect", "peer": sock.pid}, wait=False)
            if isinstance(exc, TimeoutError):
                raise StoreError(f"room {self.code}: no owner answered") from None
            raise
        finally:
            self._hellos.pop(op_id, None)
        if result == "local":
            return True  # taken over meanwhile: the local actor seated it and sent the view
        if result == "bad_token":
            return False
        if result != "ok":
            raise StoreError(f"room {self.code}: the owner could not seat the socket")
        if self._promoting:
            await self._promoted.wait()
        if self.local is not None:
            # Taken over between the answer and now: seat it with the new actor.
            return await self.local.connect(peer, None, hashed)
        peer.seat = None if hashed is None else seat_of(self.record, None, hashed)
        self._sockets[sock.pid] = sock
        self._pids[peer] = sock.pid
        peer.send(self._state_frame(peer.seat))
        return True

    async def join(self, name: str, seat: int | None) -> tuple[int, str]:
        """Forward a join; a join is never sent twice (its token could not be resent)."""
        if self._promoting:
            await self._promoted.wait()
        if self.local is not None:
            return await self.local.join(name, seat)
        if self._closed:
            raise RoomGone(self.code)
        op_id, future = self._request({"kind": "join", "peer": "", "name": name, "seat": seat})
        try:
            async with asyncio.timeout(self._node.lease_ms / 1000 * 2 + 5):
                answer: dict[str, Any] = await asyncio.shield(future)
        except TimeoutError:
            self._forget(op_id)
            raise StoreError(f"room {self.code}: no owner answered the join") from None
        if "token" in answer:
            return int(answer["seat"]), str(answer["token"])
        raise JoinRefused(int(answer["status"]), str(answer["detail"]))

    async def frame(self, peer: Peer, frame: ClientFrame) -> None:
        """Forward a frame of a registered socket (answered by the owner, in order)."""
        if self.local is not None:
            await self.local.frame(peer, frame)
            return
        if self._closed:
            raise RoomGone(self.code)
        pid = self._pids.get(peer)
        if pid is None:
            return
        if len(self._pending) >= MAX_PENDING:
            raise RoomGone(self.code)
        op = {"kind": "frame", "peer": pid, "seat": peer.seat, "frame": frame.model_dump_json()}
        if self._promoting:
            # The new local actor must see this socket seated before its frames.
            self._hold(op)
            return
        self._request(op, wait=False)

    def disconnect(self, peer: Peer) -> None:
        """The socket closed: tell the owner (which marks the seat disconnected)."""
        if self.local is not None:
            self.local.disconnect(peer)
            return
        pid = self._pids.pop(peer, None)
        if pid is None:
            return
        self._sockets.pop(pid, None)
        if self._promoting:
            self._hold({"kind": "disconnect", "peer": pid})
        elif not self._closed:
            self._request({"kind": "disconnect", "peer": pid}, wait=False)
        if not self._sockets:
            self._idle_since = asyncio.get_running_loop().time()

    def info(self) -> dict[str, Any]:
        """The room as `GET /api/rooms/{code}` shows it (from the last snapshot)."""
        return self.record.info()

    async def close(self) -> None:
        """Stop following (no sockets left, or the server stops)."""
        if self._closed:
            return
        self._closed = True
        if self._rooms.followers.get(self.code) is self:
            del self._rooms.followers[self.code]
        for future in self._waiting.values():
            _settle(future, RoomGone(self.code))
        self._waiting.clear()
        if asyncio.current_task() is not self._watcher:
            self._watcher.cancel()
            await asyncio.gather(self._watcher, return_exceptions=True)

    # ------------------------------------------------------------ messages

    def _request(self, op: dict[str, Any], *, wait: bool = True) -> tuple[str, asyncio.Future[Any]]:
        op_id = self._node.new_id()
        op.update(t="op", room=self.code, id=op_id)
        op["from"] = self._node.instance
        self._pending[op_id] = op
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if wait:
            self._waiting[op_id] = future
        self._send(op)
        return op_id, future

    def _hold(self, op: dict[str, Any]) -> None:
        """Keep an operation for the actor this instance is starting (not sent)."""
        op_id = self._node.new_id()
        op.update(t="op", room=self.code, id=op_id)
        op["from"] = self._node.instance
        self._pending[op_id] = op

    def _send(self, op: dict[str, Any]) -> None:
        owner = self.owner.rpartition(":")[0]
        op_id = str(op["id"])
        self._undelivered.discard(op_id)

        def unreachable() -> None:
            if op_id in self._pending:
                self._undelivered.add(op_id)
            self._unreachable()

        self._node.send(owner, op, unreachable)

    def _forget(self, op_id: str) -> None:
        self._pending.pop(op_id, None)
        self._waiting.pop(op_id, None)
        self._undelivered.discard(op_id)

    def _unreachable(self) -> None:
        """Nobody listens on the owner's channel: it died. Take over when its lease ends."""
        if not self._closed and self.local is None:
            self._spawn(self._wait_out())

    async def _wait_out(self) -> None:
        """The owner is dead: check again the moment its lease expires.

        Without this, a take-over would also wait for the next periodic check (up to
        a third of the lease more); the lease's remaining time is known exactly.
        """
        if self._waiting_out:
            return
        self._waiting_out = True
        try:
            left = await self._node.store.lease_ttl_ms(self.code)
            if left > 0:
                await asyncio.sleep(left / 1000 + 0.005)
            await self._check(force=False)
        except Exception:
            failure("cluster.check_failed", room=self.code)
        finally:
            self._waiting_out = False

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` as a task kept referenced (asyncio holds tasks only weakly)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _safe_check(self, *, force: bool) -> None:
        """`_check` as a task of its own: a failure is logged, the watcher retries."""
        try:
            await self._check(force=force)
        except Exception:
            failure("cluster.check_failed", room=self.code)

    def on_message(self, message: dict[str, Any]) -> None:
        """A message of the owner (the node's listener calls this, in bus order)."""
        kind = message["t"]
        if kind == "state":
            seq = int(message["seq"])
            if seq <= self.version:
                return
            self.record = RoomRecord.from_bytes(str(message["snap"]).encode())
            self.version = seq
            self._broadcast()
        elif kind == "send":
            sock = self._sockets.get(str(message["peer"]))
            if sock is not None:
                sock.peer.send(str(message["data"]).encode())
        elif kind == "close":
            sock = self._sockets.get(str(message["peer"]))
            if sock is not None:
                sock.peer.close(int(message["code"]), str(message.get("reason", "")))
        elif kind in ("done", "joined"):
            op_id = str(message["id"])
            if kind == "done" and self._pending.get(op_id, {}).get("kind") == "join":
                return  # the join's answer is its `joined`, already handled
            self._pending.pop(op_id, None)
            self._undelivered.discard(op_id)
            future = self._waiting.pop(op_id, None)
            if future is not None:
                _settle(future, message if kind == "joined" else message.get("result"))
        elif kind == "released":
            self._spawn(self._safe_check(force=True))

    def _state_frame(self, seat: int | None) -> bytes:
        """This version's frame for `seat`; the public part is serialised once a version."""
        frames = self._frames
        if frames is None or not frames.matches(self.record, self.version):
            frames = self._frames = StateFrames(self.record, self.version)
        return frames.frame(seat)

    def _broadcast(self) -> None:
        """Send the new snapshot's views to this instance's sockets."""
        for sock in self._sockets.values():
            peer = sock.peer
            # A seat left (and went to a bot) or was taken over: the socket watches.
            if sock.token_hash is not None:
                peer.seat = seat_of(self.record, None, sock.token_hash)
            peer.send(self._state_frame(peer.seat))

    # ------------------------------------------------------------ ownership

    async def _watch(self) -> None:
        """Check the lease every third of the lease time; stop when unused."""
        loop = asyncio.get_running_loop()
        grace = self._settings.hello_timeout + self._node.lease_ms / 1000
        while not self._closed and self.local is None:
            await asyncio.sleep(self._node.lease_ms / 3000)
            try:
                await self._check(force=False)
                owner = self.owner.rpartition(":")[0]
                if self.local is None and not await self._node.listening(owner):
                    self._unreachable()
            except Exception:
                failure("cluster.follow_failed", room=self.code)
            idle = not self._sockets and not self._waiting
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
                holder = await self._node.holder(self.code)
                ours = holder is not None and holder.rpartition(":")[0] == self._node.instance
                if holder is not None and ours and self.code not in self._rooms.live:
                    # Left over by an actor of ours that stopped: nobody uses it.
                    await self._node.store.release_lease(self.code, holder)
                    holder = None
                if holder is None and not self._sockets and not self._waiting:
                    # Nobody here to serve: let the next hello or join open the room.
                    await self.close()
                    return
                if holder is None:
                    value = await self._node.acquire(self.code)
                    if value is not None:
                        await self._promote(value, notified=force)
                        return
                    holder = await self._node.holder(self.code)
            except StoreError:
                failure("cluster.check_failed", room=self.code)
                return
            if holder is None:
                return
            if holder != self.owner or force:
                if holder != self.owner:
                    event("room.new_owner", room=self.code, owner=holder.rpartition(":")[0])
                self.owner = holder
                if force:
                    await asyncio.sleep(0.05)  # let a just-started owner get ready
                self._resend(notified=force)

    def _resend(self, *, notified: bool) -> None:
        """Register the sockets with the new owner and hand it the pending operations.

        `notified`: the previous owner said it did not (or no longer) serve the room,
        which it only says after answering everything it applied; so the pending
        joins were not applied and may go to the next owner too. So may a join that
        reached nobody. Otherwise (the owner died holding it) a join may have been
        applied with its token lost: it fails, and the client asks again.
        """
        for sock in self._sockets.values():
            self._send(
                {"t": "op", "room": self.code, "id": self._node.new_id(),
                 "from": self._node.instance, "kind": "connect", "peer": sock.pid,
                 "hash": sock.token_hash}
            )  # fmt: skip
        for op_id, op in list(self._pending.items()):
            if op["kind"] == "join" and not notified and op_id not in self._undelivered:
                # The old owner may have seated the player, and the token exists only
                # in its answer: a resend could seat them twice. The client retries.
                self._pending.pop(op_id)
                future = self._waiting.pop(op_id, None)
                if future is not None:
                    _settle(future, StoreError("the room changed owner; try again"))
                continue
            self._send(op)

    async def _promote(self, lease: str, *, notified: bool) -> None:
        """Become the owner: a local actor seats the sockets and takes the operations.

        Until every socket is seated and every pending operation handed over, frames
        and disconnections of this instance's sockets are held (not passed to the new
        actor, which would drop a frame of a socket it has not seated yet), and new
        hellos and joins wait. `notified` as for `_resend`.
        """
        self._promoting = True
        try:
            await self._adopt(lease, notified=notified)
        finally:
            self._promoting = False
            self._promoted.set()

    async def _adopt(self, lease: str, *, notified: bool) -> None:
        try:
            actor = await self._rooms.load_owned(self.code, lease)
        except BaseException:
            await self._node.store.release_lease(self.code, lease)
            raise
        if actor is None:
            for sock in self._sockets.values():
                sock.peer.close(CloseCode.UNKNOWN_ROOM, "unknown room")
            await self.close()
            return
        if self._rooms.followers.get(self.code) is self:
            del self._rooms.followers[self.code]
        event("room.taken_over", room=self.code, seq=actor.version, sockets=len(self._sockets))
        seated: dict[str, Peer] = {}
        for sock in list(self._sockets.values()):
            await self._seat(actor, sock)
            seated[sock.pid] = sock.peer
        while self._pending:
            op_id, op = next(iter(self._pending.items()))
            del self._pending[op_id]
            future = self._waiting.pop(op_id, None)
            kind = op["kind"]
            if kind == "connect":
                hello = self._hellos.get(op_id)
                if hello is not None and future is not None:
                    ok = await self._seat(actor, hello)
                    seated[hello.pid] = hello.peer
                    _settle(future, "local" if ok else "bad_token")
            elif kind == "frame":
                peer = seated.get(str(op["peer"]))
                if peer is not None:
                    try:
                        await actor.frame(peer, parse_client_frame(str(op["frame"])), op_id)
                    except RoomGone:
                        peer.close(CloseCode.SERVICE_RESTART)
            elif kind == "disconnect":
                # A socket seated above that closed meanwhile.
                peer = seated.pop(str(op["peer"]), None)
                if peer is not None:
                    actor.disconnect(peer)
            elif kind == "join" and future is not None:
                await self._join_locally(actor, op, future, notified=notified)
        for future in self._waiting.values():
            _settle(future, RoomGone(self.code))
        self._waiting.clear()
        self._sockets.clear()
        self._pids.clear()
        self.local = actor
        self._closed = True
        if asyncio.current_task() is not self._watcher:
            self._watcher.cancel()

    async def _join_locally(
        self, actor: RoomActor, op: dict[str, Any], future: asyncio.Future[Any], *, notified: bool
    ) -> None:
        """A join pending at the take-over, when it is known the old owner never had it."""
        op_id = str(op["id"])
        if not notified and op_id not in self._undelivered:
            _settle(future, StoreError("the room changed owner; try again"))
            return
        try:
            seat, token = await actor.join(str(op["name"]), op.get("seat"))
        except JoinRefused as exc:
            _settle(future, {"status": exc.status, "detail": exc.detail})
        except (RoomGone, LeaseLost, StoreError, Refused) as exc:
            _settle(future, StoreError(str(exc)))
        else:
            _settle(future, {"seat": seat, "token": token})

    async def _seat(self, actor: RoomActor, sock: _Socket) -> bool:
        """Seat one of this instance's sockets with the local actor (token already known)."""
        try:
            return await actor.connect(sock.peer, None, sock.token_hash)
        except (RoomGone, LeaseLost, StoreError, Refused):
            sock.peer.close(CloseCode.SERVICE_RESTART)
            return False
