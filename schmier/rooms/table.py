"""What happens at the table, as plain functions: from a room record and what someone did
to the next record and the log entries it adds.

Nothing here waits, sends or commits. The actor calls one of these, commits the `Change`
it returns, and only then sends views, so every rule of the room (who may start, where a
newcomer sits, what a leaving player leaves behind, when a deal is due) can be read, and
tested, apart from the machinery. A function refuses with `Refused` (the frame's sender
gets an `error` frame) or `JoinRefused` (an HTTP status), and then nothing has changed.

Randomness comes in through a `Shuffler`: the first dealer, and the server seed of every
deck. The deck itself is not drawn: it follows from the seed committed before the deal and
the entropy the seated players added (`schmier.engine.fairness`, docs/fairness.md).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, Protocol

from schmier import engine
from schmier.engine import Action
from schmier.engine.bots import levels
from schmier.protocol import ACTION_FRAMES, AddBot, Entropy, RemoveBot, Start
from schmier.protocol.names import look_alike
from schmier.rooms import fairness
from schmier.rooms.codes import hash_token, new_token
from schmier.rooms.peers import JoinRefused, Refused
from schmier.rooms.record import OPS_KEPT, RoomRecord, Seat, bot_seat, log_entry


class Entry(NamedTuple):
    """One accepted engine action for the log: the seat (None: the server's deal), the
    action, and for a deal the notes the log keeps with it (`record.log_entry`)."""

    seat: int | None
    action: Action
    notes: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Change:
    """The next record of a room and the log entries that led to it, not yet committed.

    `op` is the id of the forwarded operation that caused it (None for a local one); it is
    committed with the record (`RoomRecord.ops`), so a new owner can tell an operation
    already applied from one never seen.
    """

    record: RoomRecord
    entries: tuple[Entry, ...] = ()
    op: str | None = None

    def with_op(self, op: str | None) -> Change:
        """This change as caused by the forwarded operation `op`."""
        if op is None:
            return self
        return replace(self, op=op)

    def stored(self) -> RoomRecord:
        """The record as committed: with the operation id remembered, and with a next
        seed should the room come from a snapshot that had none (format 1)."""
        record = self.record
        if record.next_deal is None:
            record = replace(record, next_deal=fairness.NextDeal.fresh(len(record.seats)))
        if self.op is None:
            return record
        return replace(record, ops=(*record.ops, self.op)[-OPS_KEPT:])

    def log(self) -> list[bytes]:
        """The log entries as the store keeps them."""
        return [log_entry(e.seat, e.action.to_json(), e.notes) for e in self.entries]


class Shuffler(Protocol):
    """Where a room's chance comes from."""

    def first_dealer(self, seats: int) -> int:
        """The first dealer of a new game, uniformly among `seats`."""

    def server_seed(self) -> str:
        """A fresh server seed: 64 lowercase hex characters nobody can predict."""


class SecureShuffler:
    """The server's chance: the OS's CSPRNG, through `secrets` (RULES.md, step 1)."""

    def first_dealer(self, seats: int) -> int:
        return secrets.randbelow(seats)

    def server_seed(self) -> str:
        return fairness.new_seed()


def with_deal(
    record: RoomRecord,
    state: engine.State,
    entries: Sequence[Entry],
    shuffler: Shuffler,
    *,
    now: bool = False,
) -> Change:
    """`state` in the record, dealt first when the engine waits for a deal right now.

    A deal that follows a start, a rematch or a hand everybody passed is part of the same
    change, so nobody ever sees a room in the engine's `deal` phase. `now` also deals out
    of `hand_over` (the end of the pause between hands).

    The deck follows from the committed seed and the entropy sent so far; the log keeps
    both with the deal (and the seating), and a new seed is committed at once for the
    deal after, which may come at once too (everybody passes).
    """
    entries = tuple(entries)
    seats = len(record.seats)
    if engine.needs_deal(state) and (now or state.phase == "deal"):
        pending = record.next_deal or fairness.NextDeal.fresh(seats, shuffler.server_seed())
        deal = Action("deal", pending.deck(record.variant))
        state = engine.apply(state, None, deal)
        notes = {"deal": pending.revealed(), "seats": record.deal_seats()}
        entries = (*entries, Entry(None, deal, notes))
        following = fairness.NextDeal.fresh(seats, shuffler.server_seed())
        record = replace(record, next_deal=following, dealt=pending.commitment)
    return Change(replace(record, state=state), entries)


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
    if isinstance(frame, AddBot):
        return add_bot(record, frame.seat, frame.bot)
    if isinstance(frame, RemoveBot):
        return remove_bot(record, frame.seat)
    if isinstance(frame, Start):
        return start(record, shuffler)
    if isinstance(frame, ACTION_FRAMES):
        return act(record, seat, frame.action(), shuffler)
    if isinstance(frame, Entropy):
        return entropy(record, seat, frame.value)
    raise Refused("bad_message", f"a {frame.type!r} frame is not a table action")


def add_bot(record: RoomRecord, seat: int, bot: str | None = None) -> Change:
    """Lobby: a bot of level `bot` (None: the default bot) takes an empty seat."""
    if bot is not None and bot not in levels.BY_NAME:
        raise Refused("bad_message", f"unknown bot {bot!r}")
    _in_lobby(record)
    if not 0 <= seat < len(record.seats) or record.seats[seat].kind != "empty":
        raise Refused("illegal", "a bot can only sit in an empty seat")
    return Change(record.with_seat(seat, bot_seat(seat, bot)))


def remove_bot(record: RoomRecord, seat: int) -> Change:
    """Lobby: a bot's seat is freed."""
    _in_lobby(record)
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


def entropy(record: RoomRecord, seat: int, value: str) -> Change:
    """A seated player's randomness for the next deck (the last value sent counts).

    Accepted whenever a commitment is shown, which is always (the lobby included). It
    goes into the next deck dealt: the one committed to in the view the player saw, or,
    should that deal have come first, the one after, whose seed was fixed before too.
    """
    pending = record.next_deal
    if pending is None:
        raise Refused("illegal", "no deal is committed yet; try again in a moment")
    return Change(replace(record, next_deal=pending.with_entropy(seat, value)))


def _in_lobby(record: RoomRecord) -> None:
    if record.state is not None:
        raise Refused("illegal", "the game has already started")


def leave(record: RoomRecord, seat: int) -> Change:
    """A player gives the seat up: it empties in the lobby; in a game the default bot
    takes over."""
    replacement = Seat() if record.state is None else bot_seat(seat)
    return Change(record.with_seat(seat, replacement))


class Seating(NamedTuple):
    """A newcomer's seat: the change, the seat, its new token (shown to the player once;
    the record keeps its hash only), and whether a bot's hand was taken over."""

    change: Change
    seat: int
    token: str
    took_over: bool


def join(
    record: RoomRecord, name: str, wanted: int | None, *, present: Callable[[int], bool]
) -> Seating:
    """A newcomer takes `wanted` (or the first empty seat); taking a bot's seat takes
    over its hand. `present(seat)`: whether a socket already watches from that seat (a
    player who left and comes back on the same page), which then shows connected. A name
    that looks like another at the table (a bot's too; `names.look_alike`: equal names
    are the plainest case) is refused with 409."""
    seats = record.seats
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
    taken = (s.name for k, s in enumerate(seats) if k != seat and s.name is not None)
    if (other := look_alike(name, taken)) is not None:
        raise JoinRefused(409, f"the name {name!r} looks too much like {other!r}, at this table")
    token = new_token()
    human = Seat(kind="human", name=name, token_hash=hash_token(token), connected=present(seat))
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
