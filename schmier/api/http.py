"""The HTTP API: create, inspect and join rooms; health, metrics, the schema, the pages."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, NoReturn

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.routing import APIRoute

from schmier import __version__, engine
from schmier.api.statics import ClientFiles
from schmier.config import Settings
from schmier.engine.bots import levels
from schmier.limits import Budget, LocalBudget, SharedBudget
from schmier.metrics import Metrics
from schmier.protocol import (
    BotInfo,
    CreateRoom,
    HandRecord,
    HandSummary,
    Joined,
    JoinRoom,
    RoomCreated,
    RoomHistory,
    RoomInfo,
    protocol_schema,
)
from schmier.rooms import JoinRefused, Rooms, ShuttingDown, UnknownRoom
from schmier.rooms.analyses import game_accuracy
from schmier.rooms.codes import normalise_code
from schmier.rooms.history import room_history
from schmier.rooms.records import Book
from schmier.store import RedisStore, RoomStore, StoreError


def _printable(value: Any) -> Any:
    """`value` with every string made encodable as UTF-8 (lone surrogates escaped)."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list | tuple):
        return [_printable(v) for v in value]
    return value


class _Route(APIRoute):
    """A route whose 422 answers never echo the request and always encode.

    FastAPI's own handler puts each invalid input back into the answer; a JSON string
    holding a lone surrogate (`"\\ud800"`, which the JSON parser accepts) then cannot
    be encoded and the request ends in a 500. Answering with the location and message
    of each complaint only (no input) avoids both the crash and the echo.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as exc:
                detail = [
                    {
                        "type": _printable(error.get("type", "invalid")),
                        "loc": _printable(list(error.get("loc", ()))),
                        "msg": _printable(error.get("msg", "invalid")),
                    }
                    for error in exc.errors()
                ]
                return JSONResponse({"detail": detail}, status_code=422)

        return guarded


router = APIRouter(route_class=_Route)


class Limits:
    """The per-address budgets of one app: room creations, joins, failed look-ups (the
    last also spent by the WebSocket guessing guard, `security.py`)."""

    def __init__(self, create: Budget, join: Budget, failed: Budget) -> None:
        self.create = create
        self.join = join
        self.failed = failed

    @classmethod
    def for_store(cls, settings: Settings, store: RoomStore, metrics: Metrics) -> Limits:
        """Counted in Redis when the rooms are (shared by every instance), else here."""
        rates = {
            "create": settings.create_rate,
            "join": settings.join_rate,
            "failed": settings.lookup_fail_rate,
        }
        if isinstance(store, RedisStore):
            fallback = metrics.limit_fallbacks.inc
            budgets: dict[str, Budget] = {
                name: SharedBudget(store, name, rate, fallback) for name, rate in rates.items()
            }
        else:
            budgets = {name: LocalBudget(rate) for name, rate in rates.items()}
        return cls(budgets["create"], budgets["join"], budgets["failed"])


def client_address(request: Request) -> str:
    """The client's address (uvicorn's proxy-header support has already applied)."""
    return request.client.host if request.client else "unknown"


def _rooms(request: Request) -> Rooms:
    rooms: Rooms = request.app.state.rooms
    return rooms


def _limits(request: Request) -> Limits:
    limits: Limits = request.app.state.limits
    return limits


def _too_many() -> HTTPException:
    return HTTPException(429, "too many requests; try again in a minute", {"Retry-After": "60"})


async def _check_lookup(request: Request, raw: str) -> str:
    """The normalised code, counting failures.

    An address past its failed look-ups (`SCHMIER_LOOKUP_FAIL_RATE`) is not locked out
    of the rooms that exist, which its other players (a school, an office behind one
    address) are in: each of its look-ups costs a join (`SCHMIER_JOIN_RATE`) and is
    answered as usual for a room that exists, while an unknown room is a 429 (not a 404).
    So a guesser past the budget learns which codes exist no faster than it may join.
    """
    address = client_address(request)
    limits = _limits(request)
    if await limits.failed.exhausted(address) and not await limits.join.take(address):
        raise _too_many()
    code = normalise_code(raw)
    if code is None:
        await _unknown(request)
    return code


async def _unknown(request: Request) -> NoReturn:
    """404 for an unknown room, counted as a failed look-up; 429 past the budget."""
    if not await _limits(request).failed.take(client_address(request)):
        raise _too_many()
    raise HTTPException(404, "unknown room")


@router.post("/api/rooms", status_code=201, response_model=RoomCreated)
async def create_room(body: CreateRoom, request: Request) -> dict[str, Any]:
    """Create a room in its lobby; every rule not given gets its default."""
    if not await _limits(request).create.take(client_address(request)):
        raise _too_many()
    try:
        rules = engine.make_rules(body.variant, body.rules)
    except engine.RulesError as exc:
        raise HTTPException(422, str(exc)) from None
    try:
        record = await _rooms(request).create(body.variant, rules)
    except StoreError:
        raise HTTPException(503, "store unavailable") from None
    return {"code": record.code, "variant": record.variant, "rules": engine.rules_to_json(rules)}


@router.get("/api/rooms/{code}", response_model=RoomInfo)
async def room_info(code: str, request: Request) -> dict[str, Any]:
    """The room's seats and phase (public information only)."""
    normal = await _check_lookup(request, code)
    try:
        info = await _rooms(request).info(normal)
    except StoreError:
        raise HTTPException(503, "store unavailable") from None
    if info is None:
        await _unknown(request)
    return info


@router.post("/api/rooms/{code}/join", response_model=Joined)
async def join_room(code: str, body: JoinRoom, request: Request) -> dict[str, Any]:
    """Take a seat (an empty one, or a bot's: the newcomer takes over its hand).

    The join is counted first, so that a join from an address past its failed look-ups
    (see `_check_lookup`) costs one join, whether its room exists or not."""
    if not await _limits(request).join.take(client_address(request)):
        raise _too_many()
    normal = normalise_code(code)
    if normal is None:
        await _unknown(request)
    name, member = body.name, None
    try:
        if body.member_key is not None:
            name, member = await request.app.state.clubs.seat_member(
                request, normal, body.member_key
            )
        seat, token = await _rooms(request).join(normal, name, body.seat, member)
    except UnknownRoom:
        await _unknown(request)
    except JoinRefused as exc:
        raise HTTPException(exc.status, exc.detail) from None
    except ShuttingDown:
        raise HTTPException(503, "server shutting down") from None
    except StoreError:
        raise HTTPException(503, "store unavailable") from None
    return {"seat": seat, "token": token}  # no-store: `SecurityHeaders`


async def _book(request: Request, raw: str) -> Book:
    """The room's finished hands; 404 (counted as a failed look-up) for an unknown room."""
    normal = await _check_lookup(request, raw)
    try:
        book = await _rooms(request).archive.book(normal)
    except StoreError:
        raise HTTPException(503, "store unavailable") from None
    if book is None:
        await _unknown(request)
    return book


@router.get("/api/rooms/{code}/hands", response_model=list[HandSummary])
async def room_hands(code: str, request: Request) -> list[dict[str, Any]]:
    """Every finished hand of the room, oldest first (a hand in play is not one)."""
    return (await _book(request, code)).summaries()


@router.get(
    "/api/rooms/{code}/hands/{n}",
    response_model=HandRecord,
    responses={404: {"description": "unknown room, or no finished hand `n`"}},
)
async def hand_record(code: str, n: str, request: Request) -> dict[str, Any]:
    """The whole record of finished hand `n`: the deal and its proof, every hand as
    dealt, every action, the result. Any other `n` (the hand in play too) is a 404."""
    book = await _book(request, code)
    number = int(n) if n.isascii() and n.isdigit() and len(n) <= 9 else 0
    record = book.record(number)
    if record is None:
        raise HTTPException(404, "no finished hand with that number")
    return record


@router.get("/api/rooms/{code}/history", response_model=RoomHistory)
async def history(code: str, request: Request) -> dict[str, Any]:
    """The room's games with their score sheets, and each player name's statistics (and
    each game's accuracy per seat over its analysed hands)."""
    book = await _book(request, code)
    history = room_history(book)
    try:
        await game_accuracy(_rooms(request).store, book.code, history)
    except StoreError:
        raise HTTPException(503, "store unavailable") from None
    return history


@router.get("/healthz")
async def healthz(request: Request) -> Response:
    """200 only when the store answers (so a load balancer skips a cut-off instance).

    An outage is logged by the store itself, once (not once per health check)."""
    if await _rooms(request).store.ping():
        return JSONResponse({"status": "ok", "version": __version__})
    return JSONResponse({"status": "store unavailable", "version": __version__}, status_code=503)


@router.get("/livez")
async def livez() -> dict[str, str]:
    """The process answers (its event loop runs), whatever its store does: the probe
    after which a supervisor restarts a server, which a Redis outage must not trigger."""
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(request: Request) -> Response:
    """200 when this instance can take rooms now: its store answers, it is not shutting
    down, and (with Redis) it hears the other instances. A balancer sends new players
    only to ready instances; one that is not ready keeps the sockets it has."""
    rooms = _rooms(request)
    node = request.app.state.node
    problem = None
    if rooms.closing:
        problem = "shutting down"
    elif not await rooms.store.ping():
        problem = "store unavailable"
    elif node is not None and not node.listening_now:
        problem = "not subscribed to the cluster's bus"
    if problem is None:
        return JSONResponse({"status": "ready", "version": __version__})
    return JSONResponse({"status": problem, "version": __version__}, status_code=503)


@router.get("/api/version")
async def version() -> dict[str, str]:
    """The release this server runs (the same as in `/healthz` and `schmier_build_info`)."""
    return {"version": __version__}


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    """Prometheus text exposition, plus the event loop's live task count.

    The task count is computed here, at scrape time, because a leak of tasks (a socket
    writer or a room actor that never ends) is the slow failure a long-running server
    shows first; the soak run (`bench/soak.py`) watches it across a thousand games.
    """
    body: bytes = request.app.state.metrics.render()
    body += (
        b"# HELP schmier_asyncio_tasks Live asyncio tasks of the server's event loop.\n"
        b"# TYPE schmier_asyncio_tasks gauge\n"
        + f"schmier_asyncio_tasks {len(asyncio.all_tasks())}\n".encode()
    )
    return PlainTextResponse(body, media_type="text/plain; version=0.0.4; charset=utf-8")


@router.get("/api/variants")
async def variants() -> list[dict[str, Any]]:
    """The rule book of every game (deck, sides, points, trump orders, house rules), so a
    client or a bot reads the games as data instead of knowing them by name."""
    return engine.describe_all()


@router.get("/api/bots", response_model=list[BotInfo])
async def bots() -> list[dict[str, str]]:
    """The bots a room can seat, strongest first; the first is the server's default
    (it fills seats, plays for away players and answers hints)."""
    return [
        {"name": lvl.name, "label": lvl.label, "description": lvl.description}
        for lvl in levels.listed()
    ]


@router.get("/api/protocol.json")
async def protocol_json() -> dict[str, Any]:
    """JSON Schema of every frame and HTTP body."""
    return protocol_schema()


def web_directory() -> Path | None:
    """The browser client: inside the installed package, else the repository's `web/`."""
    import schmier as package

    here = Path(package.__file__).parent
    for candidate in (here / "web", here.parent / "web"):
        if (candidate / "index.html").is_file():
            return candidate
    return None


def page_routes(files: ClientFiles) -> APIRouter:
    """`/`, `/r/{code}`, `/r/{code}/h/{n}` (the review of a finished hand), `/rules/{game}`
    and `/c/{code}` (a club): the same single page, which reads what to show from the URL.
    `HEAD` answers as `GET` does (a monitor's or a link preview's check of the address)."""
    pages = APIRouter()

    def page(request: Request) -> Response:
        return files.answer(request, "index.html")

    @pages.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def home(request: Request) -> Response:
        return page(request)

    @pages.api_route("/r/{code}", methods=["GET", "HEAD"], include_in_schema=False)
    async def room_page(request: Request, code: str) -> Response:
        return page(request)

    @pages.api_route("/r/{code}/h/{n}", methods=["GET", "HEAD"], include_in_schema=False)
    async def hand_page(request: Request, code: str, n: str) -> Response:
        return page(request)

    @pages.api_route("/rules/{name}", methods=["GET", "HEAD"], include_in_schema=False)
    async def rules_page(request: Request, name: str) -> Response:
        return page(request)

    @pages.api_route("/c/{code}", methods=["GET", "HEAD"], include_in_schema=False)
    async def club_page(request: Request, code: str) -> Response:
        return page(request)

    @pages.api_route("/r/{rest:path}", methods=["GET", "HEAD"], include_in_schema=False)
    async def other_room_page(request: Request, rest: str) -> Response:
        # Any other address under /r/ (an encoded "/" in a code, a part too many) gets
        # the page too, which says there is no such room, rather than a bare JSON 404.
        return page(request)

    return pages
