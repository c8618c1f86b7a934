"""Prometheus metrics, one registry per app so that tests can run many servers."""

from __future__ import annotations

import platform

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from schmier import __version__


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

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        data: bytes = generate_latest(self.registry)
        return data
