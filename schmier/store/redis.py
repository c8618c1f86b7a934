"""Rooms in Redis, so they survive restarts and several instances can share them.

Per room there is a hash (`version`, `snapshot`), a list (the log) and a list (its last
chat lines), named by `keys.py` (hash-tagged by the room's code). Every write goes
through a Lua script (`scripts.py`), because only a script makes "check the version,
write the snapshot, append the log, renew every expiry" one step that no other client
can interleave with.

Redis is found at the URL's address, or through Redis Sentinel (`sentinel.py`). Every
failure that means "Redis cannot be reached or cannot serve now" becomes
`StoreUnavailable` and is reported to the store's `health` (`health.py`), which logs
one warning when Redis goes and one when it is back.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import RedisError

import schmier.store.base as base
from schmier.store import scripts
from schmier.store.analyses import RedisAnalyses
from schmier.store.base import (
    Finished,
    LeaseLost,
    Stored,
    StoreError,
    StoreUnavailable,
    VersionConflict,
    check_commit_args,
)
from schmier.store.errors import classify
from schmier.store.health import StoreHealth
from schmier.store.keys import ALL_PARTS, ROOM_PARTS, Keys
from schmier.store.outbox import RedisOutbox
from schmier.store.pubsub import Subscription
from schmier.store.sentinel import Address, SentinelFinder, SwitchWatch
from schmier.store.wire import RedisWire


def _raw(value: bytes | str) -> bytes:
    """The client is built without `decode_responses`, so replies are bytes; the typed
    API still says `bytes | str`, and a str here would mean a misconfigured client."""
    if isinstance(value, str):
        raise StoreError("redis client decodes responses; snapshots must stay bytes")
    return value


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisStore:
    """A `RoomStore` on Redis (any server with Lua scripting, i.e. Redis 2.6+ / Valkey).

    The pool blocks when all `max_connections` are busy instead of raising "too many
    connections": under a burst the caller waits a little rather than losing a commit.
    One quick retry absorbs a connection Redis dropped (e.g. after its restart); more
    would only delay the error the health check should see.

    `sentinels` (with `sentinel_master`) find the master through Redis Sentinel instead
    of the URL's host and port. `wait_replicas` > 0 makes every commit wait (up to
    `wait_ms`) until that many replicas have it before it counts as done (with
    `wait_strict`, one they did not acknowledge is not done: see `ping`).
    """

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "schmier:",
        ttl_seconds: float,
        max_connections: int = 512,
        sentinels: Sequence[Address] = (),
        sentinel_master: str = "mymaster",
        wait_replicas: int = 0,
        wait_ms: int = 1000,
        wait_strict: bool = False,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError(f"ttl_seconds must be positive, got {ttl_seconds!r}")
        self._keys = Keys(prefix)
        self._ttl_ms = max(1, round(ttl_seconds * 1000))
        self.health = StoreHealth(self.ping)
        options: dict[str, Any] = {
            "max_connections": max_connections,
            "timeout": 30,
            "socket_timeout": 10,
            "socket_connect_timeout": 5,
            "retry": Retry(ExponentialBackoff(cap=0.25, base=0.05), 1),
        }
        self._finder = SentinelFinder(sentinels, sentinel_master) if sentinels else None
        self._pool: aioredis.BlockingConnectionPool
        if self._finder is not None:
            self._pool = self._finder.pool(url, **options)
        else:
            self._pool = aioredis.BlockingConnectionPool.from_url(url, **options)
        self._client: aioredis.Redis = aioredis.Redis(connection_pool=self._pool)
        # Commits, the one command every action makes, go through their own pipelined
        # connection (see schmier/store/wire.py for why not through the pool).
        self._wire = RedisWire(
            url,
            timeout=10,
            connect_timeout=5,
            resolve=None if self._finder is None else self._finder.master,
            wait_replicas=wait_replicas,
            wait_ms=wait_ms,
            strict=wait_strict,
        )
        self._switches = None if self._finder is None else SwitchWatch(self._finder, self._moved)
        self._legacy = True
        """Whether rooms of versions before hash-tagged keys may still be found."""
        self._chat = self._client.register_script(scripts.CHAT)
        self._acquire = self._client.register_script(scripts.ACQUIRE)
        self._release = self._client.register_script(scripts.RELEASE)
        self._adopt = self._client.register_script(scripts.ADOPT_LEGACY)
        self._bucket = self._client.register_script(scripts.TOKEN_BUCKET)
        self._outbox = RedisOutbox(self._client, self._keys, self.calling)
        self._analyses = RedisAnalyses(self._client, self.room_key, self.calling)

    @property
    def wire(self) -> RedisWire:
        """The commit connection (its counters are exported as metrics)."""
        return self._wire

    async def start(self) -> None:
        """Follow the sentinels' announcements of a new master (nothing without them)."""
        if self._switches is not None:
            self._switches.start()

    async def _moved(self, address: Address) -> None:
        """A failover: leave the old master now, subscriptions and all (they would
        otherwise go on talking to a demoted replica until its next error)."""
        self._wire.moved(address)
        with contextlib.suppress(RedisError, OSError):
            await self._pool.disconnect(inuse_connections=True)

    @contextmanager
    def calling(self, what: str) -> Iterator[None]:
        """Turn every client-side failure into a `StoreError` (callers need not know
        redis-py's exception tree, or that a refused socket surfaces as OSError), and
        tell the store's health when it means Redis is unreachable."""
        try:
            yield
        except (RedisError, OSError, StoreError) as exc:
            error = classify(what, exc)
            if isinstance(error, StoreUnavailable):
                self.health.failed(what, error)
            if error is exc:
                raise
            raise error from exc

    # ------------------------------------------------------------ names

    def key(self, name: str) -> str:
        """`name` under this store's prefix, for keys and channels of the cluster."""
        return self._keys.key(name)

    def room_part(self, code: str, part: str) -> str:
        """The key of one part of a room (`room`, `log`, `lease`, `fence`, ...): every key
        of a room is made here, so a room's keys always follow one scheme."""
        return self._keys.room_part(code, part)

    def lease_key(self, code: str) -> str:
        """The string holding `instance:fence` of the room's current owner."""
        return self.room_part(code, "lease")

    def fence_key(self, code: str) -> str:
        """The counter that numbers the room's leases."""
        return self.room_part(code, "fence")

    def room_key(self, code: str) -> str:
        """The hash holding the room's version and snapshot."""
        return self.room_part(code, "room")

    def log_key(self, code: str) -> str:
        """The list holding the room's log."""
        return self.room_part(code, "log")

    def chat_key(self, code: str) -> str:
        """The list holding the room's last chat lines."""
        return self.room_part(code, "chat")

    # ------------------------------------------------------------ rooms

    async def create(self, code: str, snapshot: bytes) -> bool:
        """Durable like a commit (with `wait_replicas`, the replicas have the room before
        its code is handed out): a room made on a primary just cut off from its replica
        would otherwise vanish at the failover while its creator holds its code."""
        keys = [self.room_key(code), self.log_key(code), self.chat_key(code)]
        with self.calling("create"):
            created: Any = await self._wire.eval(
                scripts.CREATE, keys, [bytes(snapshot), self._ttl_ms], durable=True
            )
        return bool(created)

    async def load(self, code: str) -> Stored | None:
        with self.calling("load"):
            version, snapshot = await self._client.hmget(
                self.room_key(code), ["version", "snapshot"]
            )
        if (version is None or snapshot is None) and await self._adopt_legacy(code):
            return await self.load(code)
        if version is None or snapshot is None:
            return None
        return Stored(version=int(version), snapshot=_raw(snapshot))

    async def _adopt_legacy(self, code: str) -> bool:
        """Move a room stored under the untagged names of earlier versions to its new
        names; whether there was one. Costs a round trip only for rooms not found."""
        if not self._legacy:
            return False
        old = [self._keys.legacy_part(code, part) for part in ROOM_PARTS]
        try:
            with self.calling("adopt_legacy"):
                moved: Any = await self._adopt(
                    keys=[*old, self.room_key(code), self.log_key(code)], args=[]
                )
        except StoreError as exc:
            if "CROSSSLOT" not in str(exc):
                raise
            self._legacy = False  # a cluster: it never held untagged rooms
            return False
        return bool(moved)

    async def commit(
        self,
        code: str,
        version: int,
        snapshot: bytes,
        entries: Sequence[bytes] = (),
        *,
        lease: str | None = None,
        finished: Finished | None = None,
    ) -> None:
        check_commit_args(version, entries)
        if lease == "":
            raise ValueError("an empty lease value would disable the lease check")
        keys = [self.room_key(code), self.log_key(code), self.lease_key(code), self.chat_key(code)]
        args: list[bytes | str | int] = [version, bytes(snapshot), self._ttl_ms, lease or ""]
        script = scripts.COMMIT
        if finished is not None:
            script = scripts.COMMIT_FINISHED
            keys += [self._keys.outbox("queue"), self._keys.outbox("entries")]
            args += [finished.game, finished.at_ms, bytes(finished.payload)]
        args += [bytes(e) for e in entries]
        with self.calling("commit"):
            reply: Any = await self._wire.eval(script, keys, args, durable=True)
        if int(reply[0]) == -1:
            raise LeaseLost(code)
        if int(reply[0]) != 1:
            raise VersionConflict(code, version, int(reply[1]) if len(reply) > 1 else None)

    async def read_log(self, code: str, start: int = 0) -> list[bytes]:
        with self.calling("read_log"):
            entries = await self._client.lrange(self.log_key(code), max(start, 0), -1)
        if not entries and await self._adopt_legacy(code):
            return await self.read_log(code, start)
        return [_raw(entry) for entry in entries]

    async def add_chat(
        self, code: str, line: bytes, *, keep: int, lease: str | None = None
    ) -> bool:
        base.check_chat_args(line, lease)
        keys = [self.room_key(code), self.log_key(code), self.chat_key(code), self.lease_key(code)]
        args: list[bytes | int | str] = [bytes(line), int(keep), self._ttl_ms, lease or ""]
        with self.calling("add_chat"):
            reply: Any = await self._chat(keys=keys, args=args)
        if int(reply) == -1:
            raise LeaseLost(code)
        return int(reply) == 1

    async def read_chat(self, code: str) -> list[bytes]:
        with self.calling("read_chat"):
            lines = await self._client.lrange(self.chat_key(code), 0, -1)
        return [_raw(line) for line in lines]

    async def exists(self, code: str) -> bool:
        with self.calling("exists"):
            found: int = await self._client.exists(self.room_key(code))
        return found == 1 or await self._adopt_legacy(code)

    async def delete(self, code: str) -> None:
        legacy = [self._keys.legacy_part(code, p) for p in ROOM_PARTS] if self._legacy else []
        with self.calling("delete"):
            await self._client.delete(*(self.room_part(code, p) for p in ALL_PARTS))
            for key in legacy:  # one key per call: never a cross-slot command
                await self._client.delete(key)

    # ------------------------------------------------------------ leases

    async def acquire_lease(self, code: str, instance: str, lease_ms: int) -> str | None:
        """Become the room's owner if nobody is: the lease value, or None if held."""
        with self.calling("acquire_lease"):
            value: Any = await self._acquire(
                keys=[self.lease_key(code), self.fence_key(code)],
                args=[instance, lease_ms, self._ttl_ms],
            )
        return None if value is None else _text(value)

    async def renew_leases(self, leases: Sequence[tuple[str, str]], lease_ms: int) -> list[bool]:
        """Extend each `(code, value)` lease still held; whether each one still was.

        The scripts go out on the commit connection, pipelined, so renewing costs one
        round trip however many rooms it owns. Not through redis-py's pipeline: packing
        and parsing a thousand rooms' scripts there was a share of the server's CPU at
        1,000 tables worth removing (bench/results/2026-12-02-load-second-series.md).
        """
        if not leases:
            return []
        with self.calling("renew_leases"):
            replies = await self._wire.eval_many(
                scripts.RENEW,
                [([self.lease_key(code)], [value, lease_ms]) for code, value in leases],
            )
        return [bool(int(r)) for r in replies]

    async def release_lease(self, code: str, value: str) -> bool:
        """Give the lease up if it is still `value`, so another instance takes it at once."""
        with self.calling("release_lease"):
            freed: Any = await self._release(keys=[self.lease_key(code)], args=[value])
        return bool(int(freed))

    async def lease_ttl_ms(self, code: str) -> int:
        """Milliseconds the room's lease has left; negative when there is none."""
        with self.calling("lease_ttl_ms"):
            left: Any = await self._client.pttl(self.lease_key(code))
        return int(left)

    async def lease_holder(self, code: str) -> str | None:
        """The current lease value (`instance:fence`), or None when nobody owns the room."""
        with self.calling("lease_holder"):
            value: Any = await self._client.get(self.lease_key(code))
        return None if value is None else _text(value)

    # ------------------------------------------------------------ the cluster's bus

    async def publish_many(self, messages: Sequence[tuple[str, bytes]]) -> list[int]:
        """Publish each `(channel, data)` in order, in one round trip; for each, how many
        subscribers received it (0: nobody listens on that channel)."""
        with self.calling("publish"):
            async with self._client.pipeline(transaction=False) as pipe:
                for channel, data in messages:
                    pipe.publish(channel, data)
                counts: list[Any] = await pipe.execute()
        return [int(c) for c in counts]

    async def subscribers(self, channels: Sequence[str]) -> dict[str, int]:
        """How many subscribers each channel has (`PUBSUB NUMSUB`)."""
        if not channels:
            return {}
        with self.calling("numsub"):
            counts: Any = await self._client.pubsub_numsub(*channels)
        return {_text(name): int(count) for name, count in counts}

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Subscription]:
        """Listen on `channel` until the block ends; `StoreError` if Redis fails.

        Leaving the block closes the subscription, which is what makes `PUBLISH` and
        `subscribers` tell the others that this listener is gone.
        """
        pubsub = self._client.pubsub(ignore_subscribe_messages=False)  # see pubsub.py
        try:
            with self.calling("subscribe"):
                await pubsub.subscribe(channel)
            yield Subscription(pubsub, self.calling)
        finally:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()  # type: ignore[no-untyped-call]

    # ------------------------------------------------------------ rate limits

    async def take_token(self, name: str, address: str, per_minute: int, *, spend: bool) -> bool:
        """The shared token bucket of `address` for limit `name` (`per_minute` events,
        all of them as a burst): whether a token is there, spending it if `spend`."""
        with self.calling("limit"):
            ok: Any = await self._bucket(
                keys=[self._keys.limit(name, address)],
                args=[per_minute, per_minute / 60_000, 1 if spend else 0],
            )
        return bool(int(ok))

    # ------------------------------------------------------------ the archive's outbox

    async def analysis_put(self, code: str, n: int, data: bytes) -> bool:
        return await self._analyses.put(code, n, data)

    async def analysis_get(self, code: str, n: int) -> bytes | None:
        return await self._analyses.get(code, n)

    async def table_add(self, code: str, n: int, table: str, most: int) -> bool:
        return await self._analyses.add_table(code, n, table, most)

    async def tables_get(self, code: str, n: int) -> list[str]:
        return await self._analyses.tables(code, n)

    async def outbox_pending(self, limit: int) -> list[tuple[str, bytes]]:
        return await self._outbox.pending(limit)

    async def outbox_claim(self, game: str, owner: str, ms: int) -> bool:
        return await self._outbox.claim(game, owner, ms)

    async def outbox_done(self, game: str) -> None:
        await self._outbox.done(game)

    async def outbox_stats(self) -> tuple[int, int | None]:
        return await self._outbox.stats()

    # ------------------------------------------------------------ health

    async def ping(self) -> bool:
        """Whether Redis answers both of the store's ways to it (the pool and the commit
        connection); never raises, and reports nothing to `health` (its probe)."""
        try:
            if not await self._client.ping():
                return False
            # Not PING: Redis answers PING while still loading its data, and EXISTS
            # only once it serves (-LOADING before).
            if not isinstance(await self._wire.call("EXISTS", self.key("probe")), int):
                return False
            # Strict: back once a write reaches the replicas, so that an unsettled
            # commit is read from a master that keeps it (not from an old one cut off).
            return not self._wire.strict or await self._wire.replicated(self.key("probe"))
        except (RedisError, OSError, StoreError):
            return False

    async def aclose(self) -> None:
        await self.health.aclose()
        if self._switches is not None:
            await self._switches.aclose()
        await self._wire.aclose()
        await self._client.aclose()
        await self._pool.aclose()
        if self._finder is not None:
            await self._finder.aclose()
