"""Security headers for every HTTP answer, the WebSocket origin check, and the
WebSocket guessing guard.
"""

from __future__ import annotations

from typing import Any, Protocol
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from schmier.logs import event
from schmier.protocol import CloseCode

GUESS_CLOSES = frozenset({CloseCode.BAD_TOKEN, CloseCode.UNKNOWN_ROOM, CloseCode.LOOKUPS_EXHAUSTED})
"""Close codes that mean a socket presented a wrong token or an unknown room code."""

EXHAUSTED = "schmier.lookups_exhausted"
"""The scope key `guard_socket` sets on a socket whose address is past its failed
look-up budget: that socket must show a seat's token (`ws.py`) or pay for the look-up
out of the address's join budget (`admit_spectator`)."""

NO_STORE = (b"cache-control", b"no-store")
"""On every API answer: a join's token, a key, a room's seats are not for any cache."""

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


class _Limiter(Protocol):
    async def take(self, address: str) -> bool: ...

    async def exhausted(self, address: str) -> bool: ...


def _budget(scope: Scope, name: str) -> _Limiter | None:
    """One of the app's per-address budgets (`Limits.failed`, `Limits.join`); None for
    an app without them (the middleware also wraps apps that are not Schmier's)."""
    app: Any = scope.get("app")
    state = getattr(app, "state", None)
    limits = getattr(state, "limits", None) if state is not None else None
    return None if limits is None else getattr(limits, name, None)


def _address(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


async def admit_spectator(scope: Scope) -> bool:
    """A socket of an address past its failed look-ups says hello without a token: let
    it watch a room that exists only at the cost of a join (`SCHMIER_JOIN_RATE`), so
    that a shared address's players can still open a room by its code while a guesser
    behind it learns no faster which codes exist."""
    joins = _budget(scope, "join")
    return joins is None or await joins.take(_address(scope))


class SecurityHeaders:
    """Pure ASGI middleware (no per-request task, unlike BaseHTTPMiddleware).

    On HTTP it adds the security headers to every answer, and `Cache-Control:
    no-store` to every answer of the API (`/api/...`) that does not say otherwise: a
    join's token, or any other secret an answer may carry, must never be kept by a
    browser's or a proxy's cache. On WebSockets it is the guessing guard: each socket
    the server closes with 4404 (unknown room), 4401 (bad token) or 4429 counts as a
    failed look-up of its client address, in the same per-address budget as `GET
    /api/rooms/{code}` answering 404 (`SCHMIER_LOOKUP_FAIL_RATE`). Without this a
    guesser would simply use sockets instead of HTTP. An address past that budget is not
    locked out of the rooms it plays in: its sockets are marked (`EXHAUSTED`), and only
    a hello with a seat's token, or a spectator's hello paid for out of the join budget
    (`admit_spectator`), gets in; every other one is closed with 4429, whether its room
    exists or not. With Redis the budgets are the ones all instances share
    (`limits.SharedBudget`), as for HTTP.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await guard_socket(scope, receive, send, self.app)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        api = str(scope.get("path", "")).startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend(h for h in HEADERS if h[0] not in present)
                if api and NO_STORE[0] not in present:
                    headers.append(NO_STORE)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def guard_socket(scope: Scope, receive: Receive, send: Send, app: ASGIApp) -> None:
    """Run `app` on a WebSocket under the guessing guard (`guarded_send`)."""
    await app(scope, receive, await guarded_send(scope, send))


async def guarded_send(scope: Scope, send: Send) -> Send:
    """The `send` a WebSocket gets under the guessing guard: its 4404, 4401 and 4429
    closes count against its address's failed look-up budget, and the socket is
    marked (`EXHAUSTED`) when that address is past it (see `SecurityHeaders`).

    A function that returns the `send` rather than a wrapper that runs the app: a
    table's socket then waits for its frames without a coroutine of the guard beneath
    it for its whole life (schmier/api/app.py)."""
    limiter = _budget(scope, "failed")
    if limiter is None:
        return send
    address = _address(scope)
    if await limiter.exhausted(address):
        event("socket.guessing_address")
        scope[EXHAUSTED] = True

    async def counting_send(message: Message) -> None:
        if message["type"] == "websocket.close" and message.get("code") in GUESS_CLOSES:
            await limiter.take(address)
        await send(message)

    return counting_send


def header(scope: Scope, name: bytes) -> str | None:
    """The first value of the request header `name` (lower case, as ASGI gives names)."""
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def origin_allowed(
    origin: str | None,
    host: str | None,
    allowlist: frozenset[str],
    public: frozenset[str] = frozenset(),
) -> bool:
    """Whether a WebSocket handshake may proceed.

    No Origin header: not a browser, so cross-site request forgery is not possible;
    allowed. Otherwise the origin must be this server itself or be listed in
    `SCHMIER_ALLOWED_ORIGINS`. "This server" is `SCHMIER_PUBLIC_ORIGIN` when set (`public`),
    else whatever the Host header the browser sent says: a page of another site whose
    name was made to point at this server (DNS rebinding) sends its own name as both
    Origin and Host, so only a known public origin refuses it.
    """
    if origin is None:
        return True
    normal = origin.strip().rstrip("/").lower()
    if normal in allowlist or normal in public:
        return True
    if public:
        return False
    parts = urlsplit(normal)
    if parts.scheme not in ("http", "https") or not parts.netloc or host is None:
        return False
    return parts.netloc == host.strip().lower()
