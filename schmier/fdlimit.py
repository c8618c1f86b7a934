"""Open files: every WebSocket is one file descriptor, and the default limit is small.

Why: many systems start processes with a soft `RLIMIT_NOFILE` of 1,024, so a server
that would carry a thousand tables of six (6,000 sockets, plus its Redis pool) refuses
connections at about 170 tables with "Too many open files", a failure that looks like
anything but a limit. The hard limit is usually far higher, and any process may raise
its own soft limit up to it. So the server does that at start and says in its log how
many sockets it can hold; when even the hard limit is below what its settings need, it
warns with the command that raises it.
"""

from __future__ import annotations

import logging
import resource

from schmier.config import Settings
from schmier.logs import event

RESERVE = 64
"""Descriptors kept for everything but sockets: the listener, logs, the event loop's
own, Redis pub/sub and the commit connection."""

REDIS_POOL = 512
"""Connections the Redis store's pool may open (`RedisStore(max_connections=...)`)."""

WANTED_SOCKETS = 6000
"""Sockets a server should be able to hold without tuning: a thousand tables of six."""


def raise_soft_limit() -> tuple[int, int]:
    """Raise this process's soft limit of open files to its hard limit: (soft, hard).

    An infinite hard limit is capped at 1,048,576 (what Linux allows by default).
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    ceiling = hard if hard != resource.RLIM_INFINITY else 1 << 20
    if soft == resource.RLIM_INFINITY or soft >= ceiling:
        return soft, hard
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (ceiling, hard))
    except (ValueError, OSError):
        return soft, hard
    return ceiling, hard


def needed(settings: Settings) -> int:
    """Descriptors the settings imply for `WANTED_SOCKETS` sockets."""
    return WANTED_SOCKETS + RESERVE + (REDIS_POOL if settings.uses_redis else 0)


def check(settings: Settings) -> int:
    """Raise the soft limit, log it, warn when it is short; the sockets it allows."""
    soft, hard = raise_soft_limit()
    pool = REDIS_POOL if settings.uses_redis else 0
    sockets = max(0, soft - RESERVE - pool)
    want = needed(settings)
    if soft < want:
        event(
            "server.fd_limit_low",
            logging.WARNING,
            open_files=soft,
            hard=hard,
            sockets=sockets,
            wanted=want,
            fix=f"ulimit -n {want} (the hard limit too: ulimit -Hn, or LimitNOFILE= in systemd)",
        )
    else:
        event("server.fd_limit", open_files=soft, sockets=sockets)
    return sockets
