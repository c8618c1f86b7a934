"""Text frames written straight to uvicorn's WebSocket transport.

Why: at a thousand tables the server writes about six thousand views a second, and the
ASGI way of sending one passes it through five layers (Starlette's `WebSocket.send_text`
and `send`, the guessing guard's counting `send`, uvicorn's `send`, the `websockets`
library's `send_text`, `send_frame` and `Frame.serialize`), decodes the view's UTF-8
bytes into a `str` for the ASGI message and encodes it back: several times the CPU of
writing the same bytes here (bench/results/2026-12-02-load-second-series.md). A
server-to-client text frame is two to ten bytes of header before the payload (RFC 6455
§5.2: FIN and the opcode, the length, no mask), and a view is orjson's output, valid
UTF-8 by construction.

Only data frames take this way, and only while the connection is plainly open: the
handshake, pings and pongs, the close and its handshake stay with uvicorn and the
`websockets` state machine (which keeps no record of data frames sent, so it is not
out of step). Whenever the transport pushes back (`pause_writing`: the client does not
read), the connection is closing, or the server is not uvicorn's sans-I/O protocol at
all, `write` says no and the caller sends through ASGI as before, which waits where
ASGI waits. uvicorn's `send` is a bound method of its protocol object, so
`FrameWriter.of` finds the protocol from the `send` it was given, before any
middleware wraps it.

uvicorn's protocol class is not its documented interface. What this module uses of it
(the class, its `send` bound to it, and its public `handshake_complete`, `close_sent`,
`disconnected`, `writable` and `transport`) is pinned by tests/test_uvicorn_contract.py,
and uvicorn is bounded above in pyproject.toml until the next release has passed that
test (docs/dependencies.md). Nothing private of uvicorn or websockets is touched.
"""

from __future__ import annotations

import struct
from typing import Any

from starlette.types import Send

try:
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
except ImportError:  # pragma: no cover - another ASGI server: every frame goes through ASGI
    WebSocketsSansIOProtocol = None  # type: ignore[assignment,misc]

_TEXT = 0x81
"""FIN set, opcode 1 (text): one whole message per frame, as every view is."""


def text_frame_header(length: int) -> bytes:
    """The header of an unmasked, unfragmented text frame of `length` payload bytes."""
    if length < 126:
        return bytes((_TEXT, length))
    if length < 1 << 16:
        return struct.pack("!BBH", _TEXT, 126, length)
    return struct.pack("!BBQ", _TEXT, 127, length)


class FrameWriter:
    """Writes whole text frames to one uvicorn WebSocket connection's transport."""

    __slots__ = ("_protocol",)

    def __init__(self, protocol: Any) -> None:
        self._protocol = protocol

    @classmethod
    def of(cls, send: Send) -> FrameWriter | None:
        """A writer for the connection behind uvicorn's own `send`; None for any other
        server (or a `send` some middleware wrapped), whose frames go through ASGI."""
        if WebSocketsSansIOProtocol is None:  # pragma: no cover
            return None
        protocol = getattr(send, "__self__", None)
        if not isinstance(protocol, WebSocketsSansIOProtocol):
            return None
        return cls(protocol)

    def write(self, data: bytes) -> bool:
        """Write `data` (UTF-8 JSON) as one text frame now; False, writing nothing,
        when the connection is not plainly open or the transport pushes back."""
        protocol = self._protocol
        if (
            not protocol.handshake_complete
            or protocol.close_sent
            or protocol.disconnected
            or not protocol.writable.is_set()
        ):
            return False
        transport = protocol.transport
        if transport.is_closing():
            return False
        transport.write(text_frame_header(len(data)) + data)
        return True
