"""The server's worker pool for bot decisions, hints and analyses: fair shares.

Every room of a server decides in the same few workers (one on a two-core box), so the
pool is a shared resource that one player must not be able to take from the others.
Three rules make it fair:

- **Priorities.** A job waits in the pool's own queue, not in the executor's, and a
  free worker always takes the most urgent job waiting: a bot's (or an away player's)
  move, which a whole table is waiting for, before a hint, which only its asker waits
  for, before one decision of a finished hand's analysis; within a priority the soonest
  due first (a bot's move, asked as its turn begins, is due when its delay is over;
  anything else when it was asked: first come, first served). At most `capacity` jobs
  are in the executor at once, so a move never queues behind more than the jobs already
  running.
- **A bounded queue, refused rather than waited on.** Jobs below `MOVE` may wait only
  while fewer than `queue_limit` of them are waiting; past that `submit` raises `Busy`
  at once and the room answers `rate_limited`. Moves are never refused: a room asks for
  at most one per seat at a time, so they are bounded by the tables themselves.
- **Analyses only on a core nobody else wants.** A worker runs an analysis's decision
  in a thread at `SCHED_IDLE` (`run_idle`), so that it never delays the server's event
  loop, nor a bot's move, by a scheduler slice.
- **Cancelled means gone.** A waiting job whose future was cancelled (its room moved
  on, or stopped) never reaches a worker.

Hints are also limited per seat and per room before they get here (`thinking.py`). How
much a search may think is chosen as its job leaves the queue (`budget.py`): less when
moves queue, so that a busy server's bots play weaker rather than later.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from schmier.logs import event
from schmier.rooms import budget

Answer = dict[str, Any]


class Priority(IntEnum):
    """How urgent a job is; lower goes first."""

    MOVE = 0
    """A bot's move, or an away or idle player's: the whole table waits for it."""
    HINT = 1
    """A player's question about their own turn: only the asker waits."""
    ANALYSIS = 2
    """One decision of a finished hand's analysis: a review waits, never a table."""


class Busy(Exception):
    """The pool's queue is full: the job is refused, not queued."""


def work(policy: str, view: dict[str, Any], seed: int, ratio: float = 1.0) -> Answer:
    """What a worker runs: the policy's answer to the view with `ratio` of its full
    budget (`budget.decide`), from a random source of its own seeded with `seed` (the
    same view, seed and ratio give the same answer anywhere)."""
    return budget.decide(policy, view, random.Random(seed), ratio)


#: How often a worker looks whether the server that started it is still there.
PARENT_CHECK_SECONDS = 0.5

CLOSE_GRACE = 5.0
"""Seconds a stopping server waits for the decisions its workers have in hand before
it ends the worker processes (`Pool.close`)."""


def end_workers() -> int:
    """End (SIGTERM) every worker process this process started; how many there were.

    The pool's workers are this process's only `multiprocessing` children (a server
    starts none other), so no private attribute of the executor is needed to find them.
    Their executor sees them gone and fails what they had in hand."""
    children = multiprocessing.active_children()
    for child in children:
        child.terminate()
    return len(children)


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


_idle_thread: ThreadPoolExecutor | None = None
_idle_lock = threading.Lock()


def run_idle(function: Callable[..., Answer], *args: Any) -> Answer:
    """Run `function(*args)` in this process's idle thread and wait for it: what a
    worker does with a job at priority `ANALYSIS`.

    Why a thread of its own: niceness is not enough to keep a search off the humans'
    core. On a kernel that lets the running task finish its slice before a waking one
    (EEVDF's run-to-parity), a server woken by a player's card waits up to a slice
    (a few milliseconds) behind a worker at niceness 10; an analysis keeps a worker busy
    for seconds, so that wait reached the players' p99 at 300 tables (2.65 -> 5.17 ms,
    bench/results/2026-12-05-scrape-stall.md). A thread at `SCHED_IDLE` is preempted at
    once by any other task that wakes, and gets a core only when nothing else wants it.
    Linux sets the policy per thread, and a thread may lower its own policy but not
    raise it again without privileges, so the worker's main thread (bots' moves, hints)
    keeps its niceness and the analyses run in this lowered thread, the main thread
    waiting for it without using the CPU."""
    global _idle_thread
    with _idle_lock:
        if _idle_thread is None:
            _idle_thread = ThreadPoolExecutor(
                1, thread_name_prefix="analysis", initializer=lower_to_idle
            )
        executor = _idle_thread
    return executor.submit(function, *args).result()


def lower_to_idle() -> None:
    """Put the calling thread at `SCHED_IDLE` (where the system has it)."""
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


@dataclass(order=True)
class _Ticket:
    """A job waiting for a worker (ordered by priority, then soonest due first, then by
    arrival)."""

    priority: int
    due: float
    """When its answer is wanted (`time.monotonic`): when it was asked, or for a bot's
    move asked as its turn began, when its delay is over."""
    number: int
    call: tuple[Callable[..., Answer], tuple[Any, ...]] = field(compare=False)
    future: Future[Answer] = field(compare=False)
    step: budget.Step | None = field(compare=False, default=None)
    """The budget a search decision got as it left the queue (None: not a search)."""


class Pool:
    """The server's workers for bot decisions, shared by its rooms.

    `workers` processes (``SCHMIER_BOT_WORKERS``); 0 runs decisions in one thread of the
    server's own process instead (tests, development), still off the event loop. The
    processes start on the first decision, spawned (never forked from a server full of
    threads and sockets), at `nice` steps below the server's priority
    (``SCHMIER_BOT_NICE``). `queue_limit` (``SCHMIER_THINK_QUEUE``): how many jobs below
    `MOVE` may wait for a worker.
    """

    def __init__(
        self, workers: int, nice: int = 0, queue_limit: int = 32, slack: float = 0.5
    ) -> None:
        self.workers = workers
        self.nice = nice
        self.capacity = max(1, workers)
        """Jobs handed to the executor at once: one per worker."""
        self.queue_limit = queue_limit
        self._executor: Executor | None = None
        self._closed = False
        self._lock = threading.Lock()  # the pool is also reached from worker threads
        self._waiting: list[_Ticket] = []
        self._running = 0
        self._numbers = itertools.count()
        self.rebuilt = 0
        """How many times a broken pool was replaced."""
        self.refused = 0
        """How many jobs were refused because the queue was full."""
        self.budgets = budget.Budgets(slack)
        """The budget each search decision gets (``SCHMIER_BOT_SLACK``: `slack`)."""
        self._in_hand: set[Future[Answer]] = set()
        """The executor's futures of the jobs a worker has in hand now."""

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
        self,
        policy: str,
        view: dict[str, Any],
        seed: int,
        priority: Priority = Priority.MOVE,
        lead: float = 0.0,
    ) -> Future[Answer]:
        """Ask for one decision: its future (cancel it to withdraw a job still waiting).
        `lead`: seconds from now until the answer is wanted (a bot's delay still to run).

        Raises `Busy` for a job below `MOVE` when `queue_limit` such jobs already wait,
        and RuntimeError once the pool is shut down."""
        return self.call(work, (policy, view, seed), priority, lead)

    def call(
        self,
        function: Callable[..., Answer],
        args: tuple[Any, ...],
        priority: Priority,
        lead: float = 0.0,
    ) -> Future[Answer]:
        """Run `function(*args)` in a worker at `priority` (see `submit`)."""
        future: Future[Answer] = Future()
        due = time.monotonic() + max(0.0, lead)
        ticket = _Ticket(priority, due, next(self._numbers), (function, args), future)
        with self._lock:
            if self._closed:
                raise RuntimeError("the bot pool is shut down")
            if self._running < self.capacity:
                self._running += 1
                start = True
            else:
                if priority != Priority.MOVE and self._queued_below_moves() >= self.queue_limit:
                    self.refused += 1
                    raise Busy("the workers are busy")
                heapq.heappush(self._waiting, ticket)
                start = False
        if start:
            self._start(ticket)
        return future

    def waiting(self) -> int:
        """Jobs waiting for a worker now (cancelled ones not counted)."""
        return sum(self.waiting_by_kind())

    def waiting_by_kind(self) -> tuple[int, int]:
        """(moves, other jobs) waiting for a worker now (cancelled ones not counted)."""
        with self._lock:
            live = [t for t in self._waiting if not t.future.cancelled()]
        moves = sum(1 for t in live if t.priority == Priority.MOVE)
        return moves, len(live) - moves

    def _budgeted(self, ticket: _Ticket) -> tuple[Any, ...]:
        """The arguments of `ticket`'s call, with the budget of a search decision chosen
        now that it leaves the queue (`budget.Budgets.choose`)."""
        function, args = ticket.call
        if function is not work or args[0] not in budget.SCALED:
            return args
        now = time.monotonic()
        with self._lock:
            behind = [
                t.due
                for t in self._waiting
                if t.priority == Priority.MOVE and not t.future.cancelled()
            ]
        queue = budget.Queue(
            late=now - ticket.due,
            behind=len(behind),
            late_behind=now - min(behind) if behind else 0.0,
            workers=self.capacity,
        )
        ticket.step = self.budgets.choose(ticket.priority == Priority.MOVE, queue)
        return (*args[:3], ticket.step.ratio)

    def _queued_below_moves(self) -> int:
        """Jobs below `MOVE` waiting (called with the lock held); drops cancelled ones."""
        if any(t.future.cancelled() for t in self._waiting):
            self._waiting = [t for t in self._waiting if not t.future.cancelled()]
            heapq.heapify(self._waiting)
        return sum(1 for t in self._waiting if t.priority != Priority.MOVE)

    def _start(self, ticket: _Ticket) -> None:
        """Hand `ticket` to the executor (a slot is reserved for it), or, when it was
        cancelled meanwhile, give the slot to the next one."""
        if not ticket.future.set_running_or_notify_cancel():
            self._next()
            return
        function, _ = ticket.call
        args = self._budgeted(ticket)
        if ticket.priority == Priority.ANALYSIS:
            function, args = run_idle, (function, *args)
        started = time.monotonic()
        try:
            executor = self.executor
            try:
                inner = executor.submit(function, *args)
            except BrokenProcessPool:
                self.broken(executor)
                executor = self.executor
                inner = executor.submit(function, *args)
        except BaseException as exc:  # shut down meanwhile: the job fails, the slot frees
            ticket.future.set_exception(exc)
            self._next()
            return
        with self._lock:
            self._in_hand.add(inner)
        inner.add_done_callback(lambda done: self._finished(ticket, executor, done, started))

    def _finished(
        self, ticket: _Ticket, executor: Executor, done: Future[Answer], started: float
    ) -> None:
        """A worker is done with `ticket` (called in a pool thread): pass the outcome on,
        then let the next job waiting have the worker."""
        with self._lock:
            self._in_hand.discard(done)
        if ticket.step is not None and not done.cancelled() and done.exception() is None:
            self.budgets.done(ticket.step, time.monotonic() - started)
        if done.cancelled():
            ticket.future.set_exception(RuntimeError("the bot pool is shut down"))
        elif (exc := done.exception()) is not None:
            if isinstance(exc, BrokenProcessPool):
                self.broken(executor)
            ticket.future.set_exception(exc)
        else:
            ticket.future.set_result(done.result())
        self._next()

    def _next(self) -> None:
        """A slot is free: start the most urgent job still wanted, if any waits."""
        with self._lock:
            while self._waiting:
                ticket = heapq.heappop(self._waiting)
                if not ticket.future.cancelled():
                    break
            else:
                self._running -= 1
                return
        self._start(ticket)

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

    async def close(self, grace: float = CLOSE_GRACE) -> None:
        """Stop the workers (the rooms have stopped first); decisions queued are dropped.

        The decisions the workers have in hand get `grace` seconds to end; worker
        processes still busy after that are ended (`bots.workers_ended`, a warning),
        since nobody waits for their answers any more. Why not wait for them: a
        decision takes well under a second, but an analysis's runs at `SCHED_IDLE`,
        and on a host whose cores other programs keep busy it got no CPU for minutes,
        with the stop waiting for it. A pool without processes (0 workers) cannot end
        its thread: past the grace the stop goes on without it (`bots.thread_left`, a
        warning), and the thread ends with its decision, whose answer nobody takes."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
            waiting, self._waiting = self._waiting, []
        for ticket in waiting:
            ticket.future.cancel()
        if executor is None:
            return
        if not isinstance(executor, ProcessPoolExecutor):
            executor.shutdown(wait=False, cancel_futures=True)
            with self._lock:
                in_hand = [asyncio.wrap_future(inner) for inner in self._in_hand]
            if in_hand:
                _, unfinished = await asyncio.wait(in_hand, timeout=grace)
                if unfinished:
                    event(
                        "bots.thread_left", logging.WARNING, decisions=len(unfinished), grace=grace
                    )
            return
        shutdown = asyncio.ensure_future(
            asyncio.to_thread(executor.shutdown, True, cancel_futures=True)
        )
        _, pending = await asyncio.wait({shutdown}, timeout=grace)
        if pending:
            ended = end_workers()
            event("bots.workers_ended", logging.WARNING, processes=ended, grace=grace)
        await shutdown
