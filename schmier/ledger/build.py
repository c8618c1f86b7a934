"""A finished game as the archive keeps it, from its outbox entry and its hands' records.

Pure: the entry (`schmier.rooms.finished.entry`) names the game, its players at the end
and the result; the records are the room's, folded from its log (`records.Book`), so
each is exactly what `GET /api/rooms/{code}/hands/{n}` answers. What each seat did over
the game (hands, points, bids made and set) is counted here once, so that standings are
sums over rows instead of a walk through every hand's record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat of a finished game: who sat there at the end, and how it went."""

    seat: int
    name: str | None
    kind: str
    member: str | None
    bot: str | None
    unit: int
    won: bool
    score: int
    hands: int
    points: int
    bids: int
    made: int
    set: int

    def row(self, game: str) -> dict[str, Any]:
        """The seat as a `game_players` row."""
        return {"game": game, **{name: getattr(self, name) for name in self.__slots__}}


@dataclass(frozen=True, slots=True)
class ArchivedGame:
    """Everything the archive writes for one game."""

    id: str
    room: str
    room_created: float
    game: int
    club: str | None
    variant: str
    rules: dict[str, Any]
    teams: list[list[int]]
    scores: list[int]
    winners: list[int]
    finished_at: int
    seats: tuple[SeatResult, ...]
    records: tuple[dict[str, Any], ...]

    def row(self, archived_at: int) -> dict[str, Any]:
        """The game as a `games` row."""
        return {
            "id": self.id,
            "room": self.room,
            "room_created": self.room_created,
            "game": self.game,
            "club": self.club,
            "variant": self.variant,
            "rules": self.rules,
            "teams": self.teams,
            "scores": self.scores,
            "winners": self.winners,
            "hands": len(self.records),
            "finished_at": self.finished_at,
            "archived_at": archived_at,
        }


class IncompleteGame(ValueError):
    """The records do not hold the game the entry names (its room expired, or its log
    could not be folded): nothing can be archived for it."""


def game_records(entry: dict[str, Any], records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records of the entry's game among a room's records; IncompleteGame unless
    they end with the game's end (the last one names its winners)."""
    mine = [r for r in records if r["game"] == entry["game"]]
    if not mine or not mine[-1]["winners"]:
        raise IncompleteGame(f"game {entry['id']}: its hands are not in the room's log")
    return mine


def archived_game(entry: dict[str, Any], records: list[dict[str, Any]]) -> ArchivedGame:
    """The game to write, from its outbox entry and its room's records."""
    mine = game_records(entry, records)
    teams = [list(team) for team in entry["teams"]]
    unit_of = {seat: k for k, team in enumerate(teams) for seat in team}
    winners = list(entry["winners"] or [])
    scores = list(entry["scores"])
    seats = []
    for player in entry["players"]:
        seat = int(player["seat"])
        unit = unit_of[seat]
        results = [r["result"] for r in mine]
        bids = [res for res in results if res["bidder"] == seat]
        seats.append(
            SeatResult(
                seat=seat,
                name=player["name"],
                kind=player["kind"],
                member=player["member"] if player["kind"] == "human" else None,
                bot=player["bot"] if player["kind"] == "bot" else None,
                unit=unit,
                won=unit in winners,
                score=int(scores[unit]),
                hands=len(results),
                points=sum(int(res["deltas"][unit]) for res in results),
                bids=len(bids),
                made=sum(1 for res in bids if res["made"]),
                set=sum(1 for res in bids if not res["made"]),
            )
        )
    return ArchivedGame(
        id=entry["id"],
        room=entry["room"],
        room_created=float(entry["created"]),
        game=int(entry["game"]),
        club=entry["club"],
        variant=entry["variant"],
        rules=entry["rules"],
        teams=teams,
        scores=scores,
        winners=winners,
        finished_at=int(entry["finished_at"]),
        seats=tuple(seats),
        records=tuple(mine),
    )
