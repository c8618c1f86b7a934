"""A server stopped (SIGTERM) while its archive writes a game, or while it migrates the
archive's schema at start-up, finishes that write and exits: the database call in hand
is not cut off by a cancellation.

Why a test of its own: a cancellation in the middle of a SQLite write left the
connection holding the file's write lock with its close abandoned, the archive's task
went on (the cancellation was lost on the way) and the stop waited for it for ever (a
rolling-restart test once saw an instance outlive its SIGTERM that way). Here the test
holds the file's write lock itself while a game ends, so that the archive's write of it
waits for the file when the stop begins; the lock is let go only once the stop has
reached the archive (or the database, for the migration).

A server whose migration has not begun, because another process migrates the same
SQLite file, stops at once: the wait for that process's lock is not a call in hand.
"""

from __future__ import annotations

import asyncio
import fcntl
import signal
import sqlite3
import subprocess
from pathlib import Path

import redis.asyncio as aioredis
from alembic.script import ScriptDirectory

from schmier.ledger.database import VERSION_TABLE, alembic_config
from tests.support.clubs import ClubApi, club_table, play_to_end
from tests.support.cluster import cluster_env, stopped
from tests.support.servers import eventually, start_subprocess_server


def archive_env(redis_url: str, redis_prefix: str, database: Path) -> dict[str, str]:
    """An instance with a SQLite archive in `database` that logs each part it stops."""
    return {
        **cluster_env(redis_url, redis_prefix, "a"),
        "SCHMIER_DATABASE_URL": f"sqlite+aiosqlite:///{database}",
        "SCHMIER_BOT_WORKERS": "0",
        "SCHMIER_LOG_LEVEL": "DEBUG",
    }


def write_lock(database: Path) -> sqlite3.Connection:
    """A connection holding `database`'s write lock (until rolled back or closed)."""
    lock = sqlite3.connect(database, timeout=0, isolation_level=None)
    lock.execute("PRAGMA journal_mode=WAL")
    lock.execute("BEGIN IMMEDIATE")
    return lock


async def stop_while_it_waits(
    process: subprocess.Popen[bytes], log: Path, part: str, lock: sqlite3.Connection
) -> int:
    """SIGTERM the instance; once its stop has reached `part`, whose database call waits
    for the file, check that the stop waits too, and only then let the lock go. The
    exit status."""
    process.send_signal(signal.SIGTERM)

    async def reached() -> bool:
        return f"server.stopping part={part}" in log.read_text(errors="replace")

    await eventually(reached, timeout=60)
    await asyncio.sleep(0.5)  # the stop is under way while the call still waits
    assert process.poll() is None, f"the stop went past the {part}'s call, which could not end"
    lock.rollback()
    return await stopped(process, log)


async def test_a_stop_finishes_the_archive_write_in_hand(
    redis_url: str, redis_prefix: str, raw_redis: aioredis.Redis, tmp_path: Path
) -> None:
    database = tmp_path / "archive.db"
    log = tmp_path / "server.log"
    server, process = start_subprocess_server(archive_env(redis_url, redis_prefix, database), log)
    lock = None
    try:
        api = ClubApi(server)
        club, _admin = await api.create("Stop club")  # the schema is there: it answered
        _ann, key = await api.join(club, "Ann")
        room = await api.room(club, key, "wisconsin4", {"target": 5})
        table = await club_table(server, room, {0: key}, "wisconsin4")
        # The test takes the file's write lock: the game's write will wait for it.
        lock = write_lock(database)
        final = await play_to_end(table, "stopped")
        for client in table.values():
            await client.close()

        async def claimed() -> bool:
            return bool(await raw_redis.keys(f"{redis_prefix}archive:claim:*"))

        # The archive has taken the game on: its write waits for the file now.
        await eventually(claimed, timeout=60)
        await asyncio.sleep(0.5)
        assert await stop_while_it_waits(process, log, "archive", lock) in (0, -signal.SIGTERM)
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


async def test_a_stop_finishes_the_migration_in_hand(
    redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    database = tmp_path / "archive.db"
    log = tmp_path / "server.log"
    # The test holds the new file's write lock: the start-up migration waits for it.
    lock = write_lock(database)
    env = archive_env(redis_url, redis_prefix, database)
    server, process = start_subprocess_server(env, log)  # it answers: the migration waits
    try:
        assert await stop_while_it_waits(process, log, "database", lock) in (0, -signal.SIGTERM)
    finally:
        lock.close()
        server.stop()
    text = log.read_text(errors="replace")
    # SQLite gives up on a busy file after 10 s: the migration must have been in hand.
    assert "archive.migrate_waiting" not in text, "too slow a start to test the stop"
    assert "archive.migrate_cut" not in text
    assert "archive.ready" in text, text[-5000:]
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    with sqlite3.connect(database) as archive:
        versions = archive.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchall()
    assert versions == [(head,)]


async def test_a_stop_ends_the_wait_for_another_process_migration(
    redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    database = tmp_path / "archive.db"
    log = tmp_path / "server.log"
    # The test is the other process: it holds the file's migration lock, for ever.
    with (tmp_path / "archive.db.migrate-lock").open("ab") as other:
        fcntl.flock(other, fcntl.LOCK_EX)
        env = archive_env(redis_url, redis_prefix, database)
        server, process = start_subprocess_server(env, log)
        try:

            async def queued() -> bool:
                return "archive.migrate_queued" in log.read_text(errors="replace")

            await eventually(queued, timeout=60)
            process.send_signal(signal.SIGTERM)
            # While the lock is still held: a wait in a thread held the stop for the whole
            # grace, then was cut.
            assert await stopped(process, log) in (0, -signal.SIGTERM)
        finally:
            server.stop()
    text = log.read_text(errors="replace")
    assert "archive.migrate_cut" not in text  # nothing was in hand to cut
    assert "archive.ready" not in text, text[-5000:]
