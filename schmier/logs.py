"""Logging: one line per event, plain or JSON, never a token or a card.

Events are logged through `event(name, **fields)` with explicit, non-secret fields
(room code, seat, action type, counts), so a careless `repr` of a frame or a state can
never put a hand or a token into the logs: nothing calls `log` with those objects.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from typing import Any

LOGGER = logging.getLogger("schmier")


class JsonFormatter(logging.Formatter):
    """One JSON object per line, for log shippers."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class PlainFormatter(logging.Formatter):
    """`time level event key=value ...`, for people reading a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        fields = getattr(record, "fields", None)
        tail = ""
        if isinstance(fields, dict):
            tail = "".join(f" {k}={v}" for k, v in fields.items())
        line = f"{self.formatTime(record)} {record.levelname} {record.getMessage()}{tail}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class NoFrameTrace(logging.Filter):
    """Drops the WebSocket library's trace of every frame (`< TEXT '{...}'`).

    At DEBUG the `websockets` protocol logs each frame it sends and receives, payload
    included, through the logger uvicorn hands it (`uvicorn.error`): that would put every
    hello's token and every seat's hand into the logs. Those lines are dropped; the
    rest of uvicorn's debug output (connections opened and closed) stays.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.msg
        return not (
            record.levelno <= logging.DEBUG
            and isinstance(message, str)
            and message[:2] in ("< ", "> ")
        )


FRAME_TRACE_LOGGERS = ("uvicorn.error", "websockets", "websockets.server", "websockets.client")
_NO_FRAME_TRACE = NoFrameTrace()


def configure(json_lines: bool, level: str) -> None:
    """Send the server's logs to stderr in the chosen format (idempotent).

    Also keeps the WebSocket frame trace out of every log (see `NoFrameTrace`); the
    filter sits on the loggers themselves, which uvicorn's own logging configuration,
    applied afterwards, leaves in place.
    """
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if json_lines else PlainFormatter())
    LOGGER.handlers[:] = [handler]
    LOGGER.setLevel(level.upper())
    LOGGER.propagate = False
    for name in FRAME_TRACE_LOGGERS:
        logger = logging.getLogger(name)
        if _NO_FRAME_TRACE not in logger.filters:
            logger.addFilter(_NO_FRAME_TRACE)


def event(name: str, level: int = logging.INFO, **fields: Any) -> None:
    """Log one event; `fields` must be non-secret scalars (codes, seats, counts)."""
    if LOGGER.isEnabledFor(level):
        LOGGER.log(level, name, extra={"fields": fields})


def failure(name: str, **fields: Any) -> None:
    """Log an unexpected exception with its traceback (which holds no frame payloads)."""
    LOGGER.error(name, extra={"fields": fields}, exc_info=True)


def fault_of(
    task: asyncio.Future[Any],
    name: str,
    expected: tuple[type[BaseException], ...],
    **fields: Any,
) -> None:
    """Mark the outcome of a task its callers await through a shield as seen, logging
    it only when it is a fault (`failure`, as `name`).

    A caller cancelled while it waits (a socket gone, a room pausing) takes the shield's
    callback off the task; a failure then reaches nobody, and asyncio would log it as a
    "Task exception was never retrieved" traceback. A failure of an `expected` kind (an
    outage, a stop) is for the callers still waiting to report; any other is a fault,
    logged here in case no caller is left to."""
    if task.cancelled():
        return
    try:
        task.result()
    except expected:
        pass
    except Exception:
        failure(name, **fields)


def failure_unless_outage(name: str, **fields: Any) -> None:
    """`failure`, except for the store being unreachable (an exception whose class says
    `outage = True`): that is logged once when it starts and once when it ends, by the
    store's health (schmier/store/health.py), never once per retry."""
    if not getattr(sys.exc_info()[1], "outage", False):
        failure(name, **fields)
