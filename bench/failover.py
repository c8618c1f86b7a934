"""Failover time: kill the owner of a room mid-game, time the way back to a live game.

    python -m bench.failover [--runs 5] [--lease-ms 5000] [--graceful] [--json]

Each run starts two instances (`python -m schmier` child processes) on one Redis under a
fresh key prefix, opens a `wisconsin4` room on instance A (so A owns it), seats a
player there and one on instance B, starts the game and plays until the player on A
has the turn in the middle of a hand. Then A is killed with SIGKILL (or, with
`--graceful`, stopped with SIGTERM, as in a rolling restart) and the clock starts: the
player reconnects to B at once and says hello; the clock stops when the first `state`
frame arrives, i.e. when B has taken the room over from the store and serves it. The
state is checked to be the one before the kill (same hand, same trick, same turn).

Without `--graceful` the failover time is bounded by the lease: B may take the room
only once A's lease has expired, which is between 2/3 and all of `--lease-ms` after
the kill (A renews every third of the lease; the kill falls at a random point of that
cycle). The median of the runs is printed (and the runs, with `--json`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import time
from typing import Any

from bench.kit.client import Client
from bench.kit.keys import delete_prefix, fresh_prefix
from bench.kit.player import Player
from bench.kit.servers import cluster_env, start_subprocess_server

REDIS_URL = os.environ.get("SCHMIER_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
FIELDS = ("phase", "hand", "trick", "tricks", "scores", "turn", "dealer", "legal")


def mid_hand(view: dict[str, Any]) -> bool:
    return view["phase"] == "play" and bool(view["trick"]) and view["turn"] == [0]


async def one_run(lease_ms: int, graceful: bool, seed: int) -> float:
    prefix = fresh_prefix("schmier-bench")
    procs = []
    try:
        envs = [cluster_env(REDIS_URL, prefix, name, lease_ms) for name in ("a", "b")]
        (a, proc_a), (b, proc_b) = [start_subprocess_server(env) for env in envs]
        procs = [proc_a, proc_b]
        code = await a.create_room("wisconsin4", {"target": 21})
        _, token0 = await a.join(code, "A", 0)
        _, token2 = await b.join(code, "B", 2)
        first = await Client.seated(a, code, token0)
        second = await Client.seated(b, code, token2)
        for seat in (1, 3):
            await first.send({"type": "add_bot", "seat": seat})
        await first.wait_state(lambda v: {"type": "start"} in v["legal"])
        await first.send({"type": "start"})
        rng = random.Random(seed)
        while True:
            players = [Player(first, rng), Player(second, rng)]
            done = await asyncio.gather(
                *(p.play_until(lambda v: mid_hand(v) or v["phase"] == "game_over") for p in players)
            )
            if done[0]["view"]["phase"] != "game_over":
                break
            await first.send({"type": "rematch"})  # both people confirm the rematch
            await second.send({"type": "rematch"})
            await first.wait_state(lambda v: v["phase"] != "game_over")
        before = done[0]["view"]
        # The game now waits for seat 0 (a person). Kill at a random point of A's
        # renewal cycle, as a real crash would: right after the room was opened, the
        # lease would still hold almost its whole time and skew the numbers.
        await asyncio.sleep(rng.uniform(0, lease_ms / 1000))

        proc_a.send_signal(signal.SIGTERM if graceful else signal.SIGKILL)
        started = time.perf_counter()
        if graceful:
            await first.closed()
        await first.close()
        again = await Client.connect(b.ws_url(code))
        state = await again.hello(token0)
        elapsed = time.perf_counter() - started
        for field in FIELDS:
            assert state["view"][field] == before[field], field
        await again.close()
        await second.close()
        return elapsed
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except Exception:
                    proc.kill()
        delete_prefix(REDIS_URL, prefix)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lease-ms", type=int, default=5000)
    parser.add_argument("--graceful", action="store_true", help="SIGTERM instead of SIGKILL")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    times = [asyncio.run(one_run(args.lease_ms, args.graceful, seed)) for seed in range(args.runs)]
    result = {
        "signal": "SIGTERM" if args.graceful else "SIGKILL",
        "lease_ms": args.lease_ms,
        "runs": [round(t, 3) for t in times],
        "median_s": round(statistics.median(times), 3),
        "min_s": round(min(times), 3),
        "max_s": round(max(times), 3),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['signal']}, lease {args.lease_ms} ms, {args.runs} runs: "
            f"median {result['median_s']} s (min {result['min_s']}, max {result['max_s']})"
        )


if __name__ == "__main__":
    main()
