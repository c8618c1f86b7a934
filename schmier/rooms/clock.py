"""When a room does something by itself: a bot's move, autoplay for a player who went
quiet or whose turn timer ran out, the next deal after a scored hand or at the end of
the reveal window, the host's role passing on when the host has been away for
`host_away`, the idle stop. While the host has paused the game nothing of the game is
due, and a timed turn keeps what it had left.

Timers are not tasks. The clock keeps when each seat's turn began and when each player
left, and says when the next thing is due; the actor waits for its mailbox until then,
so every change of the room still happens on its one task. Nothing here reads a clock:
every method is told `now` (the actor's loop time), which keeps the rules of timing
plain to read and to test.

Two timers are kept in the room's record rather than here, as wall-clock times committed
with the change that starts them (`timed`), so that other instances and a restarted or
new owner go on with them: the turn timer (room rule `turn_seconds`), whose deadline is
shown to every viewer (`turn_ends_in`), and the reveal window before a deal
(`SCHMIER_REVEAL_MS`, docs/fairness.md). The clock only converts them to its own time
(`wall_offset`). In a room without a timer the turn's deadline holds the server's idle
limit (`SCHMIER_IDLE_TURN_SECONDS`, shown as `idle_ends_in`), so a connected player who
never acts has that turn played by the bot exactly as a timed-out one, on the same path.

The server's own timers are shifted by the room's phase (`stagger.py`), so that tables
which started or resumed together do not do this work together, turn after turn: a bot's
delay is up to a fifth shorter (`spread`); the idle stop, the grace before an absent
player's turn is played (`autoplay_after`) or the absent host's role passes on, and the
pause after a scored hand come up to a tenth later (at most `GRACE_CAP`,
`IDLE_STOP_CAP`, `HAND_PAUSE_CAP` seconds); the idle limit of a turn is up to
`IDLE_TURN_SHARE` shorter, and its deadline is shown as it will be played. A turn timer
set by the room's rules (`turn_seconds`), the reveal window and the review's lead grace
(bounded at 15 s, and rarely in step) are never shifted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from schmier import engine
from schmier.config import Settings
from schmier.rooms import stagger
from schmier.rooms.record import RoomRecord

RETRY_SECONDS = 1.0
"""How long timers wait after a store failure before they try again."""


def turn_goes_on(before: engine.State, state: engine.State) -> bool:
    """Whether the turns awaited in `state` went on from `before`: the same state, or
    the simultaneous discards of the same hand with fewer seats left to discard, each
    with the cards it had (what one seat decided for its discard is still good after
    another seat's)."""
    if before is state:
        return True
    if not (before.phase == state.phase == "discard" and before.deals == state.deals):
        return False
    awaited = set(engine.turn(before))
    return all(s in awaited and state.hands[s] == before.hands[s] for s in engine.turn(state))


class Due(NamedTuple):
    """Something the room will do by itself at `at`: deal (`seat` None) or move for a seat."""

    at: float
    seat: int | None


BOT_DELAY_SPREAD = 0.2
"""A bot's delay is up to this share shorter from turn to turn (never longer: a move
late by the workers' queue is measured from `bot_delay`): tables that started, or
resumed after a restart, at the same moment then drift apart instead of playing their
bots' moves in bursts, turn after turn (their decisions are asked as the turns begin,
and the workers take them soonest due first)."""


LATER_SHARE = 0.1
"""The share by which the graces of absent players, the idle stop and the pause after a
scored hand come later, room by room."""

GRACE_CAP = 5.0
"""Seconds the graces of absent players (`autoplay_after`, `host_away`) come later at most."""

IDLE_STOP_CAP = 30.0
"""Seconds the idle stop (`idle_room_seconds`, up to a tenth later) comes later at most."""

HAND_PAUSE_CAP = 0.5
"""Seconds the pause after a scored hand (up to a tenth longer) grows at most."""

IDLE_TURN_SHARE = 0.03
"""The share by which the idle limit of a turn (`idle_turn_seconds`) is shorter at most."""

IDLE_TURN_CAP = 4.0
"""Seconds by which the idle limit of a turn is shorter at most."""


def spread(seat: int, since: float, place: float = 0.0) -> float:
    """The factor on the bot delay of the turn of `seat` that began at `since` in the
    room of phase `place`: within 1 - `BOT_DELAY_SPREAD` and 1, the same however often
    it is asked (a hash, not a draw from the room's random source, which the game's log
    replays). The room's phase is in it because rooms resumed in one turn of the event
    loop read the same `since` (uvloop reads its clock once a turn)."""
    fraction = (hash((seat, since, place)) & 0xFFFF) / 0xFFFF
    return 1 - BOT_DELAY_SPREAD * fraction


@dataclass
class Clock:
    """The timing state of one live room (lost on a restart, which starts it afresh)."""

    settings: Settings
    now: float
    """When the room was loaded: every clock starts there."""
    wall_offset: float = 0.0
    """The wall clock (`time.time()`) minus the clock `now` is read from."""
    phase: float = 0.0
    """The room's place in time (`stagger.phase` of its code), which shifts the server's
    own timers (see the module)."""
    turn_since: dict[int, float] = field(default_factory=dict)
    """When the turn of each seat that is awaited began (bots wait `bot_delay` from it)."""
    phase_since: float = 0.0
    disconnected_since: dict[int, float] = field(default_factory=dict)
    autopilot: set[int] = field(default_factory=set)
    """Seats of absent players whose turns the bot plays at bot speed until they return."""
    thinking: set[int] = field(default_factory=set)
    """Seats whose bot is deciding (`thinking.py`): nothing is due for them meanwhile."""
    ready: set[int] = field(default_factory=set)
    """Bot seats whose decision is made and waits for the bot's delay (`thinking.py`):
    their move is due at `bot_move_at`. Emptied with every new game state, but for the
    seats still to discard while the others discard (`turn_goes_on`)."""
    idle_since: float | None = None
    """Since when no socket is connected (None: some is)."""
    retry_at: float = 0.0
    public_tricks: int = 0
    """Tricks finished in the last state seen (a new one earns the trick pause)."""

    def __post_init__(self) -> None:
        self.phase_since = self.now
        self.idle_since = self.now

    # ------------------------------------------------------------ events

    def loaded(self, seats: int, now: float) -> None:
        """The room was (re)loaded: nobody is connected yet, every clock starts now."""
        self.disconnected_since = dict.fromkeys(range(seats), now)
        self.public_tricks = 0

    def state_changed(
        self, before: engine.State | None, state: engine.State | None, now: float
    ) -> None:
        """Restart the clocks of the seats whose turn began with `state`.

        A seat still waited for in the same phase keeps its clock (simultaneous Schmier
        discards); after a completed trick the next turn starts `trick_pause` later, so a
        bot's card never hides the trick everybody is looking at.
        """
        if state is None or before is None or not turn_goes_on(before, state):
            self.ready.clear()  # decisions made in the state before
        else:
            self.ready &= set(engine.turn(state))
        if state is None:
            self.turn_since.clear()
            return
        tricks = len(state.tricks)
        completed_trick = tricks > self.public_tricks and state.phase == "play"
        self.public_tricks = tricks
        start = now + (self.settings.trick_pause if completed_trick else 0.0)
        keep = before is not None and before.phase == state.phase == "discard"
        self.turn_since = {
            seat: (self.turn_since.get(seat, start) if keep else start)
            for seat in engine.turn(state)
        }
        if before is None or before.phase != state.phase:
            self.phase_since = now

    def timed(self, before: RoomRecord, after: RoomRecord, wall: float) -> RoomRecord:
        """`after` (the record about to be committed over `before`) with its deadlines:
        the reveal window's (`_reveal_deadline`), and the turn's (`_turn_deadline`)."""
        after = _reveal_deadline(after, wall + self.settings.reveal_ms / 1000)
        return self._turn_deadline(before, after, wall)

    def resumed(self, record: RoomRecord, wall: float) -> RoomRecord:
        """`record` as just loaded, with an open reveal window lasting at least
        `SCHMIER_REVEAL_MS` from now: the players had to reconnect to the new owner,
        which asks them again for their values, and they get the time to answer.
        Not committed on its own (the change that follows saves it)."""
        pending = record.next_deal
        if pending is None or not pending.revealing:
            return record
        until = max(pending.reveal_until or 0.0, wall + self.settings.reveal_ms / 1000)
        return replace(record, next_deal=replace(pending, reveal_until=until))

    def _turn_deadline(self, before: RoomRecord, after: RoomRecord, wall: float) -> RoomRecord:
        """`after` with the deadline of its timed turn: none unless a person's turn is
        awaited and the room has a timer (or, without one, the server has an idle limit,
        `SCHMIER_IDLE_TURN_SECONDS`: that deadline is played exactly as the timer's, and
        shown as `idle_ends_in`); kept while the same turn goes on (a seat connecting,
        another seat's simultaneous discard); else `turn_seconds` from now, after the
        trick pause when a trick was just completed (the turn starts when the bots'
        would, `state_changed`).

        `wall`: the wall-clock time now. The deadline is one, and is counted from one, so
        the time left a view shows is never more than the turn's (the loop's clock and
        the wall clock drift apart by milliseconds; `wall_offset` is for the due times).
        """
        if after.paused:
            # Paused: the count stands still; what was left comes back on resume.
            if not before.paused and before.turn_deadline is not None:
                left = round(max(0.0, before.turn_deadline - wall), 3)
                after = replace(after, turn_left=left)
            return _with_deadline(after, None)
        # Resumed: the turn gets back the seconds it had left (if a person's it still is).
        kept = before.turn_left if before.paused and after.state is before.state else None
        if after.turn_left is not None:
            after = replace(after, turn_left=None)
        seconds = after.rules.turn_seconds * self.settings.turn_timer_scale
        if not seconds:  # no timer: the server's idle limit times the turn instead
            seconds = stagger.sooner(
                self.settings.idle_turn_seconds, self.phase, IDLE_TURN_SHARE, IDLE_TURN_CAP
            )
        state = after.state
        if not seconds or state is None:
            return _with_deadline(after, None)
        if not any(after.seats[seat].kind == "human" for seat in engine.turn(state)):
            return _with_deadline(after, None)
        if kept is not None:
            return _with_deadline(after, wall + kept)
        old = before.state
        # The simultaneous discards go on while only seats already awaited still are
        # (the Schmier dealer, who discards after the others, has a turn of their own).
        going_on = old is state or (
            old is not None
            and old.phase == state.phase == "discard"
            and set(engine.turn(state)) <= set(engine.turn(old))
        )
        if before.turn_deadline is not None and going_on:
            return _with_deadline(after, before.turn_deadline)
        completed = (
            state.phase == "play" and old is not None and len(state.tricks) > len(old.tricks)
        )
        start = wall + (self.settings.trick_pause if completed else 0.0)
        return _with_deadline(after, start + seconds)

    def came(self, seat: int | None) -> None:
        """A socket connected (at `seat`, or watching): the room is not idle; no autoplay."""
        self.idle_since = None
        if seat is not None:
            self.autopilot.discard(seat)

    def left(self, seat: int | None, now: float, *, anyone_left: bool) -> None:
        """A socket closed; `anyone_left`: whether the room still has a socket."""
        if not anyone_left:
            self.idle_since = now
        if seat is not None:
            self.disconnected_since[seat] = now

    def seated(self, seat: int, now: float) -> None:
        """A newcomer took `seat` (a join): its autoplay grace starts now."""
        self.autopilot.discard(seat)
        self.disconnected_since[seat] = now

    def pause_changed(self, record: RoomRecord, now: float) -> None:
        """The host paused or resumed the game. On resume every awaited seat's turn, and
        the pause after a scored hand, start again now: a bot waits its delay as after
        any turn, the score stays up its full time."""
        if record.paused or record.state is None:
            return
        self.turn_since = dict.fromkeys(engine.turn(record.state), now)
        self.phase_since = now

    def seats_moved(self, moves: dict[int, int | None]) -> None:
        """The players of seats moved (`hosting.seat_moves`): their clocks go with them."""
        for table in (self.disconnected_since, self.turn_since):
            old = {k: table.pop(k) for k in moves if k in table}
            for k, at in old.items():
                if (to := moves[k]) is not None:
                    table[to] = at
        self.ready -= moves.keys()
        pilots = {k for k in self.autopilot if k in moves}
        self.autopilot -= pilots
        self.autopilot |= {m for k in pilots if (m := moves[k]) is not None}

    def host_due(self, record: RoomRecord, present: Callable[[int], bool]) -> float | None:
        """When the host's role passes on: `host_away` after the host left, while some
        other person is connected; None while the host is there (or nobody else is)."""
        host = record.host
        if host is None or present(host) or record.seats[host].kind != "human":
            return None
        if not any(present(k) for k in record.humans() if k != host):
            return None
        return self.disconnected_since.get(host, self.now) + self._grace(self.settings.host_away)

    def lead_due(self, record: RoomRecord, present: Callable[[int], bool]) -> float | None:
        """When the lead of the shared review passes on: `lead_grace` after its leader
        left; None while the leader is there (or no review is open)."""
        review = record.review
        if review is None or present(review.leader):
            return None
        return self.disconnected_since.get(review.leader, self.now) + self.settings.lead_grace

    def review_closed(self, now: float) -> None:
        """The shared review closed: the pause that shows a scored hand starts again, so
        the next deal comes after its usual pause."""
        self.phase_since = now

    def failed(self, now: float) -> None:
        """The store failed: timers wait a moment before trying again."""
        self.retry_at = now + RETRY_SECONDS

    def autoplayed(self, seat: int, present: bool) -> bool:
        """The bot is about to play a person's turn: a player who is away (`present`
        false) has the following turns played at bot speed too, until they return; one
        whose timer ran out only that turn. Whether the player is away."""
        if not present:
            self.autopilot.add(seat)
        return not present

    # ------------------------------------------------------------ due times

    def seat_due(self, record: RoomRecord, seat: int, present: bool) -> float | None:
        """When the bot policy acts for `seat`, or None while a person has the turn
        untimed (or while the bot is already deciding).

        A bot's seat acts twice: as its turn begins it asks for its decision, so that
        the bot's delay hides the workers' queue and the search, and once the decision
        is made (`ready`) it plays it at `bot_move_at`. `present`: whether a socket of
        that seat is connected. A person's turn is played when the turn timer runs out,
        or (away) `autoplay_after` after the later of the turn's start and the player
        leaving, whichever comes first.
        """
        since = self.turn_since.get(seat)
        if since is None or seat in self.thinking or record.paused:
            return None
        kind = record.seats[seat].kind
        if kind == "bot":
            return self._bot_move_at(seat, since) if seat in self.ready else since
        if seat in self.autopilot:
            return self._bot_move_at(seat, since)
        if kind == "empty" and record.practice is not None:
            # Another table's seat nobody took: the default bot plays it once the join
            # grace (`autoplay_after`) from the room's making is over.
            grace = record.created - self.wall_offset + self.settings.autoplay_after
            return max(self._bot_move_at(seat, since), grace)
        if kind != "human":
            return None
        times = []
        if record.turn_deadline is not None:
            times.append(record.turn_deadline - self.wall_offset)
        if not present:
            gone = self.disconnected_since.get(seat, since)
            times.append(max(since, gone) + self._grace(self.settings.autoplay_after))
        return min(times, default=None)

    def bot_move_at(self, record: RoomRecord, seat: int) -> float | None:
        """When the bot at `seat` plays the decision it asked for as its turn began
        (None: not a bot's seat, or not its turn; such a seat asks when it is due)."""
        since = self.turn_since.get(seat)
        if since is None or record.seats[seat].kind != "bot":
            return None
        return self._bot_move_at(seat, since)

    def _bot_move_at(self, seat: int, since: float) -> float:
        return since + self.settings.bot_delay * spread(seat, since, self.phase)

    def due(self, record: RoomRecord, present: Callable[[int], bool]) -> list[Due]:
        """What the room will do by itself, soonest first (nothing while paused)."""
        state = record.state
        if state is None or record.paused:
            return []
        if engine.needs_deal(state):
            if (record.review or record.practice) and state.phase != "deal":
                # The table reviews a hand (the next waits until it is closed), or a
                # practice room has played its one hand.
                return []
            return [Due(self.deal_due(record, state), None)]
        out = []
        for seat in engine.turn(state):
            at = self.seat_due(record, seat, present(seat))
            if at is not None:
                out.append(Due(at, seat))
        return sorted(out)

    def deal_due(self, record: RoomRecord, state: engine.State) -> float:
        """When a room waiting for a deal acts: at the end of the reveal window while one
        is open (the values that came in are complete earlier, and deal at once, without
        the clock); right away in the engine's `deal` phase (a room loaded in it); after
        the pause that shows a scored hand (`hand_over`)."""
        pending = record.next_deal
        if pending is not None and pending.revealing:
            if pending.reveal_until is None:
                return self.phase_since
            return pending.reveal_until - self.wall_offset
        if state.phase == "deal":
            return self.phase_since
        pause = stagger.later(self.settings.hand_pause, self.phase, LATER_SHARE, HAND_PAUSE_CAP)
        return self.phase_since + pause

    def idle_due(self) -> float:
        """When the room stops for lack of sockets (inf while one is connected)."""
        if self.idle_since is None:
            return float("inf")
        idle = stagger.later(
            self.settings.idle_room_seconds, self.phase, LATER_SHARE, IDLE_STOP_CAP
        )
        return self.idle_since + idle

    def _grace(self, seconds: float) -> float:
        """An absent player's grace (`autoplay_after`, `host_away`) as this room keeps
        it: up to a tenth later, at most `GRACE_CAP` seconds."""
        return stagger.later(seconds, self.phase, LATER_SHARE, GRACE_CAP)

    def next_due(self, record: RoomRecord, present: Callable[[int], bool]) -> float | None:
        """When the actor must wake up next without a message (None: never)."""
        times = [d.at for d in self.due(record, present)]
        for other in (self.host_due(record, present), self.lead_due(record, present)):
            if other is not None:
                times.append(other)
        idle = self.idle_due()
        if idle != float("inf"):
            times.append(idle)
        if not times:
            return None
        return max(min(times), self.retry_at)

    def first_due(
        self, record: RoomRecord, present: Callable[[int], bool], now: float
    ) -> Due | None:
        """The timer to run at `now`, if any is due (none while a retry waits)."""
        if now < self.retry_at:
            return None
        due = [d for d in self.due(record, present) if d.at <= now]
        return due[0] if due else None


def _reveal_deadline(record: RoomRecord, deadline: float) -> RoomRecord:
    """`record` with `deadline` as the end of its reveal window when the window opens
    with it (a window already open keeps its end)."""
    pending = record.next_deal
    if pending is None or not pending.revealing or pending.reveal_until is not None:
        return record
    return replace(record, next_deal=replace(pending, reveal_until=deadline))


def _with_deadline(record: RoomRecord, deadline: float | None) -> RoomRecord:
    """`record` with its turn deadline set (itself when it has that one already)."""
    if record.turn_deadline == deadline:
        return record
    return replace(record, turn_deadline=deadline)
