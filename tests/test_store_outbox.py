"""The archive's outbox in each store: written by the very commit that ends a game (and
by no refused commit), idempotent by game id, oldest first, claimed by one owner at a
time, gone once done."""

from __future__ import annotations

import pytest

from schmier.store import Finished, RedisStore, RoomStore, VersionConflict


def finished(game: str, at_ms: int) -> Finished:
    return Finished(game=game, at_ms=at_ms, payload=f'{{"id":"{game}"}}'.encode())


async def test_the_commit_that_ends_a_game_fills_the_outbox(store: RoomStore) -> None:
    assert await store.outbox_stats() == (0, None)
    await store.create("room1", b"v0")
    await store.commit("room1", 1, b"v1", [b"e1"], finished=finished("room1-1-x", 2000))
    await store.create("room2", b"v0")
    await store.commit("room2", 1, b"v1", [b"e1"], finished=finished("room2-1-x", 1000))
    assert await store.outbox_pending(10) == [
        ("room2-1-x", b'{"id":"room2-1-x"}'),
        ("room1-1-x", b'{"id":"room1-1-x"}'),
    ]
    assert await store.outbox_pending(1) == [("room2-1-x", b'{"id":"room2-1-x"}')]
    assert await store.outbox_stats() == (2, 1000)
    assert await store.read_log("room1") == [b"e1"]

    # A refused commit writes nothing, its outbox entry included.
    with pytest.raises(VersionConflict):
        await store.commit("room1", 5, b"v5", [], finished=finished("room1-2-x", 3000))
    assert await store.outbox_stats() == (2, 1000)

    await store.outbox_done("room2-1-x")
    await store.outbox_done("room2-1-x")  # done twice: no error
    assert await store.outbox_pending(10) == [("room1-1-x", b'{"id":"room1-1-x"}')]
    assert await store.outbox_stats() == (1, 2000)
    await store.outbox_done("room1-1-x")
    assert await store.outbox_stats() == (0, None)


async def test_a_claim_keeps_other_owners_off(redis_store: RedisStore) -> None:
    await redis_store.create("room1", b"v0")
    await redis_store.commit("room1", 1, b"v1", [], finished=finished("g1", 5))
    assert await redis_store.outbox_claim("g1", "a", 10_000)
    assert await redis_store.outbox_claim("g1", "a", 10_000), "its owner takes it again"
    assert not await redis_store.outbox_claim("g1", "b", 10_000)
    await redis_store.outbox_done("g1")
    assert await redis_store.outbox_claim("g1", "b", 10_000), "done frees the claim"
    await redis_store.outbox_done("g1")
    assert await redis_store.outbox_claim("g2", "a", 1)
    import asyncio

    await asyncio.sleep(0.01)
    assert await redis_store.outbox_claim("g2", "b", 10_000), "a claim expires"
