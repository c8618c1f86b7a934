"""This instance's part in a cluster of instances sharing one Redis.

Redis does all the distributed work; nothing here votes or gossips:

- **Ownership.** A live room has one owner, the instance holding the room's lease
  (`SET {prefix}lease:{code} <instance>:<fence> NX PX <lease_ms>`, the fence from
  `INCR {prefix}fence:{code}`). The owner renews all its leases every third of the lease
  time in one pipeline; every commit carries the lease value and the store refuses it
  once the key holds anything else, so an owner that lost its lease never writes again.
- **The bus.** Every instance subscribes to one pub/sub channel of its own,
  `{prefix}bus:<instance>`. An instance with sockets in a room it does not own sends
  their operations (hello, frames, disconnections, joins) to the owner's channel (the
  owner's name is in the lease value); the owner sends each accepted change (the new
  snapshot and `seq`) to the channels of the instances holding the room's sockets,
  which build their own sockets' views. One publisher task sends everything in order,
  and Redis delivers one connection's messages in order, so a `done` never overtakes
  the state it follows.
- **Failure detection.** PUBLISH answers how many subscribers got a message: 0 means
  the target instance is gone. Owners also ask `PUBSUB NUMSUB` for the channels of the
  instances holding their sockets at every renewal, and followers watch the lease.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import secrets
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson
from redis.exceptions import RedisError

from schmier.config import Settings
from schmier.logs import Outage, event, failure
from schmier.rooms.actor import RoomActor
from schmier.store import RedisStore, StoreError

if TYPE_CHECKING:
    from schmier.cluster.follower import Follower
    from schmier.rooms.registry import Rooms

PUBLISH_BATCH = 256
"""Messages sent in one pipeline (in order) when the outbox has a backlog."""

RENEW_BATCH = 32
"""Leases renewed per pipeline (one round trip each), so a renewal never holds the loop."""

DRAIN_SECONDS = 3.0
"""How long a stopping instance waits for its last messages (rooms handed over)."""


def default_instance_id() -> str:
    """Host name, process id and a random suffix: unique without configuration."""
    host = "".join(ch if ch.isalnum() or ch in "_.-" else "-" for ch in socket.gethostname())
    return f"{host[:40] or 'host'}-{os.getpid()}-{secrets.token_hex(3)}"


def instance_of(lease: str) -> str:
    """The instance named in a lease value `instance:fence`."""
    return lease.rpartition(":")[0]


_Outgoing = tuple[str, bytes, Callable[[], None] | None]


class Node:
    """The cluster membership of one server process (kept on `rooms.node`)."""

    def __init__(self, store: RedisStore, settings: Settings, rooms: Rooms) -> None:
        self.instance = settings.instance_id or default_instance_id()
        self.lease_ms = settings.lease_ms
        self.settings = settings
        self.store = store
        self.rooms = rooms
        self.owned: dict[str, RoomActor] = {}
        self._starting: dict[str, list[dict[str, Any]]] = {}
        """Operations for rooms whose lease was just taken and whose actor is loading."""
        self._outbox: asyncio.Queue[_Outgoing] = asyncio.Queue()
        self._ids = itertools.count(1)
        self._tasks: list[asyncio.Task[None]] = []
        self._first_try = asyncio.Event()
        """Set once the first subscription attempt succeeded or failed."""
        self._stopping = False

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
            loop.create_task(self._publish(), name="cluster:publish"),
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
        self._stopping = True
        try:
            async with asyncio.timeout(DRAIN_SECONDS):
                await self._outbox.join()
        except TimeoutError:
            failure("cluster.drain_timeout", instance=self.instance)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def new_id(self) -> str:
        """An id unique across the cluster (operations, remote sockets)."""
        return f"{self.instance}:{next(self._ids)}"

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

    async def listening(self, instance: str) -> bool:
        """Whether `instance` is subscribed to its channel (alive, as far as Redis knows)."""
        try:
            counts: Any = await self.store.client.pubsub_numsub(self.channel(instance))
        except (RedisError, OSError):
            return True  # unknown: assume alive, the lease decides in the end
        return bool(counts) and int(counts[0][1]) > 0

    def own(self, actor: RoomActor) -> None:
        """Renew `actor`'s lease from now on and route its forwarded operations to it."""
        self.owned[actor.code] = actor
        for op in self._starting.pop(actor.code, []):
            actor.remote(op)

    def abandon(self, code: str) -> None:
        """The lease was taken but the room not opened: send its waiting senders back."""
        for op in self._starting.pop(code, []):
            self.send(str(op["from"]), {"t": "released", "room": code})

    async def finished(self, actor: RoomActor, *, lost: bool, instances: set[str]) -> None:
        """An owned actor stopped: free its lease at once and tell its followers.

        Freeing the lease (instead of letting it expire) is what makes a graceful
        shutdown hand rooms over at once; the notice makes the followers take the
        room (or find its new owner) without waiting for their next lease check.
        """
        if self.owned.get(actor.code) is actor:
            del self.owned[actor.code]
        if not lost and actor.lease is not None:
            try:
                await self.store.release_lease(actor.code, actor.lease)
            except StoreError:
                failure("cluster.release_failed", room=actor.code)
        for instance in instances:
            self.send(instance, {"t": "released", "room": actor.code})
        event("room.released", room=actor.code, lost=lost, followers=len(instances))

    async def _renew(self) -> None:
        """Every third of the lease time: renew every lease, check the followers.

        A lease that could not be renewed means another instance may own the room:
        its actor stops before it could write (and its writes would be refused).
        """
        interval = self.lease_ms / 3000
        outage = Outage("cluster.renew_failing", "cluster.renew_back", instance=self.instance)
        while True:
            await asyncio.sleep(interval)
            actors = [a for a in self.owned.values() if not a.closed and a.lease is not None]
            held: list[bool] = []
            try:
                # In batches: packing and parsing one pipeline of 300 renewals held the
                # event loop long enough to show in every room's p99 (see
                # docs/performance.md); between batches the loop serves the rooms.
                for start in range(0, len(actors), RENEW_BATCH):
                    batch = actors[start : start + RENEW_BATCH]
                    held += await self.store.renew_leases(
                        [(a.code, a.lease or "") for a in batch], self.lease_ms
                    )
            except StoreError as exc:
                outage.failed(exc, rooms=len(actors))
                continue
            if actors:
                outage.answered()
            for actor, ok in zip(actors, held, strict=True):
                if not ok:
                    event("room.lease_expired", room=actor.code)
                    actor.lease_lost()
            await self._check_followers([a for a, ok in zip(actors, held, strict=True) if ok])

    async def _check_followers(self, actors: list[RoomActor]) -> None:
        """Drop the sockets of follower instances that no longer listen (killed)."""
        wanted = {inst for actor in actors for inst in actor.remote_instances()}
        if not wanted:
            return
        channels = {self.channel(inst): inst for inst in wanted}
        try:
            counts: Any = await self.store.client.pubsub_numsub(*channels)
        except (RedisError, OSError):
            return
        dead = set()
        for name, count in counts:
            channel = name.decode() if isinstance(name, bytes) else str(name)
            if int(count) == 0 and channel in channels:
                dead.add(channels[channel])
        for actor in actors:
            for inst in actor.remote_instances() & dead:
                event("cluster.instance_gone", room=actor.code, instance=inst)
                actor.instance_gone(inst)

    # ------------------------------------------------------------ the bus

    def send(
        self,
        instance: str,
        message: dict[str, Any],
        unreachable: Callable[[], None] | None = None,
    ) -> None:
        """Queue `message` for `instance`; `unreachable()` runs if nobody listens there."""
        self._outbox.put_nowait((instance, orjson.dumps(message), unreachable))

    async def _publish(self) -> None:
        client = self.store.client
        while True:
            batch = [await self._outbox.get()]
            while len(batch) < PUBLISH_BATCH and not self._outbox.empty():
                batch.append(self._outbox.get_nowait())
            try:
                for attempt in range(3):
                    try:
                        async with client.pipeline(transaction=False) as pipe:
                            for instance, data, _ in batch:
                                pipe.publish(self.channel(instance), data)
                            counts: list[Any] = await pipe.execute()
                        break
                    except (RedisError, OSError):
                        if attempt == 2:
                            failure("cluster.publish_failed", messages=len(batch))
                            counts = [None] * len(batch)
                        else:
                            await asyncio.sleep(0.1 * (attempt + 1))
                for (_, _, unreachable), count in zip(batch, counts, strict=True):
                    if count == 0 and unreachable is not None:
                        unreachable()
            finally:
                for _ in batch:
                    self._outbox.task_done()

    async def _listen(self) -> None:
        """Receive this instance's messages forever, resubscribing after a failure."""
        channel = self.channel(self.instance)
        outage = Outage("cluster.store_unreachable", "cluster.store_back", instance=self.instance)
        while True:
            pubsub = self.store.client.pubsub(ignore_subscribe_messages=True)
            try:
                try:
                    await pubsub.subscribe(channel)
                finally:
                    self._first_try.set()
                outage.answered()
                while True:
                    message = await pubsub.get_message(timeout=None)
                    if message is not None and message.get("type") == "message":
                        self._dispatch(message["data"])
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                outage.failed(exc)
                await asyncio.sleep(0.5)
            finally:
                # A closed pub/sub also drops the subscription, which is what makes
                # PUBLISH and NUMSUB tell the others that this instance is gone.
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _dispatch(self, data: bytes) -> None:
        try:
            message: dict[str, Any] = orjson.loads(data)
            kind = message["t"]
            code = str(message["room"])
        except (orjson.JSONDecodeError, KeyError, TypeError):
            failure("cluster.bad_message")
            return
        if kind == "op":
            actor = self.owned.get(code)
            starting = self._starting.get(code)
            if actor is None and starting is not None:
                starting.append(message)
                return
            if actor is None or actor.closed:
                # Not (or no longer) the owner here: the sender looks the owner up again.
                self.send(str(message["from"]), {"t": "released", "room": code})
                return
            actor.remote(message)
            return
        follower: Follower | None = self.rooms.followers.get(code)
        if follower is not None:
            follower.on_message(message)
