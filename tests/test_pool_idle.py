"""The worker pool runs analyses at `SCHED_IDLE` and everything else as before.

Why it matters (schmier/rooms/pool.py, `run_idle`): an analysis keeps a worker busy for
seconds; at niceness 10 alone it still delayed the server's event loop by a scheduler
slice on the core they shared, which reached the players' p99. The policy is read back
from inside the job, in a real worker process and in the thread the pool uses without
processes; a pool that ran analyses like moves fails here.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from schmier.rooms.pool import Pool, Priority


@pytest.mark.parametrize("workers", [1, 0], ids=["process", "thread"])
async def test_analyses_run_at_sched_idle_and_moves_and_hints_do_not(workers: int) -> None:
    pool = Pool(workers, nice=10)
    try:
        policies = {}
        for priority in (Priority.MOVE, Priority.HINT, Priority.ANALYSIS, Priority.MOVE):
            future = pool.call(os.sched_getscheduler, (0,), priority)
            policies.setdefault(priority, []).append(await asyncio.wrap_future(future))
        assert policies[Priority.ANALYSIS] == [os.SCHED_IDLE]
        # The worker's own thread is not lowered by the analysis it ran before.
        assert policies[Priority.MOVE] == [os.SCHED_OTHER, os.SCHED_OTHER]
        assert policies[Priority.HINT] == [os.SCHED_OTHER]
    finally:
        await pool.close()
