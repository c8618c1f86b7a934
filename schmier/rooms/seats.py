"""The actor's side of seats changing hands: a player leaving, the host's frames (a seat
freed, seats moved or swapped, the rules, a pause), the host's role passing on, and the
notice to a player whose turn the timer played.

The rules of each are plain functions (`table.leave`, `hosting`); what is left here is
what only the live room can do: the sockets of a seat follow it when it moves, lose it
when it is left or freed (a freed seat's sockets are closed with 4401, as a `hello` with
its old token would be), and the clocks follow the seats.
"""

from __future__ import annotations

from typing import Protocol

import orjson

from schmier.logs import event
from schmier.protocol import HOST_FRAMES, CloseCode, FreeSeat, HostFrame, Review
from schmier.rooms import hosting, table, together
from schmier.rooms.change import Change, Shuffler
from schmier.rooms.clock import Clock
from schmier.rooms.peers import Peer, Sockets
from schmier.rooms.record import RoomRecord
from schmier.store import RoomStore

TABLE_FRAMES: tuple[type[HostFrame | Review], ...] = (*HOST_FRAMES, Review)
"""The frames that run the table rather than play the game: the host's (and
`move_seat`), and the shared review's (`together.py`)."""


class SeatedRoom(Protocol):
    """What this module needs of the room's actor: its public state and its commit
    (the room's sockets and chance are given to each function as arguments)."""

    code: str
    record: RoomRecord
    clock: Clock
    version: int

    async def apply(self, change: Change) -> None:
        """Commit a change, adopt it, send every view."""


async def _moving(room: SeatedRoom, sockets: Sockets, change: Change) -> list[Peer]:
    """Commit `change`, the sockets of every seat it moves or frees following their
    seat (from before the commit, so that its views are the right ones: a freed
    seat's sockets see what a spectator sees); the sockets that lost their seat."""
    moves = hosting.seat_moves(room.record, change.record)
    moved = [(peer, peer.seat) for peer in sockets.all() if peer.seat in moves]
    for peer, old in moved:
        assert old is not None
        peer.seat = moves[old]
    try:
        await room.apply(change)
    except BaseException:
        for peer, old in moved:
            peer.seat = old
        raise
    room.clock.seats_moved(moves)
    return [peer for peer, _ in moved if peer.seat is None]


async def leave(
    room: SeatedRoom, sockets: Sockets, shuffler: Shuffler, seat: int, op: str | None
) -> None:
    """A player gives the seat up; their sockets stay, as spectators'."""
    change = table.leave(room.record, seat, shuffler).with_op(op)
    # Spectators from now on: the commit's broadcast must not send them the seat's
    # hand, which from this moment belongs to the bot. (`_moving` cannot tell: a seat
    # left keeps no token, as a freed one does not.)
    leavers = sockets.at(seat)
    for peer in leavers:
        peer.seat = None
    try:
        await room.apply(change)
    except BaseException:
        for peer in leavers:
            peer.seat = seat
        raise
    room.clock.autopilot.discard(seat)
    bot = room.record.seats[seat].kind == "bot"
    event("room.leave", room=room.code, seat=seat, bot=bot)


async def host(
    room: SeatedRoom,
    sockets: Sockets,
    shuffler: Shuffler,
    store: RoomStore,
    seat: int,
    frame: HostFrame | Review,
    op: str | None,
) -> None:
    """Apply a host's frame (or `move_seat`, or a shared review's frame, which
    `together.py` applies); a refusal raises `Refused`."""
    if isinstance(frame, Review):
        await together.on_frame(room, sockets, store, seat, frame, op)
        return
    change = hosting.for_frame(room.record, seat, frame, shuffler).with_op(op)
    lost = await _moving(room, sockets, change)
    if isinstance(frame, FreeSeat):
        room.clock.autopilot.discard(frame.seat)
        for peer in lost:
            peer.close(CloseCode.BAD_TOKEN, "the seat was freed")
    event("room.host", room=room.code, seat=seat, frame=frame.type)


async def hand_over_if_due(room: SeatedRoom, sockets: Sockets, now: float) -> bool:
    """When the host has been away `host_away` seconds, the lowest connected person's
    seat hosts; whether that happened (the timer's work for this turn). So does the
    lead of a shared review whose leader has been away (`together.lead_over_if_due`)."""
    if await together.lead_over_if_due(room, sockets, now):
        return True
    due = room.clock.host_due(room.record, sockets.has)
    if due is None or due > now:
        return False
    change = hosting.hand_over(room.record, sockets.has)
    if change is None:
        return False
    before = room.record.host
    await room.apply(change)
    event("room.host_away", room=room.code, host=before, now=room.record.host)
    return True


async def played_for(room: SeatedRoom, sockets: Sockets, seat: int, change: Change) -> None:
    """Commit a move the room made for `seat`; when the seat is a person's (their turn
    timer ran out: an away player has no socket to tell), tell that seat's sockets, and
    nobody else, what was played (`timed_out`, right after the state showing it)."""
    person = room.record.seats[seat].kind == "human"
    await room.apply(change)
    if not person or not change.entries or change.entries[0].seat != seat:
        return
    notice = orjson.dumps(
        {"type": "timed_out", "seq": room.version, "action": change.entries[0].action.to_json()}
    )
    for peer in sockets.at(seat):
        peer.send(notice)
