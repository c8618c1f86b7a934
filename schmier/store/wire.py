"""One pipelined Redis connection for the commits of every room.

Why not redis-py's pool for the hot path: measured under 300 rooms, a commit through
`BlockingConnectionPool` spent its tail in the pool, not in Redis (taking a connection
and writing the command, not reading the reply;
bench/results/2026-11-30-load-four-changes.md), because every command takes the pool's
lock, checks its connection and may open a new one, so that room work piles up behind
the pool whenever many rooms commit at once. Here every
command goes to one connection with no lock and no await before the write: the commands
made in one turn of the event loop are written together at its end (one system call
for all the rooms that committed in that turn), and Redis answers a connection's
commands in order, so each reply settles the oldest waiting future. Hundreds of rooms'
commits then share one socket, and a burst costs one write and one Redis read.

Only what the store's hot path needs: commands and replies (RESP2, parsed by hiredis),
AUTH and SELECT from the URL, TLS for `rediss://`, Unix sockets, and a deadline after
which a silent connection is dropped. Everything else (pub/sub, leases, loading) stays
on redis-py.

High availability: the address can come from a resolver (the sentinels' current
master, `sentinel.py`) asked at every connection, which is then checked to be a master
(`ROLE`); a `-READONLY` reply (the master was demoted) drops the connection, so the next
command goes to the new one. With `wait_replicas`, `eval(..., durable=True)` also waits
for that many replicas to have the write (`WAIT`): one `WAIT` after all the commands of
a loop turn, so replicated commits cost one replication round trip per turn, not per
commit.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from redis.asyncio.connection import SSLConnection, UnixDomainSocketConnection, parse_url

from schmier.logs import event, fault_of
from schmier.store.base import StoreError, StoreUnavailable
from schmier.store.resp import (
    OUTAGE_REPLIES,
    Address,
    ReplyError,
    UnavailableReply,
    _encode,
    _Protocol,
    _retrieved,
    _tls_context,
)

__all__ = [
    "OUTAGE_REPLIES",
    "Address",
    "RedisWire",
    "ReplyError",
    "UnavailableReply",
    "_tls_context",
]


CONNECT_FAILURES: tuple[type[BaseException], ...] = (StoreError, OSError, TimeoutError)
"""How a connect fails when Redis is away, refuses or is slow (not a fault)."""


class RedisWire:
    """A lazily opened, self-healing, pipelined connection to the Redis of `url`.

    A dropped connection fails the commands in flight with `StoreUnavailable` (their
    outcome is unknown; the caller checks the store before going on) and the next
    command opens a new one. A connection that leaves a command unanswered for
    `timeout` seconds is dropped the same way, so a hung Redis surfaces as errors
    instead of rooms waiting forever.

    `resolve`, when given, says where the master is at each connection (the URL's host
    and port are then unused) and the connection is checked to be a master's.
    `wait_replicas` > 0: durable calls wait for that many replicas (up to `wait_ms`);
    `strict`: one that they did not all acknowledge in time fails instead of counting.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 10.0,
        connect_timeout: float = 5.0,
        resolve: Callable[[], Awaitable[Address]] | None = None,
        wait_replicas: int = 0,
        wait_ms: int = 1000,
        strict: bool = False,
    ) -> None:
        self._options: dict[str, Any] = dict(parse_url(url))
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        self._resolve = resolve
        self._wait_replicas = wait_replicas
        self._wait = _encode(("WAIT", wait_replicas, wait_ms)) if wait_replicas > 0 else None
        self._wait_ms = wait_ms
        self.strict = strict and wait_replicas > 0
        """A durable call no replica acknowledged fails (`StoreUnavailable`: its outcome
        is known only once a write reaches the replicas again, see `replicated`)
        instead of counting; never `degraded`."""
        self._protocol: _Protocol | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._connecting: asyncio.Task[_Protocol] | None = None
        self._watchdog: asyncio.TimerHandle | None = None
        self._scripts: dict[bytes, str] = {}
        self.address: Address | None = None
        """Where the current connection goes (None: not connected)."""
        self.connects = 0
        """Connections opened so far; all but the first are reconnections."""
        self.unreplicated = 0
        """Durable calls not known to have reached `wait_replicas` replicas."""
        self.degraded = False
        """Too few replicas: durable calls do not wait until enough are back (checked
        every second), as MySQL's semi-synchronous replication falls back to async."""

    @property
    def in_flight(self) -> int:
        """Commands written (or about to be) and not answered yet."""
        protocol = self._protocol
        return 0 if protocol is None or protocol.lost is not None else len(protocol.waiting)

    async def _ready(self) -> _Protocol:
        protocol = self._protocol
        stale = self._loop is not asyncio.get_running_loop()
        if protocol is None or not protocol.usable() or stale:
            protocol = await self._connect()
        return protocol

    async def call(self, *args: bytes | str | int) -> Any:
        """Send one command and wait for its reply (a `ReplyError` if Redis refused it)."""
        data = _encode(args)
        protocol = await self._ready()
        return await protocol.send(data)

    async def eval(
        self, script: str, keys: list[str], args: list[bytes | str | int], *, durable: bool = False
    ) -> Any:
        """Run a Lua script by its SHA1, loading it with EVAL the first time Redis
        does not know it (a new or restarted Redis). `durable`: also wait until the
        replicas have it (see `wait_replicas`)."""
        sha = self._sha(script)
        durable = durable and self._wait is not None
        protocol = await self._ready()
        try:
            return await self._send(protocol, durable, "EVALSHA", sha, len(keys), *keys, *args)
        except ReplyError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
        protocol = await self._ready()
        return await self._send(protocol, durable, "EVAL", script, len(keys), *keys, *args)

    async def eval_many(
        self, script: str, calls: Sequence[tuple[list[str], list[bytes | str | int]]]
    ) -> list[Any]:
        """`eval` of one script for each `(keys, args)` of `calls`, all written in this
        turn and their replies awaited together, without a task each (the lease
        renewals: dozens of rooms at a time). The first refusal is raised, once every
        reply is in; a Redis that does not know the script gets it with `SCRIPT LOAD`
        and the calls again."""
        sha = self._sha(script)
        for attempt in range(2):
            protocol = await self._ready()
            replies = await asyncio.gather(
                *(
                    protocol.send(_encode(("EVALSHA", sha, len(keys), *keys, *args)))
                    for keys, args in calls
                ),
                return_exceptions=True,
            )
            errors = [r for r in replies if isinstance(r, BaseException)]
            if not errors:
                return replies
            refused = [e for e in errors if not str(e).startswith("NOSCRIPT")]
            if refused or attempt:
                # Still unknown after the load (a Redis flushed or swapped meanwhile):
                # that refusal, not a StopIteration from an empty search.
                raise (refused or errors)[0]
            await self.call("SCRIPT", "LOAD", script)
        raise AssertionError("unreachable")  # pragma: no cover

    def _sha(self, script: str) -> str:
        """The SHA1 Redis knows `script` by (computed once per script)."""
        sha = self._scripts.get(script.encode())
        if sha is None:
            sha = hashlib.sha1(script.encode()).hexdigest()
            self._scripts[script.encode()] = sha
        return sha

    async def _send(self, protocol: _Protocol, durable: bool, *args: bytes | str | int) -> Any:
        reply = protocol.send(_encode(args))
        if durable and self.degraded:
            self.unreplicated += 1
            durable = False
        if not durable:
            return await reply
        acked = protocol.barrier()
        try:
            result = await reply
        except BaseException:
            acked.add_done_callback(_retrieved)
            raise
        self._replicated(int(await acked))
        return result

    def _replicated(self, replicas: int) -> None:
        """Count (and log once per change) commits that no replica acknowledged in
        time: they stand, as on a Redis without replicas, but a failover before the
        replicas catch up would lose them (docs/scaling.md). From the first one on,
        commits stop waiting until enough replicas are connected again."""
        if replicas >= self._wait_replicas:
            return
        self.unreplicated += 1
        if self.strict:
            # The master has it, but a failover now would lose it: nobody may see it
            # as done until a write is known to reach the replicas (the room pauses
            # and settles it then, from whichever master the sentinels name).
            event("store.unreplicated", logging.WARNING, replicas=replicas)
            raise StoreUnavailable(
                f"{replicas} of {self._wait_replicas} replicas acknowledged the commit"
            )
        self._degrade(replicas)

    async def replicated(self, key: str) -> bool:
        """Whether a write made now (to `key`) reaches `wait_replicas` replicas within
        `wait_ms`: after it, everything this connection wrote before is on them too.
        A write, not a bare `WAIT`: a replica cut off from its master still counts
        for offsets it acknowledged before the cut."""
        await self.call("SET", key, "1", "PX", 60_000)
        replicas = await self.call("WAIT", self._wait_replicas, self._wait_ms)
        return int(replicas) >= self._wait_replicas

    def _degrade(self, replicas: int) -> None:
        if self.strict:
            return
        if not self.degraded:
            self.degraded = True
            event("store.unreplicated", logging.WARNING, replicas=replicas)

    def _replicas_seen(self, role: Any) -> None:
        """A master's `ROLE` reply: its connected replicas decide whether to wait."""
        if self._wait is None or not isinstance(role, list) or len(role) < 3:
            return
        replicas = len(role[2])
        if replicas < self._wait_replicas:
            self._degrade(replicas)
        elif self.degraded:
            self.degraded = False
            event("store.replicated", logging.WARNING, replicas=replicas)

    def moved(self, address: Address) -> None:
        """The master is now at `address` (a sentinel said so): leave the old one."""
        if self.address is not None and self.address != address:
            self._drop()

    async def _connect(self) -> _Protocol:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            # A store used from a new event loop (tests do) cannot reuse the old socket.
            self._drop()
            self._loop = loop
            self._connecting = None
        if self._connecting is None or self._connecting.done():
            self._connecting = loop.create_task(self._open())
            # A refused or timed-out connect is each waiting caller's `StoreUnavailable`
            # (the outage is logged once, by the store's health).
            self._connecting.add_done_callback(
                functools.partial(fault_of, name="store.connect_failed", expected=CONNECT_FAILURES)
            )
        try:
            protocol = await asyncio.shield(self._connecting)
        except StoreError:
            raise
        except (OSError, TimeoutError) as exc:
            raise StoreUnavailable(f"redis connect failed: {exc}") from exc
        return protocol

    async def _open(self) -> _Protocol:
        loop = asyncio.get_running_loop()
        options = self._options
        kind = options.get("connection_class")
        async with asyncio.timeout(self._connect_timeout):
            address: Address | None = None
            if kind is UnixDomainSocketConnection and self._resolve is None:
                _, protocol = await loop.create_unix_connection(_Protocol, options["path"])
            else:
                if self._resolve is not None:
                    address = await self._resolve()
                else:
                    address = (options.get("host", "localhost"), int(options.get("port", 6379)))
                context = _tls_context(options) if kind is SSLConnection else None
                _, protocol = await loop.create_connection(
                    _Protocol, address[0], address[1], ssl=context
                )
            setup: list[tuple[bytes | str | int, ...]] = []
            if options.get("password"):
                if options.get("username"):
                    setup.append(("AUTH", options["username"], options["password"]))
                else:
                    setup.append(("AUTH", options["password"]))
            if int(options.get("db") or 0):
                setup.append(("SELECT", int(options["db"])))
            try:
                for command in setup:
                    await protocol.send(_encode(command))
                if self._resolve is not None or self._wait is not None:
                    role = await protocol.send(_encode(("ROLE",)))
                    if self._resolve is not None and (not role or role[0] != b"master"):
                        # A sentinel may still name a master demoted a moment ago.
                        raise StoreUnavailable("the sentinels' master is not a master (yet)")
                    self._replicas_seen(role)
            except BaseException:
                protocol.fail(StoreUnavailable("redis refused the connection's set-up"))
                raise
        self._drop()
        protocol.wait_command = self._wait
        self._protocol = protocol
        self.address = address
        self.connects += 1
        where = "unix socket" if address is None else f"{address[0]}:{address[1]}"
        event("store.wire_connected", address=where, connects=self.connects)
        self._arm()
        return protocol

    def _arm(self) -> None:
        """Check every second (only while connected) for a command left unanswered."""
        loop = self._loop
        if loop is not None:
            self._watchdog = loop.call_later(1.0, self._watch)

    def _watch(self) -> None:
        protocol = self._protocol
        if protocol is None or protocol.lost is not None:
            return
        if protocol.waiting and time.monotonic() - protocol.waiting[0][1] > self._timeout:
            protocol.fail(StoreUnavailable(f"redis did not answer within {self._timeout:g} s"))
            return
        if self.degraded:
            protocol.send(_encode(("ROLE",))).add_done_callback(self._role_answered)
        self._arm()

    def _role_answered(self, future: asyncio.Future[Any]) -> None:
        if not future.cancelled() and future.exception() is None:
            self._replicas_seen(future.result())

    def _drop(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if self._protocol is not None and self._protocol.lost is None:
            self._protocol.fail(StoreUnavailable("redis connection replaced"))
        self._protocol = None
        self.address = None

    async def aclose(self) -> None:
        """Close the connection (commands still in flight fail)."""
        self._drop()
