"""What happens at the table, as plain functions: from a room record and what someone did
to the next record and the log entries it adds.

Nothing here waits, sends or commits. The actor calls one of these, commits the `Change`
it returns, and only then sends views, so every rule of the room (who may start, where a
newcomer sits, what a leaving player leaves behind, when a deal is due) can be read, and
tested, apart from the machinery. A function refuses with `Refused` (the frame's sender
gets an `error` frame) or `JoinRefused` (an HTTP status), and then nothing has changed.

Randomness comes in through a `Shuffler`: the first dealer, and the server seed of every
deck. The deck itself is not drawn: it follows from the seed committed before the deal and
the entropy the seated players committed to and revealed (`schmier.engine.fairness`,
docs/fairness.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple

from schmier import engine
from schmier.engine import Action
from schmier.engine.bots import levels
from schmier.engine.fairness import entropy_commit
from schmier.protocol import ACTION_FRAMES, AddBot, Entropy, Rematch, RemoveBot, Start
from schmier.protocol.names import look_alike
from schmier.rooms import rematch
from schmier.rooms.change import Change as Change
from schmier.rooms.change import Entry as Entry
from schmier.rooms.change import SecureShuffler as SecureShuffler
from schmier.rooms.change import Shuffler as Shuffler
from schmier.rooms.change import with_deal as with_deal
from schmier.rooms.codes import hash_token, new_token
from schmier.rooms.peers import JoinRefused, Refused
from schmier.rooms.record import RoomRecord, Seat, bot_seat


def revealing(record: RoomRecord) -> bool:
    """Whether the room waits for the players' values before its deal."""
    return record.next_deal is not None and record.next_deal.revealing


def act(record: RoomRecord, seat: int, action: Action, shuffler: Shuffler) -> Change:
    """A seated player's game action (validated by the rules, which say why not)."""
    state = record.state
    if state is None:
        raise Refused("illegal", "the game has not started")
    try:
        new_state = engine.apply(state, seat, action)
    except engine.EngineError as exc:
        raise Refused(exc.code, str(exc)) from None
    return with_deal(record, new_state, [Entry(seat, action)], shuffler)


def for_frame(record: RoomRecord, seat: int, frame: Any, shuffler: Shuffler) -> Change:
    """The change a lobby frame or a game action of `seat` asks for."""
    if isinstance(frame, Rematch):
        return rematch.vote(record, seat, shuffler)
    if record.paused and isinstance(frame, ACTION_FRAMES):
        raise Refused("paused", "the host has paused the game; wait until it resumes")
    if isinstance(frame, AddBot):
        return rematch.settle(add_bot(record, frame.seat, frame.bot), shuffler)
    if isinstance(frame, RemoveBot):
        return remove_bot(record, frame.seat)
    if isinstance(frame, Start):
        return start(record, shuffler)
    if isinstance(frame, ACTION_FRAMES):
        return act(record, seat, frame.action(), shuffler)
    if isinstance(frame, Entropy):
        return entropy(record, seat, frame, shuffler)
    raise Refused("bad_message", f"a {frame.type!r} frame is not a table action")


def add_bot(record: RoomRecord, seat: int, bot: str | None = None) -> Change:
    """Lobby or between games: a bot of level `bot` (None: the default bot) takes an
    empty seat."""
    if bot is not None and bot not in levels.BY_NAME:
        raise Refused("bad_message", f"unknown bot {bot!r}")
    _between_games(record)
    if not 0 <= seat < len(record.seats) or record.seats[seat].kind != "empty":
        raise Refused("illegal", "a bot can only sit in an empty seat")
    return Change(record.with_seat(seat, bot_seat(seat, bot)))


def remove_bot(record: RoomRecord, seat: int) -> Change:
    """Lobby or between games: a bot's seat is emptied (for a person, or a bot of
    another level; the next game waits until every seat is taken)."""
    _between_games(record)
    if not 0 <= seat < len(record.seats) or record.seats[seat].kind != "bot":
        raise Refused("illegal", "that seat holds no bot")
    return Change(record.with_seat(seat, Seat()))


def start(record: RoomRecord, shuffler: Shuffler) -> Change:
    """Lobby: the game starts once every seat is taken, with a random first dealer."""
    _in_lobby(record)
    if any(s.kind == "empty" for s in record.seats):
        raise Refused("illegal", "every seat must be taken first")
    dealer = shuffler.first_dealer(len(record.seats))
    state = engine.new_game(record.variant, record.rules, dealer)
    return with_deal(replace(record, first_dealer=dealer), state, [], shuffler)


def entropy(record: RoomRecord, seat: int, frame: Entropy, shuffler: Shuffler) -> Change:
    """A seated player's commit to its entropy, or the value itself when asked for it.

    A commit is taken whenever a commitment is shown (always, the lobby included) until
    the reveal of that deck begins; the last one counts, and sending the same one again
    changes nothing. It goes into the next deck dealt: the one committed to in the view
    the player saw, or, should that deal have come first, the one after (whose seed was
    fixed before too). A value is taken only while the reveal is open, from a seat that
    committed, and only the value its commit is the hash of; the last one makes the
    deal. Anything else is refused (`bad_message`) and changes nothing.
    """
    pending = record.next_deal
    if pending is None:
        raise Refused("illegal", "no deal is committed yet; try again in a moment")
    if frame.commit is not None:
        if pending.revealing:
            raise Refused("bad_message", "the values are being revealed: no commit is taken now")
        if pending.commits[seat] == frame.commit:
            return Change(record)
        return Change(replace(record, next_deal=pending.with_commit(seat, frame.commit)))
    value = frame.value
    assert value is not None  # the frame carries one of the two
    if not pending.revealing:
        raise Refused(
            "bad_message",
            "send only a commit now; the value goes only in answer to a reveal frame",
        )
    commit = pending.commits[seat]
    if commit is None:
        raise Refused("bad_message", "this seat did not commit to a value for this deal")
    if entropy_commit(value) != commit:
        raise Refused("bad_message", "the value does not hash to this seat's commit")
    if pending.values[seat] == value:
        return Change(record)
    pending = pending.with_value(seat, value)
    record = replace(record, next_deal=pending)
    assert record.state is not None  # a reveal is only ever open in a game
    return with_deal(record, record.state, [], shuffler, now=pending.complete())


def _in_lobby(record: RoomRecord) -> None:
    if record.state is not None:
        raise Refused("illegal", "the game has already started")


def _between_games(record: RoomRecord) -> None:
    """Refused unless in the lobby or at `game_over`, where the seats may change."""
    if record.state is not None and not rematch.between_games(record):
        raise Refused("illegal", "the seats change in the lobby or between games only")


def leave(record: RoomRecord, seat: int, shuffler: Shuffler) -> Change:
    """A player gives the seat up: it empties in the lobby; in a game the default bot
    takes over (at `game_over` the others' rematch may then start)."""
    replacement = Seat() if record.state is None else bot_seat(seat)
    return rematch.settle(Change(record.with_seat(seat, replacement)), shuffler)


class Seating(NamedTuple):
    """A newcomer's seat: the change, the seat, its new token (shown to the player once;
    the record keeps its hash only), and whether a bot's hand was taken over."""

    change: Change
    seat: int
    token: str
    took_over: bool


NAME_TAKEN = "name taken at this table"
"""How the join's 409 for a name in use begins (a client tells it by this start)."""


def join(
    record: RoomRecord,
    name: str,
    wanted: int | None,
    *,
    present: Callable[[int], bool],
    member: str | None = None,
) -> Seating:
    """A newcomer takes `wanted` (or the first empty seat); taking a bot's seat takes
    over its hand. `present(seat)`: whether a socket already watches from that seat (a
    player who left and comes back on the same page), which then shows connected.
    `member`: the club member joining with a member key, who holds one seat at most.

    A name that looks like another at the table is refused with 409 (equal names, after
    case folding, are the plainest case: "Waiting for Sam" must say who; `names.look_alike`
    catches the rest, such as a Cyrillic "Аlice" beside "Alice"), and so is the name a
    bot has or would have at this table ("Bot 3": a person may not pass for a bot)."""
    seats = record.seats
    if member is not None:
        held = [k for k, s in enumerate(seats) if s.kind == "human" and s.member == member]
        if held:
            raise JoinRefused(409, f"that member already sits at seat {held[0]}")
    if wanted is None:
        empty = [k for k, s in enumerate(seats) if s.kind == "empty"]
        if not empty:
            raise JoinRefused(409, "no empty seat")
        seat = empty[0]
    else:
        if not 0 <= wanted < len(seats):
            raise JoinRefused(422, f"seat must be 0 to {len(seats) - 1}")
        if seats[wanted].kind == "human":
            raise JoinRefused(409, "seat taken")
        seat = wanted
    taken = [s.name for k, s in enumerate(seats) if k != seat and s.name is not None]
    bots = [bot_seat(k).name or "" for k in range(len(seats))]
    if (other := look_alike(name, [*taken, *bots])) is not None:
        raise JoinRefused(409, f"{NAME_TAKEN}: {name!r} looks too much like {other!r}")
    token = new_token()
    human = Seat(
        kind="human",
        name=name,
        token_hash=hash_token(token),
        connected=present(seat),
        member=member,
    )
    took_over = seats[seat].kind == "bot"
    return Seating(Change(record.with_seat(seat, human)), seat, token, took_over)


def connected(record: RoomRecord, seat: int, now_connected: bool) -> Change | None:
    """The seat's player came (or went): the change, or None when nothing changes.

    Only a human seat is marked disconnected; coming back always marks it connected.
    """
    current = record.seats[seat]
    if current.connected == now_connected:
        return None
    if not now_connected and current.kind != "human":
        return None
    return Change(record.with_seat(seat, replace(current, connected=now_connected)))


def presence(record: RoomRecord, present: Callable[[int], bool]) -> Change | None:
    """Every human seat shown connected exactly when a socket holds it: the change, or
    None when the record already says so (after a pause, whose comings and goings could
    not be saved when they happened)."""
    seats = list(record.seats)
    changed = False
    for seat, current in enumerate(seats):
        now = present(seat)
        if current.kind == "human" and current.connected != now:
            seats[seat] = replace(current, connected=now)
            changed = True
    if not changed:
        return None
    return Change(replace(record, seats=tuple(seats)))


def unjoin(record: RoomRecord, seat: int, token_hash: str, previous: Seat) -> Change | None:
    """Undo a join whose newcomer was never told the token (its commit's outcome was
    unknown, and it was answered as failed): the seat goes back to what it was, unless
    something else happened to it since."""
    current = record.seats[seat]
    if current.kind != "human" or current.token_hash != token_hash:
        return None
    return Change(record.with_seat(seat, previous))
