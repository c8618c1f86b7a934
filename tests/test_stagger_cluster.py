"""Followers opened together check their rooms' leases spread over the period
(schmier/cluster/ownership.py, `_watch`), and the lease renewals keep their margin.

A real node on the test's Redis; the followers are made as the node makes them when an
instance's sockets come back at once, and the test reads when each one's watcher is due,
never how long anything took.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from types import SimpleNamespace
from typing import Any

from schmier import engine
from schmier.cluster.follower import Follower
from schmier.cluster.node import RENEW_BATCH, Node, renewal_slots
from schmier.config import Settings
from schmier.metrics import Metrics
from schmier.rooms import stagger
from schmier.rooms.codes import CODE_ALPHABET, CODE_LENGTH
from schmier.rooms.record import RoomRecord
from schmier.rooms.registry import Rooms
from schmier.rooms.thinking import Pool
from schmier.store import RedisStore, Stored

ROOMS = 100


async def test_followers_opened_together_check_their_leases_spread_over_the_period(
    redis_url: str, redis_prefix: str
) -> None:
    settings = Settings(lease_ms=5000)
    store = RedisStore(redis_url, prefix=redis_prefix, ttl_seconds=600)
    node = Node(store, settings, Rooms(store, settings, Metrics(), pool=Pool(0)))
    rng = random.Random(11)
    codes = ["".join(rng.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)) for _ in range(ROOMS)]
    rules = engine.make_rules("wisconsin4")
    loop = asyncio.get_running_loop()
    opened = loop.time()
    followers = [
        Follower(
            code,
            Stored(1, RoomRecord.new(code, "wisconsin4", rules).to_bytes()),
            "elsewhere-1:1",
            node=node,
        )
        for code in codes
    ]
    try:
        await asyncio.sleep(0)  # every watcher takes its first step
        await asyncio.sleep(0)
        period = 5000 / 3000
        checks = [f.next_check for f in followers]
        assert all(opened < at <= loop.time() + period for at in checks), (min(checks), opened)
        tenths = {int((at - opened) / (period / 10)) for at in checks}
        assert len(tenths) >= 9, sorted(tenths)
        # Each in its room's own slot of the period, wherever it opened.
        for follower, at in zip(followers, checks, strict=True):
            place = stagger.phase(follower.code)
            assert abs((at / period - place) - round(at / period - place)) < 1e-6
    finally:
        await asyncio.gather(*(f.close() for f in followers))
        await store.aclose()


def test_a_renewal_round_spreads_its_batches_and_keeps_half_the_lease_in_hand() -> None:
    """1,000 owned rooms: 32 batches, each sent in its own slot of the first half of
    the interval; a lease is renewed at most half the lease time after the last time."""
    lease = 5.0
    interval = lease / 3
    rooms = 1000
    batches = -(-rooms // RENEW_BATCH)
    slots = renewal_slots(batches, 100.0, interval)
    assert len(slots) == batches == 32
    assert slots[0] == 100.0 and slots[-1] < 100.0 + interval / 2
    gaps = {round(b - a, 9) for a, b in itertools.pairwise(slots)}
    assert gaps == {round(interval / 2 / batches, 9)}
    # The worst case: renewed first in one round, last in the next.
    following = renewal_slots(batches, 100.0 + interval, interval)
    assert following[-1] - slots[0] <= lease / 2


class SlowAnswers(RedisStore):
    """The test's Redis, answering no renewal until every batch of the round has been
    sent: how renewals fare when each reply waits many busy turns of the event loop."""

    def __init__(self, *args: object, batches: int, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.batches = batches
        self.sent: list[list[str]] = []
        self.all_sent = asyncio.Event()

    async def renew_leases(self, leases: list[tuple[str, str]], lease_ms: int) -> list[bool]:
        self.sent.append([code for code, _ in leases])
        if len(self.sent) == self.batches:
            self.all_sent.set()
        await self.all_sent.wait()
        return await super().renew_leases(leases, lease_ms)


async def test_a_renewal_batch_goes_out_in_its_slot_without_waiting_for_the_last_answer(
    redis_url: str, redis_prefix: str
) -> None:
    """A round's batches are sent at their slots, each without the previous batch's
    answer: sent one after the other, a burst of play that made each reply wait tens of
    milliseconds made the round miss its deadline, and the store was marked down (every
    room paused) while Redis answered every call. Here no answer comes until every batch
    is out; a round that waited for each answer would never finish."""
    settings = Settings(lease_ms=300)
    batches = 4
    store = SlowAnswers(redis_url, prefix=redis_prefix, ttl_seconds=600, batches=batches)
    node = Node(store, settings, Rooms(store, settings, Metrics(), pool=Pool(0)))
    codes = [f"RENEW{i:03d}" for i in range(batches * RENEW_BATCH)]
    leases = {}
    for code in codes:
        value = await store.acquire_lease(code, node.instance, 60_000)
        assert value is not None
        leases[code] = value
    owners: list[Any] = [SimpleNamespace(code=code, lease=leases[code]) for code in codes]
    rounds = [owners[i : i + RENEW_BATCH] for i in range(0, len(owners), RENEW_BATCH)]
    loop = asyncio.get_running_loop()
    try:
        held = await asyncio.wait_for(node._renew_batches(rounds, loop.time(), 0.1), 30)
        assert held == [True] * len(codes)
        assert store.sent == [[o.code for o in batch] for batch in rounds]
    finally:
        await store.aclose()
