"""The host's frames, the rematch votes, the seat link and the timer's notice tell nobody
a secret.

A table of three people and a spectator goes through everything the host can do (seats
moved and swapped, the rules changed, a pause, an absent player's seat freed and taken
back by name), timers running out, a whole game and the rematch votes, while someone
outside reads every page of the room's HTTP API. Afterwards:

- no token (the seat link's secret) and no token's hash is in any frame of any socket, in
  any HTTP answer but the join that made it (and that one only to its joiner), or in any
  line the server logged;
- every `timed_out` notice went to the timed-out seat's sockets alone and names only
  cards that seat held;
- every game frame of the seats that kept their seat through the game and of the
  spectator is the engine's redacted view of a true state (`check_client`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
from typing import Any

import httpx
import orjson

from schmier.logs import LOGGER, JsonFormatter
from tests.support import loopback
from tests.support.secrecy import cards_in, states_of
from tests.support.servers import Client, Player, ServerFactory
from tests.test_secrecy_server import check_client


class _Collect(logging.Handler):
    """Keeps the formatted lines of the server's logger."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.setFormatter(JsonFormatter())

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


class Outsider:
    """Reads every page of the room's API and keeps each answer's text."""

    def __init__(self, http: httpx.AsyncClient, code: str) -> None:
        self.http = http
        self.code = code
        self.answers: list[str] = []

    async def look(self) -> None:
        code = self.code
        for path in (f"/api/rooms/{code}", f"/api/rooms/{code}/hands", f"/api/rooms/{code}/history",
                     f"/api/rooms/{code}/hands/1", f"/r/{code}", "/api/bots"):  # fmt: skip
            answer = await self.http.get(path)
            self.answers.append(answer.text)


async def test_the_host_and_the_seat_link_keep_every_secret(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(turn_timer_scale=0.05, log_json=True, log_level="DEBUG")
    collect = _Collect()
    LOGGER.addHandler(collect)
    joins: list[tuple[str, str]] = []  # (the join's answer, its own token)
    try:
        async with loopback.async_client(base_url=server.base_url) as http:
            rules = {"target": 5, "turn_seconds": 10}
            created = await http.post("/api/rooms", json={"variant": "wisconsin4", "rules": rules})
            code = created.json()["code"]
            outsider = Outsider(http, code)

            async def join(name: str, seat: int) -> str:
                answer = await http.post(
                    f"/api/rooms/{code}/join", json={"name": name, "seat": seat}
                )
                token = str(answer.json()["token"])
                joins.append((answer.text, token))
                return token

            tokens = {0: await join("Ann", 0), 2: await join("Bob", 2), 3: await join("Cy", 3)}
            ann, bob, cy = [await Client.seated(server, code, tokens[k]) for k in (0, 2, 3)]
            watcher = await Client.seated(server, code, None)
            sockets = [ann, bob, cy, watcher]
            # The lobby: Bob moves to seat 1, the host swaps Bob and Cy back, sets rules.
            await bob.send({"type": "move_seat", "seat": 1})
            await bob.wait_state(lambda v: v["you"] == 1)
            await ann.send({"type": "swap_seats", "seats": [1, 3]})
            await bob.wait_state(lambda v: v["you"] == 3)
            await ann.send({"type": "set_rules", "rules": {"hints": False}})
            await ann.send({"type": "add_bot", "seat": 2})
            await ann.wait_state(lambda v: {"type": "start"} in v["legal"])
            await outsider.look()
            await ann.send({"type": "start"})
            # Nobody plays for a while: the timers play people's turns; a pause between.
            await watcher.wait_state(lambda v: v["phase"] not in ("lobby", "bidding"), timeout=30)
            await ann.send({"type": "pause"})
            await watcher.wait_state(lambda v: v["paused"])
            await outsider.look()
            await ann.send({"type": "resume"})
            await watcher.wait_state(lambda v: not v["paused"])
            # Cy (seat 1 since the swap) goes; the host frees the seat; Cy takes it back.
            await cy.close()
            await ann.wait_state(lambda v: not v["seats"][1]["connected"])
            await ann.send({"type": "free_seat", "seat": 1})
            await ann.wait_state(lambda v: v["seats"][1]["kind"] == "bot")
            cy = await Client.seated(server, code, await join("Cy", 1))
            sockets.append(cy)
            await outsider.look()
            people = {0: ann, 3: bob, 1: cy}
            players = [Player(c, random.Random(f"host-secrecy-{s}")) for s, c in people.items()]
            await asyncio.gather(
                *(p.play_until(lambda v: v["phase"] == "game_over") for p in players)
            )
            await ann.send({"type": "rematch"})
            await bob.send({"type": "rematch"})
            await watcher.wait_state(lambda v: v["rematch"] == [0, 3])
            await outsider.look()
            log = await server.app.state.rooms.store.read_log(code)
        for client in sockets:
            await client.close()
    finally:
        LOGGER.removeHandler(collect)

    secrets = [token for _, token in joins]
    secrets += [hashlib.sha256(token.encode()).hexdigest() for token in secrets]
    secrets += [token[:12] for token in secrets]
    for client in sockets:
        text = orjson.dumps(client.frames).decode()
        assert not [s for s in secrets if s in text]
    for answer in outsider.answers:
        assert not [s for s in secrets if s in answer]
    for answer, token in joins:
        assert [s for s in secrets if s in answer] == [token, token[:12]]
    for line in collect.lines:
        assert not [s for s in secrets if s in line], line
    assert {"room.host", "room.join", "room.autoplay"} <= {
        orjson.loads(x)["event"] for x in collect.lines
    }

    # The timer's notices: to the timed-out seat only, naming only that seat's cards.
    told = 0
    for client in sockets:
        last: dict[str, Any] | None = None
        for frame in client.frames:
            if frame["type"] == "state":
                before, last = last, frame["view"]
            elif frame["type"] == "timed_out":
                assert before is not None and last is not None and last["you"] is not None
                assert cards_in(frame) <= set(before["hand"]), frame
                told += 1
    assert told > 0
    assert not [f for f in watcher.frames if f["type"] == "timed_out"]

    # The seats that kept their place, and the spectator, saw true views only.
    first = next(
        f["view"]
        for f in watcher.frames
        if f["type"] == "state" and f["view"]["dealer"] is not None
    )
    states = states_of(
        "wisconsin4", {"target": 5, "turn_seconds": 10, "hints": False}, first["dealer"], log
    )
    for client, seat in ((ann, 0), (bob, 3), (watcher, None)):
        assert check_client(client, seat, states) > 5
