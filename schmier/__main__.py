"""`python -m schmier` / `schmier`: run the server with uvicorn and the `SCHMIER_*` settings."""

from __future__ import annotations

from typing import Any

import uvicorn

from schmier.api import create_app
from schmier.api.slowclients import with_deadline
from schmier.config import Settings


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
    options: dict[str, object] = {
        "host": settings.host,
        "port": settings.port,
        "proxy_headers": settings.proxy_headers,
        "forwarded_allow_ips": settings.forwarded_allow_ips,
        "ws_max_size": settings.max_frame,
        # Per-message deflate roughly halves WebSocket throughput for frames this small
        # (a view is a few hundred bytes) and costs memory per connection: off.
        "ws_per_message_deflate": False,
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


def main() -> None:
    """Start the server and block until it is stopped (SIGINT / SIGTERM)."""
    settings = Settings()
    uvicorn.Server(uvicorn_config(settings)).run()


if __name__ == "__main__":
    main()
