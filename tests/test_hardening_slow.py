"""Slow clients: request headers (a WebSocket's handshake too) have a deadline.

Five hundred connections each send a request line and then one header line a second,
never finishing (a "slowloris"): every one is closed by the server once
`SCHMIER_HEADER_TIMEOUT` has passed since it connected, while a normal request and a
real player's socket are served all along. A WebSocket handshake sent slowly is cut off
the same way; a quick one, and a keep-alive connection's later requests, are not. The
deadline is uvicorn's own HTTP protocol wrapped (`schmier/api/slowclients.py`), so it
holds for `python -m schmier` exactly as for the in-process servers here.
"""

from __future__ import annotations

import asyncio
import contextlib

from tests.support import loopback
from tests.support.servers import Client, RunningServer, ServerFactory

SLOW_CLIENTS = 500


async def trickle(server: RunningServer, request: bytes, stop: asyncio.Event) -> bool:
    """Send `request`'s first line, then one header line a second until the server
    closes the connection (True) or `stop` is set (False: still open)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    lines = request.split(b"\r\n")
    try:
        writer.write(lines[0] + b"\r\n")
        for line in lines[1:]:
            await writer.drain()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1):
                    await stop.wait()
            if stop.is_set():
                return False
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.01):
                    if await reader.read(1024) == b"":
                        return True
            writer.write(line + b"\r\n")
        return await reader.read(1024) == b""
    except (ConnectionError, OSError):
        return True
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


def endless_headers(path: str = "/livez", extra: bytes = b"") -> bytes:
    """A request whose header lines go on far longer than any deadline here."""
    head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode() + extra
    return head + b"".join(b"X-Slow-%d: 1\r\n" % n for n in range(120))


async def test_slow_headers_are_cut_off_and_everyone_else_is_served(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(header_timeout=3)
    code = await server.create_room("schmier6")
    _, token = await server.join(code, "Ann", 0)
    stop = asyncio.Event()
    slow = [
        asyncio.create_task(trickle(server, endless_headers(), stop)) for _ in range(SLOW_CLIENTS)
    ]
    handshake = endless_headers(
        f"/ws/{code}",
        b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
    )
    slow_socket = asyncio.create_task(trickle(server, handshake, stop))
    # While they trickle: plain requests on one kept-alive connection, and a player.
    player = await Client.seated(server, code, token)
    async with loopback.async_client(base_url=server.base_url) as http:
        for _ in range(3):
            assert (await http.get(f"/api/rooms/{code}")).status_code == 200
            await asyncio.sleep(1)
    await player.send({"type": "add_bot", "seat": 1})
    await player.wait_state(lambda v: v["seats"][1]["kind"] == "bot")
    # Every slow client was closed by the server (a generous bound: no timing asserted).
    closed, still_open = await asyncio.wait([*slow, slow_socket], timeout=60)
    stop.set()
    await asyncio.gather(*still_open, return_exceptions=True)
    assert not still_open
    assert all(task.result() for task in closed)
    await player.close()
