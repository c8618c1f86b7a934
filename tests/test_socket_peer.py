"""SocketPeer's send path on its own: a frame the direct writer takes is out before
`send` returns and needs no task; a frame it declines (or every frame, on a server
without one) goes through the writer task and ASGI, and what follows waits behind it;
order is kept when the server's send has to wait; a gone socket stops sending; a client
that never drains is closed; a failing send closes the socket, not the room.

The WebSocket here is a stand-in with only `send_text` and `close`, so that a send that
suspends (which uvicorn's own implementations never do) can be made to happen, and the
direct writer a stand-in that takes frames or declines them on demand; the real server
path is covered by test_ws.py and test_wireframes.py.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.websockets import WebSocketDisconnect

from schmier.api.ws import SocketPeer


class StandIn:
    """Records frames; while `gate` is set to an unset Event, every send waits on it."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None
        self.gate: asyncio.Event | None = None
        self.gone = False

    async def send_text(self, text: str) -> None:
        if self.gone:
            raise WebSocketDisconnect(1006)
        if self.gate is not None:
            await self.gate.wait()
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)


class Direct:
    """A direct writer that writes into the stand-in's list while `open`, else declines."""

    def __init__(self, ws: StandIn) -> None:
        self.ws = ws
        self.open = True

    def write(self, data: bytes) -> bool:
        if not self.open:
            return False
        self.ws.sent.append(data.decode())
        return True


def peer_for(ws: StandIn, direct: Direct | None = None) -> SocketPeer:
    stand_in: Any = ws
    writer: Any = direct
    return SocketPeer(stand_in, writer)


async def settle() -> None:
    """Let the writer task run (a few turns of the loop)."""
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_frame_the_direct_writer_takes_is_out_before_send_returns() -> None:
    ws = StandIn()
    peer = peer_for(ws, Direct(ws))
    for i in range(50):
        peer.send(b"%d" % i)
    assert ws.sent == [str(i) for i in range(50)]  # no task switch needed
    assert peer.writer is None  # nothing had to wait: no writer task
    peer.close(1000)
    assert peer.writer is not None  # the close goes out through the writer
    await asyncio.wait_for(peer.drained(), 1)
    assert ws.closed == (1000, "")


async def test_without_a_direct_writer_frames_go_through_asgi_in_order() -> None:
    ws = StandIn()
    peer = peer_for(ws)
    peer.send(b"one")
    peer.send(b"two")
    assert ws.sent == []  # queued for the writer task
    await settle()
    assert ws.sent == ["one", "two"]
    peer.close(1000)
    await asyncio.wait_for(peer.drained(), 1)
    assert ws.closed == (1000, "")


async def test_frames_wait_behind_one_the_direct_writer_declined() -> None:
    ws = StandIn()
    direct = Direct(ws)
    peer = peer_for(ws, direct)
    peer.send(b"first")
    direct.open = False  # the transport pushes back
    gate = ws.gate = asyncio.Event()
    peer.send(b"second")  # declined: to the writer task, which waits in the send
    direct.open = True
    peer.send(b"third")  # the writer would take it, but "second" is still going out
    await settle()
    assert ws.sent == ["first"]
    gate.set()
    await settle()
    assert ws.sent == ["first", "second", "third"]
    ws.gate = None
    peer.send(b"fourth")  # nothing queued or in flight: straight out again
    assert ws.sent[-1] == "fourth"
    peer.close(1001, "bye")
    await asyncio.wait_for(peer.drained(), 1)
    assert ws.closed == (1001, "bye")


async def test_frames_keep_their_order_when_a_send_has_to_wait() -> None:
    ws = StandIn()
    peer = peer_for(ws)
    gate = ws.gate = asyncio.Event()
    peer.send(b"first")  # the writer task will wait inside the server's send
    peer.send(b"second")
    peer.send(b"third")
    await settle()
    assert ws.sent == []
    gate.set()
    await settle()
    assert ws.sent == ["first", "second", "third"]
    peer.close(1001, "bye")
    await asyncio.wait_for(peer.drained(), 1)
    assert ws.closed == (1001, "bye")


async def test_a_gone_socket_stops_taking_frames_and_its_writer_ends_at_once() -> None:
    ws = StandIn()
    peer = peer_for(ws)
    ws.gone = True
    peer.send(b"lost")
    await asyncio.wait_for(peer.drained(), 0.5)  # not the connection's 5-second grace
    assert peer.closing
    peer.send(b"ignored")
    await settle()
    assert ws.sent == []
    assert ws.closed is None  # nothing to close: the peer is gone


async def test_a_client_that_never_drains_is_closed_when_its_queue_overflows() -> None:
    ws = StandIn()
    peer = peer_for(ws)
    ws.gate = asyncio.Event()  # never set: every send waits forever
    for i in range(600):
        peer.send(b"%d" % i)
    assert peer.closing
    assert peer.writer is not None
    peer.writer.cancel()


async def test_an_unexpected_send_failure_closes_the_socket_not_the_room() -> None:
    class Broken(StandIn):
        async def send_text(self, text: str) -> None:
            raise ValueError("a bug in some layer of the send")

    ws = Broken()
    peer = peer_for(ws)
    peer.send(b"frame")  # must not raise into the room's broadcast
    await asyncio.wait_for(peer.drained(), 1)
    assert peer.closing
    assert ws.closed == (1011, "")


async def test_an_unexpected_failure_in_the_writer_closes_the_socket() -> None:
    class FailsLater(StandIn):
        async def send_text(self, text: str) -> None:
            if text == "second":
                raise ValueError("a bug in some layer of the send")
            await super().send_text(text)

    ws = FailsLater()
    peer = peer_for(ws)
    gate = ws.gate = asyncio.Event()
    peer.send(b"first")  # the writer waits in the send
    peer.send(b"second")  # fails in the writer
    gate.set()
    await asyncio.wait_for(peer.drained(), 1)
    assert ws.sent == ["first"]
    assert peer.closing
    assert ws.closed == (1011, "")
    peer.send(b"third")  # ignored, not queued for ever
    await settle()
    assert ws.sent == ["first"]
