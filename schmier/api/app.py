"""The application factory: one FastAPI app per call, with its own store and rooms."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from schmier import __version__, fdlimit
from schmier.api.analysis import router as analysis_router
from schmier.api.clubaccess import ClubService
from schmier.api.clubs import router as club_router
from schmier.api.http import Limits, page_routes, router, web_directory
from schmier.api.install import install_routes
from schmier.api.security import SecurityHeaders, guarded_send
from schmier.api.statics import ClientFiles, static_routes
from schmier.api.tables import router as tables_router
from schmier.api.wireframes import FrameWriter
from schmier.api.ws import websocket_endpoint
from schmier.cluster import Node
from schmier.cluster.node import default_instance_id
from schmier.collector import Collector, HeapMetrics
from schmier.config import Settings
from schmier.engine.bots import levels
from schmier.ledger.archiver import Archiver
from schmier.ledger.database import Database
from schmier.logs import configure, event
from schmier.looplag import LoopLag
from schmier.metrics import Metrics
from schmier.rooms import Rooms
from schmier.rooms.analyses import Analyses
from schmier.shutdown import Part, stop_in_order
from schmier.store import RedisStore, RoomStore, open_store

SOCKET_PATH = re.compile(r"/ws/([^/]+)")
"""The table's socket, `/ws/{code}` (the code as the path gives it; the endpoint checks it)."""


class SchmierApp(FastAPI):
    """FastAPI, with the table's sockets served beneath its middleware and router.

    Why: a table's socket lives for the whole evening, and through FastAPI's stack it is
    a chain of some fifteen suspended coroutines (error and exception middleware, body
    limit, exit stacks, router, route, session wrappers) with their closures and a
    second `WebSocket`, a good part of the objects a connected socket held; every frame
    sent passes through each layer, and every full garbage collection walks them all
    (bench/results/2026-12-02-load-first-series.md). None of them does anything for a
    socket: the security headers are for HTTP answers, Starlette's error middleware
    re-raises for sockets (uvicorn then closes with 1011, as it still does), and the
    path has one parameter. What a socket needs from the stack, the guessing guard,
    runs here too (`guarded_send`). Every other request, and a socket on any other
    path, goes through FastAPI as before.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        code = _table_code(scope) if scope["type"] == "websocket" else None
        if code is None:
            await super().__call__(scope, receive, send)
            return
        scope["app"] = self
        # uvicorn's own `send`, before the guard wraps it: views are written to its
        # transport directly (schmier/api/wireframes.py).
        writer = FrameWriter.of(send)
        guarded = await guarded_send(scope, send)
        await websocket_endpoint(WebSocket(scope, receive, guarded), code, writer)


def _table_code(scope: Scope) -> str | None:
    """The room code a table socket's path names (as given: the endpoint checks it);
    None for any other path."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    found = SOCKET_PATH.fullmatch(path)
    return None if found is None else found.group(1)


def create_app(settings: Settings | None = None, *, store: RoomStore | None = None) -> SchmierApp:
    """A ready-to-serve app. `store` overrides the one the settings would open.

    Everything (store, rooms, metrics, limiters) hangs off `app.state`, nothing is
    global but the log's format and the default bot's name, so one process can run
    several servers (the tests do, all with the same default bot).
    """
    settings = settings or Settings()
    configure(settings.log_json, settings.log_level)
    levels.choose_default(settings.default_bot)
    own_store = store is None
    the_store = store or open_store(
        settings.redis_url,
        prefix=settings.redis_prefix,
        ttl_seconds=settings.room_ttl,
        sentinels=settings.sentinel_addresses,
        sentinel_master=settings.redis_sentinel_master,
        wait_replicas=settings.redis_wait_replicas,
        wait_ms=settings.redis_wait_ms,
        wait_strict=settings.redis_wait_strict,
    )
    metrics = Metrics()
    metrics.watch_store(the_store)
    rooms = Rooms(the_store, settings, metrics)
    node: Node | None = None
    if isinstance(the_store, RedisStore):
        # Redis may be shared by several instances: rooms are owned through leases and
        # reach each other's sockets over the bus (docs/scaling.md). One instance alone
        # works the same way, it simply always gets the lease.
        node = rooms.opener = Node(the_store, settings, rooms)

    # The archive: written behind the games through the store's outbox, never in their
    # way (docs/archive.md); the database is migrated in the background at start-up.
    database = Database(settings.archive_url)
    owner = node.instance if node is not None else default_instance_id()
    archiver = Archiver(the_store, rooms.archive, database, metrics, owner)
    limits = Limits.for_store(settings, the_store, metrics)
    analyses = Analyses(the_store, rooms.pool, settings)

    collector = Collector(
        settings.gc_step_ms / 1000,
        settings.gc_full_seconds,
        metrics.gc_pauses,
        growth=settings.gc_full_growth / 100,
        population=lambda: len(rooms.live) + metrics.open_sockets,
    )
    metrics.registry.register(HeapMetrics(collector, count_objects=settings.gc_count_objects))
    lag = LoopLag(metrics.loop_lag.observe)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        event("server.start", store=type(the_store).__name__)
        fdlimit.check(settings)
        try:
            collector.start()
            lag.start()
            if isinstance(the_store, RedisStore):
                await the_store.start()
            if node is not None:
                await node.start()
            rooms.pool.warm()
            database.start()
            archiver.start()
            yield
        finally:
            began = time.monotonic()
            parts: list[Part] = [
                ("loop lag", lag.aclose),
                ("collector", collector.aclose),
                ("analyses", analyses.close),
                *rooms.parts_to_stop(),
                ("archive", archiver.aclose),
                ("database", database.aclose),
            ]
            if node is not None:
                parts.append(("cluster", node.aclose))
            if own_store:
                parts.append(("store", the_store.aclose))
            await stop_in_order(parts)
            event("server.stop", seconds=round(time.monotonic() - began, 2))

    app = SchmierApp(
        title="Schmier",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.metrics = metrics
    app.state.rooms = rooms
    app.state.node = node
    app.state.limits = limits
    app.state.database = database
    app.state.archiver = archiver
    app.state.analyses = analyses
    app.state.clubs = ClubService(database, rooms, limits, settings, the_store, metrics)
    app.include_router(router)
    app.include_router(analysis_router)
    app.include_router(tables_router)
    app.include_router(club_router)
    web = web_directory()
    if web is not None:
        files = ClientFiles(web)
        app.include_router(page_routes(files))
        app.include_router(install_routes(web, files))
        app.include_router(static_routes(files))
    app.add_middleware(SecurityHeaders)
    return app
