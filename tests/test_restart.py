"""Kill the server with SIGKILL in the middle of a hand; a new one resumes the room.

Redis is the real one; the server is a child process (`python -m schmier`) so that the
kill is real: no shutdown hook runs, nothing is flushed. Because every change is
committed before its views go out, the restarted server must show the same `seq`,
hands, trick and scores, and the game must play on to its end.

The same over a Unix socket (`unix:///path/redis.sock?db=0`, a Redis on the same machine
without the loopback's TCP): the commit connection opens that socket itself
(`schmier/store/wire.py`), apart from redis-py's pool, so a server must play, die and
resume on it as on TCP.
"""

from __future__ import annotations

import asyncio
import random
import signal
from typing import Any

import pytest

from schmier.store import RedisStore
from tests.support.servers import Client, Player, start_subprocess_server

FIELDS = ("phase", "hand", "trick", "tricks", "scores", "bids", "bidder", "bid", "trump",
          "my_trump", "turn", "dealer", "legal", "last_hand")  # fmt: skip


def env(redis_url: str, prefix: str) -> dict[str, str]:
    return {
        "SCHMIER_REDIS_URL": redis_url,
        "SCHMIER_REDIS_PREFIX": prefix,
        "SCHMIER_BOT_DELAY": "0",
        "SCHMIER_HAND_PAUSE": "0",
        "SCHMIER_TRICK_PAUSE": "0",
        # The killed server's room lease must expire before the new one may own it.
        "SCHMIER_LEASE_MS": "1500",
        "SCHMIER_FRAME_RATE": "1000",
        "SCHMIER_FRAME_BURST": "1000",
        "SCHMIER_LOG_LEVEL": "WARNING",
    }


@pytest.fixture(params=["tcp", "unix"])
def any_redis_url(request: pytest.FixtureRequest, redis_url: str) -> str:
    """The shared Redis over TCP, then the session's own over its Unix socket."""
    if request.param == "unix":
        url: str = request.getfixturevalue("unix_redis")
        return url
    return redis_url


def mid_hand(view: dict[str, Any]) -> bool:
    """Seat 0 must follow to a trick in progress (or the game ended: checked after)."""
    if view["phase"] == "game_over":
        return True
    return view["phase"] == "play" and bool(view["trick"]) and view["turn"] == [0]


async def test_sigkill_mid_hand_and_resume(any_redis_url: str, redis_prefix: str) -> None:
    redis_url = any_redis_url
    server, process = start_subprocess_server(env(redis_url, redis_prefix))
    try:
        code = await server.create_room("wisconsin4", {"target": 11})
        tokens = {}
        clients = {}
        for seat in (0, 2):
            _, tokens[seat] = await server.join(code, f"P{seat}", seat)
            clients[seat] = await Client.seated(server, code, tokens[seat])
        for seat in (1, 3):
            await clients[0].send({"type": "add_bot", "seat": seat})
        await clients[0].wait_state(lambda v: {"type": "start"} in v["legal"])
        await clients[0].send({"type": "start"})
        rng = random.Random(7)
        players = {s: Player(c, rng) for s, c in clients.items()}
        await clients[2].wait_state(lambda v: v["phase"] != "lobby")

        before = await asyncio.gather(*(p.play_until(mid_hand) for p in players.values()))
        assert before[0]["view"]["phase"] == "play", "the game ended before seat 0 followed"
        assert before[0]["seq"] == before[1]["seq"]
        old = {0: before[0], 2: before[1]}
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        server.stop()
    for client in clients.values():
        await client.close()

    store = RedisStore(redis_url, prefix=redis_prefix, ttl_seconds=600)
    stored = await store.load(code)
    await store.aclose()
    assert stored is not None and stored.version == old[0]["seq"]

    again, process = start_subprocess_server(env(redis_url, redis_prefix))
    try:
        info = await again.room(code)
        assert info["phase"] == "play"
        assert not any(s["connected"] for s in info["seats"])
        first = await Client.seated(again, code, tokens[0])
        assert first.state is not None
        # One change since the kill: seat 0 connecting.
        assert first.state["seq"] == old[0]["seq"] + 1
        for field in FIELDS:
            assert first.state["view"][field] == old[0]["view"][field], field
        second = await Client.seated(again, code, tokens[2])
        assert second.state is not None
        for field in FIELDS:
            assert second.state["view"][field] == old[2]["view"][field], field

        players = {0: Player(first, rng), 2: Player(second, rng)}
        finals = await asyncio.gather(
            *(p.play_until(lambda v: v["phase"] == "game_over") for p in players.values())
        )
        assert finals[0]["view"]["winners"]
        await first.close()
        await second.close()
    finally:
        again.stop()
