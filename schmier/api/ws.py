"""The WebSocket endpoint `/ws/{code}`: handshake checks, hello, frames, rate limits.

This layer parses and authenticates; it never changes a room. Everything a socket says
after its hello goes to the room's actor as a parsed frame. What the actor says is
written at once, straight to uvicorn's transport (`wireframes.FrameWriter`), when
nothing is waiting to go out on that socket: no task switch, a view reaches the kernel
in the same loop iteration that made it. Otherwise (frames still queued, a transport
that pushes back, a closing connection, a server that is not uvicorn) it goes through
this connection's bounded queue and writer task, which sends through ASGI, so a slow
client can never stall the room (it is closed instead when its queue overflows).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from pydantic import ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect

from schmier.api.security import EXHAUSTED, admit_spectator, header, origin_allowed
from schmier.api.wireframes import FrameWriter
from schmier.config import Settings
from schmier.limits import TokenBucket
from schmier.logs import event, failure
from schmier.metrics import Metrics
from schmier.protocol import CloseCode, Hello, parse_client_frame
from schmier.rooms import LiveRoom, Rooms, ShuttingDown, UnknownRoom
from schmier.rooms.codes import normalise_code
from schmier.rooms.peers import error_frame
from schmier.store import StoreError

OUTBOX = 512
"""Frames queued for one socket before it counts as unable to keep up."""

_CLOSE = object()


class SocketPeer:
    """One connection as a room sees it: a seat and a non-blocking `send`."""

    instance: None = None
    """A socket of this instance (the `Peer` protocol: None means local)."""

    def __init__(self, ws: WebSocket, writer: FrameWriter | None = None) -> None:
        self.seat: int | None = None
        self._ws = ws
        self._writer = writer
        """Writes a frame straight to the server's transport when it can (uvicorn);
        else, and whenever it says no, frames go through ASGI."""
        # The outbox and its writer task exist only once something has to wait: a
        # frame the direct writer could not take, or the close. Most sockets never
        # need them until they end, and a queue and a parked task per socket are some
        # thirty objects that every full garbage collection walks (docs/performance.md).
        self._outbox: asyncio.Queue[Any] | None = None
        self.writer: asyncio.Task[None] | None = None
        self._closing = False
        # True while the writer task holds a frame it has not finished sending; then
        # a new frame must queue behind it, or frames would overtake each other.
        self._writing = False

    def _queue(self) -> asyncio.Queue[Any]:
        """The outbox, with its writer started (the first time something must wait)."""
        if self._outbox is None:
            self._outbox = asyncio.Queue(maxsize=OUTBOX)
            self.writer = asyncio.get_running_loop().create_task(self._write(self._outbox))
        return self._outbox

    def send(self, data: bytes) -> None:
        """Send a frame now, or queue it behind the ones still going out; a client too
        slow to take its frames is closed with 1008."""
        if self._closing:
            return
        if (
            not self._writing
            and (self._outbox is None or self._outbox.empty())
            and self._writer is not None
            and self._writer.write(data)
        ):
            return
        try:
            self._queue().put_nowait(data)
        except asyncio.QueueFull:
            self.close(CloseCode.POLICY_VIOLATION, "too slow")

    async def drained(self) -> None:
        """Wait until the writer, if one was needed, has sent everything (the close
        included) or given up."""
        if self.writer is not None:
            await asyncio.shield(self.writer)

    def close(self, code: int, reason: str = "") -> None:
        """Close after the frames already queued (only the first close counts)."""
        if self._closing:
            return
        self._closing = True
        outbox = self._queue()
        with contextlib.suppress(asyncio.QueueFull):
            outbox.put_nowait((_CLOSE, code, reason))
            return
        # The outbox is full: drop what is queued, the close matters more.
        while not outbox.empty():
            outbox.get_nowait()
        outbox.put_nowait((_CLOSE, code, reason))

    @property
    def closing(self) -> bool:
        return self._closing

    async def _write(self, outbox: asyncio.Queue[Any]) -> None:
        ws = self._ws
        try:
            while True:
                item = await outbox.get()
                self._writing = True
                if isinstance(item, bytes):
                    await ws.send_text(item.decode())
                else:
                    _, code, reason = item
                    await ws.close(code=code, reason=reason)
                    return
                self._writing = False
        except (WebSocketDisconnect, RuntimeError, OSError):
            self._closing = True
        except Exception:
            # A bug in some layer of the send: this socket stops, the room goes on.
            self._closing = True
            failure("socket.send_failed")
            with contextlib.suppress(Exception):
                await ws.close(code=CloseCode.INTERNAL_ERROR)


async def websocket_endpoint(ws: WebSocket, code: str, writer: FrameWriter | None = None) -> None:
    """Serve one socket from handshake to close (`writer`: see `SocketPeer`)."""
    app = ws.app
    settings: Settings = app.state.settings
    rooms: Rooms = app.state.rooms
    metrics: Metrics = app.state.metrics
    # From the scope's headers: `ws.headers` would build (and keep, for the socket's
    # life) a header object of its own.
    origin, host = header(ws.scope, b"origin"), header(ws.scope, b"host")
    if not origin_allowed(origin, host, settings.origin_allowlist, settings.public_origins):
        # Closing before accept makes the server answer the handshake with HTTP 403.
        event("socket.origin_refused", origin=(origin or "")[:120])
        await ws.close(code=CloseCode.POLICY_VIOLATION)
        return
    await ws.accept()
    metrics.sockets.inc()
    metrics.open_sockets += 1
    peer = SocketPeer(ws, writer)
    actor: LiveRoom | None = None
    try:
        actor = await _serve(ws, peer, code, settings, rooms)
    finally:
        if actor is not None:
            actor.disconnect(peer)
        if not peer.closing:
            peer.close(CloseCode.NORMAL)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(peer.drained(), timeout=5)
        if peer.writer is not None:
            peer.writer.cancel()
        metrics.sockets.dec()
        metrics.open_sockets -= 1


async def _receive_text(ws: WebSocket, peer: SocketPeer) -> str | None:
    """The next text frame; None once the socket is closed or has been closed by us."""
    try:
        message = await ws.receive()
    except (WebSocketDisconnect, RuntimeError):
        return None
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    if text is None:
        peer.close(CloseCode.UNSUPPORTED_DATA, "binary frames are not supported")
        return None
    return str(text)


class _Limiter:
    """A connection's frame budget; past it, errors, then a 1008 close."""

    def __init__(self, settings: Settings) -> None:
        self.bucket = TokenBucket(settings.frame_burst, settings.frame_rate)
        self.strikes = 0
        self.max_strikes = settings.frame_burst

    def allow(self, peer: SocketPeer) -> bool:
        if self.bucket.take():
            self.strikes = 0
            return True
        self.strikes += 1
        if self.strikes > self.max_strikes:
            peer.close(CloseCode.POLICY_VIOLATION, "rate limit")
        else:
            peer.send(error_frame("rate_limited", "too many frames; slow down"))
        return False


async def _serve(
    ws: WebSocket, peer: SocketPeer, raw_code: str, settings: Settings, rooms: Rooms
) -> LiveRoom | None:
    """The life of one connection; returns the room it was seated in, if any.

    A socket of an address past its failed look-ups (`security.EXHAUSTED`) is told
    nothing about its room before its hello: then a seat's token lets it in as always,
    and anything else closes it with 4429, whether the room exists or not."""
    code: str | None
    if ws.scope.get(EXHAUSTED):
        code = normalise_code(raw_code) or ""
    else:
        code = await _find_room(peer, raw_code, rooms)
    if code is None:
        return None
    limiter = _Limiter(settings)
    room = await _await_hello(ws, peer, code, settings, rooms, limiter)
    if room is not None:
        await _relay_frames(ws, peer, room, limiter)
    return room


async def _find_room(peer: SocketPeer, raw_code: str, rooms: Rooms) -> str | None:
    """The room's code if it exists (its actor loaded); else the socket is closed."""
    code = normalise_code(raw_code)
    try:
        found = None if code is None else await rooms.get(code)
    except ShuttingDown:
        peer.close(CloseCode.SERVICE_RESTART)
        return None
    except StoreError:
        peer.close(CloseCode.INTERNAL_ERROR, "store unavailable")
        return None
    if code is None or found is None:
        peer.close(CloseCode.UNKNOWN_ROOM, "unknown room")
        return None
    return code


async def _await_hello(
    ws: WebSocket,
    peer: SocketPeer,
    code: str,
    settings: Settings,
    rooms: Rooms,
    limiter: _Limiter,
) -> LiveRoom | None:
    """Wait for the hello and seat the socket; None when it never came or was refused."""
    deadline = asyncio.get_running_loop().time() + settings.hello_timeout
    while True:
        try:
            async with asyncio.timeout_at(deadline):
                text = await _receive_text(ws, peer)
        except TimeoutError:
            peer.close(CloseCode.HELLO_TIMEOUT, "no hello")
            return None
        if text is None:
            return None
        if not limiter.allow(peer):
            if peer.closing:
                return None
            continue
        try:
            frame = parse_client_frame(text)
        except ValidationError:
            peer.send(error_frame("bad_message", "not a protocol frame; say hello first"))
            continue
        if not isinstance(frame, Hello):
            peer.send(error_frame("bad_message", "the first frame must be hello"))
            continue
        if ws.scope.get(EXHAUSTED) and (
            not code or (frame.token is None and not await admit_spectator(ws.scope))
        ):
            peer.close(CloseCode.LOOKUPS_EXHAUSTED, "too many failed attempts")
            return None
        return await _seat(peer, code, rooms, frame.token, bool(ws.scope.get(EXHAUSTED)))


async def _seat(
    peer: SocketPeer, code: str, rooms: Rooms, token: str | None, exhausted: bool = False
) -> LiveRoom | None:
    """Seat the socket by its hello's token; close it with the reason when that fails
    (from an address past its failed look-ups: 4429, whatever the reason)."""
    try:
        room = await rooms.connect(code, peer, token)
    except UnknownRoom:
        if exhausted:
            peer.close(CloseCode.LOOKUPS_EXHAUSTED, "too many failed attempts")
        else:
            peer.close(CloseCode.UNKNOWN_ROOM, "unknown room")
        return None
    except ShuttingDown:
        peer.close(CloseCode.SERVICE_RESTART)
        return None
    except Exception:
        peer.close(CloseCode.INTERNAL_ERROR, "room unavailable")
        return None
    if room is None:
        if exhausted:
            peer.close(CloseCode.LOOKUPS_EXHAUSTED, "too many failed attempts")
        else:
            peer.close(CloseCode.BAD_TOKEN, "bad token")
    return room


async def _relay_frames(ws: WebSocket, peer: SocketPeer, room: LiveRoom, limiter: _Limiter) -> None:
    """Hand every frame of a seated socket to its room until the socket closes."""
    while True:
        text = await _receive_text(ws, peer)
        if text is None:
            return
        if not limiter.allow(peer):
            if peer.closing:
                return
            continue
        try:
            frame = parse_client_frame(text)
        except ValidationError as exc:
            peer.send(error_frame("bad_message", _describe(exc)))
            continue
        if room.closed:
            peer.close(CloseCode.SERVICE_RESTART)
            return
        try:
            await room.frame(peer, frame, text)
        except Exception:
            peer.close(CloseCode.SERVICE_RESTART)
            return


def _describe(exc: ValidationError) -> str:
    """A short reason for a bad frame (pydantic's first complaint, without the input)."""
    errors = exc.errors(include_input=False, include_url=False)
    if not errors:
        return "not a protocol frame"
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()))
    return f"{where}: {first.get('msg', 'invalid')}"[:200] if where else str(first.get("msg"))
