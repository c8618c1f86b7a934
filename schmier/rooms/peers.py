"""The sockets a room talks to, and the answers a room gives: shared by the owning actor
and by a follower on another instance.

A `Peer` is one connection as a room sees it: a seat (or none: a spectator), the instance
holding it (None: this one) and a non-blocking `send`. A room never waits on a socket.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import orjson

from schmier.config import Settings
from schmier.limits import SeatBudgets, TokenBucket
from schmier.protocol import CloseCode
from schmier.rooms.codes import token_matches
from schmier.rooms.record import RoomRecord


class Peer(Protocol):
    """A connection as a room sees it: a seat (or none), where it lives, a way to send."""

    seat: int | None

    @property
    def instance(self) -> str | None:
        """The instance holding the socket, or None when it is this instance's own.

        A room sends views only to its own sockets; for the others it publishes the
        snapshot once per instance, and that instance builds their views.
        """

    def send(self, data: bytes) -> None:
        """Queue one frame for the socket; never blocks the room."""

    def close(self, code: int, reason: str = "") -> None:
        """Queue a close of the socket after the frames already queued."""


R = TypeVar("R", contravariant=True)


class Link(Protocol[R]):
    """The cluster as an owning actor (`R`) sees it; absent for a single instance."""

    instance: str

    async def handle(self, room: R, op: Any) -> None:
        """Apply one operation another instance forwarded (runs on the actor's task)."""

    async def gone(self, room: R, instance: str) -> None:
        """`instance` stopped listening: forget its sockets (runs on the actor's task)."""

    def publish(self, room: R, instances: set[str], snapshot: bytes) -> None:
        """Send the room's current snapshot to `instances` (they build their views)."""

    async def finished(self, room: R, *, lost: bool, instances: set[str]) -> None:
        """The actor stopped: give the lease up (unless `lost`), tell `instances`."""

    async def keep_lease(self, room: R) -> str | None:
        """The room's lease value now: the room's own, a new one when it had vanished
        (expired in Redis) and nobody else took it, None when another instance holds it."""


class RoomGone(Exception):
    """The room's actor has stopped; ask the registry for a fresh one."""


class JoinRefused(Exception):
    """A join the room cannot grant; `status` is the HTTP status to answer."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class Refused(Exception):
    """A frame answered with an `error` frame; the room is unchanged."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def error_frame(code: str, message: str) -> bytes:
    """The protocol's `error` frame."""
    return orjson.dumps({"type": "error", "code": code, "message": message})


def settle(future: asyncio.Future[Any], outcome: Any) -> None:
    """Answer a caller unless it has stopped waiting (its request was cancelled).

    A caller waits through a shield, so one that went away (its socket closed) leaves
    the future pending: a failure set on it then reaches nobody, and asyncio would log
    it as a "Future exception was never retrieved" traceback. It is marked as seen; a
    caller still waiting gets it all the same."""
    if future.done():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
        future.exception()
    else:
        future.set_result(outcome)


def seat_of(record: RoomRecord, token: str | None, token_hash: str | None) -> int | None:
    """The seat a token (or, between instances, a token's hash) holds, else None."""
    if token is not None:
        matches = [token_matches(s.token_hash, token) for s in record.seats]
    elif token_hash is not None:
        matches = [
            s.token_hash is not None and hmac.compare_digest(s.token_hash, token_hash)
            for s in record.seats
        ]
    else:
        return None
    return matches.index(True) if True in matches else None


PRACTICE_BURST = 5
"""Practice rooms a room may make at once (docs/protocol.md, "Practice from a position")."""
PRACTICE_RATE = 1 / 20
"""Practice rooms per second a room may make after its burst: one every 20 seconds."""


class Sockets:
    """The sockets of one room: this instance's own, and other instances' (their
    `instance` set), with the seat each holds, oldest first.

    A seat may have `per_seat` sockets at once (tabs, devices): a newer one closes the
    oldest with 4409, so one token cannot open a hundred sockets. And a seat's frames
    are counted against one budget (`spend`), however many sockets send them, on top of
    each socket's own (`api/ws.py`), so more sockets never mean more frames.
    """

    def __init__(self, per_seat: int = 0, budgets: SeatBudgets | None = None) -> None:
        self._peers: dict[Peer, None] = {}
        self._per_seat = per_seat
        self._budgets = budgets
        self._practices = TokenBucket(PRACTICE_BURST, PRACTICE_RATE)

    @classmethod
    def for_settings(cls, settings: Settings) -> Sockets:
        """A room's sockets with the server's limits per seat."""
        budgets = SeatBudgets(settings.frame_burst, settings.frame_rate)
        return cls(settings.sockets_per_seat, budgets)

    def spend(self, seat: int) -> None:
        """Count one frame of `seat`; raises `Refused` (`rate_limited`) past its budget."""
        if self._budgets is not None and not self._budgets.take(seat):
            raise Refused("rate_limited", "too many frames from this seat; slow down")

    def spend_practice(self) -> None:
        """Count one practice room the room makes (each is a room of the server's);
        raises `Refused` (`rate_limited`) past the room's budget."""
        if not self._practices.take():
            raise Refused("rate_limited", "too many practice rooms at once; wait a little")

    def __contains__(self, peer: Peer) -> bool:
        return peer in self._peers

    def __bool__(self) -> bool:
        return bool(self._peers)

    def add(self, peer: Peer) -> None:
        """A socket joins; the oldest of its seat's close (4409) while it has too many."""
        seat = peer.seat
        if seat is not None and self._per_seat:
            crowd = self.at(seat)
            for old in crowd[: max(0, len(crowd) - self._per_seat + 1)]:
                del self._peers[old]
                old.close(CloseCode.SEAT_CROWDED, "this seat was opened on another socket")
        self._peers[peer] = None

    def discard(self, peer: Peer) -> None:
        self._peers.pop(peer, None)

    def all(self) -> list[Peer]:
        """Every socket of the room, this instance's and the others'."""
        return list(self._peers)

    def at(self, seat: int) -> list[Peer]:
        """The sockets holding `seat` (a player may have the room open twice)."""
        return [p for p in self._peers if p.seat == seat]

    def has(self, seat: int) -> bool:
        """Whether some socket holds `seat` (the player is present)."""
        return any(p.seat == seat for p in self._peers)

    def instances(self) -> set[str]:
        """The other instances holding sockets in this room."""
        return {p.instance for p in self._peers if p.instance is not None}

    def send_views(self, frame_for: Callable[[int | None], bytes]) -> set[str]:
        """Send each own socket the frame of its seat; the other instances to tell."""
        instances: set[str] = set()
        for peer in self._peers:
            if peer.instance is None:
                peer.send(frame_for(peer.seat))
            else:
                instances.add(peer.instance)
        return instances

    def send_all(self, data: bytes) -> None:
        """The same frame to every socket (a chat line), wherever it is held."""
        for peer in self._peers:
            peer.send(data)

    def send_own(self, data: bytes) -> None:
        """The same frame to this instance's sockets only (their instances tell the
        others whatever concerns their own store, such as a pause)."""
        for peer in self._peers:
            if peer.instance is None:
                peer.send(data)

    def close_own(self, code: int) -> set[str]:
        """Close this instance's sockets and forget all; the other instances that held
        some (their instances take the room over, or find its new owner)."""
        instances = self.instances()
        for peer in self._peers:
            if peer.instance is None:
                peer.close(code)
        self._peers.clear()
        return instances
