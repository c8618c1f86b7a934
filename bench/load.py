"""Load generator: rooms full of WebSocket players, measured from the outside.

    python bench/load.py --spawn --redis --rooms 100 --think 0 --duration 20
    python bench/load.py --versus-baseline --rooms 300 --think 1 --duration 30
    python bench/load.py --url http://127.0.0.1:8000 --server-pid 1234 --rooms 10

It plays like people, through the public protocol only (`/work/shared/PROTOCOL.md`):
it creates R rooms over HTTP, joins every seat, connects every seat as its own
WebSocket client (no server-side bots) and says `hello` with the seat's token. Each
client then acts on its own turn (its seat in `view.turn`, `view.legal` non-empty)
after a think time drawn uniformly from [T(1-j), T(1+j)] (T = 0: a closed loop),
choosing uniformly from `legal` (a discard template becomes a random valid subset);
the room's lowest seat sends `start` once the lobby is full, and every seat confirms the
`rematch` at game over.

Measured over `--duration` seconds after `--warmup` seconds:

- actions/s: actions answered (the sender received its next `state`) per second;
- latency from sending an action to receiving the sender's next `state`: p50, p95,
  p99, max;
- errors (`error` frames, by code), unexpected closes (by close code), rooms that made
  no progress in the window's last 5 seconds (stalled);
- the server's CPU (user + system from `/proc/<pid>/stat`, as a share of one core) and
  its peak RSS (sampled `VmRSS` in the window, and `VmHWM` over its life) when its pid
  is known (`--server-pid`, or `--spawn`);
- the generator's own CPU share of one core: near 100 %, the generator is the limit.

`--spawn` starts `python -m schmier` itself on a free port (delays 0, rate limits raised
through its `SCHMIER_*` settings, `--redis` for Redis under a fresh key prefix that is
deleted afterwards) and stops it after; `--spawn baseline` starts
`bench/baseline_server.py` instead. `--versus-baseline` runs the same load against both,
one after the other (both on Redis unless `--memory`), and prints every figure's ratio
(Schmier / baseline). `--storm` adds a reconnect storm after the window: every socket is
dropped at once and reconnects at once; reported is the time until every one has its
state again. Everything talks to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import gc
import heapq
import os
import random
import resource
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
import orjson
import websockets
from websockets.asyncio.client import ClientConnection

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _procstat import Sampler, cpu_seconds, memory_kib, own_cpu_seconds

REPO = Path(__file__).resolve().parents[1]
REDIS_URL = os.environ.get("SCHMIER_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
SEATS = {"schmier6": 6, "schmier5": 5, "wisconsin4": 4}

SERVER_ENV: dict[str, str] = {
    "SCHMIER_BOT_DELAY": "0",
    "SCHMIER_HAND_PAUSE": "0",
    "SCHMIER_TRICK_PAUSE": "0",
    "SCHMIER_CREATE_RATE": "1000000",
    "SCHMIER_JOIN_RATE": "1000000",
    "SCHMIER_LOOKUP_FAIL_RATE": "1000000",
    "SCHMIER_FRAME_BURST": "1000",
    "SCHMIER_FRAME_RATE": "1000",
    "SCHMIER_HELLO_TIMEOUT": "120",
    "SCHMIER_LOG_LEVEL": "WARNING",
}
"""Settings of a spawned Schmier: no pauses (so a closed loop is closed), and the
per-address limits out of the way, since every simulated player shares 127.0.0.1."""


STATE_HEAD = b'{"type":"state","seq":'
"""How the server begins every `state` frame (schmier/rooms/frames.py)."""
NOTHING_LEGAL = b'"legal":[]'
"""A seat's empty `legal` as the server writes it: a key, since inside a JSON string
every quote is escaped, so these bytes cannot come from a player's name."""
IDLE_VIEW: dict[str, Any] = {"legal": []}
"""What a seat keeps of a state that gives it nothing to do."""


# ------------------------------------------------------------------ one run's tally


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

    def answered(self, sent: float, now: float) -> None:
        """An action sent in the window was answered at `now`."""
        took = now - sent
        self.latencies.append(took)
        self.actions += 1
        if len(self.slowest) < SLOWEST:
            heapq.heappush(self.slowest, (took, sent))
        elif took > self.slowest[0][0]:
            heapq.heapreplace(self.slowest, (took, sent))


class BotRoom:
    """A room of bots only, playing as fast as the server lets them (`--bot-rooms`).

    A generator socket creates the room, takes seat 0, fills the others with bots,
    starts and leaves its seat to a bot; it stays as a spectator, which keeps the room
    loaded and counts its changes. When the game is over it starts the next one in a
    new room (nobody at a bots-only table can ask for a rematch).
    """

    def __init__(self, run: Run, index: int) -> None:
        self.run = run
        self.index = index
        self.ws: ClientConnection | None = None

    async def play(self, http: httpx.AsyncClient, base: str) -> None:
        """Play game after game until the run stops."""
        while not self.run.stopping:
            try:
                await self._one_game(http, base)
            except Exception as exc:  # counted; the next game starts a moment later
                if not self.run.stopping:
                    self.run.tally.bot_errors[type(exc).__name__] += 1
                    await asyncio.sleep(1.0)

    async def _one_game(self, http: httpx.AsyncClient, base: str) -> None:
        o = self.run.options
        body: dict[str, Any] = {"variant": o.variant}
        if o.target:
            body["rules"] = {"target": o.target}
        answer = await _post(http, "/api/rooms", body)
        code = answer.json()["code"]
        joined = await _post(http, f"/api/rooms/{code}/join", {"name": f"B{self.index}", "seat": 0})
        token = joined.json()["token"]
        ws_base = f"ws://{urlparse(base).netloc}"
        async with websockets.connect(
            f"{ws_base}/ws/{code}", max_size=2**22, open_timeout=60, ping_interval=None
        ) as ws:
            self.ws = ws
            frames = [{"type": "hello", "token": token}]
            frames += [{"type": "add_bot", "seat": k} for k in range(1, SEATS[o.variant])]
            frames += [{"type": "start"}, {"type": "leave"}]
            for frame in frames:
                await ws.send(orjson.dumps(frame).decode())
            tally = self.run.tally
            async for raw in ws:
                frame = orjson.loads(raw)
                if frame.get("type") == "error":
                    tally.bot_errors[str(frame.get("code"))] += 1
                    continue
                if frame.get("type") != "state":
                    continue
                tally.bot_states_all += 1
                if tally.measuring and tally.window_end == float("inf"):
                    tally.bot_states += 1
                if frame["view"]["phase"] == "game_over" or self.run.stopping:
                    tally.bot_games += 1
                    break
        self.ws = None


class Player:
    """One seat's WebSocket client: reads every frame, acts on its own turn."""

    def __init__(self, run: Run, code: str, seat: int, token: str, rng: random.Random) -> None:
        self.run = run
        self.code = code
        self.seat = seat
        self.token = token
        self.rng = rng
        self.ws: ClientConnection | None = None
        self.view: dict[str, Any] | None = None
        self.seq = -1
        self.sent_at: float | None = None
        self.acted_on: list[dict[str, Any]] | None = None
        """`legal` of the view acted on, while the action is in a simultaneous phase."""
        self.timer: asyncio.TimerHandle | None = None
        self.has_state = asyncio.Event()
        self.last_progress = 0.0
        self.reader: asyncio.Task[None] | None = None
        self.stopping = False

    async def connect(self) -> None:
        """Open the socket, say hello, and start reading (returns once a state came)."""
        self.has_state = asyncio.Event()
        self.sent_at = None
        self.ws = await websockets.connect(
            self.run.ws_url(self.code),
            compression="deflate" if self.run.client_deflate else None,
            max_size=2**22,
            open_timeout=60,
            ping_interval=None,
            close_timeout=2,
        )
        await self.ws.send(orjson.dumps({"type": "hello", "token": self.token}).decode())
        self.reader = asyncio.get_running_loop().create_task(self._read(self.ws))
        await self.has_state.wait()

    async def _read(self, ws: ClientConnection) -> None:
        tally = self.run.tally
        try:
            while True:
                raw = await ws.recv(decode=False)
                if tally.measuring and tally.window_end == float("inf"):
                    tally.frames += 1
                    tally.bytes += len(raw)
                if raw.startswith(STATE_HEAD) and NOTHING_LEGAL in raw:
                    # Most states are another seat's move: nothing to choose from, so
                    # only the sequence number is read (parsing and freeing every view
                    # was a third of the generator's time, which it needs to keep up
                    # with the server when saturated).
                    seq = int(raw[len(STATE_HEAD) : raw.index(b",", len(STATE_HEAD))])
                    self._state(seq, IDLE_VIEW)
                    continue
                frame = orjson.loads(raw)
                kind = frame.get("type")
                if kind == "state":
                    self._state(frame["seq"], frame["view"])
                    await self._consider()
                elif kind == "error":
                    if tally.measuring:
                        tally.errors[str(frame.get("code"))] += 1
                    self.sent_at = None
                    self.acted_on = None
                    # Choose again a moment later: a refused action must not stall the room.
                    self._schedule(max(self.run.think, 0.05))
        except websockets.ConnectionClosed:
            pass
        except Exception as exc:  # a bad frame is a finding, not a generator crash
            tally.errors[f"client:{type(exc).__name__}"] += 1
        finally:
            if not self.stopping and not self.run.stopping:
                tally.closes[str(ws.close_code)] += 1
            self.has_state.set()

    def _state(self, seq: int, view: dict[str, Any]) -> None:
        """A `state` frame came: answer the action in flight, keep the newest view."""
        tally = self.run.tally
        now = time.perf_counter()
        if self.sent_at is not None and self._answers(view):
            if tally.measuring and tally.window_start <= self.sent_at < tally.window_end:
                tally.answered(self.sent_at, now)
            self.sent_at = None
            self.acted_on = None
        if seq >= self.seq:
            self.seq = seq
            self.view = view
        self.last_progress = now
        self.has_state.set()

    def _answers(self, view: dict[str, Any]) -> bool:
        """Whether this state is the answer to the action in flight.

        In a turn-based phase nobody else acts while it is this seat's turn, so the
        next state is the answer. Discards are simultaneous: a state made by another
        seat's discard may cross this seat's own on the wire, and acting on it again
        would be refused, so there the answer is the first state whose `legal` for
        this seat has changed (after its discard it is empty).
        """
        return self.acted_on is None or view["legal"] != self.acted_on

    def _chosen(self) -> dict[str, Any] | None:
        """The action to send now, or None when this seat has nothing to do."""
        view = self.view
        if view is None:
            return None
        legal: list[dict[str, Any]] = view["legal"]
        if not legal:
            return None
        phase = view["phase"]
        if phase == "game_over":
            # Every seated person confirms the rematch (it is listed until they have).
            return next((a for a in legal if a["type"] == "rematch"), None)
        if phase == "lobby":
            # One seat starts; the others would only be refused.
            lowest = min(s["seat"] for s in view["seats"] if s.get("kind") != "empty")
            if view["you"] != lowest:
                return None
            return next((a for a in legal if a["type"] == "start"), None)
        if view["you"] not in view["turn"]:
            return None
        action = self.rng.choice(legal)
        if action["type"] == "discard":
            count = self.rng.randint(int(action["min"]), int(action["max"]))
            return {"type": "discard", "cards": self.rng.sample(list(action["from"]), count)}
        return dict(action)

    async def _consider(self) -> None:
        if self.sent_at is not None or self.timer is not None or self.stopping:
            return
        if self.run.options.idle or self._chosen() is None:
            return
        if self.run.think <= 0:
            await self._send()
        else:
            self._schedule(self.run.think_delay(self.rng))

    def _schedule(self, delay: float) -> None:
        if self.timer is None and not self.stopping:
            self.timer = asyncio.get_running_loop().call_later(delay, self._fire)

    def _fire(self) -> None:
        self.timer = None
        if self.sent_at is None and not self.stopping:
            asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        action = self._chosen()
        ws = self.ws
        if action is None or ws is None or self.sent_at is not None:
            return
        self.sent_at = time.perf_counter()
        view = self.view
        self.acted_on = view["legal"] if view and view["phase"] == "discard" else None
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.send(orjson.dumps(action).decode())

    async def close(self) -> None:
        """Stop acting and close the socket."""
        self.stopping = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.reader, 5)

    def drop(self) -> None:
        """Lose the connection abruptly (no close handshake), as a network drop does."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.ws is not None:
            self.ws.transport.abort()


# ------------------------------------------------------------------ a run


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


class Run:
    """One measured load against one server."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.think = options.think
        self.client_deflate = options.client_deflate
        self.tally = Tally()
        self.stopping = False
        self.players: list[Player] = []
        self.idle_rss: dict[str, int] = {}
        self.bases = [url.rstrip("/") for url in options.urls]
        self.ws_bases = [f"ws://{urlparse(url).netloc}" for url in options.urls]
        self.home: dict[str, int] = {}
        """The instance each room was created on (its sockets go there too)."""
        self.bot_tasks: list[asyncio.Task[None]] = []
        self.bot_http: httpx.AsyncClient | None = None

    def ws_url(self, code: str) -> str:
        return f"{self.ws_bases[self.home[code]]}/ws/{code}"

    def think_delay(self, rng: random.Random) -> float:
        j = self.options.jitter
        return self.think * rng.uniform(1 - j, 1 + j)

    async def _seat_room(self, http: httpx.AsyncClient, index: int) -> list[Player]:
        o = self.options
        body: dict[str, Any] = {"variant": o.variant}
        if o.target:
            body["rules"] = {"target": o.target}
        answer = await _post(http, "/api/rooms", body)
        if answer.status_code != 201:
            raise RuntimeError(f"create room: HTTP {answer.status_code} {answer.text[:200]}")
        code = answer.json()["code"]
        self.home[code] = index % len(self.bases)
        players = []
        for seat in range(SEATS[o.variant]):
            joined = await _post(
                http, f"/api/rooms/{code}/join", {"name": f"P{index}-{seat}", "seat": seat}
            )
            if joined.status_code != 200:
                raise RuntimeError(f"join: HTTP {joined.status_code} {joined.text[:200]}")
            data = joined.json()
            rng = random.Random(f"{o.seed}/{index}/{seat}")
            players.append(Player(self, code, int(data["seat"]), str(data["token"]), rng))
        return players

    async def setup(self) -> float:
        """Create, join and connect every room; the seconds it took."""
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

            async def one(index: int) -> list[Player]:
                async with gate:
                    return await self._seat_room(clients[index % len(clients)], index)

            rooms = await asyncio.gather(*(one(i) for i in range(o.rooms)))
        self.players = [p for room in rooms for p in room]
        if o.idle and o.server_pids:
            await asyncio.sleep(1.0)
            self.idle_rss["rooms"] = _rss(o.server_pids)
        # Seat by seat, so a room's lowest seat (which starts the game) connects last
        # and every room starts only once all its players are there.
        order = sorted(self.players, key=lambda p: -p.seat)

        async def connect(player: Player) -> None:
            async with gate:
                try:
                    await player.connect()
                except Exception as exc:
                    # Counted and reported: a server that cannot seat everybody has
                    # failed the run, but the figures of the others still say how.
                    self.tally.setup_failures[type(exc).__name__] += 1

        await asyncio.gather(*(connect(p) for p in order))
        self.start_bot_rooms()
        return time.perf_counter() - started

    def start_bot_rooms(self) -> None:
        """Start the bots-only rooms (after the players are seated, before the warm-up)."""
        if not self.options.bot_rooms:
            return
        base = self.bases[0]
        self.bot_http = httpx.AsyncClient(base_url=base, timeout=60)
        loop = asyncio.get_running_loop()
        self.bot_tasks = [
            loop.create_task(BotRoom(self, i).play(self.bot_http, base))
            for i in range(self.options.bot_rooms)
        ]

    async def measure(self) -> dict[str, Any]:
        """Warm up, then measure for the duration; the figures."""
        o = self.options
        # The generator's own garbage collector, not the server, was behind most of the
        # tail latency it reported: a full collection over 1,800 clients' parsed views
        # stalled this process for 100-300 ms while the server answered in 2 ms. So the
        # generator freezes what it holds and collects nothing from the end of the
        # warm-up to the end of the window (bounded: `--duration` seconds); the server
        # under test keeps its own collector.
        await asyncio.sleep(max(0.0, o.warmup - SETTLE))
        collecting = time.perf_counter()
        gc.collect()
        gc.freeze()
        gc.disable()
        collected_in = time.perf_counter() - collecting
        # That collection stops this process for 100-200 ms at 300 rooms and up to half
        # a second at 1,000; the players' timers that fell due meanwhile then fire
        # together, a burst of actions no real table makes (at 1,000 rooms some 500 at
        # once, a quarter of a second of the server's work). The window opens once
        # that burst has been answered (a settling second, and twice the collection's
        # time more, for the larger burst), and only actions sent inside it count.
        await asyncio.sleep(min(SETTLE, o.warmup) + 2 * collected_in)
        pids = o.server_pids
        samplers = [Sampler(pid) for pid in pids]
        server_hist0 = await self.server_histograms()
        server_cpu0 = _cpu(pids)
        own_cpu0 = own_cpu_seconds()
        for sampler in samplers:
            sampler.start()
        tcp0 = _tcp_timeouts()
        steal0 = _steal_seconds()
        t0 = self.tally.window_start = time.perf_counter()
        self.tally.measuring = True
        lags: list[float] = []
        probe = asyncio.create_task(_loop_lag(lags))
        machine = await _start_pause_probes(o.duration) if o.machine_probe else []
        try:
            await asyncio.sleep(o.duration)
            self.tally.window_end = time.perf_counter()
            own_cpu = own_cpu_seconds() - own_cpu0
            tcp1 = _tcp_timeouts()
            steal1 = _steal_seconds()
            server_cpu = (_cpu(pids) - server_cpu0) if pids else None
            await self._answered(GRACE)
        finally:
            self.tally.measuring = False
            probe.cancel()
            gc.enable()
            gc.unfreeze()
        elapsed = self.tally.window_end - t0
        pauses = await _pause_probe_results(machine, t0)
        server_hist1 = await self.server_histograms()
        for sampler in samplers:
            await sampler.stop()
        now = time.perf_counter()
        stalled = {p.code for p in self.players if now - p.last_progress > 5.0}
        # A room has stalled only if none of its players heard anything lately.
        alive = {p.code for p in self.players if now - p.last_progress <= 5.0}
        lat = sorted(self.tally.latencies)
        t = self.tally
        result: dict[str, Any] = {
            "rooms": o.rooms,
            "sockets": len(self.players),
            "seconds": round(elapsed, 2),
            "actions": t.actions,
            "actions_per_s": round(t.actions / elapsed, 1),
            "p50_ms": _pct(lat, 50),
            "p95_ms": _pct(lat, 95),
            "p99_ms": _pct(lat, 99),
            "max_ms": round(lat[-1] * 1000, 2) if lat else None,
            "over_100ms": len(lat) - bisect.bisect_right(lat, 0.1),
            # (latency ms, seconds into the window it was sent), slowest first.
            "slowest": [
                [round(took * 1000, 1), round(sent - t0, 2)]
                for took, sent in sorted(t.slowest, reverse=True)
            ],
            # Retransmission timeouts of the whole machine's TCP in the window: loopback
            # loses no packets, so each one (at least 200 ms, Linux's minimum) is a
            # segment some socket had to send again; a latency that long is then not
            # the server's.
            "tcp_timeouts": (tcp1 - tcp0) if tcp0 is not None and tcp1 is not None else None,
            # Time the hypervisor ran something else on this VM's CPUs (all of them) in
            # the window: when both the generator and the server lag at once, this says
            # whether the machine itself was taken away.
            "steal_ms": (
                round(1000 * (steal1 - steal0))
                if steal0 is not None and steal1 is not None
                else None
            ),
            "errors": sum(t.errors.values()),
            "error_codes": dict(t.errors),
            "closes": sum(t.closes.values()),
            "close_codes": dict(t.closes),
            "stalled_rooms": len(stalled - alive),
            "setup_failures": sum(t.setup_failures.values()),
            "setup_failure_kinds": dict(t.setup_failures),
            "frames_per_s": round(t.frames / elapsed, 1),
            "mb_per_s": round(t.bytes / elapsed / 1e6, 2),
            "generator_cpu_pct": round(100 * own_cpu / elapsed, 1),
            "generator_gc_ms": round(1000 * collected_in, 1),
            "server_cpu_pct": (
                round(100 * server_cpu / elapsed, 1) if server_cpu is not None else None
            ),
            # With several instances: the sum of each one's peak.
            "server_rss_peak_mb": (
                round(sum(s.peak_rss_kib for s in samplers) / 1024, 1) if samplers else None
            ),
            "server_vmhwm_mb": (
                round(sum(memory_kib(p)["VmHWM"] for p in pids) / 1024, 1) if pids else None
            ),
            "server_cpu_ms_per_action": (
                round(1000 * server_cpu / t.actions, 3) if server_cpu and t.actions else None
            ),
        }
        if samplers and elapsed >= 2 * RSS_SERIES_SECONDS:
            # A long window (a soak): the server's RSS every half minute, to show whether
            # it stays flat once warmed up.
            every = round(RSS_SERIES_SECONDS / samplers[0].interval)
            count = min(len(s.samples) for s in samplers)
            result["server_rss_series_mb"] = [
                round(sum(s.samples[i] for s in samplers) / 1024, 1) for i in range(0, count, every)
            ]
        if pauses is not None:
            result.update(pauses)
        if o.bot_rooms:
            result["bot_rooms"] = o.bot_rooms
            result["bot_states_per_s"] = round(t.bot_states / elapsed, 1)
            result["bot_states_all"] = t.bot_states_all
            result["bot_games"] = t.bot_games
            result["bot_errors"] = sum(t.bot_errors.values())
            result["bot_error_codes"] = dict(t.bot_errors)
        lags.sort()
        result["generator_lag_p99_ms"] = _pct(lags, 99)
        result["generator_lag_max_ms"] = round(lags[-1] * 1000, 2) if lags else None
        result.update(
            _server_side(server_hist0.get(SERVER_HISTOGRAM), server_hist1.get(SERVER_HISTOGRAM))
        )
        result.update(
            _loop_lag_window(
                server_hist0.get(LOOP_LAG_HISTOGRAM), server_hist1.get(LOOP_LAG_HISTOGRAM)
            )
        )
        full0, full1 = server_hist0.get(FULL_COLLECTIONS), server_hist1.get(FULL_COLLECTIONS)
        if full0 is not None and full1 is not None:
            # A full collection walks every object the server holds (0.7 s at 1,000
            # tables): one in the window explains a stall of that size by itself.
            result["server_full_collections"] = int(full1.get(0.0, 0) - full0.get(0.0, 0))
            result["server_full_collection_ms"] = round(
                1000 * (full1.get(1.0, 0) - full0.get(1.0, 0)), 1
            )
        return result

    async def _answered(self, grace: float) -> None:
        """Wait (at most `grace` s) until every action sent in the window is answered."""
        deadline = time.perf_counter() + grace
        end = self.tally.window_end
        while time.perf_counter() < deadline:
            if not any(
                p.sent_at is not None and self.tally.window_start <= p.sent_at < end
                for p in self.players
            ):
                return
            await asyncio.sleep(0.01)

    async def server_histograms(self) -> dict[str, dict[float, float]]:
        """The servers' own histograms of action latency and loop lag (cumulative counts
        by upper bound, summed over the instances), from `/metrics`; empty for a server
        without them (the baseline)."""
        found: dict[str, dict[float, float]] = {}
        for base in self.bases:
            try:
                async with httpx.AsyncClient(base_url=base, timeout=10) as http:
                    response = await http.get("/metrics")
            except httpx.HTTPError:
                return {}
            if response.status_code != 200:
                return {}
            for line in response.text.splitlines():
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

    async def storm(self) -> dict[str, Any]:
        """Drop every socket at once, reconnect every one at once; time until all have
        their state again."""
        self.stopping = True  # the drops are ours, not the server's
        for p in self.players:
            p.drop()
        await asyncio.gather(
            *(p.reader for p in self.players if p.reader is not None), return_exceptions=True
        )
        self.stopping = False
        done: list[float] = []
        failed: Counter[str] = Counter()
        started = time.perf_counter()

        async def again(player: Player) -> None:
            try:
                await player.connect()
            except Exception as exc:
                failed[type(exc).__name__] += 1
                return
            if player.view is None or not player.has_state.is_set():
                failed["no_state"] += 1
                return
            done.append(time.perf_counter() - started)

        await asyncio.gather(*(again(p) for p in self.players))
        total = time.perf_counter() - started
        done.sort()
        return {
            "sockets": len(self.players),
            "reconnected": len(done),
            "failed": dict(failed),
            "all_seconds": round(total, 3),
            "p50_ms": _pct(done, 50),
            "p99_ms": _pct(done, 99),
        }

    async def idle(self, rss0: int | None) -> dict[str, Any]:
        """Memory only: rooms joined but idle, then every seat connected, nobody acting.

        The server's RSS before, after the rooms are created and joined, and after every
        socket has said hello, gives the memory per idle room and per connected socket.
        """
        o = self.options
        if not o.server_pids or rss0 is None:
            raise SystemExit("--idle needs the server's pid (--server-pid or --spawn)")
        setup = await self.setup()
        await asyncio.sleep(2.0)
        after = _rss(o.server_pids)
        rooms = self.idle_rss["rooms"]
        sockets = len(self.players)
        return {
            "rooms": o.rooms,
            "sockets": sockets,
            "setup_s": round(setup, 2),
            "server_rss_before_mb": round(rss0 / 1024, 1),
            "server_rss_rooms_mb": round(rooms / 1024, 1),
            "server_rss_sockets_mb": round(after / 1024, 1),
            "kib_per_idle_room": round((rooms - rss0) / o.rooms, 1),
            "kib_per_socket": round((after - rooms) / sockets, 1),
            "actions": 0,
            "errors": sum(self.tally.errors.values()),
            "closes": sum(self.tally.closes.values()),
            "stalled_rooms": 0,
            "setup_failures": sum(self.tally.setup_failures.values()),
        }

    async def teardown(self) -> None:
        self.stopping = True
        for p in self.players:
            p.stopping = True
        for task in self.bot_tasks:
            task.cancel()
        await asyncio.gather(*self.bot_tasks, return_exceptions=True)
        if self.bot_http is not None:
            await self.bot_http.aclose()
        await asyncio.gather(*(p.close() for p in self.players), return_exceptions=True)

    async def execute(self) -> dict[str, Any]:
        """Set up, measure, optionally storm, tear down."""
        rss0 = _rss(self.options.server_pids) if self.options.server_pids else None
        try:
            if self.options.idle:
                return await self.idle(rss0)
            setup = await self.setup()
            result = await self.measure()
            result["setup_s"] = round(setup, 2)
            if rss0 is not None:
                result["server_rss_before_mb"] = round(rss0 / 1024, 1)
            if self.options.storm:
                result["storm"] = await self.storm()
        finally:
            await self.teardown()
        return result


def _cpu(pids: list[int]) -> float:
    """CPU seconds used so far by all the server processes."""
    return sum(cpu_seconds(pid) for pid in pids)


def _tcp_timeouts() -> int | None:
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


async def _start_pause_probes(seconds: float) -> list[tuple[asyncio.subprocess.Process, float]]:
    """`bench/_pauses.py` on every CPU for `seconds`, each with when it started."""
    script = str(Path(__file__).resolve().parent / "_pauses.py")
    started = []
    for cpu in sorted(os.sched_getaffinity(0) | set(range(os.cpu_count() or 1))):
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            script,
            "--cpu",
            str(cpu),
            "--seconds",
            str(seconds),
            stdout=subprocess.PIPE,
        )
        started.append((process, time.perf_counter()))
    return started


async def _pause_probe_results(
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


def _steal_seconds() -> float | None:
    """CPU time stolen from this (virtual) machine so far, all CPUs, from /proc/stat."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _rss(pids: list[int]) -> int:
    """Resident KiB of all the server processes now."""
    return sum(memory_kib(pid)["VmRSS"] for pid in pids)


async def _post(http: httpx.AsyncClient, path: str, body: dict[str, Any]) -> httpx.Response:
    """POST with a few retries on a dropped connection.

    Under load a kept-alive connection may be closed by the server (its keep-alive
    timeout) just as the pool reuses it; that is the set-up's problem, not a finding.
    """
    for attempt in range(4):
        try:
            return await http.post(path, json=body)
        except httpx.TransportError:
            if attempt == 3:
                raise
            await asyncio.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


RSS_SERIES_SECONDS = 30.0
"""With a window of a minute or more, the server's RSS is reported every this often."""

SETTLE = 1.0
"""Seconds between the generator's last garbage collection and the window."""

GRACE = 2.0
"""Seconds the answers to actions sent in the window are still awaited after it."""

SLOWEST = 5
"""How many of the window's slowest actions are reported, with when they were sent."""


async def _loop_lag(lags: list[float], period: float = 0.005) -> None:
    """How late the generator's own loop wakes up: a late generator reads the server's
    answers late, and that delay would count as the server's latency. A run whose
    generator lag is comparable to the latencies it reports measured the generator."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(period)
        lags.append(max(0.0, loop.time() - before - period))


SERVER_HISTOGRAM = "schmier_action_latency_seconds"
"""Schmier's histogram of the time from a message reaching a room (its wait in the
room's queue included) to having sent every view it causes (Redis commit included)."""


def _server_side(
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


def _loop_lag_window(
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


def _pct(sorted_values: list[float], pct: float) -> float | None:
    """The `pct` percentile (nearest rank) of sorted seconds, in milliseconds."""
    if not sorted_values:
        return None
    rank = max(0, min(len(sorted_values) - 1, round(pct / 100 * len(sorted_values)) - 1))
    return round(sorted_values[rank] * 1000, 2)


# ------------------------------------------------------------------ spawned servers


DEFAULT_URL = "http://127.0.0.1:8000"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Spawned:
    """A server started for this run, on 127.0.0.1 and a free port."""

    def __init__(
        self,
        kind: str,
        *,
        redis: bool,
        env: dict[str, str],
        extra: list[str],
        prefix: str | None = None,
        cpus: set[int] | None = None,
    ) -> None:
        self.kind = kind
        self.port = free_port()
        # Instances of one cluster share a prefix (that is what makes them a cluster).
        self.prefix = prefix or f"schmier-bench:{uuid.uuid4().hex[:10]}:"
        self.redis = redis
        child_env = {**os.environ}
        if kind == "schmier":
            child_env.update(SERVER_ENV)
            child_env.update(
                SCHMIER_HOST="127.0.0.1",
                SCHMIER_PORT=str(self.port),
            )
            if redis:
                child_env.update(SCHMIER_REDIS_URL=REDIS_URL, SCHMIER_REDIS_PREFIX=self.prefix)
            else:
                child_env.pop("SCHMIER_REDIS_URL", None)
            child_env.update(env)
            command = [sys.executable, "-m", "schmier"]
        else:
            command = [sys.executable, str(REPO / "bench" / "baseline_server.py")]
            command += ["--port", str(self.port), "--prefix", self.prefix]
            command += ["--redis", REDIS_URL] if redis else ["--memory"]
            command += extra
        # The server's stderr goes to a file, never to a pipe: nobody reads a pipe while
        # the load runs, and a server whose log fills the pipe's 64 KiB blocks on its
        # next log line (it stops answering, which looks like a server bug).
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server)
        self.process = subprocess.Popen(
            command, cwd=REPO, env=child_env, stdout=subprocess.DEVNULL, stderr=self.log
        )
        if cpus:
            # Set before the interpreter has started any thread (they inherit it).
            os.sched_setaffinity(self.process.pid, cpus)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{kind} server exited: {self._log_tail()[-2000:]}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{kind} server did not start")
            time.sleep(0.05)

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self, *, delete: bool = True) -> str:
        """Stop the server (SIGTERM, then SIGKILL); its stderr tail; Redis keys removed
        unless `delete` is false (an instance whose cluster is still running)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                print(
                    f"{self.kind} server did not stop within 20 s of SIGTERM: killed",
                    file=sys.stderr,
                )
                self.process.kill()
                self.process.wait()
        err = self._log_tail()
        self.log.close()
        if self.redis and delete:
            _delete_prefix(self.prefix)
        return err

    def _log_tail(self) -> str:
        """The last 3,000 characters the server wrote to stderr."""
        self.log.seek(0, os.SEEK_END)
        size = self.log.tell()
        self.log.seek(max(0, size - 3000))
        return self.log.read().decode(errors="replace")


def _delete_prefix(prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        keys = list(client.scan_iter(match=prefix + "*", count=1000))
        for i in range(0, len(keys), 1000):
            client.delete(*keys[i : i + 1000])
    finally:
        client.close()


# ------------------------------------------------------------------ reporting

ROWS: list[tuple[str, str]] = [
    ("instances", "server instances"),
    ("actions_per_s", "actions/s"),
    ("p50_ms", "latency p50 ms"),
    ("p95_ms", "latency p95 ms"),
    ("p99_ms", "latency p99 ms"),
    ("max_ms", "latency max ms"),
    ("over_100ms", "actions > 100 ms"),
    ("slowest", "slowest ms (at s into window)"),
    ("tcp_timeouts", "TCP retransmission timeouts"),
    ("steal_ms", "CPU stolen by the hypervisor ms"),
    ("machine_pauses_over_10ms", "machine pauses > 10 ms (probe)"),
    ("machine_pause_max_ms", "machine pause max ms (probe)"),
    ("errors", "error frames"),
    ("closes", "unexpected closes"),
    ("stalled_rooms", "stalled rooms"),
    ("setup_failures", "sockets not seated"),
    ("bot_rooms", "bots-only rooms"),
    ("bot_states_per_s", "bots-only rooms: changes/s"),
    ("bot_games", "bots-only games finished"),
    ("bot_errors", "bots-only rooms: errors"),
    ("frames_per_s", "frames received/s"),
    ("mb_per_s", "MB received/s"),
    ("server_cpu_pct", "server CPU % of a core"),
    ("server_cpu_ms_per_action", "server CPU ms/action"),
    ("generator_lag_p99_ms", "generator loop lag p99 ms"),
    ("generator_lag_max_ms", "generator loop lag max ms"),
    ("server_lag_p99_ms", "server loop lag p99 ms (bucket bound)"),
    ("server_lag_max_ms", "server loop lag max ms (bucket bound)"),
    ("server_lag_over_30ms", "server loop lags > 30 ms"),
    ("server_lag_over_100ms", "server loop lags > 100 ms"),
    ("server_full_collections", "server: full collections in the window"),
    ("server_full_collection_ms", "server: their ms in all"),
    ("server_over_5ms_pct", "server: messages > 5 ms %"),
    ("server_over_25ms_pct", "server: messages > 25 ms %"),
    ("server_over_100ms_pct", "server: messages > 100 ms %"),
    ("server_rss_before_mb", "server RSS before MB"),
    ("server_rss_peak_mb", "server RSS peak MB"),
    ("server_vmhwm_mb", "server VmHWM MB"),
    ("generator_cpu_pct", "generator CPU % of a core"),
    ("generator_gc_ms", "generator's collection before the window ms"),
    ("setup_s", "set-up s"),
    ("server_rss_rooms_mb", "server RSS, rooms joined MB"),
    ("server_rss_sockets_mb", "server RSS, sockets connected MB"),
    ("kib_per_idle_room", "KiB per idle room"),
    ("kib_per_socket", "KiB per connected socket"),
]


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list) and all(isinstance(v, list) and len(v) == 2 for v in value):
        return ", ".join(f"{ms:g} ({at:g})" for ms, at in value) or "-"
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def table(results: dict[str, dict[str, Any]]) -> str:
    """The figures of one or more runs side by side; a ratio column for two."""
    names = list(results)
    header = ["figure", *names]
    ratio = len(names) == 2
    if ratio:
        header.append(f"{names[0]}/{names[1]}")
    lines = [header]
    for key, label in ROWS:
        values = [results[n].get(key) for n in names]
        if all(v is None for v in values):
            continue
        row = [label, *(_fmt(v) for v in values)]
        if ratio:
            a, b = values
            row.append(f"{a / b:.2f}" if isinstance(a, int | float) and b else "-")
        lines.append(row)
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    out = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in lines]
    for name in names:
        series = results[name].get("server_rss_series_mb")
        if series:
            out.append(f"server RSS every {RSS_SERIES_SECONDS:.0f} s ({name}), MB: {series}")
        storm = results[name].get("storm")
        if storm:
            out.append(
                f"reconnect storm ({name}): {storm['reconnected']}/{storm['sockets']} sockets"
                f" have their state again after {storm['all_seconds']} s"
                f" (p50 {storm['p50_ms']} ms, p99 {storm['p99_ms']} ms),"
                f" failed: {storm['failed'] or 0}"
            )
    return "\n".join(out)


# ------------------------------------------------------------------ main


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--url",
        action="append",
        help=f"a running server (default {DEFAULT_URL}); repeat for instances of one cluster",
    )
    parser.add_argument(
        "--server-pid",
        type=int,
        action="append",
        help="its pid, to read its CPU and memory (repeat, one per --url)",
    )
    parser.add_argument(
        "--instances",
        type=int,
        default=1,
        help="with --spawn --redis: start this many Schmier instances sharing one Redis; "
        "rooms are spread over them round-robin",
    )
    parser.add_argument(
        "--spawn",
        nargs="?",
        const="schmier",
        choices=("schmier", "baseline"),
        help="start the server (python -m schmier, or the baseline) for this run",
    )
    parser.add_argument("--versus-baseline", action="store_true", help="Schmier, then baseline")
    store = parser.add_mutually_exclusive_group()
    store.add_argument("--redis", action="store_true", help="spawned servers use Redis")
    store.add_argument("--memory", action="store_true", help="spawned servers keep rooms in memory")
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra setting for a spawned Schmier (repeatable)",
    )
    parser.add_argument(
        "--baseline-args", default="", help="extra options of a spawned baseline, one string"
    )
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--variant", choices=tuple(SEATS), default="schmier6")
    parser.add_argument("--think", type=float, default=0.0, help="mean think time, seconds")
    parser.add_argument("--jitter", type=float, default=0.5, help="think spread: T*(1±j)")
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--target", type=int, default=99, help="rules.target (0: default)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--client-deflate", action="store_true", help="clients offer deflate")
    parser.add_argument("--storm", action="store_true", help="reconnect storm after the window")
    parser.add_argument(
        "--idle", action="store_true", help="memory per idle room and socket; nobody plays"
    )
    parser.add_argument("--setup-concurrency", type=int, default=32)
    parser.add_argument(
        "--bot-rooms",
        type=int,
        default=0,
        help="also run N rooms of bots only, playing flat out (spawned Schmier: bot delay "
        "0), each watched by one socket; their changes/s are reported",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="run the generator on the first CPU and spawned servers on the others "
        "(os.sched_setaffinity), so neither takes the other's core",
    )
    parser.add_argument(
        "--machine-probe",
        action="store_true",
        help="run bench/_pauses.py on every CPU over the window (real-time priority: "
        "root) and report when the machine itself paused",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    if args.versus_baseline and not args.memory:
        args.redis = True
    if args.instances < 1 or (args.instances > 1 and not (args.spawn and args.redis)):
        parser.error("--instances N > 1 needs --spawn with --redis (instances share rooms)")
    if args.instances > 1 and args.versus_baseline:
        parser.error("--instances is for Schmier alone, not --versus-baseline")
    if args.think < 0 or not 0 <= args.jitter <= 1:
        parser.error("--think must be >= 0 and --jitter in [0, 1]")
    args.server_cpus = None
    if args.pin:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            parser.error("--pin needs at least two CPUs")
        os.sched_setaffinity(0, {cpus[0]})
        args.server_cpus = set(cpus[1:])
    return args


OPEN_FILES_RESERVE = 256
"""Descriptors the generator needs besides its WebSockets (HTTP clients, logs, Redis)."""


def raise_open_files(sockets: int) -> None:
    """Raise this process's soft limit of open files to its hard limit (spawned servers
    inherit it), or stop with what to raise when even the hard limit is too low: every
    simulated seat is one socket here and one in the server."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = sockets + OPEN_FILES_RESERVE
    ceiling = hard if hard != resource.RLIM_INFINITY else max(need, soft)
    if soft != resource.RLIM_INFINITY and soft < ceiling:
        resource.setrlimit(resource.RLIMIT_NOFILE, (ceiling, hard))
        soft = ceiling
    if soft != resource.RLIM_INFINITY and soft < need:
        raise SystemExit(
            f"{sockets} sockets need about {need} open files, and this shell allows at "
            f"most {hard} (hard limit). Raise it first, e.g. `ulimit -Hn {need}; "
            f"ulimit -n {need}` as root, or `LimitNOFILE=` / /etc/security/limits.conf."
        )


def one_run(args: argparse.Namespace, spawn: str | None) -> dict[str, Any]:
    """Run the load once (spawning the server, or `--instances` of it, if asked)."""
    servers: list[Spawned] = []
    urls, pids = args.url or [DEFAULT_URL], args.server_pid or []
    if spawn:
        env = dict(item.split("=", 1) for item in args.env)
        extra = shlex.split(args.baseline_args)
        count = args.instances if spawn == "schmier" else 1
        try:
            for _ in range(count):
                prefix = servers[0].prefix if servers else None
                servers.append(
                    Spawned(
                        spawn,
                        redis=args.redis,
                        env=env,
                        extra=extra,
                        prefix=prefix,
                        cpus=args.server_cpus,
                    )
                )
        except BaseException:
            for server in servers:
                server.stop()
            raise
        urls, pids = [s.url for s in servers], [s.pid for s in servers]
    options = Options(
        urls=urls,
        rooms=args.rooms,
        variant=args.variant,
        think=args.think,
        jitter=args.jitter,
        duration=args.duration,
        warmup=args.warmup,
        target=args.target,
        seed=args.seed,
        server_pids=pids,
        client_deflate=args.client_deflate,
        storm=args.storm,
        setup_concurrency=args.setup_concurrency,
        idle=args.idle,
        bot_rooms=args.bot_rooms if spawn != "baseline" else 0,
        machine_probe=args.machine_probe,
    )
    try:
        result = asyncio.run(Run(options).execute())
    finally:
        for i, server in enumerate(servers):
            err = server.stop(delete=i == len(servers) - 1)
            if err.strip() and ("Traceback" in err or "ERROR" in err):
                print(f"--- {spawn} server stderr (tail) ---\n{err}", file=sys.stderr)
    result["instances"] = len(urls)
    result["server"] = spawn or ", ".join(urls)
    result["store"] = ("redis" if args.redis else "memory") if spawn else None
    return result


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    raise_open_files(args.rooms * SEATS[args.variant] + args.bot_rooms)
    config = {
        k: getattr(args, k)
        for k in ("rooms", "variant", "think", "jitter", "duration", "warmup", "target", "seed")
    }
    config["client_deflate"] = args.client_deflate
    config["bot_rooms"] = args.bot_rooms
    store_name = "redis" if args.redis else "memory"
    if args.versus_baseline:
        results = {
            "schmier": one_run(args, "schmier"),
            "baseline": one_run(args, "baseline"),
        }
    else:
        results = {(args.spawn or "server"): one_run(args, args.spawn)}
    if args.json:
        report = {"config": config, "results": results}
        print(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode())
    else:
        print(
            f"{args.rooms} rooms of {args.variant}, think {args.think}s, "
            f"{args.duration}s after {args.warmup}s warm-up"
            + (f", store {store_name}" if args.spawn or args.versus_baseline else "")
        )
        print(table(results))
    bad = any(
        r["errors"] or r["closes"] or r["stalled_rooms"] or r.get("setup_failures")
        for r in results.values()
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
