"""A commit under way when the store is marked down (`while_up` in
`schmier/rooms/outage.py`): the room's own task is interrupted at once, with nothing
left over, and the command already written lands when Redis answers again. And a move
that reached the room before the store was marked down but is handled after: refused
at once, never tried.

The Redis is one of the test's own, stopped with SIGSTOP: it keeps the connection and
answers nothing, as behind a network partition, until SIGCONT.
"""

from __future__ import annotations

import asyncio
import random
import signal
from pathlib import Path
from typing import Any

import orjson
import pytest

from schmier.protocol.client import parse_client_frame
from schmier.rooms.outage import while_up
from schmier.store import RedisStore, StoreUnavailable
from tests.support.redis_procs import RedisProcess
from tests.support.servers import Client, ServerFactory, concrete, seat_table


async def test_a_commit_is_interrupted_in_the_rooms_own_task(tmp_path: Path) -> None:
    """Marked down by somebody else (a lease renewal that got no answer), the commit's
    wait ends with `StoreUnavailable` while Redis is still silent, not after the wire's
    own 10 s: the commit ran in the caller's task (no task of its own, which cost the
    answers of every commit two more turns of the event loop), the caller's task has
    no cancellation left over, and the command it wrote lands once Redis answers."""
    redis = RedisProcess(tmp_path / "redis").start()
    store = RedisStore(redis.url, ttl_seconds=60)
    assert redis.process is not None
    try:
        assert await store.create("ROOM", b"v0")
        # A first commit loads the script into this Redis (a detached EVALSHA meeting
        # NOSCRIPT would not be sent again as EVAL: it would simply not land).
        await store.commit("ROOM", 1, b"v1")
        room = asyncio.current_task()
        ran_in: list[asyncio.Task[object] | None] = []

        async def commit() -> None:
            ran_in.append(asyncio.current_task())
            await store.commit("ROOM", 2, b"v2")

        async def renewal_finds_redis_silent() -> None:
            await asyncio.sleep(0.3)
            store.health.failed("renew_leases", StoreUnavailable("no answer in time"))

        redis.process.send_signal(signal.SIGSTOP)
        marker = asyncio.create_task(renewal_finds_redis_silent())
        with pytest.raises(StoreUnavailable, match="went down during the commit"):
            await while_up(store, commit())
        await marker
        assert ran_in == [room]
        await asyncio.sleep(0.01)  # a cancellation left for the room would land here
        redis.process.send_signal(signal.SIGCONT)
        async with asyncio.timeout(30):
            while (stored := await store.load("ROOM")) is None or stored.version != 2:
                await asyncio.sleep(0.05)
        assert stored.snapshot == b"v2"
    finally:
        redis.process.send_signal(signal.SIGCONT)
        await store.aclose()
        redis.kill()


async def test_a_commit_that_finds_the_store_down_itself_raises_its_own_error(
    tmp_path: Path,
) -> None:
    """The commit that marks the store down is not also cancelled: it raises its own
    failure, and its task goes on awaiting normally afterwards."""
    redis = RedisProcess(tmp_path / "redis").start()
    store = RedisStore(redis.url, ttl_seconds=60)
    try:
        assert await store.create("ROOM", b"v0")
        redis.kill()
        with pytest.raises(StoreUnavailable) as raised:
            await while_up(store, store.commit("ROOM", 1, b"v1"))
        assert "went down during the commit" not in str(raised.value)
        assert not store.health.up
        await asyncio.sleep(0.01)
    finally:
        await store.aclose()
        redis.kill()


async def test_a_room_stopping_during_a_commit_is_not_told_the_store_went(
    tmp_path: Path,
) -> None:
    """The room's task cancelled for its own reasons (the room stopping) while its
    commit waits, even as the store goes down: the cancellation goes on up, it is not
    turned into `StoreUnavailable`."""
    redis = RedisProcess(tmp_path / "redis").start()
    store = RedisStore(redis.url, ttl_seconds=60)
    assert redis.process is not None
    try:
        assert await store.create("ROOM", b"v0")
        redis.process.send_signal(signal.SIGSTOP)
        room = asyncio.create_task(while_up(store, store.commit("ROOM", 1, b"v1")))
        await asyncio.sleep(0.3)
        room.cancel()
        store.health.failed("renew_leases", StoreUnavailable("no answer in time"))
        with pytest.raises(asyncio.CancelledError):
            await room
        assert room.cancelled()
    finally:
        redis.process.send_signal(signal.SIGCONT)
        await store.aclose()
        redis.kill()


async def next_of(client: Client, kind: str, timeout: float) -> dict[str, Any]:
    """The next frame of type `kind` (anything before it skipped)."""
    async with asyncio.timeout(timeout):
        while (frame := await client.recv(timeout))["type"] != kind:
            pass
    return frame


async def test_a_move_handled_after_the_store_went_down_is_refused_untried(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    """A player's move is in the room's mailbox when the store is marked down (a lease
    renewal with no answer in time), so the room's message to pause comes behind it:
    the move is refused at once (`store_unavailable`) and the room pauses, not tried on
    the silent wire, where it held the room's mailbox until the wire's own timeout (a
    cluster's other instance took the room over meanwhile, and the room stopped once
    the link healed without having told its sockets it paused). Once Redis answers,
    the room resumes and the same move is accepted, one commit."""
    redis = RedisProcess(tmp_path / "redis").start()
    assert redis.process is not None
    server = server_factory(redis_url=redis.url, redis_prefix="untried:")
    try:
        code, clients, _, _ = await seat_table(server, "wisconsin4", [0], rules={"target": 11})
        client = clients[0]
        mine = await client.wait_state(lambda v: 0 in v["turn"] and bool(v["legal"]))
        action = concrete(mine["view"]["legal"][0], random.Random(1))
        rooms = server.app.state.rooms
        room = rooms.live[code]
        (peer,) = room._peers.at(0)
        frame = parse_client_frame(orjson.dumps(action))

        async def move_then_down() -> None:
            # Queued while the room's task has not run yet; then the store goes down.
            await room.frame(peer, frame)
            rooms.store.health.failed("renew_leases", StoreUnavailable("no answer in time"))

        redis.process.send_signal(signal.SIGSTOP)
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(move_then_down(), room._loop))
        # Without the room pausing at once, no answer came while Redis was silent (the
        # move waited on the wire, then stayed unsettled until Redis answered).
        refused = await next_of(client, "error", 8)
        assert refused["code"] == "store_unavailable"
        await next_of(client, "paused", 8)
        redis.process.send_signal(signal.SIGCONT)
        await next_of(client, "resumed", 20)
        await client.send(action)
        after = await client.next_state()
        assert after["seq"] == mine["seq"] + 1
    finally:
        redis.process.send_signal(signal.SIGCONT)
        server.stop()
        redis.kill()
