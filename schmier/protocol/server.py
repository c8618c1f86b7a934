"""What the server sends: the `View` of one seat and the server frames.

Modelled for the JSON Schema served at `GET /api/protocol.json` and for the tests, which
validate every frame they receive against them; the server itself builds views as plain
dicts (the engine's) and never re-validates them on the hot path.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from schmier.protocol.vocabulary import Card, ErrorCode, Hex64, Phase, SeatKind, Suit, Variant


class _Out(BaseModel):
    """Base of server-side shapes: documented, and allowed to grow new fields."""

    model_config = ConfigDict(extra="allow")


class SeatView(_Out):
    """One seat as everybody sees it; a bot's seat names its level (`GET /api/bots`)."""

    seat: int
    name: str | None
    kind: SeatKind
    connected: bool
    cards: int
    bot: str | None = None


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


class NextDealView(_Out):
    """The commitment to the next deck (`sha256_hex` of its secret server seed), and the
    players' part in it so far (docs/fairness.md)."""

    commitment: Hex64
    committed: list[int] = Field(default_factory=list)
    """The seats whose commit to their entropy counts so far (seats only: never a
    commit or a value)."""
    revealing: bool = False
    """The deal is due and waits (at most `SCHMIER_REVEAL_MS`) for the committed seats'
    values; no commit is taken meanwhile."""


class DealView(_Out):
    """The commitment of the deck of the hand in play (or of the hand just scored)."""

    commitment: Hex64


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
    next_deal: NextDealView | None = None
    """Shown at all times (lobby included): any deal may come at once."""
    deal: DealView | None = None
    turn_ends_in: float | None
    """Seconds left of a person's timed turn when the frame was made (room rule
    `turn_seconds`); null while no person's turn is timed. While the game is paused, the
    seconds that were left when it was paused (the count stands still)."""
    idle_ends_in: float | None = None
    """In a room without a turn timer: seconds left, when the frame was made, before the
    default bot plays the awaited person's turn for them (`SCHMIER_IDLE_TURN_SECONDS`);
    clients show it in its last 30 s. Null with a timer, or when no person is awaited."""
    host: int | None = None
    """The seat of the room's host (docs/protocol.md, "The host"); null while nobody sits."""
    paused: bool = False
    """The host paused the game: nothing is played until the host resumes it."""
    rematch: list[int] = Field(default_factory=list)
    """At `game_over`: the seats that asked for the rematch; the next game starts once
    every seat is taken and every seated person has asked. Else `[]`."""
    practice: dict[str, Any] | None = None
    """A practice room's origin, `{"room", "hand", "step"}` (docs/protocol.md, "Practice
    from a position"); absent in any other room."""
    original: LastHand | None = None
    """In a practice room once its hand is scored: the original hand's `last_hand`,
    shown beside the practice's own."""


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


class ChatLine(_Out):
    """One kept chat line."""

    seat: int
    name: str
    text: str


class ChatHistoryFrame(_Out):
    """The room's last chat lines, oldest first: sent once, after a socket's first state."""

    type: Literal["chat_history"]
    lines: list[ChatLine]


class HintFrame(_Out):
    """The answer to `hint`, to the asking socket only: what the default bot would do
    for the asker now, one entry of the asker's `legal` at `seq` (a discard with its
    `cards`). The client shows it; it is never played for the player."""

    type: Literal["hint"]
    seq: int
    action: dict[str, Any]


class RevealFrame(_Out):
    """To every socket of a seat that committed to its entropy, when the deal is due
    (and to such a socket that connects while the reveal is open): send the value now,
    `{"type": "entropy", "value": v}`. `commitment` is the `next_deal` commitment of the
    deck about to be dealt."""

    type: Literal["reveal"]
    commitment: Hex64


class TimedOutFrame(_Out):
    """To the sockets of one seat only: that seat's turn timer ran out, and the default
    bot played `action` for the player (in the `state` of `seq`, which follows)."""

    type: Literal["timed_out"]
    seq: int
    action: dict[str, Any]


class PausedFrame(_Out):
    """(extension) The table is paused: the server cannot save anything right now (its
    store is unreachable). Actions are answered `store_unavailable` until `resumed`."""

    type: Literal["paused"]
    reason: Literal["store_unavailable"]
    message: str


class ResumedFrame(_Out):
    """(extension) The pause is over: the game goes on from the last `state`."""

    type: Literal["resumed"]
    message: str


class ReviewFrame(_Out):
    """The room's shared review (docs/protocol.md, "Review together"), to every socket at
    each change and to each new socket after its first state: the hand reviewed (null:
    none is open), the leading seat, the leader's step and pointer; and which seated
    players look on, following the leader or stepping alone."""

    type: Literal["review"]
    hand: int | None
    leader: int | None
    step: int
    point: Card | None
    following: list[int] = []
    wandering: list[int] = []


class PracticeFrame(_Out):
    """A practice room was made from the shared review (docs/protocol.md, "Practice from
    a position"): to the sockets of one seat alone, that seat's place in it."""

    type: Literal["practice"]
    code: str
    seat: int
    token: str


ServerFrame = Annotated[
    StateFrame
    | ErrorFrame
    | ChatFrame
    | ChatHistoryFrame
    | PausedFrame
    | ResumedFrame
    | HintFrame
    | RevealFrame
    | TimedOutFrame
    | ReviewFrame
    | PracticeFrame,
    Field(discriminator="type"),
]
SERVER_FRAME: TypeAdapter[ServerFrame] = TypeAdapter(ServerFrame)
SERVER_TYPES: tuple[str, ...] = (
    "state",
    "error",
    "chat",
    "chat_history",
    "paused",
    "resumed",
    "hint",
    "reveal",
    "timed_out",
    "review",
    "practice",
)
