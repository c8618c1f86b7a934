"""Whether the store answers, as this process sees it: one warning when it goes, one
when it is back, and everybody who must react told once each time.

Every Redis call of the store reports a failure that means "unreachable" here (see
`RedisStore`); the first one while the store was up marks it down, logs a single
`store.unavailable` warning and tells the listeners (the rooms pause, followers tell
their sockets). From then on a probe pings the store twice a second; the first answer
marks it up again, logs a single `store.available` warning with the outage's length
and tells the listeners again. Nothing else logs a store outage, so a Redis that is
gone for a minute costs two log lines, not a traceback per retry.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Protocol

from schmier.logs import event, failure

PROBE_SECONDS = 0.5
"""How often a store that is down is pinged."""


class Listener(Protocol):
    """Something that must react when the store goes or comes back (never blocks)."""

    def store_changed(self, up: bool) -> None: ...


def describe(error: BaseException) -> str:
    """A short, secret-free reason for the log (the exception's class and first line)."""
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}"[:200]


class Wait:
    """A task waiting on the store that its going down must interrupt."""

    __slots__ = ("active", "interrupted", "task")

    def __init__(self, task: asyncio.Task[Any] | None) -> None:
        self.task = task
        self.active = True
        """Still waiting: a cancellation arriving later would hit something else."""
        self.interrupted = False

    def interrupt(self) -> None:
        """Cancel the task's wait, if it still waits (on the task's own loop)."""
        if self.active and self.task is not None and not self.task.done():
            self.interrupted = True
            self.task.cancel()


class StoreHealth:
    """The up/down state of one store, shared by everything in this process using it."""

    def __init__(self, ping: Callable[[], Awaitable[bool]], probe_seconds: float = PROBE_SECONDS):
        self._ping = ping
        self._probe_seconds = probe_seconds
        self.up = True
        self.down_since: float | None = None
        self.outages = 0
        """How many times the store went down (the `schmier_store_outages_total` metric)."""
        self._listeners: list[Listener] = []
        self._probe: asyncio.Task[None] | None = None
        self._waits: set[Wait] = set()

    def listen(self, listener: Listener) -> None:
        """Call `listener.store_changed(up)` at every change from now on."""
        self._listeners.append(listener)

    def unlisten(self, listener: Listener) -> None:
        with contextlib.suppress(ValueError):
            self._listeners.remove(listener)

    @contextlib.contextmanager
    def interrupting(self) -> Iterator[Wait]:
        """Within it, the calling task is cancelled when the store is marked down by
        anybody else (`Wait.interrupted` then says so; see `while_up` in
        `schmier/rooms/outage.py`). A cancellation, not a second task racing the
        call: a task of its own for every commit cost two more turns of the event loop
        before each answer, which at a thousand tables moving in step was most of the
        answers' wait."""
        wait = Wait(asyncio.current_task())
        self._waits.add(wait)
        try:
            yield wait
        finally:
            wait.active = False
            self._waits.discard(wait)

    def failed(self, what: str, error: BaseException) -> None:
        """A call found the store unreachable; the first such call marks it down."""
        if not self.up:
            return
        self.up = False
        self.down_since = time.monotonic()
        self.outages += 1
        self._interrupt()
        event("store.unavailable", logging.WARNING, operation=what, error=describe(error))
        self._tell(False)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a synchronous caller): the next call from a loop probes
        if self._probe is None or self._probe.done():
            self._probe = loop.create_task(self._watch(), name="store:probe")

    async def _watch(self) -> None:
        while not self.up:
            await asyncio.sleep(self._probe_seconds)
            if await self._ping():
                self._back()

    def _back(self) -> None:
        if self.up:
            return
        down = time.monotonic() - (self.down_since or time.monotonic())
        self.up = True
        self.down_since = None
        event("store.available", logging.WARNING, down_seconds=round(down, 3))
        self._tell(True)

    def _interrupt(self) -> None:
        """Cancel every task waiting `interrupting`, but the one that found the store
        down: its own call is failing already, and a cancellation it would meet at its
        next await instead of in the call is not the store's. A task of another
        thread's loop is cancelled through that loop."""
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None  # a synchronous caller
        current = asyncio.current_task(loop) if loop is not None else None
        for wait in self._waits:
            task = wait.task
            if task is None or task is current:
                continue
            if task.get_loop() is loop:
                wait.interrupt()
            else:
                with contextlib.suppress(RuntimeError):  # that loop is closed already
                    task.get_loop().call_soon_threadsafe(wait.interrupt)
        self._waits.clear()

    def _tell(self, up: bool) -> None:
        for listener in list(self._listeners):
            try:
                listener.store_changed(up)
            except Exception:  # a listener's bug must not hide the others' news
                failure("store.listener_failed")

    async def aclose(self) -> None:
        """Stop probing (the store is being closed)."""
        if self._probe is not None:
            self._probe.cancel()
            await asyncio.gather(self._probe, return_exceptions=True)
            self._probe = None
