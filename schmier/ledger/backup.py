"""A consistent copy of the SQLite archive while the server runs (`schmier backup FILE`).

SQLite's online backup API copies the database page by page and starts again should a
write come in between, so the copy is a snapshot of one moment, never a torn file;
copying `schmier.db` with `cp` while the server writes (and the write-ahead log beside
it) is not. For PostgreSQL, `pg_dump` does the same (docs/archive.md, "Backups").
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy.engine import make_url


def sqlite_file(url: str) -> Path:
    """The file of a SQLite archive URL; ValueError for any other database."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        raise ValueError("`schmier backup` copies a SQLite archive; use pg_dump for PostgreSQL")
    return Path(parsed.database)


def backup(url: str, target: Path) -> int:
    """Copy the SQLite archive at `url` to `target` (a new file); its size in bytes."""
    source_file = sqlite_file(url)
    if not source_file.is_file():
        raise FileNotFoundError(f"no archive at {source_file}")
    if target.exists():
        raise FileExistsError(f"{target} exists; back up to a new file")
    source = sqlite3.connect(f"file:{source_file}?mode=ro", uri=True)
    copy = sqlite3.connect(target)
    try:
        with copy:
            source.backup(copy)
    finally:
        copy.close()
        source.close()
    return target.stat().st_size
