"""Pauses of the machine itself, seen by a probe per CPU at real-time priority.

    python bench/load/pauses.py --cpu 1 --seconds 600 [--threshold-ms 10]

Why: in a ten-minute soak at 1,000 rooms the server's loop and the load generator, each
on its own core, were once late together by about 100 ms, with nothing in the server's
log to say why. A process that sleeps a millisecond at a time under `SCHED_FIFO` runs
the moment it wakes, ahead of both of them, so how late it wakes is not their doing:
only the kernel (interrupts, soft interrupts) and the hypervisor (a vCPU not running)
can hold it up. `python -m bench.load --machine-probe` runs one per CPU over its window and
reports how often and when each was late by more than the threshold. Needs the right
to real-time priority (root, or `CAP_SYS_NICE`); without it the probe says so and
stops. It prints one JSON object on standard output when done.
"""

from __future__ import annotations

import argparse
import json
import os
import time

PERIOD = 0.001
"""How long the probe sleeps at a time: 1,000 wake-ups a second, a few microseconds
each, next to nothing of the CPU it shares."""


def probe(cpu: int, seconds: float, threshold: float) -> dict[str, object]:
    """Sleep PERIOD at a time on `cpu` for `seconds`; every wake-up later than
    `threshold` as (seconds since the start, how late in ms)."""
    os.sched_setaffinity(0, {cpu})
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    start = before = time.perf_counter()
    end = start + seconds
    late: list[list[float]] = []
    worst = 0.0
    wakeups = 0
    while before < end:
        time.sleep(PERIOD)
        now = time.perf_counter()
        wakeups += 1
        overshoot = now - before - PERIOD
        worst = max(worst, overshoot)
        if overshoot > threshold:
            late.append([round(before - start, 3), round(overshoot * 1000, 1)])
        before = now
    return {"cpu": cpu, "wakeups": wakeups, "max_ms": round(worst * 1000, 2), "late": late}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--cpu", type=int, required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--threshold-ms", type=float, default=10.0)
    args = parser.parse_args()
    try:
        result = probe(args.cpu, args.seconds, args.threshold_ms / 1000)
    except PermissionError:
        result = {"cpu": args.cpu, "error": "no right to real-time priority"}
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
