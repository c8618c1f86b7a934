"""Callers that stop waiting, and what asyncio reports meanwhile: for the tests of
failures that nobody waits for any more, which must not reach the server's log as
asyncio's "exception was never retrieved" tracebacks."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Iterator
from typing import Any


@contextlib.contextmanager
def reports() -> Iterator[list[dict[str, Any]]]:
    """What the running loop's exception handler is given meanwhile (never-retrieved
    exceptions among them), instead of its log lines."""
    loop = asyncio.get_running_loop()
    found: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: found.append(context))
    try:
        yield found
    finally:
        loop.set_exception_handler(None)


async def abandon(awaitable: Awaitable[Any]) -> None:
    """Await `awaitable` in a caller of its own, and cancel that caller once it waits
    (as a socket that goes away cancels its request)."""
    caller = asyncio.ensure_future(awaitable)
    await asyncio.sleep(0)
    caller.cancel()
    await asyncio.gather(caller, return_exceptions=True)
    assert caller.cancelled(), "the caller finished before it could stop waiting"
