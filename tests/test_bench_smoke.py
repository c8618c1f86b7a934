"""Smoke runs of the load benchmark: it plays real games and reports its figures.

`python -m bench.load` is a tool for people, run by hand (docs/performance.md); the suite only
proves that it works end to end: against a real Schmier server it creates rooms, seats
a WebSocket client per seat, plays through the protocol without a single refused
action, and reports actions and latencies; and the same against the bare baseline
server (memory mode), which it spawns itself. No timing is asserted, only that work
was done and nothing went wrong.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.load.bots import BotDelays, BotWatch
from schmier.engine import PHASES
from tests.support.servers import RunningServer

REPO = Path(__file__).resolve().parents[1]


def run_load(*args: str) -> dict[str, Any]:
    """Run the generator with `--json`; its one run's figures."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.load", "--json", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, (
        f"bench.load failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    )
    report = json.loads(done.stdout)
    (result,) = report["results"].values()
    assert isinstance(result, dict)
    return result


def assert_played(result: dict[str, Any], rooms: int, seats: int) -> None:
    """Actions were answered and measured, and nothing was refused, closed or stuck."""
    assert result["rooms"] == rooms
    assert result["sockets"] == rooms * seats
    assert result["actions"] > 0
    assert result["p50_ms"] is not None and result["max_ms"] >= result["p99_ms"] >= result["p50_ms"]
    assert result["errors"] == 0, result["error_codes"]
    assert result["closes"] == 0, result["close_codes"]
    assert result["stalled_rooms"] == 0
    assert result["setup_failures"] == 0, result["setup_failure_kinds"]
    assert result["frames_per_s"] > 0
    # Seconds (as text: JSON's keys) of the window with actions over 20 ms.
    assert all(key.isdigit() for key in result["over_20ms_by_second"])


def test_load_plays_against_schmier(server: RunningServer) -> None:
    """Two rooms of schmier6 for about three seconds against the test's own server."""
    result = run_load(
        "--url", server.base_url, "--rooms", "2", "--duration", "3", "--warmup", "0.5"
    )
    assert_played(result, rooms=2, seats=6)
    # The server runs in this process; without --server-pid its costs are not read.
    assert result["server_cpu_pct"] is None


def test_load_plays_wisconsin_against_schmier(server: RunningServer) -> None:
    """The kitty discard and four seats: another shape of game, also without errors."""
    result = run_load(
        "--url",
        server.base_url,
        "--rooms",
        "2",
        "--variant",
        "wisconsin4",
        "--duration",
        "2",
        "--warmup",
        "0.5",
    )
    assert_played(result, rooms=2, seats=4)


def test_load_against_the_spawned_baseline_in_memory() -> None:
    """The baseline server (memory mode), spawned and stopped by the load itself, and
    read from /proc: its CPU and memory figures are there."""
    result = run_load(
        "--spawn", "baseline", "--memory", "--rooms", "2", "--duration", "2", "--warmup", "0.5"
    )
    assert_played(result, rooms=2, seats=6)
    assert result["server"] == "baseline" and result["store"] == "memory"
    assert result["server_cpu_pct"] is not None and result["server_cpu_pct"] > 0
    assert result["server_rss_peak_mb"] > 0


def test_load_spreads_rooms_over_two_spawned_instances(redis_url: str) -> None:
    """`--instances 2`: two Schmier processes sharing one Redis, rooms created and played
    on both, their CPU and their own latency histograms summed."""
    result = run_load(
        "--spawn", "--redis", "--instances", "2", "--rooms", "4", "--duration", "2",
        "--warmup", "0.5",
    )  # fmt: skip
    assert_played(result, rooms=4, seats=6)
    assert result["instances"] == 2
    assert result["server_cpu_pct"] is not None and result["server_cpu_pct"] > 0
    # Both servers' histograms were read: every action answered is one of their messages.
    assert result["server_messages"] >= result["actions"]
    # So were the Redis store's counters: no outage in the window.
    assert result["server_store_outages"] == 0
    # And every action of the window is counted by its kind, the slow ones beside them.
    kinds = result["over_20ms_by_kind"]
    assert "play:play" in kinds and all(slow <= total for slow, total in kinds.values())
    assert sum(total for _, total in kinds.values()) == result["actions"]


def test_load_with_bots_only_rooms_and_the_servers_loop_lag() -> None:
    """`--bot-rooms`: a room of bots playing beside the players (its changes counted),
    and the spawned server's own loop lag read from its /metrics."""
    result = run_load(
        "--spawn", "--memory", "--rooms", "2", "--bot-rooms", "1", "--think", "0.2",
        "--duration", "2", "--warmup", "2",
    )  # fmt: skip
    assert_played(result, rooms=2, seats=6)
    assert result["bot_rooms"] == 1
    # Counted from the start (the server's bot workers take a moment to start).
    assert result["bot_states_all"] > 0
    assert result["bot_errors"] == 0, result["bot_error_codes"]
    assert result["server_lag_samples"] > 0
    assert result["server_lag_max_ms"] >= result["server_lag_p99_ms"] > 0


def test_load_seats_server_bots_beside_the_humans_and_times_their_moves() -> None:
    """`--bots 3 --bot-level strong`: three humans and three `strong` bots a table; the
    bots' moves are timed from the tables, the server's search decisions counted by
    budget and its workers' CPU read (every figure present, none asserted on)."""
    result = run_load(
        "--spawn", "--memory", "--rooms", "2", "--bots", "3", "--bot-level", "strong",
        "--bot-delay", "0.1", "--think", "0.2", "--duration", "4", "--warmup", "2",
    )  # fmt: skip
    assert_played(result, rooms=2, seats=3)
    assert result["bot_moves"] > 0
    assert result["bot_delay_max_ms"] >= result["bot_delay_p99_ms"] >= result["bot_delay_p50_ms"]
    # The latest moves, latest first, the first of them the maximum, each with when its
    # turn began in the window and in which phase.
    slowest = result["bot_slowest"]
    assert 1 <= len(slowest) <= 5
    assert [s[0] for s in slowest] == sorted((s[0] for s in slowest), reverse=True)
    assert slowest[0][0] == result["bot_delay_max_ms"]
    assert all(0 <= at <= result["seconds"] and phase in PHASES for _, at, phase in slowest)
    assert result["bot_searches"] > 0
    assert sum(result["bot_budgets"].values()) == result["bot_searches"]
    assert 0 <= result["bot_full_strength_pct"] <= 100
    assert result["bot_cpu_ms_per_search"] is not None
    assert result["bot_queue_max"] is not None


def test_a_bot_move_counts_when_its_turn_began_in_the_window_and_it_came_before_the_end() -> None:
    """The watcher's rule, on made-up frames: a bot's turn begun before the window, or
    answered only after the window closed (the generator then busy with its closing
    work), is not timed; the others are, less the bot delay, the latest kept."""
    moves = BotDelays()
    watch = BotWatch(0.8, moves)
    watch.window = (100.0, 200.0)
    bot_turn = {"phase": "play", "turn": [1], "seats": [{"kind": "human"}, {"kind": "bot"}]}
    human_turn = {**bot_turn, "turn": [0]}
    timeline = [
        (99.5, bot_turn),
        (100.4, human_turn),  # began before the window
        (120.0, bot_turn),
        (120.9, human_turn),  # 0.1 s past the delay
        (150.0, bot_turn),
        (151.3, human_turn),  # 0.5 s past it
        (199.6, bot_turn),
        (203.0, human_turn),  # came after the window closed
    ]
    for seq, (at, view) in enumerate(timeline):
        watch.state(seq, view, at)
    assert [round(d, 3) for d in moves.delays] == [0.1, 0.5]
    assert [(round(d, 3), at, phase) for d, at, phase in sorted(moves.slowest, reverse=True)] == [
        (0.5, 50.0, "play"),
        (0.1, 20.0, "play"),
    ]


def test_load_starts_its_tables_in_step_or_opens_them_paced(server: RunningServer) -> None:
    """`--in-step` (every table set up, then all started within a second) with fixed
    think times, and `--open-rate` (tables opened a few a second, each playing once
    full) with exponential ones: both play without a refused action, and say so."""
    for options, opening, dist in [
        (("--in-step", "--think-dist", "fixed"), "in step", "fixed"),
        (("--open-rate", "4", "--think-dist", "exponential"), "4/s", "exponential"),
    ]:
        result = run_load(
            "--url", server.base_url, "--rooms", "3", "--think", "0.1", "--duration", "2",
            "--warmup", "0.5", *options,
        )  # fmt: skip
        assert_played(result, rooms=3, seats=6)
        assert (result["opening"], result["think_dist"]) == (opening, dist)
        # The frozen objects are not counted in a run that measures latency (the count
        # stops the server); the longest full collection is read instead.
        assert "server_frozen_objects" not in result
        assert result["server_full_collection_longest_ms"] >= 0


def test_load_idle_counts_the_objects_per_room_and_socket() -> None:
    """`--idle` on a spawned server: it turns on the server's count of its frozen
    objects (SCHMIER_GC_COUNT_OBJECTS) and reports the objects each idle room and each
    connected socket adds (both positive: the collector froze them)."""
    result = run_load("--spawn", "--memory", "--rooms", "2", "--idle")
    assert result["sockets"] == 12 and result["errors"] == 0
    assert result["objects_per_idle_room"] > 0
    assert result["objects_per_socket"] > 0
    assert result["server_frozen_objects"] > 0
