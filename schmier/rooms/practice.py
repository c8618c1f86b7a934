"""Practice from a position (docs/protocol.md, "Practice from a position"): a finished
hand played again from any step, in a practice room of its own.

Why a room of its own rather than a mode of the same room: a practice room is an
ordinary room (its own code, log, snapshot, seats and tokens), so everything a room
does it does too, bots, timers, views, records, restarts and moves to another instance,
and what it can never do follows from its being another room: it cannot change the
original room's scores, records, history or archive (it writes none of them, and it
belongs to no club), and nothing of the original's hand in play can reach it (it is
made from a finished hand's record alone). Its own record keeps where it came from
(`RoomRecord.practice`), which stops it after that one hand (the clock deals no other,
no rematch is offered) and puts the original's result beside its own in the view. A
second `practice` from the same step is the reset to the branch point: a fresh room.

The practice room starts as the record says: the same variant and rules, the same deck
dealt by the same dealer, the seats under the same names, the scores as they were before
the hand, then the record's first `step` actions, each replayed through the engine and
logged, so the practice hand's own record (made from its log) starts as the original
did. The seats of the original room's people who are connected get a new token each,
sent to their sockets alone (`{"type": "practice", ...}`); every other seat is played by
the default bot, and a person who never comes is played for as any away player is.

Another table can play the same deal too (`POST /api/rooms/{code}/hands/{n}/practice`,
`open_seats`): its seats start empty, for whoever joins through the room's link, and a
seat nobody has taken when the join grace is over is played by the default bot (the
clock's `seat_due`), so a group of two can play a deal of four. Every practice room made
from a hand is counted with that hand (`RoomStore.table_add`, at most `TABLES_MAX`), so
how each table played it can be compared (`tables.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import orjson

from schmier import engine
from schmier.engine.bots import levels
from schmier.logs import event
from schmier.rooms.change import Change, Entry
from schmier.rooms.codes import hash_token, new_code, new_token
from schmier.rooms.fairness import NextDeal
from schmier.rooms.peers import Refused
from schmier.rooms.record import RoomRecord, Seat
from schmier.rooms.shared import TABLES_MAX, Practice
from schmier.store import RoomStore


@dataclass(frozen=True)
class Started:
    """A practice room made: its code, and the token of each seat a person takes."""

    code: str
    tokens: dict[int, str]

    def frame(self, seat: int) -> bytes:
        """The `practice` frame for the sockets of `seat`."""
        body = {"type": "practice", "code": self.code, "seat": seat, "token": self.tokens[seat]}
        return orjson.dumps(body)


def position(hand: dict[str, Any], step: int) -> tuple[engine.State, list[Entry]]:
    """The engine's state after the deal and the first `step` actions of the finished
    hand `hand` (its record), the scores as they were before it; and the log entries."""
    variant = str(hand["variant"])
    rules = engine.make_rules(variant, hand["rules"])
    result = hand["result"]
    before = tuple(int(s) - int(d) for s, d in zip(hand["scores"], result["deltas"], strict=True))
    state = engine.new_game(variant, rules, int(hand["dealer"]))
    state = state._replace(scores=before)
    deal = engine.parse_action({"type": "deal", "deck": list(hand["deal"]["deck"])})
    state = engine.apply(state, None, deal)
    notes = {
        "deal": {k: v for k, v in hand["deal"].items() if k != "deck"},
        "seats": hand["seats"],
        "rules": engine.rules_to_json(rules),
    }
    entries = [Entry(None, deal, notes)]
    for taken in hand["actions"][:step]:
        action = engine.parse_action(taken["action"])
        state = engine.apply(state, taken["seat"], action)
        entries.append(Entry(taken["seat"], action))
    return state, entries


def practice_room(
    original: str, hand: dict[str, Any], step: int, people: list[int], open_seats: bool = False
) -> tuple[RoomRecord, list[Entry], dict[int, str]]:
    """The practice room of finished hand `hand` of room `original` from `step`: its
    record (version 0), the log entries that make its position, and the tokens of the
    seats of `people` (the original room's connected people); with `open_seats`, every
    seat empty instead (another table's, whose people join)."""
    state, entries = position(hand, step)
    tokens: dict[int, str] = {}
    seats = []
    for k, sat in enumerate(hand["seats"]):
        name = sat.get("name") or f"Bot {k + 1}"
        if open_seats:
            seats.append(Seat())
        elif k in people:
            tokens[k] = new_token()
            seats.append(Seat(kind="human", name=name, token_hash=hash_token(tokens[k])))
        else:
            seats.append(Seat(kind="bot", name=name, bot=levels.default()))
    record = RoomRecord.new(new_code(), str(hand["variant"]), state.rules)
    record = replace(
        record,
        seats=tuple(seats),
        first_dealer=int(hand["dealer"]),
        state=state,
        dealt=hand["deal"].get("commitment"),
        next_deal=NextDeal.fresh(len(seats)),
        game=1,
        practice=Practice(original, int(hand["n"]), step, dict(hand["result"])),
    )
    if open_seats:  # its hand's record names who sat at the deal: nobody yet
        deal = entries[0]
        entries[0] = deal._replace(notes={**(deal.notes or {}), "seats": record.deal_seats()})
    return record.with_host(), entries, tokens


class TablesFull(Refused):
    """The hand has been played again at `TABLES_MAX` tables already."""

    def __init__(self) -> None:
        super().__init__("bad_message", "this deal has been played at all the tables it may")


async def start(
    store: RoomStore,
    original: str,
    hand: dict[str, Any],
    step: int,
    people: list[int],
    *,
    open_seats: bool = False,
) -> Started:
    """Make the practice room of room `original`'s hand in the store (a fresh code,
    retried on the rare clash) and count it with the hand; `TablesFull` when the hand
    has all the tables it may."""
    if not 0 <= step <= len(hand["actions"]):
        raise Refused("bad_message", f"the steps of this hand are 0 to {len(hand['actions'])}")
    n = int(hand["n"])
    if len(await store.tables_get(original, n)) >= TABLES_MAX:
        raise TablesFull
    while True:
        try:
            record, entries, tokens = practice_room(original, hand, step, people, open_seats)
        except engine.EngineError as exc:  # the record does not replay: nothing to play
            raise Refused("bad_message", "this hand cannot be played again") from exc
        lobby = replace(record, state=None)
        if await store.create(record.code, lobby.to_bytes()):
            break
    change = Change(record, tuple(entries))
    await store.commit(record.code, 1, change.stored().to_bytes(), change.log())
    if not await store.table_add(original, n, record.code, TABLES_MAX):
        await store.delete(record.code)  # another made the last one meanwhile
        raise TablesFull
    event("room.practice", room=original, practice=record.code, hand=n, step=step, open=open_seats)
    return Started(record.code, tokens)
