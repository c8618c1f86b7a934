"""Floods: a chatty socket, a burst of room creations, hundreds of silent sockets.

`tests/test_ws.py` shows one spectator past the frame limit getting `rate_limited` and
1008. Here a *seated* player floods in the middle of a game while another room plays
on; a burst of concurrent room creations from one address is capped exactly (and a
forged `X-Forwarded-For` does not reset the cap when the server trusts no proxy); and a
few hundred sockets that never say hello are all closed with 4408 after the hello
timeout while a real player keeps being served. (Thousands of idle sockets, and what a
flood costs other rooms in time, are measured in `bench/soak.py`/`docs/security.md`.)
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import websockets

from tests.support import loopback
from tests.support.servers import Client, RunningServer, ServerFactory, eventually


async def look(server: RunningServer, code: str) -> tuple[int, dict[str, Any]]:
    watcher = await Client.seated(server, code, None)
    frame = watcher.state
    await watcher.close()
    assert frame is not None
    return frame["seq"], frame["view"]


async def table(server: RunningServer) -> tuple[str, dict[int, str], dict[int, Client]]:
    """A started wisconsin4 game of four test clients (nobody acts on their own)."""
    code = await server.create_room("wisconsin4", {"target": 5})
    tokens: dict[int, str] = {}
    clients: dict[int, Client] = {}
    for seat in range(4):
        _, tokens[seat] = await server.join(code, f"P{seat}", seat)
        clients[seat] = await Client.seated(server, code, tokens[seat])
    await clients[0].send({"type": "start"})
    for client in clients.values():
        await client.wait_state(lambda v: v["phase"] == "bidding")
    return code, tokens, clients


async def metric(server: RunningServer, name: str) -> float:
    async with loopback.async_client(base_url=server.base_url) as http:
        text = (await http.get("/metrics")).text
    found = re.search(rf"^{name} ([0-9.e+]+)$", text, re.M)
    assert found, name
    return float(found.group(1))


async def test_a_flooding_player_is_cut_off_and_the_other_room_plays_on(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(frame_burst=10, frame_rate=2.0)
    code, tokens, clients = await table(server)
    other_code, _, others = await table(server)
    (turn,) = clients[0].state["view"]["turn"]  # type: ignore[index]
    flooder_seat = (turn + 1) % 4
    # A second socket of a seat that stays connected: the flood itself changes nothing.
    flooder = await Client.seated(server, code, tokens[flooder_seat])
    before = await look(server, code)
    sent = 0
    try:
        for _ in range(400):
            await flooder.send({"type": "bid", "amount": 2})
            sent += 1
    except websockets.ConnectionClosed:
        pass
    assert await flooder.closed() == 1008
    codes = [f["code"] for f in flooder.frames if f["type"] == "error"]
    assert "rate_limited" in codes
    assert await look(server, code) == before
    # The other room kept being served: its player on turn passes and all see it.
    (other_turn,) = others[0].state["view"]["turn"]  # type: ignore[index]
    await others[other_turn].send({"type": "pass"})
    for client in others.values():
        await client.wait_state(lambda v: v["turn"] != [other_turn])
    # And the flooded room too, for everybody who behaved.
    await clients[turn].send({"type": "pass"})
    await clients[flooder_seat].wait_state(lambda v: v["turn"] != [turn])
    for client in [*clients.values(), *others.values()]:
        await client.close()
    assert other_code != code


async def test_a_burst_of_room_creations_is_capped(server_factory: ServerFactory) -> None:
    server = server_factory(create_rate=10)
    async with loopback.async_client(base_url=server.base_url) as http:
        answers = await asyncio.gather(
            *(
                http.post(
                    "/api/rooms",
                    json={"variant": "schmier6"},
                    headers={"X-Forwarded-For": f"10.0.0.{n}"},
                )
                for n in range(60)
            )
        )
    statuses = sorted(a.status_code for a in answers)
    assert statuses.count(201) == 10
    assert statuses.count(429) == 50
    assert all(a.headers["retry-after"] == "60" for a in answers if a.status_code == 429)
    assert await metric(server, "schmier_live_rooms") == 0  # nothing was woken up


async def test_silent_sockets_are_closed_after_the_hello_timeout(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(hello_timeout=1.5)
    code = await server.create_room("schmier6")
    _, token = await server.join(code, "Ann", 0)
    silent = await asyncio.gather(*(Client.connect(server.ws_url(code)) for _ in range(300)))
    # While they hang around, a real player is served.
    player = await Client.seated(server, code, token)
    await player.send({"type": "add_bot", "seat": 1})
    await player.wait_state(lambda v: v["seats"][1]["kind"] == "bot")
    closes = await asyncio.gather(*(client.closed(timeout=60) for client in silent))
    assert closes == [4408] * len(silent)

    async def only_the_player_left() -> bool:
        return await metric(server, "schmier_connected_sockets") == 1

    await eventually(only_the_player_left)
    await player.close()
