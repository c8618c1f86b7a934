"""The rematch, confirmed by the players: at `game_over` each seated person asks for it
(`{"type": "rematch"}`), and the next game starts once every seat is taken and every
seated person has asked.

One click for everybody used to start the next game at once, before anyone could say
"to 11 this time?" or leave. Now a `rematch` is a vote, shown to everybody in the view
(`rematch`: the seats that asked); meanwhile the host may change the rules (a change of
the rules clears the votes: people confirm the game they will play) and the seats may
change (a bot added or removed, a seat freed, taken or left). Whatever completes the
vote (the last person asking, a bot filling the last empty seat, an absent player's seat
freed or left) starts the game in the same change. Bots never vote; a table of one person
and bots starts on that person's click, as before.

The next game is played with the room's rules as they are then (`RoomRecord.rules`), the
deal passing left of the last dealer as after any hand.
"""

from __future__ import annotations

from dataclasses import replace

from schmier import engine
from schmier.engine import Action
from schmier.rooms.change import Change, Entry, Shuffler, with_deal
from schmier.rooms.peers import Refused
from schmier.rooms.record import RoomRecord


def between_games(record: RoomRecord) -> bool:
    """Whether the room is at `game_over` (where votes are taken)."""
    return record.state is not None and record.state.phase == "game_over"


def waiting(record: RoomRecord) -> list[int]:
    """The seated people who have not asked for the rematch yet."""
    return [k for k in record.humans() if k not in record.rematch]


def ready(record: RoomRecord) -> bool:
    """Whether the next game may start: every seat taken, every person asked (one at
    least: a table of bots alone waits for a person)."""
    return (
        between_games(record)
        and bool(record.rematch)
        and all(s.kind != "empty" for s in record.seats)
        and not waiting(record)
    )


def vote(record: RoomRecord, seat: int, shuffler: Shuffler) -> Change:
    """`seat` asks for the rematch; the next game starts if that completes the vote."""
    state = record.state
    if state is None or state.phase != "game_over":
        phase = "lobby" if state is None else state.phase
        raise Refused("illegal", f"you cannot rematch now: the game is in phase {phase}")
    if record.seats[seat].kind != "human":
        raise Refused("illegal", "only a seated player can ask for the rematch")
    if record.practice is not None:
        raise Refused("illegal", "a practice room plays one hand: there is no rematch")
    if seat in record.rematch:
        raise Refused("illegal", "you have asked for the rematch already; the others confirm")
    asked = replace(record, rematch=tuple(sorted({*record.rematch, seat})))
    return settle(Change(asked), shuffler)


def settle(change: Change, shuffler: Shuffler) -> Change:
    """`change`, with the next game started when its record completes the vote."""
    record = change.record
    if not ready(record):
        return change
    state = record.state
    assert state is not None
    # The engine's rematch (the deal passes left), with the rules the room has now.
    dealer = engine.rematch(state).dealer
    fresh = engine.new_game(record.variant, record.rules, dealer)
    entry = Entry(min(record.rematch), Action("rematch"))
    started = replace(record, rematch=(), paused=False)
    dealt = with_deal(started, fresh, [*change.entries, entry], shuffler)
    return Change(dealt.record, dealt.entries, change.op)


def clear(record: RoomRecord) -> RoomRecord:
    """`record` with the votes taken back (the rules of the next game changed)."""
    return record if not record.rematch else replace(record, rematch=())
