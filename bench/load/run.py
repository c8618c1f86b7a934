"""One measured load against one server (or the instances of one cluster).

`Run.execute` seats every room, warms up, measures a window of `--duration` seconds,
optionally storms the server with reconnections, and tears everything down.
"""

from __future__ import annotations

import asyncio
import bisect
import gc
import time
from dataclasses import dataclass, field
from typing import Any

from bench.kit.procstat import Sampler, memory_kib, own_cpu_seconds
from bench.load import bots, probes
from bench.load.opening import Tables
from bench.load.storm import storm

RSS_SERIES_SECONDS = 30.0
"""With a window of a minute or more, the server's RSS is reported every this often."""

SETTLE = 1.0
"""Seconds between the generator's last garbage collection and the window."""

GRACE = 2.0
"""Seconds the answers to actions sent in the window are still awaited after it."""


@dataclass
class Window:
    """The readings taken when the window opened, and when it closed."""

    t0: float
    collected_in: float
    samplers: list[Sampler]
    server_hist0: probes.Histograms
    server_cpu0: float
    own_cpu0: float
    tcp0: int | None
    steal0: float | None
    bots0: bots.ServerBots | None = None
    queue_depths: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    elapsed: float = 0.0
    own_cpu: float = 0.0
    tcp1: int | None = None
    steal1: float | None = None
    server_cpu: float | None = None


class Run(Tables):
    """One measured load against one server."""

    async def _warm_up(self) -> float:
        """Wait out the warm-up and stop the generator's own collector; the seconds its
        last collection took.

        The generator's own garbage collector, not the server, was behind most of the
        tail latency it reported: a full collection over 1,800 clients' parsed views
        stalled this process for 100-300 ms while the server answered in 2 ms. So the
        generator freezes what it holds and collects nothing from the end of the
        warm-up to the end of the window (bounded: `--duration` seconds); the server
        under test keeps its own collector.
        """
        o = self.options
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
        return collected_in

    async def _open(self, collected_in: float) -> Window:
        """Take the readings at the window's start, and open it."""
        pids = self.options.server_pids
        samplers = [Sampler(pid) for pid in pids]
        server_hist0 = await probes.server_histograms(self.bases)
        server_cpu0 = probes.cpu(pids)
        own_cpu0 = own_cpu_seconds()
        for sampler in samplers:
            sampler.start()
        tcp0 = probes.tcp_timeouts()
        steal0 = probes.steal_seconds()
        bots0 = await bots.read(self.bases, pids) if self.options.bots else None
        t0 = self.tally.window_start = time.perf_counter()
        self.tally.measuring = True
        for player in self.players:
            if player.watch is not None:
                player.watch.window = (t0, float("inf"))
        window = Window(
            t0, collected_in, samplers, server_hist0, server_cpu0, own_cpu0, tcp0, steal0
        )
        window.bots0 = bots0
        return window

    def _close(self, window: Window) -> None:
        """Close the window and take the readings at its end."""
        pids = self.options.server_pids
        self.tally.window_end = time.perf_counter()
        window.elapsed = self.tally.window_end - window.t0
        for player in self.players:
            if player.watch is not None:
                player.watch.window = (window.t0, self.tally.window_end)
        window.own_cpu = own_cpu_seconds() - window.own_cpu0
        window.tcp1 = probes.tcp_timeouts()
        window.steal1 = probes.steal_seconds()
        window.server_cpu = (probes.cpu(pids) - window.server_cpu0) if pids else None

    async def measure(self) -> dict[str, Any]:
        """Warm up, then measure for the duration; the figures."""
        o = self.options
        window = await self._open(await self._warm_up())
        probe = asyncio.create_task(probes.loop_lag(window.lags))
        # Read from /metrics, so only when there are bots to wait for: a scrape is work
        # of the server's own that the humans' latency would otherwise include.
        queue = asyncio.create_task(
            bots.sample_queue(self.bases, window.queue_depths) if o.bots else asyncio.sleep(0)
        )
        machine = await probes.start_pause_probes(o.duration) if o.machine_probe else []
        try:
            await asyncio.sleep(o.duration)
            self._close(window)
            bots1 = await bots.read(self.bases, o.server_pids) if o.bots else None
            await self._answered(GRACE)
        finally:
            self.tally.measuring = False
            probe.cancel()
            queue.cancel()
            gc.enable()
            gc.unfreeze()
        pauses = await probes.pause_probe_results(machine, window.t0)
        server_hist1 = await probes.server_histograms(self.bases)
        for sampler in window.samplers:
            await sampler.stop()
        result = self._figures(window)
        if pauses is not None:
            result.update(pauses)
        result.update(self._bot_figures(window.elapsed))
        if window.bots0 is not None and bots1 is not None:
            result.update(
                bots.figures(
                    self.bot_delays, window.bots0, bots1, window.queue_depths, window.elapsed
                )
            )
        window.lags.sort()
        result["generator_lag_p99_ms"] = probes.pct(window.lags, 99)
        result["generator_lag_max_ms"] = round(window.lags[-1] * 1000, 2) if window.lags else None
        result.update(probes.server_side(window.server_hist0, server_hist1))
        heap = await probes.gauges(self.bases, (probes.FROZEN, probes.LONGEST_FULL))
        if probes.FROZEN in heap:
            # Only where the server counts them (SCHMIER_GC_COUNT_OBJECTS), read after
            # the window: the count stops the server for tens of milliseconds.
            result["server_frozen_objects"] = int(heap[probes.FROZEN])
        if probes.LONGEST_FULL in heap:
            result["server_full_collection_longest_ms"] = round(1000 * heap[probes.LONGEST_FULL], 1)
        return result

    def _figures(self, w: Window) -> dict[str, Any]:
        """The window's figures: the actions and what went wrong, then what it cost."""
        return {**self._action_figures(w), **self._cost_figures(w)}

    def _action_figures(self, w: Window) -> dict[str, Any]:
        """How many actions were answered, how fast, and what went wrong."""
        o = self.options
        now = time.perf_counter()
        stalled = {p.code for p in self.players if now - p.last_progress > 5.0}
        # A room has stalled only if none of its players heard anything lately.
        alive = {p.code for p in self.players if now - p.last_progress <= 5.0}
        lat = sorted(self.tally.latencies)
        t = self.tally
        elapsed = w.elapsed
        return {
            "rooms": o.rooms,
            "sockets": len(self.players),
            "seconds": round(elapsed, 2),
            "actions": t.actions,
            "actions_per_s": round(t.actions / elapsed, 1),
            "p50_ms": probes.pct(lat, 50),
            "p95_ms": probes.pct(lat, 95),
            "p99_ms": probes.pct(lat, 99),
            "max_ms": round(lat[-1] * 1000, 2) if lat else None,
            "over_100ms": len(lat) - bisect.bisect_right(lat, 0.1),
            # (latency ms, seconds into the window it was sent), slowest first.
            "slowest": [
                [round(took * 1000, 1), round(sent - w.t0, 2)]
                for took, sent in sorted(t.slowest, reverse=True)
            ],
            # Actions over 20 ms by the second of the window they were sent in.
            "over_20ms_by_second": {str(s): n for s, n in sorted(t.slow_seconds.items())},
            # The same by what the actions were (`phase:type`), beside every action of
            # that kind in the window: which moment of a hand a burst belongs to.
            "over_20ms_by_kind": {
                k: [t.slow_kinds[k], n]
                for k, n in sorted(t.kinds.items(), key=lambda x: (-t.slow_kinds[x[0]], -x[1]))
            },
            # Retransmission timeouts of the whole machine's TCP in the window: loopback
            # loses no packets, so each one (at least 200 ms, Linux's minimum) is a
            # segment some socket had to send again; a latency that long is then not
            # the server's.
            "tcp_timeouts": (
                (w.tcp1 - w.tcp0) if w.tcp0 is not None and w.tcp1 is not None else None
            ),
            # Time the hypervisor ran something else on this VM's CPUs (all of them) in
            # the window: when both the generator and the server lag at once, this says
            # whether the machine itself was taken away.
            "steal_ms": (
                round(1000 * (w.steal1 - w.steal0))
                if w.steal0 is not None and w.steal1 is not None
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
        }

    def _cost_figures(self, w: Window) -> dict[str, Any]:
        """What the window cost the generator and the servers (CPU, memory)."""
        pids = self.options.server_pids
        t = self.tally
        elapsed, server_cpu, samplers = w.elapsed, w.server_cpu, w.samplers
        result: dict[str, Any] = {
            "generator_cpu_pct": round(100 * w.own_cpu / elapsed, 1),
            "generator_gc_ms": round(1000 * w.collected_in, 1),
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
        return result

    def _bot_figures(self, elapsed: float) -> dict[str, Any]:
        """What the bots-only rooms did (nothing without `--bot-rooms`)."""
        if not self.options.bot_rooms:
            return {}
        t = self.tally
        return {
            "bot_rooms": self.options.bot_rooms,
            "bot_states_per_s": round(t.bot_states / elapsed, 1),
            "bot_states_all": t.bot_states_all,
            "bot_games": t.bot_games,
            "bot_errors": sum(t.bot_errors.values()),
            "bot_error_codes": dict(t.bot_errors),
        }

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

    async def idle(self, rss0: int | None) -> dict[str, Any]:
        """Memory only: rooms joined but idle, then every seat connected, nobody acting.

        The server's RSS before, after the rooms are created and joined, and after every
        socket has said hello, gives the memory per idle room and per connected socket.
        """
        o = self.options
        if not o.server_pids or rss0 is None:
            raise SystemExit("--idle needs the server's pid (--server-pid or --spawn)")
        objects0 = (await probes.gauges(self.bases, (probes.FROZEN,))).get(probes.FROZEN)
        setup = await self.setup()
        await asyncio.sleep(2.0)
        after = probes.rss(o.server_pids)
        objects = (await probes.gauges(self.bases, (probes.FROZEN,))).get(probes.FROZEN)
        joined = self.idle_rss["rooms"]
        sockets = len(self.players)
        tracked = {}
        if objects0 is not None and objects is not None:
            # Tracked objects frozen by the server's collector: what a full collection walks.
            with_rooms = self.idle_objects.get("rooms", objects0)
            tracked = {
                "objects_per_idle_room": round((with_rooms - objects0) / o.rooms, 1),
                "objects_per_socket": round((objects - with_rooms) / sockets, 1),
                "server_frozen_objects": int(objects),
            }
        return {
            **tracked,
            "rooms": o.rooms,
            "sockets": sockets,
            "setup_s": round(setup, 2),
            "server_rss_before_mb": round(rss0 / 1024, 1),
            "server_rss_rooms_mb": round(joined / 1024, 1),
            "server_rss_sockets_mb": round(after / 1024, 1),
            "kib_per_idle_room": round((joined - rss0) / o.rooms, 1),
            "kib_per_socket": round((after - joined) / sockets, 1),
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
        pids = self.options.server_pids
        rss0 = probes.rss(pids) if pids else None
        try:
            if self.options.idle:
                return await self.idle(rss0)
            setup = await self.setup()
            result = await self.measure()
            result["setup_s"] = round(setup, 2)
            result.update(self.opening())
            if rss0 is not None:
                result["server_rss_before_mb"] = round(rss0 / 1024, 1)
            if self.options.storm:
                result["storm"] = await storm(self, self.players)
        finally:
            await self.teardown()
        return result
