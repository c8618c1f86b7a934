"""A stopping server does not wait for ever for the decisions its workers have in hand.

Why: an analysis's decision runs at `SCHED_IDLE` (schmier/rooms/pool.py), and on a host
whose cores other programs keep busy it got no CPU for minutes; the stop's "bot workers"
part waited for it (a test run with two busy processes on two cores saw a server's stop
take 220 s, in the pool without processes that most tests use). `Pool.close` gives the
decisions in hand a grace, then ends the worker processes, or, in a pool without
processes, goes on without its thread.
Here the decision in hand is a job that sleeps far longer than the grace and leaves a
file behind when it ends: after `close`, the job must have been stopped before it ended.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from schmier.rooms.pool import Pool, Priority
from tests.support.servers import eventually


def began(path: Path) -> Callable[[], Awaitable[bool]]:
    """Whether the worker has begun the job (for `eventually`)."""

    async def check() -> bool:
        return path.exists()

    return check


def long_decision(started: str, ended: str, seconds: float) -> dict[str, Any]:
    """A job of a worker: says it began, takes `seconds`, says it ended."""
    Path(started).touch()
    time.sleep(seconds)
    Path(ended).touch()
    return {}


@pytest.mark.parametrize("priority", [Priority.ANALYSIS, Priority.MOVE])
async def test_close_ends_workers_whose_decision_outlasts_the_grace(
    tmp_path: Path, priority: Priority
) -> None:
    started, ended = tmp_path / "started", tmp_path / "ended"
    pool = Pool(1)
    job = pool.call(long_decision, (str(started), str(ended), 120.0), priority)
    try:
        await eventually(began(started), timeout=60)
        await pool.close(grace=1.0)
        assert not ended.exists(), "the stop waited for the decision in hand"
        assert multiprocessing.active_children() == []
        with pytest.raises(Exception):  # noqa: B017 - whatever the broken pool says
            job.result(timeout=10)
    finally:
        for child in multiprocessing.active_children():
            child.kill()


async def test_close_lets_a_decision_within_the_grace_finish(tmp_path: Path) -> None:
    started, ended = tmp_path / "started", tmp_path / "ended"
    pool = Pool(1)
    job = pool.call(long_decision, (str(started), str(ended), 0.5), Priority.ANALYSIS)
    await eventually(began(started), timeout=60)
    await pool.close(grace=60.0)
    assert ended.exists()
    assert job.result(timeout=10) == {}


@pytest.mark.parametrize("priority", [Priority.ANALYSIS, Priority.MOVE])
async def test_close_without_processes_goes_on_past_the_grace(priority: Priority) -> None:
    """A pool without processes (`SCHMIER_BOT_WORKERS=0`, what most tests use) cannot
    end its thread: the stop goes on after the grace; the thread ends with its decision,
    whose answer still reaches its future."""
    begun, release = threading.Event(), threading.Event()

    def held_decision() -> dict[str, Any]:
        begun.set()
        release.wait(120)
        return {"released": release.is_set()}

    pool = Pool(0)
    job = pool.call(held_decision, (), priority)
    try:
        assert await asyncio.to_thread(begun.wait, 60)
        await pool.close(grace=0.5)
        assert not job.done(), "the stop waited for the decision in hand"
        with pytest.raises(RuntimeError):
            pool.call(held_decision, (), priority)
    finally:
        release.set()
    assert job.result(timeout=10) == {"released": True}
