"""What one load run is asked to do (`Options`) and what its clients count (`Tally`)."""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass, field

SEATS = {"schmier6": 6, "schmier5": 5, "wisconsin4": 4}

SLOW_MS = 20
"""Actions slower than this (the p99 asked for at 1,000 tables) are counted by second."""
SLOWEST = 5
"""How many of the window's slowest actions are reported, with when they were sent."""


@dataclass
class Options:
    urls: list[str]
    """One or more instances (sharing one Redis); room i lives on urls[i % len(urls)]."""
    rooms: int
    variant: str
    think: float
    jitter: float
    duration: float
    warmup: float
    target: int
    seed: int
    server_pids: list[int]
    client_deflate: bool
    storm: bool
    setup_concurrency: int
    idle: bool = False
    bot_rooms: int = 0
    machine_probe: bool = False
    bots: int = 0
    """Server bots at each table, in its highest seats (`--bots`)."""
    bot_level: str = "strong"
    bot_delay: float = 0.0
    """The server's SCHMIER_BOT_DELAY, subtracted from each bot move's delay."""
    open_rate: float = 0.0
    """Tables opened per second, each starting once full (0: all together)."""
    in_step: bool = False
    """Every table set up first, then all started within one second."""
    think_dist: str = "uniform"
    """`uniform` in T(1±jitter), `fixed` T, or `exponential` of mean T."""


@dataclass
class Tally:
    """Everything the clients count; only what happens in the window is reported."""

    measuring: bool = False
    window_start: float = float("inf")
    """perf_counter() when the window opened; earlier actions are not measured."""
    window_end: float = float("inf")
    """When it closed; actions sent before it are still counted when answered a little
    later (the slowest answers come last, and would otherwise be the ones missed)."""
    latencies: list[float] = field(default_factory=list)
    slowest: list[tuple[float, float]] = field(default_factory=list)
    """The slowest actions of the window as (latency, sent at), a min-heap of SLOWEST:
    when in the window they happened says whether they came together (one stall) or
    apart, and lines them up with the server's log."""
    slow_seconds: Counter[int] = field(default_factory=Counter)
    """Actions over `SLOW_MS`, by the second of the window they were sent in: whether a
    tail is one burst or spread over the window."""
    slow_kinds: Counter[str] = field(default_factory=Counter)
    """Actions over `SLOW_MS` by what they were (`phase:type` of the action sent): which
    moment of a hand a burst belongs to."""
    kinds: Counter[str] = field(default_factory=Counter)
    """Every action of the window by the same key, to compare the slow ones with."""
    actions: int = 0
    frames: int = 0
    bytes: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)
    setup_failures: Counter[str] = field(default_factory=Counter)
    bot_states: int = 0
    """States the watchers of the bots-only rooms received in the window (one per
    change: the bots' moves, deals)."""
    bot_states_all: int = 0
    """The same since the bots-only rooms started (warm-up included)."""
    bot_games: int = 0
    bot_errors: Counter[str] = field(default_factory=Counter)

    def answered(self, sent: float, now: float, kind: str = "") -> None:
        """An action sent in the window (of `kind`, `phase:type`) was answered at `now`."""
        took = now - sent
        self.latencies.append(took)
        self.actions += 1
        self.kinds[kind] += 1
        if took > SLOW_MS / 1000:
            self.slow_seconds[int(sent - self.window_start)] += 1
            self.slow_kinds[kind] += 1
        if len(self.slowest) < SLOWEST:
            heapq.heappush(self.slowest, (took, sent))
        elif took > self.slowest[0][0]:
            heapq.heapreplace(self.slowest, (took, sent))
