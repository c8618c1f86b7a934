"""A room's mailbox: what can happen to a room, as messages, and the bounded queue that
delivers them to its actor one at a time.

Callers that must not wait (a socket closing, another instance's message arriving on the
bus) never lose a message when the queue is full: it is handed to a task that waits for
room, so a flood delays such messages instead of dropping them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from schmier.protocol import ClientFrame, CloseCode
from schmier.rooms.peers import Peer, RoomGone, settle

T = TypeVar("T")

QUEUE_SIZE = 256
"""Messages a room holds before callers that can wait start waiting."""


def _future() -> asyncio.Future[Any]:
    return asyncio.get_running_loop().create_future()


@dataclass
class Connect:
    """A socket said hello: seat it by token (or by a token's hash), or let it watch."""

    peer: Peer
    token: str | None
    token_hash: str | None = None
    history: bool = True
    """Send the kept chat lines after the first state (False: the socket had them)."""
    done: asyncio.Future[bool] = field(default_factory=_future)


@dataclass
class Join:
    """A new player asks for a seat (HTTP); answered with (seat, token)."""

    name: str
    seat: int | None
    op: str | None = None
    """The id of a forwarded join: applied at most once, even across owners."""
    member: str | None = None
    """The club member joining with a member key (checked by the HTTP layer)."""
    done: asyncio.Future[tuple[int, str]] = field(default_factory=_future)


@dataclass
class Frame:
    """A parsed frame of a connected socket (an action already turned into `Action`)."""

    peer: Peer
    frame: Any
    """The protocol model of the frame (`schmier.protocol.ClientFrame`)."""
    op: str | None = None
    """The id of a forwarded operation: applied at most once, even across owners."""
    queued: float = field(default_factory=time.perf_counter)
    """When the frame reached the room (its wait in the queue counts as latency)."""


@dataclass
class Remote:
    """An operation forwarded by another instance (the cluster decodes and applies it)."""

    op: Any


@dataclass
class Gone:
    """Another instance stopped listening: its sockets in this room are gone."""

    instance: str


@dataclass
class Disconnect:
    """A socket of this room closed."""

    peer: Peer


@dataclass
class Store:
    """The store went away (`up` false: pause) or came back (resume where it was)."""

    up: bool


@dataclass
class Lease:
    """The lease could not be renewed: find out whether it is lost or only vanished."""


@dataclass
class Thought:
    """A decision computed off the loop came back (`thinking.Job`): a bot's move or a
    hint, for the room to use or drop."""

    job: Any


@dataclass
class Stop:
    """Stop after the message in flight; `lost`: the lease is gone (write nothing more)."""

    lost: bool = False


Message = Connect | Join | Frame | Disconnect | Stop | Remote | Gone | Store | Lease | Thought


class Mailbox:
    """The bounded queue of one room."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Message] = asyncio.Queue(maxsize=QUEUE_SIZE)
        self._waiting: set[asyncio.Task[None]] = set()
        self._next: Message | None = None
        """A message taken off the queue by `take_if` and not wanted: first in line."""

    async def put(self, message: Message) -> None:
        """Deliver `message`, waiting while the room is full (callers that may wait)."""
        await self._queue.put(message)

    def put_nowait(self, message: Message) -> None:
        """Deliver `message` without waiting; when full, a task delivers it later."""
        try:
            self._queue.put_nowait(message)
        except asyncio.QueueFull:
            task = asyncio.get_running_loop().create_task(self._queue.put(message))
            # asyncio holds tasks only weakly: keep it until it has delivered.
            self._waiting.add(task)
            task.add_done_callback(self._waiting.discard)

    def try_put(self, message: Message) -> bool:
        """Deliver `message` if there is room now; False when the room is full."""
        try:
            self._queue.put_nowait(message)
        except asyncio.QueueFull:
            return False
        return True

    async def get(self) -> Message:
        if self._next is not None:
            message, self._next = self._next, None
            return message
        return await self._queue.get()

    def take_if(self, wanted: Callable[[Message], bool]) -> Message | None:
        """The next message if one is queued now and `wanted` (moves taken together,
        `moves.py`); otherwise None, and the next message stays first in line."""
        if self._next is not None or self._queue.empty():
            return None
        message = self._queue.get_nowait()
        if wanted(message):
            return message
        self._next = message
        return None

    def empty(self) -> bool:
        return self._next is None and self._queue.empty()

    def refuse_all(self, gone: Exception) -> None:
        """The room stopped: answer every request still queued with `gone`, and close
        this instance's sockets whose frames it will never apply (they reconnect)."""
        while not self.empty():
            message = self._next or self._queue.get_nowait()
            self._next = None
            if isinstance(message, Connect | Join):
                settle(message.done, gone)
            elif isinstance(message, Frame) and message.peer.instance is None:
                message.peer.close(CloseCode.SERVICE_RESTART)


async def answer(
    done: asyncio.Future[T], work: Coroutine[Any, Any, T], *expected: type[Exception]
) -> None:
    """Run a request's work and settle its caller with the outcome; an error the caller
    expects (a refused join) is only passed on, any other also ends the step."""
    try:
        result = await work
    except expected as exc:
        settle(done, exc)
    except BaseException as exc:
        settle(done, exc)
        raise
    else:
        settle(done, result)


class Door:
    """A room's front door: every call from outside the room's task becomes a message in
    its mailbox, handled in order by the actor behind the door."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.closed = False
        """The actor has stopped: calls that wait raise `RoomGone`, the others are dropped."""
        self._mailbox = Mailbox()

    async def _put(self, message: Message) -> None:
        if self.closed:
            raise RoomGone(self.code)
        await self._mailbox.put(message)

    async def connect(
        self, peer: Peer, token: str | None, token_hash: str | None = None, history: bool = True
    ) -> bool:
        """Seat `peer` (by token) or make it a spectator; False for a bad token.

        `token_hash` instead of `token` seats a socket whose token another part of this
        instance already checked (a room this instance just took over); `history` False:
        the socket already had its first state and chat history (from the old owner).
        """
        message = Connect(peer, token, token_hash, history)
        await self._put(message)
        return await message.done

    async def join(
        self,
        name: str,
        seat: int | None,
        op: str | None = None,
        *,
        member: str | None = None,
    ) -> tuple[int, str]:
        """Take a seat for a new player: (seat, token), or raise JoinRefused."""
        message = Join(name, seat, op, member)
        await self._put(message)
        return await message.done

    async def frame(
        self, peer: Peer, frame: ClientFrame, raw: str | None = None, op: str | None = None
    ) -> None:
        """Hand a parsed frame of a seated or watching connection to the room."""
        await self._put(Frame(peer, frame, op))

    def disconnect(self, peer: Peer) -> None:
        """The socket of `peer` is gone (never blocks: a full mailbox must not lose it)."""
        if not self.closed:
            self._mailbox.put_nowait(Disconnect(peer))

    def remote(self, op: Any) -> None:
        """An operation forwarded by another instance (never blocks the bus)."""
        if not self.closed:
            self._mailbox.put_nowait(Remote(op))

    def lease_lost(self) -> None:
        """The lease could not be renewed: another instance may own the room now (then
        the room stops), or it vanished with the store (then the room takes it again)."""
        if not self.closed:
            self._mailbox.put_nowait(Lease())

    def store_changed(self, up: bool) -> None:
        """The store went away (pause) or came back (resume); never blocks."""
        if not self.closed:
            self._mailbox.put_nowait(Store(up))

    def thought(self, job: Any) -> None:
        """A decision came back from the bot pool (called on the loop); never blocks."""
        if not self.closed:
            self._mailbox.put_nowait(Thought(job))

    def instance_gone(self, instance: str) -> None:
        """`instance` no longer listens: its sockets here are gone."""
        if not self.closed:
            self._mailbox.put_nowait(Gone(instance))


__all__ = [
    "QUEUE_SIZE",
    "Connect",
    "Disconnect",
    "Door",
    "Frame",
    "Gone",
    "Join",
    "Lease",
    "Mailbox",
    "Message",
    "Remote",
    "Stop",
    "Store",
    "Thought",
    "answer",
]
