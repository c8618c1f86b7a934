"""One actor per live room: the only code that changes a room.

The actor is an asyncio task reading a bounded queue. It handles one thing at a time
(a connection, a frame, a join, a disconnection, a timer), so the rules need no locks
and every seat sees the same order of events. Each accepted change is committed to the
store (compare-and-set on the version) **before** any view goes out, so nobody ever
sees a state that a crash could take back; `seq` is the store version.

Timers (bots, the pause between hands, autoplay for a silent player, the idle stop)
are not separate tasks: the loop waits for its queue with a timeout equal to the next
due time, which keeps every change of the room on this one task.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import orjson

from app import engine
from app.config import Settings
from app.engine import bots
from app.logs import event, failure
from app.metrics import Metrics
from app.protocol import (
    ENGINE_ACTIONS,
    AddBot,
    Chat,
    ClientFrame,
    CloseCode,
    Leave,
    RemoveBot,
    Start,
    action_dict,
)
from app.rooms.codes import hash_token, new_token, token_matches
from app.rooms.record import RoomRecord, Seat, bot_seat, log_entry
from app.store import RoomStore, StoreError, VersionConflict

_SHUFFLE = secrets.SystemRandom()


class Peer(Protocol):
    """A connection as the actor sees it: a seat (or none) and a way to send."""

    seat: int | None

    def send(self, data: bytes) -> None:
        """Queue one frame for the socket; never blocks the actor."""

    def close(self, code: int, reason: str = "") -> None:
        """Queue a close of the socket after the frames already queued."""


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


@dataclass
class _Disconnect:
    peer: Peer


@dataclass
class _Stop:
    pass


_Message = _Connect | _Join | _Frame | _Disconnect | _Stop

_ENGINE_ERRORS: tuple[tuple[type[Exception], str], ...] = (
    (engine.NotYourTurn, "not_your_turn"),
    (engine.IllegalAction, "illegal"),
    (engine.MalformedAction, "bad_message"),
)


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
        self._stopping = False

    # ------------------------------------------------------------ outside API

    def start(self) -> None:
        """Run the actor's loop as a task."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"room:{self.code}")

    async def _put(self, message: _Message) -> None:
        if self.closed:
            raise RoomGone(self.code)
        await self._queue.put(message)

    async def connect(self, peer: Peer, token: str | None) -> bool:
        """Seat `peer` (by token) or make it a spectator; False for a bad token."""
        message = _Connect(peer, token)
        await self._put(message)
        return await message.done

    async def join(self, name: str, seat: int | None) -> tuple[int, str]:
        """Take a seat for a new player: (seat, token), or raise JoinRefused."""
        message = _Join(name, seat)
        await self._put(message)
        return await message.done

    async def frame(self, peer: Peer, frame: ClientFrame) -> None:
        """Hand a parsed frame of a seated or watching connection to the room."""
        await self._put(_Frame(peer, frame))

    def disconnect(self, peer: Peer) -> None:
        """The socket of `peer` is gone (never blocks: a full queue must not lose it)."""
        if self.closed:
            return
        try:
            self._queue.put_nowait(_Disconnect(peer))
        except asyncio.QueueFull:
            asyncio.get_running_loop().create_task(self._queue.put(_Disconnect(peer)))

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
        r = self.record
        return {
            "code": r.code,
            "variant": r.variant,
            "rules": engine.rules_to_json(r.rules),
            "phase": r.phase,
            "seats": r.public_seats(),
        }

    # ------------------------------------------------------------ the loop

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
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
                started = time.perf_counter()
                await self._guard(self._handle(message))
                self._metrics.latency.observe(time.perf_counter() - started)
        except asyncio.CancelledError:
            pass
        except Exception:
            failure("room.crashed", room=self.code)
        finally:
            self._exit()

    def _exit(self) -> None:
        self.closed = True
        self._on_exit(self)
        for peer in list(self._peers):
            peer.close(CloseCode.SERVICE_RESTART if self._stopping else CloseCode.INTERNAL_ERROR)
        self._peers.clear()
        while not self._queue.empty():
            message = self._queue.get_nowait()
            if isinstance(message, _Connect | _Join):
                _settle(message.done, RoomGone(self.code))
            elif isinstance(message, _Frame):
                message.peer.close(CloseCode.SERVICE_RESTART)

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
                ok = await self._on_connect(message.peer, message.token)
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
            try:
                await self._on_frame(message.peer, message.frame)
            except Refused as exc:
                self._metrics.refused.labels(exc.code).inc()
                message.peer.send(_error_frame(exc.code, exc.message))
            except StoreError:
                self._metrics.refused.labels("unavailable").inc()
                message.peer.send(
                    _error_frame("unavailable", "the room could not be saved; try again")
                )
                raise
        elif isinstance(message, _Disconnect):
            await self._on_disconnect(message.peer)

    # ------------------------------------------------------------ committing

    async def _commit(self, record: RoomRecord, entries: list[bytes] | None = None) -> None:
        """Store `record` as the next version, then adopt it and send every view.

        On a version conflict (another writer got there first) the room reloads what
        was stored, so it never diverges from the store, and the change is refused.
        """
        before = self.record.state
        try:
            await self._store.commit(self.code, self.version + 1, record.to_bytes(), entries or ())
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
        self._broadcast()

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
        r = self.record
        if r.state is None:
            base = engine.lobby_view(r.variant, r.rules, seat)
            legal = self._lobby_legal(seat)
        else:
            base = engine.view(r.state, seat)
            legal = base["legal"]
        seats = [
            {
                **entry,
                "name": r.seats[entry["seat"]].name,
                "kind": r.seats[entry["seat"]].kind,
                "connected": r.seats[entry["seat"]].connected,
            }
            for entry in base["seats"]
        ]
        return {**base, "code": r.code, "seats": seats, "legal": legal}

    def _lobby_legal(self, seat: int | None) -> list[dict[str, Any]]:
        if seat is None:
            return []
        seats = self.record.seats
        legal: list[dict[str, Any]] = [
            {"type": "add_bot", "seat": k} for k, s in enumerate(seats) if s.kind == "empty"
        ]
        legal += [{"type": "remove_bot", "seat": k} for k, s in enumerate(seats) if s.kind == "bot"]
        if all(s.kind != "empty" for s in seats):
            legal.append({"type": "start"})
        return legal

    def _state_frame(self, seat: int | None) -> bytes:
        return orjson.dumps({"type": "state", "seq": self.version, "view": self._seat_view(seat)})

    def _broadcast(self) -> None:
        """Send every connection its own view, each view serialised once per seat."""
        frames: dict[int | None, bytes] = {}
        for peer in self._peers:
            data = frames.get(peer.seat)
            if data is None:
                data = frames[peer.seat] = self._state_frame(peer.seat)
            peer.send(data)

    def _send_state(self, peer: Peer) -> None:
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

    async def _on_connect(self, peer: Peer, token: str | None) -> bool:
        seat: int | None = None
        if token is not None:
            matches = [token_matches(s.token_hash, token) for s in self.record.seats]
            if True not in matches:
                event("socket.bad_token", room=self.code)
                return False
            seat = matches.index(True)
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
        elif kind in ENGINE_ACTIONS:
            await self._act(seat, action_dict(frame))
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

    async def _act(self, seat: int, action: dict[str, Any]) -> None:
        state = self.record.state
        if state is None:
            raise Refused("illegal", "the game has not started")
        try:
            new_state = engine.apply(state, seat, action)
        except engine.EngineError as exc:
            for cls, code in _ENGINE_ERRORS:
                if isinstance(exc, cls):
                    raise Refused(code, str(exc)) from None
            raise Refused("bad_message", str(exc)) from None
        await self._deal(new_state, [log_entry(seat, action)])

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
