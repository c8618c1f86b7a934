"""Security headers for every HTTP answer, the WebSocket origin check, and the
WebSocket guessing guard.
"""

from __future__ import annotations

from typing import Any, Protocol
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from schmier.logs import event
from schmier.protocol import CloseCode

GUESS_CLOSES = frozenset({CloseCode.BAD_TOKEN, CloseCode.UNKNOWN_ROOM})
"""Close codes that mean a socket presented a wrong token or an unknown room code."""

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


def _failed_lookups(scope: Scope) -> _Limiter | None:
    """The app's per-address limiter of failed look-ups (`Limits.failed`); None for an
    app without one (the middleware also wraps apps that are not Schmier's)."""
    app: Any = scope.get("app")
    state = getattr(app, "state", None)
    limits = getattr(state, "limits", None) if state is not None else None
    return None if limits is None else limits.failed


class SecurityHeaders:
    """Pure ASGI middleware (no per-request task, unlike BaseHTTPMiddleware).

    On HTTP it adds the security headers to every answer. On WebSockets it is the
    guessing guard: each socket the server closes with 4404 (unknown room) or 4401 (bad
    token) counts as a failed look-up of its client address, in the same per-address
    budget as `GET /api/rooms/{code}` answering 404 (`SCHMIER_LOOKUP_FAIL_RATE`), and an
    address past that budget has its handshakes refused with HTTP 429 before anything
    else runs. Without this a guesser would simply use sockets instead of HTTP, where
    the look-up limit does not apply. With Redis the budget is the one all instances
    share (`limits.SharedBudget`), as for HTTP.
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

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend(h for h in HEADERS if h[0] not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def guard_socket(scope: Scope, receive: Receive, send: Send, app: ASGIApp) -> None:
    """Run `app` on a WebSocket unless its address is past the failed look-up budget;
    count its 4404 and 4401 closes against that budget (see `SecurityHeaders`)."""
    limiter = _failed_lookups(scope)
    client = scope.get("client")
    address = str(client[0]) if client else "unknown"
    if limiter is None:
        await app(scope, receive, send)
        return
    if await limiter.exhausted(address):
        event("socket.refused_guessing")
        await receive()  # the websocket.connect message
        if "websocket.http.response" in scope.get("extensions", {}):
            await send(
                {
                    "type": "websocket.http.response.start",
                    "status": 429,
                    "headers": [(b"retry-after", b"60"), *HEADERS],
                }
            )
            await send(
                {
                    "type": "websocket.http.response.body",
                    "body": b"too many failed attempts; try again in a minute",
                }
            )
        else:
            await send({"type": "websocket.close", "code": 1008})
        return

    async def counting_send(message: Message) -> None:
        if message["type"] == "websocket.close" and message.get("code") in GUESS_CLOSES:
            await limiter.take(address)
        await send(message)

    await app(scope, receive, counting_send)


def origin_allowed(origin: str | None, host: str | None, allowlist: frozenset[str]) -> bool:
    """Whether a WebSocket handshake may proceed.

    No Origin header: not a browser, so cross-site request forgery is not possible;
    allowed. Otherwise the origin must be this server itself (its host:port equals the
    Host header the browser sent) or be listed in `SCHMIER_ALLOWED_ORIGINS`.
    """
    if origin is None:
        return True
    normal = origin.strip().rstrip("/").lower()
    if normal in allowlist:
        return True
    parts = urlsplit(normal)
    if parts.scheme not in ("http", "https") or not parts.netloc or host is None:
        return False
    return parts.netloc == host.strip().lower()
