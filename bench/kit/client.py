"""The WebSocket half of the protocol (docs/protocol.md, "WebSocket"), client side.

`open_socket` opens a room's socket with the options every client of the kit uses;
`Client` wraps one, validates every frame it receives against the protocol's
server-frame models and records them (the tests' secrecy checks read them afterwards).
The load generator reads its sockets itself, without validation, to keep up with a
saturated server (`bench/load/players.py`), but opens them here.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import websockets
from websockets.asyncio.client import ClientConnection

from schmier.protocol import SERVER_FRAME

MAX_FRAME = 2**22
"""The largest frame a client accepts (a full room's state is far smaller)."""


async def open_socket(
    url: str, *, origin: str | None = None, compression: str | None = None, **options: Any
) -> ClientConnection:
    """Connect to a room's socket `url` (no Origin header unless given, no compression
    unless asked); `options` go to `websockets.connect`."""
    headers = {"Origin": origin} if origin else None
    return await websockets.connect(
        url, additional_headers=headers, compression=compression, max_size=MAX_FRAME, **options
    )


def hello(token: str | None) -> dict[str, Any]:
    """The first frame on a socket: with a seat's token to sit, without to watch."""
    return {"type": "hello", "token": token} if token else {"type": "hello"}


def encode(frame: dict[str, Any]) -> str:
    """A frame as the JSON text sent on the socket."""
    return orjson.dumps(frame).decode()


class ClosedError(AssertionError):
    """The server closed the socket while the client waited for a frame."""


class Client:
    """One WebSocket connection speaking the protocol, recording every frame received.

    A reader task validates each frame against the protocol's server-frame models and
    queues it; `frames` keeps them all (the secrecy tests read it afterwards).
    """

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.arrivals: list[float] = []
        """When each of `frames` arrived (`time.monotonic()`)."""
        self.transcript: list[tuple[str, dict[str, Any]]] = []
        """Every frame in the order this side saw it: `("in", frame)` received (validated),
        `("out", frame)` sent (dict frames only): the history a checker reads
        (`tests/support/history.py`)."""
        self.state: dict[str, Any] | None = None
        self._queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.close_code: int | None = None
        self.history: list[dict[str, Any]] | None = None
        """The lines of the `chat_history` frame that followed the first state."""
        self.review: dict[str, Any] | None = None
        """The last `review` frame (the room's shared review; the first follows the
        chat history)."""
        self.on_state: Callable[[dict[str, Any]], Awaitable[None]] | None = None
        """Called with every state frame as it arrives, before anyone waiting sees it (a
        test commits to its entropy from here, say)."""
        self.on_reveal: Callable[[dict[str, Any]], Awaitable[None]] | None = None
        """Called with every `reveal` frame as it arrives (a test reveals from here)."""
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def connect(cls, url: str, *, origin: str | None = None, **options: Any) -> Client:
        """Open a socket to `url` (no Origin header unless given)."""
        return cls(await open_socket(url, origin=origin, **options))

    @classmethod
    async def seated(cls, server: Any, code: str, token: str | None) -> Client:
        """Connect to the room on `server` (anything with `ws_url(code)`, such as a
        `RunningServer`) and say hello; the first state has arrived."""
        client = await cls.connect(server.ws_url(code))
        await client.hello(token)
        return client

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                frame = orjson.loads(raw)
                SERVER_FRAME.validate_python(frame)
                self.frames.append(frame)
                self.arrivals.append(time.monotonic())
                self.transcript.append(("in", frame))
                if frame["type"] == "state":
                    self.state = frame
                    if self.on_state is not None:
                        await self.on_state(frame)
                elif frame["type"] == "review":
                    self.review = frame
                elif frame["type"] == "reveal" and self.on_reveal is not None:
                    await self.on_reveal(frame)
                await self._queue.put(frame)
        except websockets.ConnectionClosed:
            pass
        finally:
            self.close_code = self.ws.close_code
            await self._queue.put(None)

    async def send(self, frame: dict[str, Any] | str | bytes) -> None:
        """Send a frame: a dict as JSON text, a str as text, bytes as a binary frame."""
        if isinstance(frame, dict):
            self.transcript.append(("out", frame))
            await self.ws.send(encode(frame))
        else:
            await self.ws.send(frame)

    async def recv(self, timeout: float = 10) -> dict[str, Any]:
        """The next frame of any type."""
        frame = await asyncio.wait_for(self._queue.get(), timeout)
        if frame is None:
            await self._queue.put(None)
            raise ClosedError(f"socket closed with {self.close_code}")
        return frame

    async def hello(self, token: str | None = None) -> dict[str, Any]:
        """Say hello (with a token to sit, without to watch); the first state frame.

        The room's kept chat comes right after it, as one `chat_history` frame, then the
        room's shared review as a `review` frame (the protocol's promises, checked here
        for every socket a client opens); both are read too, `history` keeping the lines.
        """
        await self.send(hello(token))
        state = await self.next_state()
        following = await self.recv()
        assert following["type"] == "chat_history", f"no chat history after the state: {following}"
        self.history = following["lines"]
        review = await self.recv()
        assert review["type"] == "review", f"no review after the chat history: {review}"
        return state

    async def next_state(self, timeout: float = 10) -> dict[str, Any]:
        """The next state frame (chat frames are skipped; an error fails the caller)."""
        while True:
            frame = await self.recv(timeout)
            if frame["type"] == "state":
                return frame
            if frame["type"] == "error":
                raise AssertionError(f"unexpected error frame {frame}")

    async def wait_state(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 30
    ) -> dict[str, Any]:
        """Skip state frames until `predicate(view)` holds (the last one counts too)."""
        if self.state is not None and predicate(self.state["view"]) and self._queue.empty():
            return self.state
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            frame = await self.next_state(max(left, 0.01))
            if predicate(frame["view"]):
                return frame

    async def next_error(self, timeout: float = 10) -> dict[str, Any]:
        """The next error frame (state and chat frames before it are skipped)."""
        while True:
            frame = await self.recv(timeout)
            if frame["type"] == "error":
                return frame

    async def closed(self, timeout: float = 15) -> int | None:
        """Wait for the server to close the socket; its close code."""
        await asyncio.wait_for(asyncio.shield(self._reader), timeout)
        return self.close_code

    async def close(self) -> None:
        """Close from this side."""
        with contextlib.suppress(Exception):
            await self.ws.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._reader, 5)
