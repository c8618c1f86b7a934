"""The server's stop, part by part (schmier/shutdown.py): a part that keeps the stop
waiting is named in the log, one that fails does not keep the others from stopping, and
a process that outlives its SIGTERM writes where every thread waits."""

from __future__ import annotations

import asyncio
import logging
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from schmier import shutdown
from schmier.logs import LOGGER
from tests.support.servers import REPO

SOURCE = Path(__file__).read_text().splitlines()


class Events(logging.Handler):
    """The server's log events as (name, fields), and a callback at each."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seen: list[tuple[str, dict[str, object]]] = []
        self.on_event = lambda name, fields: None

    def emit(self, record: logging.LogRecord) -> None:
        fields = dict(getattr(record, "fields", {}))
        self.seen.append((record.getMessage(), fields))
        self.on_event(record.getMessage(), fields)


@pytest.fixture
def events() -> Iterator[Events]:
    handler = Events()
    level = LOGGER.level
    LOGGER.addHandler(handler)
    LOGGER.setLevel(logging.DEBUG)
    yield handler
    LOGGER.removeHandler(handler)
    LOGGER.setLevel(level)


async def test_a_part_that_keeps_the_stop_waiting_is_named_until_it_is_done(
    events: Events,
) -> None:
    """The archive's part waits for something that comes only once the log has named it
    (no clock is compared: the part cannot end before the warning)."""
    named = asyncio.Event()
    stopped: list[str] = []

    def seen(name: str, fields: dict[str, object]) -> None:
        if name == "server.stop_waiting" and fields["part"] == "archive":
            named.set()

    events.on_event = seen

    async def archive() -> None:
        await named.wait()
        stopped.append("archive")

    async def quick(name: str) -> None:
        stopped.append(name)

    parts: list[shutdown.Part] = [
        ("actors", lambda: quick("actors")),
        ("archive", archive),
        ("store", lambda: quick("store")),
    ]
    async with asyncio.timeout(60):  # without the warning the archive would never stop
        await shutdown.stop_in_order(parts, still_waiting=0.05)
    assert stopped == ["actors", "archive", "store"]
    names = [(name, fields.get("part")) for name, fields in events.seen]
    assert ("server.stop_waiting", "archive") in names
    assert names.index(("server.stop_waiting", "archive")) < names.index(
        ("server.stop_slow", "archive")
    )
    # Each part is begun in order (at DEBUG); the quick ones are not named otherwise.
    begun = [part for name, part in names if name == "server.stopping"]
    assert begun == ["actors", "archive", "store"]
    assert {part for name, part in names if name != "server.stopping"} == {"archive"}
    # The first warning says where each task waits: the part in `archive`, at the
    # line that waits for the event, and that inside asyncio's Event.wait.
    waiting = [fields for name, fields in events.seen if name == "server.stop_waiting"]
    where = str(waiting[0]["tasks"]).splitlines()
    line = next(n for n, text in enumerate(SOURCE, 1) if "await named.wait()" in text)
    assert any(
        f"tests/test_shutdown.py:{line} archive > asyncio/locks.py:" in w and " wait > " in w
        for w in where
    ), where
    assert all("tasks" not in fields for fields in waiting[1:])


async def test_a_part_that_fails_is_logged_and_the_next_ones_still_stop(
    events: Events,
) -> None:
    stopped: list[str] = []

    async def broken() -> None:
        raise ConnectionError("the database went away")

    async def store() -> None:
        stopped.append("store")

    await shutdown.stop_in_order([("database", broken), ("store", store)])
    assert stopped == ["store"]
    assert ("server.stop_failed", {"part": "database"}) in events.seen


async def test_a_stop_cancelled_cancels_the_part_it_waits_for() -> None:
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    stop = asyncio.create_task(shutdown.stop_in_order([("actors", forever)]))
    await started.wait()
    stop.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stop
    assert cancelled.is_set()


def run_script(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_process_that_outlives_its_stop_writes_every_threads_stack() -> None:
    """The server's own entry point, asked to stop (as uvicorn's signal handler does),
    while its main thread is blocked in a function of its own: the dump names that
    function, and the process is not ended by it."""
    done = run_script(
        f"""
        import signal, time
        from schmier import shutdown
        from schmier.__main__ import server
        from schmier.config import Settings

        shutdown.STACKS_AFTER = 0.2
        stopping = server(Settings(redis_url=None))
        stopping.handle_exit({int(signal.SIGTERM)}, None)
        assert stopping.should_exit

        def waits_for_a_part_that_never_stops():
            time.sleep(3)

        waits_for_a_part_that_never_stops()
        print("still here")
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "still here"
    assert "most recent call first" in done.stderr
    assert "waits_for_a_part_that_never_stops" in done.stderr


def test_a_process_that_stops_in_time_writes_nothing() -> None:
    done = run_script(
        f"""
        from schmier import shutdown
        from schmier.__main__ import server
        from schmier.config import Settings

        shutdown.STACKS_AFTER = 2
        server(Settings(redis_url=None)).handle_exit({int(signal.SIGTERM)}, None)
        """
    )
    assert done.returncode == 0, done.stderr
    assert "most recent call first" not in done.stderr
