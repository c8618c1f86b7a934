"""Guessing: codes and tokens are long and random, and guessers run out of attempts.

A room code carries at least 40 random bits and a token at least 128, both from the
operating system's CSPRNG through `secrets` (never the seedable `random`). An address
that keeps presenting unknown codes or wrong tokens, over HTTP or over WebSockets, is
refused after `SCHMIER_LOOKUP_FAIL_RATE` failures a minute, in one shared budget; the
socket half is `SecurityHeaders`' guessing guard. Refused, but not locked out of the
rooms it plays in: a seat's token always gets in, and rooms that exist are still looked
up, joined and watched at the cost of a join each.
"""

from __future__ import annotations

import base64
import contextlib
import math
import random
import secrets
from collections import Counter
from typing import Any

import pytest
import websockets

from schmier.rooms import codes
from tests.support import loopback
from tests.support.servers import Client, ClosedError, ServerFactory


def test_codes_and_tokens_have_the_entropy() -> None:
    assert codes.CODE_LENGTH * math.log2(len(set(codes.CODE_ALPHABET))) >= 40
    token = codes.new_token()
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    assert len(raw) * 8 >= 128


def test_codes_and_tokens_come_from_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeding `random` changes nothing; replacing `secrets` changes everything."""
    random.seed(1)
    first = (codes.new_code(), codes.new_token())
    random.seed(1)
    assert (codes.new_code(), codes.new_token()) != first

    calls: Counter[str] = Counter()

    def choice(seq: Any) -> Any:
        calls["choice"] += 1
        return seq[0]

    def token_urlsafe(nbytes: int | None = None) -> str:
        calls["token_urlsafe"] += 1
        assert nbytes is not None and nbytes >= 16
        return "T" * 32

    monkeypatch.setattr(secrets, "choice", choice)
    monkeypatch.setattr(secrets, "token_urlsafe", token_urlsafe)
    assert codes.new_code() == codes.CODE_ALPHABET[0] * codes.CODE_LENGTH
    assert codes.new_token() == "T" * 32
    assert calls == {"choice": codes.CODE_LENGTH, "token_urlsafe": 1}


def test_codes_look_uniform() -> None:
    """A loose sanity check of the alphabet use (not a proof of randomness): 3,000 codes,
    all distinct, every character at every position, none far from its share."""
    made = [codes.new_code() for _ in range(3000)]
    assert len(set(made)) == len(made)
    expected = len(made) / len(codes.CODE_ALPHABET)
    for position in range(codes.CODE_LENGTH):
        counts = Counter(code[position] for code in made)
        assert set(counts) == set(codes.CODE_ALPHABET)
        assert all(expected * 0.4 < n < expected * 1.8 for n in counts.values()), counts


async def hello_closes(
    url: str, token: str | None = None, headers: dict[str, str] | None = None
) -> int | None:
    """Open a socket, say hello (with `token`, or as a spectator); the close code, or
    None when the socket was let in (it got its state; closed from here)."""
    client = Client(await websockets.connect(url, additional_headers=headers))
    with contextlib.suppress(websockets.ConnectionClosed):  # an unknown room: at once
        await client.send({"type": "hello", "token": token} if token else {"type": "hello"})
    frame = None
    with contextlib.suppress(ClosedError):
        frame = await client.recv()
    if frame is not None:
        assert frame["type"] == "state", frame
        await client.close()
        return None
    return await client.closed()


async def test_failed_hellos_and_unknown_codes_run_out_without_locking_out_the_address(
    server_factory: ServerFactory,
) -> None:
    """Six failures and the address is out of attempts: unknown codes and wrong tokens
    get 429 / 4429, the same whether the room exists or not. But the address is not
    locked out of its rooms (a school, an office behind one address): a seat's token
    gets in as always, however often; a room that exists is still looked up, joined and
    watched, each at the cost of a join (`SCHMIER_JOIN_RATE`, 5 here), and once those
    are spent only tokens get in."""
    server = server_factory(lookup_fail_rate=6, join_rate=5)
    code = await server.create_room("schmier6")
    _, token = await server.join(code, "Ann", 0)  # join 1 of 5
    holder = await Client.seated(server, code, token)  # a player already seated
    for attempt in range(3):
        guess = await Client.connect(server.ws_url(code))
        await guess.send({"type": "hello", "token": f"guess-{attempt}"})
        assert await guess.closed() == 4401
    for attempt in range(3):
        unknown = await Client.connect(server.ws_url(f"{attempt}" * 10))
        assert await unknown.closed() == 4404
    # Out of attempts: a wrong token and an unknown room look alike now, and HTTP says 429.
    assert await hello_closes(server.ws_url(code), "guess-again") == 4429
    assert await hello_closes(server.ws_url("aaaaaaaaaa"), token) == 4429
    async with loopback.async_client(base_url=server.base_url) as http:
        answer = await http.get("/api/rooms/bbbbbbbbbb")  # a look-up costs a join (2)
        assert answer.status_code == 429
        assert answer.headers["retry-after"] == "60"
        # The room that exists: looked up (join 3) and joined (join 4) by a newcomer.
        assert (await http.get(f"/api/rooms/{code}")).status_code == 200
        joined = await http.post(f"/api/rooms/{code}/join", json={"name": "Bea"})
        assert joined.status_code == 200
    # Watched (join 5), and then the joins are spent: no more spectators...
    assert await hello_closes(server.ws_url(code)) is None
    assert await hello_closes(server.ws_url(code)) == 4429
    # ... but the seats' tokens get in, again and again (tabs, reconnections).
    for _ in range(3):
        assert await hello_closes(server.ws_url(code), token) is None
        assert await hello_closes(server.ws_url(code), joined.json()["token"]) is None
    # The seated player kept playing throughout.
    await holder.send({"type": "add_bot", "seat": 2})
    moved = await holder.wait_state(lambda v: v["seats"][2]["kind"] == "bot")
    assert moved["view"]["seats"][1]["name"] == "Bea"
    await holder.close()


async def test_the_guard_counts_per_address(server_factory: ServerFactory) -> None:
    """Behind a trusted proxy each client address has its own budget."""
    server = server_factory(lookup_fail_rate=2, proxy_headers=True, forwarded_allow_ips="127.0.0.1")
    code = await server.create_room("schmier6")
    guesser = {"X-Forwarded-For": "203.0.113.9"}
    other = {"X-Forwarded-For": "198.51.100.4"}
    for _ in range(2):
        unknown = Client(
            await websockets.connect(server.ws_url("bbbbbbbbbb"), additional_headers=guesser)
        )
        assert await unknown.closed() == 4404
    assert await hello_closes(server.ws_url("bbbbbbbbbb"), headers=guesser) == 4429
    # Another address has its whole budget: told plainly, and it watches the room.
    assert await hello_closes(server.ws_url("bbbbbbbbbb"), headers=other) == 4404
    assert await hello_closes(server.ws_url(code), headers=other) is None
    # Refusals do not count as further failures of somebody else either.
    async with loopback.async_client(base_url=server.base_url) as http:
        assert (await http.get("/api/rooms/cccccccccc")).status_code == 404
        assert (await http.get(f"/api/rooms/{code}")).status_code == 200


async def test_two_instances_share_one_budget(
    server_factory: ServerFactory, redis_url: str, redis_prefix: str
) -> None:
    """With Redis the budget of failed look-ups is counted in Redis: an address that
    spends half of it on one instance and half on the other is out on both, over HTTP
    and sockets alike (it is not twice the budget behind a balancer)."""
    shared = {"redis_url": redis_url, "redis_prefix": redis_prefix, "lookup_fail_rate": 6}
    first, second = server_factory(**shared), server_factory(**shared)
    code = await first.create_room("schmier6")
    async with loopback.async_client(base_url=first.base_url) as http:
        for digit in "018":  # never in the code alphabet: never the room itself
            assert (await http.get(f"/api/rooms/{digit}{code[1:]}")).status_code == 404
        assert (await http.get(f"/api/rooms/{code}")).status_code == 200
    for attempt in range(3):
        guess = await Client.connect(second.ws_url(code))
        await guess.send({"type": "hello", "token": f"guess-{attempt}"})
        assert await guess.closed() == 4401
    for server in (first, second):
        assert await hello_closes(server.ws_url(code), "guess-again") == 4429
        async with loopback.async_client(base_url=server.base_url) as http:
            assert (await http.get(f"/api/rooms/9{code[1:]}")).status_code == 429
