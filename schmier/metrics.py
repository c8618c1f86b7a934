"""Prometheus metrics, one registry per app so that tests can run many servers."""

from __future__ import annotations

import platform
from collections.abc import Iterable

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

from schmier import __version__, looplag
from schmier.store import RedisStore, RoomStore


class _StoreCollector:
    """The Redis store's own counters, read at scrape time: the commit connection (in
    flight, reconnects, commits no replica acknowledged in time) and the store's health."""

    def __init__(self, store: RedisStore) -> None:
        self._store = store

    def collect(self) -> Iterable[Metric]:
        wire, health = self._store.wire, self._store.health
        yield GaugeMetricFamily(
            "schmier_store_up",
            "1 while the store answers, 0 during an outage (as this instance sees it).",
            value=1 if health.up else 0,
        )
        yield CounterMetricFamily(
            "schmier_store_outages",
            "Times the store became unreachable.",
            value=health.outages,
        )
        yield GaugeMetricFamily(
            "schmier_commit_wire_in_flight",
            "Commands written on the commit connection and not answered yet.",
            value=wire.in_flight,
        )
        yield CounterMetricFamily(
            "schmier_commit_wire_reconnects",
            "Times the commit connection was opened again after its first connection.",
            value=max(0, wire.connects - 1),
        )
        yield CounterMetricFamily(
            "schmier_commits_unreplicated",
            "Commits whose WAIT ended short of SCHMIER_REDIS_WAIT_REPLICAS replicas.",
            value=wire.unreplicated,
        )


class Metrics:
    """The server's gauges and counters, exported at `GET /metrics`."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.live_rooms = Gauge(
            "schmier_live_rooms", "Rooms loaded in memory with a running actor.",
            registry=self.registry,
        )  # fmt: skip
        self.sockets = Gauge(
            "schmier_connected_sockets", "Open WebSocket connections.", registry=self.registry
        )
        self.open_sockets = 0
        """The same count as a plain number, for the garbage collector's growth rule."""
        self.actions = Counter(
            "schmier_actions_applied", "Room changes committed (actions, joins, deals).",
            registry=self.registry,
        )  # fmt: skip
        self.refused = Counter(
            "schmier_actions_refused", "Frames answered with an error.", ["code"],
            registry=self.registry,
        )  # fmt: skip
        self.latency = Histogram(
            "schmier_action_latency_seconds",
            "Time from a frame (or other message) reaching a room to its views being sent.",
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
            registry=self.registry,
        )
        self.gc_pauses = Histogram(
            "schmier_gc_pause_seconds",
            "Garbage collections run by the server (schmier/collector.py), by generation.",
            ["generation"],
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
            registry=self.registry,
        )
        self.loop_lag = Histogram(
            "schmier_loop_lag_seconds",
            "How late the event loop woke a task sleeping a fixed interval: the stall "
            "every room on this process felt (schmier/looplag.py).",
            buckets=looplag.BUCKETS,
            registry=self.registry,
        )
        self.store_errors = Counter(
            "schmier_store_errors", "Store operations that failed.", registry=self.registry
        )
        self.build_info = Gauge(
            "schmier_build_info",
            "Always 1; the labels say which release runs, on which Python.",
            ["version", "python", "implementation"],
            registry=self.registry,
        )
        self.build_info.labels(
            __version__, platform.python_version(), platform.python_implementation()
        ).set(1)
        # The process (memory, CPU, file descriptors), the platform and the garbage
        # collector, as prometheus_client exports them on its default registry.
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        self.takeovers = Counter(
            "schmier_lease_takeovers",
            "Rooms this instance took over from an owner that died or gave them up.",
            registry=self.registry,
        )
        self.renewal_failures = Counter(
            "schmier_lease_renewal_failures",
            "Lease renewal rounds that failed (the store did not answer).",
            registry=self.registry,
        )
        self.lease_regains = Counter(
            "schmier_lease_regains",
            "Leases that expired in Redis (an outage) and were taken again by their owner.",
            registry=self.registry,
        )
        self.leases_lost = Counter(
            "schmier_leases_lost",
            "Leases found held by another instance: the room moved there.",
            registry=self.registry,
        )
        self.owned_rooms = Gauge(
            "schmier_leases_held", "Rooms whose lease this instance holds.", registry=self.registry
        )
        self.bus_dropped = Counter(
            "schmier_bus_messages_dropped",
            "Messages to other instances given up after three failed publishes.",
            registry=self.registry,
        )
        self.limit_fallbacks = Counter(
            "schmier_limit_fallbacks",
            "Rate-limit checks counted in this instance alone because Redis did not answer.",
            registry=self.registry,
        )

        self.outbox_pending = Gauge(
            "schmier_archive_outbox_pending",
            "Finished games waiting in the outbox to be archived (docs/archive.md; with "
            "Redis the outbox is shared, so every instance shows the same figure).",
            registry=self.registry,
        )
        self.outbox_oldest = Gauge(
            "schmier_archive_outbox_oldest_seconds",
            "Seconds since the oldest game waiting in the outbox ended (0: none waits).",
            registry=self.registry,
        )
        self.archive_failures = Counter(
            "schmier_archive_failures",
            "Attempts to archive a game that failed (the database or the store did not "
            "answer); the game stays in the outbox and is tried again.",
            registry=self.registry,
        )
        self.archived = Counter(
            "schmier_archive_games",
            "Games this instance wrote to the archive.",
            registry=self.registry,
        )
        self.archive_lost = Counter(
            "schmier_archive_games_lost",
            "Outbox entries dropped because their room's log no longer held the game "
            "(it expired before the database came back).",
            registry=self.registry,
        )

    def watch_store(self, store: RoomStore) -> None:
        """Export the Redis store's own counters (nothing for the memory store)."""
        if isinstance(store, RedisStore):
            self.registry.register(_StoreCollector(store))

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        data: bytes = generate_latest(self.registry)
        return data
