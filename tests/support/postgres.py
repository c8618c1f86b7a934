"""A real PostgreSQL for the archive's tests.

- `postgres_url`: the server on 127.0.0.1:5432 (trust auth, user postgres; or
  SCHMIER_TEST_POSTGRES_URL), checked to answer; skipped, or failed when
  SCHMIER_TEST_REQUIRE names `postgres`, when it does not.
- `pg_database`: a database of this test's own on it (its URL), dropped afterwards.
- `archive`: each archive in turn, SQLite and PostgreSQL, as `Settings` overrides.
- `PostgresServer`: a PostgreSQL of a test's own (initdb into a temporary directory,
  `postgres` on a free port, stopped by its PID), for the tests that stop the database.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from tests.support.requirements import missing
from tests.support.servers import free_port

POSTGRES_URL = os.environ.get(
    "SCHMIER_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)


def psql(url: str, *commands: str) -> None:
    """Run SQL with psql against `url` (autocommit, stop at the first error)."""
    args = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", url]
    for command in commands:
        args += ["-c", command]
    subprocess.run(args, check=True, capture_output=True, timeout=60)


def postgres_answers(url: str = POSTGRES_URL) -> str | None:
    """None when a PostgreSQL answers at `url`, else why not."""
    if shutil.which("psql") is None:
        return "psql is not installed (Debian's postgresql)"
    try:
        psql(url, "SELECT 1")
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        return f"no PostgreSQL at {url}: {detail.decode(errors='replace').strip()}"
    return None


@pytest.fixture(scope="session")
def postgres_url() -> str:
    problem = postgres_answers()
    if problem:
        missing("postgres", problem)
    return POSTGRES_URL


def _database_url(server_url: str, name: str) -> str:
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


@pytest.fixture
def pg_database(postgres_url: str) -> Iterator[str]:
    """A database of this test's own: its URL; dropped (connections and all) after."""
    name = f"schmier_test_{uuid.uuid4().hex[:12]}"
    psql(postgres_url, f"CREATE DATABASE {name}")
    yield _database_url(postgres_url, name)
    psql(postgres_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(params=["sqlite", "postgres"])
def archive(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    """Each archive in turn, as server settings: SQLite in a directory of the test's own,
    then a PostgreSQL database of its own."""
    if request.param == "sqlite":
        return {"data_dir": str(tmp_path / "data")}
    return {"database_url": request.getfixturevalue("pg_database")}


def _bin(name: str) -> str:
    """A PostgreSQL server program: on PATH, else Debian's versioned directory."""
    found = shutil.which(name)
    if found:
        return found
    for directory in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (directory / name).is_file():
            return str(directory / name)
    missing("postgres", f"{name} is not installed (Debian's postgresql)")
    raise AssertionError("unreachable")


class PostgresServer:
    """A PostgreSQL cluster of the test's own on a free loopback port.

    `start()` runs `postgres` as a child process (so its PID is ours to stop), `stop()`
    stops exactly that process (SIGINT: a fast shutdown that ends every connection, as
    an operator's restart does) and waits for it; the data stays for the next start.
    """

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="schmier-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        user = {}
        if os.geteuid() == 0:
            # PostgreSQL refuses to run as root: run it as `nobody` in its own directory.
            import pwd

            entry = pwd.getpwnam("nobody")
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)
            user = {"user": entry.pw_uid, "group": entry.pw_gid}
        self._user = user
        subprocess.run(
            [_bin("initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8"],
            check=True,
            capture_output=True,
            timeout=120,
            **user,  # type: ignore[arg-type]
        )
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def database_url(self, name: str) -> str:
        return _database_url(self.url, name)

    def start(self) -> None:
        log = open(self.dir / "server.log", "ab")  # noqa: SIM115 - the child writes it
        self.process = subprocess.Popen(
            [_bin("postgres"), "-D", str(self.data), "-p", str(self.port), "-h", "127.0.0.1",
             "-k", str(self.dir), "-c", "fsync=off", "-c", "max_connections=50"],
            stdout=log,
            stderr=log,
            **self._user,  # type: ignore[arg-type]
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + 30
        while postgres_answers(self.url) is not None:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the test's PostgreSQL did not start")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def own_postgres(postgres_url: str) -> Iterator[PostgresServer]:
    """A PostgreSQL of this test's own, started, with a database `schmier`."""
    server = PostgresServer()
    try:
        server.start()
        psql(server.url, "CREATE DATABASE schmier")
        yield server
    finally:
        server.remove()
