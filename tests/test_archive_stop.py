"""A server stopped (SIGTERM) while its archive writes a game finishes that write and
exits: the write is not cut off by a cancellation.

Why a test of its own: a cancellation in the middle of a SQLite write left the
connection holding the file's write lock with its close abandoned, the archive's task
went on (the cancellation was lost on the way) and the stop waited for it for ever (a
rolling-restart test once saw an instance outlive its SIGTERM that way). Here the test
holds the file's write lock itself while a game ends, so that the archive's write of it
waits for the file when the stop begins; the lock is let go only once the stop has
reached the archive.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import redis.asyncio as aioredis

from schmier import shutdown
from tests.support.clubs import ClubApi, club_table, play_to_end
from tests.support.servers import start_subprocess_server


def stop_reached(log: Path, part: str) -> bool:
    return f"server.stopping part={part}" in log.read_text(errors="replace")


async def wait_until(check: object, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not await check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"never {what}"
        await asyncio.sleep(0.05)


async def test_a_stop_finishes_the_archive_write_in_hand(
    redis_url: str, redis_prefix: str, raw_redis: aioredis.Redis, tmp_path: Path
) -> None:
    database = tmp_path / "archive.db"
    log = tmp_path / "server.log"
    env = {
        "SCHMIER_REDIS_URL": redis_url,
        "SCHMIER_REDIS_PREFIX": redis_prefix,
        "SCHMIER_DATABASE_URL": f"sqlite+aiosqlite:///{database}",
        "SCHMIER_BOT_DELAY": "0",
        "SCHMIER_HAND_PAUSE": "0",
        "SCHMIER_TRICK_PAUSE": "0",
        "SCHMIER_BOT_WORKERS": "0",
        "SCHMIER_DEFAULT_BOT": "normal",
        "SCHMIER_FRAME_RATE": "1000",
        "SCHMIER_FRAME_BURST": "1000",
        "SCHMIER_LOG_LEVEL": "DEBUG",
    }
    server, process = start_subprocess_server(env, log)
    lock = None
    try:
        api = ClubApi(server)
        club, _admin = await api.create("Stop club")  # the schema is there: it answered
        _ann, key = await api.join(club, "Ann")
        room = await api.room(club, key, "wisconsin4", {"target": 5})
        table = await club_table(server, room, {0: key}, "wisconsin4")
        # The test takes the file's write lock: the game's write will wait for it.
        lock = sqlite3.connect(database, timeout=0, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        final = await play_to_end(table, "stopped")
        for client in table.values():
            await client.close()

        async def claimed() -> bool:
            return bool(await raw_redis.keys(f"{redis_prefix}archive:claim:*"))

        # The archive has taken the game on: its write waits for the file now.
        await wait_until(claimed, "claimed by the archive")
        await asyncio.sleep(0.5)
        process.send_signal(signal.SIGTERM)

        async def reached() -> bool:
            return stop_reached(log, "archive")

        await wait_until(reached, "stopping the archive")
        await asyncio.sleep(0.5)  # the stop is under way while the write still waits
        assert process.poll() is None, "the stop went past a write that could not be done"
        lock.rollback()
        lock.close()
        lock = None
        try:
            status = await asyncio.to_thread(process.wait, shutdown.STACKS_AFTER + 15)
        except subprocess.TimeoutExpired:
            process.kill()
            raise AssertionError(log.read_text(errors="replace")[-20_000:]) from None
        assert status in (0, -signal.SIGTERM)
    finally:
        if lock is not None:
            lock.close()
        server.stop()
    text = log.read_text(errors="replace")
    assert "archive.stop_cut" not in text
    # The game was archived, once, with its result.
    with sqlite3.connect(database) as archive:
        rows = archive.execute("SELECT room, winners FROM games").fetchall()
    assert [room_code for room_code, _ in rows] == [room], text[-5000:]
    assert "server.stop " in text or "server.stop seconds=" in text
    assert final["winners"]
