"""What the reveal of the players' entropy adds between hands (docs/fairness.md).

    python -m bench.reveal [--hands 150] [--humans 3] [--json]

Starts `python -m schmier` (memory store, no pause between hands, bots at once,
`SCHMIER_REVEAL_MS=60000`) on a free port and plays `schmier6` games in one room, with
people (test clients playing at random from `legal`) at the first `--humans` seats and
the server's `normal` bot elsewhere, in two modes, one after the other:

- `plain`: the people commit to nothing: the next deal comes in the change after the
  scored hand, as it would for a table of bots;
- `commit-reveal`: each person commits to a fresh secret value for every new commitment
  and sends it in answer to `reveal`, as the browser does.

At each hand boundary (a scored hand, then the next deal; hands everybody passed and
rematches are not counted) the first person's client notes the time from the `state`
that scores the hand to the `state` of the next deal, and, with commit-reveal, from the
`reveal` frame to that state. The difference of the medians is what the reveal adds:
one round trip of every committed client, and one commit per value revealed. Were the
deal waiting for the window, the gap would be 60 s: the maximum shows it did not.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
from typing import Any

from bench.kit.client import Client
from bench.kit.player import Player
from bench.kit.servers import RunningServer, start_subprocess_server
from schmier.engine.fairness import entropy_commit

ENV = {
    "SCHMIER_HAND_PAUSE": "0",
    "SCHMIER_BOT_DELAY": "0",
    "SCHMIER_TRICK_PAUSE": "0",
    "SCHMIER_DEFAULT_BOT": "normal",
    "SCHMIER_BOT_WORKERS": "0",
    "SCHMIER_REVEAL_MS": "60000",
    "SCHMIER_FRAME_RATE": "1000",
    "SCHMIER_FRAME_BURST": "1000",
    "SCHMIER_CREATE_RATE": "10000",
    "SCHMIER_JOIN_RATE": "10000",
    "SCHMIER_LOG_LEVEL": "WARNING",
}


class Committer:
    """A person's entropy as the browser gives it: a commit to a fresh secret for every
    new commitment seen (none while a reveal is open), the secret on `reveal`."""

    def __init__(self, client: Client, rng: random.Random) -> None:
        self.client, self.rng = client, rng
        self.seen: set[str] = set()
        self.last: str | None = None
        client.on_state, client.on_reveal = self.state, self.reveal

    async def state(self, frame: dict[str, Any]) -> None:
        pending = frame["view"]["next_deal"]
        if pending["commitment"] in self.seen or pending["revealing"]:
            return
        self.seen.add(pending["commitment"])
        self.last = f"{self.rng.getrandbits(256):064x}"
        await self.client.send({"type": "entropy", "commit": entropy_commit(self.last)})

    async def reveal(self, frame: dict[str, Any]) -> None:
        if self.last is not None:
            await self.client.send({"type": "entropy", "value": self.last})


def boundaries(client: Client) -> tuple[list[float], list[float]]:
    """From what `client` received: the gaps (ms) from each scoring `state` to the next
    deal's `state`, and from each `reveal` frame to the deal it asked for."""
    gaps: list[float] = []
    after_reveal: list[float] = []
    scored_at: float | None = None
    reveal_at: float | None = None
    dealt: str | None = None
    for frame, at in zip(client.frames, client.arrivals, strict=True):
        if frame["type"] == "reveal":
            reveal_at = at
            continue
        if frame["type"] != "state":
            continue
        view = frame["view"]
        phase = view["phase"]
        commitment = (view["deal"] or {}).get("commitment")
        if phase in ("lobby", "game_over"):
            scored_at = None  # a rematch is no hand boundary
        elif phase == "hand_over":
            scored_at = at if scored_at is None else scored_at
        elif phase != "deal" and commitment != dealt:
            if scored_at is not None:  # else the first deal, or a redeal after all passed
                gaps.append((at - scored_at) * 1000)
                if reveal_at is not None and reveal_at > scored_at:
                    after_reveal.append((at - reveal_at) * 1000)
            scored_at = reveal_at = None
        dealt = commitment
    return gaps, after_reveal


async def one_mode(server: RunningServer, humans: int, hands: int, commit: bool) -> Client:
    code = await server.create_room("schmier6", {"target": 21})
    clients = []
    rng = random.Random(f"reveal-{commit}")
    for seat in range(humans):
        _, token = await server.join(code, f"P{seat}", seat)
        client = await Client.connect(server.ws_url(code))
        if commit:
            Committer(client, rng)
        await client.hello(token)
        clients.append(client)
    first = clients[0]
    for seat in range(humans, 6):
        await first.send({"type": "add_bot", "seat": seat})
    await first.wait_state(lambda v: {"type": "start"} in v["legal"])
    await first.send({"type": "start"})
    while len(boundaries(first)[0]) < hands:
        players = [Player(c, rng) for c in clients]
        await asyncio.gather(
            *(p.play_until(lambda v: v["phase"] == "game_over", 600) for p in players)
        )
        await first.send({"type": "rematch"})
        for client in clients:  # each must see the new game before it plays on
            await client.wait_state(lambda v: v["phase"] != "game_over")
    for client in clients:
        await client.close()
    return first


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "median": round(statistics.median(ordered), 2),
        "p90": round(ordered[int(0.9 * (len(ordered) - 1))], 2),
        "max": round(ordered[-1], 2),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=150, help="hand boundaries per mode")
    parser.add_argument("--humans", type=int, default=3, help="people at the table (1-6)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    server, _ = start_subprocess_server(ENV)
    try:
        results: dict[str, Any] = {}
        for mode, commit in (("plain", False), ("commit-reveal", True)):
            client = await one_mode(server, args.humans, args.hands, commit)
            gaps, after_reveal = boundaries(client)
            results[mode] = {"scored_to_dealt_ms": summary(gaps)}
            if commit:
                results[mode]["reveal_to_dealt_ms"] = summary(after_reveal)
        added = (
            results["commit-reveal"]["scored_to_dealt_ms"]["median"]
            - results["plain"]["scored_to_dealt_ms"]["median"]
        )
        results["added_median_ms"] = round(added, 2)
        results["humans"] = args.humans
        results["load_average"] = os.getloadavg()
        results["when"] = time.strftime("%Y-%m-%d %H:%M")
    finally:
        server.stop()
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for mode in ("plain", "commit-reveal"):
        for name, stats in results[mode].items():
            print(f"{mode:14} {name:20} {stats}")
    print(f"the reveal adds (median): {results['added_median_ms']} ms")
    print(f"load average during the run: {results['load_average']}")


if __name__ == "__main__":
    asyncio.run(main())
