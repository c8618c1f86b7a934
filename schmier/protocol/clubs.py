"""The bodies of the clubs' HTTP API (`/api/clubs/...`, docs/protocol.md, "Clubs").

Requests are strict (unknown fields refused, names cleaned like players' names);
answers are documented here for the JSON Schema and may grow new fields.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from schmier.protocol.names import clean_name
from schmier.protocol.records import HandRecord
from schmier.protocol.vocabulary import Phase, Variant

CLUB_NAME_MAX = 40


def clean_club_name(raw: str) -> str:
    """A club's name made safe to show, as a player's name is (`clean_name`): control
    characters dropped, whitespace collapsed; 1 to 40 printable characters."""
    kept = "".join(ch for ch in raw if not unicodedata.category(ch).startswith("C"))
    name = " ".join(kept.split())
    if not 1 <= len(name) <= CLUB_NAME_MAX or not name.isprintable():
        raise ValueError(f"a club's name is 1 to {CLUB_NAME_MAX} printable characters")
    return name


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class CreateClub(_In):
    """`POST /api/clubs` and `PATCH /api/clubs/{code}` (a new name)."""

    name: str = Field(max_length=200)

    @field_validator("name")
    @classmethod
    def _clean(cls, value: str) -> str:
        return clean_club_name(value)


class MemberName(_In):
    """`POST /api/clubs/{code}/members` and `PATCH .../members/{member}`."""

    name: str = Field(max_length=200)

    @field_validator("name")
    @classmethod
    def _clean(cls, value: str) -> str:
        return clean_name(value)


class ClubCreated(_Out):
    """Answer to `POST /api/clubs`: the code (the invite) and the admin key (shown once)."""

    code: str
    admin_key: str
    name: str


class MemberJoined(_Out):
    """Answer to `POST /api/clubs/{code}/members`: the member id and key (shown once)."""

    member: str
    key: str
    name: str


class ClubMember(_Out):
    member: str
    name: str


class ClubRoom(_Out):
    code: str
    variant: Variant
    phase: Phase


class You(_Out):
    """Who the key presented is: a member (id and name), or the admin (`admin`)."""

    member: str | None
    name: str | None
    admin: bool


class ClubInfo(_Out):
    """Answer to `GET /api/clubs/{code}`."""

    code: str
    name: str
    members: list[ClubMember]
    rooms: list[ClubRoom]
    you: You


class GamePlayer(_Out):
    """A seat of an archived game as it ended: a member (by present name), a bot (its
    level), or a guest (both null)."""

    seat: int
    name: str | None
    member: str | None
    bot: str | None
    unit: int
    """The scoring unit (index in `teams`, `scores`)."""
    won: bool


class ClubGame(_Out):
    """One archived game (`GET /api/clubs/{code}/games`)."""

    id: str
    room: str
    game: int
    variant: Variant
    rules: dict[str, Any]
    finished_at: str
    players: list[GamePlayer]
    teams: list[list[int]]
    scores: list[int]
    winners: list[int]
    hands: int


class ClubGameHands(ClubGame):
    """`GET /api/clubs/{code}/games/{id}`: the game with every hand's record."""

    hands: list[HandRecord]  # type: ignore[assignment]


class StandingRow(_Out):
    member: str | None
    bot: str | None
    name: str
    games: int
    wins: int
    win_rate: float
    rating: float
    points_per_hand: float
    hands: int
    bids: int
    made: int
    set: int


class Partnership(_Out):
    names: list[str]
    games: int
    wins: int


class Standings(_Out):
    """Answer to `GET /api/clubs/{code}/standings?variant=...`."""

    players: list[StandingRow]
    partnerships: list[Partnership]
    head_to_head: list[dict[str, Any]]
    history: list[dict[str, Any]]
