"""Players' moves that reach a room together, committed as one change.

Why: some moments of a hand are played by several players at once. In the Schmier
games every player but the dealer discards at the same time (docs/rules.md, step 4),
so five discards reach the room within a millisecond of each other, and each cost a
commit and a view to every seat: five commits and thirty frames where one commit and
six frames say the same. Tables that started together (a restart or a failover resumes
every table of an instance within a second) reach that moment together as well: at
1,000 tables the discards came as a burst of several times what the server does in a
second, and every table's moves queued behind it (`python -m bench.load --in-step
--think-dist fixed`, docs/performance.md).

So when the actor takes a player's move from its mailbox and more moves are already
waiting behind it, it takes those too (`waiting`; nothing ever waits to make a batch,
a move alone is applied at once), and `fold` checks each against the room as the ones
before it left it, in the order they arrived: the order in which discards draw from
the stock, exactly as if they had been applied one by one. The accepted moves are
committed as one change with every one of them in the log, and each seat gets one
view that shows them all. A refused move is answered to its sender as it would have
been alone, and the others stand; a commit that fails is answered to every sender
whose move it carried (`answering`), as it is to one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from schmier.protocol import ACTION_FRAMES, Rematch
from schmier.rooms import mailbox, outage, table
from schmier.rooms.change import Change, Entry, Shuffler
from schmier.rooms.peers import Peer, Refused, Sockets, error_frame
from schmier.rooms.record import OPS_KEPT, RoomRecord
from schmier.store import StoreError, StoreUnavailable, VersionConflict

MOVE_FRAMES = tuple(f for f in ACTION_FRAMES if f is not Rematch)
"""The game's own moves (a rematch vote may start a game: it is applied on its own)."""

MOST = 16
"""Moves taken together at most (a room has at most six players, who rarely send more
than one move each at once)."""


def is_move(message: mailbox.Message) -> bool:
    """Whether `message` is a game move of a socket (not a lobby, host or chat frame)."""
    return isinstance(message, mailbox.Frame) and isinstance(message.frame, MOVE_FRAMES)


def waiting(first: mailbox.Message, box: mailbox.Mailbox) -> list[mailbox.Message]:
    """`first`, and when it is a move the moves queued right behind it (up to `MOST`,
    stopping at the first message of another kind, which stays first in line)."""
    taken = [first]
    while is_move(first) and len(taken) < MOST and (more := box.take_if(is_move)) is not None:
        taken.append(more)
    return taken


@dataclass
class Folded:
    """What a batch of moves comes to: the change of the accepted ones (None: none
    was), their senders, and each refused move's sender with its refusal."""

    change: Change | None = None
    senders: list[Peer] = field(default_factory=list)
    refused: list[tuple[Peer, Refused]] = field(default_factory=list)


def acting_seat(peer: Peer, sockets: Sockets) -> int:
    """The seat `peer` acts for, its frame budget spent (however many sockets the seat
    has); a spectator's frame is refused. Every frame that is not a hello goes through
    here, alone or among moves waiting together."""
    if peer.seat is None:
        raise Refused("forbidden", "spectators cannot act or chat; join a seat first")
    sockets.spend(peer.seat)
    return peer.seat


def fold(
    record: RoomRecord, moves: list[mailbox.Frame], sockets: Sockets, shuffler: Shuffler
) -> Folded:
    """Each move checked against `record` as the moves before it left it, in order.

    A move of a socket no longer in the room, or a forwarded operation already applied,
    is dropped as the actor drops it alone; each sender's seat spends its frame budget
    as for any frame."""
    out = Folded()
    entries: list[Entry] = []
    for move in moves:
        peer, op = move.peer, move.op
        if peer not in sockets or (op is not None and op in record.ops):
            continue
        try:
            seat = acting_seat(peer, sockets)
            change = table.for_frame(record, seat, move.frame, shuffler)
        except Refused as exc:
            out.refused.append((peer, exc))
            continue
        record = change.record
        if op is not None:
            record = replace(record, ops=(*record.ops, op)[-OPS_KEPT:])
        entries += change.entries
        out.senders.append(peer)
    if out.senders:
        out.change = Change(record, tuple(entries))
    return out


def tell_refused(refusals: list[tuple[Peer, Refused]], refused: Callable[[str], Any]) -> None:
    """Answer each refused frame's sender; `refused(code)`: the metric of refusals."""
    for peer, exc in refusals:
        refused(exc.code).inc()
        peer.send(error_frame(exc.code, exc.message))


async def answering(
    peers: list[Peer],
    work: Awaitable[None],
    refused: Callable[[str], Any],
    reload: Callable[[], Awaitable[None]],
) -> None:
    """Run `work` (a commit asked for by `peers`' frames) and answer each of them when
    it fails: a refusal or a room changed elsewhere as an `error` frame, a store gone as
    the outage answers it. `refused(code)`: the metric of refusals by code; `reload`
    takes the room as stored after a lost compare-and-set. A store failure is raised
    on (the actor's timers wait for the store), once every sender was answered."""
    try:
        await work
    except Refused as exc:
        tell_refused([(peer, exc) for peer in peers], refused)
    except VersionConflict:
        await reload()
        for peer in peers:
            refused("unavailable").inc()
            peer.send(error_frame("unavailable", "the room changed elsewhere; try again"))
    except StoreUnavailable as exc:
        for peer in peers:
            outage.refuse(exc, peer, refused("store_unavailable"))
        raise
    except StoreError:
        for peer in peers:
            refused("unavailable").inc()
            peer.send(error_frame("unavailable", "the room could not be saved; try again"))
        raise
