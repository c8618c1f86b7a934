"""The figures of one or more runs as a table for people (`--json` prints them raw)."""

from __future__ import annotations

from typing import Any

from bench.load.run import RSS_SERIES_SECONDS

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
    ("bot_moves", "bot moves timed"),
    ("bot_delay_p50_ms", "bot move delay beyond SCHMIER_BOT_DELAY p50 ms"),
    ("bot_delay_p99_ms", "bot move delay beyond SCHMIER_BOT_DELAY p99 ms"),
    ("bot_delay_max_ms", "bot move delay beyond SCHMIER_BOT_DELAY max ms"),
    ("bot_slowest", "latest bot moves ms (turn began at s into window, phase)"),
    ("bot_searches", "bot search decisions"),
    ("bot_full_strength_pct", "bot searches at full strength %"),
    ("bot_budgets", "bot searches by budget"),
    ("bot_cpu_ms_per_search", "bot workers' CPU ms per search"),
    ("bot_busy_ms_per_search", "bot worker busy ms per search (wall)"),
    ("bot_workers_cpu_pct", "bot workers' CPU % of a core"),
    ("bot_queue_mean", "moves waiting for a worker, mean"),
    ("bot_queue_max", "moves waiting for a worker, max"),
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
    ("server_store_outages", "server: store outages in the window"),
    ("server_full_collection_longest_ms", "server: longest full collection since start ms"),
    ("server_frozen_objects", "server: objects frozen (tracked, long-lived)"),
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
    ("objects_per_idle_room", "tracked objects per idle room"),
    ("objects_per_socket", "tracked objects per connected socket"),
    ("opening", "tables opened"),
    ("think_dist", "think times"),
]


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list) and all(isinstance(v, list) and len(v) == 2 for v in value):
        return ", ".join(f"{ms:g} ({at:g})" for ms, at in value) or "-"
    if isinstance(value, list) and all(isinstance(v, list) and len(v) == 3 for v in value):
        return ", ".join(f"{ms:g} ({at:g}, {what})" for ms, at, what in value) or "-"
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
        slow = results[name].get("over_20ms_by_second")
        if slow:
            seconds = ", ".join(f"{at}: {count}" for at, count in slow.items())
            out.append(f"actions over 20 ms by second of the window ({name}): {seconds}")
        kinds = results[name].get("over_20ms_by_kind")
        slow_kinds = [f"{k}: {n} of {total}" for k, (n, total) in (kinds or {}).items() if n]
        if slow_kinds:
            out.append(f"actions over 20 ms by kind ({name}): {', '.join(slow_kinds)}")
        storm = results[name].get("storm")
        if storm:
            out.append(
                f"reconnect storm ({name}): {storm['reconnected']}/{storm['sockets']} sockets"
                f" have their state again after {storm['all_seconds']} s"
                f" (p50 {storm['p50_ms']} ms, p99 {storm['p99_ms']} ms),"
                f" failed: {storm['failed'] or 0}"
            )
    return "\n".join(out)
