"""A socket whose network died is noticed by the server's WebSocket pings (issue 34, item
4): the player is shown offline to the others instead of holding the seat as connected.

The network is a real loopback TCP relay between the client and the server that the test
freezes: both connections stay open, nothing passes any more, as when a phone drives
into a tunnel. The server must close the socket after `SCHMIER_WS_PING_INTERVAL` +
`SCHMIER_WS_PING_TIMEOUT` (short here) and say so in the room's seats.
"""

from __future__ import annotations

import asyncio
import contextlib

import websockets

from tests.support.servers import RunningServer, ServerFactory, eventually


class Relay:
    """A TCP relay on a free loopback port to `port`, which can be frozen."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.frozen = asyncio.Event()
        self.server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pipe(source, sink))
            self.tasks.add(task)

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            while data := await source.read(65536):
                if self.frozen.is_set():
                    # The network is gone: nothing passes, and nobody is told.
                    await asyncio.Event().wait()
                sink.write(data)
                await sink.drain()

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        if self.server is not None:
            self.server.close()


async def test_a_socket_whose_network_died_is_closed_and_shown_offline(
    server_factory: ServerFactory,
) -> None:
    server: RunningServer = server_factory(ws_ping_interval=0.3, ws_ping_timeout=0.5)
    code = await server.create_room("wisconsin4")
    _, token = await server.join(code, "Ann", 0)
    relay = Relay(server.port)
    port = await relay.start()
    # The client answers pings by itself (as a browser does) and sends none of its own.
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws/{code}", ping_interval=None)
    try:
        await ws.send(f'{{"type": "hello", "token": "{token}"}}')
        await ws.recv()

        async def seat_connected() -> bool:
            return bool((await server.room(code))["seats"][0]["connected"])

        assert await seat_connected()
        # Pings come and go while the network is up: the seat stays connected.
        await asyncio.sleep(1.5)
        assert await seat_connected()
        relay.frozen.set()

        async def offline() -> bool:
            return not await seat_connected()

        # Within interval + timeout (0.8 s here; the deadline is for a loaded machine).
        await eventually(offline, timeout=10)
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(), 1)
        await relay.close()
