"""Several real servers on one real Redis, and players that survive losing theirs.

`Cluster` starts `python -m schmier` child processes (so a test can SIGKILL or SIGTERM
them for real) on free ports, all with the same Redis key prefix and a short lease.
`RoamingSeat` plays one seat like `Player`, but when its socket closes it reconnects to
the next living server (as a browser behind a load balancer would) and checks that the
room's `seq` never went backwards across instances.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import websockets

from bench.kit.client import Client, ClosedError
from bench.kit.player import Player
from bench.kit.servers import LEASE_MS, RunningServer, cluster_env, start_subprocess_server
from schmier import engine, shutdown
from schmier.store import RedisStore

__all__ = ["LEASE_MS", "Cluster", "RoamingSeat", "cluster_env", "replay", "stopped"]


async def stopped(process: subprocess.Popen[bytes], log: Path) -> int:
    """The exit status of an instance sent SIGTERM. One still running past its stack
    dump (`schmier.shutdown`) is killed and fails the test with its log: the parts it
    waited for and where every thread was."""
    try:
        return await asyncio.to_thread(process.wait, shutdown.STACKS_AFTER + 15)
    except subprocess.TimeoutExpired:
        process.kill()
        text = log.read_text(errors="replace")
        raise AssertionError(f"did not stop after SIGTERM:\n{text[-30_000:]}") from None


def start_logged_server(
    env: dict[str, str], log: Path
) -> tuple[RunningServer, subprocess.Popen[bytes]]:
    """`python -m schmier` as a child process on a free port, its stderr in `log`."""
    return start_subprocess_server(env, log)


class Cluster:
    """Named instances sharing one Redis prefix; `servers` lists the living ones."""

    def __init__(self, redis_url: str, prefix: str, log_dir: Path) -> None:
        self.redis_url = redis_url
        self.prefix = prefix
        self.log_dir = log_dir
        self.lease_ms = LEASE_MS
        """The lease of instances started from now on. Tests without a failover use
        the default (5000): on a busy machine a stalled event loop could otherwise lose
        a lease and close sockets those tests do not reconnect."""
        self.servers: dict[str, RunningServer] = {}
        self._processes: dict[str, subprocess.Popen[bytes]] = {}
        self.env: dict[str, str] = {}
        """Settings added to every instance started from now on (Sentinel, say)."""
        self.store_options: dict[str, Any] = {}
        """Options of the tests' own store client (`store`), e.g. its sentinels."""

    def start(self, *names: str) -> list[RunningServer]:
        """Start one instance per name (its log goes to a file, see `logs`)."""
        started = []
        for name in names:
            server, process = start_logged_server(
                {**cluster_env(self.redis_url, self.prefix, name, self.lease_ms), **self.env},
                self.log_dir / f"{name}.log",
            )
            self.servers[name] = server
            self._processes[name] = process
            started.append(server)
        return started

    def logs(self) -> str:
        """The end of every instance's log (printed when a test fails)."""
        parts = []
        for path in sorted(self.log_dir.glob("*.log")):
            text = path.read_text(errors="replace")
            parts.append(f"--- {path.stem}\n{text[-4000:]}")
        return "\n".join(parts)

    def living(self) -> list[RunningServer]:
        """The servers still running, in start order."""
        return list(self.servers.values())

    def kill(self, name: str) -> None:
        """SIGKILL: no shutdown hook runs, the leases stay until they expire."""
        process = self._processes.pop(name)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        self.servers.pop(name).stop()

    async def terminate(self, name: str) -> int:
        """SIGTERM (a graceful stop, as in a rolling restart); the exit status (see
        `stopped`)."""
        process = self._processes.pop(name)
        server = self.servers.pop(name)
        process.send_signal(signal.SIGTERM)
        status = await stopped(process, self.log_dir / f"{name}.log")
        server.stop()
        return status

    def stop(self) -> None:
        """Stop every instance still running."""
        for name in list(self._processes):
            self._processes.pop(name)
            self.servers.pop(name).stop()

    def store(self) -> RedisStore:
        """A store client of the test's own on the cluster's keys."""
        return RedisStore(self.redis_url, prefix=self.prefix, ttl_seconds=600, **self.store_options)

    async def owner(self, code: str) -> str | None:
        """The instance holding the room's lease."""
        store = self.store()
        try:
            holder = await store.lease_holder(code)
        finally:
            await store.aclose()
        return None if holder is None else holder.rpartition(":")[0]

    async def log(self, code: str) -> list[bytes]:
        """The room's log of accepted engine actions."""
        store = self.store()
        try:
            return await store.read_log(code)
        finally:
            await store.aclose()


class PacedClient(Client):
    """A client that waits `pace` seconds before each frame, like a quick human.

    With every server delay at 0 a game is over in a blink; a rolling restart needs
    games that are still going while the instances are replaced one by one.
    """

    pace = 0.0

    async def send(self, frame: dict[str, Any] | str | bytes) -> None:
        """Send after the pace; a socket the server already closed raises ClosedError."""
        if self.pace:
            await asyncio.sleep(self.pace)
        try:
            await super().send(frame)
        except websockets.ConnectionClosed as exc:
            raise ClosedError(f"socket closed with {exc.rcvd}") from None


class RoamingSeat:
    """One seat played through any living server; reconnects when its socket dies.

    `servers()` is asked afresh at every (re)connection, so a test that kills or
    replaces instances meanwhile is followed. Every client it used is kept in
    `clients` (their frames are checked for leaks afterwards); `errors` collects the
    error frames it got; `reconnects` counts the sockets it lost.
    """

    def __init__(
        self,
        code: str,
        seat: int,
        token: str,
        servers: Callable[[], list[RunningServer]],
        rng: random.Random,
        start: int = 0,
        pace: float = 0.0,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.code = code
        self.seat = seat
        self.token = token
        self.servers = servers
        self.rng = rng
        self.index = start
        self.clients: list[Client] = []
        self.errors: list[dict[str, Any]] = []
        self.reconnects = 0
        self.last_seq = -1
        self.client: Client | None = None
        self.pace = pace
        self.options = options or {}
        """Options of every socket's `websockets.connect` (a quick ping, say, to notice
        a link that drops everything)."""

    async def connect(self, timeout: float = 40) -> Client:
        """Say hello through the next living server (waiting out a take-over)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            living = self.servers()
            server = living[self.index % len(living)]
            client: Client | None
            try:
                client = await PacedClient.connect(server.ws_url(self.code), **self.options)
            except (OSError, TimeoutError):
                client = None
            if isinstance(client, PacedClient):
                client.pace = self.pace
            if client is not None:
                try:
                    state = await client.hello(self.token)
                except (ClosedError, TimeoutError):
                    await client.close()
                else:
                    assert state["seq"] >= self.last_seq, "seq went backwards across instances"
                    assert state["view"]["you"] == self.seat
                    self.last_seq = state["seq"]
                    self.clients.append(client)
                    self.client = client
                    return client
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"seat {self.seat} found no server to reconnect to")
            self.index += 1
            await asyncio.sleep(0.05)

    async def reconnect(self) -> Client:
        """Drop the current socket (its server died) and say hello elsewhere."""
        if self.client is not None:
            await self.client.close()
        self.client = None
        self.reconnects += 1
        self.index += 1
        return await self.connect()

    async def play_until(
        self, done: Callable[[dict[str, Any]], bool], timeout: float = 60
    ) -> dict[str, Any]:
        """Play (reconnecting as needed) until `done(view)`; the state where it holds."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            client = self.client or await self.connect()
            player = Player(client, self.rng, errors_ok=True)
            left = deadline - asyncio.get_running_loop().time()
            try:
                final = await player.play_until(done, max(left, 0.1))
            except ClosedError:
                self.reconnects += 1
                self.index += 1
                self.client = None
                continue
            finally:
                self.errors += player.errors
                self._note_seqs(client)
            return final

    def _note_seqs(self, client: Client) -> None:
        seqs = [f["seq"] for f in client.frames if f["type"] == "state"]
        assert seqs == sorted(seqs), "a socket saw seq go backwards"
        if seqs:
            self.last_seq = max(self.last_seq, seqs[-1])

    async def close(self) -> None:
        """Close every socket this seat used."""
        for client in self.clients:
            await client.close()


def replay(variant: str, rules: dict[str, Any], log: list[bytes]) -> list[engine.State]:
    """Every engine state of a room's game, replayed from its log (deals included).

    The first dealer is not in the log; it is the one every hand's deal entry starts
    from, so the replay tries each seat and keeps the one the log is legal for.
    """
    for dealer in range(engine.seat_count(variant)):
        state = engine.new_game(variant, engine.make_rules(variant, rules), dealer)
        states = []
        try:
            for raw in log:
                entry = orjson.loads(raw)
                state = engine.apply(state, entry["seat"], entry["action"])
                states.append(state)
        except engine.EngineError:
            continue
        return states
    raise AssertionError("the log replays from no first dealer")


async def cancel_all(tasks: list[asyncio.Task[Any]]) -> None:
    """Cancel what is still running (after a failure) and wait for it."""
    for task in tasks:
        task.cancel()
    with contextlib.suppress(BaseException):
        await asyncio.gather(*tasks, return_exceptions=True)
