"""Soak run: many whole bot games against a real server on Redis, watching for leaks.

Not a unit test: it runs for many minutes. It starts `python -m schmier` as a child process
on Redis under a fresh key prefix (bots act at once, no pause between hands, a low
target), then plays `--games` games with `--concurrency` at a time. Each game: create a
room, join one seat, fill the others with `add_bot`, start, `leave` (a bot takes the
seat over and the socket becomes a spectator's) and watch until `game_over`.

While the games run, and for a while after the last one, it samples the server's
resident memory (from `/proc`), its asyncio task count, live rooms and sockets (from
`/metrics`) and the number of Redis keys under the prefix. A leak shows as growth across
the run that does not come back once the rooms go idle and their keys expire
(`SCHMIER_IDLE_ROOM_SECONDS` and `SCHMIER_ROOM_TTL` are set short for that).

    python -m bench.soak --games 1000 --concurrency 8 --json soak.json

Prints one line per sample and a summary table; `--json` writes every sample.

`--silent N` measures the other flood first (with `--games 0`, instead of the games):
N sockets that open and never say hello, against a server with a short
`SCHMIER_HELLO_TIMEOUT`. It reports the close codes they got, how long the last one took,
the server's memory with all of them open, and the round trip of a lobby action in
another room before and during the flood.

    python -m bench.soak --games 0 --silent 3000
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import redis.asyncio as aioredis
import websockets

from bench.kit import rooms
from bench.kit.client import Client, encode, hello, open_socket
from bench.kit.keys import CHUNK, delete_prefix_async, fresh_prefix
from bench.kit.ports import free_port
from bench.kit.procstat import memory_kib
from bench.kit.servers import schmier_command, schmier_env, start_child
from bench.kit.stats import percentile

VARIANTS = ("schmier6", "schmier5", "wisconsin4")
GAME_FRAME_TIMEOUT = 3600.0
"""How long a watcher waits for its next frame (`--game-timeout` bounds the game)."""
SEATS = {"schmier6": 6, "schmier5": 5, "wisconsin4": 4}


@dataclass
class Sample:
    """One look at the server."""

    t: float
    games_done: int
    rss_kib: int
    tasks: int
    live_rooms: int
    sockets: int
    redis_keys: int


def rss_kib(pid: int) -> int:
    return memory_kib(pid).get("VmRSS", 0)


def metric(text: str, name: str) -> int:
    found = re.search(rf"^{name} ([0-9.e+]+)$", text, re.M)
    return int(float(found.group(1))) if found else -1


async def play_one(http: httpx.AsyncClient, ws_base: str, index: int) -> int:
    """One whole bot game; the number of state frames the watcher saw."""
    variant = VARIANTS[index % len(VARIANTS)]
    code = await rooms.create_room(http, variant, {"target": 5})
    _, token = await rooms.join(http, code, "Soak", 0)
    client = await Client.connect(f"{ws_base}/ws/{code}")
    try:
        state = await client.hello(token)
        frames = 1
        for seat in range(1, SEATS[variant]):
            await client.send({"type": "add_bot", "seat": seat})
        started = left = False
        while True:
            view = state["view"]
            if not started and {"type": "start"} in view["legal"]:
                await client.send({"type": "start"})
                started = True
            elif view["phase"] not in ("lobby", "game_over") and not left:
                await client.send({"type": "leave"})
                left = True
            elif view["phase"] == "game_over":
                return frames
            frame = await client.recv(timeout=GAME_FRAME_TIMEOUT)
            if frame["type"] == "error":
                raise RuntimeError(f"room {code}: {frame}")
            if frame["type"] == "state":
                state = frame
                frames += 1
    finally:
        await client.close()


async def sampler(
    pid: int,
    http: httpx.AsyncClient,
    store: aioredis.Redis,
    prefix: str,
    done: list[int],
    samples: list[Sample],
    every: float,
    stop: asyncio.Event,
) -> None:
    start = time.monotonic()
    while True:
        text = (await http.get("/metrics")).text
        keys = 0
        async for _ in store.scan_iter(match=prefix + "*", count=CHUNK):
            keys += 1
        sample = Sample(
            t=round(time.monotonic() - start, 1),
            games_done=done[0],
            rss_kib=rss_kib(pid),
            tasks=metric(text, "schmier_asyncio_tasks"),
            live_rooms=metric(text, "schmier_live_rooms"),
            sockets=metric(text, "schmier_connected_sockets"),
            redis_keys=keys,
        )
        samples.append(sample)
        print(json.dumps(asdict(sample)), flush=True)
        # Stopping takes one last sample first: with a settle shorter than `every`, the
        # games' end would otherwise fall after the last sample taken.
        if stop.is_set():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)


async def round_trips(ws: Any, count: int) -> list[float]:
    """Milliseconds from sending a lobby action to seeing its state frame, `count` times."""
    times = []
    for n in range(count):
        frame = {"type": "add_bot" if n % 2 == 0 else "remove_bot", "seat": 1}
        began = time.perf_counter()
        await ws.send(encode(frame))
        while orjson.loads(await asyncio.wait_for(ws.recv(), 30))["type"] not in ("state", "error"):
            pass
        times.append((time.perf_counter() - began) * 1000)
    return times


def quantiles(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(percentile(values, 0.50), 2),
        "p95_ms": round(percentile(values, 0.95), 2),
        "max_ms": round(max(values), 2),
    }


async def silent(args: argparse.Namespace, port: int, pid: int) -> dict[str, Any]:
    """Open `args.silent` sockets that never say hello; see what happens to them."""
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        victim = await rooms.create_room(http, "schmier6")
        other = await rooms.create_room(http, "schmier6")
        _, token = await rooms.join(http, other, "P")
        rss_before = rss_kib(pid)
        async with await open_socket(f"ws://127.0.0.1:{port}/ws/{other}") as player:
            await player.send(encode(hello(token)))
            await player.recv()
            quiet = await round_trips(player, 100)
            began = time.monotonic()
            sockets: list[Any] = []
            for _ in range(0, args.silent, 200):
                batch = [
                    open_socket(f"ws://127.0.0.1:{port}/ws/{victim}", open_timeout=60)
                    for _ in range(min(200, args.silent - len(sockets)))
                ]
                sockets += await asyncio.gather(*batch)
            opened = time.monotonic() - began
            text = (await http.get("/metrics")).text
            rss_open = rss_kib(pid)
            busy = await round_trips(player, 100)

            async def closed_code(ws: Any) -> int | None:
                with contextlib.suppress(websockets.ConnectionClosed):
                    await ws.recv()
                return ws.close_code  # type: ignore[no-any-return]

            codes = await asyncio.gather(*(closed_code(ws) for ws in sockets))
            all_closed = time.monotonic() - began
        counts: dict[str, int] = {}
        for code in codes:
            counts[str(code)] = counts.get(str(code), 0) + 1
        return {
            "silent_sockets": args.silent,
            "hello_timeout_s": args.hello_timeout,
            "seconds_to_open_all": round(opened, 1),
            "seconds_until_all_closed": round(all_closed, 1),
            "close_codes": counts,
            "sockets_gauge_with_all_open": metric(text, "schmier_connected_sockets"),
            "rss_mib_before": round(rss_before / 1024, 1),
            "rss_mib_all_open": round(rss_open / 1024, 1),
            "kib_per_socket": round((rss_open - rss_before) / args.silent, 1),
            "other_room_round_trip_quiet": quantiles(quiet),
            "other_room_round_trip_during": quantiles(busy),
        }


def server_env(args: argparse.Namespace, prefix: str) -> dict[str, str]:
    """The soaked server's settings: Redis under `prefix`, bots at once, no pauses,
    rooms unloaded and expired soon after their game, limits out of the way."""
    return {
        "SCHMIER_REDIS_URL": args.redis,
        "SCHMIER_REDIS_PREFIX": prefix,
        "SCHMIER_BOT_DELAY": "0",
        "SCHMIER_HAND_PAUSE": "0",
        "SCHMIER_TRICK_PAUSE": "0",
        "SCHMIER_IDLE_ROOM_SECONDS": str(args.idle),
        "SCHMIER_ROOM_TTL": str(args.ttl),
        "SCHMIER_CREATE_RATE": "1000000",
        "SCHMIER_JOIN_RATE": "1000000",
        "SCHMIER_LOG_LEVEL": "WARNING",
        "SCHMIER_HELLO_TIMEOUT": str(args.hello_timeout),
        "SCHMIER_FRAME_BURST": "1000",
        "SCHMIER_FRAME_RATE": "1000",
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    port = free_port()
    prefix = fresh_prefix("schmier-soak", 8)
    server = start_child(schmier_command(), schmier_env(server_env(args, prefix), port), port)
    base = server.url
    store = aioredis.Redis.from_url(args.redis)
    samples: list[Sample] = []
    done = [0]
    failures: list[str] = []
    try:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            if args.silent:
                flood = await silent(args, port, server.pid)
                print(json.dumps(flood, indent=1), flush=True)
                if not args.games:
                    return {"silent": flood}
            stop = asyncio.Event()
            watch = asyncio.create_task(
                sampler(server.pid, http, store, prefix, done, samples, args.every, stop)
            )
            queue: asyncio.Queue[int] = asyncio.Queue()
            for i in range(args.games):
                queue.put_nowait(i)
            began = time.monotonic()

            async def worker() -> None:
                while not queue.empty():
                    index = queue.get_nowait()
                    try:
                        await asyncio.wait_for(
                            play_one(http, f"ws://127.0.0.1:{port}", index), args.game_timeout
                        )
                    except Exception as exc:  # a failed game is a finding, not a crash
                        failures.append(f"game {index}: {type(exc).__name__}: {exc}"[:300])
                    done[0] += 1

            await asyncio.gather(*(worker() for _ in range(args.concurrency)))
            games_seconds = time.monotonic() - began
            # Let the rooms go idle and unload, then their keys expire.
            await asyncio.sleep(args.settle)
            stop.set()
            await watch
    finally:
        server.stop(grace=20)
        log = server.tail()
        server.forget_log()
        if "Traceback" in log or "ERROR" in log:
            print(f"--- server stderr (tail) ---\n{log}", file=sys.stderr)
        await delete_prefix_async(store, prefix)
        await store.aclose()
    during = [s for s in samples if 0 < s.games_done < args.games]
    return {
        "games": args.games,
        "failed_games": len(failures),
        "failures": failures[:10],
        "games_seconds": round(games_seconds, 1),
        "games_per_second": round(args.games / games_seconds, 2),
        "first": asdict(samples[0]),
        "quarter": asdict(during[len(during) // 4]) if during else None,
        "three_quarters": asdict(during[3 * len(during) // 4]) if during else None,
        "end_of_games": asdict(next(s for s in samples if s.games_done >= args.games)),
        "after_settle": asdict(samples[-1]),
        "max": {
            k: max(getattr(s, k) for s in samples)
            for k in ("rss_kib", "tasks", "live_rooms", "sockets", "redis_keys")
        },
        "samples": [asdict(s) for s in samples],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between samples")
    parser.add_argument("--idle", type=float, default=5.0, help="SCHMIER_IDLE_ROOM_SECONDS")
    parser.add_argument("--ttl", type=int, default=60, help="SCHMIER_ROOM_TTL (>= 60)")
    parser.add_argument("--settle", type=float, default=75.0, help="seconds watched after")
    parser.add_argument("--game-timeout", type=float, default=300.0)
    parser.add_argument("--json", type=Path, help="write the summary and samples here")
    parser.add_argument("--silent", type=int, default=0, help="silent sockets to open")
    parser.add_argument("--hello-timeout", type=float, default=10.0)
    args = parser.parse_args()
    result = asyncio.run(run(args))
    if "samples" not in result:
        if args.json:
            args.json.write_text(json.dumps(result, indent=1))
        return
    samples = result.pop("samples")
    print("\n   point            games   RSS MiB  tasks  rooms  sockets  redis keys")
    for label in ("first", "quarter", "three_quarters", "end_of_games", "after_settle"):
        s = result[label]
        if s is None:
            continue
        print(
            f"   {label:<15} {s['games_done']:>6} {s['rss_kib'] / 1024:>9.1f} {s['tasks']:>6}"
            f" {s['live_rooms']:>6} {s['sockets']:>8} {s['redis_keys']:>11}"
        )
    print(json.dumps({k: v for k, v in result.items() if k not in ("first",)}, indent=1))
    if args.json:
        args.json.write_text(json.dumps({**result, "samples": samples}, indent=1))


if __name__ == "__main__":
    main()
