"""Clubs over the wire for tests: the API's calls, a club game played to its end with
members seated by their keys, and waiting for the archive."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import httpx

from schmier import engine
from tests.support import loopback
from tests.support.servers import Client, Player, RunningServer, play_all


def bearer(key: str | None) -> dict[str, str]:
    return {} if key is None else {"Authorization": f"Bearer {key}"}


class ClubApi:
    """The clubs' HTTP API of one server."""

    def __init__(self, server: RunningServer) -> None:
        self.server = server

    async def call(
        self, method: str, path: str, key: str | None = None, **options: Any
    ) -> httpx.Response:
        headers = {**bearer(key), **options.pop("headers", {})}
        async with loopback.async_client(base_url=self.server.base_url) as http:
            return await http.request(method, path, headers=headers, **options)

    async def ok(self, method: str, path: str, key: str | None = None, **options: Any) -> Any:
        answer = await self.call(method, path, key, **options)
        assert answer.status_code in (200, 201), (method, path, answer.status_code, answer.text)
        return answer.json()

    async def create(self, name: str = "Thursday club") -> tuple[str, str]:
        """A new club: (code, admin key)."""
        body = await self.ok("POST", "/api/clubs", json={"name": name})
        return str(body["code"]), str(body["admin_key"])

    async def join(self, code: str, name: str) -> tuple[str, str]:
        """A new member: (member id, key)."""
        body = await self.ok("POST", f"/api/clubs/{code}/members", json={"name": name})
        return str(body["member"]), str(body["key"])

    async def room(self, code: str, key: str, variant: str, rules: dict[str, Any]) -> str:
        body = await self.ok(
            "POST", f"/api/clubs/{code}/rooms", key, json={"variant": variant, "rules": rules}
        )
        return str(body["code"])

    async def games(self, code: str, key: str, **query: Any) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = await self.ok(
            "GET", f"/api/clubs/{code}/games", key, params=query
        )
        return result

    async def game(self, code: str, key: str, game: str) -> dict[str, Any]:
        result: dict[str, Any] = await self.ok("GET", f"/api/clubs/{code}/games/{game}", key)
        return result

    async def standings(self, code: str, key: str, variant: str) -> dict[str, Any]:
        result: dict[str, Any] = await self.ok(
            "GET", f"/api/clubs/{code}/standings", key, params={"variant": variant}
        )
        return result

    async def archived(
        self, code: str, key: str, count: int, timeout: float = 60, **query: Any
    ) -> list[dict[str, Any]]:
        """Wait until the club's archive lists `count` games (with the query); them."""
        deadline = time.monotonic() + timeout
        while True:
            answer = await self.call("GET", f"/api/clubs/{code}/games", key, params=query)
            if answer.status_code == 200 and len(answer.json()) >= count:
                games: list[dict[str, Any]] = answer.json()
                return games
            if time.monotonic() > deadline:
                raise AssertionError(f"the archive did not get {count} games: {answer.text}")
            await asyncio.sleep(0.1)


async def join_room(
    server: RunningServer, room: str, name: str, seat: int | None, member_key: str | None
) -> httpx.Response:
    body: dict[str, Any] = {"name": name, "seat": seat}
    if member_key is not None:
        body["member_key"] = member_key
    async with loopback.async_client(base_url=server.base_url) as http:
        return await http.post(f"/api/rooms/{room}/join", json=body)


async def club_table(
    server: RunningServer,
    room: str,
    seats: dict[int, str],
    variant: str,
    taken: frozenset[int] = frozenset(),
) -> dict[int, Client]:
    """Seat members by key (`seats`: seat -> member key), bots elsewhere (but in the
    seats `taken` already), and start."""
    clients: dict[int, Client] = {}
    for seat, key in seats.items():
        answer = await join_room(server, room, "ignored", seat, key)
        assert answer.status_code == 200, answer.text
        clients[seat] = await Client.seated(server, room, answer.json()["token"])
    first = clients[min(seats)]
    for seat in range(engine.seat_count(variant)):
        if seat not in seats and seat not in taken:
            await first.send({"type": "add_bot", "seat": seat})
    await first.wait_state(lambda v: {"type": "start"} in v["legal"])
    await first.send({"type": "start"})
    for client in clients.values():
        await client.wait_state(lambda v: v["phase"] != "lobby")
    return clients


async def play_to_end(clients: dict[int, Client], seed: str, timeout: float = 90) -> dict[str, Any]:
    """Play every seated client at random until the game is over; the final view."""
    rng = random.Random(seed)
    finals = await play_all(
        [Player(c, rng) for c in clients.values()],
        lambda v: v["phase"] == "game_over",
        timeout,
    )
    view: dict[str, Any] = finals[0]["view"]
    return view


async def room_records(server: RunningServer, room: str) -> list[dict[str, Any]]:
    """Every finished hand's record of a room, as the room serves them."""
    async with loopback.async_client(base_url=server.base_url) as http:
        listed = (await http.get(f"/api/rooms/{room}/hands")).json()
        records = []
        for entry in listed:
            answer = await http.get(f"/api/rooms/{room}/hands/{entry['n']}")
            assert answer.status_code == 200, answer.text
            records.append(answer.json())
    return records
