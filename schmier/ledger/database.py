"""The archive's database: which one (SQLite under the data directory, or the URL an
operator gives), its connections, its migrations, and its failures told apart.

SQLAlchemy 2's asyncio engine runs on aiosqlite (SQLite) or asyncpg (PostgreSQL), so the
event loop never waits on a query; Alembic migrates the schema at start-up (and through
`schmier migrate`). docs/archive.md argues the choice.

A database that cannot be reached is an outage, not a bug: `DatabaseUnavailable`. The
tables never wait for the archive (it is written behind the game, through the store's
outbox), so an outage only delays the archive and makes the club pages answer 503.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

import orjson
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy import event as sa_event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from schmier.logs import event, failure
from schmier.shutdown import finish_or_cut

VERSION_TABLE = "schmier_schema_version"
"""Alembic's record of the schema's version (not `alembic_version`, so that the archive
can share a database or schema with another application's Alembic)."""

MIGRATION_LOCK = 36_036_036
"""The PostgreSQL advisory lock that lets one instance at a time migrate."""

RETRY_SECONDS = (0.5, 1.0, 2.0, 5.0)
"""Waits between attempts to migrate a database that does not answer (then the last)."""

STOP_GRACE = 15.0
"""Seconds a stopping server lets a database call in hand (a migration, an archive
write) take before it cancels it: longer than SQLite's wait for a busy file (10 s,
`_sqlite_pragmas`). Cancelling is the last resort (`shutdown.finish_or_cut`)."""


class DatabaseUnavailable(Exception):
    """The database cannot be reached or cannot serve now (refused, lost, timed out)."""


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def alembic_config() -> Config:
    """Alembic's configuration, without an ini file: the scripts in this package."""
    config = Config()
    config.set_main_option("script_location", "schmier.ledger:migrations")
    config.set_main_option("version_table", VERSION_TABLE)
    return config


def _upgrade(connection: sa.Connection, target: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, target)


LOCK_POLL_SECONDS = 0.1
"""How often a migration waiting for another process's file lock tries it again."""


class _Stopped(Exception):
    """The server stopped while the migration waited for its turn: it never began."""


def _try_lock(handle: IO[bytes]) -> bool:
    """Take the exclusive lock on `handle`'s file if no other process holds it."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """Every SQLite connection: write-ahead log (readers never wait for the writer),
    foreign keys enforced (cascades), and a wait for a busy file instead of an error."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


class Database:
    """One database for this process: its engine, and whether its schema is ready."""

    def __init__(self, url: str) -> None:
        self.url = url
        parsed = make_url(url)
        self.dialect = parsed.get_backend_name()
        options: dict[str, Any] = {
            "json_serializer": _json,
            "json_deserializer": orjson.loads,
            "pool_pre_ping": True,
        }
        if self.dialect == "sqlite":
            if parsed.database and parsed.database != ":memory:":
                Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            options["connect_args"] = {"timeout": 30}
        else:
            options.update(pool_size=5, max_overflow=5, pool_timeout=10, pool_recycle=1800)
            options["connect_args"] = {"timeout": 5, "command_timeout": 30}
        self.engine: AsyncEngine = create_async_engine(url, **options)
        if self.dialect == "sqlite":
            sa_event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self.ready = asyncio.Event()
        """Set once the schema is migrated: until then the archive waits, the club
        pages answer 503."""
        self.up = True
        """Whether the last use of the database worked (logged once each way)."""
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    @property
    def where(self) -> str:
        """The database for the logs: its kind and place, never a password."""
        return make_url(self.url).render_as_string(hide_password=True)

    @asynccontextmanager
    async def begin(self) -> AsyncIterator[AsyncConnection]:
        """A connection in a transaction, committed at the end of the block (rolled
        back on an error); a failure to reach the database raises DatabaseUnavailable."""
        try:
            async with self.engine.begin() as connection:
                yield connection
        except (OperationalError, InterfaceError, OSError, TimeoutError) as exc:
            self.went_down(exc)
            raise DatabaseUnavailable(str(exc).splitlines()[0] if str(exc) else "") from exc
        except DBAPIError as exc:
            if exc.connection_invalidated:
                self.went_down(exc)
                raise DatabaseUnavailable("the connection was lost") from exc
            raise
        self.came_back()

    def went_down(self, exc: BaseException) -> None:
        """Tell the logs once that the database does not answer."""
        if self.up:
            self.up = False
            event("archive.database_down", logging.WARNING, database=self.where,
                  error=type(exc).__name__)  # fmt: skip

    def came_back(self) -> None:
        """Tell the logs once that it answers again."""
        if not self.up:
            self.up = True
            event("archive.database_up", database=self.where)

    async def migrate(self, target: str = "head") -> None:
        """Bring the schema to `target` with Alembic, one process at a time: on
        PostgreSQL under an advisory lock; on SQLite under a lock on a file beside the
        database (two processes on one file, which is unsupported but happens, would
        otherwise both create the tables)."""
        async with self._migration_lock(), self.begin() as connection:
            if self.dialect == "postgresql":
                await connection.execute(sa.text(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})"))
            await connection.run_sync(_upgrade, target)
        self.ready.set()

    @asynccontextmanager
    async def _migration_lock(self) -> AsyncIterator[None]:
        """On a SQLite file, an exclusive lock on `<file>.migrate-lock` for the block.

        Tried again every `LOCK_POLL_SECONDS` on the event loop, not awaited in a
        thread: a thread blocked in `flock` can be neither cancelled nor told about a
        stop, so a server stopped while another process migrated waited out the whole
        `STOP_GRACE` and then cut the task. A stop ends the wait at once (`_Stopped`):
        the migration had not begun."""
        database = make_url(self.url).database
        if self.dialect != "sqlite" or not database or database == ":memory:":
            yield
            return
        path = Path(f"{database}.migrate-lock")
        with path.open("ab") as handle:  # closing the file lets the lock go
            waiting = False
            while not _try_lock(handle):
                if not waiting:
                    waiting = True
                    event("archive.migrate_queued", database=self.where, lock=str(path))
                await self._pause(LOCK_POLL_SECONDS)
                if self._stopping.is_set():
                    raise _Stopped
            yield

    def start(self) -> None:
        """Migrate in the background, trying again while the database does not answer:
        the server starts (and its games go on) whatever the database does, and a
        request for the archive waits a moment for it (`wait_ready`)."""
        self._task = asyncio.get_running_loop().create_task(self._migrate_until_done())

    async def wait_ready(self, seconds: float) -> bool:
        """Whether the schema is ready, waiting up to `seconds` for it."""
        if not self.ready.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(seconds):
                    await self.ready.wait()
        return self.ready.is_set()

    async def _migrate_until_done(self) -> None:
        attempt = 0
        while not self._stopping.is_set():
            try:
                await self.migrate()
            except _Stopped:
                return
            except DatabaseUnavailable as exc:
                if attempt == 0:
                    event("archive.migrate_waiting", logging.WARNING, database=self.where,
                          error=type(exc.__cause__).__name__)  # fmt: skip
                attempt += 1
                await self._pause(RETRY_SECONDS[min(attempt, len(RETRY_SECONDS)) - 1])
                continue
            except Exception:
                # Not an outage (a migration that cannot run on this database): loud,
                # and tried again now and then rather than never.
                failure("archive.migrate_failed", database=self.where)
                await self._pause(RETRY_SECONDS[-1] * 6)
                continue
            event("archive.ready", database=self.where)
            return

    async def _pause(self, seconds: float) -> None:
        """Wait `seconds` before the next attempt, or until the server stops."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._stopping.wait()

    async def aclose(self) -> None:
        """Stop migrating and close every connection. A migration in hand is finished,
        not cancelled (a stop in the first seconds after an upgrade); no new attempt
        begins."""
        task = self._task
        if task is not None and not task.done():
            self._stopping.set()
            await finish_or_cut(task, STOP_GRACE, "archive.migrate_cut")
        await self.engine.dispose()
