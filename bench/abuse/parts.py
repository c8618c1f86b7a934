"""The parts of `python -m bench.abuse`: the server it starts, a bare protocol socket
that keeps each frame's arrival time, the victims who play and measure, and the
attacker's sockets (the package's docstring says what they do together)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import random
import secrets
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

from bench.kit.client import encode, hello, open_socket
from bench.kit.player import concrete
from bench.kit.ports import free_port

REPO = Path(__file__).resolve().parents[2]
HINT_EVERY = 2.5
"""Seconds between a victim's hints (a seat may have one computed per 2 s)."""
BOT_DELAY = 0.8
"""`SCHMIER_BOT_DELAY`'s default: what a bot waits before it asks for its decision."""


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
        sock = cls(await open_socket(url))
        await sock.send(hello(token))
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
        await self.ws.send(encode(frame))

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
                    # A fresh commit each time: each one is a change of the room.
                    commit = hashlib.sha256(secrets.token_hex(16).encode()).hexdigest()
                    await sock.send({"type": "entropy", "commit": commit})
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
