"""Redis over a Unix socket (`SCHMIER_REDIS_URL=unix:///path/redis.sock?db=0`), a real
server end to end: the shared store suite runs on it too (tests/test_store.py, the
`unix_redis` backend); here a server plays on it, is killed with SIGKILL and resumes
the room exactly where it was, every connection of it through the socket.

Why a test of its own: a Redis on the same machine saves the loopback's TCP on every
commit (docs/performance.md), and the commit connection opens its socket itself
(`schmier/store/wire.py`), apart from redis-py's pool."""

from __future__ import annotations

import random
import signal
from pathlib import Path

from tests.support.servers import (
    Client,
    Player,
    play_all,
    seat_table,
    start_subprocess_server,
)


def _env(url: str, prefix: str) -> dict[str, str]:
    return {
        "SCHMIER_REDIS_URL": url,
        "SCHMIER_REDIS_PREFIX": prefix,
        "SCHMIER_BOT_DELAY": "0",
        "SCHMIER_TRICK_PAUSE": "0",
        "SCHMIER_LEASE_MS": "1500",
        "SCHMIER_LOG_LEVEL": "INFO",
    }


async def test_a_server_on_a_unix_socket_plays_and_resumes_after_a_kill(
    unix_redis: str, redis_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    server, process = start_subprocess_server(_env(unix_redis, redis_prefix), log=log)
    try:
        code, clients, _, tokens = await seat_table(server, "wisconsin4", [0, 1, 2, 3])
        rng = random.Random(3)
        players = [Player(c, rng) for c in clients.values()]
        # Play into the first trick: the bidding, every move of it stored.
        await play_all(players, lambda v: bool(v["trick"] or v["tricks"]), timeout=30)
        assert sum(p.actions for p in players) >= 5
        watcher = await Client.seated(server, code, None)
        assert watcher.state is not None
        before = watcher.state["view"]
        await watcher.close()
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        server.stop()
    text = log.read_text(errors="replace")
    assert "store.wire_connected address=unix socket" in text, text[-2000:]
    again, _ = start_subprocess_server(_env(unix_redis, redis_prefix), log=log)
    try:
        ann = await Client.seated(again, code, tokens[0])
        assert ann.state is not None
        kept = ("phase", "trick", "tricks", "bids", "bidder", "turn", "scores", "trump")
        assert {k: ann.state["view"][k] for k in kept} == {k: before[k] for k in kept}
        await ann.close()
    finally:
        again.stop()
