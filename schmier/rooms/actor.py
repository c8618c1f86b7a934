"""One actor per live room: the only code that changes a room.

The actor is an asyncio task reading its mailbox. It handles one thing at a time (a connection,
a frame, a join, a disconnection, a timer; players' moves waiting together as one, `moves.py`),
so the rules need no locks and every seat sees the same order of events. For each thing it asks
`table` for the next record, commits that change to the store (compare-and-set on the version)
and only then adopts it and sends every view, so nobody ever sees a state that a crash could
take back; `seq` is the store version. A commit either succeeds or raises, and the code that
asked for it alone decides what is sent then. The commit that ends a game also fills the
archive's outbox (`finished.py`).

Timers (bots, the pause between hands, autoplay for a silent player or a turn out of time, the
idle stop) come from the room's `Clock`: the loop waits for its mailbox until the next one is
due. Bots decide in the server's worker pool, never on the loop.

With several instances on one Redis the actor runs only on the instance holding the room's
lease, and every commit carries the lease value, so the store refuses it once the lease is gone
(`LeaseLost`: the actor stops at once). Sockets on other instances are peers whose `instance`
is set: the actor publishes each new snapshot to their instances through its `Link` (the
cluster), which also brings their forwarded operations in.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any

from schmier.config import Settings
from schmier.logs import event, failure
from schmier.metrics import Metrics
from schmier.protocol import Chat, ClientFrame, CloseCode, Hello, Hint, Leave, Start
from schmier.rooms import chat, fairness, finished, mailbox, moves, outage, seats, table, thinking
from schmier.rooms.clock import Clock
from schmier.rooms.frames import LatestFrames
from schmier.rooms.peers import (
    JoinRefused,
    Link,
    Peer,
    Refused,
    RoomGone,
    Sockets,
    seat_of,
)
from schmier.rooms.record import RoomRecord
from schmier.rooms.stagger import phase as phase_of
from schmier.rooms.table import Change, SecureShuffler, Shuffler
from schmier.rooms.together import announce, frame_of
from schmier.store import LeaseLost, RoomStore, StoreError, StoreUnavailable, VersionConflict


class RoomActor(mailbox.Door):
    """The owner of one live room."""

    def __init__(
        self,
        record: RoomRecord,
        version: int,
        *,
        store: RoomStore,
        settings: Settings,
        metrics: Metrics,
        on_exit: Callable[[RoomActor], None],
        lease: str | None = None,
        link: Link[RoomActor] | None = None,
        shuffler: Shuffler | None = None,
        pool: thinking.Pool,
    ) -> None:
        super().__init__(record.code)
        self.record = record
        self.version = version
        self.lease = lease  # the value every commit must match (None: no lease, one instance)
        self.lost = False  # the lease is gone: nothing more may be written or answered
        self.remote_peers: dict[tuple[str, str], Peer] = {}
        """Sockets of other instances, by (instance, socket id); kept by the cluster."""
        self._store = store
        self._settings = settings
        self._metrics = metrics
        self._on_exit = on_exit
        self._link = link
        self._shuffler = shuffler = shuffler or SecureShuffler()
        self._peers = Sockets.for_settings(settings)
        self._rng = random.Random(secrets.randbits(64))
        self._loop = asyncio.get_running_loop()
        now = self._loop.time()
        self.clock = Clock(
            settings, now, wall_offset=time.time() - now, phase=phase_of(record.code)
        )
        self._thinking = thinking.Thinking(pool, self.clock, self.thought, self._peers, shuffler)
        self._talk = chat.Talk(store, self.code, settings, lease)
        self._task: asyncio.Task[None] | None = None
        self._frames = LatestFrames()
        self._stopping = False
        self.outage = outage.Outage(store, link, self._peers, self.clock)
        """Paused while the store is unreachable (`schmier/rooms/outage.py`)."""

    # ------------------------------------------------------------ outside API

    def start(self) -> None:
        """Run the actor's loop as a task."""
        self._task = self._loop.create_task(self._run(), name=f"room:{self.code}")

    async def stop(self) -> None:
        """Stop after the message in flight, closing every socket with 1012."""
        if self.closed or self._task is None:
            return
        self._stopping = True
        if not self._mailbox.try_put(mailbox.Stop()):
            self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)

    def remote_instances(self) -> set[str]:
        """The instances holding sockets in this room."""
        return self._peers.instances()

    def info(self) -> dict[str, Any]:
        """The room as `GET /api/rooms/{code}` shows it."""
        return self.record.info()

    # ------------------------------------------------------------ the loop

    async def _run(self) -> None:
        instances: set[str] = set()
        try:
            await self._resume()
            while True:
                due = self.clock.next_due(self.record, self._peers.has)
                try:
                    async with asyncio.timeout_at(due):
                        message = await self._mailbox.get()
                except TimeoutError:
                    if self.clock.idle_due() <= self._loop.time() and self._mailbox.empty():
                        event("room.idle_stop", room=self.code, seq=self.version)
                        break
                    await self._guard(self._on_timer())
                    continue
                if isinstance(message, mailbox.Stop):
                    break
                await self._step(message)
                # Not kept while the room waits: a room whose last socket closed would
                # hold that socket (and its connection's objects) until its idle stop.
                del message
        except asyncio.CancelledError:
            pass
        except LeaseLost:
            # Another instance owns the room now: stop serving it, write nothing more.
            self.lost = self._stopping = True
            event("room.lease_lost", room=self.code, seq=self.version)
        except Exception:
            failure("room.crashed", room=self.code)
        finally:
            instances = self._exit()
        if self._link is not None:
            await self._link.finished(self, lost=self.lost, instances=instances)

    async def _step(self, message: mailbox.Message) -> None:
        """Handle `message`, with the players' moves waiting behind it when it is one
        (`moves.py`); each one's time from reaching the room is the action latency."""
        taken = moves.waiting(message, self._mailbox)
        now = time.perf_counter()
        started = [m.queued if isinstance(m, mailbox.Frame) else now for m in taken]
        if len(taken) > 1:
            await self._guard(self.apply_moves(taken))
        else:
            await self._guard(self._handle(message))
        now = time.perf_counter()
        for since in started:
            self._metrics.latency.observe(now - since)

    def _exit(self) -> set[str]:
        """Close the local sockets; the instances holding the room's other sockets.

        Those are not closed: their instance takes the room over (or finds the new owner)
        once told that this one gave it up."""
        self.closed = True
        self._thinking.stop()
        self._on_exit(self)
        code = CloseCode.SERVICE_RESTART if self._stopping else CloseCode.INTERNAL_ERROR
        instances = self._peers.close_own(code)
        self.remote_peers.clear()
        self._mailbox.refuse_all(RoomGone(self.code))
        return instances

    async def _guard(self, work: Coroutine[Any, Any, None]) -> None:
        """Run one step; a store failure postpones the timers instead of ending the room."""
        try:
            await work
        except VersionConflict:
            # Another writer got there first (outside a frame: a timer's move, a
            # connection): take what is stored; the timer simply runs again.
            self.clock.failed(self._loop.time())
            await self._reload()
        except StoreError as exc:
            self.clock.failed(self._loop.time())
            if not isinstance(exc, StoreUnavailable):  # an outage is logged once, by the store
                failure("room.store_error", room=self.code)

    async def _handle(self, message: mailbox.Message) -> None:
        match message:
            case mailbox.Connect(
                peer=peer, token=token, token_hash=token_hash, history=history, done=done
            ):
                await mailbox.answer(done, self.connect_peer(peer, token, token_hash, history))
            case mailbox.Join(name=name, seat=seat, op=op, member=member, done=done):
                await mailbox.answer(done, self.join_seat(name, seat, op, member), JoinRefused)
            case mailbox.Frame(peer=peer, frame=frame, op=op):
                if peer in self._peers and (op is None or op not in self.record.ops):
                    await self.apply_frame(peer, frame, op)
            case mailbox.Disconnect(peer=peer):
                await self.drop_peer(peer)
            case mailbox.Remote() | mailbox.Gone():
                await self._from_cluster(message)
            case mailbox.Store() | mailbox.Lease():
                await self.outage.handle(self, message)
            case mailbox.Thought(job=job):
                if (change := self._thinking.arrived(self.record, self.version, job)) is not None:
                    await seats.played_for(self, self._peers, job.seat, change)

    async def _from_cluster(self, message: mailbox.Remote | mailbox.Gone) -> None:
        """Another instance's operation, or its end: the cluster applies it here."""
        if self._link is None:
            return
        if isinstance(message, mailbox.Remote):
            await self._link.handle(self, message.op)
        else:
            await self._link.gone(self, message.instance)

    # ------------------------------------------------------------ committing

    async def apply(self, change: Change) -> None:
        """Commit `change` as the next version, then adopt it and send every view.

        Raises `VersionConflict`, `LeaseLost` or `StoreError` when the store refuses or
        fails; then nothing was adopted and nothing sent. While the store is away it
        raises `outage.Paused` without trying, and a commit that meets the store going
        raises `outage.Unsettled` (its outcome is settled when the store is back).
        """
        self.outage.check()
        if change.record == self.record and not change.entries:
            return  # nothing anybody could see changes (a repeated entropy, say)
        record = self.clock.timed(self.record, change.stored(), time.time())
        record, ended = finished.closing(self.record, record)
        snapshot = record.to_bytes()
        entries = change.log()
        try:
            await self.outage.commit(self, self.version + 1, snapshot, entries, ended)
        except LeaseLost:
            self.lost = True
            raise
        except StoreUnavailable as exc:
            self._metrics.store_errors.inc()
            raise self.outage.unsettled(self.version + 1, snapshot, record) from exc
        except (VersionConflict, StoreError):
            self._metrics.store_errors.inc()
            raise
        except Exception as exc:
            self._metrics.store_errors.inc()
            raise StoreError(str(exc)) from exc
        self._metrics.actions.inc()
        self.adopt(record, self.version + 1, snapshot)

    def adopt(self, record: RoomRecord, version: int, snapshot: bytes | None = None) -> None:
        """Take `record` (committed as `version`) as the room's and send every view."""
        before = self.record
        self.version = version
        self.record = record
        if record.state is not before.state:
            self.clock.state_changed(before.state, record.state, self._loop.time())
            self._thinking.moved_on(record.state)
        if record.paused != before.paused:
            self.clock.pause_changed(record, self._loop.time())
        self._broadcast(snapshot)
        announce(self, self._peers, before, self._loop.time())
        fairness.ask(before.next_deal, record.next_deal, self._peers.all())

    async def _reload(self) -> None:
        """Take the room as stored (after a lost compare-and-set) and show it to everyone."""
        stored = await self._store.load(self.code)
        if stored is None:
            return
        self.record = RoomRecord.from_bytes(stored.snapshot)
        self.version = stored.version
        self.clock.state_changed(None, self.record.state, self._loop.time())
        self._broadcast()

    def _state_frame(self, seat: int | None) -> bytes:
        """This version's frame for `seat`; the public part is serialised once a version."""
        return self._frames.frame(self.record, self.version, seat)

    def _broadcast(self, snapshot: bytes | None = None) -> None:
        """Send every connection its own view, each view serialised once per seat.

        Sockets of other instances get no view from here: their instances get the snapshot,
        once each, and build the views themselves."""
        instances = self._peers.send_views(self._state_frame)
        if instances and self._link is not None:
            self._link.publish(self, instances, snapshot or self.record.to_bytes())

    def _send_state(self, peer: Peer) -> None:
        """Send `peer` the current view (another instance's socket gets it from its own
        instance, to which the cluster publishes the snapshot)."""
        if peer.instance is None:
            peer.send(self._state_frame(peer.seat))

    # ------------------------------------------------------------ connections

    async def _resume(self) -> None:
        """Pick the room up as stored: nobody is connected yet, timers start afresh."""
        # Nobody is connected yet: not committed on its own (the next change stores it).
        seats = tuple(replace(s, connected=False) for s in self.record.seats)
        self.record = self.clock.resumed(replace(self.record, seats=seats), time.time())
        await self._talk.load()
        state = self.record.state
        if state is not None and state.phase == "deal" and not table.revealing(self.record):
            with contextlib.suppress(StoreUnavailable):  # paused; dealt once it is back
                await self.apply(table.with_deal(self.record, state, [], self._shuffler))
        now = self._loop.time()
        self.clock.loaded(len(seats), now)
        self.clock.state_changed(None, self.record.state, now)
        event("room.loaded", room=self.code, seq=self.version, phase=self.record.phase)

    async def connect_peer(
        self, peer: Peer, token: str | None, token_hash: str | None, history: bool = True
    ) -> bool:
        """Seat a socket by its token (or a token's hash), or let it watch; its first
        state, then (unless it had them already) the chat lines the room kept."""
        seat: int | None = None
        if token is not None or token_hash is not None:
            seat = seat_of(self.record, token, token_hash)
            if seat is None:
                event("socket.bad_token", room=self.code)
                return False
        peer.seat = seat
        self._peers.add(peer)
        self.clock.came(seat)
        event("socket.hello", room=self.code, seat=seat)
        change = None if seat is None else table.connected(self.record, seat, True)
        if change is None:
            self._send_state(peer)
        else:
            try:
                await self.apply(change)
            except StoreUnavailable:  # paused: seated all the same, saved once it is back
                self._send_state(peer)
            except BaseException:
                self._peers.discard(peer)
                raise
        if history:  # another instance holds these until the first state (cluster/follower.py)
            peer.send(self._talk.history_frame())
        peer.send(frame_of(self.record.review))
        self.outage.tell_paused(peer)
        fairness.ask(None, self.record.next_deal, [peer])  # a reveal open: its value
        return True

    async def drop_peer(self, peer: Peer) -> None:
        """A socket closed: the seat shows disconnected once its last socket is gone."""
        if peer not in self._peers:
            return
        self._peers.discard(peer)
        seat = peer.seat
        last = seat is not None and not self._peers.has(seat)
        self.clock.left(seat if last else None, self._loop.time(), anyone_left=bool(self._peers))
        if seat is not None and last:
            change = table.connected(self.record, seat, False)
            if change is not None:
                with contextlib.suppress(StoreUnavailable):  # saved when the store is back
                    await self.apply(change)

    async def join_seat(
        self, name: str, wanted: int | None, op: str | None, member: str | None = None
    ) -> tuple[int, str]:
        """A new player (a club's `member`, if joined with a key) takes a seat: (seat, token)."""
        seating = table.join(self.record, name, wanted, present=self._peers.has, member=member)
        self.clock.seated(seating.seat, self._loop.time())
        previous = self.record.seats[seating.seat]
        try:
            await self.apply(seating.change.with_op(op))
        except outage.Unsettled as exc:
            outage.undo_join_if_saved(exc, seating, previous)
            raise
        event("room.join", room=self.code, seat=seating.seat, took_over_bot=seating.took_over)
        return seating.seat, seating.token

    # ------------------------------------------------------------ frames

    async def apply_frame(self, peer: Peer, frame: ClientFrame, op: str | None) -> None:
        """Apply one frame; a refusal goes back to the sender as an `error` frame."""
        work = self._on_frame(peer, frame, op)
        await moves.answering([peer], work, self._metrics.refused.labels, self._reload)

    async def apply_moves(self, taken: list[mailbox.Message]) -> None:
        """Players' moves that were waiting together (`moves.py`): one commit."""
        batch = [m for m in taken if isinstance(m, mailbox.Frame)]
        folded = moves.fold(self.record, batch, self._peers, self._shuffler)
        moves.tell_refused(folded.refused, self._metrics.refused.labels)
        if folded.change is not None:
            work = self.apply(folded.change)
            await moves.answering(folded.senders, work, self._metrics.refused.labels, self._reload)

    async def _on_frame(self, peer: Peer, frame: ClientFrame, op: str | None) -> None:
        if isinstance(frame, Hello):
            raise Refused("bad_message", "hello was already received")
        seat = moves.acting_seat(peer, self._peers)
        if isinstance(frame, Chat):
            name = self.record.seats[seat].name or ""
            self._peers.send_all(await self._talk.say(seat, name, frame.text, self._loop.time()))
        elif isinstance(frame, Leave):
            await seats.leave(self, self._peers, self._shuffler, seat, op)
        elif isinstance(frame, seats.TABLE_FRAMES):
            await seats.host(self, self._peers, self._shuffler, self._store, seat, frame, op)
        elif isinstance(frame, Hint):
            if self.record.paused:
                raise Refused("paused", "the host has paused the game")
            self._thinking.hint(self.record, self.version, seat, peer, self._rng)
        else:
            change = table.for_frame(self.record, seat, frame, self._shuffler)
            if change.record is not self.record or change.entries:  # else: nothing to save
                await self.apply(change.with_op(op))
            if isinstance(frame, Start):
                event("room.start", room=self.code, dealer=change.record.first_dealer)

    # ------------------------------------------------------------ timers

    async def _on_timer(self) -> None:
        if await seats.hand_over_if_due(self, self._peers, self._loop.time()):
            return
        due = self.clock.first_due(self.record, self._peers.has, self._loop.time())
        if due is None:
            return
        state = self.record.state
        assert state is not None
        if due.seat is None:
            await self.apply(table.with_deal(self.record, state, [], self._shuffler, now=True))
            return
        seat = due.seat
        if self.record.seats[seat].kind == "human":
            away = self.clock.autoplayed(seat, self._peers.has(seat))
            event("room.autoplay", room=self.code, seat=seat, away=away)
        change = self._thinking.move(self.record, seat, self._rng)
        if change is not None:
            await seats.played_for(self, self._peers, seat, change)
