"""A lone Redis (AOF on) stopped for 10 s in the middle of a hand, then started again.

The server is a real `python -m schmier` child process on a Redis of the test's own
(`redis-server` with `appendonly yes` and `appendfsync always`, killed with SIGKILL and
restarted on the same port and directory by PID). Checked:

- the server stays up: `/livez` answers throughout; `/healthz` and `/readyz` say 503
  while Redis is away and 200 once it is back;
- the sockets stay open throughout (nobody reconnects), are told `paused` and then
  `resumed`, and an action sent during the outage is answered `store_unavailable`;
- the room's lease expired in Redis during the outage (it is shorter than the outage):
  the owner takes it again and goes on, it does not close its sockets;
- nothing accepted is lost and the game finishes: the room's log replays move by move,
  and every view any socket ever got (before, during and after the outage) is a true
  state of that replay;
- the log says `store.unavailable` once and `store.available` once, and holds no
  traceback at all.
"""

from __future__ import annotations

import asyncio
import random
import signal
from pathlib import Path

from tests.support import loopback
from tests.support.cluster import cluster_env
from tests.support.redis_procs import RedisProcess
from tests.support.servers import Client, Player, start_subprocess_server
from tests.test_scaleout import check_game, mid_hand, over, start_game
from tests.test_secrecy_server import check_client

OUTAGE_SECONDS = 10


async def status(base_url: str, path: str) -> int:
    async with loopback.async_client(base_url=base_url, timeout=5) as http:
        return (await http.get(path)).status_code


async def test_a_lone_redis_stopped_for_ten_seconds_mid_hand(tmp_path: Path) -> None:
    redis = RedisProcess(
        tmp_path / "redis", "--appendonly", "yes", "--appendfsync", "always"
    ).start()
    log = tmp_path / "server.log"
    env = cluster_env(redis.url, "outage:", "solo", lease_ms=2000)
    env["SCHMIER_LOG_LEVEL"] = "INFO"
    server, process = start_subprocess_server(env, log)
    clients: dict[int, Client] = {}
    try:
        variant, rules = "wisconsin4", {"target": 11}
        code = await server.create_room(variant, rules)
        tokens = {}
        for seat in (0, 2):
            _, tokens[seat] = await server.join(code, f"P{seat}", seat)
            clients[seat] = await Client.seated(server, code, tokens[seat])
        await start_game(clients[0], variant, [0, 2])
        rng = random.Random("outage")
        players = {seat: Player(c, rng, errors_ok=True) for seat, c in clients.items()}
        before = await asyncio.gather(*(p.play_until(mid_hand(0)) for p in players.values()))
        assert before[0]["view"]["phase"] == "play", "the game ended before the outage"

        redis.kill(signal.SIGKILL)
        # Seat 0 acts into the outage: refused at once (or, should it be the one commit
        # under way as Redis went, settled when Redis is back), never lost.
        await asyncio.wait_for(asyncio.gather(*(paused(c) for c in clients.values())), 15)
        legal = before[0]["view"]["legal"]
        await clients[0].send(players[0].choose(legal))
        refused = await clients[0].next_error(10)
        assert refused["code"] == "store_unavailable"
        assert await status(server.base_url, "/livez") == 200
        assert await status(server.base_url, "/healthz") == 503
        assert await status(server.base_url, "/readyz") == 503
        await asyncio.sleep(OUTAGE_SECONDS)
        assert process.poll() is None, "the server died during the outage"

        redis.start()
        finals = await asyncio.gather(*(p.play_until(over, 120) for p in players.values()))
        assert await status(server.base_url, "/readyz") == 200
        assert await status(server.base_url, "/healthz") == 200

        store_log = await read_log(redis.url, code)
        states = check_game(variant, rules, store_log, finals)
        for seat, client in clients.items():
            assert client.close_code is None, "a socket was closed during the outage"
            types = [f["type"] for f in client.frames]
            assert "paused" in types and "resumed" in types
            assert types.index("paused") < types.index("resumed")
            check_client(client, seat, states)
            assert {e["code"] for e in players[seat].errors} <= {"store_unavailable"}
    finally:
        for client in clients.values():
            await client.close()
        server.stop()
        redis.kill(signal.SIGTERM)
    text = log.read_text(errors="replace")
    print(text[-6000:])
    assert "Traceback" not in text
    assert text.count("store.unavailable") == 1, text.count("store.unavailable")
    assert text.count("store.available") == 1, text.count("store.available")
    assert "room.lease_regained" in text  # the lease expired in Redis; taken again


async def paused(client: Client) -> None:
    """Until `client` got its `paused` frame."""
    while not any(f["type"] == "paused" for f in client.frames):
        await asyncio.sleep(0.02)


async def read_log(url: str, code: str) -> list[bytes]:
    from schmier.store import RedisStore

    store = RedisStore(url, prefix="outage:", ttl_seconds=600)
    try:
        return await store.read_log(code)
    finally:
        await store.aclose()
