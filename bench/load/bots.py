"""Server bots beside the simulated humans (`--bots K --bot-level L`): what they cost
and how late they play.

Each room's lowest seat adds K bots of level L to the highest seats before it starts,
and watches its table (`BotWatch`): it reads every `state` in full and times each bot
move, from the state that gave a bot seat the turn to the next change, less the
server's `SCHMIER_BOT_DELAY` (`--bot-delay`; a spawned server gets it). So the delay is
what the table waited beyond the bot's deliberate pause: the workers' queue, the
search, the room and the network. A move counts when its turn began in the window and
it came before the window closed: after that the generator is busy with its closing
work (for seconds after a long window), and a move it reads then would count the
generator's own pause as the server's (a maximum of 3.1 s in a 15-minute run: all
five latest moves came at one instant just after the window). A move whose turn began
in the window's last second or so is thus left out whatever it took: under 2% of the
moves in a window of 45 s, 0.1% in a quarter of an hour. The slowest few are kept with
when their turn began and in which phase, so that a rare late move can be set beside
what else happened at that moment.

From the server, read at both ends of the window (`/metrics`, `schmier/rooms/budget.py`):
the search decisions by budget (the share made at full strength) and the workers' busy
seconds; sampled during it, the moves waiting for a worker; from `/proc`, the CPU of
the server's child processes (its bot workers) per search decision.
"""

from __future__ import annotations

import asyncio
import heapq
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.kit.procstat import cpu_seconds
from bench.load import probes

DECISIONS = "schmier_bot_decisions_total{budget="
BUSY = "schmier_bot_busy_seconds_total "
QUEUE = 'schmier_bot_queue_depth{kind="move"} '


SLOWEST = 5
"""How many of the window's latest bot moves are reported, with when and where."""


@dataclass
class BotDelays:
    """The bot moves timed by the watchers, in seconds beyond the bot delay."""

    delays: list[float] = field(default_factory=list)
    slowest: list[tuple[float, float, str]] = field(default_factory=list)
    """The latest moves as (delay, their turn's start in seconds into the window, the
    phase), a min-heap of `SLOWEST`."""

    def add(self, delay: float, began: float, phase: str) -> None:
        self.delays.append(delay)
        entry = (delay, began, phase)
        if len(self.slowest) < SLOWEST:
            heapq.heappush(self.slowest, entry)
        elif entry > self.slowest[0]:
            heapq.heapreplace(self.slowest, entry)


class BotWatch:
    """One table's bot moves as its lowest seat sees them."""

    def __init__(self, bot_delay: float, sink: BotDelays) -> None:
        self.bot_delay = bot_delay
        self.sink = sink
        self.seq = -1
        """The state in which a bot's turn began (-1: none awaited)."""
        self.since = 0.0
        self.phase = ""
        self.window: tuple[float, float] = (float("inf"), float("inf"))

    def state(self, seq: int, view: dict[str, Any], now: float) -> None:
        """A `state` of the table came at `now`."""
        if self.seq >= 0 and seq > self.seq:
            start, end = self.window
            if start <= self.since < end and now < end:
                self.sink.add(now - self.since - self.bot_delay, self.since - start, self.phase)
            self.seq = -1
        turn = view.get("turn") or []
        if self.seq < 0 and len(turn) == 1 and view["phase"] not in ("lobby", "game_over"):
            seats = view.get("seats") or []
            if turn[0] < len(seats) and seats[turn[0]].get("kind") == "bot":
                self.seq, self.since, self.phase = seq, now, str(view["phase"])


def children(pid: int) -> list[int]:
    """The child processes of `pid` (its bot workers, and multiprocessing's tracker)."""
    found: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        return []
    return found


def workers_cpu(pids: list[int]) -> float:
    """CPU seconds used so far by the child processes of the servers `pids`."""
    total = 0.0
    for pid in pids:
        for child in children(pid):
            try:
                total += cpu_seconds(child)
            except OSError:
                continue
    return total


@dataclass
class ServerBots:
    """The servers' bot figures at one moment."""

    decisions: dict[str, float] = field(default_factory=dict)
    busy: float = 0.0
    queue: float = 0.0
    workers_cpu: float = 0.0


async def read(bases: list[str], pids: list[int]) -> ServerBots:
    """The servers' bot counters now, summed over the instances."""
    found = ServerBots(workers_cpu=workers_cpu(pids))
    for base in bases:
        try:
            async with httpx.AsyncClient(base_url=base, timeout=10) as http:
                text = (await http.get("/metrics")).text
        except httpx.HTTPError:
            continue
        for line in text.splitlines():
            if line.startswith(DECISIONS):
                name = line[len(DECISIONS) :].split('"')[1]
                value = float(line.rsplit(" ", 1)[1])
                found.decisions[name] = found.decisions.get(name, 0.0) + value
            elif line.startswith(BUSY):
                found.busy += float(line.rsplit(" ", 1)[1])
            elif line.startswith(QUEUE):
                found.queue += float(line.rsplit(" ", 1)[1])
    return found


async def sample_queue(bases: list[str], depths: list[float], period: float = 0.5) -> None:
    """The moves waiting for a worker, every `period` seconds (until cancelled)."""
    while True:
        depths.append((await read(bases, [])).queue)
        await asyncio.sleep(period)


def figures(
    moves: BotDelays,
    before: ServerBots,
    after: ServerBots,
    depths: list[float],
    elapsed: float,
) -> dict[str, Any]:
    """The window's bot figures (`elapsed`: its seconds)."""
    delays = sorted(moves.delays)
    decided = {
        k: after.decisions.get(k, 0.0) - before.decisions.get(k, 0.0) for k in after.decisions
    }
    searches = sum(decided.values())
    cpu = after.workers_cpu - before.workers_cpu
    return {
        "bot_moves": len(delays),
        "bot_delay_p50_ms": probes.pct(delays, 50),
        "bot_delay_p99_ms": probes.pct(delays, 99),
        "bot_delay_max_ms": probes.pct(delays, 100),
        # (delay ms, seconds into the window the turn began, phase), latest first.
        "bot_slowest": [
            [round(delay * 1000, 2), round(began, 2), phase]
            for delay, began, phase in sorted(moves.slowest, reverse=True)
        ],
        "bot_searches": int(searches),
        "bot_full_strength_pct": round(100 * decided.get("full", 0) / searches, 1)
        if searches
        else None,
        "bot_budgets": {k: int(v) for k, v in decided.items() if v},
        "bot_cpu_ms_per_search": round(1000 * cpu / searches, 1) if searches else None,
        "bot_busy_ms_per_search": round(1000 * (after.busy - before.busy) / searches, 1)
        if searches
        else None,
        "bot_workers_cpu_pct": round(100 * cpu / elapsed, 1) if elapsed > 0 else None,
        "bot_queue_mean": round(sum(depths) / len(depths), 2) if depths else None,
        "bot_queue_max": int(max(depths)) if depths else None,
    }
