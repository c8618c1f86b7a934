"""A game's end as the room sees it: the number of each game, and the archive's outbox
entry committed with the change that ends one.

The archive (`schmier.ledger`, docs/archive.md) is written behind the game: the commit
that ends a game also puts an entry into the store's outbox, in the same atomic step
(`RoomStore.commit(..., finished=...)`), so a server killed right after still archives
that game once it is back, and a database that is slow or away never holds up a table.
The entry is small: who played and the result; the hands' records are folded from the
room's log when the entry is archived, exactly as `GET /api/rooms/{code}/hands/{n}`
makes them.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import orjson

from schmier import engine
from schmier.rooms.record import RoomRecord
from schmier.store import Finished, RoomStore

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _base36(number: int) -> str:
    digits = ""
    while True:
        number, rest = divmod(number, 36)
        digits = _DIGITS[rest] + digits
        if number == 0:
            return digits


def game_id(code: str, created: float, game: int) -> str:
    """The archive's id of game `game` of room `code`: the code and the game's number,
    and the room's creation second, because a code is free again once its room expired
    and a new room under it must not share ids with the old one's games."""
    return f"{code}-{game}-{_base36(max(int(created), 0))}"


def count_games(entries: list[bytes]) -> int:
    """The number of the game in play in a started room, from its log: 1, plus one per
    rematch (how `records.Book` numbers the games too)."""
    return 1 + sum(1 for raw in entries if orjson.loads(raw)["action"]["type"] == "rematch")


async def numbered(record: RoomRecord, store: RoomStore) -> RoomRecord:
    """`record` with the number of its game: as stored, or for a snapshot from before
    games were numbered (format 3 and older), counted from the room's log."""
    if record.game is not None:
        return record
    return replace(record, game=count_games(await store.read_log(record.code)))


def closing(before: RoomRecord, after: RoomRecord) -> tuple[RoomRecord, Finished | None]:
    """The next record numbered (`counted`), and the outbox entry of the game it ends."""
    numbered_after = counted(before, after)
    return numbered_after, entry(before, numbered_after, time.time())


def counted(before: RoomRecord, after: RoomRecord) -> RoomRecord:
    """`after` (the next record of the room `before`) with the number of its game: 1
    once the game starts, one more whenever a new game follows a finished one."""
    was, now = before.state, after.state
    if now is None or after.game is None:
        return after
    if was is None:
        return replace(after, game=1)
    if was.phase == "game_over" and now.phase != "game_over":
        return replace(after, game=after.game + 1)
    return after


def entry(before: RoomRecord, after: RoomRecord, now: float) -> Finished | None:
    """The outbox entry when the change from `before` to `after` ends a game; else None.

    It names the game (room, creation time, number, id), its club, when it ended, who
    sat where at the end (name, kind, bot level, club member) and the result. Nothing
    of a hand in play: the game is over.
    """
    state = after.state
    if state is None or state.phase != "game_over" or after.game is None:
        return None
    if before.state is not None and before.state.phase == "game_over":
        return None
    public = engine.public_view(state)
    gid = game_id(after.code, after.created, after.game)
    at_ms = int(now * 1000)
    body: dict[str, Any] = {
        "id": gid,
        "room": after.code,
        "created": after.created,
        "game": after.game,
        "club": after.club,
        "variant": after.variant,
        "rules": engine.rules_to_json(after.rules),
        "finished_at": at_ms,
        "players": [
            {
                "seat": k,
                "name": seat.name,
                "kind": seat.kind,
                "member": seat.member,
                "bot": seat.bot,
            }
            for k, seat in enumerate(after.seats)
        ],
        "teams": public["teams"],
        "scores": public["scores"],
        "winners": public["winners"],
    }
    return Finished(game=gid, at_ms=at_ms, payload=orjson.dumps(body))
