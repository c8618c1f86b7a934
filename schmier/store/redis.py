"""Rooms in Redis, so they survive restarts and several instances can share them.

Per room there is a hash `{prefix}room:{code}` (`version`, `snapshot`), a list
`{prefix}log:{code}` and a list `{prefix}chat:{code}` (its last chat lines), every key
made by `room_part`. Every write goes through a Lua script, because only a script makes
"check the version, write the snapshot, append the log, renew every expiry" one step
that no other client can interleave with.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import RedisError

import schmier.store.base as base
from schmier.store.base import LeaseLost, Stored, StoreError, VersionConflict, check_commit_args
from schmier.store.wire import RedisWire

# KEYS: room hash, log list, chat list. ARGV: snapshot, ttl in ms.
# The log and the chat are cleared too: a leftover log of an earlier room with the same
# code must not be replayed as this room's history, nor its chat shown.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'version', 0, 'snapshot', ARGV[1])
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""

# KEYS: room hash, log list, lease, chat list. ARGV: new version, snapshot, ttl in ms, expected
# lease value ('' = no lease check, single instance), entries...
# Returns {1} on success, {0} when the room is missing, {0, found} on a version clash,
# {-1} when the lease holds anything but the expected value (the fencing check: an
# owner whose lease expired or was taken over can never write again).
# Entries are pushed in batches because unpack() of a huge table overflows Lua's stack.
_COMMIT = """
if ARGV[4] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[4] then
  return {-1}
end
local found = redis.call('HGET', KEYS[1], 'version')
if not found then
  return {0}
end
if tonumber(found) ~= tonumber(ARGV[1]) - 1 then
  return {0, tonumber(found)}
end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'snapshot', ARGV[2])
local n = #ARGV
local i = 5
while i <= n do
  local j = math.min(i + 999, n)
  redis.call('RPUSH', KEYS[2], unpack(ARGV, i, j))
  i = j + 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[4], ARGV[3])
return {1}
"""

# KEYS: room hash, log list, chat list, lease. ARGV: line, lines kept, ttl ms, expected lease
# ('' = none). Returns 1; 0 when the room is missing (no orphan chat key); -1 when the lease
# is not the caller's. Renews every expiry of the room: the chat never outlives the room.
_CHAT = """
if ARGV[4] ~= '' and redis.call('GET', KEYS[4]) ~= ARGV[4] then
  return -1
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('RPUSH', KEYS[3], ARGV[1])
redis.call('LTRIM', KEYS[3], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1
"""

# KEYS: lease, fence counter. ARGV: instance id, lease ms, fence ttl ms.
# The fence comes from INCR, so every acquisition of a room's lease has a new number
# and a value `instance:fence` is never handed out twice, not even to the same
# instance coming back. SET NX keeps the lease of a living owner untouched.
_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return false
end
local fence = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
local value = ARGV[1] .. ':' .. fence
if not redis.call('SET', KEYS[1], value, 'NX', 'PX', ARGV[2]) then
  return false
end
return value
"""

# KEYS: lease. ARGV: expected value, lease ms. Extends the lease only while it is ours.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

# KEYS: lease. ARGV: expected value. Frees the lease only while it is ours.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


@asynccontextmanager
async def _backend(what: str) -> AsyncIterator[None]:
    """Turn every client-side failure into `StoreError`, so callers need not know
    redis-py's exception tree (or that a refused socket surfaces as OSError)."""
    try:
        yield
    except (RedisError, OSError) as exc:
        raise StoreError(f"redis {what} failed: {exc}") from exc


def _raw(value: bytes | str) -> bytes:
    """The client is built without `decode_responses`, so replies are bytes; the typed
    API still says `bytes | str`, and a str here would mean a misconfigured client."""
    if isinstance(value, str):
        raise StoreError("redis client decodes responses; snapshots must stay bytes")
    return value


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class Subscription:
    """One channel's messages, as they arrive."""

    def __init__(self, pubsub: aioredis.client.PubSub) -> None:
        self._pubsub = pubsub

    async def next(self) -> bytes:
        """The next message published on the channel; `StoreError` if Redis fails."""
        while True:
            async with _backend("listen"):
                message = await self._pubsub.get_message(timeout=None)
            if message is not None and message.get("type") == "message":
                return _raw(message["data"])


class RedisStore:
    """A `RoomStore` on Redis (any server with Lua scripting, i.e. Redis 2.6+ / Valkey).

    The pool blocks when all `max_connections` are busy instead of raising "too many
    connections": under a burst the caller waits a little rather than losing a commit.
    One quick retry absorbs a connection Redis dropped (e.g. after its restart); more
    would only delay the error the health check should see.
    """

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "schmier:",
        ttl_seconds: float,
        max_connections: int = 512,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError(f"ttl_seconds must be positive, got {ttl_seconds!r}")
        self._prefix = prefix
        self._ttl_ms = max(1, round(ttl_seconds * 1000))
        self._pool: aioredis.BlockingConnectionPool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections,
            timeout=30,
            socket_timeout=10,
            socket_connect_timeout=5,
            retry=Retry(ExponentialBackoff(cap=0.25, base=0.05), 1),
        )
        self._client: aioredis.Redis = aioredis.Redis(connection_pool=self._pool)
        # Commits, the one command every action makes, go through their own pipelined
        # connection (see schmier/store/wire.py for why not through the pool).
        self._wire = RedisWire(url, timeout=10, connect_timeout=5)
        self._create = self._client.register_script(_CREATE)
        self._chat = self._client.register_script(_CHAT)
        self._acquire = self._client.register_script(_ACQUIRE)
        self._renew = self._client.register_script(_RENEW)
        self._release = self._client.register_script(_RELEASE)

    def key(self, name: str) -> str:
        """`name` under this store's prefix, for keys and channels of the cluster."""
        return f"{self._prefix}{name}"

    def room_part(self, code: str, part: str) -> str:
        """The key of one part of a room (`room`, `log`, `lease`, `fence`, ...): every key
        of a room is made here, so a room's keys always follow one scheme."""
        return f"{self._prefix}{part}:{code}"

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

    async def create(self, code: str, snapshot: bytes) -> bool:
        async with _backend("create"):
            created: Any = await self._create(
                keys=[self.room_key(code), self.log_key(code), self.chat_key(code)],
                args=[bytes(snapshot), self._ttl_ms],
            )
        return bool(created)

    async def load(self, code: str) -> Stored | None:
        async with _backend("load"):
            version, snapshot = await self._client.hmget(
                self.room_key(code), ["version", "snapshot"]
            )
        if version is None or snapshot is None:
            return None
        return Stored(version=int(version), snapshot=_raw(snapshot))

    async def commit(
        self,
        code: str,
        version: int,
        snapshot: bytes,
        entries: Sequence[bytes] = (),
        *,
        lease: str | None = None,
    ) -> None:
        check_commit_args(version, entries)
        if lease == "":
            raise ValueError("an empty lease value would disable the lease check")
        async with _backend("commit"):
            reply: Any = await self._wire.eval(
                _COMMIT,
                [
                    self.room_key(code),
                    self.log_key(code),
                    self.lease_key(code),
                    self.chat_key(code),
                ],
                [version, bytes(snapshot), self._ttl_ms, lease or "", *(bytes(e) for e in entries)],
            )
        if int(reply[0]) == -1:
            raise LeaseLost(code)
        if int(reply[0]) != 1:
            raise VersionConflict(code, version, int(reply[1]) if len(reply) > 1 else None)

    async def add_chat(
        self, code: str, line: bytes, *, keep: int, lease: str | None = None
    ) -> bool:
        base.check_chat_args(line, lease)
        keys = [self.room_key(code), self.log_key(code), self.chat_key(code), self.lease_key(code)]
        async with _backend("add_chat"):
            args: list[bytes | int | str] = [bytes(line), int(keep), self._ttl_ms, lease or ""]
            reply: Any = await self._chat(keys=keys, args=args)
        if int(reply) == -1:
            raise LeaseLost(code)
        return int(reply) == 1

    async def read_chat(self, code: str) -> list[bytes]:
        async with _backend("read_chat"):
            lines = await self._client.lrange(self.chat_key(code), 0, -1)
        return [_raw(line) for line in lines]

    # ------------------------------------------------------------ leases

    async def acquire_lease(self, code: str, instance: str, lease_ms: int) -> str | None:
        """Become the room's owner if nobody is: the lease value, or None if held."""
        async with _backend("acquire_lease"):
            value: Any = await self._acquire(
                keys=[self.lease_key(code), self.fence_key(code)],
                args=[instance, lease_ms, self._ttl_ms],
            )
        return None if value is None else _text(value)

    async def renew_leases(self, leases: Sequence[tuple[str, str]], lease_ms: int) -> list[bool]:
        """Extend each `(code, value)` lease still held; whether each one still was.

        One pipeline for all of an instance's rooms, so renewing costs one round trip
        however many rooms it owns.
        """
        if not leases:
            return []
        async with _backend("renew_leases"), self._client.pipeline(transaction=False) as pipe:
            for code, value in leases:
                await self._renew(keys=[self.lease_key(code)], args=[value, lease_ms], client=pipe)
            replies: list[Any] = await pipe.execute()
        return [bool(int(r)) for r in replies]

    async def release_lease(self, code: str, value: str) -> bool:
        """Give the room up now (if still ours), so another instance takes it at once."""
        async with _backend("release_lease"):
            freed: Any = await self._release(keys=[self.lease_key(code)], args=[value])
        return bool(int(freed))

    async def lease_ttl_ms(self, code: str) -> int:
        """Milliseconds the room's lease has left; negative when there is none."""
        async with _backend("lease_ttl_ms"):
            left: Any = await self._client.pttl(self.lease_key(code))
        return int(left)

    async def lease_holder(self, code: str) -> str | None:
        """The current lease value (`instance:fence`), or None when nobody owns the room."""
        async with _backend("lease_holder"):
            value: Any = await self._client.get(self.lease_key(code))
        return None if value is None else _text(value)

    # ------------------------------------------------------------ the cluster's bus

    async def publish_many(self, messages: Sequence[tuple[str, bytes]]) -> list[int]:
        """Publish each `(channel, data)` in order, in one round trip; for each, how many
        subscribers received it (0: nobody listens on that channel)."""
        async with _backend("publish"), self._client.pipeline(transaction=False) as pipe:
            for channel, data in messages:
                pipe.publish(channel, data)
            counts: list[Any] = await pipe.execute()
        return [int(c) for c in counts]

    async def subscribers(self, channels: Sequence[str]) -> dict[str, int]:
        """How many subscribers each channel has (`PUBSUB NUMSUB`)."""
        if not channels:
            return {}
        async with _backend("numsub"):
            counts: Any = await self._client.pubsub_numsub(*channels)
        return {_text(name): int(count) for name, count in counts}

    @asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Subscription]:
        """Listen on `channel` until the block ends; `StoreError` if Redis fails.

        Leaving the block closes the subscription, which is what makes `PUBLISH` and
        `subscribers` tell the others that this listener is gone.
        """
        pubsub = self._client.pubsub(ignore_subscribe_messages=True)
        try:
            async with _backend("subscribe"):
                await pubsub.subscribe(channel)
            yield Subscription(pubsub)
        finally:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def read_log(self, code: str, start: int = 0) -> list[bytes]:
        async with _backend("read_log"):
            entries = await self._client.lrange(self.log_key(code), max(start, 0), -1)
        return [_raw(entry) for entry in entries]

    async def exists(self, code: str) -> bool:
        async with _backend("exists"):
            found: int = await self._client.exists(self.room_key(code))
        return found == 1

    async def delete(self, code: str) -> None:
        async with _backend("delete"):
            await self._client.delete(
                self.room_key(code),
                self.log_key(code),
                self.chat_key(code),
                self.lease_key(code),
                self.fence_key(code),
            )

    async def ping(self) -> bool:
        try:
            return bool(await self._client.ping())
        except (RedisError, OSError):
            return False

    async def aclose(self) -> None:
        await self._wire.aclose()
        await self._client.aclose()
        await self._pool.aclose()
