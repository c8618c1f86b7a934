"""The room's history: its games with their score sheets, and what each player name did
across them (`GET /api/rooms/{code}/history`).

Made from the finished hands' records alone (`records.Book`), so it holds nothing a hand
record would not show, and a rematch clears nothing: every game stays on the sheet.
"""

from __future__ import annotations

from typing import Any

from schmier import engine
from schmier.rooms.records import Book


def room_history(book: Book) -> dict[str, Any]:
    """The whole answer: games oldest first, players in the order they first played."""
    variant = engine.get_variant(book.variant)
    return {
        "code": book.code,
        "variant": book.variant,
        "teams": [list(t) for t in variant.teams],
        "games": [_sheet(book, game) for game in range(1, book.games + 1)],
        "players": player_stats(book.records, variant.points),
    }


def _sheet(book: Book, game: int) -> dict[str, Any]:
    """One game's score sheet: a line per finished hand with the running scores."""
    records = [r for r in book.records if r["game"] == game]
    units = len(engine.get_variant(book.variant).teams)
    last = records[-1] if records else None
    return {
        "game": game,
        "seats": records[0]["seats"] if records else [],
        "hands": [
            {
                "n": r["n"],
                "dealer": r["dealer"],
                "bidder": r["result"]["bidder"],
                "bid": r["result"]["bid"],
                "made": r["result"]["made"],
                "deltas": r["result"]["deltas"],
                "scores": r["scores"],
                "sides": r["result"]["sides"],
                "points": r["result"]["points"],
                "by": r["result"]["by"],
            }
            for r in records
        ],
        "scores": last["scores"] if last else [0] * units,
        "over": bool(last and last["winners"]),
        "winners": last["winners"] if last else None,
    }


def player_stats(records: list[dict[str, Any]], points: tuple[str, ...]) -> list[dict[str, Any]]:
    """Per player name (as seated at each deal): hands played and bid, bids made and
    set, and per point the hands in which the player's side took it and in which the
    player earned it personally."""
    stats: dict[str, dict[str, Any]] = {}

    def entry(name: str) -> dict[str, Any]:
        if name not in stats:
            stats[name] = {
                "name": name,
                "hands": 0,
                "bids": 0,
                "made": 0,
                "set": 0,
                "points": dict.fromkeys(points, 0),
                "earned": dict.fromkeys(points, 0),
            }
        return stats[name]

    for record in records:
        result = record["result"]
        names = {s["seat"]: s["name"] for s in record["seats"] if s["name"]}
        side_of = {seat: k for k, side in enumerate(result["sides"]) for seat in side}
        for seat, name in names.items():
            player = entry(name)
            player["hands"] += 1
            for point, side in result["points"].items():
                if side is not None and side_of.get(seat) == side:
                    player["points"][point] += 1
            for point, earner in result["by"].items():
                if earner == seat:
                    player["earned"][point] += 1
        bidder = names.get(result["bidder"])
        if bidder is not None:
            player = entry(bidder)
            player["bids"] += 1
            player["made" if result["made"] else "set"] += 1
    return list(stats.values())
