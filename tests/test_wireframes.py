"""Views written straight to uvicorn's transport (schmier/api/wireframes.py): the bytes
are text frames a WebSocket client reads back as the same text at every length class,
and the writer steps aside (the caller sends through ASGI) whenever the connection is
not plainly open or the transport pushes back. The real server path is exercised by
every socket test; here the last one checks that a real connection is written this way.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol as Parser
from websockets.protocol import Side, State

from schmier.api.wireframes import FrameWriter, text_frame_header
from tests.support.servers import Client, ServerFactory


def read_back(data: bytes) -> list[Frame]:
    """What a client's WebSocket parser makes of bytes the server wrote."""
    client = Parser(Side.CLIENT, state=State.OPEN, max_size=None)  # past the handshake
    client.receive_data(data)
    return [event for event in client.events_received() if isinstance(event, Frame)]


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 200_000])
def test_every_length_class_reads_back_as_the_same_text(length: int) -> None:
    text = ("é" * (length // 2) + "x" * (length % 2)).encode()  # two bytes an é
    assert len(text) == length
    frames = read_back(text_frame_header(len(text)) + text + text_frame_header(2) + b"{}")
    assert [(f.opcode, f.fin, bytes(f.data)) for f in frames] == [
        (Opcode.TEXT, True, text),
        (Opcode.TEXT, True, b"{}"),
    ]


class Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.closing = False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return self.closing


class Protocol:
    """The four flags of uvicorn's protocol the writer reads, and its transport."""

    def __init__(self) -> None:
        self.handshake_complete = True
        self.close_sent = False
        self.disconnected = False
        self.writable = asyncio.Event()
        self.writable.set()
        self.transport = Transport()


def test_the_writer_steps_aside_unless_the_connection_is_plainly_open() -> None:
    protocol: Any = Protocol()
    writer = FrameWriter(protocol)
    assert writer.write(b'{"a":1}')
    assert protocol.transport.written == [b'\x81\x07{"a":1}']
    for flag, value in (
        ("handshake_complete", False),
        ("close_sent", True),
        ("disconnected", True),
    ):
        setattr(protocol, flag, value)
        assert not writer.write(b"{}")
        setattr(protocol, flag, not value)
    protocol.writable.clear()  # pause_writing: the client is not reading
    assert not writer.write(b"{}")
    protocol.writable.set()
    protocol.transport.closing = True
    assert not writer.write(b"{}")
    assert len(protocol.transport.written) == 1


def test_only_uvicorns_own_send_gets_a_writer() -> None:
    async def wrapped(message: Any) -> None:
        pass

    assert FrameWriter.of(wrapped) is None


async def test_a_real_table_socket_gets_its_views_through_the_writer(
    server_factory: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[int] = []
    original = FrameWriter.write

    def counting(self: FrameWriter, data: bytes) -> bool:
        done = original(self, data)
        written.append(len(data) if done else -1)
        return done

    monkeypatch.setattr(FrameWriter, "write", counting)
    server = server_factory()
    code = await server.create_room("wisconsin4", {"target": 5})
    _, token = await server.join(code, "Ann", 0)
    client = await Client.seated(server, code, token)
    assert client.state is not None and client.state["view"]["code"] == code
    assert written and all(n > 0 for n in written)  # the state frame went the direct way
    await client.close()


async def test_frames_the_writer_declines_go_through_asgi_behind_the_others(
    server_factory: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every view declined (as when the transport pushes back): the socket's writer task
    sends those through ASGI, and what the room says after them in the same turn (the
    `chat_history` after a socket's first state) waits behind them rather than being
    written directly ahead of them; chat lines said later go the direct way, in order."""
    original = FrameWriter.write
    declined = 0

    def no_views(self: FrameWriter, data: bytes) -> bool:
        nonlocal declined
        if data.startswith(b'{"type":"state"'):
            declined += 1
            return False
        return original(self, data)

    monkeypatch.setattr(FrameWriter, "write", no_views)
    server = server_factory(chat_burst=100, chat_window=600)
    code = await server.create_room("schmier6")
    _, token = await server.join(code, "Ann")
    client = await Client.seated(server, code, token)
    listener = await Client.seated(server, code, None)
    for seated in (client, listener):
        assert [f["type"] for f in seated.frames[:2]] == ["state", "chat_history"]
    for n in range(20):
        await client.send({"type": "chat", "text": f"line {n}"})
    heard: list[str] = []
    while len(heard) < 20:
        frame = await listener.recv()
        if frame["type"] == "chat":
            heard.append(frame["text"])
    assert heard == [f"line {n}" for n in range(20)]
    assert declined >= 2
    await client.close()
    await listener.close()
