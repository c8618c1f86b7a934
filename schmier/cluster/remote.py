"""The owner's side of forwarding: sockets of other instances, as the owning actor sees
them, and what it does with the operations their instances send.

Everything here runs on the owning actor's task (the actor hands each forwarded `Op` to
its link, which calls `handle`), so it changes the room exactly as a local socket's
frame would: through the actor's own steps, committed before anything is sent.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import ValidationError

from schmier.cluster import bus
from schmier.protocol import parse_client_frame
from schmier.rooms.actor import RoomActor
from schmier.rooms.peers import JoinRefused, Refused
from schmier.store import StoreError, VersionConflict


class Outbox(Protocol):
    """Where bus messages for other instances are queued (the node)."""

    def send(self, instance: str, message: bus.Message) -> None:
        """Queue `message` for `instance` (never blocks, keeps order)."""


class RemotePeer:
    """A socket held by another instance, as the owning actor sees it.

    Views are not sent through it (its instance builds them from the published
    snapshot); only what is meant for this one socket is: an `error`, a chat line, the
    chat history after its first state (which its instance sends).
    """

    def __init__(self, outbox: Outbox, code: str, instance: str, pid: str, seat: int | None):
        self.seat = seat
        self._instance = instance
        self.pid = pid
        self._outbox = outbox
        self._code = code

    @property
    def instance(self) -> str:
        return self._instance

    def send(self, data: bytes) -> None:
        """Deliver one frame to this socket only, through its instance."""
        self._outbox.send(self._instance, bus.Send(self._code, self.pid, data.decode()))

    def close(self, code: int, reason: str = "") -> None:
        """Ask its instance to close the socket (e.g. a flood): the room cannot reach it."""
        self._outbox.send(self._instance, bus.Close(self._code, self.pid, code, reason))


async def handle(outbox: Outbox, room: RoomActor, op: bus.Op) -> None:
    """Apply one operation forwarded by the instance holding the socket.

    Every operation is answered with `Done` (after any `error` or new state, which the
    bus delivers in order), except when the lease is lost mid-way: then the sender keeps
    it and hands it to whoever owns the room next. An operation whose id the record
    already holds was applied before this owner took over (only its answer was lost).
    """
    result = "ok"
    try:
        if op.kind == "connect":
            result = await _connect(outbox, room, op)
        elif op.kind == "disconnect":
            gone = room.remote_peers.pop((op.sender, op.peer), None)
            if gone is not None:
                await room.drop_peer(gone)
        elif op.id in room.record.ops:
            pass
        elif op.kind == "frame":
            result = await _frame(outbox, room, op)
        else:
            await _join(outbox, room, op)
    except (StoreError, VersionConflict, Refused):
        result = "failed"
        raise
    finally:
        if not room.lost:
            outbox.send(op.sender, bus.Done(room.code, op.id, result))


async def _connect(outbox: Outbox, room: RoomActor, op: bus.Op) -> str:
    key = (op.sender, op.peer)
    peer = room.remote_peers.get(key)
    if peer is None:
        peer = RemotePeer(outbox, room.code, op.sender, op.peer, None)
    ok = await room.connect_peer(peer, None, op.hash)
    if ok:
        room.remote_peers[key] = peer
    # The connecting instance may hold an older snapshot than this one.
    publish(outbox, room, {op.sender}, room.record.to_bytes())
    return "ok" if ok else "bad_token"


async def _frame(outbox: Outbox, room: RoomActor, op: bus.Op) -> str:
    try:
        frame = parse_client_frame(op.frame or "")
    except ValidationError:
        return "failed"  # never sent by a follower, which parsed it already
    peer = room.remote_peers.get((op.sender, op.peer))
    if peer is None:
        peer = RemotePeer(outbox, room.code, op.sender, op.peer, op.seat)
    await room.apply_frame(peer, frame, op.id)
    return "ok"


async def _join(outbox: Outbox, room: RoomActor, op: bus.Op) -> None:
    try:
        seat, token = await room.join_seat(op.name or "", op.wanted, op.id, op.member)
    except JoinRefused as exc:
        answer = bus.Joined(room.code, op.id, status=exc.status, detail=exc.detail)
    else:
        answer = bus.Joined(room.code, op.id, seat=seat, token=token)
    outbox.send(op.sender, answer)


async def gone(outbox: Outbox, room: RoomActor, instance: str) -> None:
    """Forget the sockets of an instance that stopped listening (it died)."""
    for key, peer in list(room.remote_peers.items()):
        if key[0] == instance:
            del room.remote_peers[key]
            await room.drop_peer(peer)
    # Should it only have been cut off for a moment, this makes it register its sockets
    # again instead of waiting for states that no longer come.
    outbox.send(instance, bus.Released(room.code))


def publish(outbox: Outbox, room: RoomActor, instances: set[str], snapshot: bytes) -> None:
    """Send the room's snapshot to `instances`, which build their sockets' views."""
    message = bus.State(room.code, room.version, snapshot.decode())
    for instance in instances:
        outbox.send(instance, message)
