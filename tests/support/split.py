"""A Redis primary cut off from its sentinels and its replica while an instance still
reaches it: the split a Sentinel set-up exists to survive, on hosts of its own.

`SplitCluster` puts a primary, its replica, three sentinels and one Schmier instance
each in a network namespace (`tests/support/netns.py`); the instance finds the primary
through the sentinels (`SCHMIER_REDIS_SENTINELS`), the players are in the root
namespace. `split` drops every packet between the primary and the sentinels and the
replica (the instance still reaches all of them): the sentinels judge the primary down
and promote the replica, while the old primary still answers the instance until the
instance hears of the promotion. `heal` lets the sentinels reach the old primary again,
and they make it a replica of the new one (what it alone had is thrown away: the loss
this scenario measures).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path

import redis

from bench.kit.client import Client
from schmier.store import RedisStore
from tests.support.cluster import RoamingSeat
from tests.support.faults import FaultCluster, wait_until
from tests.support.netns import Host, Network
from tests.support.redis_procs import binary

MASTER = "mymaster"
DOWN_AFTER_MS = 1500
FAILOVER_TIMEOUT_MS = 4000


def client(address: str, port: int = 6379) -> redis.Redis:
    return redis.Redis(host=address, port=port, socket_timeout=2, socket_connect_timeout=2)


def ask(address: str, port: int, *command: str) -> object:
    """One command to the server at `address:port` (None when it does not answer)."""
    try:
        with client(address, port) as conn:
            return conn.execute_command(*command)
    except redis.RedisError:
        return None


class LaxSeat(RoamingSeat):
    """A seat that notes a `seq` going back instead of failing on it: what a player
    sees of commits a failover lost (measured without `SCHMIER_REDIS_WAIT_STRICT`)."""

    async def connect(self, timeout: float = 40) -> Client:
        self.last_seq = -1
        return await super().connect(timeout)

    def _note_seqs(self, client: Client) -> None:
        pass


def lost(seats: list[RoamingSeat]) -> dict[str, int]:
    """Per room, the most `seq` numbers any seat saw taken back: the accepted states a
    player was shown and then saw undone (each one a play, a bid or a bot's move)."""
    worst: dict[str, int] = {}
    for seat in seats:
        seen = -1
        for client in seat.clients:
            for frame in client.frames:
                if frame["type"] != "state":
                    continue
                if frame["seq"] < seen:
                    back = seen - frame["seq"]
                    worst[seat.code] = max(worst.get(seat.code, 0), back)
                seen = max(seen, frame["seq"])
    return worst


class SplitCluster(FaultCluster):
    """Primary, replica, sentinels `s1`-`s3` and instance `a`, each on a host."""

    def __init__(self, net: Network, log_dir: Path, strict: bool, lease_ms: int = 1500) -> None:
        self.players(net, log_dir, lease_ms)
        self.seat_kind = RoamingSeat if strict else LaxSeat
        self.primary = net.host("primary")
        self.replica = net.host("replica")
        self.sentinels = [net.host(f"s{n}") for n in (1, 2, 3)]
        self.hosts = {"a": net.host("a")}
        self.redis_url = "redis:///0"
        self.env = {
            "SCHMIER_REDIS_SENTINELS": ",".join(f"{s.address}:26379" for s in self.sentinels),
            "SCHMIER_REDIS_SENTINEL_MASTER": MASTER,
            "SCHMIER_REDIS_WAIT_REPLICAS": "1",
            "SCHMIER_REDIS_WAIT_MS": "1000",
            "SCHMIER_REDIS_WAIT_STRICT": "true" if strict else "false",
        }

    def _redis(self, host: Host, *options: str) -> None:
        argv = ["redis-server", "--bind", host.address, "--port", "6379", "--save", "",
                "--appendonly", "no", "--protected-mode", "no",
                "--repl-diskless-sync-delay", "0", *options]  # fmt: skip
        self.net.spawn(host, argv, os.environ, self.log_dir / f"{host.label}.log", self.log_dir)
        wait_until(lambda: ask(host.address, 6379, "PING") is True, host.label)

    def start(self) -> None:
        """The primary, its replica (synced), the sentinels (knowing each other and the
        replica), then the instance."""
        self._redis(self.primary)
        self._redis(self.replica, "--replicaof", self.primary.address, "6379")
        wait_until(lambda: self.replica_synced(self.replica), "the replica's sync")
        for sentinel in self.sentinels:
            conf = self.log_dir / f"{sentinel.label}.conf"
            conf.write_text(
                f"port 26379\nbind {sentinel.address}\nprotected-mode no\ndaemonize no\n"
                f"dir {self.log_dir}\n"
                f"sentinel monitor {MASTER} {self.primary.address} 6379 2\n"
                f"sentinel down-after-milliseconds {MASTER} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {MASTER} {FAILOVER_TIMEOUT_MS}\n"
                f"sentinel parallel-syncs {MASTER} 1\n"
            )
            log = self.log_dir / f"{sentinel.label}.log"
            argv = [binary("redis-sentinel"), str(conf)]
            self.net.spawn(sentinel, argv, os.environ, log, self.log_dir)
        wait_until(self.sentinels_ready, "the sentinels to know everybody", 60)
        for name, host in self.hosts.items():
            self.start_instance(name, host)

    def replica_synced(self, host: Host) -> bool:
        info = ask(host.address, 6379, "INFO", "replication")
        return isinstance(info, dict) and info.get("master_link_status") == "up"

    def sentinels_ready(self) -> bool:
        for sentinel in self.sentinels:
            others = ask(sentinel.address, 26379, "SENTINEL", "SENTINELS", MASTER)
            replicas = ask(sentinel.address, 26379, "SENTINEL", "REPLICAS", MASTER)
            if not isinstance(others, list) or len(others) != len(self.sentinels) - 1:
                return False
            if not isinstance(replicas, list) or len(replicas) != 1:
                return False
        return True

    def master(self) -> str | None:
        """The master's address as every sentinel agrees (None while they differ)."""
        seen = set()
        for sentinel in self.sentinels:
            got = ask(sentinel.address, 26379, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER)
            seen.add(got[0].decode() if isinstance(got, list) and got else None)
        return seen.pop() if len(seen) == 1 else None

    def others(self) -> list[str]:
        return [self.replica.address, *(s.address for s in self.sentinels)]

    def split(self) -> None:
        """Cut the primary off from the sentinels and the replica (not from `a`)."""
        for other in self.others():
            self.net.cut(self.primary, other)

    def heal(self) -> None:
        self.net.clear(self.primary)

    def store(self) -> RedisStore:
        return RedisStore(
            self.redis_url,
            prefix=self.prefix,
            ttl_seconds=600,
            sentinels=[(s.address, 26379) for s in self.sentinels],
            sentinel_master=MASTER,
        )


SPLIT_FAULTS = ("owner_from_redis", "players_cut", "players_lossy")
"""The faults a split schedule alternates with the primary cut off: the instance cut off
from the current primary; the players' links to it cut; 5% of their packets dropped."""

SPLIT_TABLES = {
    "schmier6": {0: "a", 3: "a"},
    "schmier5": {0: "a", 2: "a"},
    "wisconsin4": {0: "a", 2: "a"},
}
"""The people of a split schedule's tables: two at each, on the one instance."""


async def split_schedule(
    split: SplitCluster, rng: random.Random, until: float, done: list[str]
) -> None:
    """Until `until` (`time.monotonic()`): the current primary cut off from the
    sentinels and the other Redis for 4-10 s (held until the other is promoted), then
    one of `SPLIT_FAULTS` for 1-8 s, and again; 1-3 s between faults, each one named in
    `done`. A cut primary is healed only once the other was promoted, and the next
    fault waits until it has rejoined as a replica (so each split has a synced replica
    to promote; with one replica, strict rooms pause until then)."""
    net = split.net
    instance = split.hosts["a"]
    redis_hosts = [split.primary, split.replica]
    primary_next = True
    while time.monotonic() < until:
        master = await asyncio.to_thread(_settled_master, split)
        old = next(h for h in redis_hosts if h.address == master)
        new = next(h for h in redis_hosts if h is not old)
        seconds = rng.uniform(4, 10) if primary_next else rng.uniform(1, 8)
        started = time.monotonic()
        if primary_next:
            for other in [new.address, *(s.address for s in split.sentinels)]:
                net.cut(old, other)
            promoted = lambda new=new: split.master() == new.address  # noqa: E731
            await asyncio.to_thread(wait_until, promoted, "promotion", 60)
            done.append(f"primary_cut {old.label} {seconds:.1f} s")
        else:
            kind = rng.choice(SPLIT_FAULTS)
            if kind == "owner_from_redis":
                net.cut(instance, old.address)
            elif kind == "players_cut":
                net.cut(instance, net.root)
            else:
                net.lossy(instance, net.root, 0.05)
            done.append(f"{kind} a {seconds:.1f} s")
        await asyncio.sleep(max(0.0, started + seconds - time.monotonic()))
        for host in (instance, *redis_hosts):
            net.clear(host)
        if primary_next:
            rejoined = lambda old=old: split.replica_synced(old)  # noqa: E731
            await asyncio.to_thread(wait_until, rejoined, "the old primary's resync", 90)
        primary_next = not primary_next
        await asyncio.sleep(rng.uniform(1, 3))


def _settled_master(split: SplitCluster) -> str:
    """The primary every sentinel names, with its replica synced."""
    found: list[str] = []

    def settled() -> bool:
        master = split.master()
        others = [h for h in (split.primary, split.replica) if h.address != master]
        found[:] = [master] if master and len(others) == 1 else []
        return bool(found) and split.replica_synced(others[0])

    wait_until(settled, "a primary with a synced replica", 90)
    return found[0]
