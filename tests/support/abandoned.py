"""Callers that stop waiting, and what asyncio reports meanwhile: for the tests of
failures that nobody waits for any more, which must not reach the server's log as
asyncio's "exception was never retrieved" tracebacks."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
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


async def ended_unseen(
    task: asyncio.Future[Any] | None, release: asyncio.Event | None = None
) -> None:
    """Let `task` go on (`release`) and wait until it has ended without looking at how
    (`asyncio.wait` does not), so that asyncio reports a failure nobody looked at once
    the task is collected; the caller holds no reference to it."""
    assert task is not None, "nothing was under way"
    if release is not None:
        release.set()
    await asyncio.wait([task])


def held_fault(what: str) -> tuple[asyncio.Event, Callable[..., Awaitable[None]]]:
    """A stand-in for a step of the server that fails by a fault (`ValueError(what)`,
    not an outage) once the event is set, whatever it is called with."""
    go_on = asyncio.Event()

    async def broken(*_: Any) -> None:
        await go_on.wait()
        raise ValueError(what)

    return go_on, broken
