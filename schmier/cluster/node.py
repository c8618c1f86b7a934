"""This instance's part in a cluster of instances sharing one Redis.

Redis does all the distributed work; nothing here votes or gossips:

- **Ownership.** A live room has one owner, the instance holding the room's lease
  (`SET {prefix}lease:{code} <instance>:<fence> NX PX <lease_ms>`, the fence from
  `INCR {prefix}fence:{code}`). The owner renews all its leases every third of the lease
  time; every commit carries the lease value and the store refuses it once the key holds
  anything else, so an owner that lost its lease never writes again.
- **The bus** (`bus.py`). Every instance subscribes to one pub/sub channel of its own,
  `{prefix}bus:<instance>`. An instance with sockets in a room it does not own follows
  it (`follower.py`): it sends their operations to the owner's channel (the owner's name
  is in the lease value); the owner (`remote.py`) sends each accepted change to the
  channels of the instances holding the room's sockets. One publisher task sends
  everything in order, and Redis delivers one connection's messages in order, so a
  `Done` never overtakes the state it follows.
- **Failure detection.** PUBLISH answers how many subscribers got a message: 0 means
  the target instance is gone. Owners also ask how many listen on the channels of the
  instances holding their sockets at every renewal, and followers watch the lease.

The node is the registry's `RoomOpener` (own the room or follow its owner) and every
owning actor's `Link`; it reaches Redis only through the store's API.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import secrets
import socket
from collections.abc import Callable

from schmier.cluster import bus, remote
from schmier.cluster.follower import Follower
from schmier.cluster.hub import Served, instance_of
from schmier.cluster.outbox import Outbox
from schmier.config import Settings
from schmier.logs import event, failure, failure_unless_outage
from schmier.rooms.actor import RoomActor
from schmier.rooms.registry import LiveRoom, Rooms, ShuttingDown
from schmier.store import RedisStore, StoreError, StoreUnavailable

RENEW_BATCH = 32
"""Leases renewed per pipeline (one round trip each), so a renewal never holds the loop."""

DRAIN_SECONDS = 3.0
"""How long a stopping instance waits for its last messages (rooms handed over)."""

OPEN_ATTEMPTS = 50
"""Rounds of "take the lease, or follow its holder" before giving up (the lease can
vanish between the two steps, when its owner stops at that very moment)."""


def default_instance_id() -> str:
    """Host name, process id and a random suffix: unique without configuration."""
    host = "".join(ch if ch.isalnum() or ch in "_.-" else "-" for ch in socket.gethostname())
    return f"{host[:40] or 'host'}-{os.getpid()}-{secrets.token_hex(3)}"


def renewal_slots(batches: int, started: float, interval: float) -> list[float]:
    """When each batch of a renewal round that started at `started` is sent: evenly
    over the first half of the interval. The margin: a lease of `3 * interval` is
    renewed in every round, at most half an interval after the round's start, so two
    renewals of one lease are at most 1.5 intervals (half the lease) apart, and a round
    whose answer has not come 1.5 intervals after it started marks the store down
    (`_renewed`) while the leases still have half their time."""
    return [started + index * (interval / 2) / batches for index in range(batches)]


class Node:
    """The cluster membership of one server process (the registry's `opener`)."""

    def __init__(self, store: RedisStore, settings: Settings, rooms: Rooms) -> None:
        self.instance = settings.instance_id or default_instance_id()
        self.lease_ms = settings.lease_ms
        self.settings = settings
        self.store = store
        self.rooms = rooms
        self.owned: dict[str, RoomActor] = {}
        self.followers: dict[str, Follower] = {}
        self._starting: dict[str, list[bus.Op]] = {}
        """Operations for rooms whose lease was just taken and whose actor is loading."""
        self._outbox = Outbox(store, rooms.metrics)
        self._ids = itertools.count(1)
        self._tasks: list[asyncio.Task[None]] = []
        self._first_try = asyncio.Event()
        """Set once the first subscription attempt succeeded or failed."""
        self.listening_now = False
        """Whether this instance's subscription to its channel is up (for /readyz)."""
        self.metrics = rooms.metrics
        self.metrics.owned_rooms.set_function(lambda: len(self.owned))
        store.health.listen(self)

    # ------------------------------------------------------------ life cycle

    def channel(self, instance: str) -> str:
        """The bus channel of `instance`."""
        return self.store.key(f"bus:{instance}")

    async def start(self) -> None:
        """Subscribe to this instance's channel, then start publishing and renewing.

        Waits for the first subscription attempt (an owner that cannot hear its
        followers would strand their operations) but does not fail without Redis: the
        server still starts, reports it in its health check, and the listener keeps
        trying, as the store itself does.
        """
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._listen(), name="cluster:listen"),
            loop.create_task(self._outbox.run(), name="cluster:publish"),
            loop.create_task(self._renew(), name="cluster:renew"),
        ]
        try:
            async with asyncio.timeout(5):
                await self._first_try.wait()
        except TimeoutError:
            failure("cluster.subscribe_slow", instance=self.instance)
        event("cluster.start", instance=self.instance, lease_ms=self.lease_ms)

    async def aclose(self) -> None:
        """Send what is queued (the hand-over notices), then stop the tasks."""
        try:
            async with asyncio.timeout(DRAIN_SECONDS):
                await self._outbox.drained()
        except TimeoutError:
            # Redis did not take the last messages in time (it may be down): the other
            # instances find out from the leases instead.
            event("cluster.drain_timeout", logging.WARNING, instance=self.instance)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def new_id(self) -> str:
        """An id unique across the cluster (operations, remote sockets)."""
        return f"{self.instance}:{next(self._ids)}"

    # ------------------------------------------------------------ opening rooms

    def serving(self, code: str) -> LiveRoom | None:
        """The follower of a room owned elsewhere, if this instance runs one."""
        return self.followers.get(code)

    async def open(self, code: str) -> LiveRoom | None:
        """Own the room (the lease was free) or follow its owner."""
        for _ in range(OPEN_ATTEMPTS):
            lease = await self.acquire(code)
            if lease is not None:
                return await self.own(code, lease)
            holder = await self.holder(code)
            if holder is None:
                continue
            if instance_of(holder) == self.instance and self.rooms.owned(code) is None:
                # Our own lease without an actor: left by one that stopped; free it.
                await self.store.release_lease(code, holder)
                continue
            stored = await self.store.load(code)
            if stored is None:
                return None
            if self.rooms.closing:
                raise ShuttingDown()
            follower = Follower(code, stored, holder, node=self)
            self.followers[code] = follower
            return follower
        raise StoreError(f"room {code}: its owner keeps changing")

    async def own(self, code: str, lease: str) -> RoomActor | None:
        """Start the actor of a room whose lease this instance just took.

        The lease is given back when the room does not exist (or loading fails), so that
        nobody waits for it to expire; operations already waiting go to the actor.
        """
        try:
            actor = await self.rooms.start(code, lease=lease, link=self)
        except BaseException:
            self.abandon(code)
            await self.store.release_lease(code, lease)
            raise
        if actor is None:
            self.abandon(code)
            await self.store.release_lease(code, lease)
            return None
        self.owned[code] = actor
        for op in self._starting.pop(code, []):
            actor.remote(op)
        return actor

    def forget(self, served: Served) -> None:
        """A follower stopped (or became the owner): route its room's messages no more."""
        if self.followers.get(served.code) is served:
            del self.followers[served.code]

    async def close(self) -> None:
        """Stop following every room (the server stops)."""
        followers = list(self.followers.values())
        await asyncio.gather(*(f.close() for f in followers), return_exceptions=True)

    # ------------------------------------------------------------ leases

    async def acquire(self, code: str) -> str | None:
        """Take the room's lease if nobody holds it: its value, or None.

        From the moment the lease is ours, followers may already send operations (they
        read the lease); those wait here until the actor is running (`own`), or are
        turned back if the room cannot be opened (`abandon`).
        """
        self._starting.setdefault(code, [])
        try:
            lease = await self.store.acquire_lease(code, self.instance, self.lease_ms)
        except BaseException:
            self.abandon(code)
            raise
        if lease is None:
            self.abandon(code)
        return lease

    async def holder(self, code: str) -> str | None:
        """The room's current lease value, or None."""
        return await self.store.lease_holder(code)

    async def keep_lease(self, room: RoomActor) -> str | None:
        """The lease of a room this instance owns, after a renewal found it not ours or
        the store came back: still ours, taken again (it expired in Redis while Redis
        was unreachable, and nobody else took it; a new fence), or None: lost."""
        holder = await self.store.lease_holder(room.code)
        if holder is not None and holder == room.lease:
            return holder
        if holder is None:
            value = await self.store.acquire_lease(room.code, self.instance, self.lease_ms)
            if value is not None:
                self.metrics.lease_regains.inc()
                return value
        self.metrics.leases_lost.inc()
        return None

    def store_changed(self, up: bool) -> None:
        """The store went away or came back: the followed rooms' sockets are told, and
        once it is back the followers catch up with their owners."""
        for follower in list(self.followers.values()):
            follower.store_changed(up)

    async def listening(self, instance: str) -> bool:
        """Whether `instance` is subscribed to its channel (alive, as far as Redis knows)."""
        try:
            counts = await self.store.subscribers([self.channel(instance)])
        except StoreError:
            return True  # unknown: assume alive, the lease decides in the end
        return counts.get(self.channel(instance), 0) > 0

    def abandon(self, code: str) -> None:
        """The lease was taken but the room not opened: send its waiting senders back."""
        for op in self._starting.pop(code, []):
            self.send(op.sender, bus.Released(code))

    async def _renew(self) -> None:
        """Every third of the lease time: renew every lease, check the followers.

        The rooms are renewed in batches spread over the first half of that time, so
        a thousand rooms' renewals never come due in the same moment: back to back,
        their 32 round trips and the packing and parsing of 1,000 commands took the
        event loop away from the rooms for tens of milliseconds every 1.7 s
        (bench/results/2026-12-01-thousand-tables.md). A lease is renewed at most half
        an interval late, well inside its lifetime.

        A lease that could not be renewed means another instance may own the room:
        its actor stops before it could write (and its writes would be refused).
        """
        loop = asyncio.get_running_loop()
        interval = self.lease_ms / 3000
        due = loop.time() + interval
        while True:
            await asyncio.sleep(max(0.0, due - loop.time()))
            started, due = due, due + interval
            actors = [a for a in self.owned.values() if not a.closed and a.lease is not None]
            batches = [actors[i : i + RENEW_BATCH] for i in range(0, len(actors), RENEW_BATCH)]
            renewal = loop.create_task(self._renew_batches(batches, started, interval))
            try:
                held = await self._renewed(renewal, started + interval * 1.5)
            except StoreError as exc:
                self.metrics.renewal_failures.inc()
                if not isinstance(exc, StoreUnavailable):  # an outage is logged by the store
                    failure("cluster.renew_failed", rooms=len(actors))
                due = loop.time() + interval  # never a tight loop while the store fails
                continue
            for actor, ok in zip(actors, held, strict=True):
                if not ok:
                    # Lost to another instance, or vanished (expired in Redis while it
                    # was unreachable): the actor finds out which and acts on it.
                    event("room.lease_expired", room=actor.code)
                    actor.lease_lost()
            await self._check_followers([a for a, ok in zip(actors, held, strict=True) if ok])
            due = max(due, loop.time())

    async def _renew_batches(
        self, batches: list[list[RoomActor]], started: float, interval: float
    ) -> list[bool]:
        """One round of renewals, the batches spread over half an interval.

        Each batch goes out at its own slot, not after the previous batch's answer: one
        batch waits a few turns of the event loop for its reply, and in a burst of play
        at 1,000 tables a turn takes tens of milliseconds, so 32 batches one after the
        other took longer than the round's deadline, and the store was marked down
        (every room paused) while Redis answered every call in time."""
        loop = asyncio.get_running_loop()

        async def renew(batch: list[RoomActor], at: float) -> list[bool]:
            await asyncio.sleep(max(0.0, at - loop.time()))
            return await self.store.renew_leases(
                [(a.code, a.lease or "") for a in batch], self.lease_ms
            )

        slots = renewal_slots(len(batches), started, interval)
        rounds = await asyncio.gather(
            *(renew(batch, at) for batch, at in zip(batches, slots, strict=True))
        )
        return [ok for answers in rounds for ok in answers]

    async def _renewed(self, renewal: asyncio.Task[list[bool]], deadline: float) -> list[bool]:
        """The round's answer. Redis silent past `deadline` (half an interval before the
        leases run out: a network partition drops packets, and the wire's own timeout is
        10 s) marks the store down at once, so the rooms pause and refuse actions instead
        of leaving them unanswered while another instance may take the rooms over; the
        round is still awaited (never cancelled mid-reply) and the store's probe says
        when Redis answers again."""
        left = deadline - asyncio.get_running_loop().time()
        done, _ = await asyncio.wait({renewal}, timeout=max(left, 0.0))
        if not done:
            self.store.health.failed(
                "renew_leases", StoreUnavailable("no answer before the leases run out")
            )
        return await renewal

    async def _check_followers(self, actors: list[RoomActor]) -> None:
        """Drop the sockets of follower instances that no longer listen (killed)."""
        wanted = {inst for actor in actors for inst in actor.remote_instances()}
        if not wanted:
            return
        channels = {self.channel(inst): inst for inst in wanted}
        try:
            counts = await self.store.subscribers(list(channels))
        except StoreError:
            return
        dead = {inst for channel, inst in channels.items() if counts.get(channel, 0) == 0}
        for actor in actors:
            for inst in actor.remote_instances() & dead:
                event("cluster.instance_gone", room=actor.code, instance=inst)
                actor.instance_gone(inst)

    # ------------------------------------------------------------ an owner's link

    async def handle(self, room: RoomActor, op: bus.Op) -> None:
        await remote.handle(self, room, op)

    async def gone(self, room: RoomActor, instance: str) -> None:
        await remote.gone(self, room, instance)

    def publish(self, room: RoomActor, instances: set[str], snapshot: bytes) -> None:
        remote.publish(self, room, instances, snapshot)

    async def finished(self, room: RoomActor, *, lost: bool, instances: set[str]) -> None:
        """An owned actor stopped: free its lease at once and tell its followers.

        Freeing the lease (instead of letting it expire) is what makes a graceful
        shutdown hand rooms over at once; the notice makes the followers take the
        room (or find its new owner) without waiting for their next lease check.
        """
        if self.owned.get(room.code) is room:
            del self.owned[room.code]
        if not lost and room.lease is not None:
            try:
                await self.store.release_lease(room.code, room.lease)
            except StoreError:
                failure_unless_outage("cluster.release_failed", room=room.code)
        for instance in instances:
            self.send(instance, bus.Released(room.code))
        event("room.released", room=room.code, lost=lost, followers=len(instances))

    # ------------------------------------------------------------ the bus

    def send(
        self,
        instance: str,
        message: bus.Message,
        unreachable: Callable[[], None] | None = None,
    ) -> None:
        """Queue `message` for `instance`; `unreachable()` runs if nobody listens there."""
        self._outbox.put(self.channel(instance), message, unreachable)

    async def _listen(self) -> None:
        """Receive this instance's messages forever, resubscribing after a failure.

        Redis being unreachable is logged once, by the store's health (not a traceback
        per attempt); anything else is a bug and logged with its traceback.
        """
        while True:
            try:
                async with self.store.subscribe(self.channel(self.instance)) as messages:
                    if self._first_try.is_set():
                        # Deaf for a while: what the owners sent meanwhile was lost.
                        for follower in list(self.followers.values()):
                            follower.resync()
                    self._first_try.set()
                    self.listening_now = True
                    while True:
                        self._dispatch(await messages.next())
            except StoreError as exc:
                self._first_try.set()
                if not isinstance(exc, StoreUnavailable):
                    failure("cluster.listen_failed", instance=self.instance)
            finally:
                self.listening_now = False
            await asyncio.sleep(0.5)

    def _dispatch(self, data: bytes) -> None:
        try:
            message = bus.decode(data)
        except bus.BadMessage:
            failure("cluster.bad_message")
            return
        code = message.room
        if isinstance(message, bus.Op):
            actor = self.owned.get(code)
            starting = self._starting.get(code)
            if actor is None and starting is not None:
                starting.append(message)
                return
            if actor is None or actor.closed:
                # Not (or no longer) the owner here: the sender looks the owner up again.
                self.send(message.sender, bus.Released(code))
                return
            actor.remote(message)
            return
        follower = self.followers.get(code)
        if follower is not None:
            follower.on_message(message)
