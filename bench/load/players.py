"""The load's clients: one WebSocket player per seat, and watchers of bots-only rooms.

Each `Player` acts on its own turn (its seat in `view.turn`, `view.legal` non-empty)
after a think time, choosing uniformly from `legal`; the room's lowest seat sends
`start` once the lobby is full, every seat confirms the `rematch` at game over. Players
read their sockets themselves, without the kit's validating `Client`: at saturation the
generator must keep up with the server, and most states it receives are another seat's
move.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import Any
from urllib.parse import urlparse

import httpx
import orjson
import websockets
from websockets.asyncio.client import ClientConnection

from bench.kit import rooms
from bench.kit.client import encode, hello, open_socket
from bench.kit.player import concrete
from bench.load.bots import BotWatch
from bench.load.tally import SEATS, Options, Tally

STATE_HEAD = b'{"type":"state","seq":'
"""How the server begins every `state` frame (schmier/rooms/frames.py)."""
NOTHING_LEGAL = b'"legal":[]'
"""A seat's empty `legal` as the server writes it: a key, since inside a JSON string
every quote is escaped, so these bytes cannot come from a player's name."""
IDLE_VIEW: dict[str, Any] = {"legal": []}
"""What a seat keeps of a state that gives it nothing to do."""


class Crowd:
    """What every client of one run shares: the options, the tally, where each room
    lives, and whether the run is stopping (a `Run` is one)."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.think = options.think
        self.client_deflate = options.client_deflate
        self.tally = Tally()
        self.stopping = False
        self.bases = [url.rstrip("/") for url in options.urls]
        self.ws_bases = [f"ws://{urlparse(url).netloc}" for url in options.urls]
        self.home: dict[str, int] = {}
        """The instance each room was created on (its sockets go there too)."""

    def ws_url(self, code: str) -> str:
        return f"{self.ws_bases[self.home[code]]}/ws/{code}"

    def think_delay(self, rng: random.Random) -> float:
        """A think time of mean `think`: uniform in T(1±j), fixed, or exponential."""
        dist = self.options.think_dist
        if dist == "fixed":
            return self.think
        if dist == "exponential":
            return rng.expovariate(1 / self.think)
        j = self.options.jitter
        return self.think * rng.uniform(1 - j, 1 + j)

    def rules(self) -> dict[str, Any] | None:
        """The rules rooms are created with (`--target`; None: the variant's default)."""
        return {"target": self.options.target} if self.options.target else None


class BotRoom:
    """A room of bots only, playing as fast as the server lets them (`--bot-rooms`).

    A generator socket creates the room, takes seat 0, fills the others with bots,
    starts and leaves its seat to a bot; it stays as a spectator, which keeps the room
    loaded and counts its changes. When the game is over it starts the next one in a
    new room (nobody at a bots-only table can ask for a rematch).
    """

    def __init__(self, crowd: Crowd, index: int) -> None:
        self.crowd = crowd
        self.index = index
        self.ws: ClientConnection | None = None

    async def play(self, http: httpx.AsyncClient) -> None:
        """Play game after game until the run stops."""
        while not self.crowd.stopping:
            try:
                await self._one_game(http)
            except Exception as exc:  # counted; the next game starts a moment later
                if not self.crowd.stopping:
                    self.crowd.tally.bot_errors[type(exc).__name__] += 1
                    await asyncio.sleep(1.0)

    async def _one_game(self, http: httpx.AsyncClient) -> None:
        crowd = self.crowd
        variant = crowd.options.variant
        code = await rooms.create_room(http, variant, crowd.rules())
        _, token = await rooms.join(http, code, f"B{self.index}", 0)
        url = f"{crowd.ws_bases[0]}/ws/{code}"
        async with await open_socket(url, open_timeout=60, ping_interval=None) as ws:
            self.ws = ws
            frames = [hello(token)]
            frames += [{"type": "add_bot", "seat": k} for k in range(1, SEATS[variant])]
            frames += [{"type": "start"}, {"type": "leave"}]
            for frame in frames:
                await ws.send(encode(frame))
            tally = crowd.tally
            async for raw in ws:
                frame = orjson.loads(raw)
                if frame.get("type") == "error":
                    tally.bot_errors[str(frame.get("code"))] += 1
                    continue
                if frame.get("type") != "state":
                    continue
                tally.bot_states_all += 1
                if tally.measuring and tally.window_end == float("inf"):
                    tally.bot_states += 1
                if frame["view"]["phase"] == "game_over" or crowd.stopping:
                    tally.bot_games += 1
                    break
        self.ws = None


class Player:
    """One seat's WebSocket client: reads every frame, acts on its own turn."""

    def __init__(self, crowd: Crowd, code: str, seat: int, token: str, rng: random.Random) -> None:
        self.crowd = crowd
        self.code = code
        self.seat = seat
        self.token = token
        self.rng = rng
        self.ws: ClientConnection | None = None
        self.view: dict[str, Any] | None = None
        self.seq = -1
        self.sent_at: float | None = None
        self.sent_kind = ""
        """`phase:type` of the action in flight (the tally counts slow actions by it)."""
        self.acted_on: list[dict[str, Any]] | None = None
        """`legal` of the view acted on, while the action is in a simultaneous phase."""
        self.timer: asyncio.TimerHandle | None = None
        self.has_state = asyncio.Event()
        self.last_progress = 0.0
        self.reader: asyncio.Task[None] | None = None
        self.stopping = False
        self.may_start = True
        """Whether this seat may send `start` (held back until the in-step start)."""
        self.watch: BotWatch | None = None
        """The table's bot moves, timed by its lowest seat when it has server bots."""

    async def connect(self) -> None:
        """Open the socket, say hello, and start reading (returns once a state came)."""
        self.has_state = asyncio.Event()
        self.sent_at = None
        self.ws = await open_socket(
            self.crowd.ws_url(self.code),
            compression="deflate" if self.crowd.client_deflate else None,
            open_timeout=60,
            ping_interval=None,
            close_timeout=2,
        )
        await self.ws.send(encode(hello(self.token)))
        self.reader = asyncio.get_running_loop().create_task(self._read(self.ws))
        await self.has_state.wait()

    async def _read(self, ws: ClientConnection) -> None:
        tally = self.crowd.tally
        try:
            while True:
                raw = await ws.recv(decode=False)
                if tally.measuring and tally.window_end == float("inf"):
                    tally.frames += 1
                    tally.bytes += len(raw)
                if self.watch is None and raw.startswith(STATE_HEAD) and NOTHING_LEGAL in raw:
                    # Most states are another seat's move: nothing to choose from, so
                    # only the sequence number is read (parsing and freeing every view
                    # was a third of the generator's time, which it needs to keep up
                    # with the server when saturated).
                    seq = int(raw[len(STATE_HEAD) : raw.index(b",", len(STATE_HEAD))])
                    self._state(seq, IDLE_VIEW)
                    continue
                frame = orjson.loads(raw)
                kind = frame.get("type")
                if kind == "state":
                    if self.watch is not None:
                        self.watch.state(frame["seq"], frame["view"], time.perf_counter())
                    self._state(frame["seq"], frame["view"])
                    await self.consider()
                elif kind == "error":
                    if tally.measuring:
                        tally.errors[str(frame.get("code"))] += 1
                    self.sent_at = None
                    self.acted_on = None
                    # Choose again a moment later: a refused action must not stall the room.
                    self._schedule(max(self.crowd.think, 0.05))
        except websockets.ConnectionClosed:
            pass
        except Exception as exc:  # a bad frame is a finding, not a generator crash
            tally.errors[f"client:{type(exc).__name__}"] += 1
        finally:
            if not self.stopping and not self.crowd.stopping:
                tally.closes[str(ws.close_code)] += 1
            self.has_state.set()

    def _state(self, seq: int, view: dict[str, Any]) -> None:
        """A `state` frame came: answer the action in flight, keep the newest view."""
        tally = self.crowd.tally
        now = time.perf_counter()
        if self.sent_at is not None and self._answers(view):
            if tally.measuring and tally.window_start <= self.sent_at < tally.window_end:
                tally.answered(self.sent_at, now, self.sent_kind)
            self.sent_at = None
            self.acted_on = None
        if seq >= self.seq:
            self.seq = seq
            self.view = view
        self.last_progress = now
        self.has_state.set()

    def _answers(self, view: dict[str, Any]) -> bool:
        """Whether this state is the answer to the action in flight.

        In a turn-based phase nobody else acts while it is this seat's turn, so the
        next state is the answer. Discards are simultaneous: a state made by another
        seat's discard may cross this seat's own on the wire, and acting on it again
        would be refused, so there the answer is the first state whose `legal` for
        this seat has changed (after its discard it is empty).
        """
        return self.acted_on is None or view["legal"] != self.acted_on

    def _chosen(self) -> dict[str, Any] | None:
        """The action to send now, or None when this seat has nothing to do."""
        view = self.view
        if view is None:
            return None
        legal: list[dict[str, Any]] = view["legal"]
        if not legal:
            return None
        phase = view["phase"]
        if phase == "game_over":
            # Every seated person confirms the rematch (it is listed until they have).
            return next((a for a in legal if a["type"] == "rematch"), None)
        if phase == "lobby":
            # One seat starts; the others would only be refused.
            lowest = min(s["seat"] for s in view["seats"] if s.get("kind") != "empty")
            if view["you"] != lowest:
                return None
            seats, o = view["seats"], self.crowd.options
            empty = [
                k for k in range(len(seats) - o.bots, len(seats)) if seats[k]["kind"] == "empty"
            ]
            if empty:
                return {"type": "add_bot", "seat": empty[0], "bot": o.bot_level}
            if not self.may_start:
                return None
            return next((a for a in legal if a["type"] == "start"), None)
        if view["you"] not in view["turn"]:
            return None
        return concrete(self.rng.choice(legal), self.rng)

    async def consider(self) -> None:
        if self.sent_at is not None or self.timer is not None or self.stopping:
            return
        if self.crowd.options.idle or self._chosen() is None:
            return
        if self.crowd.think <= 0 or self._adds_bot():
            await self._send()
        else:
            self._schedule(self.crowd.think_delay(self.rng))

    def _adds_bot(self) -> bool:
        """Whether this seat's next action is in the lobby of a table that fills with
        bots or opens paced or in step: sent at once, without a think time."""
        view, o = self.view, self.crowd.options
        at_once = o.bots or o.in_step or o.open_rate > 0
        return bool(at_once and view and view["phase"] == "lobby")

    def _schedule(self, delay: float) -> None:
        if self.timer is None and not self.stopping:
            self.timer = asyncio.get_running_loop().call_later(delay, self._fire)

    def _fire(self) -> None:
        self.timer = None
        if self.sent_at is None and not self.stopping:
            asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        action = self._chosen()
        ws = self.ws
        if action is None or ws is None or self.sent_at is not None:
            return
        self.sent_at = time.perf_counter()
        view = self.view
        self.acted_on = view["legal"] if view and view["phase"] == "discard" else None
        self.sent_kind = f"{view['phase'] if view else '?'}:{action['type']}"
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.send(encode(action))

    async def close(self) -> None:
        """Stop acting and close the socket."""
        self.stopping = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.reader, 5)

    def drop(self) -> None:
        """Lose the connection abruptly (no close handshake), as a network drop does."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.ws is not None:
            self.ws.transport.abort()
