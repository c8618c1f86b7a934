"""The archive's database on SQLite and on PostgreSQL: the migrations make exactly the
documented schema (and run as a command), a game is written once however often and by
however many writers, and the backups the docs describe restore every game."""

from __future__ import annotations

import asyncio
import fcntl
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from schmier.ledger import games
from schmier.ledger.backup import backup
from schmier.ledger.build import ArchivedGame, SeatResult
from schmier.ledger.database import VERSION_TABLE, Database
from schmier.ledger.schema import metadata
from schmier.ledger.urls import database_url
from tests.support.postgres import psql

REPO = Path(__file__).resolve().parents[1]


def url_of(archive: dict[str, Any]) -> str:
    return database_url(archive.get("database_url"), archive.get("data_dir", "."))


def a_game(game_id: str, hands: int = 3) -> ArchivedGame:
    seats = tuple(
        SeatResult(seat=k, name=f"P{k}", kind="human", member=None, bot=None, unit=k % 2,
                   won=k % 2 == 0, score=21 if k % 2 == 0 else 7, hands=hands, points=5,
                   bids=1, made=1, set=0)
        for k in range(4)
    )  # fmt: skip
    return ArchivedGame(
        id=game_id, room="abcdefghij", room_created=1.5, game=1, club=None,
        variant="wisconsin4", rules={"target": 21}, teams=[[0, 2], [1, 3]], scores=[21, 7],
        winners=[0], finished_at=1_700_000_000_000, seats=seats,
        records=tuple({"n": n, "game": 1, "seats": [], "note": "é✓"} for n in range(1, hands + 1)),
    )  # fmt: skip


def run_schmier(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "schmier", *args],
        cwd=REPO,
        env={**os.environ, **env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def env_of(archive: dict[str, Any]) -> dict[str, str]:
    if "database_url" in archive:
        return {"SCHMIER_DATABASE_URL": archive["database_url"]}
    return {"SCHMIER_DATA_DIR": archive["data_dir"]}


async def test_migrations_make_the_schema(archive: dict[str, Any]) -> None:
    database = Database(url_of(archive))
    try:
        await database.migrate()
        await database.migrate()  # again: nothing to do
        async with database.begin() as conn:
            diff = await conn.run_sync(
                lambda c: compare_metadata(
                    MigrationContext.configure(c, opts={"version_table": VERSION_TABLE}),
                    metadata,
                )
            )
            version = await conn.scalar(sa.text(f"SELECT version_num FROM {VERSION_TABLE}"))
        assert diff == [], "the migrations make exactly schema.py's tables"
        assert version == "0001"
    finally:
        await database.aclose()


def test_migrate_as_a_command(pg_database: str) -> None:
    """`schmier migrate` migrates the configured database and exits; nothing else is a
    command."""
    done = run_schmier({"SCHMIER_DATABASE_URL": pg_database}, "migrate")
    assert done.returncode == 0, done.stderr
    assert "up to date" in done.stdout and "postgresql+asyncpg" in done.stdout
    assert run_schmier({"SCHMIER_DATABASE_URL": pg_database}, "frobnicate").returncode != 0


async def test_a_game_is_written_once(archive: dict[str, Any]) -> None:
    first, second = Database(url_of(archive)), Database(url_of(archive))
    try:
        await first.migrate()
        await second.migrate()
        game = a_game("abcdefghij-1-x")

        async def write(db: Database) -> bool:
            async with db.begin() as conn:
                return await games.write(conn, game)

        # Two writers at once (two instances finishing one outbox entry), then again.
        results = await asyncio.gather(write(first), write(second))
        assert sorted(results) == [False, True]
        assert await write(first) is False
        async with first.begin() as conn:
            assert await games.count(conn, game.id) == 1
            hands = (await conn.execute(sa.text("SELECT count(*) FROM hands"))).scalar()
            seats = (await conn.execute(sa.text("SELECT count(*) FROM game_players"))).scalar()
        assert (hands, seats) == (3, 4)
    finally:
        await first.aclose()
        await second.aclose()


async def test_sqlite_migrations_take_turns(tmp_path: Path) -> None:
    """Two processes on one SQLite file migrate one after the other (a lock file), and
    one that waits for its turn has touched nothing yet."""
    url = database_url(None, str(tmp_path / "data"))
    database = Database(url)
    lock_file = Path(f"{sa.make_url(url).database}.migrate-lock")
    try:
        # The other process (an open file of its own: flock locks belong to it).
        with lock_file.open("ab") as other:
            fcntl.flock(other, fcntl.LOCK_EX)
            waiting = asyncio.create_task(database.migrate())
            await asyncio.sleep(0.5)
            assert not waiting.done()
            async with database.begin() as conn:
                tables = await conn.run_sync(lambda sync: sa.inspect(sync).get_table_names())
            assert tables == []
        await asyncio.wait_for(waiting, 60)  # its turn came when the other let go
        assert database.ready.is_set()
        async with database.begin() as conn:
            version = await conn.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}"))
            assert len(version.all()) == 1
    finally:
        await database.aclose()


def test_backup_refuses_what_it_cannot_copy_and_writes_nothing(tmp_path: Path) -> None:
    """`schmier backup` with a PostgreSQL archive, with no archive yet, or without a
    file: a clear message, exit status 1, and no file made."""
    copy = tmp_path / "copy.db"
    # No URL (whatever the shell running the tests has set): the data directory's file.
    empty = {"SCHMIER_DATABASE_URL": "", "SCHMIER_DATA_DIR": str(tmp_path / "empty")}
    refusals = [
        (
            {"SCHMIER_DATABASE_URL": "postgresql+asyncpg://127.0.0.1:1/none"},
            ("backup", str(copy)),
            "use pg_dump for PostgreSQL",
        ),
        (empty, ("backup", str(copy)), f"no archive at {tmp_path / 'empty'}"),
        (empty, ("backup",), "usage: schmier"),
    ]
    for env, args, said in refusals:
        done = run_schmier(env, *args)
        assert done.returncode == 1, (args, done.returncode, done.stderr)
        assert said in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
        assert not copy.exists()


async def test_sqlite_online_backup_while_writing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    database = Database(database_url(None, str(data)))
    await database.migrate()
    try:
        for i in range(20):
            async with database.begin() as conn:
                await games.write(conn, a_game(f"abcdefghij-{i}-x"))
        # `schmier backup` while the server's database is open (and written to).
        writer = asyncio.create_task(_keep_writing(database))
        copy = tmp_path / "copy.db"
        done = await asyncio.to_thread(
            run_schmier, {"SCHMIER_DATA_DIR": str(data)}, "backup", str(copy)
        )
        writer.cancel()
        await asyncio.gather(writer, return_exceptions=True)
        assert done.returncode == 0, done.stderr
        with pytest.raises(FileExistsError):  # never over an existing file
            backup(database.url, copy)
    finally:
        await database.aclose()
    with sqlite3.connect(copy) as restored:
        assert restored.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        ids = {row[0] for row in restored.execute("SELECT id FROM games")}
        hands = restored.execute("SELECT count(*) FROM hands").fetchone()[0]
    assert {f"abcdefghij-{i}-x" for i in range(20)} <= ids
    assert hands == 3 * len(ids), "every copied game has its hands: one moment, not torn"
    # The copy is an archive the server opens as it is.
    reopened = Database(f"sqlite+aiosqlite:///{copy}")
    try:
        await reopened.migrate()
        async with reopened.begin() as conn:
            assert await games.count(conn, "abcdefghij-0-x") == 1
    finally:
        await reopened.aclose()


async def _keep_writing(database: Database) -> None:
    i = 1000
    while True:
        async with database.begin() as conn:
            await games.write(conn, a_game(f"abcdefghij-{i}-x"))
        i += 1
        await asyncio.sleep(0)


async def test_pg_dump_and_restore(pg_database: str, postgres_url: str, tmp_path: Path) -> None:
    database = Database(database_url(pg_database, "."))
    await database.migrate()
    try:
        for i in range(5):
            async with database.begin() as conn:
                await games.write(conn, a_game(f"abcdefghij-{i}-x"))
    finally:
        await database.aclose()
    dump = tmp_path / "schmier.dump"
    subprocess.run(["pg_dump", "-Fc", "-f", str(dump), pg_database], check=True, timeout=120)
    restored_name = pg_database.rsplit("/", 1)[1] + "_restored"
    psql(postgres_url, f"CREATE DATABASE {restored_name}")
    restored_url = pg_database.rsplit("/", 1)[0] + "/" + restored_name
    try:
        subprocess.run(
            ["pg_restore", "--no-owner", "-d", restored_url, str(dump)], check=True, timeout=120
        )
        restored = Database(database_url(restored_url, "."))
        try:
            await restored.migrate()
            async with restored.begin() as conn:
                ids = (await conn.execute(sa.text("SELECT id FROM games ORDER BY id"))).scalars()
                assert list(ids) == [f"abcdefghij-{i}-x" for i in range(5)]
                record = await conn.scalar(sa.text("SELECT record FROM hands LIMIT 1"))
                assert record["note"] == "é✓"
        finally:
            await restored.aclose()
    finally:
        psql(postgres_url, f"DROP DATABASE IF EXISTS {restored_name} WITH (FORCE)")
