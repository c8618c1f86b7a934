"""The clubs' HTTP API (docs/protocol.md, "Clubs"): clubs, members, their rooms, the
archive of their games, standings, ratings and the export.

Every call names a club by its code. An unknown (or malformed) code answers 404 before
any key is looked at; a missing or wrong key 401; a member's key where the admin's is
needed 403. Each of those counts as a failed look-up of the address (the guessing
guard). Keys come only as `Authorization: Bearer <key>`, are never logged, and are
compared by their SHA-256 in constant time (`ledger.secrets`). Every call is also
counted against its club's budget (`SCHMIER_CLUB_RATE`), creations and joins against
the address's. A request is one transaction: refused input changes nothing.
"""

from __future__ import annotations

import asyncio
import csv
import datetime as dt
import io
from collections.abc import AsyncIterator
from typing import Any

import orjson
from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.responses import StreamingResponse

from schmier import engine
from schmier.api.clubaccess import (
    club_access,
    failed,
    service_of,
    too_many,
)
from schmier.api.http import _Route, client_address
from schmier.engine.bots import levels
from schmier.ledger import clubs, games
from schmier.ledger.clubs import NameTaken
from schmier.ledger.ratings import Entity
from schmier.ledger.secrets import valid_member_id
from schmier.ledger.standings import standings
from schmier.logs import event
from schmier.protocol import (
    ClubCreated,
    ClubGame,
    ClubGameHands,
    ClubInfo,
    CreateClub,
    CreateRoom,
    MemberJoined,
    MemberName,
    RoomCreated,
    Standings,
)
from schmier.protocol.vocabulary import Variant
from schmier.store import StoreError

ROOMS_LISTED = 20
"""The newest rooms of a club that `GET /api/clubs/{code}` lists."""
GAME_ID_MAX = 64


router = APIRouter(route_class=_Route)


@router.post("/api/clubs", status_code=201, response_model=ClubCreated)
async def create_club(body: CreateClub, request: Request) -> dict[str, Any]:
    """A new club: its code (the invite link is `/c/{code}`) and its admin key."""
    service = service_of(request)
    if not await service.limits.create.take(client_address(request)):
        raise too_many()
    async with service.begin() as conn:
        code, admin_key = await clubs.create(conn, body.name)
    event("club.created", club=code)
    return {"code": code, "admin_key": admin_key, "name": body.name}


@router.post("/api/clubs/{code}/members", status_code=201, response_model=MemberJoined)
async def join_club(code: str, body: MemberName, request: Request) -> dict[str, Any]:
    """Anyone with the club's code joins under a name: the member id and key."""
    if not await service_of(request).limits.join.take(client_address(request)):
        raise too_many()
    async with club_access(request, code, key=False) as (conn, club, _):
        try:
            member, key = await clubs.join(conn, club.code, body.name)
        except NameTaken:
            raise HTTPException(409, "a member of that name exists") from None
    event("club.joined", club=club.code, member=member)
    return {"member": member, "key": key, "name": body.name}


@router.get("/api/clubs/{code}", response_model=ClubInfo)
async def club_info(code: str, request: Request) -> dict[str, Any]:
    """The club: its members, its rooms still open, and who the key is."""
    rooms = service_of(request).rooms
    async with club_access(request, code) as (conn, club, who):
        assert who is not None
        listed = await clubs.rooms(conn, club.code, ROOMS_LISTED)
        members = await clubs.present(conn, club.code)
    found, gone = [], []
    for room in listed:
        try:
            record = await rooms.record(room)
        except StoreError:
            raise HTTPException(503, "store unavailable") from None
        if record is None or record.club != club.code:
            gone.append(room)
        else:
            found.append({"code": room, "variant": record.variant, "phase": record.phase})
    if gone:
        async with service_of(request).begin() as conn:
            await clubs.forget_rooms(conn, club.code, gone)
    return {
        "code": club.code,
        "name": club.name,
        "members": members,
        "rooms": found,
        "you": {"member": who.member, "name": who.name, "admin": who.admin},
    }


@router.patch("/api/clubs/{code}")
async def rename_club(code: str, body: CreateClub, request: Request) -> dict[str, Any]:
    """The admin renames the club."""
    async with club_access(request, code, admin=True) as (conn, club, _):
        await clubs.rename(conn, club.code, body.name)
    return {"code": club.code, "name": body.name}


@router.post("/api/clubs/{code}/rooms", status_code=201, response_model=RoomCreated)
async def create_club_room(code: str, body: CreateRoom, request: Request) -> dict[str, Any]:
    """A room of the club: its finished games count for the club."""
    service = service_of(request)
    if not await service.limits.create.take(client_address(request)):
        raise too_many()
    try:
        rules = engine.make_rules(body.variant, body.rules)
    except engine.RulesError as exc:
        raise HTTPException(422, str(exc)) from None
    async with club_access(request, code) as (conn, club, _):
        try:
            record = await service.rooms.create(body.variant, rules, club=club.code)
        except StoreError:
            raise HTTPException(503, "store unavailable") from None
        await clubs.add_room(conn, club.code, record.code, record.variant)
    return {"code": record.code, "variant": record.variant, "rules": engine.rules_to_json(rules)}


def _member_query(member: str | None) -> str | None:
    if member is not None and not valid_member_id(member):
        raise HTTPException(422, "member must be a member id")
    return member


def _moment(raw: str | None, what: str) -> int | None:
    """An ISO-8601 date or time (UTC unless it says) as Unix milliseconds."""
    if raw is None:
        return None
    try:
        moment = dt.datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise HTTPException(422, f"{what} must be an ISO-8601 date or time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return int(moment.timestamp() * 1000)


@router.get("/api/clubs/{code}/games", response_model=list[ClubGame])
async def club_games(
    code: str,
    request: Request,
    variant: Variant | None = None,
    member: str | None = Query(None, max_length=16),
    before: str | None = Query(None, max_length=40),
    after: str | None = Query(None, max_length=40),
    limit: int = Query(50, ge=1, le=200),
) -> list[dict[str, Any]]:
    """The club's archived games, newest first: of one game, with one member, finished
    before or after a moment; `limit` of them."""
    wanted = _member_query(member)
    until, since = _moment(before, "before"), _moment(after, "after")
    async with club_access(request, code) as (conn, club, _):
        names = await clubs.names(conn, club.code)
        return await games.listed(
            conn,
            club.code,
            names,
            variant=variant,
            member=wanted,
            before=until,
            after=since,
            limit=limit,
        )


@router.get("/api/clubs/{code}/games/{game}", response_model=ClubGameHands)
async def club_game(code: str, game: str, request: Request) -> dict[str, Any]:
    """An archived game of the club with every hand's record (as the room served it)."""
    async with club_access(request, code) as (conn, club, _):
        names = await clubs.names(conn, club.code)
        found = None if len(game) > GAME_ID_MAX else await games.one(conn, club.code, game, names)
    if found is None:
        raise HTTPException(404, "no such game in this club's archive")
    return found


@router.delete("/api/clubs/{code}/games/{game}", status_code=204)
async def delete_club_game(code: str, game: str, request: Request) -> Response:
    """The admin deletes a game from the club's archive (its hands with it)."""
    async with club_access(request, code, admin=True) as (conn, club, _):
        gone = len(game) <= GAME_ID_MAX and await games.delete(conn, club.code, game)
    if not gone:
        raise HTTPException(404, "no such game in this club's archive")
    event("club.game_deleted", club=club.code, game=game)
    return Response(status_code=204)


def _namer(names: dict[str, str]) -> Any:
    def name(who: Entity) -> str:
        kind, ident = who
        if kind == "member":
            return names.get(ident, clubs.FORMER_MEMBER)
        return levels.level(ident).label if ident in levels.BY_NAME else ident

    return name


async def _standings(request: Request, code: str, variant: str) -> dict[str, Any]:
    async with club_access(request, code) as (conn, club, _):
        names = await clubs.names(conn, club.code)
        results = await games.results(conn, club.code, variant)
    # Off the event loop: a club with years of games makes this a few thousand rows.
    return await asyncio.to_thread(standings, results, _namer(names))


@router.get("/api/clubs/{code}/standings", response_model=Standings)
async def club_standings(code: str, request: Request, variant: Variant) -> dict[str, Any]:
    """Standings in one game: players (members and bot levels) with their rating,
    partnerships, head to head, and each player's rating after each game."""
    return await _standings(request, code, variant)


CSV_COLUMNS = (
    "name", "member", "bot", "games", "wins", "win_rate", "rating",
    "points_per_hand", "hands", "bids", "made", "set",
)  # fmt: skip


def _cell(value: Any) -> str:
    """A CSV cell that no spreadsheet takes for a formula (names are user text)."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@router.get("/api/clubs/{code}/standings.csv")
async def club_standings_csv(code: str, request: Request, variant: Variant) -> Response:
    """The players' standings in one game as CSV (UTF-8, a header row)."""
    table = await _standings(request, code, variant)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in table["players"]:
        writer.writerow([_cell(row[column]) for column in CSV_COLUMNS])
    name = f"standings-{variant}.csv"
    return Response(
        out.getvalue().encode("utf-8"),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.get("/api/clubs/{code}/export")
async def club_export(code: str, request: Request) -> StreamingResponse:
    """The whole club as JSON: the club, its members (present and former) and every
    archived game with its hands, streamed a game at a time."""
    async with club_access(request, code) as (conn, club, _):
        members = await clubs.present(conn, club.code)
        names = await clubs.names(conn, club.code)
    database = service_of(request).db
    head = orjson.dumps(
        {
            "club": {"code": club.code, "name": club.name},
            "members": members,
            "former_members": [
                {"member": m, "name": n} for m, n in names.items()
                if m not in {p["member"] for p in members}
            ],
            "exported_at": games.iso(clubs.now_ms()),
        }
    )  # fmt: skip

    async def body() -> AsyncIterator[bytes]:
        yield head[:-1] + b',"games":['
        first = True
        async with database.engine.connect() as stream:
            async for game in games.every(stream, club.code, names):
                yield (b"" if first else b",") + orjson.dumps(game)
                first = False
        yield b"]}"

    filename = f"club-{club.code}.json"
    return StreamingResponse(
        body(),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


async def _member_target(request: Request, raw: str) -> str:
    if not valid_member_id(raw):
        await failed(request, "no such member")
    return raw


@router.patch("/api/clubs/{code}/members/{member}")
async def rename_member(
    code: str, member: str, body: MemberName, request: Request
) -> dict[str, Any]:
    """A member renames themself (or the admin renames a member)."""
    target = await _member_target(request, member)
    async with club_access(request, code) as (conn, club, who):
        assert who is not None
        if not who.admin and who.member != target:
            raise HTTPException(403, "a member may rename only themself")
        if not await clubs.is_present(conn, club.code, target):
            raise HTTPException(404, "no such member")
        try:
            await clubs.rename_member(conn, club.code, target, body.name)
        except NameTaken:
            raise HTTPException(409, "a member of that name exists") from None
    return {"member": target, "name": body.name}


@router.delete("/api/clubs/{code}/members/{member}", status_code=204)
async def remove_member(code: str, member: str, request: Request) -> Response:
    """The admin removes a member, or a member leaves: the key stops working at once,
    and the archive calls the member "former member" from then on."""
    target = await _member_target(request, member)
    async with club_access(request, code) as (conn, club, who):
        assert who is not None
        if not who.admin and who.member != target:
            raise HTTPException(403, "only the club's admin key may remove another member")
        if not await clubs.is_present(conn, club.code, target):
            raise HTTPException(404, "no such member")
        await clubs.remove(conn, club.code, target)
    event("club.member_removed", club=club.code, member=target, own=not who.admin)
    return Response(status_code=204)
