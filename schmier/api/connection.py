"""uvicorn's WebSocket protocol as the server runs it: pings spread, the handshake let go.

**Pings spread.** The server pings every socket every `SCHMIER_WS_PING_INTERVAL` seconds
so that a connection whose network died is noticed. uvicorn sends a socket's first ping
one whole interval after the handshake and each next one an interval after the last, so
every socket keeps the place in the interval it connected at. After a restart every
player's client reconnects within the same second or two, and from then on the
thousands of pings (a write each, a pong each to read) of all those sockets would go out
in that same second of every interval, for as long as the sockets live. So the first
ping comes at a random point of the first interval instead of at its end: the socket's
place in the interval is drawn, not inherited from the moment it connected, and its
later pings keep it. A dead connection is still noticed within one interval and the
ping timeout after it connected, and within those after its last pong (the promise of
`SCHMIER_WS_PING_INTERVAL` and `SCHMIER_WS_PING_TIMEOUT`, docs/configuration.md).

**The handshake let go.** uvicorn keeps the handshake's request and response (their
headers: a list per header name, two dicts, two header objects) on the connection for
its whole life, though it reads them only until the accepting response is sent. They
were about a sixth of the objects a connected socket holds, every one of them walked by
each full garbage collection (docs/performance.md). Once the handshake is complete (when
uvicorn starts the keepalive) the connection drops them; the ASGI scope, which the app
reads, keeps its own copy of the headers.

What this uses of uvicorn's protocol (`start_keepalive`, called once the accepting
response is sent; `ping_interval`, `ping_timer`, `loop`, `send_keepalive_ping`,
`request`, `response`) is pinned by tests/test_uvicorn_contract.py.
"""

from __future__ import annotations

import contextlib
import random

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

#: The first pings' spread, drawn apart from the global `random` module: the server does
#: not move a state that an embedding program or a test may have seeded.
_SPREAD = random.Random()


class Connection(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, its first ping at a random point of the interval,
    its handshake's request and response dropped once the handshake is done."""

    def start_keepalive(self) -> None:
        # uvicorn calls this right after it sent the accepting response: the handshake
        # is over and nothing reads its request and response again.
        with contextlib.suppress(AttributeError):
            del self.request, self.response
        interval = self.ping_interval
        if interval is not None and interval > 0:
            delay = interval * (1.0 - _SPREAD.random())  # in (0, interval]
            self.ping_timer = self.loop.call_later(delay, self.send_keepalive_ping)
