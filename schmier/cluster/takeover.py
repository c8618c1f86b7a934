"""A follower becomes the owner: nobody holds the room's lease any more, this instance
took it, and a local actor now seats the follower's sockets and applies what they sent
while the owner was away.

Until every socket is seated and every pending operation handed over, the follower holds
its sockets' new frames and disconnections (the new actor would drop a frame of a socket
it has not seated yet) and new hellos and joins wait. Operations are replayed in the
order they were made; the actor skips those the old owner had already applied (their ids
are in the stored record).
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from pydantic import ValidationError

from schmier.cluster import bus
from schmier.cluster.hub import Hub
from schmier.logs import event
from schmier.protocol import CloseCode, parse_client_frame
from schmier.rooms.actor import RoomActor
from schmier.rooms.peers import JoinRefused, Peer, Refused, RoomGone, settle
from schmier.store import LeaseLost, StoreError, VersionConflict

_SEAT_FAILURES = (RoomGone, LeaseLost, StoreError, Refused, VersionConflict)


class Sock(Protocol):
    """One of the follower's sockets."""

    peer: Peer
    pid: str
    token_hash: str | None


class Following(Protocol):
    """What a take-over needs of the follower it ends."""

    code: str
    node: Hub
    promoting: bool

    @property
    def sockets(self) -> dict[str, Any]: ...
    @property
    def hellos(self) -> dict[str, Any]: ...
    @property
    def pending(self) -> dict[str, bus.Op]: ...
    @property
    def waiting(self) -> dict[str, asyncio.Future[Any]]: ...
    @property
    def undelivered(self) -> set[str]: ...

    def promotion_over(self) -> None: ...
    def became_owner(self, actor: RoomActor) -> None: ...
    async def close(self) -> None: ...


async def promote(f: Following, lease: str, *, notified: bool) -> None:
    """Become the owner with `lease`. `notified`: the old owner said it gave the room up
    (so the joins pending here were never applied; see `Follower._resend`)."""
    f.promoting = True
    try:
        actor = await f.node.own(f.code, lease)
        if actor is None:
            for sock in f.sockets.values():
                sock.peer.close(CloseCode.UNKNOWN_ROOM, "unknown room")
            await f.close()
            return
        await _hand_over(f, actor, notified=notified)
    finally:
        f.promotion_over()


async def _hand_over(f: Following, actor: RoomActor, *, notified: bool) -> None:
    event("room.taken_over", room=f.code, seq=actor.version, sockets=len(f.sockets))
    f.node.rooms.metrics.takeovers.inc()
    seated: dict[str, Peer] = {}
    for sock in list(f.sockets.values()):
        await _seat(actor, sock, history=False)
        seated[sock.pid] = sock.peer
    while f.pending:
        op_id, op = next(iter(f.pending.items()))
        del f.pending[op_id]
        await _replay(f, actor, op, f.waiting.pop(op_id, None), seated, notified=notified)
    for future in f.waiting.values():
        settle(future, RoomGone(f.code))
    f.waiting.clear()
    f.became_owner(actor)


async def _replay(
    f: Following,
    actor: RoomActor,
    op: bus.Op,
    future: asyncio.Future[Any] | None,
    seated: dict[str, Peer],
    *,
    notified: bool,
) -> None:
    """Hand one pending operation to the new actor."""
    if op.kind == "connect":
        hello = f.hellos.get(op.id)
        if hello is not None and future is not None:
            ok = await _seat(actor, hello)
            seated[hello.pid] = hello.peer
            settle(future, "local" if ok else "bad_token")
    elif op.kind == "frame":
        peer = seated.get(op.peer)
        if peer is not None:
            try:
                frame = parse_client_frame(op.frame or "")
                await actor.frame(peer, frame, op=op.id)
            except ValidationError:
                pass  # parsed when it arrived here; cannot happen
            except RoomGone:
                peer.close(CloseCode.SERVICE_RESTART)
    elif op.kind == "disconnect":
        # A socket seated above that closed meanwhile.
        gone = seated.pop(op.peer, None)
        if gone is not None:
            actor.disconnect(gone)
    elif future is not None:
        await _join_locally(f, actor, op, future, notified=notified)


async def _join_locally(
    f: Following, actor: RoomActor, op: bus.Op, future: asyncio.Future[Any], *, notified: bool
) -> None:
    """A join pending at the take-over, when it is known the old owner never had it."""
    if not notified and op.id not in f.undelivered:
        settle(future, StoreError("the room changed owner; try again"))
        return
    try:
        seat, token = await actor.join(op.name or "", op.wanted, member=op.member)
    except JoinRefused as exc:
        settle(future, bus.Joined(f.code, op.id, status=exc.status, detail=exc.detail))
    except (RoomGone, LeaseLost, StoreError, Refused, VersionConflict) as exc:
        settle(future, StoreError(str(exc)))
    else:
        settle(future, bus.Joined(f.code, op.id, seat=seat, token=token))


async def _seat(actor: RoomActor, sock: Sock, *, history: bool = True) -> bool:
    """Seat one of the follower's sockets with the local actor (token already known);
    `history` False for a socket that has had its first state and chat history."""
    try:
        return await actor.connect(sock.peer, None, sock.token_hash, history)
    except _SEAT_FAILURES:
        sock.peer.close(CloseCode.SERVICE_RESTART)
        return False
