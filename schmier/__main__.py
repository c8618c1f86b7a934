"""`python -m schmier` / `schmier`: run the server with uvicorn and the `SCHMIER_*` settings.

`schmier migrate` brings the archive's database schema up to date and exits (the server
also does it when it starts); `schmier backup FILE` copies a SQLite archive to FILE while
the server runs (docs/archive.md).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schmier.config import Settings

if TYPE_CHECKING:
    from types import FrameType

    import uvicorn


def uvicorn_log_config(settings: Settings) -> dict[str, Any]:
    """uvicorn's own loggers in the same format as the server's (JSON lines or plain)."""
    formatter = "schmier.logs.JsonFormatter" if settings.log_json else "schmier.logs.PlainFormatter"
    level = settings.log_level.upper()
    handler = {"handlers": ["stderr"], "level": level, "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"line": {"()": formatter}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "line",
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {"uvicorn": handler, "uvicorn.error": {"level": level}},
    }


def uvicorn_config(settings: Settings, **overrides: object) -> uvicorn.Config:
    """The uvicorn configuration every entry point (and the test servers) uses."""
    # Imported here: `schmier migrate` and `schmier backup` need neither.
    import uvicorn

    from schmier.api import create_app
    from schmier.api.connection import Connection
    from schmier.api.slowclients import with_deadline

    options: dict[str, object] = {
        "host": settings.host,
        "port": settings.port,
        "proxy_headers": settings.proxy_headers,
        "forwarded_allow_ips": settings.forwarded_allow_ips,
        "ws_max_size": settings.max_frame,
        # Per-message deflate roughly halves WebSocket throughput for frames this small
        # (a view is a few hundred bytes) and costs memory per connection: off.
        "ws_per_message_deflate": False,
        # A socket whose network died (a phone in a tunnel) answers no ping: it is
        # closed within interval + timeout, and the others see the player offline.
        "ws_ping_interval": settings.ws_ping_interval,
        "ws_ping_timeout": settings.ws_ping_timeout,
        # uvicorn's sans-I/O WebSocket protocol, each socket's pings in a place of its
        # own in the interval (sockets back together after a restart ping apart).
        "ws": Connection,
        # uvicorn's own HTTP protocol, with a deadline on request headers (slow clients).
        "http": with_deadline(settings.header_timeout),
        "log_level": settings.log_level.lower(),
        "log_config": uvicorn_log_config(settings),
        "access_log": False,
        "timeout_graceful_shutdown": 10,
        "lifespan": "on",
    }
    options.update(overrides)
    return uvicorn.Config(create_app(settings), **options)  # type: ignore[arg-type]


def server(settings: Settings) -> uvicorn.Server:
    """uvicorn's server, which arms `shutdown.dump_stacks_later` when it is asked to
    stop: a process that outlives its SIGTERM by that long says where it waits."""
    import uvicorn

    from schmier import shutdown

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if not self.should_exit:
                shutdown.dump_stacks_later()
            super().handle_exit(sig, frame)

    return Server(uvicorn_config(settings))


USAGE = "usage: schmier [migrate | backup FILE]"


async def _migrate(settings: Settings) -> None:
    from schmier.ledger.database import Database

    database = Database(settings.archive_url)
    try:
        await database.migrate()
    finally:
        await database.aclose()
    print(f"the archive's schema is up to date: {database.where}")


def main(argv: list[str] | None = None) -> None:
    """Start the server and block until it is stopped (SIGINT / SIGTERM), or run one
    of the commands."""
    args = sys.argv[1:] if argv is None else argv
    settings = Settings()
    if not args:
        server(settings).run()
    elif args == ["migrate"]:
        asyncio.run(_migrate(settings))
    elif len(args) == 2 and args[0] == "backup":
        from schmier.ledger.backup import backup

        try:
            size = backup(settings.archive_url, Path(args[1]))
        except (ValueError, OSError) as exc:
            sys.exit(f"schmier backup: {exc}")
        print(f"archive copied to {args[1]} ({size} bytes)")
    else:
        sys.exit(USAGE)


if __name__ == "__main__":
    main()
