"""Chat that stays: the room keeps its last 100 lines, and every socket gets them once,
right after its first state (a reload, a late joiner, a spectator).

Across instances see `tests/test_scaleout.py::test_chat_history_reaches_every_instance`;
across a restart, `tests/test_hand_records.py::test_records_and_chat_survive_a_restart`.
Here: the single server, the cap, and the follower's rule for frames the owner sends a
socket before its first state (held) or a second history (dropped).
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from schmier.cluster import bus
from schmier.cluster.follower import Follower
from schmier.cluster.sockets import Socket
from schmier.engine import make_rules
from schmier.protocol import CHAT_KEPT
from schmier.rooms.chat import history_frame, line
from schmier.rooms.record import RoomRecord
from schmier.store import Stored
from tests.support.servers import Client, RunningServer, ServerFactory


async def test_a_reload_and_a_late_joiner_see_the_conversation(server: RunningServer) -> None:
    code = await server.create_room("schmier6")
    _, token = await server.join(code, "Ann", 0)
    ann = await Client.seated(server, code, token)
    assert ann.history == []
    for text in ("hello", "line\ntwo"):
        await ann.send({"type": "chat", "text": text})
        assert (await ann.recv())["type"] == "chat"
    expected = [
        {"seat": 0, "name": "Ann", "text": "hello"},
        {"seat": 0, "name": "Ann", "text": "line\ntwo"},
    ]
    # The same player reloading, and a spectator arriving: the history after the state.
    again = await Client.seated(server, code, token)
    watcher = await Client.seated(server, code, None)
    for client in (again, watcher):
        assert client.history == expected
        assert [f["type"] for f in client.frames[:2]] == ["state", "chat_history"]
    for client in (ann, again, watcher):
        await client.close()


async def test_only_the_last_lines_are_kept(server_factory: ServerFactory) -> None:
    server = server_factory(chat_burst=1000)
    code = await server.create_room("wisconsin4")
    _, token = await server.join(code, "Ann", 0)
    ann = await Client.seated(server, code, token)
    for i in range(CHAT_KEPT + 5):
        await ann.send({"type": "chat", "text": f"line {i}"})
    while True:
        frame = await ann.recv()
        if frame["type"] == "chat" and frame["text"] == f"line {CHAT_KEPT + 4}":
            break
    late = await Client.seated(server, code, None)
    assert late.history is not None and len(late.history) == CHAT_KEPT
    assert late.history[0]["text"] == "line 5" and late.history[-1]["text"] == "line 104"
    await ann.close()
    await late.close()


class _Peer:
    def __init__(self) -> None:
        self.seat: int | None = None
        self.sent: list[bytes] = []

    @property
    def instance(self) -> None:
        return None

    def send(self, data: bytes) -> None:
        self.sent.append(data)

    def close(self, code: int, reason: str = "") -> None:
        pass


class _Node:
    lease_ms = 60_000

    def forget(self, follower: Any) -> None:
        pass


async def test_a_follower_holds_early_frames_and_drops_a_second_history() -> None:
    record = RoomRecord.new("abcdefghij", "wisconsin4", make_rules("wisconsin4"))
    node: Any = _Node()
    follower = Follower("abcdefghij", Stored(3, record.to_bytes()), "a:1", node=node)
    await follower.close()  # no watcher needed: only the delivery rule is tested
    said = line(0, "Ann", "hi")
    first = history_frame([said])
    chat = orjson.dumps({"type": "chat", "seat": 0, "name": "Ann", "text": "more"})

    # A socket saying hello: what the owner sends it waits for its first state; a
    # history from a newer owner (a resent hello) replaces all held before it.
    greeting = Socket(_Peer(), "p1", None)
    follower.hellos["op1"] = greeting
    follower.on_message(bus.Send("abcdefghij", "p1", history_frame([]).decode()))
    follower.on_message(bus.Send("abcdefghij", "p1", chat.decode()))
    follower.on_message(bus.Send("abcdefghij", "p1", first.decode()))
    follower.on_message(bus.Send("abcdefghij", "p1", chat.decode()))
    assert greeting.early == [first, chat]
    assert greeting.peer.sent == []  # type: ignore[attr-defined]

    # A socket already served: chat goes through, a second history does not.
    served = Socket(_Peer(), "p2", None)
    follower.sockets["p2"] = served
    follower.on_message(bus.Send("abcdefghij", "p2", first.decode()))
    follower.on_message(bus.Send("abcdefghij", "p2", chat.decode()))
    assert served.peer.sent == [chat]  # type: ignore[attr-defined]
    await asyncio.sleep(0)
