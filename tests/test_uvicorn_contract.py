"""The parts of uvicorn that Schmier relies on below the ASGI interface, pinned.

`schmier/api/wireframes.py` writes views straight to the transport of uvicorn's
WebSocket protocol (`WebSocketsSansIOProtocol`, found as the object behind the `send`
uvicorn gives the app) and reads five of its public attributes to know when it may;
`schmier/api/slowclients.py` wraps uvicorn's HTTP protocol (`AutoHTTPProtocol`) through
the `http` option. Neither is part of uvicorn's documented interface, so uvicorn is
bounded above in pyproject.toml, and each test here fails the day a release changes
one of the things used: the drift check (`SCHMIER_CI_LATEST=1 bash .ci/run`, with the
bound moved to admit the new release) runs them before the bound moves
(docs/dependencies.md). A real server and a real client throughout.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import socket
import tomllib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from packaging.requirements import Requirement
from packaging.version import Version
from uvicorn.protocols.http.auto import AutoHTTPProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.asyncio.client import connect

from schmier.api import wireframes
from schmier.api.connection import Connection
from schmier.api.slowclients import HeaderDeadline, with_deadline
from schmier.api.wireframes import FrameWriter

ROOT = Path(__file__).resolve().parents[1]


def test_uvicorn_is_bounded_above_and_the_bound_admits_the_installed_release() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (requirement,) = [
        Requirement(line)
        for line in project["project"]["dependencies"]
        if Requirement(line).name == "uvicorn"
    ]
    operators = {spec.operator for spec in requirement.specifier}
    assert "<" in operators and ">=" in operators, requirement
    assert Version(version("uvicorn")) in requirement.specifier


def test_the_options_schmier_gives_uvicorn_are_parameters_of_its_config() -> None:
    """Every key of the options `uvicorn_config` builds (schmier/__main__.py)."""
    source = (ROOT / "schmier" / "__main__.py").read_text(encoding="utf-8")
    (options,) = [
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Name)
        and node.target.id == "options"
        and isinstance(node.value, ast.Dict)
    ]
    keys = {key.value for key in options.keys if isinstance(key, ast.Constant)}
    assert {"http", "ws_max_size", "ws_per_message_deflate"} <= keys
    parameters = set(inspect.signature(uvicorn.Config).parameters)
    assert keys <= parameters, keys - parameters


def test_by_default_uvicorn_speaks_websocket_through_the_sansio_protocol() -> None:
    """What `FrameWriter.of` recognises is what uvicorn runs when no `ws` is given, and
    what schmier/__main__.py gives (`Connection`) is that protocol; a protocol class is
    taken as `http` and as `ws`."""
    wrapper = with_deadline(5)
    config = uvicorn.Config(
        _App(), http=wrapper, ws=Connection, ws_per_message_deflate=False, lifespan="off"
    )
    config.load()
    assert config.ws_protocol_class is Connection
    assert issubclass(Connection, WebSocketsSansIOProtocol)
    default = uvicorn.Config(_App(), lifespan="off")
    default.load()
    assert default.ws_protocol_class is WebSocketsSansIOProtocol
    assert config.http_protocol_class is wrapper
    assert wireframes.WebSocketsSansIOProtocol is WebSocketsSansIOProtocol
    assert HeaderDeadline.inner_class is AutoHTTPProtocol
    assert issubclass(AutoHTTPProtocol, asyncio.Protocol)


def test_what_connection_takes_over_of_uvicorns_protocol() -> None:
    """`Connection` (schmier/api/connection.py) replaces `start_keepalive`, which uvicorn
    calls once the accepting response is sent, and uses the attributes and the ping
    method uvicorn's own `start_keepalive` and `schedule_ping` use; it drops the
    handshake's `request` and `response`, which uvicorn reads only before then."""
    source = inspect.getsource(WebSocketsSansIOProtocol)
    assert source.count("self.start_keepalive()") == 1
    send = inspect.getsource(WebSocketsSansIOProtocol.send)
    assert send.rindex("self.response") < send.index("self.start_keepalive()")
    assert send.index("self.conn.send_response(self.response)") < send.index(
        "self.start_keepalive()"
    )
    connect_ = inspect.getsource(WebSocketsSansIOProtocol.handle_connect)
    outside = source.replace(send, "").replace(connect_, "")
    assert "self.request" not in outside and "self.response" not in outside
    for name in ("self.ping_interval", "self.ping_timer", "self.loop.call_later"):
        assert name in inspect.getsource(WebSocketsSansIOProtocol.schedule_ping), name
    assert "self.send_keepalive_ping" in inspect.getsource(WebSocketsSansIOProtocol.schedule_ping)
    assert list(inspect.signature(WebSocketsSansIOProtocol.start_keepalive).parameters) == ["self"]
    assert list(inspect.signature(WebSocketsSansIOProtocol.send_keepalive_ping).parameters) == [
        "self"
    ]


@dataclass
class _App:
    """A bare ASGI app that notes what it sees of uvicorn's protocol at each step."""

    seen: dict[str, Any] = field(default_factory=dict)
    done: asyncio.Event = field(default_factory=asyncio.Event)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})
            return
        try:
            if scope["path"] == "/open":
                await self.open(receive, send)
            else:
                await self.gone(receive, send)
        finally:
            self.done.set()

    async def open(self, receive: Any, send: Any) -> None:
        seen = self.seen
        writer = FrameWriter.of(send)
        assert writer is not None
        protocol = send.__self__
        seen["send is a bound method of"] = type(protocol)
        seen["handshake_complete before accept"] = protocol.handshake_complete
        seen["written before accept"] = writer.write(b"{}")
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        seen["handshake_complete"] = protocol.handshake_complete
        seen["close_sent"] = protocol.close_sent
        seen["disconnected"] = protocol.disconnected
        seen["writable"] = protocol.writable.is_set()
        # The upgrade hands the connection's transport to this protocol (the header
        # deadline's wrapper sees that it is no longer the transport's protocol).
        seen["transport handed over"] = protocol.transport.get_protocol() is protocol
        seen["written"] = writer.write(b'{"direct":1}')
        # uvicorn's own send after a direct frame: the websockets state machine is not
        # out of step.
        await send({"type": "websocket.send", "text": "through asgi"})
        protocol.pause_writing()  # what the transport calls when the client is behind
        seen["writable when paused"] = protocol.writable.is_set()
        seen["written when paused"] = writer.write(b"{}")
        protocol.resume_writing()
        seen["written when resumed"] = writer.write(b'{"resumed":1}')
        assert (await receive())["text"] == "bye"
        await send({"type": "websocket.close", "code": 1000})
        seen["close_sent after close"] = protocol.close_sent
        seen["written after close"] = writer.write(b"{}")

    async def gone(self, receive: Any, send: Any) -> None:
        writer = FrameWriter.of(send)
        assert writer is not None
        protocol = send.__self__
        await receive()
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass
        while not protocol.disconnected:  # connection_lost runs right after the close
            await asyncio.sleep(0.01)
        self.seen["disconnected when gone"] = protocol.disconnected
        self.seen["written when gone"] = writer.write(b"{}")


class _Counted(HeaderDeadline):
    made = 0

    def __init__(self, **options: Any) -> None:
        _Counted.made += 1
        super().__init__(**options)


@pytest.fixture
async def served() -> AsyncIterator[tuple[_App, int]]:
    """uvicorn on this test's loop, with the header deadline's wrapper as `http` and
    Schmier's `Connection` as `ws`."""
    app = _App()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    config = uvicorn.Config(
        app,
        http=type("Counted", (_Counted,), {"seconds": 30.0}),
        ws=Connection,
        ws_per_message_deflate=False,
        lifespan="off",
        log_level="warning",
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        assert not task.done(), "the server did not start"
        await asyncio.sleep(0.01)
    try:
        yield app, port
    finally:
        server.should_exit = True
        await task
        sock.close()


async def test_the_flags_and_transport_the_frame_writer_reads(served: tuple[_App, int]) -> None:
    app, port = served
    async with connect(f"ws://127.0.0.1:{port}/open", compression=None) as client:
        received = [await client.recv() for _ in range(3)]
        await client.send("bye")
        await app.done.wait()
    assert received == ['{"direct":1}', "through asgi", '{"resumed":1}']
    assert client.close_code == 1000
    assert app.seen == {
        "send is a bound method of": Connection,
        "handshake_complete before accept": False,
        "written before accept": False,
        "handshake_complete": True,
        "close_sent": False,
        "disconnected": False,
        "writable": True,
        "transport handed over": True,
        "written": True,
        "writable when paused": False,
        "written when paused": False,
        "written when resumed": True,
        "close_sent after close": True,
        "written after close": False,
    }


async def test_a_connection_the_client_closed_is_disconnected(served: tuple[_App, int]) -> None:
    app, port = served
    async with connect(f"ws://127.0.0.1:{port}/gone", compression=None):
        pass
    await app.done.wait()
    assert app.seen == {"disconnected when gone": True, "written when gone": False}


async def test_uvicorn_makes_the_http_protocol_it_is_given_with_keywords_only(
    served: tuple[_App, int],
) -> None:
    """The wrapper takes uvicorn's options as keywords and hands them on unread; a plain
    request and a WebSocket's handshake both go through it."""
    _, port = served
    before = _Counted.made
    async with httpx.AsyncClient() as client:
        answer = await client.get(f"http://127.0.0.1:{port}/")
    assert (answer.status_code, answer.text) == (200, "ok")
    async with connect(f"ws://127.0.0.1:{port}/gone", compression=None):
        pass
    assert _Counted.made == before + 2
    parameters = inspect.signature(AutoHTTPProtocol).parameters
    assert {"config", "server_state", "app_state"} <= set(parameters)
