"""The sockets a room talks to, and the answers a room gives: shared by the owning actor
and by a follower on another instance.

A `Peer` is one connection as a room sees it: a seat (or none: a spectator), the instance
holding it (None: this one) and a non-blocking `send`. A room never waits on a socket.
"""

from __future__ import annotations

import asyncio
import hmac
from typing import Any, Protocol

import orjson

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
    """Answer a caller unless it has stopped waiting (its request was cancelled)."""
    if future.done():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
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
