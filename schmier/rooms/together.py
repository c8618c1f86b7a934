"""Review together: the room's side of the shared review of a finished hand
(docs/protocol.md, "Review together").

A seated player opens the review of a finished hand between hands or after the game and
leads it: the leader steps through the hand's record and points at cards, and the room
sends every socket (players and spectators) a `review` frame at each change, so whoever
looks on sees the leader's moment; each seated player says whether they look on
following the leader or step alone. The leader hands the lead to another person or
closes the review; a leader who stays disconnected for `SCHMIER_LEAD_GRACE` seconds hands
it on by themselves (`lead_over_if_due`), to the lowest connected person, or the review
closes when there is none.

The review is part of the room record (`shared.SharedReview`), changed by plain
functions from a record to a `Change` and committed like every change, so it survives a
restart and a move to another instance. While it is open the room deals no next hand
(the clock waits); a hand that is dealt all the same (the players' rematch) closes it
(`RoomRecord.with_review`). Only finished hands, those with a record, can be opened, so
nothing of a hand in play is ever reachable through it. Every refusal is `forbidden`
(a spectator, or a leader's op from another seat) or `bad_message`, and changes nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from schmier import engine
from schmier.logs import event
from schmier.protocol import Review as Review
from schmier.rooms import practice
from schmier.rooms.archive import Archive
from schmier.rooms.change import Change
from schmier.rooms.clock import Clock
from schmier.rooms.peers import Refused, Sockets
from schmier.rooms.record import RoomRecord
from schmier.rooms.shared import OPEN_PHASES, PRACTICES_MAX, STEPS_MAX, SharedReview, frame_of
from schmier.store import RoomStore

__all__ = ["Review", "announce", "for_frame", "frame_of", "lead_over_if_due", "on_frame"]

LEADERS_OPS = ("step", "point", "lead", "close", "practice")
"""The ops only the leader may send."""


class ReviewRoom(Protocol):
    """What this module needs of the room's actor (its sockets and its store are
    passed to each function that needs them)."""

    code: str
    record: RoomRecord
    clock: Clock

    async def apply(self, change: Change) -> None:
        """Commit a change, adopt it, send every view."""


async def on_frame(
    room: ReviewRoom, sockets: Sockets, store: RoomStore, seat: int, frame: Review, op: str | None
) -> None:
    """Apply a seated player's `review` frame; a refusal raises `Refused`."""
    if frame.op == "practice":
        assert frame.step is not None
        await practice_from(room, sockets, store, seat, frame.step, op)
        return
    if frame.op == "open":
        assert frame.hand is not None
        may_open(room.record)
        length = len((await hand_record(store, room.code, frame.hand))["actions"])
        if length > STEPS_MAX:
            raise Refused("bad_message", "that hand is too long to review")
        change = open_review(room.record, seat, frame.hand, length)
    else:
        change = for_frame(room.record, seat, frame)
    await room.apply(change.with_op(op))
    event("room.review", room=room.code, seat=seat, op=frame.op)


async def hand_record(store: RoomStore, code: str, hand: int) -> dict[str, Any]:
    """The record of finished hand `hand` of room `code`; `bad_message` when the hand has
    no record (it is in play, or never was)."""
    book = await Archive(store, kept=1).book(code)
    record = None if book is None else book.record(hand)
    if record is None:
        raise Refused("bad_message", f"hand {hand} has no record: only a finished hand")
    return record


async def practice_from(
    room: ReviewRoom, sockets: Sockets, store: RoomStore, seat: int, step: int, op: str | None
) -> None:
    """The leader starts a practice room from step `step` of the reviewed hand; each
    connected person's sockets are told their seat in it. The review stays open."""
    review = room.record.review
    if review is None:
        raise Refused("bad_message", "no shared review is open")
    if seat != review.leader:
        raise Refused("forbidden", "only the review's leader can do that")
    if step > review.length:
        raise Refused("bad_message", f"the steps of this hand are 0 to {review.length}")
    if review.practices >= PRACTICES_MAX:
        raise Refused("bad_message", "this review has started all the practice rooms it may")
    sockets.spend_practice()
    hand = await hand_record(store, room.code, review.hand)
    people = [k for k in room.record.humans() if sockets.has(k)]
    started = await practice.start(store, room.code, hand, step, people)
    counted = replace(review, practices=review.practices + 1)
    await room.apply(Change(replace(room.record, review=counted)).with_op(op))
    for k in started.tokens:
        for peer in sockets.at(k):
            peer.send(started.frame(k))


def may_open(record: RoomRecord) -> None:
    """Refused (`bad_message`) unless a review may be opened now."""
    if record.review is not None:
        raise Refused("bad_message", "a shared review is open already; its leader closes it")
    if record.phase not in OPEN_PHASES:
        raise Refused("bad_message", "a hand is being played: review once it is over")
    if record.next_deal is not None and record.next_deal.revealing:
        raise Refused("bad_message", "the next hand is being dealt")


def open_review(record: RoomRecord, seat: int, hand: int, length: int) -> Change:
    """`seat` opens the shared review of finished hand `hand` (`length` actions) and leads."""
    may_open(record)
    review = SharedReview(hand=hand, leader=seat, length=length)
    return Change(replace(record, review=review))


def for_frame(record: RoomRecord, seat: int, frame: Review) -> Change:
    """The change a `review` frame (any op but `open`) from `seat` asks for."""
    review = record.review
    if review is None:
        raise Refused("bad_message", "no shared review is open")
    if frame.op in LEADERS_OPS and seat != review.leader:
        raise Refused("forbidden", "only the review's leader can do that")
    if frame.op == "step":
        assert frame.step is not None
        if frame.step > review.length:
            raise Refused("bad_message", f"the steps of this hand are 0 to {review.length}")
        review = replace(review, step=frame.step, point=None)
    elif frame.op == "point":
        if frame.card is not None and frame.card not in engine.full_deck(record.variant):
            raise Refused("bad_message", f"{frame.card} is not a card of this game")
        review = replace(review, point=frame.card)
    elif frame.op == "lead":
        review = _lead(record, review, frame.seat)
    elif frame.op == "close":
        return Change(replace(record, review=None))
    else:  # join, follow: the sender looks on
        if seat == review.leader:
            raise Refused("bad_message", "the leader leads: hand the lead on first")
        review = review.with_member(seat, frame.op == "join" or bool(frame.follow))
    return Change(replace(record, review=review))


def _lead(record: RoomRecord, review: SharedReview, seat: int | None) -> SharedReview:
    assert seat is not None
    if not 0 <= seat < len(record.seats) or record.seats[seat].kind != "human":
        raise Refused("bad_message", f"seat {seat} holds no player who could lead")
    if seat == review.leader:
        raise Refused("bad_message", "you lead already")
    return review.led_by(seat)


async def lead_over_if_due(room: ReviewRoom, sockets: Sockets, now: float) -> bool:
    """When the leader has been away `lead_grace` seconds, the lowest connected person
    leads (or the review closes); whether that happened (the timer's work this turn)."""
    due = room.clock.lead_due(room.record, sockets.has)
    review = room.record.review
    if due is None or due > now or review is None:
        return False
    here = [k for k in room.record.humans() if k != review.leader and sockets.has(k)]
    after = review.led_by(here[0]).with_member(review.leader, None) if here else None
    await room.apply(Change(replace(room.record, review=after)))
    event("room.review_lead_away", room=room.code, leader=review.leader, now=here[:1])
    return True


def announce(room: ReviewRoom, sockets: Sockets, before: RoomRecord, now: float) -> None:
    """The room adopted a record: tell every socket when its review changed (a closed
    review lets the next deal come after the usual pause from now)."""
    after = room.record.review
    if after == before.review:
        return
    sockets.send_all(frame_of(after))
    if after is None:
        room.clock.review_closed(now)
