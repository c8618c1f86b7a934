"""Bot decisions and hints, computed off the event loop in a bounded pool of workers.

A search bot may take a few hundred milliseconds of a core per decision; on the event
loop that would freeze every room of the server. So a room only *asks*: `Thinking.move`
(a bot's turn, or an away player's) and `Thinking.hint` (a player's question) hand the
seat's view and a seed to the server's `Pool`, and the answer comes back later as a
`mailbox.Thought`, which the actor handles like any other message, in order, on its own
task. Meanwhile the room goes on answering its humans.

An answer that arrives after the room moved on (another game state, or a seat the bot
no longer plays, or an asker gone) is dropped: the clock asks again if it is still the
bot's turn. A worker that crashed gets the first legal action played instead (a room
must never stall on a bot) and the pool is rebuilt for the next decision. Forced moves
(a single legal action) never reach the pool. Each decision's seed is drawn from the
room's own random source when it is asked for, so a decision is a pure function of the
view and that seed, wherever it runs; the room's log keeps what was played.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import orjson

from schmier import engine
from schmier.engine import bots
from schmier.engine.bots import levels
from schmier.logs import event, failure
from schmier.rooms import autoplay, table
from schmier.rooms.clock import Clock
from schmier.rooms.frames import room_view
from schmier.rooms.peers import Peer, Refused, Sockets
from schmier.rooms.record import RoomRecord

Answer = dict[str, Any]


def work(policy: str, view: dict[str, Any], seed: int) -> Answer:
    """What a worker runs: the policy's answer to the view, from a random source of its
    own seeded with `seed` (the same view and seed give the same answer anywhere)."""
    return bots.choose(policy, view, random.Random(seed))


#: How often a worker looks whether the server that started it is still there.
PARENT_CHECK_SECONDS = 0.5


def start_worker(nice: int, server: int) -> None:
    """A worker's initializer: run `nice` steps below the server, so that when bots and
    the event loop want the same core, the loop (every human's next view) comes first;
    and end the worker once the server process `server` is gone (`watch_parent`)."""
    with contextlib.suppress(OSError, AttributeError):  # not allowed, or not Unix
        os.nice(nice)
    threading.Thread(target=watch_parent, args=(server,), name="parent-watch", daemon=True).start()


def watch_parent(server: int) -> None:
    """End this worker when its parent is no longer `server`.

    A worker waits for its next decision on a pipe it holds both ends of, so a server
    killed with SIGKILL (which rooms are built to survive) never reaches it as an end of
    file: without this, every killed server would leave its workers (and their
    multiprocessing resource tracker) running forever, re-parented to init. The parent's
    death signal (`PR_SET_PDEATHSIG`) is not used: it fires when the *thread* that
    started the process ends, and the pool starts workers from whichever thread submits.
    """
    while os.getppid() == server:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)


class Pool:
    """The server's workers for bot decisions, shared by its rooms.

    `workers` processes (``SCHMIER_BOT_WORKERS``); 0 runs decisions in one thread of the
    server's own process instead (tests, development), still off the event loop. The
    processes start on the first decision, spawned (never forked from a server full of
    threads and sockets), at `nice` steps below the server's priority
    (``SCHMIER_BOT_NICE``).
    """

    def __init__(self, workers: int, nice: int = 0) -> None:
        self.workers = workers
        self.nice = nice
        self._executor: Executor | None = None
        self._closed = False
        self._lock = threading.Lock()  # the executor is also reached from other threads
        self.rebuilt = 0
        """How many times a broken pool was replaced."""

    @property
    def executor(self) -> Executor:
        """The executor decisions go to now (started on first use)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the bot pool is shut down")
            if self._executor is None:
                if self.workers == 0:
                    self._executor = ThreadPoolExecutor(1, thread_name_prefix="bot")
                else:
                    context = multiprocessing.get_context("spawn")
                    self._executor = ProcessPoolExecutor(
                        self.workers,
                        mp_context=context,
                        initializer=start_worker,
                        initargs=(self.nice, os.getpid()),
                    )
            return self._executor

    def warm(self) -> None:
        """Start the worker processes now (the server starts), so the first bot's move
        does not wait for a process to start and import the server's code."""
        if self.workers > 0:
            executor = self.executor
            for _ in range(self.workers):
                executor.submit(os.getpid)

    def submit(
        self, policy: str, view: dict[str, Any], seed: int
    ) -> tuple[Executor, Future[Answer]]:
        """Hand one decision to a worker: the executor it went to, and its future."""
        executor = self.executor
        try:
            return executor, executor.submit(work, policy, view, seed)
        except BrokenProcessPool:
            self.broken(executor)
            executor = self.executor
            return executor, executor.submit(work, policy, view, seed)

    def broken(self, executor: Executor) -> None:
        """A worker of `executor` died: replace that pool (once, however many decisions
        it took down with it)."""
        with self._lock:
            if executor is not self._executor:
                return
            self._executor = None
            self.rebuilt += 1
        executor.shutdown(wait=False, cancel_futures=True)
        event("bots.pool_rebuilt", workers=self.workers)

    async def close(self) -> None:
        """Stop the workers (the rooms have stopped first); decisions queued are dropped."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, True, cancel_futures=True)


@dataclass(eq=False)
class Job:
    """One decision asked of the pool, and what it was asked for."""

    seat: int
    state: engine.State
    """The game state it decides in: any other state, and the answer is dropped."""
    asker: Peer | None
    """The socket that asked for a hint; None for the seat's own move."""
    executor: Executor | None
    future: Future[Answer]


def hint_frame(version: int, action: Answer) -> bytes:
    """The protocol's `hint` frame."""
    return orjson.dumps({"type": "hint", "seq": version, "action": action})


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
        """The room's sockets: a hint goes to its asker only while it is there."""
        self._shuffler = shuffler
        self._loop = asyncio.get_running_loop()
        self._jobs: set[Job] = set()

    def move(self, record: RoomRecord, seat: int, rng: random.Random) -> table.Change | None:
        """The bot's turn at `seat` has come: a forced move's change at once, else None
        (the decision is asked for; its `Thought` brings it)."""
        state = record.state
        if state is None or any(j.asker is None and j.seat == seat for j in self._jobs):
            return None
        view = room_view(record, seat)
        legal = view["legal"]
        if not legal:
            return None
        only = autoplay.forced(legal)
        if only is not None:
            return autoplay.play(record, seat, only, self._shuffler)
        self._clock.thinking.add(seat)
        self._ask(state, seat, None, autoplay.policy_for(record, seat), view, rng)
        return None

    def hint(
        self, record: RoomRecord, version: int, seat: int, asker: Peer, rng: random.Random
    ) -> None:
        """A seated player asks for a hint: sent to the asker at once for a forced move,
        else once the default bot has decided. Raises `Refused` (and then asks nothing)."""
        if not record.rules.hints:
            raise Refused("forbidden", "hints are turned off in this room")
        state = record.state
        if state is None or seat not in engine.turn(state):
            raise Refused("not_your_turn", "a hint is for your own turn")
        view = room_view(record, seat)
        legal = view["legal"]
        if not legal:
            raise Refused("not_your_turn", "there is nothing for you to do now")
        only = autoplay.forced(legal)
        if only is not None:
            asker.send(hint_frame(version, only))
        elif not any(j.asker is asker and j.state is state for j in self._jobs):
            self._ask(state, seat, asker, levels.level(None).policy, view, rng)

    def _ask(
        self,
        state: engine.State,
        seat: int,
        asker: Peer | None,
        policy: str,
        view: dict[str, Any],
        rng: random.Random,
    ) -> None:
        seed = rng.getrandbits(64)
        executor: Executor | None = None
        try:
            executor, future = self._pool.submit(policy, view, seed)
        except RuntimeError as exc:  # shut down under a room still running: fall back
            future = Future()
            future.set_exception(exc)
        job = Job(seat, state, asker, executor, future)
        self._jobs.add(job)
        future.add_done_callback(lambda _f: self._back(job))

    def _back(self, job: Job) -> None:
        """A decision is done (called in a worker's thread): to the room's own task."""
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
            self._loop.call_soon_threadsafe(self._post, job)

    def arrived(self, record: RoomRecord, version: int, job: Job) -> table.Change | None:
        """A decision came back: the change of the bot's move, or None (a hint is sent
        to its asker here; an answer for a room that moved on is dropped)."""
        self._jobs.discard(job)
        if job.asker is None:
            self._clock.thinking.discard(job.seat)
        answer = self._answer(record, job)
        state = record.state
        if state is not job.state or job.seat not in engine.turn(state):
            return None
        legal = room_view(record, job.seat)["legal"]
        if answer is not None and not autoplay.is_legal(answer, legal):
            event("room.bot_refused", logging.WARNING, room=record.code, seat=job.seat)
            answer = None
        if job.asker is not None:
            if job.asker in self._peers and job.asker.seat == job.seat:
                job.asker.send(hint_frame(version, answer or autoplay.fallback_action(legal)))
            return None
        # Still the room's move to make? Not once a person is back at the seat, say.
        due = self._clock.seat_due(record, job.seat, self._peers.has(job.seat))
        if due is None or due > self._loop.time():
            return None
        return autoplay.play(record, job.seat, answer, self._shuffler)

    def _answer(self, record: RoomRecord, job: Job) -> Answer | None:
        """The job's answer; None when the bot failed (logged; a dead worker's pool is
        rebuilt)."""
        try:
            return job.future.result(timeout=0)
        except BrokenProcessPool:
            event("room.bot_crashed", room=record.code, seat=job.seat)
            if job.executor is not None:
                self._pool.broken(job.executor)
        except Exception:
            failure("room.bot_failed", room=record.code, seat=job.seat)
        return None

    def stop(self) -> None:
        """The room stopped: drop the decisions it no longer waits for."""
        for job in self._jobs:
            job.future.cancel()
        self._jobs.clear()
