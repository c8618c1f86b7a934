"""The words of the protocol shared by every message: games, suits, cards, seats, phases,
error codes and close codes, and the limits on what players type."""

from __future__ import annotations

from enum import IntEnum
from typing import Annotated, Literal

from pydantic import Field

Variant = Literal["schmier6", "schmier5", "wisconsin4"]
Suit = Literal["S", "H", "D", "C"]
Card = Annotated[str, Field(pattern=r"^(?:[2-9TJQKA][SHDC]|X[12])$")]
SeatKind = Literal["human", "bot", "empty"]
Hex64 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
"""A SHA-256 digest or a server seed: 64 lowercase hex characters."""
EntropyHex = Annotated[str, Field(pattern=r"^[0-9a-f]{16,64}$")]
"""A player's entropy for a deck: 16 to 64 lowercase hex characters."""
Phase = Literal[
    "lobby", "deal", "bidding", "trump", "discard", "call", "play", "hand_over", "game_over"
]
"""`deal` (an extension): the cards are about to be dealt, waiting for the players'
entropy to be revealed (docs/fairness.md); it lasts at most `SCHMIER_REVEAL_MS`."""
ErrorCode = Literal[
    "bad_message",
    "not_your_turn",
    "illegal",
    "forbidden",
    "rate_limited",
    "unavailable",
    "store_unavailable",
    "paused",
]
"""`unavailable` and `store_unavailable` are this server's extensions: the store could
not save the change (`unavailable`: this once, try again; `store_unavailable`: the
store is unreachable and the table is paused until it is back, see `PausedFrame`).
`paused`: the host has paused the game (`view.paused`); no game action is taken."""
ERROR_CODES: tuple[str, ...] = ErrorCode.__args__  # type: ignore[attr-defined]

NAME_MAX = 24
CHAT_MAX = 300
CHAT_KEPT = 100
"""Chat lines a room keeps (and sends a new socket as `chat_history`)."""


class CloseCode(IntEnum):
    """Every WebSocket close code the server uses, and why."""

    NORMAL = 1000
    """The client asked to close."""
    UNSUPPORTED_DATA = 1003
    """A binary frame: the protocol is text (JSON) only."""
    INVALID_PAYLOAD = 1007
    """A text frame that is not valid UTF-8 (sent by the WebSocket layer)."""
    POLICY_VIOLATION = 1008
    """The connection kept sending past its rate limit, or could not keep up."""
    MESSAGE_TOO_BIG = 1009
    """A frame larger than `SCHMIER_MAX_FRAME` (8 KiB) (sent by the WebSocket layer)."""
    INTERNAL_ERROR = 1011
    """The room failed (for instance its store is unreachable)."""
    SERVICE_RESTART = 1012
    """The server is shutting down; reconnect in a moment."""
    BAD_TOKEN = 4401
    """The hello's token does not hold a seat in this room."""
    UNKNOWN_ROOM = 4404
    """No room has this code."""
    HELLO_TIMEOUT = 4408
    """No hello within `SCHMIER_HELLO_TIMEOUT` seconds."""
    SEAT_CROWDED = 4409
    """A newer socket of the same seat pushed this one out: a seat may have only
    `SCHMIER_SOCKETS_PER_SEAT` sockets, and the oldest goes. Do not reconnect by
    yourself (the seat is open elsewhere); offer to."""
    LOOKUPS_EXHAUSTED = 4429
    """This address made too many failed look-ups (`SCHMIER_LOOKUP_FAIL_RATE`), and the
    hello carried no token of a seat of this room: only a seat's own token is let in
    until the budget refills (a minute)."""
