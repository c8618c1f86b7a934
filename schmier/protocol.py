"""The wire contract as pydantic models: every client frame, server frame and HTTP body.

Client frames are parsed through one discriminated union keyed on `type`, with
`extra="forbid"` and strict types, so anything that is not exactly a protocol frame
becomes a `bad_message` error before it reaches a room. Server frames and the `View`
are modelled too, for the JSON Schema served at `GET /api/protocol.json` and for the
tests, which validate every frame they receive against them; the server itself builds
views as plain dicts (the engine's) and never re-validates them on the hot path.
"""

from __future__ import annotations

import unicodedata
from enum import IntEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from schmier.engine import MAX_DISCARD, Action
from schmier.engine.cards import CARD_INDEX, SUITS

Variant = Literal["schmier6", "schmier5", "wisconsin4"]
Suit = Literal["S", "H", "D", "C"]
Card = Annotated[str, Field(pattern=r"^(?:[2-9TJQKA][SHDC]|X[12])$")]
SeatKind = Literal["human", "bot", "empty"]
Phase = Literal["lobby", "bidding", "trump", "discard", "call", "play", "hand_over", "game_over"]
ErrorCode = Literal[
    "bad_message", "not_your_turn", "illegal", "forbidden", "rate_limited", "unavailable"
]
"""`unavailable` is this server's extension: the store could not save the change."""
ERROR_CODES: tuple[str, ...] = ErrorCode.__args__  # type: ignore[attr-defined]

NAME_MAX = 24
CHAT_MAX = 300


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


class _Frame(BaseModel):
    """Base of client frames: nothing but the fields of the protocol, exact types."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Hello(_Frame):
    """First frame of a connection: sit at the token's seat, or watch without one."""

    type: Literal["hello"]
    token: str | None = Field(None, max_length=200)


class Chat(_Frame):
    """A line of table talk, seated players only."""

    type: Literal["chat"]
    text: str = Field(min_length=1, max_length=CHAT_MAX)


class AddBot(_Frame):
    """Lobby: put a bot in an empty seat."""

    type: Literal["add_bot"]
    seat: int


class RemoveBot(_Frame):
    """Lobby: free a bot's seat."""

    type: Literal["remove_bot"]
    seat: int


class Start(_Frame):
    """Lobby: start the game once every seat is taken."""

    type: Literal["start"]


class Bid(_Frame):
    """Bid `amount` points."""

    type: Literal["bid"]
    amount: int

    def action(self) -> Action:
        """The engine's action (the frame is already valid: nothing is checked twice)."""
        return Action("bid", self.amount)


class Pass(_Frame):
    """Pass in the bidding."""

    type: Literal["pass"]

    def action(self) -> Action:
        return Action("pass")


class Trump(_Frame):
    """Name (Schmier) or privately commit (wisconsin4) the trump suit."""

    type: Literal["trump"]
    suit: Suit

    def action(self) -> Action:
        return Action("trump", SUITS.index(self.suit))


class Discard(_Frame):
    """Discard these cards (within the `min`..`max` of the legal template)."""

    type: Literal["discard"]
    cards: list[Card] = Field(max_length=MAX_DISCARD)

    def action(self) -> Action:
        return Action("discard", tuple(CARD_INDEX[c] for c in self.cards))


class Call(_Frame):
    """schmier5: call a partner's card, or `null` to play alone."""

    type: Literal["call"]
    card: Card | None

    def action(self) -> Action:
        return Action("call", None if self.card is None else CARD_INDEX[self.card])


class Play(_Frame):
    """Play a card to the trick."""

    type: Literal["play"]
    card: Card

    def action(self) -> Action:
        return Action("play", CARD_INDEX[self.card])


class Rematch(_Frame):
    """After the game: a new game with the same seats."""

    type: Literal["rematch"]

    def action(self) -> Action:
        return Action("rematch")


class Leave(_Frame):
    """Extension: give up the seat. In the lobby it empties; in a game a bot takes it.

    The connection stays open as a spectator and the token stops working.
    """

    type: Literal["leave"]


ClientFrame = Annotated[
    Hello
    | Chat
    | AddBot
    | RemoveBot
    | Start
    | Bid
    | Pass
    | Trump
    | Discard
    | Call
    | Play
    | Rematch
    | Leave,
    Field(discriminator="type"),
]
CLIENT_FRAME: TypeAdapter[ClientFrame] = TypeAdapter(ClientFrame)
ActionFrame = Bid | Pass | Trump | Discard | Call | Play | Rematch
"""The frames that are engine actions: each turns into its `Action` with `.action()`."""
ACTION_FRAMES: tuple[type[ActionFrame], ...] = ActionFrame.__args__
CLIENT_TYPES: tuple[str, ...] = tuple(CLIENT_FRAME.json_schema()["discriminator"]["mapping"])
"""The `type` of every client frame, read off the union (never a list kept by hand)."""


def parse_client_frame(text: str | bytes) -> ClientFrame:
    """The frame as a model; raises `pydantic.ValidationError` for anything else."""
    return CLIENT_FRAME.validate_json(text)


# ----------------------------------------------------------------- the view


class _Out(BaseModel):
    """Base of server-side shapes: documented, and allowed to grow new fields."""

    model_config = ConfigDict(extra="allow")


class SeatView(_Out):
    """One seat as everybody sees it."""

    seat: int
    name: str | None
    kind: SeatKind
    connected: bool
    cards: int


class Played(_Out):
    """A card played to a trick, and by whom."""

    seat: int
    card: Card


class TrickView(_Out):
    """A finished trick."""

    cards: list[Played]
    winner: int


class BidView(_Out):
    """One bid; `amount` is null for a pass."""

    seat: int
    amount: int | None


class LastHand(_Out):
    """The breakdown of the last scored hand (the engine may add `by`)."""

    sides: list[list[int]]
    points: dict[str, int | None]
    game_totals: list[int]
    bidder: int
    bid: int
    made: bool
    deltas: list[int]


class View(_Out):
    """What one seat, or a spectator, may see of the room; nothing more."""

    code: str
    variant: Variant
    rules: dict[str, Any]
    phase: Phase
    you: int | None
    hand: list[Card]
    seats: list[SeatView]
    teams: list[list[int]]
    scores: list[int]
    dealer: int | None
    turn: list[int]
    bids: list[BidView]
    bidder: int | None
    bid: int | None
    trump: Suit | None
    called: Card | None = None
    partner: int | None = None
    trick: list[Played]
    tricks: list[TrickView]
    last_hand: LastHand | None
    winners: list[int] | None = None
    legal: list[dict[str, Any]]
    my_trump: Suit | None = None
    my_discards: list[Card] = Field(default_factory=list)


class StateFrame(_Out):
    """The viewer's view after `hello` and after every change of the room."""

    type: Literal["state"]
    seq: int
    view: View


class ErrorFrame(_Out):
    """The last frame was refused and changed nothing."""

    type: Literal["error"]
    code: ErrorCode
    message: str


class ChatFrame(_Out):
    """A chat line from a seated player."""

    type: Literal["chat"]
    seat: int
    name: str
    text: str


ServerFrame = Annotated[StateFrame | ErrorFrame | ChatFrame, Field(discriminator="type")]
SERVER_FRAME: TypeAdapter[ServerFrame] = TypeAdapter(ServerFrame)
SERVER_TYPES: tuple[str, ...] = ("state", "error", "chat")


# ----------------------------------------------------------------- HTTP bodies


def clean_name(raw: str) -> str:
    """A player name made safe to show: control characters dropped, whitespace collapsed.

    Raises ValueError unless 1..24 printable characters remain, so a name can never
    carry an invisible or layout-breaking character into other players' screens.
    """
    kept = "".join(ch for ch in raw if not unicodedata.category(ch).startswith("C"))
    name = " ".join(kept.split())
    if not 1 <= len(name) <= NAME_MAX:
        raise ValueError(f"a name is 1 to {NAME_MAX} printable characters")
    if not name.isprintable():
        raise ValueError("a name must be printable")
    return name


class CreateRoom(BaseModel):
    """`POST /api/rooms`."""

    model_config = ConfigDict(extra="forbid", strict=True)

    variant: Variant
    rules: dict[str, Any] | None = None


class RoomCreated(BaseModel):
    """Answer to `POST /api/rooms`."""

    code: str
    variant: Variant
    rules: dict[str, Any]


class SeatInfo(BaseModel):
    """A seat in `GET /api/rooms/{code}`."""

    seat: int
    name: str | None
    kind: SeatKind
    connected: bool


class RoomInfo(BaseModel):
    """Answer to `GET /api/rooms/{code}`."""

    code: str
    variant: Variant
    rules: dict[str, Any]
    phase: Phase
    seats: list[SeatInfo]


class JoinRoom(BaseModel):
    """`POST /api/rooms/{code}/join`; `seat` omitted means the first empty seat."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(max_length=200)
    seat: int | None = None

    @field_validator("name")
    @classmethod
    def _clean(cls, value: str) -> str:
        return clean_name(value)


class Joined(BaseModel):
    """Answer to a join: the seat and the secret that acts for it."""

    seat: int
    token: str


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema of every message, served at `GET /api/protocol.json`."""
    return {
        "title": "Schmier protocol",
        "client_frames": CLIENT_FRAME.json_schema(),
        "server_frames": SERVER_FRAME.json_schema(),
        "error_codes": list(ERROR_CODES),
        "close_codes": {c.name.lower(): int(c) for c in CloseCode},
        "http": {
            "create_room": CreateRoom.model_json_schema(),
            "room_created": RoomCreated.model_json_schema(),
            "room_info": RoomInfo.model_json_schema(),
            "join_room": JoinRoom.model_json_schema(),
            "joined": Joined.model_json_schema(),
        },
    }
