"""Analyses kept running against a server, for measuring the players' latency beside them.

    python -m bench.coach.underload --port 8000 --streams 2 --seconds 90

Each stream is a room of `wisconsin4` (a random test player at seat 0, `normal` bots at
the others, so that hands come quickly, to the highest target) whose every finished
hand is analysed as soon as it is listed: asked for and polled until done. Run
it beside `python -m bench.load --url ...` against the same server (started with
`SCHMIER_BOT_DELAY=0` so that hands come quickly), and the load's p99 with and without
it is what analyses cost the players (docs/performance.md, "The coach under load").
Prints the analyses done and the seconds each took, as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from typing import Any

from bench.kit import loopback
from bench.kit.client import Client
from bench.kit.player import Player
from bench.kit.servers import RunningServer
from schmier import engine

VARIANT = "wisconsin4"


async def _analyse(
    server: RunningServer, code: str, stop: asyncio.Event, took: list[float]
) -> None:
    """Analyse each hand of room `code` once it is listed, one at a time."""
    done = 0
    base = f"/api/rooms/{code}"
    async with loopback.async_client(base_url=server.base_url) as http:
        while not stop.is_set():
            listed = (await http.get(f"{base}/hands")).json()
            if len(listed) <= done:
                await asyncio.sleep(0.5)
                continue
            n = done + 1
            start = time.monotonic()
            while not stop.is_set():
                answer = await http.get(f"{base}/hands/{n}/analysis")
                if answer.status_code == 200:
                    took.append(time.monotonic() - start)
                    break
                wait = float(answer.headers.get("Retry-After", "1"))
                await asyncio.sleep(min(wait, 5.0))
            done = n


async def _stream(server: RunningServer, k: int, stop: asyncio.Event, took: list[float]) -> None:
    code = await server.create_room(VARIANT, {"target": 99})
    _, token = await server.join(code, f"Coachee {k}", 0)
    client = await Client.seated(server, code, token)
    for seat in range(1, engine.seat_count(VARIANT)):
        await client.send({"type": "add_bot", "seat": seat, "bot": "normal"})
    await client.wait_state(lambda v: {"type": "start"} in v["legal"])
    await client.send({"type": "start"})
    player = Player(client, random.Random(k))
    analyser = asyncio.create_task(_analyse(server, code, stop, took))
    playing = asyncio.create_task(player.play_until(lambda v: v["phase"] == "game_over", 3600))
    try:
        await stop.wait()
    finally:
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
        await analyser
        await client.close()


async def run(port: int, streams: int, seconds: float) -> dict[str, Any]:
    server = RunningServer(port)
    stop = asyncio.Event()
    took: list[float] = []
    tasks = [asyncio.create_task(_stream(server, k, stop, took)) for k in range(streams)]
    await asyncio.sleep(seconds)
    stop.set()
    failed = [r for r in await asyncio.gather(*tasks, return_exceptions=True) if r is not None]
    ordered = sorted(took)
    return {
        "streams": streams,
        "seconds": seconds,
        "analyses": len(took),
        "seconds_each_median": ordered[len(ordered) // 2] if ordered else None,
        "seconds_each_max": ordered[-1] if ordered else None,
        "failed": [repr(e) for e in failed],
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.coach.underload")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--streams", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=90.0)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.port, args.streams, args.seconds))), flush=True)


if __name__ == "__main__":
    main()
