"""`state` frames: the public part of a view serialised once per change, each seat's
own part spliced in.

A change in a room of six sends up to seven different views (six seats and the
spectators). Most of a view (trick, tricks, bids, scores, the seats' names) is the same
for all of them, so it is built and serialised once; only `you`, `hand`, `legal` and the
other keys of `engine.PRIVATE_KEYS` are built per seat. The two JSON objects are joined
as bytes, which is safe because the public part never holds a private key (a test of the
engine checks that) and orjson writes no whitespace.

`turn_ends_in` (the seconds left of a timed turn) and `idle_ends_in` (of an untimed
turn, before the idle limit plays it) are public too, but say how much time is left
when the frame is made, so they are written into each frame as it is sent rather than
kept with the version's frames (while the game is paused they stand still, and are part
of the version like the rest).

The room's own fields (`host`, `paused`, the `rematch` votes) are public; so is `rules`,
which is the room's: at `game_over`, the next game's as the host set them.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

from schmier import engine
from schmier.rooms import rematch
from schmier.rooms.record import RoomRecord, Seat


def seat_legal(record: RoomRecord, seat: int | None) -> list[dict[str, Any]]:
    """The seat actions a seated player may send (the lobby, or between games): a bot
    for each empty seat, a bot's removal; spectators have none."""
    if seat is None:
        return []
    seats = record.seats
    legal: list[dict[str, Any]] = [
        {"type": "add_bot", "seat": k} for k, s in enumerate(seats) if s.kind == "empty"
    ]
    legal += [{"type": "remove_bot", "seat": k} for k, s in enumerate(seats) if s.kind == "bot"]
    return legal


def lobby_legal(record: RoomRecord, seat: int | None) -> list[dict[str, Any]]:
    """The lobby actions a seated player may send; spectators have none."""
    legal = seat_legal(record, seat)
    if seat is not None and all(s.kind != "empty" for s in record.seats):
        legal.append({"type": "start"})
    return legal


def game_over_legal(record: RoomRecord, seat: int | None) -> list[dict[str, Any]]:
    """Between games: the seat actions, and the rematch for a person who has not
    asked for it yet (the next game starts once everybody has, `rematch.py`)."""
    legal = seat_legal(record, seat)
    if seat is not None and seat in rematch.waiting(record):
        legal.insert(0, {"type": "rematch"})
    return legal


def seat_entry(entry: dict[str, Any], seat: Seat) -> dict[str, Any]:
    """The engine's public entry of a seat with who sits there (a bot: its level)."""
    out = {**entry, "name": seat.name, "kind": seat.kind, "connected": seat.connected}
    if seat.kind == "bot":
        out["bot"] = seat.bot
    return out


def public_part(record: RoomRecord) -> dict[str, Any]:
    """Everything of the room's view that every viewer gets alike, room fields included."""
    if record.state is None:
        base = engine.lobby_public_view(record.variant, record.rules)
    else:
        base = engine.public_view(record.state)
    base["code"] = record.code
    # Provably fair deals: commitments only, never a seed (the seed of the next deck is
    # the room's secret until the hand dealt from it has been scored), and of the
    # players' commits only who committed.
    pending = record.next_deal
    base["next_deal"] = None if pending is None else pending.view()
    base["deal"] = None if record.dealt is None else {"commitment": record.dealt}
    base["seats"] = [seat_entry(entry, record.seats[entry["seat"]]) for entry in base["seats"]]
    base["rules"] = engine.rules_to_json(record.rules)
    base["host"] = record.host
    base["paused"] = record.paused
    base["rematch"] = list(record.rematch)
    if record.practice is not None:  # a practice room: where it comes from, and once
        base["practice"] = record.practice.info()  # scored the original's result
        if record.phase in ("hand_over", "game_over"):
            base["original"] = record.practice.original
    return base


def private_part(record: RoomRecord, seat: int | None) -> dict[str, Any]:
    """What only `seat` sees (a spectator: `None`)."""
    if record.state is None:
        private = engine.lobby_private_view(record.variant, seat)
        private["legal"] = lobby_legal(record, private["you"])
        return private
    private = engine.private_view(record.state, seat)
    if record.practice is not None and record.state.phase == "game_over":
        private["legal"] = []  # a practice room plays its one hand, and no other game
    elif record.state.phase == "game_over":
        private["legal"] = game_over_legal(record, private["you"])
    elif record.paused:
        private["legal"] = []  # nothing of the game is taken while paused
    return private


def turn_ends_in(record: RoomRecord, wall: float) -> float | None:
    """The seconds left of the timed turn at wall-clock time `wall` (never below 0), or
    None while no person's turn is timed by the room's timer; while paused, what was left
    at the pause."""
    deadline = record.turn_deadline
    if not record.rules.turn_seconds:
        return None
    if deadline is None:
        return record.turn_left
    return round(max(0.0, deadline - wall), 3)


def idle_ends_in(record: RoomRecord, wall: float) -> float | None:
    """The seconds left before the bot plays an idle person's turn in a room without a
    timer (`SCHMIER_IDLE_TURN_SECONDS`), never below 0; None when the room has a timer
    or no person's turn is awaited; while paused, what was left at the pause."""
    deadline = record.turn_deadline
    if record.rules.turn_seconds:
        return None
    if deadline is None:
        return record.turn_left
    return round(max(0.0, deadline - wall), 3)


def _countdowns(record: RoomRecord) -> bytes:
    """`turn_ends_in` and `idle_ends_in` as they are written into a frame now, from the
    value of the first: `1.5,"idle_ends_in":null`."""
    wall = time.time()
    return (
        orjson.dumps(turn_ends_in(record, wall))
        + b',"idle_ends_in":'
        + orjson.dumps(idle_ends_in(record, wall))
    )


def room_view(record: RoomRecord, seat: int | None) -> dict[str, Any]:
    """The whole view of one seat (or a spectator), as a dict, made now."""
    view = public_part(record)
    wall = time.time()
    view["turn_ends_in"] = turn_ends_in(record, wall)
    view["idle_ends_in"] = idle_ends_in(record, wall)
    view.update(private_part(record, seat))
    return view


class StateFrames:
    """The `state` frames of one version of a room, built on demand, each once (in a
    timed turn, each seat's part once: the time left is written into every frame)."""

    __slots__ = ("_frames", "_head", "_record", "_version")

    def __init__(self, record: RoomRecord, version: int) -> None:
        self._record = record
        self._version = version
        self._head: bytes | None = None
        self._frames: dict[int | None, bytes] = {}
        """Untimed: each seat's whole frame; timed: what follows the time left."""

    def matches(self, record: RoomRecord, version: int) -> bool:
        """Whether these frames are those of `record` at `version`."""
        return self._record is record and self._version == version

    def frame(self, seat: int | None) -> bytes:
        """The frame for `seat` (None: a spectator), made now."""
        data = self._frames.get(seat)
        timed = self._record.turn_deadline is not None
        if data is None:
            head = self._head
            if head is None:
                # b'{"type":"state","seq":N,"view":{...,"turn_ends_in":' (no value yet).
                view = public_part(self._record)
                frame = {"type": "state", "seq": self._version, "view": view}
                head = self._head = orjson.dumps(frame)[:-2] + b',"turn_ends_in":'
            private = b"," + orjson.dumps(private_part(self._record, seat))[1:] + b"}"
            # Untimed, or paused: the countdowns are part of the version (null, or the
            # time left when the game was paused).
            still = _countdowns(self._record)
            data = self._frames[seat] = private if timed else head + still + private
        if not timed:
            return data
        assert self._head is not None
        return self._head + _countdowns(self._record) + data


class LatestFrames:
    """The `state` frames of the latest version a room (or a follower) has seen.

    A new version replaces the frames of the old one; within a version each seat's frame
    is built once however many sockets share the seat.
    """

    __slots__ = ("_frames",)

    def __init__(self) -> None:
        self._frames: StateFrames | None = None

    def frame(self, record: RoomRecord, version: int, seat: int | None) -> bytes:
        """The frame of `record` at `version` for `seat` (None: a spectator)."""
        frames = self._frames
        if frames is None or not frames.matches(record, version):
            frames = self._frames = StateFrames(record, version)
        return frames.frame(seat)
