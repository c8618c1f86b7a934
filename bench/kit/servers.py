"""A server as a child process on a free loopback port, and the handle to reach it.

`start_child` starts any server command (Schmier, or the baseline of
`bench/baseline_server.py`), waits for its `/healthz`, and returns a `Child` that stops
it and reads its log. `start_subprocess_server` is the same for `python -m schmier` with
`SCHMIER_*` settings, returned as a `RunningServer`, the handle the tests and tools use
for any server (a child process, or one in the tests' own process): its addresses and
small HTTP helpers.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import httpx

from bench.kit import loopback, rooms
from bench.kit.ports import free_port

REPO = Path(__file__).resolve().parents[2]
"""The repository's root: child servers run from there."""

START_TIMEOUT = 30.0
"""Seconds a child server has to answer `/healthz`."""


class Child:
    """A server process started by `start_child`, with its stderr in a log file.

    The log is a file, never a pipe: nobody reads a pipe while a run goes on, and a
    server whose log fills the pipe's 64 KiB blocks on its next log line (it stops
    answering, which looks like a server bug).
    """

    def __init__(self, process: subprocess.Popen[bytes], port: int, log: Path, own_log: bool):
        self.process = process
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        self.own_log = own_log
        """Whether the log is a temporary file of ours (deleted on `stop`)."""

    @property
    def pid(self) -> int:
        return self.process.pid

    def tail(self, chars: int = 2000) -> str:
        """The last `chars` characters the server wrote to stderr."""
        with self.log.open("rb") as log:
            log.seek(0, os.SEEK_END)
            log.seek(max(0, log.tell() - chars))
            return log.read().decode(errors="replace")

    def stop(self, grace: float = 15.0, on_kill: Callable[[], None] | None = None) -> None:
        """SIGTERM, then SIGKILL after `grace` seconds (calling `on_kill` first)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                if on_kill is not None:
                    on_kill()
                self.process.kill()
                self.process.wait()

    def forget_log(self) -> None:
        """Delete the log if it is a temporary file of ours."""
        if self.own_log:
            self.log.unlink(missing_ok=True)


def start_child(
    command: list[str],
    env: Mapping[str, str],
    port: int,
    *,
    log: Path | None = None,
    cpus: set[int] | None = None,
) -> Child:
    """Run `command` (a server that will listen on 127.0.0.1:`port`) with exactly the
    environment `env`, from the repository's root; return once its `/healthz` answers.

    Its stderr is appended to `log` (a temporary file when None); `cpus` pins it to
    those CPUs. A server that exits or does not answer in time is stopped and raises.
    """
    own_log = log is None
    if log is None:
        handle, name = tempfile.mkstemp(prefix="schmier-server-", suffix=".log")
        os.close(handle)
        log = Path(name)
    with log.open("ab") as sink:
        process = subprocess.Popen(
            command, cwd=REPO, env=dict(env), stdout=subprocess.DEVNULL, stderr=sink
        )
    if cpus:
        # Set before the interpreter has started any thread (they inherit it).
        os.sched_setaffinity(process.pid, cpus)
    child = Child(process, port, log, own_log)
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            tail = child.tail()
            child.forget_log()
            raise RuntimeError(f"server exited with {process.returncode}: {tail}")
        try:
            if loopback.get(child.url + "/healthz", timeout=1).status_code == 200:
                return child
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            process.wait()
            child.forget_log()
            raise RuntimeError(f"server did not start: {command}")
        time.sleep(0.05)


def schmier_command() -> list[str]:
    """The command that runs Schmier with this interpreter."""
    return [sys.executable, "-m", "schmier"]


def schmier_env(settings: Mapping[str, str], port: int) -> dict[str, str]:
    """This process's environment, `settings` over it, and the address to listen on."""
    return {**os.environ, **settings, "SCHMIER_HOST": "127.0.0.1", "SCHMIER_PORT": str(port)}


class RunningServer:
    """A server on 127.0.0.1 and the addresses to reach it."""

    def __init__(self, port: int, settings: Any = None, app: Any = None) -> None:
        self.port = port
        self.settings = settings
        """The `Settings` of an in-process server (None for a subprocess)."""
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

    # Small HTTP helpers for async callers.

    async def create_room(self, variant: str, rules: dict[str, Any] | None = None) -> str:
        """Create a room; its code."""
        async with loopback.async_client(base_url=self.base_url) as http:
            return await rooms.create_room(http, variant, rules)

    async def join(self, code: str, name: str, seat: int | None = None) -> tuple[int, str]:
        """Join a room: (seat, token)."""
        async with loopback.async_client(base_url=self.base_url) as http:
            return await rooms.join(http, code, name, seat)

    async def room(self, code: str) -> dict[str, Any]:
        """`GET /api/rooms/{code}`."""
        async with loopback.async_client(base_url=self.base_url) as http:
            return await rooms.room(http, code)


def start_subprocess_server(
    env: dict[str, str], log: Path | None = None
) -> tuple[RunningServer, subprocess.Popen[bytes]]:
    """`python -m schmier` as a child process (so a caller can SIGKILL it) on a free
    port, with the `SCHMIER_*` settings of `env`; its stderr goes to `log` (appended; a
    temporary file when None, deleted when the server is stopped)."""
    port = free_port()
    child = start_child(schmier_command(), schmier_env(env, port), port, log=log)
    running = RunningServer(port)

    def stop() -> None:
        child.stop()
        child.forget_log()

    running._stop = stop
    return running, child.process


LEASE_MS = 1500
"""A short lease keeps failover quick in tests and tools (the default is 5000)."""


def cluster_env(
    redis_url: str, prefix: str, instance: str, lease_ms: int = LEASE_MS
) -> dict[str, str]:
    """Settings of one instance of a cluster on one Redis prefix: no delays, limits out
    of the way, a short lease, and `normal` as the default bot, as for the tests'
    in-process servers (a game of search bots costs minutes of a worker's CPU on a busy
    machine)."""
    return {
        "SCHMIER_REDIS_URL": redis_url,
        "SCHMIER_REDIS_PREFIX": prefix,
        "SCHMIER_INSTANCE_ID": instance,
        "SCHMIER_LEASE_MS": str(lease_ms),
        "SCHMIER_BOT_DELAY": "0",
        "SCHMIER_DEFAULT_BOT": "normal",
        "SCHMIER_HAND_PAUSE": "0",
        "SCHMIER_TRICK_PAUSE": "0",
        "SCHMIER_FRAME_RATE": "1000",
        "SCHMIER_FRAME_BURST": "1000",
        "SCHMIER_CREATE_RATE": "10000",
        "SCHMIER_JOIN_RATE": "10000",
        "SCHMIER_LOOKUP_FAIL_RATE": "10000",
        "SCHMIER_LOG_LEVEL": os.environ.get("SCHMIER_TEST_CLUSTER_LOG", "WARNING"),
    }
