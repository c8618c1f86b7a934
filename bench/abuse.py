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
import contextlib
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import websockets

REPO = Path(__file__).resolve().parents[1]
HINT_EVERY = 2.5
"""Seconds between a victim's hints (a seat may have one computed per 2 s)."""
BOT_DELAY = 0.8
"""`SCHMIER_BOT_DELAY`'s default: what a bot waits before it asks for its decision."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    """`python -m schmier` on a free port."""

    redis_url: str | None
    directory: Path = REPO
    """The checkout whose server runs (`--server-dir`: another one, to compare)."""
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws(self, code: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/{code}"

    async def start(self) -> None:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("SCHMIER_")},
            "SCHMIER_PORT": str(self.port),
            "SCHMIER_LOG_LEVEL": "WARNING",
        }
        if self.redis_url:
            env["SCHMIER_REDIS_URL"] = self.redis_url
            env["SCHMIER_REDIS_PREFIX"] = f"bench-abuse-{uuid.uuid4().hex[:8]}:"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "schmier"],
            cwd=self.directory,
            env={**env, "PYTHONPATH": str(self.directory)},
            stdout=subprocess.DEVNULL,
        )
        async with httpx.AsyncClient() as http:
            for _ in range(300):
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(self.http + "/healthz")).status_code == 200:
                        return
                await asyncio.sleep(0.1)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)

    async def room(self, http: httpx.AsyncClient, humans: int) -> tuple[str, list[str]]:
        """A wisconsin4 room: its code and the tokens of seats 0..humans-1."""
        code = (await http.post(self.http + "/api/rooms", json={"variant": "wisconsin4"})).json()[
            "code"
        ]
        tokens = []
        for seat in range(humans):
            answer = await http.post(
                f"{self.http}/api/rooms/{code}/join", json={"name": f"P{seat}", "seat": seat}
            )
            tokens.append(answer.json()["token"])
        return code, tokens


class Socket:
    """One protocol connection: frames queue up as they arrive, each with its time."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.frames: asyncio.Queue[tuple[float, dict[str, Any]]] = asyncio.Queue()
        self.state: dict[str, Any] | None = None
        self.reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, url: str, token: str | None) -> Socket:
        ws = await websockets.connect(url, compression=None, max_size=2**22)
        sock = cls(ws)
        await sock.send({"type": "hello", "token": token} if token else {"type": "hello"})
        while (await sock.next())["type"] != "state":
            pass
        return sock

    async def _read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in self.ws:
                frame = orjson.loads(raw)
                if frame["type"] == "state":
                    self.state = frame
                self.frames.put_nowait((time.perf_counter(), frame))
        self.frames.put_nowait((time.perf_counter(), {"type": "closed"}))

    async def send(self, frame: dict[str, Any]) -> None:
        await self.ws.send(orjson.dumps(frame).decode())

    async def next(self, timeout: float = 30) -> dict[str, Any]:
        return (await self.timed(timeout))[1]

    async def timed(self, timeout: float = 30) -> tuple[float, dict[str, Any]]:
        item = await asyncio.wait_for(self.frames.get(), timeout)
        if item[1]["type"] == "closed":
            self.frames.put_nowait(item)
        return item

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        self.reader.cancel()


def concrete(action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A `legal` entry as it is sent (a discard template gets cards), a pass for a bid."""
    if action["type"] == "discard":
        return {"type": "discard", "cards": rng.sample(action["from"], action["min"])}
    return action


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    if {"type": "pass"} in legal and rng.random() < 0.7:
        return {"type": "pass"}
    return concrete(rng.choice(legal), rng)


@dataclass
class Figures:
    """Samples of one phase."""

    hints: list[float] = field(default_factory=list)
    bots: list[float] = field(default_factory=list)
    lobby: list[float] = field(default_factory=list)
    refused: int = 0


async def victim(
    server: Server, http: httpx.AsyncClient, figures: list[Figures], seed: int
) -> None:
    """A person with three bots, playing for ever; samples go to `figures[-1]`."""
    with contextlib.suppress(websockets.ConnectionClosed):
        await _victim(server, http, figures, seed)


async def _victim(
    server: Server, http: httpx.AsyncClient, figures: list[Figures], seed: int
) -> None:
    code, (token,) = await server.room(http, 1)
    sock = await Socket.open(server.ws(code), token)
    for seat in (1, 2, 3):
        await sock.send({"type": "add_bot", "seat": seat})
    await sock.send({"type": "start"})
    rng = random.Random(seed)
    last_hint = 0.0
    bot_turn_at: float | None = None
    while True:
        at, frame = await sock.timed()
        if frame["type"] == "closed":
            return
        if frame["type"] != "state":
            continue
        view = frame["view"]
        if bot_turn_at is not None:
            figures[-1].bots.append(at - bot_turn_at - BOT_DELAY)
            bot_turn_at = None
        if view["phase"] == "game_over":
            await sock.send({"type": "rematch"})
            continue
        after_trick = view["phase"] == "play" and view["tricks"] and not view["trick"]
        if view["turn"] and view["turn"] != [0] and len(view["turn"]) == 1 and not after_trick:
            bot_turn_at = at
        if view["turn"] != [0] or not view["legal"]:
            continue
        if time.perf_counter() - last_hint >= HINT_EVERY:
            last_hint = time.perf_counter()
            sent = time.perf_counter()
            await sock.send({"type": "hint"})
            while True:
                at, answer = await sock.timed()
                if answer["type"] in ("hint", "error", "closed"):
                    break
            if answer["type"] == "hint":
                figures[-1].hints.append(at - sent)
            elif answer["type"] == "error":
                figures[-1].refused += 1
            if answer["type"] == "closed":
                return
        await sock.send(choose(view["legal"], rng))


async def lobby_prober(server: Server, http: httpx.AsyncClient, figures: list[Figures]) -> None:
    """A lobby action's round trip in a room of its own, every 0.1 s."""
    with contextlib.suppress(websockets.ConnectionClosed):
        await _lobby_prober(server, http, figures)


async def _lobby_prober(server: Server, http: httpx.AsyncClient, figures: list[Figures]) -> None:
    code, (token,) = await server.room(http, 1)
    sock = await Socket.open(server.ws(code), token)
    add = True
    while True:
        sent = time.perf_counter()
        action = "add_bot" if add else "remove_bot"
        await sock.send({"type": action, "seat": 1})
        while True:
            at, frame = await sock.timed()
            if frame["type"] in ("state", "closed"):
                break
        if frame["type"] == "closed":
            return
        figures[-1].lobby.append(at - sent)
        add = not add
        await asyncio.sleep(0.1)


@dataclass
class Attack:
    """What the attacker did and what it got back."""

    sent: int = 0
    answered: int = 0
    refused: int = 0
    closed: dict[int, int] = field(default_factory=dict)
    commits: int = 0


async def attacker_socket(
    server: Server,
    code: str,
    token: str,
    attack: Attack,
    kind: str,
    stop: asyncio.Event,
    reconnect: bool,
) -> None:
    """One of the attacker's sockets (opened again whenever it is closed, with
    `reconnect`)."""
    rng = random.Random()
    while not stop.is_set():
        try:
            sock = await Socket.open(server.ws(code), token)
        except (OSError, websockets.WebSocketException, TimeoutError):
            await asyncio.sleep(0.1)
            continue
        try:
            while not stop.is_set():
                if kind == "hint":
                    await sock.send({"type": "hint"})
                    attack.sent += 1
                    while (frame := await sock.next())["type"] not in ("hint", "error", "closed"):
                        pass
                else:
                    await sock.send({"type": "entropy", "value": secrets.token_hex(16)})
                    attack.sent += 1
                    await asyncio.sleep(0.1 + rng.random() * 0.001)
                    frame = {"type": "none"}
                    while not sock.frames.empty():
                        frame = await sock.next()
                        if frame["type"] == "error":
                            attack.refused += 1
                        if frame["type"] == "closed":
                            break
                if frame["type"] == "hint":
                    attack.answered += 1
                elif frame["type"] == "error" and kind == "hint":
                    attack.refused += 1
                if frame["type"] == "closed":
                    code_ = sock.ws.close_code or 0
                    attack.closed[code_] = attack.closed.get(code_, 0) + 1
                    break
        except (websockets.ConnectionClosed, TimeoutError):
            code_ = sock.ws.close_code or 0
            attack.closed[code_] = attack.closed.get(code_, 0) + 1
        finally:
            await sock.close()
        if not reconnect:
            return


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


if __name__ == "__main__":
    asyncio.run(main())
