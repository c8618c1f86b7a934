"""The bodies of the HTTP API (requests strict, answers documented), and player names."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from schmier.protocol.names import clean_name
from schmier.protocol.vocabulary import Phase, SeatKind, Variant


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
    """A seat in `GET /api/rooms/{code}`; a bot's seat names its level as `bot`."""

    seat: int
    name: str | None
    kind: SeatKind
    connected: bool
    bot: str | None = Field(None, exclude_if=lambda value: value is None)
    """The bot's level (`GET /api/bots`); only a bot's seat has the key."""


class BotInfo(BaseModel):
    """One entry of `GET /api/bots` (strongest first; the first is the default bot)."""

    name: str
    label: str
    description: str


class RoomInfo(BaseModel):
    """Answer to `GET /api/rooms/{code}`."""

    code: str
    variant: Variant
    rules: dict[str, Any]
    phase: Phase
    seats: list[SeatInfo]
    club: bool = False
    """Whether the room belongs to a club (its finished games count for the club; a
    member joins it with `member_key`). The club itself is not named."""
    practice: dict[str, Any] | None = Field(None, exclude_if=lambda value: value is None)
    """A practice room's origin: `{"room", "hand", "step"}` (docs/protocol.md, "Practice
    from a position"); absent for any other room."""


class JoinRoom(BaseModel):
    """`POST /api/rooms/{code}/join`; `seat` omitted means the first empty seat."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(max_length=200)
    seat: int | None = None
    member_key: str | None = Field(None, max_length=200)
    """A club member's key: in a club room, seats that member under the member's name."""

    @field_validator("name")
    @classmethod
    def _clean(cls, value: str) -> str:
        return clean_name(value)


class Joined(BaseModel):
    """Answer to a join: the seat and the secret that acts for it."""

    seat: int
    token: str
