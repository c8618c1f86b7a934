"""Acting for someone else: only a seat's own token acts for it, and only in its room.

What `tests/test_ws.py` already covers (a wrong token closes 4401; a spectator's pass,
chat and leave are `forbidden`) is extended here: a token is worthless in another room
and after its seat was given up; nothing close to a token works; a spectator can send
no frame type at all in any phase; and the comparison is constant-time (the stored
SHA-256 hashes, equal in length, go through `hmac.compare_digest`).
"""

from __future__ import annotations

import hmac
from typing import Any

import pytest

from schmier.protocol import CLIENT_TYPES
from schmier.rooms import codes
from tests.support.servers import Client, RunningServer

FRAMES: dict[str, dict[str, Any]] = {
    "chat": {"type": "chat", "text": "hi"},
    "add_bot": {"type": "add_bot", "seat": 3},
    "remove_bot": {"type": "remove_bot", "seat": 3},
    "start": {"type": "start"},
    "bid": {"type": "bid", "amount": 3},
    "pass": {"type": "pass"},
    "trump": {"type": "trump", "suit": "S"},
    "discard": {"type": "discard", "cards": ["AS"]},
    "call": {"type": "call", "card": "AS"},
    "play": {"type": "play", "card": "AS"},
    "rematch": {"type": "rematch"},
    "leave": {"type": "leave"},
    "entropy": {"type": "entropy", "commit": "00ff" * 16},
    "hint": {"type": "hint"},
    "free_seat": {"type": "free_seat", "seat": 0},
    "set_rules": {"type": "set_rules", "rules": {"target": 11}},
    "pause": {"type": "pause"},
    "resume": {"type": "resume"},
    "move_seat": {"type": "move_seat", "seat": 3},
    "swap_seats": {"type": "swap_seats", "seats": [0, 1]},
    "review": {"type": "review", "op": "open", "hand": 1},
}


async def look(server: RunningServer, code: str) -> tuple[int, dict[str, Any]]:
    watcher = await Client.seated(server, code, None)
    frame = watcher.state
    await watcher.close()
    assert frame is not None
    return frame["seq"], frame["view"]


async def hello_closes(server: RunningServer, code: str, token: str) -> int | None:
    client = await Client.connect(server.ws_url(code))
    await client.send({"type": "hello", "token": token})
    return await client.closed()


def test_every_client_frame_type_is_tried() -> None:
    assert set(FRAMES) | {"hello"} == set(CLIENT_TYPES)


async def test_a_token_is_worthless_in_another_room(server: RunningServer) -> None:
    first = await server.create_room("schmier6")
    second = await server.create_room("schmier6")
    _, token = await server.join(first, "Ann", 0)
    _, other = await server.join(second, "Bob", 0)
    holder = await Client.seated(server, second, other)  # the seat is taken and live
    before = await look(server, second)
    assert await hello_closes(server, second, token) == 4401
    assert await look(server, second) == before
    # The token still works where it belongs.
    mine = await Client.seated(server, first, token)
    assert mine.state is not None and mine.state["view"]["you"] == 0
    await mine.close()
    await holder.close()


async def test_nothing_near_a_token_works(server: RunningServer) -> None:
    code = await server.create_room("wisconsin4")
    _, token = await server.join(code, "Ann", 1)
    holder = await Client.seated(server, code, token)
    before = await look(server, code)
    near = [
        token.upper(),
        token.lower(),
        " " + token,
        token + " ",
        token[:-1],
        token + "A",
        token[1:] + token[0],
        codes.hash_token(token),  # the stored hash is not a token
        token.replace(token[5], "A" if token[5] != "A" else "B"),
    ]
    for wrong in near:
        if wrong == token:
            continue
        assert await hello_closes(server, code, wrong) == 4401, wrong
    assert await look(server, code) == before
    await holder.close()


@pytest.mark.parametrize("phase", ["lobby", "game", "game_over"])
async def test_a_spectator_can_do_nothing(server: RunningServer, phase: str) -> None:
    code = await server.create_room("wisconsin4", {"target": 5})
    _, token = await server.join(code, "Ann", 0)
    seated = await Client.seated(server, code, token)
    if phase != "lobby":
        for seat in (1, 2, 3):
            await seated.send({"type": "add_bot", "seat": seat})
        await seated.wait_state(lambda v: {"type": "start"} in v["legal"])
        await seated.send({"type": "start"})
        # Ann's turn: the bots wait for her, so nothing but the spectator's frames could
        # change the room while they are tried.
        await seated.wait_state(lambda v: v["phase"] != "lobby" and v["turn"] == [0])
        if phase == "game_over":
            await seated.send({"type": "leave"})  # bots play the rest at once
            await seated.wait_state(lambda v: v["phase"] == "game_over", timeout=120)
    spectator = await Client.seated(server, code, None)
    before = await look(server, code)
    revealed = {"type": "entropy", "value": "00ff" * 8}  # the other form of `entropy`
    for kind, frame in [*FRAMES.items(), ("reveal", revealed)]:
        await spectator.send(frame)
        answer = await spectator.next_error()
        assert answer["code"] == "forbidden", (kind, answer)
    assert await look(server, code) == before
    await spectator.close()
    await seated.close()


async def test_a_given_up_seat_takes_its_token_along(server: RunningServer) -> None:
    """After `leave` (in the lobby or in a game) the token opens nothing, and the socket
    that left is a spectator."""
    code = await server.create_room("wisconsin4", {"target": 5})
    _, lobby_token = await server.join(code, "Ann", 0)
    ann = await Client.seated(server, code, lobby_token)
    await ann.send({"type": "leave"})
    await ann.wait_state(lambda v: v["seats"][0]["kind"] == "empty")
    assert await hello_closes(server, code, lobby_token) == 4401
    await ann.send({"type": "chat", "text": "still here?"})
    assert (await ann.next_error())["code"] == "forbidden"

    _, token = await server.join(code, "Bob", 0)
    bob = await Client.seated(server, code, token)
    for seat in (1, 2, 3):
        await bob.send({"type": "add_bot", "seat": seat})
    await bob.wait_state(lambda v: {"type": "start"} in v["legal"])
    await bob.send({"type": "start"})
    await bob.wait_state(lambda v: v["phase"] != "lobby")
    await bob.send({"type": "leave"})
    await bob.wait_state(lambda v: v["seats"][0]["kind"] == "bot" and v["you"] is None)
    assert await hello_closes(server, code, token) == 4401
    assert await hello_closes(server, code, lobby_token) == 4401
    await bob.close()
    await ann.close()


async def test_tokens_are_compared_in_constant_time(
    server: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every check of a presented token goes through `hmac.compare_digest`, on the two
    hashes (always 64 hex characters, whatever was presented), never through `==`."""
    compared: list[tuple[Any, Any]] = []
    real = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        compared.append((a, b))
        return bool(real(a, b))

    monkeypatch.setattr(hmac, "compare_digest", spy)
    code = await server.create_room("schmier5")
    _, token = await server.join(code, "Ann", 2)
    assert await hello_closes(server, code, "x") == 4401
    assert await hello_closes(server, code, "y" * 200) == 4401
    seated = await Client.seated(server, code, token)
    assert len(compared) >= 3
    for a, b in compared:
        assert isinstance(a, str) and isinstance(b, str)
        assert len(a) == len(b) == 64
    await seated.close()
