"""The floor to compare Schmier against: a bare FastAPI WebSocket card-table server.

It has Schmier's room shape (4, 5 or 6 seats per variant) and the HTTP and WebSocket
calls the load generator (`bench/load/`) uses (create a room, join a seat, `hello` with
the token), and for each action it does what any naive server must do at least: one
Redis GET of the room's ~5 KB JSON state, one SET of the new state, and one ~3 KB JSON
view per socket, each socket its own (it names that socket's seat and hand). There are
no rules: the game is a rotating turn (every action passes the turn to the next seat,
`legal` lists a few fake `play` actions), which is enough to keep the generator's
players playing.

So whatever Schmier does beyond this (rules, a log entry, views redacted per seat,
bots, timers) shows up as the difference between the two in the same run.

    python -m bench.baseline_server --port 8100 --redis redis://127.0.0.1:6379/0
    python -m bench.baseline_server --port 8100 --memory            # a dict, no Redis
    python -m bench.baseline_server --memory --deflate --json std   # measured costs

`--memory` keeps the state as the same JSON bytes in a dict (the GET/SET become dict
operations, the (de)serialisation stays), so memory versus Redis isolates the round
trips. `--deflate` turns on uvicorn's per-message deflate (its default; off here as in
Schmier), `--json std` uses the standard library instead of orjson, `--pool N` sizes
redis-py's connection pool and `--pool-kind` picks its kind (redis-py's default pool
raises past its limit of 100 connections; a blocking pool waits for a free one).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
import uvicorn
from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

from bench.kit.keys import delete_prefix_async

SEATS = {"schmier6": 6, "schmier5": 5, "wisconsin4": 4}
CARDS = [r + s for s in "SHDC" for r in "23456789TJQKA"]
FAKE_LEGAL = [{"type": "play", "card": c} for c in ("AS", "KH", "QD", "JC", "TS", "9H")]
HISTORY_ITEM = {"seat": 0, "type": "play", "card": "AS", "note": "x" * 40}


@dataclass
class Codec:
    """The JSON library in use (orjson, or the standard library to measure its cost)."""

    dumps: Callable[[Any], bytes]
    loads: Callable[[bytes | str], Any]


ORJSON = Codec(orjson.dumps, orjson.loads)
STDJSON = Codec(lambda obj: json.dumps(obj, separators=(",", ":")).encode(), json.loads)


class Backend:
    """Where room states live: Redis (one GET, one SET per action) or a dict."""

    async def get(self, code: str) -> bytes | None:
        raise NotImplementedError

    async def set(self, code: str, data: bytes) -> None:
        raise NotImplementedError

    async def ping(self) -> bool:
        return True

    async def aclose(self) -> None:
        return None


class MemoryBackend(Backend):
    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}

    async def get(self, code: str) -> bytes | None:
        return self.data.get(code)

    async def set(self, code: str, data: bytes) -> None:
        self.data[code] = data


class RedisBackend(Backend):
    def __init__(self, url: str, prefix: str, pool: int | None, kind: str) -> None:
        import redis.asyncio as aioredis

        pool_class = (
            aioredis.BlockingConnectionPool if kind == "blocking" else aioredis.ConnectionPool
        )
        options: dict[str, Any] = {}
        if pool is not None:
            options["max_connections"] = pool
        self.pool = pool_class.from_url(url, **options)
        self.client = aioredis.Redis(connection_pool=self.pool)
        self.prefix = prefix

    async def get(self, code: str) -> bytes | None:
        value: Any = await self.client.get(self.prefix + code)
        return bytes(value) if value is not None else None

    async def set(self, code: str, data: bytes) -> None:
        await self.client.set(self.prefix + code, data, ex=3600)

    async def ping(self) -> bool:
        return bool(await self.client.ping())

    async def aclose(self) -> None:
        # Remove what this run wrote: the benchmark leaves no keys behind.
        await delete_prefix_async(self.client, self.prefix)
        await self.client.aclose()
        await self.pool.aclose()


@dataclass
class Room:
    """What the server keeps in memory per room: seats and sockets, not the state."""

    code: str
    variant: str
    seats: int
    names: list[str | None]
    tokens: list[str | None]
    sockets: dict[WebSocket, int] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def new_state(room: Room) -> dict[str, Any]:
    """A ~5 KB state: seats, hands, a history, as a real game's snapshot would hold."""
    return {
        "code": room.code,
        "variant": room.variant,
        "phase": "lobby",
        "seq": 0,
        "turn": [],
        "dealer": 0,
        "scores": [0] * room.seats,
        "hands": [CARDS[6 * s : 6 * s + 6] for s in range(room.seats)],
        "seats": [{"seat": s, "name": None, "token_hash": "0" * 64} for s in range(room.seats)],
        "history": [HISTORY_ITEM] * 50,
    }


def seat_view(room: Room, state: dict[str, Any], seat: int) -> dict[str, Any]:
    """One seat's own ~3 KB view: its hand, whose turn, and its `legal`."""
    phase = state["phase"]
    turn: list[int] = state["turn"]
    if phase == "lobby":
        full = all(name is not None for name in room.names)
        legal: list[dict[str, Any]] = [{"type": "start"}] if full else []
    else:
        legal = FAKE_LEGAL if seat in turn else []
    return {
        "code": room.code,
        "variant": room.variant,
        "rules": {"target": 21},
        "phase": phase,
        "you": seat,
        "hand": state["hands"][seat],
        "seats": [
            {"seat": s, "name": room.names[s], "kind": "human", "connected": True, "cards": 6}
            for s in range(room.seats)
        ],
        "scores": state["scores"],
        "dealer": state["dealer"],
        "turn": turn,
        "legal": legal,
        "history": state["history"][:28],
    }


def build_app(backend: Backend, codec: Codec) -> FastAPI:
    """The baseline app: the HTTP calls and the socket of the load generator."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        await backend.aclose()

    app = FastAPI(docs_url=None, redoc_url=None, lifespan=lifespan)
    rooms: dict[str, Room] = {}

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        await backend.ping()
        return {"status": "ok"}

    @app.post("/api/rooms", status_code=201)
    async def create(request: Request) -> dict[str, Any]:
        body = codec.loads(await request.body())
        variant = body.get("variant", "schmier6")
        if variant not in SEATS:
            raise HTTPException(422, "unknown variant")
        code = secrets.token_urlsafe(8).lower()
        n = SEATS[variant]
        room = rooms[code] = Room(code, variant, n, [None] * n, [None] * n)
        await backend.set(code, codec.dumps(new_state(room)))
        return {"code": code, "variant": variant, "rules": body.get("rules") or {}}

    @app.post("/api/rooms/{code}/join")
    async def join(code: str, request: Request) -> JSONResponse:
        room = rooms.get(code)
        if room is None:
            raise HTTPException(404, "unknown room")
        body = codec.loads(await request.body())
        seat = body.get("seat")
        if seat is None:
            seat = next((s for s, n in enumerate(room.names) if n is None), None)
        if seat is None or room.names[seat] is not None:
            raise HTTPException(409, "seat taken")
        token = secrets.token_urlsafe(16)
        room.names[seat] = str(body.get("name", "player"))
        room.tokens[seat] = token
        return JSONResponse({"seat": seat, "token": token})

    async def send_views(room: Room, state: dict[str, Any]) -> None:
        for ws, seat in list(room.sockets.items()):
            frame = {"type": "state", "seq": state["seq"], "view": seat_view(room, state, seat)}
            try:
                await ws.send_text(codec.dumps(frame).decode())
            except (WebSocketDisconnect, RuntimeError, OSError):
                room.sockets.pop(ws, None)

    async def act(room: Room, seat: int, frame: dict[str, Any]) -> str | None:
        """One action: GET the state, change it, SET it, send every view."""
        async with room.lock:
            raw = await backend.get(room.code)
            if raw is None:
                return "unknown room"
            state = codec.loads(raw)
            kind = frame.get("type")
            if kind == "start" and state["phase"] == "lobby":
                state["phase"] = "play"
                state["turn"] = [(state["dealer"] + 1) % room.seats]
            elif kind in ("play", "rematch") and seat in state["turn"]:
                state["turn"] = [(seat + 1) % room.seats]
                history = state["history"]
                history.pop(0)
                history.append({"seat": seat, "type": "play", "card": frame.get("card")})
            else:
                return "not_your_turn"
            state["seq"] += 1
            await backend.set(room.code, codec.dumps(state))
            await send_views(room, state)
            return None

    @app.websocket("/ws/{code}")
    async def socket(ws: WebSocket, code: str) -> None:
        await ws.accept()
        room = rooms.get(code)
        if room is None:
            await ws.close(4404)
            return
        try:
            hello = codec.loads(await ws.receive_text())
            token = hello.get("token")
            if token is None or token not in room.tokens:
                await ws.close(4401)
                return
            seat = room.tokens.index(token)
            async with room.lock:
                room.sockets[ws] = seat
                raw = await backend.get(code)
                state = codec.loads(raw) if raw is not None else new_state(room)
                view = seat_view(room, state, seat)
                await ws.send_text(
                    codec.dumps({"type": "state", "seq": state["seq"], "view": view}).decode()
                )
            while True:
                frame = codec.loads(await ws.receive_text())
                problem = await act(room, seat, frame)
                if problem is not None:
                    error = {"type": "error", "code": "not_your_turn", "message": problem}
                    await ws.send_text(codec.dumps(error).decode())
        except WebSocketDisconnect:
            pass
        finally:
            room.sockets.pop(ws, None)

    return app


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    store = parser.add_mutually_exclusive_group()
    store.add_argument("--redis", metavar="URL", help="Redis URL (the default store)")
    store.add_argument("--memory", action="store_true", help="keep states in a dict")
    parser.add_argument("--prefix", default="schmier-baseline:", help="Redis key prefix")
    parser.add_argument("--deflate", action="store_true", help="per-message deflate on")
    parser.add_argument("--json", choices=("orjson", "std"), default="orjson")
    parser.add_argument("--pool", type=int, default=None, help="Redis max connections")
    parser.add_argument("--pool-kind", choices=("default", "blocking"), default="default")
    args = parser.parse_args(argv)
    if args.memory:
        backend: Backend = MemoryBackend()
    else:
        backend = RedisBackend(
            args.redis or "redis://127.0.0.1:6379/0", args.prefix, args.pool, args.pool_kind
        )
    codec = STDJSON if args.json == "std" else ORJSON
    uvicorn.run(
        build_app(backend, codec),
        host=args.host,
        port=args.port,
        ws_per_message_deflate=args.deflate,
        log_level="warning",
        access_log=False,
        lifespan="on",
    )


if __name__ == "__main__":
    main()
