"""Another table plays a finished hand's deal, and the tables that played it compared
(docs/protocol.md, "Another table").

`POST /api/rooms/{code}/hands/{n}/practice` makes a practice room of the deal (step 0)
whose seats are open to whoever joins it (`POST /api/rooms/{code}/join`): anyone with
the room's link may see the hand's record, so anyone with it may deal it again at a
table of their own. It makes a room of the server's, so it is counted against the
address's room creations (`SCHMIER_CREATE_RATE`) before anything else.
`GET /api/rooms/{code}/hands/{n}/tables` answers with each table's result
(`rooms.tables`). The hand is found as its record is (`http.hand_record`: an unknown
room, the hand in play and any other `n` are a 404 alike), so nothing of a hand in play
is reachable through either.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request

from schmier.api.http import _book, _limits, _rooms, _Route, _too_many, client_address
from schmier.protocol import DealTables, TableMade
from schmier.rooms import practice
from schmier.rooms.peers import Refused
from schmier.rooms.tables import comparison
from schmier.store import StoreError

router = APIRouter(route_class=_Route)

NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"description": "unknown room, or no finished hand `n`"}
}


async def _hand(request: Request, code: str, n: str) -> tuple[str, dict[str, Any]]:
    """The room's code and finished hand `n`'s record; 404 as for the record itself."""
    book = await _book(request, code)
    number = int(n) if n.isascii() and n.isdigit() and len(n) <= 9 else 0
    record = book.record(number)
    if record is None:
        raise HTTPException(404, "no finished hand with that number")
    return book.code, record


@router.post(
    "/api/rooms/{code}/hands/{n}/practice",
    status_code=201,
    response_model=TableMade,
    responses={
        **NOT_FOUND,
        409: {"description": "the deal has been played at all the tables it may"},
        429: {"description": "too many rooms made from this address"},
    },
)
async def another_table(code: str, n: str, request: Request) -> dict[str, Any]:
    """A practice room of finished hand `n`'s deal, from its start, with every seat open:
    another table plays the same cards; a seat nobody takes within the join grace
    (`SCHMIER_AUTOPLAY_AFTER`) is played by the default bot."""
    if not await _limits(request).create.take(client_address(request)):
        raise _too_many()
    room, record = await _hand(request, code, n)
    store = _rooms(request).store
    try:
        started = await practice.start(store, room, record, 0, [], open_seats=True)
    except practice.TablesFull as exc:
        raise HTTPException(409, exc.message) from None
    except Refused as exc:
        raise HTTPException(422, exc.message) from None
    except StoreError:
        raise HTTPException(503, "store unavailable") from None
    return {"code": started.code}


@router.get("/api/rooms/{code}/hands/{n}/tables", response_model=DealTables, responses=NOT_FOUND)
async def deal_tables(code: str, n: str, request: Request) -> dict[str, Any]:
    """How each table played finished hand `n`'s deal: the original, then every practice
    table that has played it out (their seats, contract, made or set, points)."""
    room, record = await _hand(request, code, n)
    rooms = _rooms(request)
    try:
        return await comparison(rooms.store, rooms.archive, room, record)
    except StoreError:
        raise HTTPException(503, "store unavailable") from None
