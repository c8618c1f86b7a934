"""Redis high availability for real: a primary, a replica and three sentinels of the
test's own (Debian's `redis-server` and `redis-sentinel`, on free loopback ports,
started and stopped by PID), and two `python -m schmier` instances that find the
master through the sentinels and wait for the replica before any view goes out
(`SCHMIER_REDIS_WAIT_REPLICAS=1`).

- A game of every variant, its seats split over both instances (bots in the others),
  is played into the middle of a hand; the primary is SIGKILLed; the sentinels promote
  the replica (the old primary, started again, becomes its replica). Every game
  finishes; every view any socket got, before the kill and after, is a true state of
  the replay of the room's final log (so every action answered as accepted before the
  kill is in it); the games' rules checks pass. The time from the kill to the first
  accepted action after it is printed (docs/scaling.md has the figures).
- A forced failover (`SENTINEL FAILOVER`): the store follows `+switch-master` at once,
  its commits go on against the new master, and the demoted one answers `-READONLY`,
  which drops the commit connection instead of keeping it.
- WAIT: with the replica up a commit is acknowledged by it; with the replica gone the
  commit still counts after the timeout and is counted as unreplicated.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schmier import engine
from schmier.store import RedisStore, StoreUnavailable
from schmier.store.wire import RedisWire
from tests.support.cluster import Cluster, RoamingSeat, cancel_all
from tests.support.redis_procs import (
    MASTER,
    HighAvailability,
    RedisProcess,
    replication,
    role_replicas,
    wait_for,
)
from tests.support.servers import Client
from tests.test_scaleout import check_game, over, start_game
from tests.test_secrecy_server import check_client

PACE = 0.02
"""Seconds each test player waits before a frame, so that the games are still going
when the primary dies (bots wait `SCHMIER_BOT_DELAY`, set alike)."""

GAMES = [
    ("schmier6", {0: "a", 1: "b", 4: "b"}),
    ("schmier5", {0: "b", 2: "a"}),
    ("wisconsin4", {1: "a", 2: "b"}),
]


@pytest.fixture
def ha(tmp_path: Path) -> Iterator[HighAvailability]:
    servers = HighAvailability(tmp_path / "redis").start()
    yield servers
    servers.stop()
    print(servers.logs())


@pytest.fixture
def cluster(ha: HighAvailability, tmp_path: Path) -> Iterator[Cluster]:
    (tmp_path / "logs").mkdir()
    running = Cluster("redis://", "ha:", tmp_path / "logs")
    running.lease_ms = 5000
    running.env = {
        "SCHMIER_REDIS_SENTINELS": ha.sentinels.addresses,
        "SCHMIER_REDIS_SENTINEL_MASTER": MASTER,
        "SCHMIER_REDIS_WAIT_REPLICAS": "1",
        "SCHMIER_REDIS_WAIT_MS": "1000",
        "SCHMIER_BOT_DELAY": str(PACE),
        "SCHMIER_LOG_LEVEL": os.environ.get("SCHMIER_TEST_CLUSTER_LOG", "INFO"),
    }
    running.store_options = {
        "sentinels": [("127.0.0.1", m.port) for m in ha.sentinels.members],
        "sentinel_master": MASTER,
    }
    yield running
    running.stop()
    print(running.logs())


def first_accepted_after(
    clients_by_room: dict[str, list[Client]], failed_over: dict[str, int]
) -> float | None:
    """When a socket first got a change committed after the failover: a `state` whose
    `seq` is above what the promoted replica held for that room when it was promoted."""
    first: float | None = None
    for code, clients in clients_by_room.items():
        for client in clients:
            for frame, at in zip(client.frames, client.arrivals, strict=True):
                if frame["type"] == "state" and frame["seq"] > failed_over[code]:
                    first = at if first is None else min(first, at)
                    break
    return first


def stalled(roaming: RoamingSeat) -> tuple[Any, ...]:
    """What a seat last saw, to print when the games did not finish."""
    client = roaming.client
    if client is None or client.state is None:
        return (roaming.code, roaming.seat, None)
    seen = [
        (f["type"], f.get("code"), f.get("seq"), f.get("view", {}).get("turn"))
        for f in client.frames[-10:]
    ]
    return (roaming.code, roaming.seat, client.state["view"]["phase"], seen)


def mid_hand_somewhere(rooms: list[tuple[str, str, dict[int, RoamingSeat]]]) -> bool:
    """Every game has a trick on the table (as one of its sockets last saw it)."""
    for _, _, seats in rooms:
        views = [r.client.state["view"] for r in seats.values() if r.client and r.client.state]
        if not any(v["phase"] == "play" and v["trick"] for v in views):
            return False
    return True


async def test_the_primary_killed_mid_hand_every_game_finishes(
    ha: HighAvailability, cluster: Cluster
) -> None:
    servers = dict(zip("ab", cluster.start("a", "b"), strict=True))
    names = list(servers)
    rules = {"target": 11}
    rooms: list[tuple[str, str, dict[int, RoamingSeat]]] = []
    rng = random.Random("sentinel")
    for variant, where in GAMES:
        code = await servers["a"].create_room(variant, rules)
        seats = {}
        for seat, name in where.items():
            got, token = await servers[name].join(code, f"P{seat}", seat)
            assert got == seat
            seats[seat] = RoamingSeat(
                code, seat, token, cluster.living, rng, start=names.index(name), pace=PACE
            )
            await seats[seat].connect()
        humans = sorted(where)
        first = seats[humans[-1]].client
        assert first is not None
        await start_game(first, variant, humans)
        rooms.append((variant, code, seats))

    # The games go on while the primary is killed: commits are in flight at that
    # moment, players and bots keep acting through the failover.
    roamers = [r for _, _, seats in rooms for r in seats.values()]
    tasks = [asyncio.create_task(r.play_until(over, 180)) for r in roamers]
    failed_over: dict[str, int] = {}

    async def kill_mid_hand() -> float:
        while not mid_hand_somewhere(rooms):
            await asyncio.sleep(0.01)
        killed = time.monotonic()
        ha.primary.kill(signal.SIGKILL)
        await asyncio.to_thread(
            wait_for, lambda: ha.sentinels.master_port() == ha.replica.port, "promotion", 60
        )
        print(f"promotion {time.monotonic() - killed:.2f} s after the kill")
        promoted = RedisStore(ha.replica.url, prefix=cluster.prefix, ttl_seconds=600)
        for _, code, _ in rooms:
            stored = await promoted.load(code)
            failed_over[code] = -1 if stored is None else stored.version
        await promoted.aclose()
        # The old primary comes back as the new master's replica (empty: it kept nothing
        # on disk; started as a replica, as an operator re-adds a node, so that it is
        # never an empty master), and the commits' WAIT has a replica again.
        ha.primary.options += ["--replicaof", "127.0.0.1", str(ha.replica.port)]
        await asyncio.to_thread(ha.primary.start)
        return killed

    kill = asyncio.create_task(kill_mid_hand())
    try:
        finals = await asyncio.gather(*tasks)
        killed = await kill
    except BaseException:
        await cancel_all([*tasks, kill])
        print(f"the games stalled: {[stalled(r) for r in roamers]}")
        raise

    outcome = iter(finals)
    for variant, code, seats in rooms:
        mine = [next(outcome) for _ in seats]
        states = check_game(variant, rules, await cluster.log(code), mine)
        for seat, roaming in seats.items():
            assert {e["code"] for e in roaming.errors} <= {"store_unavailable", "unavailable"}
            for client in roaming.clients:
                check_client(client, seat, states)
            await roaming.close()
        assert engine.seat_count(variant) == len(mine[0]["view"]["seats"])
    by_room = {code: [c for r in seats.values() for c in r.clients] for _, code, seats in rooms}
    first = first_accepted_after(by_room, failed_over)
    assert first is not None
    print(f"kill to first accepted action: {first - killed:.2f} s")
    logs = cluster.logs()
    assert "Traceback" not in logs


async def test_a_forced_failover_is_followed_and_readonly_drops_the_connection(
    ha: HighAvailability, redis_prefix: str
) -> None:
    sentinels = [("127.0.0.1", m.port) for m in ha.sentinels.members]
    store = RedisStore(
        "redis://", prefix=redis_prefix, ttl_seconds=600, sentinels=sentinels,
        sentinel_master=MASTER,
    )  # fmt: skip
    old = RedisWire(ha.primary.url)
    try:
        await store.start()
        assert await store.create("room", b"v0")
        await store.commit("room", 1, b"v1", [b"e1"])
        assert store.wire.address == ("127.0.0.1", ha.primary.port)
        await asyncio.sleep(0.3)  # the sentinels' pub/sub listeners are subscribed
        assert await old.call("PING") == b"PONG"

        await asyncio.to_thread(_force_failover, ha)
        # +switch-master: the commit connection leaves the old master by itself.
        for _ in range(200):
            if store.wire.address != ("127.0.0.1", ha.primary.port):
                break
            await asyncio.sleep(0.05)
        assert store.wire.address != ("127.0.0.1", ha.primary.port)

        version = 2
        for _ in range(100):  # the new master may still be settling for a moment
            try:
                await store.commit("room", version, b"v2", [b"e2"])
                break
            except StoreUnavailable:
                await asyncio.sleep(0.1)
        assert store.wire.address == ("127.0.0.1", ha.replica.port)
        stored = await store.load("room")
        assert stored is not None and stored.version == 2
        assert await store.read_log("room") == [b"e1", b"e2"]

        # The demoted old master refuses writes: the connection is dropped, not kept.
        # (The sentinels demote it at their next look, within 10 s; done here at once.)
        await asyncio.to_thread(_demote, ha)
        assert await old.call("PING") == b"PONG"
        connects = old.connects
        with pytest.raises(StoreUnavailable, match="READONLY"):
            await old.call("SET", f"{redis_prefix}x", "1")
        assert old._protocol is None or old._protocol.lost is not None
        assert await old.call("PING") == b"PONG"  # on a new connection
        assert old.connects == connects + 1
    finally:
        await old.aclose()
        await store.aclose()


def _demote(ha: HighAvailability) -> None:
    from tests.support.redis_procs import client

    with client(ha.primary.port) as c:
        c.execute_command("REPLICAOF", "127.0.0.1", str(ha.replica.port))
    wait_for(lambda: replication(ha.primary.port).get("role") == "slave", "the demotion")


def _force_failover(ha: HighAvailability) -> None:
    from tests.support.redis_procs import client

    with client(ha.sentinels.members[0].port) as c:
        c.execute_command("SENTINEL", "FAILOVER", MASTER)
    wait_for(lambda: ha.sentinels.master_port() == ha.replica.port, "the failover", 30)


async def test_wait_for_a_replica_and_without_one(tmp_path: Path, redis_prefix: str) -> None:
    primary = RedisProcess(tmp_path / "p").start()
    replica = RedisProcess(tmp_path / "r", "--replicaof", "127.0.0.1", str(primary.port)).start()
    # The wait is generous: on a loaded machine a replica can take longer than a few
    # hundred milliseconds to acknowledge, and one timeout degrades the wire on purpose.
    store = RedisStore(
        primary.url, prefix=redis_prefix, ttl_seconds=600, wait_replicas=1, wait_ms=3000
    )
    try:
        await asyncio.to_thread(
            wait_for, lambda: replication(replica.port).get("master_link_status") == "up", "link"
        )
        # The primary lists its replica in ROLE (which the wire reads on connecting to
        # decide whether to wait) only once the replica is online: INFO's
        # `connected_slaves` counts it earlier, during the initial sync, and a wire that
        # connected then would start degraded.
        await asyncio.to_thread(wait_for, lambda: role_replicas(primary.port) == 1, "listed")
        for _ in range(50):  # listed, and its first acknowledgement within a second
            if await store.ping():
                break
            await asyncio.sleep(0.1)
        assert await store.create("room", b"v0")
        for version in range(1, 21):
            await store.commit("room", version, b"v", [b"e"])
        assert store.wire.unreplicated == 0
        # The replica has every acknowledged commit.
        replica_store = RedisStore(replica.url, prefix=redis_prefix, ttl_seconds=600)
        stored = await replica_store.load("room")
        await replica_store.aclose()
        assert stored is not None and stored.version == 20

        replica.kill()
        await store.commit("room", 21, b"v", [b"e"])  # done after the timeout, counted
        assert store.wire.unreplicated == 1
        stored = await store.load("room")
        assert stored is not None and stored.version == 21
    finally:
        await store.aclose()
        replica.kill()
        primary.kill()


async def test_strict_waiting_refuses_what_no_replica_has(
    tmp_path: Path, redis_prefix: str
) -> None:
    """`wait_strict`: a commit the replica did not acknowledge fails as an outage (its
    outcome unknown to the room), the store is not back while a write reaches no
    replica, and is back once the replica is again."""
    primary = RedisProcess(tmp_path / "p").start()
    replica = RedisProcess(tmp_path / "r", "--replicaof", "127.0.0.1", str(primary.port))
    replica.start()
    store = RedisStore(
        primary.url,
        prefix=redis_prefix,
        ttl_seconds=600,
        wait_replicas=1,
        wait_ms=500,
        wait_strict=True,
    )
    try:
        await asyncio.to_thread(wait_for, lambda: role_replicas(primary.port) == 1, "listed")
        for _ in range(50):  # listed, and its first acknowledgement within a second
            if await store.ping():
                break
            await asyncio.sleep(0.1)
        assert await store.create("room", b"v0")
        await store.commit("room", 1, b"v", [b"e"])
        assert await store.ping()
        replica.kill()
        with pytest.raises(StoreUnavailable, match="0 of 1 replicas"):
            await store.commit("room", 2, b"v", [b"e"])
        assert store.wire.unreplicated == 1 and not store.wire.degraded
        assert not await store.ping()
        with pytest.raises(StoreUnavailable):  # not degraded: every commit waits
            await store.commit("room", 3, b"v", [b"e"])
        replica.start()
        await asyncio.to_thread(wait_for, lambda: role_replicas(primary.port) == 1, "back")
        for _ in range(50):  # the replica's first acknowledgement comes within a second
            if await store.ping():
                break
            await asyncio.sleep(0.1)
        assert await store.ping()
        await store.commit("room", 4, b"v", [b"e"])
    finally:
        await store.aclose()
        replica.kill()
        primary.kill()
