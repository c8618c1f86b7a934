"""The command line of `python -m bench.load`: its options, spawned servers, the report."""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shlex
import sys
from typing import Any

import orjson

import bench.load
from bench.load.report import table
from bench.load.run import Run
from bench.load.spawn import Spawned
from bench.load.tally import SEATS, Options
from schmier.engine.bots.levels import BY_NAME

DEFAULT_URL = "http://127.0.0.1:8000"


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(bench.load.__doc__ or "").splitlines()[0],
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
    parser.add_argument(
        "--think-dist",
        choices=("uniform", "fixed", "exponential"),
        default="uniform",
        help="think times: uniform in T*(1±j), fixed T, or exponential of mean T",
    )
    opening = parser.add_mutually_exclusive_group()
    opening.add_argument(
        "--open-rate",
        type=float,
        default=0.0,
        metavar="N",
        help="open N tables a second, each starting once full (default: all together)",
    )
    opening.add_argument(
        "--in-step",
        action="store_true",
        help="set every table up, then start them all within one second (as after a restart)",
    )
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
        "--bots",
        type=int,
        default=0,
        help="server bots at every table, in its highest seats (the rest are simulated "
        "humans); their moves' delay beyond --bot-delay is reported",
    )
    parser.add_argument("--bot-level", choices=tuple(BY_NAME), default="strong")
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.8,
        help="with --bots: the server's SCHMIER_BOT_DELAY (a spawned server gets it)",
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
        help="run bench/load/pauses.py on every CPU over the window (real-time priority: "
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
    if not 0 <= args.bots < SEATS[args.variant]:
        parser.error("--bots must leave at least one seat to a simulated human")
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
        if args.bots:
            env.setdefault("SCHMIER_BOT_DELAY", str(args.bot_delay))
        if args.idle:
            # The objects per room and socket come from the server's count of its frozen
            # objects, which it exports only when asked (it stops the server to count).
            env.setdefault("SCHMIER_GC_COUNT_OBJECTS", "1")
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
        bots=args.bots,
        bot_level=args.bot_level,
        bot_delay=args.bot_delay if args.bots else 0.0,
        open_rate=args.open_rate,
        in_step=args.in_step,
        think_dist=args.think_dist,
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
    config.update(open_rate=args.open_rate, in_step=args.in_step, think_dist=args.think_dist)
    config["bot_rooms"] = args.bot_rooms
    if args.bots:
        config.update(bots=args.bots, bot_level=args.bot_level, bot_delay=args.bot_delay)
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
