"""Real servers for tests: uvicorn in a thread on a free port, and the fixtures.

Fixtures:

- `server_factory(**overrides)` starts a server (in a background thread, memory store
  unless `redis_url` is among the overrides) with `Settings` overrides and returns a
  `RunningServer`; every server it started is stopped after the test.
- `server`: memory store, every delay 0 (bots act at once, no pause between hands),
  generous HTTP rate limits.
- `redis_server`: the same on the real Redis under this test's key prefix.

The protocol client (`Client`, `Player`), the server handle (`RunningServer`) and
`start_subprocess_server` (`python -m schmier` as a child process, for the tests that
kill the server for real) are the measuring tools' too: they live in `bench/kit` and
are handed on from here, so that a test imports its support from one place.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
import uvicorn

from bench.kit.client import Client, ClosedError
from bench.kit.player import Player, concrete
from bench.kit.ports import free_port
from bench.kit.servers import REPO, RunningServer, start_subprocess_server
from schmier.__main__ import uvicorn_config
from schmier.config import Settings

__all__ = [
    "FAST",
    "REPO",
    "Client",
    "ClosedError",
    "Player",
    "RunningServer",
    "ServerFactory",
    "concrete",
    "eventually",
    "free_port",
    "play_all",
    "seat_table",
    "server_seat_count",
    "start_subprocess_server",
    "start_thread_server",
]

FAST: dict[str, Any] = {
    "bot_delay": 0.0,
    "bot_workers": 0,
    # The search (`strong`) costs ~100 ms of CPU a move: whole games in tests play the
    # rules of thumb; the tests of the search and of the default bot ask for it.
    "default_bot": "normal",
    # The coach at a tenth of its budget: an analysis in a few seconds of a core.
    "analysis_effort": 10,
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
    "club_rate": 10_000,
    "log_level": "WARNING",
    # uvicorn draws each keepalive ping's payload from the global `random` module, in
    # the server's thread; Hypothesis takes a change of that state while it draws an
    # example for a strategy's use of `random` (a deprecation warning). The tests of
    # keepalive and of dead sockets set their own interval.
    "ws_ping_interval": 3600.0,
}
"""Settings of the `server` fixture: no delays, limits out of the way."""


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


ServerFactory = Callable[..., RunningServer]


@pytest.fixture
def server_factory() -> Iterator[ServerFactory]:
    """Start servers with `Settings` overrides (on top of FAST); all stopped afterwards."""
    started: list[RunningServer] = []
    scratch: list[str] = []

    def factory(**overrides: Any) -> RunningServer:
        if "data_dir" not in overrides and "database_url" not in overrides:
            # Each server its own archive (SQLite in a directory of its own).
            scratch.append(tempfile.mkdtemp(prefix="schmier-data-"))
            overrides["data_dir"] = scratch[-1]
        settings = Settings(**{**FAST, **overrides})
        running = start_thread_server(settings)
        started.append(running)
        return running

    yield factory
    for running in started:
        running.stop()
    for directory in scratch:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def server(server_factory: ServerFactory) -> RunningServer:
    """A server with the memory store and every delay 0."""
    return server_factory()


@pytest.fixture
def redis_server(server_factory: ServerFactory, redis_url: str, redis_prefix: str) -> RunningServer:
    """A server on the real Redis, under this test's own key prefix."""
    return server_factory(redis_url=redis_url, redis_prefix=redis_prefix)


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 20) -> None:
    """Poll an async condition until it holds (for HTTP-visible effects)."""
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError("condition did not hold in time")
        await asyncio.sleep(0.02)


# ------------------------------------------------------------------ playing games


async def seat_table(
    server: RunningServer,
    variant: str,
    humans: list[int],
    *,
    rules: dict[str, Any] | None = None,
    spectators: int = 0,
    on_connect: Callable[[int, Client], object] | None = None,
) -> tuple[str, dict[int, Client], list[Client], dict[int, str]]:
    """A room with test clients in `humans`, bots elsewhere, started.

    `on_connect(seat, client)` is called before each seat's hello (to hook the client).
    Returns (code, clients by seat, spectator clients, tokens by seat).
    """
    code = await server.create_room(variant, rules)
    clients: dict[int, Client] = {}
    tokens: dict[int, str] = {}
    for seat in humans:
        got, token = await server.join(code, f"Player {seat}", seat)
        assert got == seat
        tokens[seat] = token
        clients[seat] = await Client.connect(server.ws_url(code))
        if on_connect is not None:
            on_connect(seat, clients[seat])
        await clients[seat].hello(token)
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
    players: list[Player], done: Callable[[dict[str, Any]], bool], timeout: float = 180
) -> list[dict[str, Any]]:
    """Run every player until `done` holds for each of them.

    `timeout` only bounds a game that never ends: a six-seat game to 7 with a hint before
    every move and a withheld reveal at each deal takes about 10 s alone, and once ran
    past 60 s on a machine loaded by the other workers while every move went on."""
    return list(await asyncio.gather(*(p.play_until(done, timeout) for p in players)))
