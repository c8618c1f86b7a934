"""A cluster on separate hosts: Redis and two Schmier instances, each in a network
namespace of its own (`tests/support/netns.py`), the players in the root namespace.

`FaultCluster` starts them as processes (`redis-server`, `python -m schmier`), records
what Redis executes (`tests/support/history.py`'s `StoreRecorder`, from the root
namespace, which no fault ever cuts), and gathers each game's history for the checker:
every socket its players used, the room's stored record and log, and the state a fresh
`hello` gets once every fault has healed.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.kit import loopback
from bench.kit.client import ClosedError
from bench.kit.keys import fresh_prefix
from bench.kit.servers import REPO, RunningServer, cluster_env
from schmier.rooms.record import RoomRecord
from schmier.store import RedisStore
from tests.support.cluster import RoamingSeat
from tests.support.history import Final, Socket, StoreHistory, StoreRecorder, check
from tests.support.netns import Host, Network
from tests.support.servers import Client

PORT = 8000
"""Every instance listens on this port of its own namespace's address."""


class HostServer(RunningServer):
    """A server reached at its namespace's address, not the loopback."""

    def __init__(self, address: str, port: int) -> None:
        super().__init__(port)
        self.address = address
        self.base_url = f"http://{address}:{port}"

    def ws_url(self, code: str) -> str:
        return f"ws://{self.address}:{self.port}/ws/{code}"


def wait_until(check: Any, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not come up")
        time.sleep(0.05)


def answers(url: str) -> bool:
    try:
        return loopback.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


class FaultCluster:
    """Redis on host `redis`, instances on hosts `a` and `b`."""

    seat_kind: type[RoamingSeat] = RoamingSeat
    """How the players play their seats."""

    def __init__(self, net: Network, log_dir: Path, lease_ms: int = 1500) -> None:
        self.players(net, log_dir, lease_ms)
        self.redis = net.host("redis")
        self.hosts = {name: net.host(name) for name in ("a", "b")}
        self.redis_url = f"redis://{self.redis.address}:6379/0"

    def players(self, net: Network, log_dir: Path, lease_ms: int) -> None:
        """What every cluster of faults has, whatever its Redis: the instances and the
        players' seats and rooms."""
        self.net = net
        self.log_dir = log_dir
        self.lease_ms = lease_ms
        self.prefix = fresh_prefix("schmier-netfaults", 8) + ":"
        self.env: dict[str, str] = {}
        """Settings of every instance started from now on (the sentinels, say)."""
        self.servers: dict[str, HostServer] = {}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        """Each instance's process (`ip netns exec` runs the server in its place)."""
        self.recorder: StoreRecorder | None = None
        self.seats: list[RoamingSeat] = []
        """Every seat played, with every socket it used."""
        self.rooms: list[str] = []
        """Every room made (each one's history is checked, even if a fault cut short
        its making)."""
        self.relay: Host | None = None
        """The relay's host, once the players go through one (`through_relay`)."""
        self.relay_process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Redis, its recorder, then both instances."""
        self.net.spawn(
            self.redis,
            ["redis-server", "--bind", self.redis.address, "--port", "6379", "--save", "",
             "--appendonly", "no", "--protected-mode", "no"],
            os.environ,
            self.log_dir / "redis.log",
            self.log_dir,
        )  # fmt: skip
        wait_until(self._redis_answers, "redis")
        self.recorder = StoreRecorder(self.redis.address, 6379, self.prefix)
        for name, host in self.hosts.items():
            self.start_instance(name, host)

    def _redis_answers(self) -> bool:
        import socket

        try:
            with socket.create_connection((self.redis.address, 6379), timeout=1) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def start_instance(self, name: str, host: Host) -> HostServer:
        env = {
            **os.environ,
            **cluster_env(self.redis_url, self.prefix, name, self.lease_ms),
            **self.env,
            "SCHMIER_HOST": host.address,
            "SCHMIER_PORT": str(PORT),
            "SCHMIER_DATA_DIR": tempfile.mkdtemp(prefix="schmier-data-", dir=self.log_dir),
            "SCHMIER_BOT_WORKERS": "0",
            "SCHMIER_LOG_LEVEL": "INFO",
        }
        command = [sys.executable, "-m", "schmier"]
        self.processes[name] = self.net.spawn(
            host, command, env, self.log_dir / f"{name}.log", REPO
        )
        server = HostServer(host.address, PORT)
        wait_until(lambda: answers(server.base_url + "/healthz"), f"instance {name}")
        self.servers[name] = server
        return server

    def through_relay(self, delay: float, jitter: float, slow: bool = True) -> Host:
        """Put a delaying relay (`tests/support/relay.py`) on a host of its own between
        the players and the instances: from now on the players reach each instance at
        the relay's address (port `PORT` + its index), every chunk held `delay` ±
        `jitter` seconds each way while the relay is slow (from the start, or from
        `slow(True)` on). The relay's host is the one to make lossy for every instance
        at once; an instance's host, against the relay's address, for one."""
        relay = self.relay = self.net.host("relay")
        routes = [
            f"{relay.address}:{PORT + n}={server.address}:{server.port}"
            for n, server in enumerate(self.servers.values())
        ]
        command = [sys.executable, "-m", "tests.support.relay", "--delay", str(delay),
                   "--jitter", str(jitter), "--seed", self.prefix, *routes]  # fmt: skip
        if not slow:
            command.append("--fast")
        self.relay_process = self.net.spawn(
            relay, command, os.environ, self.log_dir / "relay.log", REPO
        )
        for n, name in enumerate(list(self.servers)):
            front = HostServer(relay.address, PORT + n)
            url = front.base_url + "/healthz"
            wait_until(lambda url=url: answers(url), f"the relay to {name}")
            self.servers[name] = front
        return relay

    def slow(self, on: bool) -> None:
        """Turn the relay's delay on or off (its signals; `ip netns exec` execs, so the
        process is the relay itself, whose handlers are set before it listens)."""
        assert self.relay_process is not None, "the players do not go through a relay"
        self.relay_process.send_signal(signal.SIGUSR1 if on else signal.SIGUSR2)

    def logs(self) -> str:
        parts = []
        for path in sorted(self.log_dir.glob("*.log")):
            parts.append(f"--- {path.stem}\n{path.read_text(errors='replace')[-3000:]}")
        return "\n".join(parts)

    def store(self) -> RedisStore:
        return RedisStore(self.redis_url, prefix=self.prefix, ttl_seconds=600)

    async def owner(self, code: str) -> str | None:
        store = self.store()
        try:
            holder = await store.lease_holder(code)
        finally:
            await store.aclose()
        return None if holder is None else holder.rpartition(":")[0]

    async def table(
        self,
        variant: str,
        humans: dict[int, str],
        rules: dict[str, Any],
        pace: float,
        options: dict[str, Any] | None = None,
    ) -> tuple[str, list[RoamingSeat]]:
        """A started room: each seat of `humans` played through the instance named
        there first (then any), bots elsewhere; the first seat's instance owns it."""
        first = self.servers[humans[min(humans)]]
        code = await first.create_room(variant, rules)
        self.rooms.append(code)
        order = list(self.servers)
        seats = []
        for seat, name in sorted(humans.items()):
            _, token = await first.join(code, f"Player {seat}", seat)
            roaming = self.seat_kind(
                code, seat, token, lambda: list(self.servers.values()),
                random.Random(f"{code}{seat}"), start=order.index(name), pace=pace,
                options=options,
            )  # fmt: skip
            self.seats.append(roaming)
            await roaming.connect()
            seats.append(roaming)
        await self.start_game(seats[0])
        return code, seats

    async def start_game(self, host: RoamingSeat) -> None:
        """Fill the empty seats with bots and start, through `host`'s socket (again
        through a new one when a fault closes it or the room answers with an error)."""
        while True:
            client = host.client or await host.connect()
            try:
                assert client.state is not None
                if client.state["view"]["phase"] != "lobby":
                    return
                for action in client.state["view"]["legal"]:
                    if action["type"] == "add_bot":
                        await client.send(action)
                await client.wait_state(
                    lambda v: {"type": "start"} in v["legal"] or v["phase"] != "lobby", 15
                )
                if client.state["view"]["phase"] == "lobby":
                    await client.send({"type": "start"})
                    await client.wait_state(lambda v: v["phase"] != "lobby", 15)
                return
            except (ClosedError, TimeoutError, AssertionError):
                await host.reconnect()

    async def final(self, code: str) -> Final:
        """The room once every fault has healed: a fresh spectator's state (waiting out
        a take-over) and the stored record read while it watches."""
        deadline = asyncio.get_running_loop().time() + 40
        while True:
            for server in self.servers.values():
                try:
                    fresh = await asyncio.wait_for(Client.seated(server, code, None), 10)
                except (AssertionError, TimeoutError, OSError):
                    continue
                store = self.store()
                try:
                    stored = await store.load(code)
                    log = await store.read_log(code)
                finally:
                    await store.aclose()
                await fresh.close()
                assert stored is not None
                record = RoomRecord.from_bytes(stored.snapshot)
                return Final(record, stored.version, log, fresh.state)
            assert asyncio.get_running_loop().time() < deadline, "no instance answers"
            await asyncio.sleep(0.2)

    async def check(self, codes: list[str]) -> tuple[int, StoreHistory]:
        """Close every player's sockets, then run the history checker over it all."""
        for seat in self.seats:
            await seat.close()
        await asyncio.sleep(0.3)
        finals = {code: await self.final(code) for code in codes}
        await asyncio.sleep(0.3)
        history = self.recorder.stop() if self.recorder is not None else None
        sockets = [
            Socket(seat.code, seat.seat, client.transcript)
            for seat in self.seats
            for client in seat.clients
        ]
        return check(sockets, finals, history), history or StoreHistory(self.prefix)


FAULTS = ("owner_from_redis", "instances_apart", "players_cut", "players_lossy", "players_slow")
"""The faults of a random schedule: an instance cut off from Redis; the two instances
cut off from each other; the players' links to an instance cut; 5% of the packets
between the players and an instance dropped; every player's link 200 ms ± 50 ms each
way (the relay's delay turned on)."""

TABLES = {
    "schmier6": {0: "a", 3: "b"},
    "schmier5": {0: "b", 2: "a"},
    "wisconsin4": {0: "a", 2: "b"},
}
"""The people of a random schedule's tables, by variant: one on each instance."""


async def random_schedule(
    cluster: FaultCluster, rng: random.Random, until: float, done: list[str]
) -> None:
    """Faults one after another until `until` (`time.monotonic()`), each 1-8 s long
    with 1-3 s between, each kind once (in a random order) before any is drawn again;
    each one is named in `done`. The players must reach the instances through a relay
    (`through_relay`, fast), so that their links can be slowed: their links to an
    instance are cut (or made lossy) between the relay and that instance."""
    net = cluster.net
    relay = cluster.relay
    assert relay is not None, "a random schedule slows the players' links: needs a relay"
    first = rng.sample(FAULTS, len(FAULTS))
    while time.monotonic() < until:
        kind = first.pop(0) if first else rng.choice(FAULTS)
        name = rng.choice(sorted(cluster.hosts))
        host = cluster.hosts[name]
        seconds = rng.uniform(1, 8)
        if kind == "owner_from_redis":
            net.cut(host, cluster.redis.address)
        elif kind == "instances_apart":
            net.cut(cluster.hosts["a"], cluster.hosts["b"].address)
        elif kind == "players_cut":
            net.cut(host, relay.address)
        elif kind == "players_lossy":
            net.lossy(host, relay.address, 0.05)
        else:
            cluster.slow(True)
            name = "all"
        done.append(f"{kind} {name} {seconds:.1f} s")
        await asyncio.sleep(seconds)
        for each in cluster.hosts.values():
            net.clear(each)
        if kind == "players_slow":
            cluster.slow(False)
        await asyncio.sleep(rng.uniform(1, 3))


async def games_until(
    cluster: FaultCluster,
    variant: str,
    until: float,
    options: dict[str, Any],
    tables: dict[str, dict[int, str]] = TABLES,
) -> int:
    """Games of `variant` one after another until `until`, its people on the instances
    `tables` names; how many were made (a room whose making a fault cut short is left
    as it is, and still checked)."""
    made = 0
    while time.monotonic() < until or not made:
        made += 1
        try:
            _, seats = await cluster.table(variant, tables[variant], {"target": 5}, 0.1, options)
        except (httpx.HTTPError, ClosedError, AssertionError, RuntimeError, OSError):
            await asyncio.sleep(1)
            continue
        await asyncio.gather(
            *(s.play_until(lambda v: v["phase"] == "game_over", 240) for s in seats)
        )
    return made
