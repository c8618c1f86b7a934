"""How each table played one deal (docs/protocol.md, "Another table"): a finished hand
of a room, and every practice room made from it that has played it out, side by side.

Why it is built from the records and not kept as results: every table's result is
already in its own hand's record (the original's book, and each practice room's, whose
first hand is the one played again), so the comparison is made when asked, from what is
public anyway, and a practice hand in play has no record yet: it can show nothing of it
but that it is being played (its table is counted in `playing`, nothing more, not even
its code, which would let anyone with the original's link sit down at a stranger's
table). A practice room is trusted to be one of this hand only when its snapshot says so
and its hand's deck is the original's (a room that expired and whose code came back as
another's is skipped).

The names at a practice table are those of its seats now (the joiners', "Bot k" for the
seats the bot played): its hand's record names who sat at the deal, nobody yet at a
table whose seats were open.
"""

from __future__ import annotations

from typing import Any

from schmier.rooms.archive import Archive
from schmier.rooms.record import RoomRecord
from schmier.store import RoomStore


def table_of(
    code: str, record: dict[str, Any], step: int, names: list[dict[str, Any]]
) -> dict[str, Any]:
    """One table's line: where, from which step, who sat where, and the result (the
    contract, made or set, each side's points and each seat's)."""
    result = record["result"]
    deltas = [int(d) for d in result["deltas"]]
    side = {int(k): i for i, team in enumerate(record["teams"]) for k in team}
    n = int(record["n"])
    return {
        "room": code,
        "hand": n,
        "record": f"/api/rooms/{code}/hands/{n}",
        "review": f"/r/{code}/h/{n}",
        "step": step,
        "seats": names,
        "teams": record["teams"],
        "bidder": result["bidder"],
        "bid": result["bid"],
        "made": result["made"],
        "deltas": deltas,
        "points": [deltas[side[k]] if k in side else 0 for k in range(len(names))],
    }


def _names(seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"seat": int(s["seat"]), "name": s.get("name"), "kind": s["kind"]} for s in seats]


async def comparison(
    store: RoomStore, archive: Archive, code: str, hand: dict[str, Any]
) -> dict[str, Any]:
    """`GET /api/rooms/{code}/hands/{n}/tables` of finished hand `hand` of room `code`:
    the original first, then each practice table that has played it out, oldest first."""
    n = int(hand["n"])
    tables = [{**table_of(code, hand, 0, _names(hand["seats"])), "original": True}]
    playing = 0
    for other in await store.tables_get(code, n):
        stored = await store.load(other)
        if stored is None:
            continue  # expired
        try:
            room = RoomRecord.from_bytes(stored.snapshot)
        except (ValueError, KeyError, TypeError):  # unreadable: as good as gone
            continue
        origin = room.practice
        if origin is None or (origin.room, origin.hand) != (code, n):
            continue
        book = await archive.book(other)
        played = None if book is None else book.record(1)
        if played is None:
            playing += 1
            continue
        if played["deal"]["deck"] != hand["deal"]["deck"]:
            continue
        names = _names(room.deal_seats())
        tables.append({**table_of(other, played, origin.step, names), "original": False})
    return {"room": code, "hand": n, "tables": tables, "playing": playing}
