"""The host runs the table: who the host is, and the frames only a host (or, for
`move_seat`, any seated player) may send, as plain functions from a record to a `Change`.

The host is the first person to sit down (`RoomRecord.with_host`); when the host's seat
stops being a person's (left, freed), or the host has been away for `host_away`
seconds while another person is connected (`hand_over`), the lowest connected person's
seat hosts. So a table whose host has gone home can still free that host's seat.

The frames (docs/protocol.md, "The host"): `free_seat` gives an absent player's seat to
the default bot (the player takes it back by name, from any device: the old token is
worthless); `set_rules` changes the next game's rules in the lobby or at `game_over`;
`pause` and `resume` stop and restart a game; `move_seat` moves the sender to an empty
seat in the lobby; `swap_seats` swaps two seats in the lobby or between games. A refusal
is `forbidden` (not the host), `illegal` (not now, not that seat) or `bad_message` (a
rule the game does not have, a value out of range); nothing changes then.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from schmier import engine
from schmier.protocol import FreeSeat, HostFrame, MoveSeat, Pause, Resume, SetRules, SwapSeats
from schmier.rooms import rematch
from schmier.rooms.change import Change, Shuffler
from schmier.rooms.peers import Refused
from schmier.rooms.record import RoomRecord, Seat, bot_seat


def for_frame(record: RoomRecord, seat: int, frame: HostFrame, shuffler: Shuffler) -> Change:
    """The change a host's frame (or `move_seat`) from `seat` asks for."""
    if isinstance(frame, MoveSeat):
        return move_seat(record, seat, frame.seat)
    require_host(record, seat)
    if isinstance(frame, FreeSeat):
        return free_seat(record, frame.seat, shuffler)
    if isinstance(frame, SetRules):
        return set_rules(record, frame.rules)
    if isinstance(frame, Pause):
        return pause(record)
    if isinstance(frame, Resume):
        return resume(record)
    if isinstance(frame, SwapSeats):
        return swap_seats(record, frame.seats[0], frame.seats[1])
    raise Refused("bad_message", f"a {frame.type!r} frame is not a host's")


def require_host(record: RoomRecord, seat: int) -> None:
    """Refused (`forbidden`) unless `seat` hosts the room."""
    if record.host != seat:
        raise Refused("forbidden", "only the room's host can do that")


def _seat(record: RoomRecord, k: int) -> Seat:
    if not 0 <= k < len(record.seats):
        raise Refused("illegal", f"there is no seat {k}; seats are 0 to {len(record.seats) - 1}")
    return record.seats[k]


def _game_on(record: RoomRecord) -> bool:
    return record.state is not None and record.state.phase != "game_over"


def free_seat(record: RoomRecord, k: int, shuffler: Shuffler) -> Change:
    """Seat `k`, a person's who is not connected, goes to the default bot (in the lobby
    too; any seated player may remove that bot there). Its token stops working, since the
    bot's seat has none; at `game_over` the others' rematch may start."""
    current = _seat(record, k)
    if current.kind != "human":
        raise Refused("illegal", f"seat {k} holds no player")
    if current.connected:
        raise Refused("illegal", "only the seat of a player who is not connected can be freed")
    return rematch.settle(Change(record.with_seat(k, bot_seat(k))), shuffler)


def set_rules(record: RoomRecord, rules: Mapping[str, Any]) -> Change:
    """The rules of the next game: any subset of the room's, validated as at creation.

    In the lobby they are the game's about to start; at `game_over` the next game's (the
    finished game's record keeps its own). A change clears the rematch votes, so that
    everybody confirms the game they will play."""
    if _game_on(record):
        raise Refused("illegal", "the rules change in the lobby or between games only")
    merged = {**engine.rules_to_json(record.rules), **rules}
    try:
        chosen = engine.make_rules(record.variant, merged)
    except engine.RulesError as exc:
        raise Refused("bad_message", str(exc)) from None
    if chosen == record.rules:
        raise Refused("illegal", "those are the room's rules already; nothing changed")
    return Change(rematch.clear(replace(record, rules=chosen)))


def pause(record: RoomRecord) -> Change:
    """Stop the game: no bot acts, no timer runs, no game action is taken (the clock
    keeps what was left of a timed turn, `clock.Clock.timed`)."""
    if not _game_on(record):
        raise Refused("illegal", "there is no game on to pause")
    if record.paused:
        raise Refused("illegal", "the game is paused already")
    return Change(replace(record, paused=True))


def resume(record: RoomRecord) -> Change:
    """Go on with a paused game where it stood."""
    if not record.paused:
        raise Refused("illegal", "the game is not paused")
    return Change(replace(record, paused=False))


def move_seat(record: RoomRecord, sender: int, k: int) -> Change:
    """The lobby: the sender moves to empty seat `k` (token, name and all)."""
    if record.state is not None:
        raise Refused("illegal", "seats are changed in the lobby only")
    if _seat(record, k).kind != "empty":
        raise Refused("illegal", f"seat {k} is not empty")
    return Change(_swapped(record, sender, k))


def swap_seats(record: RoomRecord, i: int, j: int) -> Change:
    """The lobby or between games: the occupants of seats `i` and `j` change places
    (a person with a bot, or with an empty seat: a move). Bots are renamed after their
    new chair; a rematch vote goes with the player who cast it."""
    if _game_on(record):
        raise Refused("illegal", "seats are swapped in the lobby or between games only")
    _seat(record, i), _seat(record, j)
    if i == j:
        raise Refused("illegal", "a seat cannot be swapped with itself")
    return Change(_swapped(record, i, j))


def _swapped(record: RoomRecord, i: int, j: int) -> RoomRecord:
    """`record` with the occupants of `i` and `j` exchanged: seats, host, votes."""
    seats = list(record.seats)
    seats[i], seats[j] = _renamed(seats[j], i), _renamed(seats[i], j)
    where = {i: j, j: i}
    host = None if record.host is None else where.get(record.host, record.host)
    votes = tuple(sorted(where.get(k, k) for k in record.rematch))
    return replace(record, seats=tuple(seats), host=host, rematch=votes)


def _renamed(seat: Seat, chair: int) -> Seat:
    """A bot is named after its chair ("Bot 3"); anyone else keeps their name."""
    return bot_seat(chair, seat.bot) if seat.kind == "bot" else seat


def seat_moves(before: RoomRecord, after: RoomRecord) -> dict[int, int | None]:
    """Where each person's seat of `before` is in `after` (None: gone), by token: the
    sockets of a seat follow it across a move or swap, and lose it when it is freed."""
    now = {s.token_hash: k for k, s in enumerate(after.seats) if s.token_hash is not None}
    moves: dict[int, int | None] = {}
    for k, s in enumerate(before.seats):
        if s.token_hash is not None and now.get(s.token_hash) != k:
            moves[k] = now.get(s.token_hash)
    return moves


def hand_over(record: RoomRecord, present: Callable[[int], bool]) -> Change | None:
    """The host has been away too long: the lowest connected person hosts instead; None
    when nobody else is connected (the role then stays where it is)."""
    others = [k for k in record.humans() if k != record.host and present(k)]
    if not others:
        return None
    return Change(replace(record, host=others[0]))
