"""Who a call to the clubs' API is (docs/protocol.md, "Clubs"): the club its path names
and the key its `Authorization: Bearer` header carries, checked in the order the
protocol fixes (404 unknown club before any key, 401 no or wrong key, 403 a member where
the admin is needed), with the budgets (the address's failed look-ups, the club's own),
all in one transaction of the archive's database.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import NoReturn

from fastapi import HTTPException, Request
from sqlalchemy.ext.asyncio import AsyncConnection

from schmier.api.http import Limits, client_address
from schmier.config import Settings
from schmier.ledger import clubs
from schmier.ledger.clubs import Access, Club
from schmier.ledger.database import Database, DatabaseUnavailable
from schmier.ledger.secrets import normalise_club_code
from schmier.limits import Budget, LocalBudget, SharedBudget
from schmier.metrics import Metrics
from schmier.rooms import Rooms
from schmier.store import RedisStore, RoomStore

READY_WAIT = 5.0
"""Seconds a club call waits for the schema while the server is starting."""


class ClubService:
    """What the clubs' routes need, on `app.state.clubs`: the database, the rooms, the
    per-club budget, and the address budgets shared with the rooms' routes."""

    def __init__(
        self,
        database: Database,
        rooms: Rooms,
        limits: Limits,
        settings: Settings,
        store: RoomStore,
        metrics: Metrics,
    ) -> None:
        self.db = database
        self.rooms = rooms
        self.limits = limits
        self.per_club: Budget
        if isinstance(store, RedisStore):
            self.per_club = SharedBudget(
                store, "club", settings.club_rate, metrics.limit_fallbacks.inc
            )
        else:
            self.per_club = LocalBudget(settings.club_rate)

    async def seat_member(self, request: Request, room: str, key: str) -> tuple[str, str]:
        """The member a `member_key` seats in club room `room`: (name, member id).
        422 for a room of no club, 403 for a key that is no member's of its club."""
        record = await self.rooms.record(room)
        if record is None:
            await failed(request, "unknown room")
        if record.club is None:
            raise HTTPException(422, "member_key given for a room of no club")
        async with self.begin() as conn:
            club = await clubs.find(conn, record.club)
            who = None if club is None else await clubs.access(conn, club, key)
        if who is None or who.member is None or who.name is None:
            await self.limits.failed.take(client_address(request))
            raise HTTPException(403, "that is no member key of this room's club")
        return who.name, who.member

    @asynccontextmanager
    async def begin(self) -> AsyncIterator[AsyncConnection]:
        # Just started: the schema may be a moment away (migrated in the background).
        if not await self.db.wait_ready(READY_WAIT):
            raise HTTPException(503, "the archive's database is unavailable")
        try:
            async with self.db.begin() as conn:
                yield conn
        except DatabaseUnavailable:
            raise HTTPException(503, "the archive's database is unavailable") from None


def service_of(request: Request) -> ClubService:
    service: ClubService = request.app.state.clubs
    return service


def too_many() -> HTTPException:
    return HTTPException(429, "too many requests; try again in a minute", {"Retry-After": "60"})


async def failed(request: Request, detail: str, status: int = 404) -> NoReturn:
    """Refuse, counting a failed look-up of the address (the guessing guard)."""
    await service_of(request).limits.failed.take(client_address(request))
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    raise HTTPException(status, detail, headers)


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, key = header.partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        return None
    return key.strip()


@asynccontextmanager
async def club_access(
    request: Request, raw: str, *, key: bool = True, admin: bool = False
) -> AsyncIterator[tuple[AsyncConnection, Club, Access | None]]:
    """The club named in the path and who the request's key is in it, in one
    transaction: 429 past a budget, 404 unknown club, 401 no or wrong key, 403 a
    member where the admin is needed, 503 while the database is away."""
    service = service_of(request)
    address = client_address(request)
    if await service.limits.failed.exhausted(address):
        raise too_many()
    code = normalise_club_code(raw)
    if code is None:
        await failed(request, "unknown club")
    if not await service.per_club.take(code):
        raise too_many()
    async with service.begin() as conn:
        club = await clubs.find(conn, code)
        if club is None:
            await failed(request, "unknown club")
        who = None
        if key:
            presented = _bearer(request)
            who = None if presented is None else await clubs.access(conn, club, presented)
            if who is None:
                await failed(request, "a member or admin key is needed", 401)
            if admin and not who.admin:
                raise HTTPException(403, "only the club's admin key may do that")
        yield conn, club, who
