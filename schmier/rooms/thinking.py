"""Bot decisions and hints, computed off the event loop in the server's worker pool.

A search bot may take a few hundred milliseconds of a core per decision; on the event
loop that would freeze every room of the server. So a room only *asks*: `Thinking.move`
(a bot's turn, or an away or idle player's) and `Thinking.hint` (a player's question)
hand the seat's view and a seed to the server's `Pool` (`pool.py`, which runs moves
before hints and refuses what it cannot queue), and the answer comes back later as a
`mailbox.Thought`, which the actor handles like any other message, in order, on its own
task. Meanwhile the room goes on answering its humans.

A bot asks as its turn begins, not when its delay (`SCHMIER_BOT_DELAY`) is over: the
delay hides the workers' queue and the search, and the pool learns when the move is due
(it takes the soonest due first, and gives a decision the budget that still makes its
due time). A decision made early is held (`Clock.ready`) and played when the delay is
over; forced moves are held the same way. A held decision belongs to its game state:
a new state drops it and the bot asks again, except while the simultaneous discards go
on (`clock.turn_goes_on`: another seat's discard leaves this seat's choice as it was).

An answer that arrives after the room moved on (another game state, or a seat the bot
no longer plays, or an asker gone) is dropped, and a job still waiting when the room
moves on is withdrawn (`moved_on`): the clock asks again if it is still the bot's turn.
A worker that crashed gets the first legal action played instead (a room must never
stall on a bot) and the pool is rebuilt for the next decision. Forced moves (a single
legal action) never reach the pool. Each decision's seed is drawn from the room's own
random source when it is asked for, so a decision is a pure function of the view and
that seed, wherever it runs; the room's log keeps what was played.

Hints are a seat's, not a socket's: one computation per seat and game state, however
many sockets of the seat ask (they all get its answer, and a repeated question gets the
answer kept from the first), and computations are limited per seat
(`SCHMIER_HINT_BURST`, `SCHMIER_HINT_RATE`) and per room (`SCHMIER_ROOM_HINT_RATE`):
past a limit, or when the pool's queue is full, the asker gets `rate_limited`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import orjson

from schmier import engine
from schmier.engine.bots import levels
from schmier.engine.bots.explain import explain
from schmier.limits import TokenBucket
from schmier.logs import event, failure
from schmier.rooms import autoplay, table
from schmier.rooms.clock import Clock, turn_goes_on
from schmier.rooms.frames import room_view
from schmier.rooms.peers import Peer, Refused, Sockets
from schmier.rooms.pool import Answer, Busy, Pool, Priority, start_worker, work
from schmier.rooms.record import RoomRecord

__all__ = ["Job", "Pool", "Priority", "Thinking", "hint_frame", "start_worker", "work"]


@dataclass(eq=False)
class Job:
    """One decision asked of the pool, and what it was asked for."""

    seat: int
    state: engine.State
    """The game state it decides in: any other state, and the answer is dropped."""
    askers: list[Peer] | None
    """The sockets of the seat that asked for this hint; None for the seat's own move."""
    future: Future[Answer]

    @property
    def hint(self) -> bool:
        return self.askers is not None


@dataclass
class _Hints:
    """A room's hint limits, and the last hint of each seat (to answer a repeat)."""

    seat_burst: int
    seat_rate: float
    room: TokenBucket
    seats: dict[int, TokenBucket] = field(default_factory=dict)
    answered: dict[int, tuple[engine.State, Answer]] = field(default_factory=dict)

    def allow(self, seat: int) -> str | None:
        """Spend one computation of `seat` and of the room; why not, when refused."""
        bucket = self.seats.get(seat)
        if bucket is None:
            bucket = self.seats[seat] = TokenBucket(self.seat_burst, self.seat_rate)
        if not bucket.has():
            return "too many hints for this seat; ask again in a moment"
        if not self.room.take():
            return "too many hints at this table; ask again in a moment"
        bucket.take()
        return None


def hint_frame(version: int, action: Answer) -> bytes:
    """The protocol's `hint` frame (with the `options` the search weighed, if any)."""
    frame: dict[str, Any] = {"type": "hint", "seq": version, "action": action}
    if "options" in action:
        frame["action"] = {k: v for k, v in action.items() if k != "options"}
        frame["options"] = action["options"]
    return orjson.dumps(frame)


def _goes_on(made_in: engine.State, state: engine.State | None) -> bool:
    """Whether a move decided in `made_in` is still the one to play in `state`."""
    return state is not None and turn_goes_on(made_in, state)


def _dropped(job: Job) -> None:
    """Where a decision of a stopped room goes: nowhere."""


class Thinking:
    """The decisions one room is waiting for."""

    def __init__(
        self,
        pool: Pool,
        clock: Clock,
        post: Callable[[Job], None],
        peers: Sockets,
        shuffler: table.Shuffler,
    ) -> None:
        self._pool = pool
        self._clock = clock
        self._post = post
        """Hands a finished job to the room's mailbox (called on the event loop)."""
        self._peers = peers
        """The room's sockets: a hint goes to its askers only while they are there."""
        self._shuffler = shuffler
        self._loop = asyncio.get_running_loop()
        self._jobs: set[Job] = set()
        self._held: dict[int, tuple[engine.State, Answer | None]] = {}
        """Bots' decisions made before their delay was over, by seat, with the state
        they were made in (None: the bot failed; the fallback plays)."""
        settings = clock.settings
        self._hints = _Hints(
            settings.hint_burst,
            settings.hint_rate,
            TokenBucket(2 * settings.hint_burst, settings.room_hint_rate),
        )

    def move(self, record: RoomRecord, seat: int, rng: random.Random) -> table.Change | None:
        """The bot's turn at `seat` has come (or, for a bot, its delay is over): the
        change of a move decided already, or of a forced move once it is due; else None
        (the decision is asked for; its `Thought` brings it)."""
        state = record.state
        held = self._held.pop(seat, None)
        self._clock.ready.discard(seat)
        if state is None:
            return None
        if held is not None and turn_goes_on(held[0], state) and record.seats[seat].kind == "bot":
            return autoplay.play(record, seat, held[1], self._shuffler)
        if any(not j.hint and j.seat == seat for j in self._jobs):
            return None
        view = room_view(record, seat)
        legal = view["legal"]
        if not legal:
            return None
        only = autoplay.forced(legal)
        if only is not None:
            return self._played_or_held(record, seat, only)
        self._clock.thinking.add(seat)
        policy = autoplay.policy_for(record, seat)
        at = self._clock.bot_move_at(record, seat)
        lead = 0.0 if at is None else max(0.0, at - self._loop.time())
        self._ask(state, seat, None, policy, view, rng, Priority.MOVE, lead)
        return None

    def _played_or_held(
        self, record: RoomRecord, seat: int, answer: Answer | None
    ) -> table.Change | None:
        """The change of `seat`'s move `answer` now, or None when it is a bot's whose
        delay is not over yet: then the answer is held until it is."""
        at = self._clock.bot_move_at(record, seat)
        if at is not None and at > self._loop.time() and record.state is not None:
            self._held[seat] = (record.state, answer)
            self._clock.ready.add(seat)
            return None
        return autoplay.play(record, seat, answer, self._shuffler)

    def hint(
        self, record: RoomRecord, version: int, seat: int, asker: Peer, rng: random.Random
    ) -> None:
        """A seated player asks for a hint: sent to the asker at once for a forced move
        or a question this seat asked already in this state, else once the default bot
        has decided. Raises `Refused` (and then asks nothing)."""
        if not record.rules.hints:
            raise Refused("forbidden", "hints are turned off in this room")
        state = record.state
        if state is None or seat not in engine.turn(state):
            raise Refused("not_your_turn", "a hint is for your own turn")
        if self._asked_already(seat, state, version, asker):
            return
        view = room_view(record, seat)
        legal = view["legal"]
        if not legal:
            raise Refused("not_your_turn", "there is nothing for you to do now")
        only = autoplay.forced(legal)
        if only is not None:
            asker.send(hint_frame(version, only))
            return
        why = self._hints.allow(seat)
        if why is not None:
            raise Refused("rate_limited", why)
        policy = levels.level(None).policy
        try:
            self._ask(state, seat, [asker], policy, view, rng, Priority.HINT)
        except Busy:
            raise Refused("rate_limited", "the bots are busy; ask again in a moment") from None

    def _asked_already(self, seat: int, state: engine.State, version: int, asker: Peer) -> bool:
        """Whether `seat` asked in `state` already: then `asker` gets that answer (now,
        or with the others when it comes), and nothing is computed or counted again."""
        answered = self._hints.answered.get(seat)
        if answered is not None and answered[0] is state:
            asker.send(hint_frame(version, answered[1]))
            return True
        for job in self._jobs:
            if job.askers is not None and job.seat == seat and job.state is state:
                if asker not in job.askers:
                    job.askers.append(asker)
                return True
        return False

    def _ask(
        self,
        state: engine.State,
        seat: int,
        askers: list[Peer] | None,
        policy: str,
        view: dict[str, Any],
        rng: random.Random,
        priority: Priority,
        lead: float = 0.0,
    ) -> None:
        """Hand the decision to the pool (`lead`: seconds until the move is due)."""
        seed = rng.getrandbits(64)
        try:
            if askers is None:
                future = self._pool.submit(policy, view, seed, priority, lead)
            else:  # a hint says why: the values of the options weighed
                future = self._pool.call(explain, (policy, view, seed), priority)
        except RuntimeError as exc:  # shut down under a room still running: fall back
            future = Future()
            future.set_exception(exc)
        job = Job(seat, state, askers, future)
        self._jobs.add(job)
        # Let go of the job once it is back: the future holds its callback and the job
        # the future, a reference cycle that kept every bot move's job and game state
        # until a full collection.
        pending = [job]
        future.add_done_callback(lambda _f: self._back(pending.pop()))

    def _back(self, job: Job) -> None:
        """A decision is done (called in a worker's thread): to the room's own task."""
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
            self._loop.call_soon_threadsafe(self._post, job)

    def moved_on(self, state: engine.State | None) -> None:
        """The room's game state is now `state`: withdraw the jobs still waiting for a
        worker that were asked in another (their answers would be dropped anyway), and
        drop the decisions held for another (a move's stays while the discards go on)."""
        for job in self._jobs:
            if not self._still_asked(job, state):
                job.future.cancel()
        held = self._held.items()
        for seat in [s for s, (made_in, _) in held if not _goes_on(made_in, state)]:
            del self._held[seat]
            self._clock.ready.discard(seat)

    def arrived(self, record: RoomRecord, version: int, job: Job) -> table.Change | None:
        """A decision came back: the change of the bot's move, or None (a hint is sent
        to its askers here; an answer for a room that moved on is dropped)."""
        self._jobs.discard(job)
        if not job.hint:
            self._clock.thinking.discard(job.seat)
        if job.future.cancelled():
            return None
        answer = self._answer(record, job)
        options = None if answer is None else answer.pop("options", None)
        state = record.state
        if state is None or not self._still_asked(job, state) or job.seat not in engine.turn(state):
            return None
        legal = room_view(record, job.seat)["legal"]
        if answer is not None and not autoplay.is_legal(answer, legal):
            event("room.bot_refused", logging.WARNING, room=record.code, seat=job.seat)
            answer = None
        if job.askers is not None:
            hint = answer or autoplay.fallback_action(legal)
            if answer is not None and options:
                hint = {**hint, "options": options}
            self._hints.answered[job.seat] = (state, hint)
            for asker in job.askers:
                if asker in self._peers and asker.seat == job.seat:
                    asker.send(hint_frame(version, hint))
            return None
        # Still the room's move to make? Not once a person is back at the seat, say.
        due = self._clock.seat_due(record, job.seat, self._peers.has(job.seat))
        if due is None or due > self._loop.time():
            return None
        return self._played_or_held(record, job.seat, answer)

    @staticmethod
    def _still_asked(job: Job, state: engine.State | None) -> bool:
        """Whether `job` still answers in `state`: a hint only in its own state, a move
        also while the simultaneous discards go on."""
        if job.hint:
            return job.state is state
        return _goes_on(job.state, state)

    def _answer(self, record: RoomRecord, job: Job) -> Answer | None:
        """The job's answer; None when the bot failed (logged; the pool rebuilds itself
        after a dead worker)."""
        try:
            return job.future.result(timeout=0)
        except BrokenProcessPool:
            event("room.bot_crashed", room=record.code, seat=job.seat)
        except Exception:
            failure("room.bot_failed", room=record.code, seat=job.seat)
        return None

    def stop(self) -> None:
        """The room stopped: drop the decisions it no longer waits for, and the room's
        door (`post`, a method of the actor, which holds this: a reference cycle that
        kept a stopped room's actor, record and game until a full collection)."""
        for job in self._jobs:
            job.future.cancel()
        self._jobs.clear()
        self._held.clear()
        self._post = _dropped
