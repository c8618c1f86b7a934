"""One pipelined Redis connection for the commits of every room.

Why not redis-py's pool for the hot path: measured under 300 rooms, a commit through
`BlockingConnectionPool` spent its tail in the pool, not in Redis (taking a connection
p99 85-150 ms, writing the command p99 47-73 ms, reading the reply p99 1.2 ms), because
every command takes the pool's lock, checks its connection and may open a new one, so
that room work piles up behind the pool whenever many rooms commit at once. Here every
command goes to one connection with no lock and no await before the write: the commands
made in one turn of the event loop are written together at its end (one system call
for all the rooms that committed in that turn), and Redis answers a connection's
commands in order, so each reply settles the oldest waiting future. Hundreds of rooms'
commits then share one socket, and a burst costs one write and one Redis read.

Only what the store's hot path needs: commands and replies (RESP2, parsed by hiredis),
AUTH and SELECT from the URL, TLS for `rediss://`, Unix sockets, and a deadline after
which a silent connection is dropped. Everything else (pub/sub, leases, loading) stays
on redis-py.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ssl
import time
from collections import deque
from typing import Any

import hiredis
from redis.asyncio.connection import SSLConnection, UnixDomainSocketConnection, parse_url

from schmier.store.base import StoreError


class ReplyError(StoreError):
    """Redis answered the command with an error (`-ERR ...`, `-NOSCRIPT ...`)."""


def _encode(args: tuple[bytes | str | int, ...]) -> bytes:
    """One command in RESP: an array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        if isinstance(arg, bytes):
            data = arg
        elif isinstance(arg, str):
            data = arg.encode()
        else:
            data = b"%d" % arg
        out.append(b"$%d\r\n" % len(data))
        out.append(data)
        out.append(b"\r\n")
    return b"".join(out)


def _tls_context(options: dict[str, Any]) -> ssl.SSLContext:
    """The TLS settings of a `rediss://` URL, read as redis-py reads them
    (`ssl_cert_reqs`, `ssl_ca_certs`, `ssl_check_hostname`), so that the commits and
    the rest of the store trust the same server."""
    context = ssl.create_default_context(cafile=options.get("ssl_ca_certs"))
    reqs = options.get("ssl_cert_reqs", "required")
    if isinstance(reqs, str):
        reqs = {
            "none": ssl.CERT_NONE,
            "optional": ssl.CERT_OPTIONAL,
            "required": ssl.CERT_REQUIRED,
        }.get(reqs.lower(), ssl.CERT_REQUIRED)
    check_hostname = options.get("ssl_check_hostname", reqs != ssl.CERT_NONE)
    if isinstance(check_hostname, str):
        check_hostname = check_hostname.lower() not in ("false", "0", "no", "off")
    context.check_hostname = bool(check_hostname) and reqs != ssl.CERT_NONE
    context.verify_mode = reqs
    return context


class _Protocol(asyncio.Protocol):
    """The socket: a turn's commands go out in one write, replies settle futures in order."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.waiting: deque[tuple[asyncio.Future[Any], float]] = deque()
        self.reader = hiredis.Reader(replyError=ReplyError)
        self.lost: BaseException | None = None
        self.outgoing: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not subclasses of asyncio.Transport: no isinstance.
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        waiting = self.waiting
        while True:
            reply = self.reader.gets()
            if reply is False:
                return
            if not waiting:
                # A reply nobody asked for means the stream is out of step: drop it.
                self._fail(StoreError("redis sent an unexpected reply"))
                return
            future, _ = waiting.popleft()
            if future.done():
                continue
            if isinstance(reply, ReplyError):
                future.set_exception(reply)
            else:
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(StoreError(f"redis connection lost: {exc or 'closed by the server'}"))

    def _fail(self, error: StoreError) -> None:
        self.lost = error
        self.outgoing = []
        # The loop may be closed already (a store outliving a test's loop): then there
        # is nothing left to abort or to wake.
        with contextlib.suppress(RuntimeError):
            if self.transport is not None:
                self.transport.abort()
            while self.waiting:
                future, _ = self.waiting.popleft()
                if not future.done():
                    future.set_exception(error)

    def usable(self) -> bool:
        """Whether commands may still go out here. A transport that is closing counts as
        lost already: its `connection_lost` runs only on a later turn of the loop (when,
        differs between Python versions), and a command sent meanwhile would fail."""
        transport = self.transport
        return self.lost is None and transport is not None and not transport.is_closing()

    def send(self, data: bytes) -> asyncio.Future[Any]:
        """Queue a command; every command made in this turn of the loop goes out in one
        write at its end (a write is a system call, and under load many rooms commit in
        the same turn: one write instead of one each)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if self.lost is not None or self.transport is None or self.transport.is_closing():
            # The connection died between the caller's check and now: nothing would
            # ever answer (its waiting list is already failed and empty).
            future.set_exception(StoreError(f"redis connection lost: {self.lost}"))
            return future
        self.waiting.append((future, time.monotonic()))
        if not self.outgoing:
            loop.call_soon(self._flush)
        self.outgoing.append(data)
        return future

    def _flush(self) -> None:
        outgoing, self.outgoing = self.outgoing, []
        if self.lost is None and self.transport is not None and outgoing:
            self.transport.write(b"".join(outgoing))


class RedisWire:
    """A lazily opened, self-healing, pipelined connection to the Redis of `url`.

    A dropped connection fails the commands in flight with `StoreError` (their
    outcome is unknown; the caller's compare-and-set tells on the next attempt) and
    the next command opens a new one. A connection that leaves a command unanswered
    for `timeout` seconds is dropped the same way, so a hung Redis surfaces as errors
    instead of rooms waiting forever.
    """

    def __init__(self, url: str, *, timeout: float = 10.0, connect_timeout: float = 5.0) -> None:
        self._options: dict[str, Any] = dict(parse_url(url))
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        self._protocol: _Protocol | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._connecting: asyncio.Task[_Protocol] | None = None
        self._watchdog: asyncio.TimerHandle | None = None
        self._scripts: dict[bytes, str] = {}

    async def call(self, *args: bytes | str | int) -> Any:
        """Send one command and wait for its reply (a `ReplyError` if Redis refused it)."""
        data = _encode(args)
        protocol = self._protocol
        stale = self._loop is not asyncio.get_running_loop()
        if protocol is None or not protocol.usable() or stale:
            protocol = await self._connect()
        return await protocol.send(data)

    async def eval(self, script: str, keys: list[str], args: list[bytes | str | int]) -> Any:
        """Run a Lua script by its SHA1, loading it with EVAL the first time Redis
        does not know it (a new or restarted Redis)."""
        sha = self._scripts.get(script.encode())
        if sha is None:
            sha = hashlib.sha1(script.encode()).hexdigest()
            self._scripts[script.encode()] = sha
        try:
            return await self.call("EVALSHA", sha, len(keys), *keys, *args)
        except ReplyError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
        return await self.call("EVAL", script, len(keys), *keys, *args)

    async def _connect(self) -> _Protocol:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            # A store used from a new event loop (tests do) cannot reuse the old socket.
            self._drop()
            self._loop = loop
            self._connecting = None
        if self._connecting is None or self._connecting.done():
            self._connecting = loop.create_task(self._open())
        try:
            protocol = await asyncio.shield(self._connecting)
        except StoreError:
            raise
        except (OSError, TimeoutError) as exc:
            raise StoreError(f"redis connect failed: {exc}") from exc
        return protocol

    async def _open(self) -> _Protocol:
        loop = asyncio.get_running_loop()
        options = self._options
        kind = options.get("connection_class")
        async with asyncio.timeout(self._connect_timeout):
            if kind is UnixDomainSocketConnection:
                _, protocol = await loop.create_unix_connection(_Protocol, options["path"])
            else:
                context = _tls_context(options) if kind is SSLConnection else None
                _, protocol = await loop.create_connection(
                    _Protocol,
                    options.get("host", "localhost"),
                    int(options.get("port", 6379)),
                    ssl=context,
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
            except BaseException:
                protocol._fail(StoreError("redis refused the connection's set-up"))
                raise
        self._drop()
        self._protocol = protocol
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
            protocol._fail(StoreError(f"redis did not answer within {self._timeout:g} s"))
            return
        self._arm()

    def _drop(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if self._protocol is not None and self._protocol.lost is None:
            self._protocol._fail(StoreError("redis connection replaced"))
        self._protocol = None

    async def aclose(self) -> None:
        """Close the connection (commands still in flight fail)."""
        self._drop()
