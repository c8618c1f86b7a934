"""Every error code and close code of the WebSocket protocol, over real sockets.

Each refusal is followed by the proof that the room did not change: a fresh
connection (the same token, or a spectator) sees the same `seq` and the same view.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import websockets

from tests.support.servers import Client, RunningServer, ServerFactory


async def look(server: RunningServer, code: str, token: str | None = None) -> dict[str, Any]:
    """The room as another connection sees it right now (seq and view).

    With a token, the seat must already be connected elsewhere, so that this extra
    connection is not itself a change of the room.
    """
    client = await Client.seated(server, code, token)
    frame = client.state
    await client.close()
    assert frame is not None
    return frame


async def full_table(server: RunningServer) -> tuple[str, dict[int, str], dict[int, Client]]:
    """A started wisconsin4 game with four test clients (nobody acts on their own)."""
    code = await server.create_room("wisconsin4", {"target": 5})
    tokens = {}
    clients = {}
    for seat in range(4):
        _, tokens[seat] = await server.join(code, f"P{seat}", seat)
        clients[seat] = await Client.seated(server, code, tokens[seat])
    await clients[0].send({"type": "start"})
    for c in clients.values():
        await c.wait_state(lambda v: v["phase"] == "bidding")
    return code, tokens, clients


async def refused(
    server: RunningServer, code: str, client: Client, token: str | None, frame: Any, error: str
) -> None:
    """Send `frame`; it must be answered by `error` and change nothing."""
    before = await look(server, code, token)
    await client.send(frame)
    answer = await client.next_error()
    assert answer["code"] == error, answer
    assert isinstance(answer["message"], str) and answer["message"]
    after = await look(server, code, token)
    assert after["seq"] == before["seq"]
    assert after["view"] == before["view"]


async def test_game_errors_change_nothing(server: RunningServer) -> None:
    code, tokens, clients = await full_table(server)
    view = clients[0].state["view"]  # type: ignore[index]
    (turn,) = view["turn"]
    idle = (turn + 1) % 4
    waiting, other = clients[turn], clients[idle]

    await refused(server, code, other, tokens[idle], {"type": "pass"}, "not_your_turn")
    await refused(server, code, waiting, tokens[turn], {"type": "bid", "amount": 1}, "illegal")
    await refused(server, code, waiting, tokens[turn], {"type": "start"}, "illegal")
    await refused(server, code, waiting, tokens[turn], {"type": "add_bot", "seat": 1}, "illegal")
    for bad in (
        "not json",
        "[1, 2]",
        '{"type": "fly"}',
        '{"type": "bid"}',
        '{"type": "bid", "amount": "3"}',
        '{"type": "pass", "extra": 1}',
        '{"type": "hello"}',
        '{"type": "play", "card": "ZZ"}',
    ):
        await refused(server, code, waiting, tokens[turn], bad, "bad_message")

    spectator = await Client.seated(server, code, None)
    await refused(server, code, spectator, None, {"type": "pass"}, "forbidden")
    await refused(server, code, spectator, None, {"type": "chat", "text": "hi"}, "forbidden")
    await refused(server, code, spectator, None, {"type": "leave"}, "forbidden")

    # The refused player can still act: the refusals left the turn where it was.
    legal = clients[turn].state["view"]["legal"]  # type: ignore[index]
    assert {"type": "pass"} in legal
    await waiting.send({"type": "pass"})
    moved = await other.wait_state(lambda v: v["turn"] != [turn])
    assert moved["view"]["bids"][-1] == {"seat": turn, "amount": None}
    for c in [*clients.values(), spectator]:
        await c.close()


async def test_lobby_errors_change_nothing(server: RunningServer) -> None:
    code = await server.create_room("schmier6")
    _, token = await server.join(code, "Ann")
    client = await Client.seated(server, code, token)
    await refused(server, code, client, token, {"type": "start"}, "illegal")
    await refused(server, code, client, token, {"type": "remove_bot", "seat": 2}, "illegal")
    await refused(server, code, client, token, {"type": "add_bot", "seat": 0}, "illegal")
    await refused(server, code, client, token, {"type": "add_bot", "seat": 6}, "illegal")
    await refused(server, code, client, token, {"type": "pass"}, "illegal")
    await refused(server, code, client, token, {"type": "chat", "text": ""}, "bad_message")
    await refused(server, code, client, token, {"type": "chat", "text": "x" * 301}, "bad_message")
    await client.close()


async def test_frame_rate_limit_then_1008(server_factory: ServerFactory) -> None:
    server = server_factory(frame_burst=5, frame_rate=0.2)
    code = await server.create_room("schmier6")
    _, token = await server.join(code, "Ann")
    seated = await Client.seated(server, code, token)
    watcher = await Client.seated(server, code, None)
    before = await look(server, code, token)
    for _ in range(40):
        try:
            await watcher.send({"type": "add_bot", "seat": 1})
        except websockets.ConnectionClosed:
            break
    codes = []
    while True:
        try:
            codes.append((await watcher.recv())["code"])
        except AssertionError:
            break
    assert "rate_limited" in codes
    assert await watcher.closed() == 1008
    after = await look(server, code, token)
    assert (after["seq"], after["view"]) == (before["seq"], before["view"])
    await seated.close()


async def test_chat_rate_limit(server_factory: ServerFactory) -> None:
    server = server_factory(chat_burst=3, chat_window=600)
    code = await server.create_room("schmier6")
    _, token = await server.join(code, "Ann")
    client = await Client.seated(server, code, token)
    listener = await Client.seated(server, code, None)
    await refused(
        server, code, client, token, {"type": "chat", "text": "\u200b\x07 "}, "bad_message"
    )
    await client.send({"type": "chat", "text": "\u202egood\x1b[31m game\n"})
    line = await listener.recv()
    assert line == {"type": "chat", "seat": 0, "name": "Ann", "text": "good[31m game"}
    for n in range(2):
        await client.send({"type": "chat", "text": f"hello {n}"})
        line = await listener.recv()
        assert line == {"type": "chat", "seat": 0, "name": "Ann", "text": f"hello {n}"}
    await refused(server, code, client, token, {"type": "chat", "text": "again"}, "rate_limited")
    await client.close()
    await listener.close()


async def test_unknown_room_closes_4404(server: RunningServer) -> None:
    for code in ("aaaaaaaaaa", "nope", "AAAAAAAAAA"):
        client = await Client.connect(server.ws_url(code))
        assert await client.closed() == 4404


async def test_bad_token_closes_4401(server: RunningServer) -> None:
    code = await server.create_room("schmier5")
    _, token = await server.join(code, "Ann")
    seated = await Client.seated(server, code, token)
    before = await look(server, code, token)
    off = token[:-2] + ("yy" if token.endswith("xx") else "xx")  # never the token itself
    for wrong in (off, "", "a" * 32):
        client = await Client.connect(server.ws_url(code))
        await client.send({"type": "hello", "token": wrong})
        assert await client.closed() == 4401
    after = await look(server, code, token)
    assert (after["seq"], after["view"]) == (before["seq"], before["view"])
    await seated.close()


async def test_hello_timeout_closes_4408(server_factory: ServerFactory) -> None:
    server = server_factory(hello_timeout=0.5)
    code = await server.create_room("schmier5")
    before = await look(server, code)
    client = await Client.connect(server.ws_url(code))
    await client.send({"type": "pass"})
    answer = await client.recv()
    assert answer["type"] == "error" and answer["code"] == "bad_message"
    assert await client.closed() == 4408
    after = await look(server, code)
    assert (after["seq"], after["view"]) == (before["seq"], before["view"])


@pytest.mark.parametrize(
    ("payload", "close_code"),
    [
        ("x" * 9000, 1009),
        (b"\x00\x01binary", 1003),
        ("invalid-utf8", 1007),
    ],
)
async def test_bad_frames_close(server: RunningServer, payload: Any, close_code: int) -> None:
    code = await server.create_room("wisconsin4")
    _, token = await server.join(code, "Ann")
    seated = await Client.seated(server, code, token)
    before = await look(server, code, token)
    watcher = await Client.seated(server, code, None)
    if payload == "invalid-utf8":
        await watcher.ws.send(b'{"type": "chat", "text": "\xff\xfe"}', text=True)
    else:
        await watcher.send(payload)
    assert await watcher.closed() == close_code
    after = await look(server, code, token)
    assert (after["seq"], after["view"]) == (before["seq"], before["view"])
    await seated.close()


async def test_origin_check(server_factory: ServerFactory) -> None:
    server = server_factory(allowed_origins="https://cards.example, https://other.example/")
    code = await server.create_room("schmier6")
    before = await look(server, code)
    for evil in ("https://evil.example", "null", f"http://127.0.0.1:{server.port}.evil.example"):
        with pytest.raises(websockets.InvalidStatus) as refused_handshake:
            await Client.connect(server.ws_url(code), origin=evil)
        assert refused_handshake.value.response.status_code == 403
    after = await look(server, code)
    assert (after["seq"], after["view"]) == (before["seq"], before["view"])
    for origin in (
        f"http://127.0.0.1:{server.port}",
        "https://cards.example",
        "https://other.example",
    ):
        client = await Client.connect(server.ws_url(code), origin=origin)
        await client.hello()
        await client.close()


async def test_shutdown_closes_1012(server_factory: ServerFactory) -> None:
    server = server_factory()
    code = await server.create_room("schmier6")
    _, token = await server.join(code, "Ann")
    client = await Client.seated(server, code, token)
    await asyncio.to_thread(server.stop)
    assert await client.closed() == 1012
