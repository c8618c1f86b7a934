"""Every frame a client may send, parsed through one discriminated union keyed on `type`.

`extra="forbid"` and strict types: anything that is not exactly a protocol frame becomes
a `bad_message` error before it reaches a room. A game action's frame turns into the
engine's `Action` with `.action()`, so an action is parsed once, here.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator, model_validator

from schmier.engine import MAX_DISCARD, Action
from schmier.engine.bots import levels
from schmier.engine.cards import CARD_INDEX, SUITS
from schmier.protocol.vocabulary import CHAT_MAX, Card, EntropyHex, Hex64, Suit

RULES_MAX = 16
"""Rules one `set_rules` may name (every game has fewer)."""
RuleName = Annotated[str, Field(min_length=1, max_length=40)]
RuleWord = Annotated[str, Field(min_length=1, max_length=40)]


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
    """Lobby: put a bot in an empty seat; `bot` names its level (`GET /api/bots`),
    omitted for the server's default bot."""

    type: Literal["add_bot"]
    seat: int
    bot: str | None = Field(None, max_length=40)

    @field_validator("bot")
    @classmethod
    def _known(cls, value: str | None) -> str | None:
        if value is not None and value not in levels.BY_NAME:
            known = ", ".join(level.name for level in levels.LEVELS)
            raise ValueError(f"unknown bot {value!r}; the bots are {known}")
        return value


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


class Entropy(_Frame):
    """A seated player's randomness for the next deck, in two steps (docs/fairness.md):
    `commit` (`sha256_hex` of a secret value) while `view.next_deal` is shown, the last
    one before the reveal counting; then `value`, the secret itself, only when the server
    asks for it (`reveal`). Exactly one of the two."""

    type: Literal["entropy"]
    commit: Hex64 | None = None
    value: EntropyHex | None = None

    @model_validator(mode="after")
    def _one_of_two(self) -> Entropy:
        if (self.commit is None) == (self.value is None):
            raise ValueError("an entropy frame carries either `commit` or `value`")
        return self


class Hint(_Frame):
    """Ask the default bot what it would do now, on the asker's own turn; answered to
    this socket only with a `hint` frame (one entry of the asker's `legal`)."""

    type: Literal["hint"]


class Leave(_Frame):
    """Extension: give up the seat. In the lobby it empties; in a game a bot takes it.

    The connection stays open as a spectator and the token stops working.
    """

    type: Literal["leave"]


class FreeSeat(_Frame):
    """The host: seat `seat`, held by a person who is not connected, goes to the default
    bot; that person's token stops working (they may take the seat over by name)."""

    type: Literal["free_seat"]
    seat: int


RuleValue = Annotated[int, Field(ge=-1_000_000, le=1_000_000)] | bool | RuleWord


class SetRules(_Frame):
    """The host, in the lobby or at `game_over`: any subset of the room's rules for the
    next game, validated as at the room's creation."""

    type: Literal["set_rules"]
    rules: dict[RuleName, RuleValue] = Field(max_length=RULES_MAX)


class Pause(_Frame):
    """The host, while a game is on: stop the game (no bot acts, no timer runs)."""

    type: Literal["pause"]


class Resume(_Frame):
    """The host: go on with a paused game."""

    type: Literal["resume"]


class MoveSeat(_Frame):
    """A seated player, in the lobby: move to empty seat `seat`."""

    type: Literal["move_seat"]
    seat: int


class SwapSeats(_Frame):
    """The host, in the lobby or at `game_over`: swap the occupants of two seats."""

    type: Literal["swap_seats"]
    seats: list[int] = Field(min_length=2, max_length=2)


REVIEW_FIELDS: dict[str, frozenset[str]] = {
    "open": frozenset({"hand"}),
    "join": frozenset(),
    "step": frozenset({"step"}),
    "point": frozenset({"card"}),
    "lead": frozenset({"seat"}),
    "follow": frozenset({"follow"}),
    "close": frozenset(),
    "practice": frozenset({"step"}),
}
"""The fields each `review` op carries besides `type` and `op`: exactly these."""
REVIEW_STEPS_MAX = 10_000
"""No hand has this many actions: a larger step is refused before it reaches a room."""


class Review(_Frame):
    """The shared review of a finished hand (docs/protocol.md, "Review together"): a
    seated player opens it and leads (`open`), the leader moves the table through it
    (`step`, `point`), hands the lead on (`lead`) or ends it (`close`); any seated
    player says whether they look on (`join`) and follow the leader or step alone
    (`follow`); the leader starts a practice room from a step (`practice`). Each op
    carries exactly its own fields."""

    type: Literal["review"]
    op: Literal["open", "join", "step", "point", "lead", "follow", "close", "practice"]
    hand: int | None = Field(None, ge=1, le=1_000_000)
    step: int | None = Field(None, ge=0, le=REVIEW_STEPS_MAX)
    card: Card | None = None
    seat: int | None = Field(None, ge=0, le=63)
    follow: bool | None = None

    @model_validator(mode="after")
    def _fields_of_op(self) -> Review:
        given = self.model_fields_set - {"type", "op"}
        wanted = REVIEW_FIELDS[self.op]
        if given != wanted:
            names = ", ".join(sorted(wanted)) or "no other field"
            raise ValueError(f"a review {self.op!r} carries {names}")
        for name in wanted - {"card"}:  # only the pointer may be null (pointing at nothing)
            if getattr(self, name) is None:
                raise ValueError(f"a review {self.op!r} needs a {name!r}")
        return self


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
    | Leave
    | Entropy
    | Hint
    | FreeSeat
    | SetRules
    | Pause
    | Resume
    | MoveSeat
    | SwapSeats
    | Review,
    Field(discriminator="type"),
]
CLIENT_FRAME: TypeAdapter[ClientFrame] = TypeAdapter(ClientFrame)
ActionFrame = Bid | Pass | Trump | Discard | Call | Play | Rematch
"""The frames that are engine actions: each turns into its `Action` with `.action()`."""
ACTION_FRAMES: tuple[type[ActionFrame], ...] = ActionFrame.__args__
HostFrame = FreeSeat | SetRules | Pause | Resume | MoveSeat | SwapSeats
"""The frames that run the table (docs/protocol.md, "The host"); never in `legal`."""
HOST_FRAMES: tuple[type[HostFrame], ...] = HostFrame.__args__
CLIENT_TYPES: tuple[str, ...] = tuple(CLIENT_FRAME.json_schema()["discriminator"]["mapping"])
"""The `type` of every client frame, read off the union (never a list kept by hand)."""


def parse_client_frame(text: str | bytes) -> ClientFrame:
    """The frame as a model; raises `pydantic.ValidationError` for anything else."""
    return CLIENT_FRAME.validate_json(text)
