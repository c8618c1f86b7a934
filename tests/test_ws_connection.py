"""Sockets connected together ping apart (schmier/api/connection.py): a real uvicorn with the
protocol schmier/__main__.py gives it, real clients, and the times the server scheduled
each socket's first ping at, never how long anything took."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import pytest
import uvicorn
from websockets.asyncio.client import connect

from schmier.__main__ import uvicorn_config
from schmier.api.connection import Connection
from schmier.config import Settings

SOCKETS = 100


class _App:
    """Accepts every socket and notes its protocol and when it was accepted."""

    def __init__(self) -> None:
        self.accepted: list[tuple[Connection, float]] = []
        self.handshake_before = self.handshake_after = (False, False)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        assert scope["type"] == "websocket"
        await receive()
        protocol = send.__self__
        self.handshake_before = (hasattr(protocol, "request"), hasattr(protocol, "response"))
        await send({"type": "websocket.accept"})
        self.accepted.append((protocol, asyncio.get_running_loop().time()))
        self.handshake_after = (hasattr(protocol, "request"), hasattr(protocol, "response"))
        while (await receive())["type"] != "websocket.disconnect":
            pass


@asynccontextmanager
async def _served(app: _App, interval: float) -> AsyncIterator[int]:
    """uvicorn on this loop, with the ping options and protocol Schmier runs it with."""
    settings = Settings(ws_ping_interval=interval, ws_ping_timeout=10.0)
    real = uvicorn_config(settings)
    config = uvicorn.Config(
        app,
        ws=real.ws,
        ws_ping_interval=real.ws_ping_interval,
        ws_ping_timeout=real.ws_ping_timeout,
        lifespan="off",
        log_level="warning",
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        assert not task.done(), "the server did not start"
        await asyncio.sleep(0.01)
    try:
        yield int(sock.getsockname()[1])
    finally:
        server.should_exit = True
        await task
        sock.close()


async def _until(check: Callable[[], bool], seconds: float = 20.0) -> None:
    async with asyncio.timeout(seconds):
        while not check():
            await asyncio.sleep(0.02)


async def test_sockets_connected_together_ping_spread_over_the_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = _App()
    # Few pings go out while the test looks: a socket whose drawn delay is shorter than
    # the time until the test reads its timer has sent its first ping already (and, its
    # pong back, scheduled the next a whole interval later: once 22 ms after the start).
    interval = 30.0
    # Each first ping's delay from the moment its keepalive started, read on the loop's
    # clock there: the app's own "accepted" time can come before or after that moment
    # (78 ms after it once, on a loaded machine), and is no measure of the spread.
    # The clock is read before and after: on a loaded machine the two reads, the test's
    # and the keepalive's own, were 37 ms apart once.
    started: dict[int, tuple[float, float]] = {}
    start_keepalive = Connection.start_keepalive

    def noting(protocol: Connection) -> None:
        before = protocol.loop.time()
        start_keepalive(protocol)
        started[id(protocol)] = (before, protocol.loop.time())

    monkeypatch.setattr(Connection, "start_keepalive", noting)
    async with _served(app, interval) as port, AsyncExitStack() as clients:
        url = f"ws://127.0.0.1:{port}/"
        await asyncio.gather(
            *(clients.enter_async_context(connect(url, ping_interval=None)) for _ in range(SOCKETS))
        )
        await _until(lambda: len(app.accepted) == SOCKETS)
        delays = []
        for protocol, _ in app.accepted:
            assert isinstance(protocol, Connection)
            before, after = started[id(protocol)]
            if protocol.ping_sent_at:  # the first ping has gone out: when it did
                when = protocol.ping_sent_at
            else:
                assert protocol.ping_timer is not None
                when = protocol.ping_timer.when()
            # A delay in (0, interval] from a moment between the two reads.
            assert before < when <= after + interval, (before, after, when)
            delays.append(when - before)
        tenths = {min(9, int(d / (interval / 10))) for d in delays}
        assert len(tenths) >= 8, sorted(tenths)


async def test_a_socket_is_still_pinged_and_its_pongs_keep_it_open() -> None:
    app = _App()
    async with _served(app, 0.2) as port, connect(f"ws://127.0.0.1:{port}/") as client:
        await _until(lambda: len(app.accepted) == 1)
        protocol, _ = app.accepted[0]
        await _until(lambda: protocol.last_ping_rtt > 0)  # pinged, and the pong came
        first = protocol.ping_sent_at
        await _until(lambda: protocol.ping_sent_at > first)  # and pinged again
        assert client.close_code is None and not protocol.close_sent


async def test_a_connection_lets_its_handshake_go_once_accepted() -> None:
    """The handshake's request and response are there until the socket is accepted,
    gone after; the socket works on (the scope keeps the headers the app reads)."""
    app = _App()
    async with _served(app, 30.0) as port, connect(f"ws://127.0.0.1:{port}/") as client:
        await _until(lambda: len(app.accepted) == 1)
        assert app.handshake_before == (True, True)
        assert app.handshake_after == (False, False)
        protocol, _ = app.accepted[0]
        await protocol.send({"type": "websocket.send", "text": "still here"})
        assert await client.recv() == "still here"
