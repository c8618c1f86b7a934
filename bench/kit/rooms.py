"""The HTTP half of the protocol (docs/protocol.md, "HTTP"): make a room, take a seat.

Every client of the kit (the tests' `RunningServer`, the load generator, the soak run)
creates and joins rooms through these, on an `httpx.AsyncClient` of its own whose
`base_url` is the server.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

POST_ATTEMPTS = 4


async def post(http: httpx.AsyncClient, path: str, body: dict[str, Any]) -> httpx.Response:
    """POST with a few retries on a dropped connection.

    Under load a kept-alive connection may be closed by the server (its keep-alive
    timeout) just as the pool reuses it; that is the set-up's problem, not a finding.
    """
    for attempt in range(POST_ATTEMPTS):
        try:
            return await http.post(path, json=body)
        except httpx.TransportError:
            if attempt == POST_ATTEMPTS - 1:
                raise
            await asyncio.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


def _refused(what: str, answer: httpx.Response) -> RuntimeError:
    return RuntimeError(f"{what}: HTTP {answer.status_code} {answer.text[:200]}")


async def create_room(
    http: httpx.AsyncClient, variant: str, rules: dict[str, Any] | None = None
) -> str:
    """`POST /api/rooms`; the new room's code."""
    body: dict[str, Any] = {"variant": variant}
    if rules is not None:
        body["rules"] = rules
    answer = await post(http, "/api/rooms", body)
    if answer.status_code != 201:
        raise _refused("create room", answer)
    return str(answer.json()["code"])


async def join(
    http: httpx.AsyncClient, code: str, name: str, seat: int | None = None
) -> tuple[int, str]:
    """`POST /api/rooms/{code}/join`; (the seat taken, its token)."""
    body: dict[str, Any] = {"name": name}
    if seat is not None:
        body["seat"] = seat
    answer = await post(http, f"/api/rooms/{code}/join", body)
    if answer.status_code != 200:
        raise _refused("join", answer)
    data = answer.json()
    return int(data["seat"]), str(data["token"])


async def room(http: httpx.AsyncClient, code: str) -> dict[str, Any]:
    """`GET /api/rooms/{code}`: what the lobby shows of a room."""
    answer = await http.get(f"/api/rooms/{code}")
    if answer.status_code != 200:
        raise _refused("room", answer)
    data: dict[str, Any] = answer.json()
    return data
