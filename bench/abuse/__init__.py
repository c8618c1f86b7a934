"""What one hostile player costs everybody else (issue 42), measured over the wire.

Not a unit test: it starts `python -m schmier` as a child process exactly as the README
runs it (every setting at its default: the default bot, its worker pool, the bot delay,
the limits), on the memory store and on Redis, and runs two attacks, each between two
quiet phases:

- **hints**: one seat of the attacker's room, on turn, asks for hints from `--sockets`
  (150) sockets on its one token, each asking again as soon as it was answered.
- **entropy**: `--entropy-sockets` (100) sockets on one token each send a fresh
  `entropy` value ten times a second.

With `--reconnect` the attacker opens every socket the server closes again at once (a
seat keeps only a few): a flood of connections then, which any client could make with
any code, token or not.

Meanwhile `--victims` (6) other rooms play wisconsin4, one person and three bots
each: the person asks for a hint on a turn at most every 2.5 s (a seat's hint budget
is one per 2 s) and plays at once otherwise. Measured in the victims' rooms: how long
a hint takes to come (send to answer), how long a bot takes to move beyond its
`SCHMIER_BOT_DELAY` (0.8 s; from the state that gives a bot the turn to the next state,
turns right after a completed trick, which wait the trick pause too, left out), and in
the entropy run the round trip of a lobby action in another room. Quiet before,
attack, quiet after: the two quiet phases side by side are the noise of the shared
machine.

    python -m bench.abuse                        # both stores, 30 s phases
    python -m bench.abuse --store memory --seconds 10
    python -m bench.abuse --out bench/results/2026-12-05-abuse.md
    python -m bench.abuse --server-dir ../main     # the same attacks on another checkout

Prints a table per store and attack; `--out` writes them as markdown.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

import httpx

from bench.abuse.parts import (
    REPO,
    Attack,
    Figures,
    Server,
    Socket,
    attacker_socket,
    lobby_prober,
    victim,
)


def summary(values: list[float]) -> str:
    if not values:
        return "n=0"
    ms = sorted(v * 1000 for v in values)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"n={len(ms)}, median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms"


async def run_attack(
    server: Server, kind: str, sockets: int, seconds: float, reconnect: bool, victims: int
) -> list[str]:
    """Quiet, attack, quiet; the report's lines."""
    async with httpx.AsyncClient(timeout=30) as http:
        figures: list[Figures] = [Figures()]
        tasks = [asyncio.create_task(victim(server, http, figures, k)) for k in range(victims)]
        if kind == "entropy":
            tasks.append(asyncio.create_task(lobby_prober(server, http, figures)))
        code, tokens = await server.room(http, 4)
        first = await Socket.open(server.ws(code), tokens[0])
        await first.send({"type": "start"})
        while not (first.state and first.state["view"]["turn"]):
            await first.next()
        turn = first.state["view"]["turn"][0]
        seq_before = first.state["seq"]
        await first.close()
        await asyncio.sleep(3)  # the victims warm up
        figures[:] = [Figures()]
        await asyncio.sleep(seconds)
        stop = asyncio.Event()
        attack = Attack()
        figures.append(Figures())
        started = time.perf_counter()
        flood = [
            asyncio.create_task(
                attacker_socket(server, code, tokens[turn], attack, kind, stop, reconnect)
            )
            for _ in range(sockets)
        ]
        await asyncio.sleep(seconds)
        stop.set()
        await asyncio.wait(flood, timeout=10)
        for task in flood:
            task.cancel()
        flood_seconds = time.perf_counter() - started
        figures.append(Figures())
        await asyncio.sleep(seconds)
        for task in tasks:
            task.cancel()
        watcher = await Socket.open(server.ws(code), None)
        assert watcher.state is not None
        attack.commits = watcher.state["seq"] - seq_before
        await watcher.close()
    lobby = kind == "entropy"
    lines = [
        "| phase | hints | bot moves beyond the delay |" + (" lobby round trip |" if lobby else "")
    ]
    lines.append("|---|---|---|" + ("---|" if lobby else ""))
    for name, phase in zip(("quiet before", "attack", "quiet after"), figures, strict=True):
        hints = summary(phase.hints)
        if phase.refused:
            hints += f" ({phase.refused} refused)"
        parts = [hints, summary(phase.bots)]
        if lobby:
            parts.append(summary(phase.lobby))
        lines.append(f"| {name} | " + " | ".join(parts) + " |")
    closes = ", ".join(f"{n}× {c}" for c, n in sorted(attack.closed.items())) or "none"
    lines += [
        "",
        f"Attacker: {attack.sent} {kind} frames from {sockets} sockets in "
        f"{flood_seconds:.0f} s; {attack.answered} hints answered, {attack.refused} "
        f"refused; closes: {closes}; the attacker's room changed {attack.commits} times.",
    ]
    return lines


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=("memory", "redis", "both"), default="both")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--sockets", type=int, default=150)
    parser.add_argument("--entropy-sockets", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--victims", type=int, default=6)
    parser.add_argument("--attack", choices=("hints", "entropy", "both"), default="both")
    parser.add_argument(
        "--reconnect",
        action="store_true",
        help="the attacker opens every socket the server closes again at once",
    )
    parser.add_argument(
        "--server-dir",
        type=Path,
        default=REPO,
        help="the checkout whose server to run (to measure an older one the same way)",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    report = [
        f"`python -m bench.abuse {' '.join(sys.argv[1:])}`".replace("  ", " "),
        "",
        f"{time.strftime('%Y-%m-%d %H:%M')} UTC, {os.cpu_count()} CPUs, load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the start.",
        "",
    ]
    stores = ["memory", "redis"] if args.store == "both" else [args.store]
    attacks = ["hints", "entropy"] if args.attack == "both" else [args.attack]
    for store in stores:
        for attack in attacks:
            server = Server(args.redis_url if store == "redis" else None, args.server_dir)
            await server.start()
            try:
                sockets = args.sockets if attack == "hints" else args.entropy_sockets
                kind = "hint" if attack == "hints" else "entropy"
                lines = await run_attack(
                    server, kind, sockets, args.seconds, args.reconnect, args.victims
                )
            finally:
                server.stop()
            title = f"### {store}: {attack} flood from {sockets} sockets on one token"
            report += [title, "", *lines, ""]
            print("\n".join([title, *lines, ""]), flush=True)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(report))
