"""The server's stop, part by part, in order: a part that keeps it waiting is named.

Why: a stop (SIGTERM from `docker compose down`, a rolling upgrade) hands every room
of the instance over to the others, and everything after uvicorn has closed the
sockets is the server's own parts stopping one after another (the actors, the
followers, the bot workers, the archive, the cluster's bus, the store). If one of them
waits for something that never comes, the process outlives its SIGTERM until it is
killed, its leases expire instead of being handed over, and nothing says which part
it was. So each part is awaited by name: one still running after `STILL_WAITING`
seconds is logged (`server.stop_waiting`, a warning, again every `STILL_WAITING`
seconds; the first one also says where every task of the event loop waits, as the
chain of its awaits), one that took longer than that is logged once it is done
(`server.stop_slow`), and one that fails is logged with its traceback
(`server.stop_failed`) without keeping the parts after it from stopping.

A part that blocks the event loop itself (a call that never returns) stops those
warnings too; for that, `dump_stacks_later` (armed by `python -m schmier` when the
stop begins) writes every thread's stack to stderr if the process is still there
`STACKS_AFTER` seconds later.
"""

from __future__ import annotations

import asyncio
import faulthandler
import logging
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from schmier.logs import event, failure

STILL_WAITING = 5.0
"""Seconds a part may take before the log names it (and again every as many seconds)."""

STACKS_AFTER = 25.0
"""Seconds after the stop began (uvicorn gives the sockets 10 of them) after which a
process still running writes every thread's stack to stderr (`dump_stacks_later`):
before Docker kills it (the compose files' `stop_grace_period` is 30 s)."""

Part = tuple[str, Callable[[], Awaitable[object]]]
"""A part of the server to stop: its name in the log, and how to stop it."""


async def stop_in_order(parts: Sequence[Part], still_waiting: float = STILL_WAITING) -> None:
    """Stop each part in turn (see the module's docstring); never raises but for a
    cancellation."""
    for name, stop in parts:
        event("server.stopping", logging.DEBUG, part=name)
        started = time.monotonic()
        task = asyncio.ensure_future(stop())
        first = True
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=still_waiting)
                if done:
                    break
                waited = round(time.monotonic() - started, 1)
                where = {"tasks": tasks_waiting()} if first else {}
                event("server.stop_waiting", logging.WARNING, part=name, seconds=waited, **where)
                first = False
            task.result()
        except asyncio.CancelledError:
            task.cancel()
            raise
        except Exception:
            failure("server.stop_failed", part=name)
        took = time.monotonic() - started
        if took > still_waiting:
            event("server.stop_slow", logging.WARNING, part=name, seconds=round(took, 1))


async def finish_or_cut(task: asyncio.Task[Any], seconds: float, cut: str) -> None:
    """Give `task` (already told to stop) `seconds` to finish on its own, then cancel it
    and log `cut` (a warning).

    Why not cancel at once: a database call cut off by a cancellation can leave its
    connection in a state nothing cleans up (with SQLite and aiosqlite: the file's write
    lock held, the connection's close abandoned), so that the task, or the stop waiting
    for it, never ends. A call in hand is let finish; cancelling is the last resort."""
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        event(cut, logging.WARNING, seconds=seconds)
        task.cancel()
        await asyncio.wait({task}, timeout=1)


def tasks_waiting() -> str:
    """Where each task of the running loop waits: its name, then each coroutine it
    awaits in turn (`file:line function`, the file as `package/module.py`), down to
    what the innermost waits for; one task per line."""
    lines = []
    for task in sorted(asyncio.all_tasks(), key=lambda t: t.get_name()):
        steps: list[str] = []
        awaited: Any = task.get_coro()
        while awaited is not None:
            frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "ag_frame", None)
            if frame is None:
                steps.append(type(awaited).__name__)  # a future: no data of its own
                break
            path = "/".join(frame.f_code.co_filename.split("/")[-2:])
            steps.append(f"{path}:{frame.f_lineno} {frame.f_code.co_name}")
            awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "ag_await", None)
        lines.append(f"{task.get_name()}: {' > '.join(steps)}")
    return "\n".join(lines)


def dump_stacks_later(seconds: float | None = None) -> None:
    """Write every thread's stack to stderr in `seconds` (`STACKS_AFTER`) if the process
    still runs then (a C thread of the interpreter's does it, so a blocked event loop
    cannot stop it). Armed once, when the stop begins; the process's exit ends it."""
    after = STACKS_AFTER if seconds is None else seconds
    faulthandler.dump_traceback_later(after, repeat=False, file=sys.stderr, exit=False)
