"""Fixtures that provide a real Redis, or skip / fail when it is absent.

`SCHMIER_TEST_REQUIRE` (comma-separated) names what must be there, so that its absence
fails instead of skipping: `redis`, `browser`, `nginx`, `container`, `postgres` (the
PostgreSQL of the archive's tests, `tests/support/postgres.py`) and `netns` (root, network
namespaces and iptables, `tests/support/netns.py`)."""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlparse

import pytest
import redis.asyncio as aioredis

from bench.kit.keys import delete_prefix, fresh_prefix

REDIS_URL = os.environ.get("SCHMIER_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def required(what: str) -> bool:
    """Whether SCHMIER_TEST_REQUIRE demands `what` (so its absence fails, not skips)."""
    wanted = os.environ.get("SCHMIER_TEST_REQUIRE", "")
    return what in {w.strip() for w in wanted.split(",") if w.strip()}


def missing(what: str, why: str) -> None:
    """Skip the test, or fail it when the requirement is demanded."""
    if required(what):
        pytest.fail(f"{what} is required by SCHMIER_TEST_REQUIRE but unavailable: {why}")
    pytest.skip(f"{what} unavailable: {why}")


def redis_answers(url: str = REDIS_URL) -> str | None:
    """None when a Redis answers PING at `url`, else the reason it does not."""
    parsed = urlparse(url)
    try:
        with socket.create_connection(
            (parsed.hostname or "127.0.0.1", parsed.port or 6379), timeout=2
        ) as conn:
            conn.sendall(b"PING\r\n")
            reply = conn.recv(64)
    except OSError as exc:
        return f"no Redis at {url}: {exc}"
    if not reply.startswith(b"+PONG"):
        return f"Redis at {url} answered {reply!r}"
    return None


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The URL of a real Redis, checked to answer."""
    problem = redis_answers()
    if problem:
        missing("redis", problem)
    return REDIS_URL


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    """A key prefix of this test's own; every key under it is deleted afterwards."""
    prefix = fresh_prefix("schmier-test", 12)
    yield prefix
    delete_prefix(redis_url, prefix)


@pytest.fixture
async def raw_redis(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """A plain redis-py client, to look behind the store's back (TTLs, key names)."""
    client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()
