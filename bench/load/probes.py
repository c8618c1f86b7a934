"""Readings around the measured window: the machine, the processes, the servers' own
histograms, and the generator's loop. Each says whose time a slow answer was."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import orjson

from bench.kit.procstat import cpu_seconds, memory_kib
from bench.kit.stats import percentile


def cpu(pids: list[int]) -> float:
    """CPU seconds used so far by all the server processes."""
    return sum(cpu_seconds(pid) for pid in pids)


def rss(pids: list[int]) -> int:
    """Resident KiB of all the server processes now."""
    return sum(memory_kib(pid)["VmRSS"] for pid in pids)


def tcp_timeouts() -> int | None:
    """TcpExt TCPTimeouts of this machine (retransmission timeouts so far); None where
    /proc/net/netstat is not to be had."""
    try:
        lines = Path("/proc/net/netstat").read_text().splitlines()
    except OSError:
        return None
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if names.startswith("TcpExt:"):
            row = dict(zip(names.split()[1:], values.split()[1:], strict=False))
            return int(row["TCPTimeouts"]) if "TCPTimeouts" in row else None
    return None


def steal_seconds() -> float | None:
    """CPU time stolen from this (virtual) machine so far, all CPUs, from /proc/stat."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


async def start_pause_probes(seconds: float) -> list[tuple[asyncio.subprocess.Process, float]]:
    """`bench/load/pauses.py` on every CPU for `seconds`, each with when it started."""
    script = str(Path(__file__).resolve().parent / "pauses.py")
    started = []
    for cpu_index in sorted(os.sched_getaffinity(0) | set(range(os.cpu_count() or 1))):
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            script,
            "--cpu",
            str(cpu_index),
            "--seconds",
            str(seconds),
            stdout=subprocess.PIPE,
        )
        started.append((process, time.perf_counter()))
    return started


async def pause_probe_results(
    probes: list[tuple[asyncio.subprocess.Process, float]], t0: float
) -> dict[str, Any] | None:
    """The probes' pauses over 10 ms: how many, the longest, and the ten longest as
    [cpu, seconds into the window, ms]; None without probes."""
    if not probes:
        return None
    late: list[list[float]] = []
    worst = 0.0
    errors = []
    for process, started in probes:
        out, _ = await process.communicate()
        found = orjson.loads(out) if out.strip() else {"error": "no output"}
        if "error" in found:
            errors.append(str(found["error"]))
            continue
        worst = max(worst, float(found["max_ms"]))
        late += [[found["cpu"], round(at + started - t0, 2), ms] for at, ms in found["late"]]
    late.sort(key=lambda entry: -entry[2])
    return {
        "machine_pauses_over_10ms": len(late),
        "machine_pause_max_ms": round(worst, 1),
        "machine_pauses": late[:10],
        **({"machine_probe_errors": errors} if errors else {}),
    }


async def loop_lag(lags: list[float], period: float = 0.005) -> None:
    """How late the generator's own loop wakes up: a late generator reads the server's
    answers late, and that delay would count as the server's latency. A run whose
    generator lag is comparable to the latencies it reports measured the generator."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(period)
        lags.append(max(0.0, loop.time() - before - period))


def pct(seconds: list[float], percent: float) -> float | None:
    """The `percent` percentile (nearest rank) of seconds, in milliseconds; None for none."""
    if not seconds:
        return None
    return round(percentile(seconds, percent / 100) * 1000, 2)


# ------------------------------------------------------------------ the servers' /metrics

SERVER_HISTOGRAM = "schmier_action_latency_seconds"
"""Schmier's histogram of the time from a message reaching a room (its wait in the
room's queue included) to having sent every view it causes (Redis commit included)."""

FULL_COLLECTIONS = "schmier_gc_pause_seconds"
"""Schmier's histogram of its own garbage collections (schmier/collector.py), by
generation; generation 2 is the full collection, which walks everything the server
holds."""

FULL_COLLECTION_LINES = (
    FULL_COLLECTIONS + '_count{generation="2"} ',
    FULL_COLLECTIONS + '_sum{generation="2"} ',
)

LOOP_LAG_HISTOGRAM = "schmier_loop_lag_seconds"
"""Schmier's histogram of how late its event loop woke a task sleeping 10 ms
(schmier/looplag.py): a stall of the whole process, whatever caused it."""

STORE_OUTAGES = "schmier_store_outages_total"
"""Schmier's count of the times it found its store unreachable: every room pauses
then, so one in the window is a stall of every table by itself (a false one was: a
lease renewal round late in a burst of play)."""

Histograms = dict[str, dict[float, float]]

FROZEN = "schmier_gc_frozen_objects"
"""Schmier's count of the objects its collector froze: what a full collection walks."""

LONGEST_FULL = "schmier_gc_full_longest_seconds"
"""Schmier's longest full collection since it started."""


async def gauges(bases: list[str], names: tuple[str, ...]) -> dict[str, float]:
    """Unlabelled gauges of the servers' `/metrics` (summed; the largest for a
    `_longest_` one), by name; a name no server has is left out."""
    found: dict[str, float] = {}
    for base in bases:
        try:
            async with httpx.AsyncClient(base_url=base, timeout=10) as http:
                text = (await http.get("/metrics")).text
        except httpx.HTTPError:
            continue
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name in names:
                seen = float(value)
                old = found.get(name, 0.0)
                found[name] = max(old, seen) if "_longest_" in name else old + seen
    return found


async def server_histograms(bases: list[str]) -> Histograms:
    """The servers' own histograms of action latency and loop lag (cumulative counts
    by upper bound, summed over the instances), from `/metrics`; empty for a server
    without them (the baseline)."""
    found: Histograms = {}
    for base in bases:
        try:
            async with httpx.AsyncClient(base_url=base, timeout=10) as http:
                response = await http.get("/metrics")
        except httpx.HTTPError:
            return {}
        if response.status_code != 200:
            return {}
        for line in response.text.splitlines():
            if line.startswith(STORE_OUTAGES + " "):
                outages = found.setdefault(STORE_OUTAGES, {})
                outages[0.0] = outages.get(0.0, 0.0) + float(line.rsplit(" ", 1)[1])
            for slot, prefix in enumerate(FULL_COLLECTION_LINES):
                if line.startswith(prefix):
                    # The full collections: their count (0) and seconds (1).
                    buckets = found.setdefault(FULL_COLLECTIONS, {})
                    buckets[slot] = buckets.get(slot, 0.0) + float(line.rsplit(" ", 1)[1])
            for name in (SERVER_HISTOGRAM, LOOP_LAG_HISTOGRAM):
                if line.startswith(name + "_bucket{"):
                    bound = float(line.split('le="', 1)[1].split('"', 1)[0])
                    buckets = found.setdefault(name, {})
                    buckets[bound] = buckets.get(bound, 0.0) + float(line.rsplit(" ", 1)[1])
    return found


def server_side(before: Histograms, after: Histograms) -> dict[str, Any]:
    """Everything the servers' histograms say of the window: their messages, their loop
    lag and their full collections."""
    figures = _messages(before.get(SERVER_HISTOGRAM), after.get(SERVER_HISTOGRAM))
    figures.update(_loop_lag(before.get(LOOP_LAG_HISTOGRAM), after.get(LOOP_LAG_HISTOGRAM)))
    full0, full1 = before.get(FULL_COLLECTIONS), after.get(FULL_COLLECTIONS)
    if full0 is not None and full1 is not None:
        # A full collection walks every object the server holds (0.7 s at 1,000
        # tables): one in the window explains a stall of that size by itself.
        figures["server_full_collections"] = int(full1.get(0.0, 0) - full0.get(0.0, 0))
        figures["server_full_collection_ms"] = round(
            1000 * (full1.get(1.0, 0) - full0.get(1.0, 0)), 1
        )
    outages0, outages1 = before.get(STORE_OUTAGES), after.get(STORE_OUTAGES)
    if outages0 is not None and outages1 is not None:
        figures["server_store_outages"] = int(outages1.get(0.0, 0) - outages0.get(0.0, 0))
    return figures


def _messages(
    before: dict[float, float] | None, after: dict[float, float] | None
) -> dict[str, Any]:
    """The server's own view of the window: how many of the messages it handled took
    longer than 5, 20 and 100 ms, which separates the server's time from the time a
    frame spends in the kernel, the network stack and the generator's loop."""
    if not before or not after:
        return {}
    total = after[float("inf")] - before.get(float("inf"), 0.0)
    if total <= 0:
        return {}

    def over(bound: float) -> float:
        within = after.get(bound, 0.0) - before.get(bound, 0.0)
        return round(100 * (total - within) / total, 2)

    return {
        "server_messages": int(total),
        "server_over_5ms_pct": over(0.005),
        "server_over_25ms_pct": over(0.025),
        "server_over_100ms_pct": over(0.1),
    }


def _loop_lag(
    before: dict[float, float] | None, after: dict[float, float] | None
) -> dict[str, Any]:
    """The server's loop lag during the window, from its histogram read at both ends:
    the p99 and the maximum, each as the upper bound of the bucket it fell in (a
    histogram keeps no exact values), and how many samples lagged over 30 and 100 ms."""
    if not before or not after:
        return {}
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0.0) for b in bounds]
    total = counts[-1]
    if total <= 0:
        return {}

    def bound_of(rank: float) -> float:
        return next(b for b, c in zip(bounds, counts, strict=True) if c >= rank)

    def over(limit: float) -> int:
        return int(total - next(c for b, c in zip(bounds, counts, strict=True) if b >= limit))

    return {
        "server_lag_samples": int(total),
        "server_lag_p99_ms": round(1000 * bound_of(0.99 * total), 1),
        "server_lag_max_ms": round(1000 * bound_of(total), 1),
        "server_lag_over_30ms": over(0.03),
        "server_lag_over_100ms": over(0.1),
    }
