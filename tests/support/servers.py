"""Real servers for tests: uvicorn on a free port, and a WebSocket test client.

Fixtures:

- `server_factory(**overrides)` starts a server (in a background thread, memory store
  unless `redis_url` is among the overrides) with `Settings` overrides and returns a
  `RunningServer`; every server it started is stopped after the test.
- `server`: memory store, every delay 0 (bots act at once, no pause between hands),
  generous HTTP rate limits.
- `redis_server`: the same on the real Redis under this test's key prefix.

`start_subprocess_server(env)` runs `python -m schmier` as a child process instead, for the
tests that kill the server for real. `Client` speaks the protocol over `websockets`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import uvicorn
import websockets
from websockets.asyncio.client import ClientConnection

from schmier.__main__ import uvicorn_config
from schmier.config import Settings
from schmier.protocol import SERVER_FRAME
from tests.support import loopback

FAST: dict[str, Any] = {
    "bot_delay": 0.0,
    "bot_workers": 0,
    # The search (`strong`) costs ~100 ms of CPU a move: whole games in tests play the
    # rules of thumb; the tests of the search and of the default bot ask for it.
    "default_bot": "normal",
    "hand_pause": 0.0,
    "trick_pause": 0.0,
    "create_rate": 10_000,
    "join_rate": 10_000,
    "lookup_fail_rate": 10_000,
    "frame_rate": 1000.0,
    "frame_burst": 1000,
    # The idle limit would put a changing countdown (`idle_ends_in`) into the views of
    # every untimed turn; the tests of idle turns turn it on.
    "idle_turn_seconds": 0,
    "hint_burst": 1000,
    "hint_rate": 1000.0,
    "room_hint_rate": 1000.0,
    "log_level": "WARNING",
}
"""Settings of the `server` fixture: no delays, limits out of the way."""

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port that was free a moment ago (for subprocess servers)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RunningServer:
    """A server on 127.0.0.1 and the addresses to reach it."""

    def __init__(self, port: int, settings: Settings | None = None, app: Any = None) -> None:
        self.port = port
        self.settings = settings
        self.app = app
        """The FastAPI app of an in-process server (None for a subprocess)."""
        self.base_url = f"http://127.0.0.1:{port}"
        self._stop: Callable[[], None] = lambda: None

    def ws_url(self, code: str) -> str:
        """The room's WebSocket address."""
        return f"ws://127.0.0.1:{self.port}/ws/{code}"

    def stop(self) -> None:
        """Stop the server (idempotent)."""
        self._stop()
        self._stop = lambda: None

    # Small HTTP helpers for async tests.

    async def create_room(self, variant: str, rules: dict[str, Any] | None = None) -> str:
        """Create a room; its code."""
        body: dict[str, Any] = {"variant": variant}
        if rules is not None:
            body["rules"] = rules
        async with loopback.async_client(base_url=self.base_url) as http:
            answer = await http.post("/api/rooms", json=body)
        assert answer.status_code == 201, answer.text
        return str(answer.json()["code"])

    async def join(self, code: str, name: str, seat: int | None = None) -> tuple[int, str]:
        """Join a room: (seat, token)."""
        body: dict[str, Any] = {"name": name}
        if seat is not None:
            body["seat"] = seat
        async with loopback.async_client(base_url=self.base_url) as http:
            answer = await http.post(f"/api/rooms/{code}/join", json=body)
        assert answer.status_code == 200, answer.text
        data = answer.json()
        return int(data["seat"]), str(data["token"])

    async def room(self, code: str) -> dict[str, Any]:
        """`GET /api/rooms/{code}`."""
        async with loopback.async_client(base_url=self.base_url) as http:
            answer = await http.get(f"/api/rooms/{code}")
        assert answer.status_code == 200, answer.text
        data: dict[str, Any] = answer.json()
        return data


def start_thread_server(settings: Settings, port: int = 0) -> RunningServer:
    """uvicorn with `create_app(settings)` in a daemon thread with its own event loop.

    `port` 0 picks a free port; a given port lets a test restart a server at the address
    its pages already know.
    """
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    port = int(sock.getsockname()[1])
    server = uvicorn.Server(uvicorn_config(settings, host="127.0.0.1", port=port))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name=f"uvicorn:{port}", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError("test server did not start")
        time.sleep(0.01)
    running = RunningServer(port, settings, server.config.app)

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()

    running._stop = stop
    return running


def start_subprocess_server(
    env: dict[str, str], log: Path | None = None
) -> tuple[RunningServer, subprocess.Popen[bytes]]:
    """`python -m schmier` as a child process (so a test can SIGKILL it) on a free port.

    Its stderr goes to `log` (appended; a temporary file when None), never to a pipe:
    a pipe nobody reads fills at 64 KiB and then freezes the server on its next log line.
    """
    port = free_port()
    child_env = {**os.environ, **env, "SCHMIER_HOST": "127.0.0.1", "SCHMIER_PORT": str(port)}
    own_log = log is None
    if log is None:
        handle, name = tempfile.mkstemp(prefix="schmier-server-", suffix=".log")
        os.close(handle)
        log = Path(name)
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "schmier"],
            cwd=REPO,
            env=child_env,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    written = log

    def tail() -> str:
        return written.read_text(errors="replace")[-2000:]

    running = RunningServer(port)
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}: {tail()}")
        try:
            if loopback.get(running.base_url + "/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("subprocess server did not start")
        time.sleep(0.05)

    def stop() -> None:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if own_log:
            written.unlink(missing_ok=True)

    running._stop = stop
    return running, process


ServerFactory = Callable[..., RunningServer]


@pytest.fixture
def server_factory() -> Iterator[ServerFactory]:
    """Start servers with `Settings` overrides (on top of FAST); all stopped afterwards."""
    started: list[RunningServer] = []

    def factory(**overrides: Any) -> RunningServer:
        settings = Settings(**{**FAST, **overrides})
        running = start_thread_server(settings)
        started.append(running)
        return running

    yield factory
    for running in started:
        running.stop()


@pytest.fixture
def server(server_factory: ServerFactory) -> RunningServer:
    """A server with the memory store and every delay 0."""
    return server_factory()


@pytest.fixture
def redis_server(server_factory: ServerFactory, redis_url: str, redis_prefix: str) -> RunningServer:
    """A server on the real Redis, under this test's own key prefix."""
    return server_factory(redis_url=redis_url, redis_prefix=redis_prefix)


# ------------------------------------------------------------------ the client


class ClosedError(AssertionError):
    """The server closed the socket while the test waited for a frame."""


class Client:
    """One WebSocket connection speaking the protocol, recording every frame received.

    A reader task validates each frame against the protocol's server-frame models and
    queues it; `frames` keeps them all (the secrecy tests read it afterwards).
    """

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.arrivals: list[float] = []
        """When each of `frames` arrived (`time.monotonic()`)."""
        self.state: dict[str, Any] | None = None
        self._queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.close_code: int | None = None
        self.history: list[dict[str, Any]] | None = None
        """The lines of the `chat_history` frame that followed the first state."""
        self.on_state: Callable[[dict[str, Any]], Awaitable[None]] | None = None
        """Called with every state frame as it arrives, before anyone waiting sees it (a
        test sends entropy from here, say)."""
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def connect(cls, url: str, *, origin: str | None = None, **options: Any) -> Client:
        """Open a socket to `url` (no Origin header unless given)."""
        headers = {"Origin": origin} if origin else None
        ws = await websockets.connect(
            url, additional_headers=headers, compression=None, max_size=2**22, **options
        )
        return cls(ws)

    @classmethod
    async def seated(cls, server: RunningServer, code: str, token: str | None) -> Client:
        """Connect to the room and say hello; the first state has arrived."""
        client = await cls.connect(server.ws_url(code))
        await client.hello(token)
        return client

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                frame = orjson.loads(raw)
                SERVER_FRAME.validate_python(frame)
                self.frames.append(frame)
                self.arrivals.append(time.monotonic())
                if frame["type"] == "state":
                    self.state = frame
                    if self.on_state is not None:
                        await self.on_state(frame)
                await self._queue.put(frame)
        except websockets.ConnectionClosed:
            pass
        finally:
            self.close_code = self.ws.close_code
            await self._queue.put(None)

    async def send(self, frame: dict[str, Any] | str | bytes) -> None:
        """Send a frame: a dict as JSON text, a str as text, bytes as a binary frame."""
        if isinstance(frame, dict):
            await self.ws.send(orjson.dumps(frame).decode())
        else:
            await self.ws.send(frame)

    async def recv(self, timeout: float = 10) -> dict[str, Any]:
        """The next frame of any type."""
        frame = await asyncio.wait_for(self._queue.get(), timeout)
        if frame is None:
            await self._queue.put(None)
            raise ClosedError(f"socket closed with {self.close_code}")
        return frame

    async def hello(self, token: str | None = None) -> dict[str, Any]:
        """Say hello (with a token to sit, without to watch); the first state frame.

        The room's kept chat comes right after it, as one `chat_history` frame (the
        protocol's promise, checked here for every socket a test opens); it is read too,
        and kept in `history`.
        """
        await self.send({"type": "hello", "token": token} if token else {"type": "hello"})
        state = await self.next_state()
        following = await self.recv()
        assert following["type"] == "chat_history", f"no chat history after the state: {following}"
        self.history = following["lines"]
        return state

    async def next_state(self, timeout: float = 10) -> dict[str, Any]:
        """The next state frame (chat frames are skipped; an error fails the test)."""
        while True:
            frame = await self.recv(timeout)
            if frame["type"] == "state":
                return frame
            if frame["type"] == "error":
                raise AssertionError(f"unexpected error frame {frame}")

    async def wait_state(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 30
    ) -> dict[str, Any]:
        """Skip state frames until `predicate(view)` holds (the last one counts too)."""
        if self.state is not None and predicate(self.state["view"]) and self._queue.empty():
            return self.state
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            frame = await self.next_state(max(left, 0.01))
            if predicate(frame["view"]):
                return frame

    async def next_error(self, timeout: float = 10) -> dict[str, Any]:
        """The next error frame (state and chat frames before it are skipped)."""
        while True:
            frame = await self.recv(timeout)
            if frame["type"] == "error":
                return frame

    async def closed(self, timeout: float = 15) -> int | None:
        """Wait for the server to close the socket; its close code."""
        await asyncio.wait_for(asyncio.shield(self._reader), timeout)
        return self.close_code

    async def close(self) -> None:
        """Close from this side."""
        with contextlib.suppress(Exception):
            await self.ws.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._reader, 5)


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 20) -> None:
    """Poll an async condition until it holds (for HTTP-visible effects)."""
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError("condition did not hold in time")
        await asyncio.sleep(0.02)


# ------------------------------------------------------------------ playing games


def concrete(action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A `legal` entry as it is sent (the discard template gets random cards)."""
    if action["type"] != "discard":
        return dict(action)
    count = rng.randint(int(action["min"]), int(action["max"]))
    return {"type": "discard", "cards": rng.sample(list(action["from"]), count)}


class Player:
    """A test client that plays a seat by picking at random from `view.legal`.

    After sending an action it waits for a state whose `legal` differs (or an error),
    so it never answers twice to the same turn; an error frame fails the game unless
    `errors_ok`. While the table is paused (the store is unreachable) it tries again
    on `resumed`, or every `PAUSED_RETRY` seconds after a `store_unavailable` error,
    as a patient person would, instead of hammering the server.
    """

    PAUSED_RETRY = 0.5

    def __init__(
        self,
        client: Client,
        rng: random.Random,
        errors_ok: bool = False,
        before_act: Callable[[dict[str, Any]], Awaitable[None]] | None = None,
    ) -> None:
        self.client = client
        self.rng = rng
        self.errors: list[dict[str, Any]] = []
        self.errors_ok = errors_ok
        self.actions = 0
        self.before_act = before_act
        """Called with the view before each action (the game waits for this seat then)."""

    def choose(self, legal: list[dict[str, Any]]) -> dict[str, Any]:
        """Any legal action, but in the bidding only a pass or the lowest bid.

        Random high bids would set the bidder's side back hand after hand, and a game
        to a target might then never end; a low bid now and then still makes the test
        player the bidder (naming trump, discarding last, calling a partner).
        """
        bids = [a for a in legal if a["type"] == "bid"]
        if bids:
            if {"type": "pass"} in legal and self.rng.random() > 0.35:
                return {"type": "pass"}
            return min(bids, key=lambda a: int(a["amount"]))
        return concrete(self.rng.choice(legal), self.rng)

    async def play_until(
        self, done: Callable[[dict[str, Any]], bool], timeout: float = 60
    ) -> dict[str, Any]:
        """Play until `done(view)`; the state frame where it holds."""
        client = self.client
        deadline = asyncio.get_running_loop().time() + timeout
        assert client.state is not None
        current = client.state
        acted_on: list[dict[str, Any]] | None = None
        loop = asyncio.get_running_loop()
        retry_at: float | None = None
        while True:
            view = current["view"]
            if done(view):
                return current
            legal = view["legal"]
            if legal and legal != acted_on and view["phase"] not in ("lobby", "game_over"):
                if self.before_act is not None:
                    await self.before_act(view)
                await client.send(self.choose(legal))
                self.actions += 1
                acted_on = legal
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(f"game did not finish in time; last view {view}")
            try:
                wait = left if retry_at is None else max(0.0, min(left, retry_at - loop.time()))
                frame = await client.recv(wait)
            except TimeoutError:
                if retry_at is None:
                    raise
                retry_at = acted_on = None  # paused: try again now
                continue
            if frame["type"] == "resumed":
                if retry_at is not None:  # refused while paused: try again now
                    retry_at = acted_on = None
            elif frame["type"] == "error" and frame["code"] == "store_unavailable":
                self.errors.append(frame)
                if not self.errors_ok:
                    raise AssertionError(f"unexpected error {frame}")
                retry_at = loop.time() + self.PAUSED_RETRY
            elif frame["type"] == "error":
                self.errors.append(frame)
                if not self.errors_ok:
                    raise AssertionError(f"unexpected error {frame}")
                acted_on = None
            elif frame["type"] == "state":
                if frame["seq"] <= current["seq"]:
                    continue  # queued before `current` (which the reader already saw)
                current = frame
                if current["view"]["legal"] != acted_on:
                    # A new turn; a refusal of the old one no longer needs a retry.
                    retry_at = acted_on = None


async def seat_table(
    server: RunningServer,
    variant: str,
    humans: list[int],
    *,
    rules: dict[str, Any] | None = None,
    spectators: int = 0,
) -> tuple[str, dict[int, Client], list[Client], dict[int, str]]:
    """A room with test clients in `humans`, bots elsewhere, started.

    Returns (code, clients by seat, spectator clients, tokens by seat).
    """
    code = await server.create_room(variant, rules)
    clients: dict[int, Client] = {}
    tokens: dict[int, str] = {}
    for seat in humans:
        got, token = await server.join(code, f"Player {seat}", seat)
        assert got == seat
        tokens[seat] = token
        clients[seat] = await Client.seated(server, code, token)
    watchers = [await Client.seated(server, code, None) for _ in range(spectators)]
    seats = len(server_seat_count(variant))
    first = clients[humans[0]]
    for seat in range(seats):
        if seat not in humans:
            await first.send({"type": "add_bot", "seat": seat})
    await first.wait_state(lambda v: {"type": "start"} in v["legal"])
    await first.send({"type": "start"})
    for client in [*clients.values(), *watchers]:
        await client.wait_state(lambda v: v["phase"] != "lobby")
    return code, clients, watchers, tokens


def server_seat_count(variant: str) -> range:
    """The seats of `variant`."""
    from schmier import engine

    return range(engine.seat_count(variant))


async def play_all(
    players: list[Player], done: Callable[[dict[str, Any]], bool], timeout: float = 60
) -> list[dict[str, Any]]:
    """Run every player until `done` holds for each of them."""
    return list(await asyncio.gather(*(p.play_until(done, timeout) for p in players)))
