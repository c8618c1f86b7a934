"""Redis servers and sentinels of a test's own: real `redis-server` and `redis-sentinel`
processes on free loopback ports, each in a temporary directory of its own, started and
stopped by PID (never the shared Redis on 6379).

`RedisProcess` is one server (a primary, or a replica with `replica_of`); `Sentinels`
are three sentinels monitoring one primary under `MASTER`, with timings short enough
for a test (a master is judged down after `DOWN_AFTER_MS`). `HighAvailability` is the
whole set the HA tests use: a primary, its replica and three sentinels, all ready (the
sentinels know the replica and each other) when `start` returns.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis

from bench.kit.ports import free_port
from tests.support.requirements import missing

MASTER = "mymaster"
DOWN_AFTER_MS = 1500
"""Sentinels judge a silent master down after this (Redis' default is 30 s). At 1000 ms
a busy test machine made the sentinels fail a healthy new master over again."""
FAILOVER_TIMEOUT_MS = 4000


def binary(name: str) -> str:
    """The path of Debian's `redis-server` / `redis-sentinel`, or skip (or fail)."""
    found = shutil.which(name)
    if found is None and Path(f"/usr/bin/{name}").exists():
        found = f"/usr/bin/{name}"
    if found is None:
        missing("redis", f"no {name} binary to start a Redis of the test's own")
        raise AssertionError("unreachable")
    return found


def client(port: int) -> redis.Redis:
    """A plain synchronous redis-py client of 127.0.0.1:`port` (close it after use)."""
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=2, socket_connect_timeout=2)


def replication(port: int) -> dict[str, Any]:
    """`INFO replication` of the server on `port`."""
    with client(port) as c:
        info: dict[str, Any] = c.info("replication")
    return info


def role_replicas(port: int) -> int:
    """How many replicas the master on `port` lists in `ROLE`: only those online (past
    their initial sync), unlike `INFO`'s `connected_slaves`."""
    with client(port) as c:
        role: list[Any] = c.execute_command("ROLE")
    return len(role[2]) if role and role[0] in (b"master", "master") else 0


def answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def wait_for(check: Callable[[], bool], what: str, timeout: float = 30) -> None:
    """Poll `check()` until it is true (an exception counts as not yet)."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(Exception):
            if check():
                return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


class RedisProcess:
    """One `redis-server` (or, with `sentinel_conf`, `redis-sentinel`) of the test."""

    def __init__(self, directory: Path, *options: str, sentinel: bool = False) -> None:
        self.directory = directory
        self.options = list(options)
        self.sentinel = sentinel
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        directory.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> RedisProcess:
        """Start (or start again, on the same port and directory) and wait for PING."""
        log = self.directory / "redis.log"
        if self.sentinel:
            argv = [binary("redis-sentinel"), str(self.directory / "sentinel.conf")]
        else:
            argv = [
                binary("redis-server"),
                "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
                "--save", "", "--daemonize", "no", "--logfile", str(log),
                # A replica's first sync starts at once, not after Redis' default 5 s.
                "--repl-diskless-sync-delay", "0",
                *self.options,
            ]  # fmt: skip
        self.process = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.directory
        )
        wait_for(lambda: answers(self.port), f"redis on port {self.port}", timeout=20)
        return self

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Stop it by PID (SIGKILL by default: no shutdown, nothing flushed)."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(sig)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=15)
        self.process = None

    def log(self) -> str:
        path = self.directory / "redis.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""


class Sentinels:
    """Three sentinels monitoring the primary at `primary_port` (quorum 2)."""

    def __init__(self, directory: Path, primary_port: int, count: int = 3) -> None:
        self.members = [
            RedisProcess(directory / f"sentinel{k}", sentinel=True) for k in range(count)
        ]
        for member in self.members:
            (member.directory / "sentinel.conf").write_text(
                f"port {member.port}\nbind 127.0.0.1\ndaemonize no\n"
                f"dir {member.directory}\nlogfile {member.directory / 'redis.log'}\n"
                f"sentinel monitor {MASTER} 127.0.0.1 {primary_port} 2\n"
                f"sentinel down-after-milliseconds {MASTER} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {MASTER} {FAILOVER_TIMEOUT_MS}\n"
                f"sentinel parallel-syncs {MASTER} 1\n"
            )

    @property
    def addresses(self) -> str:
        """`SCHMIER_REDIS_SENTINELS` for them."""
        return ",".join(m.address for m in self.members)

    def start(self) -> None:
        for member in self.members:
            member.start()

    def master_port(self) -> int:
        """The master's port as every sentinel that answers agrees (else 0)."""
        ports = set()
        for member in self.members:
            with contextlib.suppress(redis.RedisError), client(member.port) as c:
                ports.add(int(c.sentinel_get_master_addr_by_name(MASTER)[1]))
        return ports.pop() if len(ports) == 1 else 0

    def ready(self, replicas: int) -> bool:
        """Every sentinel knows the others and `replicas` healthy replicas."""
        for member in self.members:
            with client(member.port) as c:
                others = c.sentinel_sentinels(MASTER)
                known = c.sentinel_slaves(MASTER)
            if len(others) != len(self.members) - 1:
                return False
            healthy = [r for r in known if not r.get("is_sdown") and not r.get("is_odown")]
            if len(healthy) != replicas:
                return False
        return True

    def stop(self) -> None:
        for member in self.members:
            member.kill(signal.SIGTERM)

    def logs(self) -> str:
        return "\n".join(f"--- sentinel {m.port}\n{m.log()}" for m in self.members)


class HighAvailability:
    """A primary, its replica and three sentinels, in `directory`."""

    def __init__(self, directory: Path) -> None:
        self.primary = RedisProcess(directory / "primary", "--appendonly", "no")
        self.replica = RedisProcess(
            directory / "replica", "--appendonly", "no", "--replicaof", "127.0.0.1", "0"
        )
        self.replica.options[-1] = str(self.primary.port)
        self.sentinels = Sentinels(directory / "sentinels", self.primary.port)

    def start(self) -> HighAvailability:
        self.primary.start()
        self.replica.start()
        wait_for(
            lambda: replication(self.replica.port).get("master_link_status") == "up",
            "the replica's link to the primary",
        )
        self.sentinels.start()
        wait_for(lambda: self.sentinels.ready(1), "the sentinels to know everybody", 60)
        return self

    def stop(self) -> None:
        self.sentinels.stop()
        for server in (self.primary, self.replica):
            server.kill(signal.SIGTERM)

    def logs(self) -> str:
        return "\n".join(
            [f"--- primary\n{self.primary.log()}", f"--- replica\n{self.replica.log()}",
             self.sentinels.logs()]
        )  # fmt: skip
