"""Guessing: codes and tokens are long and random, and guessers run out of attempts.

A room code carries at least 40 random bits and a token at least 128, both from the
operating system's CSPRNG through `secrets` (never the seedable `random`). An address
that keeps presenting unknown codes or wrong tokens, over HTTP or over WebSockets, is
refused after `SCHMIER_LOOKUP_FAIL_RATE` failures a minute, in one shared budget; the
socket half is `SecurityHeaders`' guessing guard.
"""

from __future__ import annotations

import base64
import math
import random
import secrets
from collections import Counter
from typing import Any

import pytest
import websockets

from schmier.rooms import codes
from tests.support import loopback
from tests.support.servers import Client, ServerFactory


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


async def refused_handshake(url: str, **options: Any) -> int:
    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(url, **options)
    return int(refused.value.response.status_code)


async def test_failed_hellos_and_unknown_codes_run_out(server_factory: ServerFactory) -> None:
    server = server_factory(lookup_fail_rate=6)
    code = await server.create_room("schmier6")
    _, token = await server.join(code, "Ann", 0)
    holder = await Client.seated(server, code, token)  # a player already seated: unaffected
    for attempt in range(3):
        guess = await Client.connect(server.ws_url(code))
        await guess.send({"type": "hello", "token": f"guess-{attempt}"})
        assert await guess.closed() == 4401
    for attempt in range(3):
        unknown = await Client.connect(server.ws_url(f"{attempt}" * 10))
        assert await unknown.closed() == 4404
    # Six failures: this address is out of attempts, on sockets and over HTTP alike.
    assert await refused_handshake(server.ws_url(code)) == 429
    assert await refused_handshake(server.ws_url("aaaaaaaaaa")) == 429
    async with loopback.async_client(base_url=server.base_url) as http:
        answer = await http.get(f"/api/rooms/{code}")
        assert answer.status_code == 429
        assert answer.headers["retry-after"] == "60"
    # The seated player keeps playing.
    await holder.send({"type": "add_bot", "seat": 1})
    moved = await holder.wait_state(lambda v: v["seats"][1]["kind"] == "bot")
    assert moved["view"]["seats"][1]["kind"] == "bot"
    await holder.close()


async def test_the_guard_counts_per_address(server_factory: ServerFactory) -> None:
    """Behind a trusted proxy each client address has its own budget."""
    server = server_factory(lookup_fail_rate=2, proxy_headers=True, forwarded_allow_ips="127.0.0.1")
    code = await server.create_room("schmier6")
    guesser = {"X-Forwarded-For": "203.0.113.9"}
    for _ in range(2):
        ws = await websockets.connect(server.ws_url("bbbbbbbbbb"), additional_headers=guesser)
        with pytest.raises(websockets.ConnectionClosed):
            await ws.recv()
        assert ws.close_code == 4404
    assert await refused_handshake(server.ws_url(code), additional_headers=guesser) == 429
    other = Client(
        await websockets.connect(
            server.ws_url(code), additional_headers={"X-Forwarded-For": "198.51.100.4"}
        )
    )
    await other.hello()
    await other.close()
    # Refusals do not count as further failures of somebody else either.
    async with loopback.async_client(base_url=server.base_url) as http:
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
        assert await refused_handshake(server.ws_url(code)) == 429
        async with loopback.async_client(base_url=server.base_url) as http:
            assert (await http.get(f"/api/rooms/{code}")).status_code == 429
