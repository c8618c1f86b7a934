"""Faults of a real network between Redis, two instances and the players, each on a
host (network namespace) of its own, every game's history checked afterwards
(`tests/support/history.py`): nothing accepted lost or applied twice, `seq` never going
back or meaning two states, never two owners committing to one room, every game over or
resumable, no card shown to a seat that may not see it.

The harness needs root and `ip netns` (skipped otherwise; failed instead under
`SCHMIER_TEST_REQUIRE=netns`, as CI runs it).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.kit import loopback
from tests.support.faults import (
    TABLES,
    FaultCluster,
    RoamingSeat,
    games_until,
    random_schedule,
)
from tests.support.netns import Network

RULES = {"target": 5}
PACE = 0.15
"""Seconds each player waits before a frame: a game lasts long enough for the faults."""


@pytest.fixture
def cluster(network: Network, tmp_path: Path) -> Iterator[FaultCluster]:
    faults = FaultCluster(network, tmp_path)
    try:
        faults.start()
        yield faults
    finally:
        if faults.recorder is not None:
            faults.recorder.stop()
        # Printed at teardown: pytest shows it with a failure of the test (an assertion
        # after the game, too), never for a test that passed.
        print(faults.logs())


def frames_of(cluster: FaultCluster, seat: int, kind: str) -> int:
    return sum(
        1
        for roaming in cluster.seats
        if roaming.seat == seat
        for client in roaming.clients
        for way, frame in client.transcript
        if way == "in" and frame["type"] == kind
    )


def resumed_after(cluster: FaultCluster, seat: int, since: float) -> float:
    """Seconds from `since` (a `time.monotonic()`) to the first state frame `seat`
    received after it, on any of its sockets."""
    return min(
        at - since
        for roaming in cluster.seats
        if roaming.seat == seat
        for client in roaming.clients
        for at, frame in zip(client.arrivals, client.frames, strict=True)
        if at > since and frame["type"] == "state"
    )


def report(name: str, **figures: float) -> None:
    """One line of figures (shown with `pytest -s`; docs/scaling.md quotes them)."""
    print(f"\nnetfaults {name}: " + ", ".join(f"{k} {v:.2f} s" for k, v in figures.items()))


async def turn_to_play(seat: RoamingSeat) -> None:
    """Wait until `seat`'s player has a card to play (its paced move is on its way)."""
    while True:
        client = seat.client
        state = client.state if client is not None else None
        view = state["view"] if state is not None else None
        if view is not None and view["phase"] == "play" and seat.seat in view["turn"]:
            return
        await asyncio.sleep(0.005)


async def play(cluster: FaultCluster, code: str, fault: asyncio.Task[None]) -> None:
    seats = [s for s in cluster.seats if s.code == code]
    await asyncio.gather(
        *(s.play_until(lambda v: v["phase"] == "game_over", 150) for s in seats), fault
    )


@pytest.mark.parametrize("seconds", [2, 10, 60])
async def test_an_owner_cut_off_from_redis(cluster: FaultCluster, seconds: int) -> None:
    """The owner of a room loses Redis (not its players) for 2 s, 10 s or 60 s: its players
    are told the room is paused and nothing they send is accepted; the other instance,
    which serves the room's other player, takes the room over once the lease is gone;
    healed, the old owner sends nothing stale."""
    code, _ = await cluster.table("wisconsin4", {0: "a", 2: "b"}, RULES, PACE)
    assert await cluster.owner(code) == "a"
    owner = cluster.net.hosts["a"]
    marks: dict[str, float] = {}

    async def fault() -> None:
        await asyncio.sleep(2)
        cluster.net.cut(owner, cluster.redis.address)
        marks["cut"] = time.monotonic()
        await asyncio.sleep(seconds)
        # The cut-off owner still runs its loop (a subscription spinning on its dead
        # socket once TCP keepalive gave up, 45 s in, starved it for good).
        livez = cluster.servers["a"].base_url + "/livez"
        assert (await asyncio.to_thread(loopback.get, livez, timeout=10)).status_code == 200
        cluster.net.heal(owner, cluster.redis.address)
        marks["heal"] = time.monotonic()

    await play(cluster, code, asyncio.create_task(fault()))
    checked, history = await cluster.check([code])
    assert checked > 30
    # The owner's players were told the room paused; the other instance took it over.
    assert frames_of(cluster, 0, "paused") >= 1
    owners = [e.lease.rpartition(":")[0] for e in history.events if e.kind == "acquire"]
    assert owners[:2] == ["a", "b"], owners
    report(
        f"owner cut from Redis {seconds} s",
        other_instance_plays_on_after_cut=resumed_after(cluster, 2, marks["cut"]),
        owners_player_resumes_after_heal=resumed_after(cluster, 0, marks["heal"]),
    )


@pytest.mark.parametrize("stall", [0.0, 1.2], ids=["running", "stalled"])
async def test_an_owner_cut_off_with_a_commit_under_way(
    cluster: FaultCluster, stall: float
) -> None:
    """The owner loses Redis just as its player acts: that commit hangs in the cut
    (TCP keeps it, and delivers it when the link heals, after the other instance has
    taken the room over and waits for that very player). The store's fencing check
    must refuse it then: a build without the lease check lets the stale owner commit
    over the new one, and the checker names it ("two owners").

    Stalled: the owner's process is stopped for 1.2 s as the cut comes (a loaded
    machine, a long pause of its own). When it runs again its player's move and the
    lease renewal's missed deadline are due together, the move first in the room's
    mailbox and the store marked down before the room handles it: the move must be
    refused at once and the room pause. Tried on the silent wire, it held the room until
    the link healed, after the other instance had taken the room over, and the room
    stopped on its lost lease without its player ever told it paused (CI failed the
    running case so once; the stall made it so in five runs of six)."""
    code, seats = await cluster.table("wisconsin4", {0: "a", 2: "b"}, RULES, PACE)
    owner, process = cluster.net.hosts["a"], cluster.processes["a"]

    async def fault() -> None:
        await asyncio.sleep(2)
        await turn_to_play(seats[0])
        if stall:
            process.send_signal(signal.SIGSTOP)
        try:
            cluster.net.cut(owner, cluster.redis.address)  # before the player's paced send
            await asyncio.sleep(stall)  # the player's move reaches the stopped owner
        finally:
            if stall:
                process.send_signal(signal.SIGCONT)
        await asyncio.sleep(3)
        cluster.net.heal(owner, cluster.redis.address)

    await play(cluster, code, asyncio.create_task(fault()))
    checked, _ = await cluster.check([code])
    assert checked > 30
    assert frames_of(cluster, 0, "paused") >= 1


async def test_the_instances_cut_off_from_each_other(cluster: FaultCluster) -> None:
    """The two instances cannot reach each other (each still reaches Redis and its
    players): they speak only through Redis, so the game goes on as if nothing
    happened, the follower's forwarded actions neither lost nor applied twice."""
    code, _ = await cluster.table("wisconsin4", {0: "a", 2: "b"}, RULES, PACE)
    a, b = cluster.net.hosts["a"], cluster.net.hosts["b"]

    async def fault() -> None:
        await asyncio.sleep(1)
        cluster.net.cut(a, b.address)
        await asyncio.sleep(8)
        cluster.net.heal(a, b.address)

    await play(cluster, code, asyncio.create_task(fault()))
    checked, history = await cluster.check([code])
    assert checked > 30
    assert [e.lease.rpartition(":")[0] for e in history.events if e.kind == "acquire"] == ["a"]
    assert all(s.reconnects == 0 for s in cluster.seats)
    assert frames_of(cluster, 0, "paused") == frames_of(cluster, 2, "paused") == 0


@pytest.mark.parametrize("seconds", [5, 15])
async def test_the_players_links_cut(cluster: FaultCluster, seconds: int) -> None:
    """Every player's link to both instances drops everything for 5 s or 15 s: their
    sockets notice (a quick ping), they try again until the link is back, then resume
    their seats and their turns; nothing accepted is lost."""
    options = {"ping_interval": 0.5, "ping_timeout": 1.5, "open_timeout": 3}
    code, _ = await cluster.table("wisconsin4", {0: "a", 2: "b"}, RULES, PACE, options)
    hosts = list(cluster.hosts.values())
    marks: dict[str, float] = {}

    async def fault() -> None:
        await asyncio.sleep(2)
        for host in hosts:
            cluster.net.cut(host, cluster.net.root)
        await asyncio.sleep(seconds)
        for host in hosts:
            cluster.net.heal(host, cluster.net.root)
        marks["heal"] = time.monotonic()

    await play(cluster, code, asyncio.create_task(fault()))
    checked, _ = await cluster.check([code])
    assert checked > 30
    assert all(s.reconnects >= 1 for s in cluster.seats)
    report(
        f"players' links cut {seconds} s",
        **{
            f"seat_{s}_resumes_after_heal": resumed_after(cluster, s, marks["heal"]) for s in (0, 2)
        },
    )


async def test_the_players_links_slow_and_lossy(cluster: FaultCluster) -> None:
    """Every player's link holds each chunk 200 ms ± 50 ms each way (a relay between
    the players and the instances: this kernel has no netem) and drops 5% of the
    packets at random, for two whole games at once, one person of each on each
    instance: the games finish, a socket the loss kills is resumed, nothing accepted
    is lost or applied twice."""
    options = {"ping_interval": 1, "ping_timeout": 5, "open_timeout": 10}
    relay = cluster.through_relay(0.2, 0.05)
    cluster.net.lossy(relay, cluster.net.root, 0.05)
    started = time.monotonic()
    tables = {"wisconsin4": {0: "a", 2: "b"}, "schmier5": {0: "b", 2: "a"}}
    codes = [
        (await cluster.table(variant, humans, RULES, PACE, options))[0]
        for variant, humans in tables.items()
    ]
    await asyncio.gather(
        *(play(cluster, code, asyncio.create_task(asyncio.sleep(0))) for code in codes)
    )
    played = time.monotonic() - started
    cluster.net.clear(relay)
    checked, _ = await cluster.check(codes)
    assert checked > 60
    reconnects = sum(s.reconnects for s in cluster.seats)
    report(f"players' links 200±50 ms and 5% loss, {reconnects} sockets resumed", games=played)


async def test_a_random_schedule(cluster: FaultCluster) -> None:
    """Games of every variant, one after another on both instances, under a random
    schedule of all the faults above (5% loss and 200 ms ± 50 ms on the players' links
    each a fault of its own, the players going through the relay all along) for
    `SCHMIER_NETFAULTS_SECONDS` (30 by default; `python -m bench.netfaults` runs it for
    10 minutes); every game's history checked."""
    seconds = float(os.environ.get("SCHMIER_NETFAULTS_SECONDS", "30"))
    seed = os.environ.get("SCHMIER_NETFAULTS_SEED", "netfaults")
    cluster.through_relay(0.2, 0.05, slow=False)
    until = time.monotonic() + seconds
    options = {"ping_interval": 0.5, "ping_timeout": 1.5, "open_timeout": 3}
    done: list[str] = []
    schedule = asyncio.create_task(random_schedule(cluster, random.Random(seed), until, done))
    try:
        await asyncio.gather(*(games_until(cluster, v, until, options) for v in TABLES))
        await schedule
    except BaseException:
        schedule.cancel()
        raise
    rooms = cluster.rooms
    checked, history = await cluster.check(rooms)
    commits = sum(1 for e in history.events if e.kind == "commit")
    report(f"random schedule, {len(rooms)} games, faults: {'; '.join(done)}", seconds=seconds)
    kinds = Counter(fault.split()[0] for fault in done)
    switched = (cluster.log_dir / "relay.log").read_text().count("relay: slow")
    assert switched == kinds["players_slow"], "the relay missed a switch to slow"
    print(f"netfaults random schedule: faults by kind {dict(sorted(kinds.items()))}")
    print(f"netfaults random schedule: {checked} state frames and {commits} commits checked")
    assert len(done) >= 2 and checked > 100
