"""Each socket's keepalive pings in a place of its own in the ping interval.

Why: the server pings every socket every `SCHMIER_WS_PING_INTERVAL` seconds so that a
connection whose network died is noticed. uvicorn sends a socket's first ping one whole
interval after the handshake and each next one an interval after the last, so every
socket keeps the place in the interval it connected at. After a restart every player's
client reconnects within the same second or two, and from then on the thousands of
pings (a write each, a pong each to read) of all those sockets would go out in that
same second of every interval, for as long as the sockets live.

So the first ping comes at a random point of the first interval instead of at its end:
the socket's place in the interval is drawn, not inherited from the moment it
connected, and its later pings keep it (uvicorn schedules each next ping an interval
after the last one). A dead connection is still noticed within one interval and the
ping timeout after it connected, and within those after its last pong (the promise of
`SCHMIER_WS_PING_INTERVAL` and `SCHMIER_WS_PING_TIMEOUT`, docs/configuration.md).

What this uses of uvicorn's protocol (`start_keepalive`, `ping_interval`, `ping_timer`,
`loop`, `send_keepalive_ping`) is pinned by tests/test_uvicorn_contract.py.
"""

from __future__ import annotations

import random

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


class SpreadPings(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, its first ping at a random point of the interval."""

    def start_keepalive(self) -> None:
        interval = self.ping_interval
        if interval is not None and interval > 0:
            delay = interval * (1.0 - random.random())  # in (0, interval]
            self.ping_timer = self.loop.call_later(delay, self.send_keepalive_ping)
