"""SocketPeer's send path on its own: frames go out at once when nothing is queued,
keep their order when the server's send has to wait, and a gone socket stops sending.

The WebSocket here is a stand-in with only `send_text` and `close`, so that a send
that suspends (which uvicorn's own implementations never do) can be made to happen;
the real server path is covered by the socket tests in test_ws.py.
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


def peer_for(ws: StandIn) -> SocketPeer:
    stand_in: Any = ws
    return SocketPeer(stand_in)


async def test_a_frame_is_written_before_send_returns() -> None:
    ws = StandIn()
    peer = peer_for(ws)
    peer.send(b"one")
    peer.send(b"two")
    assert ws.sent == ["one", "two"]  # no task switch needed
    peer.close(1000)
    await asyncio.wait_for(peer.drained(), 1)
    assert ws.closed == (1000, "")


async def test_frames_keep_their_order_when_a_send_has_to_wait() -> None:
    ws = StandIn()
    peer = peer_for(ws)
    gate = ws.gate = asyncio.Event()
    peer.send(b"first")  # suspends inside the server's send
    peer.send(b"second")
    peer.send(b"third")
    await asyncio.sleep(0.01)
    assert ws.sent == []
    gate.set()
    await asyncio.sleep(0.01)
    assert ws.sent == ["first", "second", "third"]
    ws.gate = None
    peer.send(b"fourth")  # the queue is empty again: straight out
    assert ws.sent[-1] == "fourth"
    peer.close(1001, "bye")
    await asyncio.wait_for(peer.drained(), 1)
    assert ws.closed == (1001, "bye")


async def test_a_gone_socket_stops_taking_frames_and_its_writer_ends_at_once() -> None:
    ws = StandIn()
    peer = peer_for(ws)
    ws.gone = True
    peer.send(b"lost")
    assert peer.closing
    peer.send(b"ignored")
    assert ws.sent == []
    await asyncio.wait_for(peer.drained(), 0.5)  # not the connection's 5-second grace
    assert ws.closed is None  # nothing to close: the peer is gone
    assert peer.writer is None  # nothing ever had to wait: no writer task was started


async def test_a_socket_whose_sends_never_wait_has_no_writer_until_it_closes() -> None:
    ws = StandIn()
    peer = peer_for(ws)
    for i in range(50):
        peer.send(b"%d" % i)
    assert len(ws.sent) == 50
    assert peer.writer is None
    peer.close(1000)
    assert peer.writer is not None  # the close goes out through the writer
    await asyncio.wait_for(peer.drained(), 1)
    assert ws.closed == (1000, "")


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
    assert peer.closing
    await asyncio.wait_for(peer.drained(), 1)
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
    peer.send(b"first")  # suspends: the writer takes over
    peer.send(b"second")  # fails in the writer
    gate.set()
    await asyncio.wait_for(peer.drained(), 1)
    assert ws.sent == ["first"]
    assert peer.closing
    assert ws.closed == (1011, "")
    peer.send(b"third")  # ignored, not queued for ever
    assert ws.sent == ["first"]
