"""One suite for every RoomStore backend, plus the backend-specific expiry and failure
behaviour (a TTL in Redis, an injected clock in memory, a Redis that is not there)."""

from __future__ import annotations

import asyncio
import inspect
import socket
from collections.abc import Iterator

import pytest
import redis.asyncio as aioredis

from schmier.store import (
    MemoryStore,
    RedisStore,
    RoomStore,
    Stored,
    StoreError,
    VersionConflict,
    open_store,
)
from tests.support.stores import TEST_TTL, ManualClock

# --- the shared contract ---------------------------------------------------------------


async def test_create_exists_load_round_trip(store: RoomStore) -> None:
    assert not await store.exists("ABCD")
    assert await store.load("ABCD") is None

    assert await store.create("ABCD", b"\x00snap\xff")

    assert await store.exists("ABCD")
    assert await store.load("ABCD") == Stored(version=0, snapshot=b"\x00snap\xff")
    assert await store.read_log("ABCD") == []
    assert not await store.exists("ABCE")


async def test_create_on_existing_code_changes_nothing(store: RoomStore) -> None:
    assert await store.create("ROOM", b"first")
    await store.commit("ROOM", 1, b"second", [b"a"])

    assert not await store.create("ROOM", b"intruder")

    assert await store.load("ROOM") == Stored(version=1, snapshot=b"second")
    assert await store.read_log("ROOM") == [b"a"]


async def test_commit_with_the_next_version_wins(store: RoomStore) -> None:
    await store.create("ROOM", b"v0")
    await store.commit("ROOM", 1, b"v1", [b"e1"])
    await store.commit("ROOM", 2, b"v2", [b"e2", b"e3"])

    assert await store.load("ROOM") == Stored(version=2, snapshot=b"v2")
    assert await store.read_log("ROOM") == [b"e1", b"e2", b"e3"]


@pytest.mark.parametrize("version", [1, 2, 4, 5])
async def test_commit_with_any_other_version_raises_and_writes_nothing(
    store: RoomStore, version: int
) -> None:
    """Stale (1), repeated (2) and skipped (4, 5) versions are all refused alike."""
    await store.create("ROOM", b"v0")
    await store.commit("ROOM", 1, b"v1", [b"e1"])
    await store.commit("ROOM", 2, b"v2", [b"e2"])

    with pytest.raises(VersionConflict) as caught:
        await store.commit("ROOM", version, b"bad", [b"bad-entry"])

    assert caught.value.actual == 2
    assert caught.value.version == version
    assert await store.load("ROOM") == Stored(version=2, snapshot=b"v2")
    assert await store.read_log("ROOM") == [b"e1", b"e2"]


async def test_commit_to_a_missing_room_raises(store: RoomStore) -> None:
    with pytest.raises(VersionConflict) as caught:
        await store.commit("NOPE", 1, b"v1", [b"e"])

    assert caught.value.actual is None
    assert not await store.exists("NOPE")
    assert await store.read_log("NOPE") == []


async def test_commit_refuses_version_zero_and_non_bytes_entries(store: RoomStore) -> None:
    await store.create("ROOM", b"v0")

    with pytest.raises(ValueError):
        await store.commit("ROOM", 0, b"v0-again")
    with pytest.raises(TypeError):
        await store.commit("ROOM", 1, b"v1", ["text"])  # type: ignore[list-item]

    assert await store.load("ROOM") == Stored(version=0, snapshot=b"v0")
    assert await store.read_log("ROOM") == []


async def test_log_keeps_order_and_reads_from_start(store: RoomStore) -> None:
    await store.create("ROOM", b"v0")
    expected: list[bytes] = []
    for version in range(1, 8):
        batch = [f"{version}.{i}".encode() for i in range(version % 3)]
        expected.extend(batch)
        await store.commit("ROOM", version, f"v{version}".encode(), batch)

    assert await store.read_log("ROOM") == expected
    assert await store.read_log("ROOM", 0) == expected
    assert await store.read_log("ROOM", 3) == expected[3:]
    assert await store.read_log("ROOM", len(expected) - 1) == expected[-1:]
    assert await store.read_log("ROOM", len(expected)) == []
    assert await store.read_log("ROOM", len(expected) + 10) == []


async def test_large_commit_keeps_every_entry(store: RoomStore) -> None:
    """More entries than one Lua unpack() may take, so the batching is exercised."""
    await store.create("ROOM", b"v0")
    entries = [i.to_bytes(2, "big") for i in range(2500)]

    await store.commit("ROOM", 1, b"v1", entries)

    assert await store.read_log("ROOM") == entries


async def test_rooms_are_independent(store: RoomStore) -> None:
    await store.create("AAAA", b"a0")
    await store.create("BBBB", b"b0")
    await store.commit("AAAA", 1, b"a1", [b"a-entry"])

    assert await store.load("BBBB") == Stored(version=0, snapshot=b"b0")
    assert await store.read_log("BBBB") == []


async def test_delete_removes_room_and_log(store: RoomStore) -> None:
    await store.create("ROOM", b"v0")
    await store.commit("ROOM", 1, b"v1", [b"e1"])

    await store.delete("ROOM")
    await store.delete("ROOM")  # a second delete is harmless

    assert not await store.exists("ROOM")
    assert await store.load("ROOM") is None
    assert await store.read_log("ROOM") == []
    assert await store.create("ROOM", b"fresh")
    assert await store.load("ROOM") == Stored(version=0, snapshot=b"fresh")
    assert await store.read_log("ROOM") == []


async def test_concurrent_committers_exactly_one_wins(store: RoomStore) -> None:
    await store.create("RACE", b"v0")
    for version in range(1, 21):
        mine, theirs = f"mine-{version}".encode(), f"theirs-{version}".encode()
        results = await asyncio.gather(
            store.commit("RACE", version, mine, [mine]),
            store.commit("RACE", version, theirs, [theirs]),
            return_exceptions=True,
        )

        winners = [i for i, result in enumerate(results) if result is None]
        losers = [result for result in results if isinstance(result, VersionConflict)]
        assert len(winners) == 1, results
        assert len(losers) == 1, results
        winning = (mine, theirs)[winners[0]]
        assert await store.load("RACE") == Stored(version=version, snapshot=winning)
        assert (await store.read_log("RACE"))[-1] == winning

    assert len(await store.read_log("RACE")) == 20


async def test_ping_answers(store: RoomStore) -> None:
    assert await store.ping() is True


#: The contract's methods (docs/architecture.md, "The store"); a method added to
#: `RoomStore` must be added here too, so this list and the Protocol cannot drift apart.
CONTRACT = (
    "create", "load", "commit", "read_log", "add_chat", "read_chat", "analysis_put",
    "analysis_get", "table_add", "tables_get", "exists", "delete", "ping", "outbox_pending",
    "outbox_claim", "outbox_done", "outbox_stats", "aclose",
)  # fmt: skip


async def test_stores_satisfy_the_protocol(store: RoomStore) -> None:
    """Every method of the contract, as the contract has it: a coroutine with the same
    parameters (names, kinds, defaults, annotations) and return annotation. `isinstance`
    against a runtime-checkable Protocol looks at the names alone: a backend whose
    `commit` had lost its `lease` keyword, or whose `ping` was not async, would pass it."""
    contract = [n for n, v in vars(RoomStore).items() if inspect.iscoroutinefunction(v)]
    assert tuple(contract) == CONTRACT
    assert isinstance(store, RoomStore)
    for name in contract:
        method = getattr(type(store), name)
        assert inspect.iscoroutinefunction(method), f"{type(store).__name__}.{name} is not async"
        expected = inspect.signature(getattr(RoomStore, name))
        assert inspect.signature(method) == expected, f"{type(store).__name__}.{name}"


# --- MemoryStore expiry, on an injected clock -------------------------------------------


async def test_an_analysis_is_kept_with_its_room_and_goes_with_it(store: RoomStore) -> None:
    assert not await store.analysis_put("GONE", 1, b"x")  # no room: nothing written
    assert await store.analysis_get("GONE", 1) is None
    assert not await store.exists("GONE")

    await store.create("ROOM", b"v0")
    assert await store.analysis_get("ROOM", 1) is None
    assert await store.analysis_put("ROOM", 1, b"pending")
    assert await store.analysis_put("ROOM", 1, b"\x00done\xff")
    assert await store.analysis_put("ROOM", 2, b"two")
    await store.commit("ROOM", 1, b"v1", [b"e1"])  # a commit keeps them
    assert await store.analysis_get("ROOM", 1) == b"\x00done\xff"
    assert await store.analysis_get("ROOM", 2) == b"two"
    assert await store.load("ROOM") == Stored(version=1, snapshot=b"v1")

    await store.delete("ROOM")
    assert await store.analysis_get("ROOM", 1) is None
    assert await store.create("ROOM", b"fresh")  # a new room under the code: none
    assert await store.analysis_get("ROOM", 1) is None


async def test_a_hands_tables_are_kept_in_order_bounded_and_go_with_the_room(
    store: RoomStore,
) -> None:
    assert not await store.table_add("GONE", 1, "P1", 3)  # no room: nothing written
    assert await store.tables_get("GONE", 1) == []
    assert not await store.exists("GONE")

    await store.create("ROOM", b"v0")
    assert await store.tables_get("ROOM", 1) == []
    for code in ("P1", "P2", "P3"):
        assert await store.table_add("ROOM", 1, code, 3)
    assert not await store.table_add("ROOM", 1, "P4", 3)  # the most a hand may have
    assert await store.table_add("ROOM", 2, "Q1", 3)
    await store.commit("ROOM", 1, b"v1", [b"e1"])  # a commit keeps them
    assert await store.tables_get("ROOM", 1) == ["P1", "P2", "P3"]
    assert await store.tables_get("ROOM", 2) == ["Q1"]
    assert await store.load("ROOM") == Stored(version=1, snapshot=b"v1")

    await store.delete("ROOM")
    assert await store.tables_get("ROOM", 1) == []
    assert await store.create("ROOM", b"fresh")  # a new room under the code: none
    assert await store.tables_get("ROOM", 1) == []


async def test_a_hands_tables_never_go_past_the_most_when_added_at_once(
    store: RoomStore,
) -> None:
    await store.create("ROOM", b"v0")
    added = await asyncio.gather(*(store.table_add("ROOM", 1, f"P{i}", 5) for i in range(12)))
    assert sum(added) == 5
    kept = await store.tables_get("ROOM", 1)
    assert sorted(kept) == sorted(f"P{i}" for i, done in enumerate(added) if done)


async def test_memory_an_analysis_expires_with_its_room() -> None:
    clock = ManualClock()
    store = MemoryStore(10.0, clock=clock)
    await store.create("ROOM", b"v0")
    assert await store.analysis_put("ROOM", 1, b"a")
    clock.advance(8)
    await store.commit("ROOM", 1, b"v1")
    clock.advance(8)
    assert await store.analysis_get("ROOM", 1) == b"a"  # renewed by the commit
    clock.advance(2)
    assert await store.analysis_get("ROOM", 1) is None


async def test_memory_room_expires_after_ttl() -> None:
    clock = ManualClock()
    store = MemoryStore(10.0, clock=clock)
    await store.create("ROOM", b"v0")
    await store.commit("ROOM", 1, b"v1", [b"e1"])

    clock.advance(9.9)
    assert await store.load("ROOM") == Stored(version=1, snapshot=b"v1")
    clock.advance(0.1)

    assert await store.load("ROOM") is None
    assert not await store.exists("ROOM")
    assert await store.read_log("ROOM") == []
    with pytest.raises(VersionConflict):
        await store.commit("ROOM", 2, b"v2")
    assert await store.create("ROOM", b"reborn")
    assert await store.load("ROOM") == Stored(version=0, snapshot=b"reborn")
    assert await store.read_log("ROOM") == []


async def test_memory_every_write_renews_ttl_but_reads_do_not() -> None:
    clock = ManualClock()
    store = MemoryStore(10.0, clock=clock)
    await store.create("ROOM", b"v0")

    for version in range(1, 6):
        clock.advance(8)
        await store.commit("ROOM", version, f"v{version}".encode())
    # 40 s since create, yet alive: each commit pushed the expiry 10 s out.
    for _ in range(3):
        clock.advance(3)
        assert await store.exists("ROOM")  # reads at 3, 6, 9 s after the last write
    clock.advance(1)

    assert not await store.exists("ROOM")


async def test_memory_sweep_drops_rooms_nobody_touches_again() -> None:
    clock = ManualClock()
    store = MemoryStore(5.0, clock=clock)
    for i in range(50):
        await store.create(f"R{i:03}", b"x")
    assert len(store) == 50

    clock.advance(6)
    await store.create("LIVE", b"y")  # any access after the interval sweeps

    assert len(store) == 1
    assert await store.exists("LIVE")


def test_memory_refuses_a_non_positive_ttl() -> None:
    with pytest.raises(ValueError):
        MemoryStore(0)


# --- RedisStore expiry, keys and failure ------------------------------------------------


async def test_redis_keys_live_under_the_prefix(
    redis_store: RedisStore, raw_redis: aioredis.Redis, redis_prefix: str
) -> None:
    await redis_store.create("ROOM", b"v0")
    await redis_store.commit("ROOM", 1, b"v1", [b"e1"])

    keys = sorted([k.decode() async for k in raw_redis.scan_iter(match=redis_prefix + "*")])
    assert keys == [f"{redis_prefix}log:{{ROOM}}", f"{redis_prefix}room:{{ROOM}}"]
    assert await raw_redis.hgetall(f"{redis_prefix}room:{{ROOM}}") == {
        b"version": b"1",
        b"snapshot": b"v1",
    }


async def test_redis_every_write_renews_ttl(
    redis_store: RedisStore, raw_redis: aioredis.Redis
) -> None:
    room, log = redis_store.room_key("ROOM"), redis_store.log_key("ROOM")
    ttl_ms = TEST_TTL * 1000

    await redis_store.create("ROOM", b"v0")
    assert 0 < await raw_redis.pttl(room) <= ttl_ms

    for version in (1, 2):
        # Pretend the room has almost run out; the commit must restore the full TTL.
        await raw_redis.pexpire(room, 5000)
        await raw_redis.pexpire(log, 5000)
        await redis_store.commit("ROOM", version, b"v", [b"e"])
        assert 5000 < await raw_redis.pttl(room) <= ttl_ms
        assert 5000 < await raw_redis.pttl(log) <= ttl_ms

    await raw_redis.pexpire(room, 5000)
    await redis_store.load("ROOM")
    await redis_store.read_log("ROOM")
    assert await raw_redis.pttl(room) <= 5000  # reads leave the expiry alone


async def test_redis_room_and_log_expire(
    redis_url: str, redis_prefix: str, raw_redis: aioredis.Redis
) -> None:
    store = RedisStore(redis_url, prefix=redis_prefix, ttl_seconds=0.3)
    try:
        await store.create("ROOM", b"v0")
        await store.commit("ROOM", 1, b"v1", [b"e1"])
        assert await store.analysis_put("ROOM", 1, b"kept")
        assert 0 < await raw_redis.pttl(store.room_key("ROOM")) <= 300  # no expiry lost
        assert 0 < await raw_redis.pttl(store.log_key("ROOM")) <= 300

        for _ in range(30):  # wait at most 1.5 s for Redis to drop both keys
            if not await raw_redis.exists(store.room_key("ROOM"), store.log_key("ROOM")):
                break
            await asyncio.sleep(0.05)

        assert await raw_redis.exists(store.room_key("ROOM"), store.log_key("ROOM")) == 0
        assert await store.load("ROOM") is None
        assert not await store.exists("ROOM")
        assert await store.read_log("ROOM") == []
        assert await store.analysis_get("ROOM", 1) is None
        with pytest.raises(VersionConflict):
            await store.commit("ROOM", 2, b"v2")
    finally:
        await store.aclose()


async def test_redis_create_discards_a_leftover_log(
    redis_store: RedisStore, raw_redis: aioredis.Redis
) -> None:
    """A log without its room (e.g. a half-finished manual cleanup) is not history."""
    await raw_redis.rpush(redis_store.log_key("ROOM"), b"stale")

    assert await redis_store.create("ROOM", b"v0")

    assert await redis_store.read_log("ROOM") == []


@pytest.fixture
def dead_url() -> Iterator[str]:
    """A URL whose port is reserved (bound) but not listening, so connecting is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"redis://127.0.0.1:{sock.getsockname()[1]}/0"


async def test_redis_unreachable_ping_false_and_writes_raise(dead_url: str) -> None:
    store = RedisStore(dead_url, ttl_seconds=60)
    try:
        assert await store.ping() is False
        with pytest.raises(StoreError):
            await store.commit("ROOM", 1, b"v1", [b"e"])
        with pytest.raises(StoreError):
            await store.create("ROOM", b"v0")
        with pytest.raises(StoreError):
            await store.load("ROOM")
    finally:
        await store.aclose()


async def test_open_store_picks_the_backend(redis_url: str, redis_prefix: str) -> None:
    memory = open_store(None, prefix="ignored:", ttl_seconds=60)
    assert isinstance(memory, MemoryStore)
    await memory.aclose()

    backend = open_store(redis_url, prefix=redis_prefix, ttl_seconds=60)
    try:
        assert isinstance(backend, RedisStore)
        assert backend.room_key("X") == f"{redis_prefix}room:{{X}}"
        assert await backend.ping()
    finally:
        await backend.aclose()
