"""The answers of the room's record: finished hands (`GET /api/rooms/{code}/hands`,
`GET /api/rooms/{code}/hands/{n}`) and the room's history (`GET /api/rooms/{code}/history`).

Documented here for the JSON Schema and the OpenAPI document; the server builds them as
plain dicts (`schmier.rooms.records`, `schmier.rooms.history`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from schmier.protocol.server import TrickView
from schmier.protocol.vocabulary import Card, Hex64, SeatKind, Variant


class _Out(BaseModel):
    """Answers may grow new fields."""

    model_config = ConfigDict(extra="allow")


class HandSummary(_Out):
    """One finished hand in the list of the room's hands."""

    n: int
    """The hand's number, from 1, across the room's games (a hand everybody passed is not
    counted)."""
    game: int
    """The game it belongs to, from 1 (a rematch starts the next)."""
    dealer: int
    bidder: int
    bid: int
    made: bool
    deltas: list[int]


class RecordSeat(_Out):
    """Who sat where when the hand was dealt."""

    seat: int
    name: str | None
    kind: SeatKind


class RevealedDeal(_Out):
    """Everything needed to check the deck (docs/fairness.md)."""

    commitment: Hex64 | None
    """Shown as `next_deal.commitment` before the deal (None: a hand dealt by a server
    from before provably fair deals)."""
    server_seed: Hex64 | None
    entropy: list[str | None]
    """Each seat's entropy `ek` as the deck used it: its revealed value, its commit when
    it withheld the value, None (the empty string) when it did not commit."""
    commits: list[Hex64 | None] | None = None
    """Each seat's commit to its value, `sha256_hex(v)` (None: none); absent (None) for
    a hand dealt before commit-reveal, whose values were sent openly."""
    withheld: list[int] = []
    """The seats that committed but did not reveal their value in time."""
    deck: list[Card]


class LoggedAction(_Out):
    """One action of the hand, as the seat sent it (discards with their cards)."""

    seat: int
    action: dict[str, Any]


class HandRecord(_Out):
    """The whole record of one finished hand."""

    n: int
    game: int
    variant: Variant
    rules: dict[str, Any]
    dealer: int
    seats: list[RecordSeat]
    deal: RevealedDeal
    hands: list[list[Card]]
    """Each seat's six cards, in the order they were dealt."""
    actions: list[LoggedAction]
    tricks: list[TrickView] = []
    """The hand's tricks as the view showed them, each with the seat that took it (the
    plays are those of `actions`; the winner needs the rules, so the record says it)."""
    result: dict[str, Any]
    """The view's `last_hand` object of this hand."""
    teams: list[list[int]]
    stock: list[Card]
    """The rest of the deck after the deal, top first (the stock, or the undealt cards)."""
    scores: list[int]
    """The game's scores once this hand was scored (one per entry of `teams`)."""
    winners: list[int] | None
    """When this hand ended the game: the indexes into `teams` that won."""


class SheetHand(_Out):
    """One line of a game's score sheet."""

    n: int
    dealer: int
    bidder: int
    bid: int
    made: bool
    deltas: list[int]
    scores: list[int]
    """The running scores after this hand."""
    sides: list[list[int]]
    points: dict[str, int | None]
    """Which side (an index into `sides`) took each point."""
    by: dict[str, int | None]
    """Which seat earned each point (None for `game`, which a side wins)."""


class SeatAccuracy(_Out):
    """A seat's accuracy over the game's analysed hands (docs/protocol.md, "Analysis of a
    finished hand")."""

    seat: int
    name: str
    accuracy: float
    """0 to 100: the mean of its decisions' accuracies over those hands."""
    loss: float
    """Points left on the table over those hands."""
    decisions: int
    hands: int
    """The game's hands analysed so far (an analysis is made when someone asks for it)."""


class GameSheet(_Out):
    """One game of the room: its score sheet."""

    game: int
    seats: list[RecordSeat]
    """The seating of its first finished hand (empty before any hand is finished)."""
    hands: list[SheetHand]
    scores: list[int]
    """The scores after its last finished hand."""
    over: bool
    winners: list[int] | None
    accuracy: list[SeatAccuracy] = []
    """Per seat, over the game's hands analysed so far (none: nothing analysed)."""


class PlayerStats(_Out):
    """What one player name did across the room's games (finished hands only)."""

    name: str
    hands: int
    """Finished hands this name sat in."""
    bids: int
    """Hands it won the bidding in."""
    made: int
    set: int
    points: dict[str, int]
    """Per point: hands in which this player's side took it."""
    earned: dict[str, int]
    """Per point: hands in which this player earned it personally (played high or low,
    won the trick holding a jack or joker); `game` is only ever a side's."""


class RoomHistory(_Out):
    """The room's games, their score sheets and its players' statistics."""

    code: str
    variant: Variant
    teams: list[list[int]]
    games: list[GameSheet]
    players: list[PlayerStats]


class TableMade(_Out):
    """`POST /api/rooms/{code}/hands/{n}/practice`: the practice room another table plays
    the deal in (its seats open to `POST /api/rooms/{code}/join`)."""

    code: str


class TableResult(_Out):
    """How one table played the deal (`GET /api/rooms/{code}/hands/{n}/tables`)."""

    room: str
    """The table's room."""
    hand: int
    record: str
    """The path of the table's hand record, `/api/rooms/{room}/hands/{hand}`."""
    review: str
    """The path of its review page, `/r/{room}/h/{hand}`."""
    step: int
    """The step it played on from (0: the whole deal; a practice from a position: more)."""
    original: bool
    seats: list[RecordSeat]
    """Who sat where: the original's as dealt, a practice table's now (its joiners')."""
    teams: list[list[int]]
    bidder: int
    bid: int
    made: bool
    deltas: list[int]
    """Each team's points (one per entry of `teams`)."""
    points: list[int]
    """Each seat's points (its team's)."""


class DealTables(_Out):
    """`GET /api/rooms/{code}/hands/{n}/tables`: the original and every practice table
    that has played the deal out; the practice hands still in play only counted."""

    room: str
    hand: int
    tables: list[TableResult]
    playing: int
