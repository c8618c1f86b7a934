"""A deadline on request headers, so that slow clients cannot hold connections open.

Why: uvicorn has no limit on how long a request's headers may take. Its keep-alive
timeout covers only the quiet time *between* requests, and is reset by every byte that
arrives, so a client sending one header line every few seconds ("slowloris") keeps a
connection, and the server's memory and file descriptor, for as long as it likes; five
hundred such clients stayed open for the whole 40 s they were watched (issue 42). ASGI
middleware cannot help: the application is only called once the headers are complete.

So the server's HTTP protocol is wrapped (uvicorn's `http` setting takes a protocol
class): `HeaderDeadline` hands every event to uvicorn's own protocol unchanged and
watches the same bytes with a second `httptools` parser of its own, which only notes
where each request's headers begin and end. A connection whose first request's headers
are not complete `seconds` (``SCHMIER_HEADER_TIMEOUT``) after it was opened, or a later
request's headers that many seconds after its first byte, is closed. A WebSocket's
handshake is such a request: once its headers are complete uvicorn hands the connection
to its WebSocket protocol (`transport.set_protocol`), the app accepts at once, and the
hello timeout (``SCHMIER_HELLO_TIMEOUT``) takes over. Nothing here reads or changes
what uvicorn does with the bytes: a parser error is left to uvicorn to answer. What
this relies on of uvicorn (`AutoHTTPProtocol`, a protocol class as the `http` option,
made with keyword options, and the upgrade's `set_protocol`) is pinned by
tests/test_uvicorn_contract.py (docs/dependencies.md).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httptools
from uvicorn.protocols.http.auto import AutoHTTPProtocol

log = logging.getLogger("schmier.slowclients")


class HeaderDeadline(asyncio.Protocol):
    """uvicorn's HTTP protocol with a deadline on each request's headers."""

    seconds: float = 10.0
    """The deadline (`with_deadline` makes a class with another)."""
    inner_class: type[asyncio.Protocol] = AutoHTTPProtocol
    timeouts = 0
    """Connections closed for slow headers since the process started (all classes)."""

    def __init__(self, **options: Any) -> None:
        self._inner = self.inner_class(**options)
        self._parser: httptools.HttpRequestParser | None = httptools.HttpRequestParser(self)
        self._timer: asyncio.TimerHandle | None = None
        self._transport: Any = None
        """The connection's transport (uvloop's are not `asyncio.Transport`s)."""

    # ------------------------------------------------------------ asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        self._arm()
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        parser = self._parser
        if parser is not None:
            try:
                parser.feed_data(data)
            except httptools.HttpParserUpgrade:
                self._stop()  # a WebSocket: its headers are complete
            except httptools.HttpParserError:
                self._stop()  # uvicorn answers 400 and closes
        self._inner.data_received(data)
        transport = self._transport
        if transport is not None and transport.get_protocol() is not self:
            self._stop()  # upgraded: this wrapper is out of the connection's way

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()

    # ------------------------------------------------------------ httptools callbacks

    def on_message_begin(self) -> None:
        """The first byte of a request: its headers' time starts (the first request's
        started when the connection was made)."""
        if self._timer is None:
            self._arm()

    def on_headers_complete(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # ------------------------------------------------------------ the deadline

    def _arm(self) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self.seconds, self._expired)

    def _stop(self) -> None:
        """No more watching: the connection ended or is no longer HTTP."""
        self._parser = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self) -> None:
        self._timer = None
        self._parser = None
        HeaderDeadline.timeouts += 1
        log.debug("a client's request headers took over %s s; connection closed", self.seconds)
        if self._transport is not None:
            self._transport.close()


def with_deadline(seconds: float) -> type[HeaderDeadline]:
    """The protocol class for uvicorn's `http` setting, with a deadline of `seconds`."""
    return type("HeaderDeadline", (HeaderDeadline,), {"seconds": seconds})
