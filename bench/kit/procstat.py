"""What a process costs, read from `/proc`: CPU seconds and resident memory.

The load generator measures the server from outside, through the kernel's own
accounting, so the same numbers come out for Schmier, for the baseline and for any other
server it is pointed at, and nothing in the server has to cooperate. Linux only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
from dataclasses import dataclass, field
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds `pid` has used so far (its threads included).

    Fields 14 and 15 of `/proc/<pid>/stat`; the command name (field 2) may hold spaces
    and parentheses, so the line is split after its last `)`.
    """
    raw = Path(f"/proc/{pid}/stat").read_text()
    fields = raw[raw.rindex(")") + 2 :].split()
    # fields[0] is field 3 (state), so utime (14) and stime (15) are at 11 and 12.
    return (int(fields[11]) + int(fields[12])) / _TICKS


def memory_kib(pid: int) -> dict[str, int]:
    """`VmRSS` (resident now) and `VmHWM` (the resident peak so far), in KiB."""
    found: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0])
    return found


def own_cpu_seconds() -> float:
    """This process's user + system CPU seconds (the generator's own cost)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Sampler:
    """Samples a process's RSS while a measurement runs, to catch its peak there.

    `VmHWM` is the peak over the whole life of the process (set-up included), so the
    peak inside the measured window is sampled separately, every `interval` seconds.
    """

    pid: int
    interval: float = 0.25
    peak_rss_kib: int = 0
    samples: list[int] = field(default_factory=list)
    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin sampling on the running loop."""
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            try:
                rss = memory_kib(self.pid).get("VmRSS", 0)
            except OSError:
                return
            self.samples.append(rss)
            self.peak_rss_kib = max(self.peak_rss_kib, rss)
            await asyncio.sleep(self.interval)

    async def stop(self) -> None:
        """Stop sampling (one last sample first)."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        with contextlib.suppress(OSError):
            self.peak_rss_kib = max(self.peak_rss_kib, memory_kib(self.pid).get("VmRSS", 0))
