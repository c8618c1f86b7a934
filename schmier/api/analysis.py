"""`GET /api/rooms/{code}/hands/{n}/analysis`: a finished hand weighed by the coach.

The hand is found as its record is (`http.hand_record`: an unknown room, the hand in play
and any other `n` are a 404 alike); the analysis is the server's `Analyses`
(`rooms.analyses`): 200 when done, 202 with the progress and a `Retry-After` while it is
computed, 429 with a `Retry-After` past the server's or the room's bound; with `start=0`
a 204 where it would have been started.
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import JSONResponse, Response

from schmier.api.http import _book, _Route
from schmier.rooms.analyses import POLL_SECONDS, Analyses, Refused
from schmier.store import StoreError

router = APIRouter(route_class=_Route)

JSON = "application/json"


@router.get(
    "/api/rooms/{code}/hands/{n}/analysis",
    responses={
        202: {"description": "being computed: its progress"},
        204: {"description": "`start=0` and nobody computes it"},
        404: {"description": "unknown room, or no finished hand `n`"},
        429: {"description": "past the server's or the room's bound on analyses"},
    },
)
async def hand_analysis(
    code: str, n: str, request: Request, start: str = Query("1", pattern="^[01]$")
) -> Response:
    """Every decision of finished hand `n` weighed by the search, with what its player
    knew and with all cards shown, and each player's loss and accuracy. `start=0` only
    looks: a 204 where the plain question would start the analysis (the hand summary
    shows an analysis somebody asked for without starting one itself)."""
    book = await _book(request, code)
    number = int(n) if n.isascii() and n.isdigit() and len(n) <= 9 else 0
    record = book.record(number)
    if record is None:
        raise HTTPException(404, "no finished hand with that number")
    analyses: Analyses = request.app.state.analyses
    try:
        status, body = await analyses.ask(book.code, record, start=start == "1")
    except Refused as exc:
        retry = {"Retry-After": str(exc.retry_after)}
        body = {"detail": exc.why, "retry_after": exc.retry_after}
        return JSONResponse(body, status_code=429, headers=retry)
    except StoreError:
        raise HTTPException(503, "store unavailable") from None
    if status == 204:
        return Response(status_code=204)
    headers: dict[str, Any] = {}
    if status == 202:
        headers["Retry-After"] = str(POLL_SECONDS)
    # orjson, not the standard library's encoder: a done analysis is every decision of
    # the hand with its options, and it is encoded on the event loop the players share.
    return Response(orjson.dumps(body), status_code=status, headers=headers, media_type=JSON)
