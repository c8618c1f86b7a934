"""What one rate-limit check costs: counted in this process, or in Redis (shared).

Times `take` and `exhausted` of the budgets the server uses (`schmier/limits.py`):
`LocalBudget` (the memory store's, a dict of token buckets) and `SharedBudget` (a Lua
token bucket in Redis, `schmier/store/scripts.py`), one call after another and then
`--concurrency` at a time, as many HTTP requests would. Prints microseconds per call
(wall clock, the median of `--rounds` rounds) and, for Redis, the client's CPU.

    python -m bench.limits --calls 5000 --rounds 5
    SCHMIER_BENCH_REDIS_URL=redis://127.0.0.1:6379/0 python -m bench.limits
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

from bench.kit.keys import delete_prefix_async, fresh_prefix
from schmier.limits import Budget, LocalBudget, SharedBudget
from schmier.store import RedisStore

REDIS_URL = os.environ.get("SCHMIER_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")


async def timed(budget: Budget, calls: int, concurrency: int, spend: bool) -> tuple[float, float]:
    """(wall µs, CPU µs) per call for `calls` calls, `concurrency` in flight."""
    addresses = [f"198.51.100.{k % 200}" for k in range(calls)]
    check = budget.take if spend else budget.exhausted
    started, cpu = time.perf_counter(), time.process_time()
    for start in range(0, calls, concurrency):
        await asyncio.gather(*(check(a) for a in addresses[start : start + concurrency]))
    wall = (time.perf_counter() - started) / calls * 1e6
    return wall, (time.process_time() - cpu) / calls * 1e6


async def main(args: argparse.Namespace) -> None:
    prefix = fresh_prefix("schmier-bench:limits", 8)
    store = RedisStore(REDIS_URL, prefix=prefix, ttl_seconds=60)
    budgets: dict[str, Budget] = {
        "memory (LocalBudget)": LocalBudget(10**9),
        "Redis (SharedBudget)": SharedBudget(store, "bench", 10**9),
    }
    try:
        await timed(budgets["Redis (SharedBudget)"], 200, 1, True)  # connect, load script
        print(f"{'budget':<22} {'call':<10} {'in flight':>9} {'µs/call':>9} {'CPU µs/call':>12}")
        for name, budget in budgets.items():
            for spend, call in ((True, "take"), (False, "exhausted")):
                for concurrency in (1, args.concurrency):
                    runs = [
                        await timed(budget, args.calls, concurrency, spend)
                        for _ in range(args.rounds)
                    ]
                    wall = statistics.median(r[0] for r in runs)
                    cpu = statistics.median(r[1] for r in runs)
                    print(f"{name:<22} {call:<10} {concurrency:>9} {wall:>9.1f} {cpu:>12.1f}")
    finally:
        await delete_prefix_async(store._client, prefix)
        await store.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=32)
    asyncio.run(main(parser.parse_args()))
