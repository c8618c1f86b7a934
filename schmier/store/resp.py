"""The commit connection's socket (`wire.py`): RESP commands out, replies in order.

One asyncio protocol per connection: the commands made in one loop turn go out in one
write at its end (and, when asked, one `WAIT` after them); each reply parsed by hiredis
settles the oldest waiting future. Error replies that mean "this Redis cannot serve
writes now" become `UnavailableReply` (a `StoreUnavailable`); `-READONLY` also drops the
connection, since everything after it would be refused the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from collections import deque
from typing import Any

import hiredis

from schmier.store.base import StoreError, StoreUnavailable

Address = tuple[str, int]

OUTAGE_REPLIES = (
    "READONLY",
    "LOADING",
    "MASTERDOWN",
    "NOREPLICAS",
    "TRYAGAIN",
    "CLUSTERDOWN",
    "UNBLOCKED",
)
"""Error replies that mean "not serving writes right now", not "bad command"."""


class ReplyError(StoreError):
    """Redis answered the command with an error (`-ERR ...`, `-NOSCRIPT ...`)."""


class UnavailableReply(ReplyError, StoreUnavailable):
    """An error reply of a Redis that cannot take the command now (`-READONLY`, ...)."""


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Mark a future's outcome as seen (its exception is the caller's other future's)."""
    if not future.cancelled():
        future.exception()


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
        self.wait_command: bytes | None = None
        """`WAIT n ms`, written after a turn's commands when one of them asked for it."""
        self._barrier: asyncio.Future[Any] | None = None
        self._scheduled = False

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
                self.fail(StoreError("redis sent an unexpected reply"))
                return
            future, _ = waiting.popleft()
            demoted = False
            if isinstance(reply, ReplyError) and str(reply).startswith(OUTAGE_REPLIES):
                demoted = str(reply).startswith("READONLY")
                reply = UnavailableReply(str(reply))
            if not future.done():
                if isinstance(reply, ReplyError):
                    future.set_exception(reply)
                else:
                    future.set_result(reply)
            if demoted:
                # A replica now (a failover demoted it): everything after this command
                # would be refused too. The next command connects to the new master.
                self.fail(StoreUnavailable("redis answered READONLY: no longer the master"))
                return

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(StoreUnavailable(f"redis connection lost: {exc or 'closed by the server'}"))

    def fail(self, error: StoreError) -> None:
        """End the connection with `error`: every command waiting on it gets it (also
        what the wire does to a connection that failed its set-up, timed out or was
        replaced)."""
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
            if self._barrier is not None and not self._barrier.done():
                self._barrier.set_exception(error)
            self._barrier = None

    def send(self, data: bytes) -> asyncio.Future[Any]:
        """Queue a command; every command made in this turn of the loop goes out in one
        write at its end (a write is a system call, and under load many rooms commit in
        the same turn: one write instead of one each)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if self._dead():
            # The connection died between the caller's check and now: nothing would
            # ever answer (its waiting list is already failed and empty).
            future.set_exception(StoreUnavailable(f"redis connection lost: {self.lost}"))
            return future
        self.waiting.append((future, time.monotonic()))
        self._schedule(loop)
        self.outgoing.append(data)
        return future

    def barrier(self) -> asyncio.Future[Any]:
        """The reply of the `WAIT` written after every command of this loop turn (one
        for all the commits of the turn: how many replicas have all of them)."""
        loop = asyncio.get_running_loop()
        if self._dead() or self.wait_command is None:
            future: asyncio.Future[Any] = loop.create_future()
            future.set_exception(StoreUnavailable(f"redis connection lost: {self.lost}"))
            return future
        if self._barrier is None:
            self._barrier = loop.create_future()
            self._schedule(loop)
        return self._barrier

    def _dead(self) -> bool:
        return self.lost is not None or self.transport is None or self.transport.is_closing()

    def usable(self) -> bool:
        """Whether commands may still go out here. A transport that is closing counts as
        lost already: its `connection_lost` runs only on a later turn of the loop (when,
        differs between Python versions), and a command sent meanwhile would fail."""
        return not self._dead()

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._scheduled = False
        outgoing, self.outgoing = self.outgoing, []
        barrier, self._barrier = self._barrier, None
        if barrier is not None and self.wait_command is not None:
            outgoing.append(self.wait_command)
            self.waiting.append((barrier, time.monotonic()))
        if self.lost is None and self.transport is not None and outgoing:
            self.transport.write(b"".join(outgoing))
