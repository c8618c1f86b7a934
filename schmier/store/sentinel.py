"""Redis Sentinel: find the master through the sentinels, and follow it when it moves.

With `SCHMIER_REDIS_SENTINELS` set, the store never connects to a fixed address. Both
of its ways to Redis ask the sentinels for the current master of
`SCHMIER_REDIS_SENTINEL_MASTER` whenever they open a connection: redis-py's pool
(loads, leases, pub/sub, limits) through its `SentinelConnectionPool`, and the
pipelined commit connection (`wire.py`) through `SentinelFinder.master`. The
database, password and TLS options of `SCHMIER_REDIS_URL` still apply to the master.

A failover reaches the store three ways, all of which end in new connections to the
new master without a restart:

- the old master's connections are lost (it died): the next command reconnects;
- the old master answers `-READONLY` (it was demoted to a replica): redis-py's sentinel
  connection and the wire both drop that connection and ask again;
- the sentinels announce `+switch-master` on their pub/sub: `SwitchWatch` hears it and
  the store drops every connection to the old master at once, including the cluster's
  subscription, so nothing keeps talking to a demoted replica until its next error.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.connection import BlockingConnectionPool, SSLConnection, parse_url
from redis.asyncio.sentinel import (
    Sentinel,
    SentinelConnectionPool,
    SentinelManagedConnection,
    SentinelManagedSSLConnection,
)
from redis.exceptions import RedisError

from schmier.store.base import StoreUnavailable
from schmier.store.pubsub import next_message

Address = tuple[str, int]

SENTINEL_TIMEOUT = 1.0
"""Seconds to wait for one sentinel (then the next one is asked)."""


def parse_sentinels(text: str) -> list[Address]:
    """`host:port,host:port` (an IPv6 host in brackets: `[::1]:26379`); the port
    defaults to Sentinel's 26379. Raises ValueError on anything else."""
    found: list[Address] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if item.startswith("["):
            host, _, rest = item[1:].partition("]")
            port_text = rest.removeprefix(":")
        else:
            host, _, port_text = item.rpartition(":") if ":" in item else (item, "", "")
        port = int(port_text) if port_text else 26379
        if not host or not 0 < port < 65536:
            raise ValueError(f"not a sentinel address (host:port): {item!r}")
        found.append((host, port))
    return found


class BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """redis-py's sentinel pool with the blocking pool's behaviour (a burst waits for a
    connection instead of failing with "too many connections"), as without Sentinel."""


class SentinelFinder:
    """The sentinels of one master: where the master is now, and a pool that follows it."""

    def __init__(self, sentinels: Sequence[Address], master: str) -> None:
        if not sentinels:
            raise ValueError("no sentinels given")
        self.sentinels = list(sentinels)
        self.master_name = master
        self._sentinel = Sentinel(  # type: ignore[no-untyped-call]
            self.sentinels,
            socket_timeout=SENTINEL_TIMEOUT,
            socket_connect_timeout=SENTINEL_TIMEOUT,
        )

    async def master(self) -> Address:
        """The master's address as the sentinels see it now (`StoreUnavailable` when
        none of them knows a master that is up: during a failover, say)."""
        try:
            host, port = await self._sentinel.discover_master(self.master_name)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"no master for {self.master_name!r}: {exc}") from exc
        return str(host), int(port)

    def pool(self, url: str, **options: Any) -> BlockingSentinelPool:
        """A blocking pool to the master, with the URL's database, password and TLS."""
        settings: dict[str, Any] = dict(parse_url(url))
        for key in ("host", "port", "path"):
            settings.pop(key, None)
        tls = settings.pop("connection_class", None) is SSLConnection
        connection = SentinelManagedSSLConnection if tls else SentinelManagedConnection
        return BlockingSentinelPool(  # type: ignore[no-untyped-call]
            self.master_name,
            self._sentinel,
            connection_class=connection,
            **settings,
            **options,
        )

    async def aclose(self) -> None:
        with contextlib.suppress(RedisError, OSError):
            await self._sentinel.aclose()


class SwitchWatch:
    """Listens for `+switch-master` on every sentinel; calls `moved(new address)` for
    this master (once per new address, although each sentinel announces it)."""

    def __init__(
        self,
        finder: SentinelFinder,
        moved: Callable[[Address], Awaitable[None]],
        retry_seconds: float = 1.0,
    ) -> None:
        self._finder = finder
        self._moved = moved
        self._retry = retry_seconds
        self._last: Address | None = None
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Start listening (again only once the previous listeners are closed)."""
        if self._tasks:
            return
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._listen(host, port), name=f"sentinel:{host}:{port}")
            for host, port in self._finder.sentinels
        ]

    async def _listen(self, host: str, port: int) -> None:
        """One sentinel's announcements, forever; a sentinel that is down is retried
        quietly (the others still speak, and the store finds the master anyway)."""
        while True:
            client = aioredis.Redis(host=host, port=port, socket_connect_timeout=SENTINEL_TIMEOUT)
            pubsub = client.pubsub(ignore_subscribe_messages=False)  # see pubsub.py
            try:
                await pubsub.subscribe("+switch-master")
                while True:
                    await self._announced(await next_message(pubsub))
            except (RedisError, OSError, StoreUnavailable):
                pass
            finally:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
                with contextlib.suppress(RedisError, OSError):
                    await client.aclose()
            await asyncio.sleep(self._retry)

    async def _announced(self, data: bytes | str) -> None:
        # "<master name> <old ip> <old port> <new ip> <new port>"
        text = data.decode() if isinstance(data, bytes) else data
        words = text.split()
        if len(words) != 5 or words[0] != self._finder.master_name:
            return
        address = (words[3], int(words[4]))
        if address == self._last:
            return
        self._last = address
        await self._moved(address)

    async def aclose(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
