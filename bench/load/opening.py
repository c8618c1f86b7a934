"""How the tables of a run open (`Tables.setup`): together, paced, or started in step.

- **together** (the default): every room is created and joined, then every seat
  connects, seat by seat, so that a room's lowest seat (which starts the game) connects
  last and each table starts once all its players are there, after a think time.
- **paced** (`--open-rate N`): table i is created, joined and connected i/N seconds
  after the first, and starts as soon as it is full: tables open as players arrive on a
  busy evening, each playing once ready.
- **in step** (`--in-step`): every table is set up first and none starts; then every
  table's lowest seat sends `start` within one second (table i at i/R s): what a restart,
  a deploy or a failover does to the tables of an instance, which all resume at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import Any

import httpx

from bench.kit import rooms
from bench.load import probes
from bench.load.bots import BotDelays, BotWatch
from bench.load.players import BotRoom, Crowd, Player
from bench.load.tally import SEATS, Options

IN_STEP_SECONDS = 1.0
"""With `--in-step`, every table starts within this many seconds."""


class Tables(Crowd):
    """The run's tables and their players, and how they open."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.players: list[Player] = []
        self.idle_rss: dict[str, int] = {}
        self.idle_objects: dict[str, float] = {}
        """The servers' frozen objects (`--idle`) once the rooms are joined."""
        self.bot_tasks: list[asyncio.Task[None]] = []
        self.bot_http: httpx.AsyncClient | None = None
        self.bot_delays = BotDelays()
        self.last_start = 0.0
        """perf_counter() when the last table was told to start (paced and in step)."""

    async def _seat_room(self, http: httpx.AsyncClient, index: int) -> list[Player]:
        o = self.options
        code = await rooms.create_room(http, o.variant, self.rules())
        self.home[code] = index % len(self.bases)
        players = []
        for seat in range(SEATS[o.variant] - o.bots):
            taken, token = await rooms.join(http, code, f"P{index}-{seat}", seat)
            rng = random.Random(f"{o.seed}/{index}/{seat}")
            player = Player(self, code, taken, token, rng)
            player.may_start = not o.in_step
            players.append(player)
        if o.bots:
            players[0].watch = BotWatch(o.bot_delay, self.bot_delays)
        return players

    async def _connect(self, player: Player) -> None:
        try:
            await player.connect()
        except Exception as exc:
            # Counted and reported: a server that cannot seat everybody has failed the
            # run, but the figures of the others still say how.
            self.tally.setup_failures[type(exc).__name__] += 1

    async def setup(self) -> float:
        """Create, join and connect every room (and start them, in step); the seconds
        it took."""
        o = self.options
        started = time.perf_counter()
        gate = asyncio.Semaphore(o.setup_concurrency)
        limits = httpx.Limits(max_connections=o.setup_concurrency)
        async with contextlib.AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(
                    httpx.AsyncClient(base_url=base, timeout=60, limits=limits)
                )
                for base in self.bases
            ]
            if o.open_rate > 0:
                await self._paced(clients, gate)
            else:
                await self._together(clients, gate)
        if o.in_step:
            await self._start_in_step()
        self.start_bot_rooms()
        return time.perf_counter() - started

    async def _together(self, clients: list[httpx.AsyncClient], gate: asyncio.Semaphore) -> None:
        o = self.options

        async def one(index: int) -> list[Player]:
            async with gate:
                return await self._seat_room(clients[index % len(clients)], index)

        seated = await asyncio.gather(*(one(i) for i in range(o.rooms)))
        self.players = [p for room in seated for p in room]
        if o.idle and o.server_pids:
            await asyncio.sleep(1.0)
            self.idle_rss["rooms"] = probes.rss(o.server_pids)
            frozen = await probes.gauges(self.bases, (probes.FROZEN,))
            self.idle_objects["rooms"] = frozen.get(probes.FROZEN, 0.0)
        # Seat by seat, so a room's lowest seat (which starts the game) connects last
        # and every room starts only once all its players are there.
        order = sorted(self.players, key=lambda p: -p.seat)

        async def connect(player: Player) -> None:
            async with gate:
                await self._connect(player)

        await asyncio.gather(*(connect(p) for p in order))

    async def _paced(self, clients: list[httpx.AsyncClient], gate: asyncio.Semaphore) -> None:
        """Table i opens i / `open_rate` seconds after the first (and starts when full)."""
        o = self.options
        loop = asyncio.get_running_loop()
        t0 = loop.time()

        async def one(index: int) -> list[Player]:
            await asyncio.sleep(max(0.0, t0 + index / o.open_rate - loop.time()))
            async with gate:
                players = await self._seat_room(clients[index % len(clients)], index)
            for player in sorted(players, key=lambda p: -p.seat):
                await self._connect(player)
            self.last_start = time.perf_counter()
            return players

        seated = await asyncio.gather(*(one(i) for i in range(o.rooms)))
        self.players = [p for room in seated for p in room]

    async def _start_in_step(self) -> None:
        """Every table's lowest seat sends `start`, all within `IN_STEP_SECONDS`."""
        lowest = [p for p in self.players if p.seat == 0]
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        for i, player in enumerate(lowest):
            await asyncio.sleep(max(0.0, t0 + i * IN_STEP_SECONDS / len(lowest) - loop.time()))
            player.may_start = True
            await player.consider()
        self.last_start = time.perf_counter()

    def start_bot_rooms(self) -> None:
        """Start the bots-only rooms (after the players are seated, before the warm-up)."""
        if not self.options.bot_rooms:
            return
        self.bot_http = httpx.AsyncClient(base_url=self.bases[0], timeout=60)
        loop = asyncio.get_running_loop()
        self.bot_tasks = [
            loop.create_task(BotRoom(self, i).play(self.bot_http))
            for i in range(self.options.bot_rooms)
        ]

    def opening(self) -> dict[str, Any]:
        """How the tables opened, for the report."""
        o = self.options
        mode = "in step" if o.in_step else f"{o.open_rate:g}/s" if o.open_rate > 0 else "together"
        return {"opening": mode, "think_dist": o.think_dist}
