"""Analyses kept running against a server, for measuring the players' latency beside them.

    python -m bench.coach.underload --port 8000 --streams 2 --seconds 90

Each stream is a room of `wisconsin4` (a random test player at seat 0, `normal` bots at
the others, so that hands come quickly, to the highest target) whose every finished
hand is analysed as soon as it is listed: asked for and polled until done. Run
it beside `python -m bench.load --url ...` against the same server (started with
`SCHMIER_BOT_DELAY=0` so that hands come quickly), and the load's p99 with and without
it is what analyses cost the players (docs/performance.md, "The coach under load").
Prints the analyses done and the seconds each took, as JSON.

    python -m bench.coach.underload --port 8000 --streams 2 --hands 8 --seconds 60

With `--hands N` each stream plays N hands first, then stops playing (its room waits
for its player) and only asks for their analyses, saying "analysing" on stderr as it
starts: the load started then runs beside analyses alone, not beside two rooms playing
flat out as well.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from bench.kit import loopback
from bench.kit.client import Client
from bench.kit.player import Player
from bench.kit.servers import RunningServer
from schmier import engine

VARIANT = "wisconsin4"


async def _analyse(
    server: RunningServer, code: str, stop: asyncio.Event, took: list[float], upto: int | None
) -> None:
    """Analyse each hand of room `code` once it is listed, one at a time (hands 1 to
    `upto` when given, all of them listed already)."""
    done = 0
    base = f"/api/rooms/{code}"
    async with loopback.async_client(base_url=server.base_url) as http:
        while not stop.is_set() and (upto is None or done < upto):
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


def _hands_played(hands: int) -> Callable[[dict[str, Any]], bool]:
    """Whether `hands` hands have been scored, from the views one after another (each
    scored hand shows as a new `last_hand`)."""
    seen: list[Any] = []

    def played(view: dict[str, Any]) -> bool:
        last = view.get("last_hand")
        if last is not None and (not seen or seen[-1] != last):
            seen.append(last)
        return len(seen) >= hands

    return played


async def _stream(
    server: RunningServer,
    k: int,
    stop: asyncio.Event,
    took: list[float],
    hands: int | None,
    ready: asyncio.Barrier,
) -> None:
    code = await server.create_room(VARIANT, {"target": 99})
    _, token = await server.join(code, f"Coachee {k}", 0)
    client = await Client.seated(server, code, token)
    for seat in range(1, engine.seat_count(VARIANT)):
        await client.send({"type": "add_bot", "seat": seat, "bot": "normal"})
    await client.wait_state(lambda v: {"type": "start"} in v["legal"])
    await client.send({"type": "start"})
    player = Player(client, random.Random(k))
    if hands is not None:
        # Play the hands first, then only analyse them: the room waits for its player
        # meanwhile, so what runs beside the load is the analyses alone.
        await player.play_until(_hands_played(hands), 3600)
        await ready.wait()
        await _analyse(server, code, stop, took, hands)
        await stop.wait()
        await client.close()
        return
    analyser = asyncio.create_task(_analyse(server, code, stop, took, None))
    playing = asyncio.create_task(player.play_until(lambda v: v["phase"] == "game_over", 3600))
    try:
        await stop.wait()
    finally:
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
        await analyser
        await client.close()


async def run(port: int, streams: int, seconds: float, hands: int | None) -> dict[str, Any]:
    server = RunningServer(port)
    stop = asyncio.Event()
    took: list[float] = []
    ready = asyncio.Barrier(streams + 1)
    tasks = [
        asyncio.create_task(_stream(server, k, stop, took, hands, ready)) for k in range(streams)
    ]
    if hands is not None:
        await ready.wait()
        print("analysing", file=sys.stderr, flush=True)
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
    parser.add_argument(
        "--hands",
        type=int,
        default=None,
        help="play this many hands a stream first, then only analyse them for --seconds "
        '(says "analysing" on stderr when it starts)',
    )
    args = parser.parse_args()
    result = asyncio.run(run(args.port, args.streams, args.seconds, args.hands))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
