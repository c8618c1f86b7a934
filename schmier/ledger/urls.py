"""Where the archive's database is: the URL an operator gives, or a SQLite file in the
data directory. Apart from `database.py` so that the settings can check a URL at
start-up without loading the database machinery."""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

SQLITE_FILE = "schmier.db"


def default_data_dir() -> str:
    """`$XDG_DATA_HOME/schmier`, else `~/.local/share/schmier`."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "schmier")


def database_url(url: str | None, data_dir: str) -> str:
    """The SQLAlchemy URL: `url` with its asyncio driver (`postgresql://` becomes
    `postgresql+asyncpg://`, `sqlite://` `sqlite+aiosqlite://`), or without one, the
    SQLite file `schmier.db` in `data_dir`. ValueError for any other database."""
    if not url:
        return f"sqlite+aiosqlite:///{Path(data_dir).expanduser().resolve() / SQLITE_FILE}"
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise ValueError(f"not a database URL: {exc}") from None
    backend = parsed.get_backend_name()
    if backend in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+asyncpg")
    elif backend == "sqlite":
        parsed = parsed.set(drivername="sqlite+aiosqlite")
    else:
        raise ValueError(f"the archive runs on SQLite or PostgreSQL, not {backend!r}")
    return parsed.render_as_string(hide_password=False)
