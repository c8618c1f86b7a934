"""One actor per live room: the only code that changes a room.

The actor is an asyncio task reading a bounded queue. It handles one thing at a time
(a connection, a frame, a join, a disconnection, a timer), so the rules need no locks
and every seat sees the same order of events. Each accepted change is committed to the
store (compare-and-set on the version) **before** any view goes out, so nobody ever
sees a state that a crash could take back; `seq` is the store version.

Timers (bots, the pause between hands, autoplay for a silent player, the idle stop)
are not separate tasks: the loop waits for its queue with a timeout equal to the next
due time, which keeps every change of the room on this one task.

With several instances on one Redis (`schmier.cluster`) the actor runs only on the
instance holding the room's lease, and every commit carries the lease value, so the
store refuses it once the lease is gone (`LeaseLost`: the actor stops at once). Sockets
on other instances appear here as `RemotePeer`s: their frames arrive as forwarded
operations, and each accepted change is published to their instances as the new
snapshot, from which those instances build their own sockets' views.
"""

from __future__ import annotations

import asyncio
import hmac
import random
import secrets
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import orjson

from schmier import engine
from schmier.config import Settings
from schmier.engine import bots
from schmier.logs import event, failure
from schmier.metrics import Metrics
from schmier.protocol import (
    ACTION_FRAMES,
    AddBot,
    Chat,
    ClientFrame,
    CloseCode,
    Leave,
    RemoveBot,
    Start,
    parse_client_frame,
)
from schmier.rooms.codes import hash_token, new_token, token_matches
from schmier.rooms.frames import StateFrames, room_view
from schmier.rooms.record import OPS_KEPT, RoomRecord, Seat, bot_seat, log_entry
from schmier.store import LeaseLost, RoomStore, StoreError, VersionConflict

_SHUFFLE = secrets.SystemRandom()


class Peer(Protocol):
    """A connection as the actor sees it: a seat (or none) and a way to send."""

    seat: int | None

    def send(self, data: bytes) -> None:
        """Queue one frame for the socket; never blocks the actor."""

    def close(self, code: int, reason: str = "") -> None:
        """Queue a close of the socket after the frames already queued."""


class Link(Protocol):
    """The cluster as an owning actor sees it (absent for a single instance)."""

    instance: str

    def send(self, instance: str, message: dict[str, Any]) -> None:
        """Queue `message` for the instance `instance` (never blocks, keeps order)."""

    async def finished(self, actor: RoomActor, *, lost: bool, instances: set[str]) -> None:
        """The actor stopped: give the lease up (unless `lost`), tell `instances`."""


class RemotePeer:
    """A socket held by another instance, as the owning actor sees it.

    Views are not sent through it (its instance builds them from the published
    snapshot); only what is meant for this one socket is: an `error`, a chat line.
    """

    def __init__(self, link: Link, code: str, instance: str, pid: str, seat: int | None) -> None:
        self.seat = seat
        self.instance = instance
        self.pid = pid
        self._link = link
        self._code = code

    def send(self, data: bytes) -> None:
        """Deliver one frame to this socket only, through its instance."""
        self._link.send(
            self.instance,
            {"t": "send", "room": self._code, "peer": self.pid, "data": data.decode()},
        )

    def close(self, code: int, reason: str = "") -> None:
        """Ask its instance to close the socket (e.g. a flood): the room cannot reach it."""
        self._link.send(
            self.instance,
            {"t": "close", "room": self._code, "peer": self.pid, "code": code, "reason": reason},
        )


class RoomGone(Exception):
    """The actor has stopped; ask the registry for a fresh one."""


class JoinRefused(Exception):
    """A join the room cannot grant; `status` is the HTTP status to answer."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class Refused(Exception):
    """A frame answered with an `error` frame; the room is unchanged."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class _Connect:
    peer: Peer
    token: str | None
    token_hash: str | None = None
    done: asyncio.Future[bool] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


@dataclass
class _Join:
    name: str
    seat: int | None
    done: asyncio.Future[tuple[int, str]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


@dataclass
class _Frame:
    peer: Peer
    frame: ClientFrame
    op: str | None = None
    """The id of a forwarded operation: applied at most once, even across owners."""
    queued: float = field(default_factory=time.perf_counter)
    """When the frame reached the room (its wait in the queue counts as latency)."""


@dataclass
class _Remote:
    op: dict[str, Any]


@dataclass
class _Gone:
    instance: str


@dataclass
class _Disconnect:
    peer: Peer


@dataclass
class _Stop:
    lost: bool = False


_Message = _Connect | _Join | _Frame | _Disconnect | _Stop | _Remote | _Gone


def _error_frame(code: str, message: str) -> bytes:
    return orjson.dumps({"type": "error", "code": code, "message": message})


def _settle(future: asyncio.Future[Any], outcome: Any) -> None:
    """Answer a caller unless it has stopped waiting (its request was cancelled)."""
    if future.done():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


def seat_of(record: RoomRecord, token: str | None, token_hash: str | None) -> int | None:
    """The seat a token (or, between instances, a token's hash) holds, else None."""
    if token is not None:
        matches = [token_matches(s.token_hash, token) for s in record.seats]
    elif token_hash is not None:
        matches = [
            s.token_hash is not None and hmac.compare_digest(s.token_hash, token_hash)
            for s in record.seats
        ]
    else:
        return None
    return matches.index(True) if True in matches else None


def fallback_action(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A concrete action from a `legal` list, for when a bot policy fails.

    A room must never stall because a bot raised; the first legal action (a discard
    template made concrete with its minimum) keeps the game going.
    """
    first = dict(legal[0])
    if first["type"] == "discard":
        return {"type": "discard", "cards": list(first["from"])[: int(first["min"])]}
    return first


class RoomActor:
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
        link: Link | None = None,
    ) -> None:
        self.code = record.code
        self.record = record
        self.version = version
        self.closed = False
        self._store = store
        self._settings = settings
        self._metrics = metrics
        self._on_exit = on_exit
        self._queue: asyncio.Queue[_Message] = asyncio.Queue(maxsize=256)
        self._peers: set[Peer] = set()
        self._rng = random.Random(secrets.randbits(64))
        loop = asyncio.get_running_loop()
        now = loop.time()
        self._idle_since: float | None = now
        self._turn_since: dict[int, float] = {}
        self._phase_since = now
        self._disconnected_since: dict[int, float] = {}
        self._autopilot: set[int] = set()
        self._retry_at = 0.0
        self._public_tricks = 0
        self._chat: dict[int, deque[float]] = {}
        self._task: asyncio.Task[None] | None = None
        self._frames: StateFrames | None = None
        self._stopping = False
        self.lease = lease
        """The lease value every commit must match (None: single instance, no lease)."""
        self._link = link
        self._remote: dict[tuple[str, str], RemotePeer] = {}
        self._op: str | None = None
        self._lost = False
        self._pending_puts: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------ outside API

    def start(self) -> None:
        """Run the actor's loop as a task."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"room:{self.code}")

    async def _put(self, message: _Message) -> None:
        if self.closed:
            raise RoomGone(self.code)
        await self._queue.put(message)

    async def connect(self, peer: Peer, token: str | None, token_hash: str | None = None) -> bool:
        """Seat `peer` (by token) or make it a spectator; False for a bad token.

        `token_hash` instead of `token` seats a socket whose token another part of
        this instance already checked (a room this instance just took over).
        """
        message = _Connect(peer, token, token_hash)
        await self._put(message)
        return await message.done

    async def join(self, name: str, seat: int | None) -> tuple[int, str]:
        """Take a seat for a new player: (seat, token), or raise JoinRefused."""
        message = _Join(name, seat)
        await self._put(message)
        return await message.done

    async def frame(self, peer: Peer, frame: ClientFrame, op: str | None = None) -> None:
        """Hand a parsed frame of a seated or watching connection to the room."""
        await self._put(_Frame(peer, frame, op))

    def remote(self, op: dict[str, Any]) -> None:
        """An operation forwarded by another instance (never blocks the bus)."""
        self._put_nowait(_Remote(op))

    def instance_gone(self, instance: str) -> None:
        """`instance` no longer listens: its sockets here are gone."""
        self._put_nowait(_Gone(instance))

    def lease_lost(self) -> None:
        """The lease could not be renewed: another instance may own the room now."""
        self._lost = True
        self._stopping = True
        self._put_nowait(_Stop(lost=True))

    def _keep(self, task: asyncio.Task[None]) -> None:
        """Hold a reference to `task` until it ends (asyncio keeps tasks only weakly)."""
        self._pending_puts.add(task)
        task.add_done_callback(self._pending_puts.discard)

    def remote_instances(self) -> set[str]:
        """The instances holding sockets in this room."""
        return {p.instance for p in self._peers if isinstance(p, RemotePeer)}

    def _put_nowait(self, message: _Message) -> None:
        if self.closed:
            return
        try:
            self._queue.put_nowait(message)
        except asyncio.QueueFull:
            self._keep(asyncio.get_running_loop().create_task(self._queue.put(message)))

    def disconnect(self, peer: Peer) -> None:
        """The socket of `peer` is gone (never blocks: a full queue must not lose it)."""
        if self.closed:
            return
        try:
            self._queue.put_nowait(_Disconnect(peer))
        except asyncio.QueueFull:
            self._keep(asyncio.get_running_loop().create_task(self._queue.put(_Disconnect(peer))))

    async def stop(self) -> None:
        """Stop after the message in flight, closing every socket with 1012."""
        if self.closed or self._task is None:
            return
        self._stopping = True
        try:
            self._queue.put_nowait(_Stop())
        except asyncio.QueueFull:
            self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)

    def info(self) -> dict[str, Any]:
        """The room as `GET /api/rooms/{code}` shows it."""
        return self.record.info()

    # ------------------------------------------------------------ the loop

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        instances: set[str] = set()
        try:
            await self._resume()
            while True:
                due = self._next_due()
                try:
                    if due is None:
                        message = await self._queue.get()
                    else:
                        async with asyncio.timeout_at(due):
                            message = await self._queue.get()
                except TimeoutError:
                    if self._idle_due() <= loop.time() and self._queue.empty():
                        event("room.idle_stop", room=self.code, seq=self.version)
                        break
                    await self._guard(self._on_timer())
                    continue
                if isinstance(message, _Stop):
                    break
                started = message.queued if isinstance(message, _Frame) else time.perf_counter()
                await self._guard(self._handle(message))
                self._metrics.latency.observe(time.perf_counter() - started)
        except asyncio.CancelledError:
            pass
        except LeaseLost:
            # Another instance owns the room now: stop serving it, write nothing more.
            self._lost = self._stopping = True
            event("room.lease_lost", room=self.code, seq=self.version)
        except Exception:
            failure("room.crashed", room=self.code)
        finally:
            instances = self._exit()
        if self._link is not None:
            await self._link.finished(self, lost=self._lost, instances=instances)

    def _exit(self) -> set[str]:
        """Close the local sockets; the instances holding the room's other sockets.

        Those are not closed: their instance takes the room over (or finds the new
        owner) once told that this one gave it up.
        """
        self.closed = True
        self._on_exit(self)
        instances = self.remote_instances()
        for peer in list(self._peers):
            if isinstance(peer, RemotePeer):
                continue
            peer.close(CloseCode.SERVICE_RESTART if self._stopping else CloseCode.INTERNAL_ERROR)
        self._peers.clear()
        self._remote.clear()
        while not self._queue.empty():
            message = self._queue.get_nowait()
            if isinstance(message, _Connect | _Join):
                _settle(message.done, RoomGone(self.code))
            elif isinstance(message, _Frame) and not isinstance(message.peer, RemotePeer):
                message.peer.close(CloseCode.SERVICE_RESTART)
        return instances

    async def _guard(self, work: Any) -> None:
        """Run one step; a store failure postpones timers instead of killing the room."""
        try:
            await work
        except (StoreError, Refused):
            # Refused here is a lost compare-and-set outside a frame (a timer's move):
            # the room has reloaded what was stored, and the timer simply runs again.
            self._retry_at = asyncio.get_running_loop().time() + 1.0
            failure("room.store_error", room=self.code)

    async def _handle(self, message: _Message) -> None:
        if isinstance(message, _Connect):
            try:
                ok = await self._on_connect(message.peer, message.token, message.token_hash)
            except BaseException as exc:
                _settle(message.done, exc)
                raise
            _settle(message.done, ok)
        elif isinstance(message, _Join):
            try:
                result = await self._on_join(message.name, message.seat)
            except JoinRefused as exc:
                _settle(message.done, exc)
            except BaseException as exc:
                _settle(message.done, exc)
                raise
            else:
                _settle(message.done, result)
        elif isinstance(message, _Frame):
            if message.peer not in self._peers:
                return
            if message.op is not None and message.op in self.record.ops:
                return
            await self._frame_of(message.peer, message.frame, message.op)
        elif isinstance(message, _Disconnect):
            await self._on_disconnect(message.peer)
        elif isinstance(message, _Remote):
            await self._on_remote(message.op)
        elif isinstance(message, _Gone):
            await self._on_gone(message.instance)

    async def _frame_of(self, peer: Peer, frame: ClientFrame, op: str | None) -> None:
        """Apply one frame; a refusal goes back to the sender as an `error` frame."""
        self._op = op
        try:
            await self._on_frame(peer, frame)
        except Refused as exc:
            self._metrics.refused.labels(exc.code).inc()
            peer.send(_error_frame(exc.code, exc.message))
        except StoreError:
            self._metrics.refused.labels("unavailable").inc()
            peer.send(_error_frame("unavailable", "the room could not be saved; try again"))
            raise
        finally:
            self._op = None

    # ------------------------------------------------------------ other instances

    async def _on_remote(self, op: dict[str, Any]) -> None:
        """One operation forwarded by the instance holding the socket.

        Every operation is answered with `done` (after any `error` or new state, which
        the bus delivers in order), except when the lease is lost mid-way: then the
        sender keeps it and hands it to whoever owns the room next.
        """
        link = self._link
        assert link is not None
        instance, pid, op_id = str(op["from"]), str(op["peer"]), str(op["id"])
        kind = op["kind"]
        key = (instance, pid)
        result = "ok"
        try:
            if kind == "connect":
                peer = self._remote.get(key) or RemotePeer(link, self.code, instance, pid, None)
                hashed = op.get("hash")
                if hashed is None:
                    ok = await self._on_connect(peer, None)
                else:
                    ok = await self._on_connect(peer, None, str(hashed))
                if ok:
                    self._remote[key] = peer
                else:
                    result = "bad_token"
                # The connecting instance may hold an older snapshot than this one.
                self._publish_state({instance})
            elif kind == "frame":
                if op_id in self.record.ops:
                    pass  # applied before this owner took over; only the answer was lost
                else:
                    known = self._remote.get(key)
                    peer = known or RemotePeer(link, self.code, instance, pid, op.get("seat"))
                    await self._frame_of(peer, parse_client_frame(str(op["frame"])), op_id)
            elif kind == "disconnect":
                gone = self._remote.pop(key, None)
                if gone is not None:
                    await self._on_disconnect(gone)
            elif kind == "join" and op_id not in self.record.ops:
                self._op = op_id
                try:
                    seat, token = await self._on_join(str(op["name"]), op.get("seat"))
                except JoinRefused as exc:
                    link.send(
                        instance,
                        {"t": "joined", "room": self.code, "id": op_id,
                         "status": exc.status, "detail": exc.detail},
                    )  # fmt: skip
                else:
                    link.send(
                        instance,
                        {"t": "joined", "room": self.code, "id": op_id,
                         "seat": seat, "token": token},
                    )  # fmt: skip
                finally:
                    self._op = None
        except (StoreError, Refused):
            result = "failed"
            raise
        finally:
            if not self._lost:
                link.send(instance, {"t": "done", "room": self.code, "id": op_id, "result": result})

    async def _on_gone(self, instance: str) -> None:
        """Forget the sockets of an instance that stopped listening (it died)."""
        for key, peer in list(self._remote.items()):
            if key[0] == instance:
                del self._remote[key]
                await self._on_disconnect(peer)
        if self._link is not None:
            # Should it only have been cut off for a moment, this makes it register
            # its sockets again instead of waiting for states that no longer come.
            self._link.send(instance, {"t": "released", "room": self.code})

    def _publish_state(self, instances: set[str], snapshot: bytes | None = None) -> None:
        """Send the current snapshot to `instances`, which build their sockets' views."""
        if not instances or self._link is None:
            return
        data = (snapshot if snapshot is not None else self.record.to_bytes()).decode()
        message = {"t": "state", "room": self.code, "seq": self.version, "snap": data}
        for instance in instances:
            self._link.send(instance, message)

    # ------------------------------------------------------------ committing

    async def _commit(self, record: RoomRecord, entries: list[bytes] | None = None) -> None:
        """Store `record` as the next version, then adopt it and send every view.

        On a version conflict (another writer got there first) the room reloads what
        was stored, so it never diverges from the store, and the change is refused.
        """
        before = self.record.state
        if self._op is not None:
            record = replace(record, ops=(*record.ops, self._op)[-OPS_KEPT:])
        snapshot = record.to_bytes()
        try:
            await self._store.commit(
                self.code, self.version + 1, snapshot, entries or (), lease=self.lease
            )
        except LeaseLost:
            self._lost = True
            raise
        except VersionConflict:
            self._metrics.store_errors.inc()
            stored = await self._store.load(self.code)
            if stored is not None:
                self.record = RoomRecord.from_bytes(stored.snapshot)
                self.version = stored.version
                self._note_state(None)
                self._broadcast()
            raise Refused("unavailable", "the room changed elsewhere; try again") from None
        except StoreError:
            self._metrics.store_errors.inc()
            raise
        except Exception as exc:
            self._metrics.store_errors.inc()
            raise StoreError(str(exc)) from exc
        self.version += 1
        self.record = record
        self._metrics.actions.inc()
        if record.state is not before:
            self._note_state(before)
        self._broadcast(snapshot)

    def _note_state(self, before: engine.State | None) -> None:
        """Restart the clocks of the seats whose turn began with this state."""
        now = asyncio.get_running_loop().time()
        state = self.record.state
        if state is None:
            self._turn_since.clear()
            return
        tricks = len(state.tricks)
        completed_trick = tricks > self._public_tricks and state.phase == "play"
        self._public_tricks = tricks
        start = now + (self._settings.trick_pause if completed_trick else 0.0)
        keep = before is not None and before.phase == state.phase == "discard"
        waiting = engine.turn(state)
        self._turn_since = {
            seat: (self._turn_since.get(seat, start) if keep else start) for seat in waiting
        }
        if before is None or before.phase != state.phase:
            self._phase_since = now

    def _seat_view(self, seat: int | None) -> dict[str, Any]:
        """The view of one seat (or a spectator), with the room's own fields added."""
        return room_view(self.record, seat)

    def _state_frame(self, seat: int | None) -> bytes:
        """This version's frame for `seat`; the public part is serialised once a version."""
        frames = self._frames
        if frames is None or not frames.matches(self.record, self.version):
            frames = self._frames = StateFrames(self.record, self.version)
        return frames.frame(seat)

    def _broadcast(self, snapshot: bytes | None = None) -> None:
        """Send every connection its own view, each view serialised once per seat.

        Sockets of other instances get no view from here: their instances get the
        snapshot, once each, and build the views themselves.
        """
        instances: set[str] = set()
        for peer in self._peers:
            if isinstance(peer, RemotePeer):
                instances.add(peer.instance)
                continue
            peer.send(self._state_frame(peer.seat))
        self._publish_state(instances, snapshot)

    def _send_state(self, peer: Peer) -> None:
        if isinstance(peer, RemotePeer):
            return  # its instance sends the view (see `_publish_state`)
        peer.send(self._state_frame(peer.seat))

    # ------------------------------------------------------------ connections

    async def _resume(self) -> None:
        """Pick the room up as stored: nobody is connected yet, timers start afresh."""
        # Nobody is connected to a room that was just loaded. This is not committed on
        # its own (it would bump `seq` for nothing); the next change stores it.
        seats = tuple(replace(s, connected=False) for s in self.record.seats)
        self.record = replace(self.record, seats=seats)
        state = self.record.state
        if state is not None and state.phase == "deal":
            await self._deal(state, [])
        now = asyncio.get_running_loop().time()
        self._disconnected_since = {k: now for k in range(len(self.record.seats))}
        self._public_tricks = 0
        self._note_state(None)
        event("room.loaded", room=self.code, seq=self.version, phase=self.record.phase)

    def _seat_has_peer(self, seat: int) -> bool:
        return any(p.seat == seat for p in self._peers)

    async def _on_connect(
        self, peer: Peer, token: str | None, token_hash: str | None = None
    ) -> bool:
        seat: int | None = None
        if token is not None or token_hash is not None:
            seat = seat_of(self.record, token, token_hash)
            if seat is None:
                event("socket.bad_token", room=self.code)
                return False
        peer.seat = seat
        self._peers.add(peer)
        self._idle_since = None
        event("socket.hello", room=self.code, seat=seat)
        if seat is None:
            self._send_state(peer)
            return True
        self._autopilot.discard(seat)
        if self.record.seats[seat].connected:
            self._send_state(peer)
        else:
            record = self.record.with_seat(seat, replace(self.record.seats[seat], connected=True))
            try:
                await self._commit(record)
            except BaseException:
                self._peers.discard(peer)
                raise
        return True

    async def _on_disconnect(self, peer: Peer) -> None:
        if peer not in self._peers:
            return
        self._peers.discard(peer)
        loop = asyncio.get_running_loop()
        if not self._peers:
            self._idle_since = loop.time()
        seat = peer.seat
        if seat is None or self._seat_has_peer(seat):
            return
        self._disconnected_since[seat] = loop.time()
        current = self.record.seats[seat]
        if current.kind == "human" and current.connected:
            await self._commit(self.record.with_seat(seat, replace(current, connected=False)))

    async def _on_join(self, name: str, wanted: int | None) -> tuple[int, str]:
        seats = self.record.seats
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
        token = new_token()
        took_over = seats[seat].kind == "bot"
        record = self.record.with_seat(
            seat,
            Seat(
                kind="human",
                name=name,
                token_hash=hash_token(token),
                connected=self._seat_has_peer(seat),
            ),
        )
        self._autopilot.discard(seat)
        self._disconnected_since[seat] = asyncio.get_running_loop().time()
        await self._commit(record)
        event("room.join", room=self.code, seat=seat, took_over_bot=took_over)
        return seat, token

    # ------------------------------------------------------------ frames

    async def _on_frame(self, peer: Peer, frame: ClientFrame) -> None:
        kind = frame.type
        if kind == "hello":
            raise Refused("bad_message", "hello was already received")
        seat = peer.seat
        if seat is None:
            raise Refused("forbidden", "spectators cannot act or chat; join a seat first")
        if isinstance(frame, Chat):
            self._chat_line(seat, frame.text)
        elif isinstance(frame, Leave):
            await self._leave(seat)
        elif isinstance(frame, AddBot | RemoveBot | Start):
            await self._lobby(seat, frame)
        elif isinstance(frame, ACTION_FRAMES):
            await self._act(seat, frame.action())
        else:  # pragma: no cover - the union above is exhaustive
            raise Refused("bad_message", f"unknown frame type {kind}")

    def _chat_line(self, seat: int, raw: str) -> None:
        # Control and format characters (bidi overrides, zero-width joiners, escapes)
        # could garble other players' screens; line breaks are the only ones kept.
        text = "".join(
            ch for ch in raw if ch == "\n" or not unicodedata.category(ch).startswith("C")
        ).strip()
        if not text:
            raise Refused("bad_message", "a chat message needs some visible text")
        now = asyncio.get_running_loop().time()
        window = self._chat.setdefault(seat, deque())
        while window and window[0] <= now - self._settings.chat_window:
            window.popleft()
        if len(window) >= self._settings.chat_burst:
            raise Refused("rate_limited", "too many chat messages; wait a moment")
        window.append(now)
        line = orjson.dumps(
            {"type": "chat", "seat": seat, "name": self.record.seats[seat].name or "", "text": text}
        )
        for peer in self._peers:
            peer.send(line)

    async def _leave(self, seat: int) -> None:
        record = self.record
        replacement = Seat() if record.state is None else bot_seat(seat)
        leavers = [p for p in self._peers if p.seat == seat]
        # Spectators from now on: the commit's broadcast must not send them the seat's
        # hand, which from this moment belongs to the bot.
        for peer in leavers:
            peer.seat = None
        try:
            await self._commit(record.with_seat(seat, replacement))
        except BaseException:
            for peer in leavers:
                peer.seat = seat
            raise
        self._autopilot.discard(seat)
        event("room.leave", room=self.code, seat=seat, bot=replacement.kind == "bot")

    async def _lobby(self, seat: int, frame: AddBot | RemoveBot | Start) -> None:
        record = self.record
        if record.state is not None:
            raise Refused("illegal", "the game has already started")
        n = len(record.seats)
        if isinstance(frame, AddBot):
            if not 0 <= frame.seat < n or record.seats[frame.seat].kind != "empty":
                raise Refused("illegal", "a bot can only sit in an empty seat")
            await self._commit(record.with_seat(frame.seat, bot_seat(frame.seat)))
        elif isinstance(frame, RemoveBot):
            if not 0 <= frame.seat < n or record.seats[frame.seat].kind != "bot":
                raise Refused("illegal", "that seat holds no bot")
            await self._commit(record.with_seat(frame.seat, Seat()))
        else:
            if any(s.kind == "empty" for s in record.seats):
                raise Refused("illegal", "every seat must be taken first")
            dealer = secrets.randbelow(n)
            state = engine.new_game(record.variant, record.rules, dealer)
            await self._deal(state, [], first_dealer=dealer)
            event("room.start", room=self.code, dealer=dealer)

    async def _act(self, seat: int, action: engine.Action) -> None:
        state = self.record.state
        if state is None:
            raise Refused("illegal", "the game has not started")
        try:
            new_state = engine.apply(state, seat, action)
        except engine.EngineError as exc:
            raise Refused(exc.code, str(exc)) from None
        await self._deal(new_state, [log_entry(seat, action.to_json())])

    async def _deal(
        self,
        state: engine.State,
        entries: list[bytes],
        first_dealer: int | None = None,
        *,
        now: bool = False,
    ) -> None:
        """Commit `state`, dealing first when the engine waits for a deal right now.

        A deal that follows a start, a rematch or a hand everybody passed is part of the
        same change, so nobody ever sees a room stuck in the `deal` phase. `now` deals
        out of `hand_over` too (the timer of the pause between hands).
        """
        if engine.needs_deal(state) and (now or state.phase == "deal"):
            deck = list(engine.full_deck(self.record.variant))
            _SHUFFLE.shuffle(deck)
            state = engine.apply(state, None, {"type": "deal", "deck": deck})
            entries = [*entries, log_entry(None, {"type": "deal", "deck": deck})]
        record = replace(self.record, state=state)
        if first_dealer is not None:
            record = replace(record, first_dealer=first_dealer)
        await self._commit(record, entries)

    # ------------------------------------------------------------ timers

    def _idle_due(self) -> float:
        if self._peers or self._idle_since is None:
            return float("inf")
        return self._idle_since + self._settings.idle_room_seconds

    def _seat_due(self, seat: int) -> float | None:
        """When the bot policy acts for `seat`, or None while a person has the turn."""
        s = self.record.seats[seat]
        since = self._turn_since.get(seat)
        if since is None:
            return None
        if s.kind == "bot" or seat in self._autopilot:
            return since + self._settings.bot_delay
        if s.kind == "human" and not self._seat_has_peer(seat):
            gone = self._disconnected_since.get(seat, since)
            return max(since, gone) + self._settings.autoplay_after
        return None

    def _timers(self) -> list[tuple[float, int | None]]:
        """Due times of what the room will do by itself: (time, seat or None = deal)."""
        state = self.record.state
        if state is None:
            return []
        if engine.needs_deal(state):
            return [(self._phase_since + self._settings.hand_pause, None)]
        due: list[tuple[float, int | None]] = []
        for seat in engine.turn(state):
            at = self._seat_due(seat)
            if at is not None:
                due.append((at, seat))
        return due

    def _next_due(self) -> float | None:
        times = [t for t, _ in self._timers()]
        idle = self._idle_due()
        if idle != float("inf"):
            times.append(idle)
        if not times:
            return None
        return max(min(times), self._retry_at)

    async def _on_timer(self) -> None:
        now = asyncio.get_running_loop().time()
        if now < self._retry_at:
            return
        due = sorted((t, -1 if s is None else s) for t, s in self._timers() if t <= now)
        if not due:
            return
        state = self.record.state
        assert state is not None
        seat = due[0][1]
        if seat == -1:
            await self._deal(state, [], now=True)
            return
        if self.record.seats[seat].kind == "human":
            self._autopilot.add(seat)
            event("room.autoplay", room=self.code, seat=seat)
        await self._bot_move(state, seat)

    async def _bot_move(self, state: engine.State, seat: int) -> None:
        """Let the bot policy act for `seat`, from that seat's own view only."""
        view = self._seat_view(seat)
        legal = view["legal"]
        if not legal:
            return
        try:
            action = bots.choose("heuristic", view, self._rng)
            new_state = engine.apply(state, seat, action)
        except Exception:
            failure("room.bot_failed", room=self.code, seat=seat)
            action = fallback_action(legal)
            new_state = engine.apply(state, seat, action)
        await self._deal(new_state, [log_entry(seat, action)])
