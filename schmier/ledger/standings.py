"""A club's standings in one game: per player, per partnership, head to head, and the
ratings over time; from the archive's rows alone (`games.results`), pure.

Players are members (by id, shown by their present name) and bot levels (one row per
level); guests are in no row (docs/archive.md). A bot level's `games` and `wins` count
its seats: three `strong` bots at one table are three games of the `strong` row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schmier.ledger.games import iso
from schmier.ledger.ratings import Entity, entity_of, rate, standing


def _who(who: Entity, name: Callable[[Entity], str]) -> dict[str, Any]:
    kind, ident = who
    return {
        "member": ident if kind == "member" else None,
        "bot": ident if kind == "bot" else None,
        "name": name(who),
    }


def standings(games: list[dict[str, Any]], name: Callable[[Entity], str]) -> dict[str, Any]:
    """`GET /api/clubs/{code}/standings` for these games (oldest first)."""
    ratings = rate(games)
    rows: dict[Entity, dict[str, int]] = {}
    pairs: dict[tuple[Entity, Entity], dict[str, int]] = {}
    versus: dict[tuple[Entity, Entity], list[int]] = {}
    for game in games:
        seats = game["seats"]
        for seat in seats:
            who = entity_of(seat)
            if who is None:
                continue
            row = rows.setdefault(
                who,
                {"games": 0, "wins": 0, "hands": 0, "points": 0, "bids": 0, "made": 0, "set": 0},
            )
            row["games"] += 1
            row["wins"] += 1 if seat["won"] else 0
            for key in ("hands", "points", "bids", "made", "set"):
                row[key] += int(seat[key])
        _partners(seats, pairs)
        _versus(seats, versus)
    players = []
    for who, row in rows.items():
        players.append(
            {
                **_who(who, name),
                "games": row["games"],
                "wins": row["wins"],
                "win_rate": round(row["wins"] / row["games"], 3) if row["games"] else 0.0,
                "rating": round(ratings.of(who), 1),
                "points_per_hand": round(row["points"] / row["hands"], 3) if row["hands"] else 0.0,
                "hands": row["hands"],
                "bids": row["bids"],
                "made": row["made"],
                "set": row["set"],
            }
        )
    players.sort(key=lambda p: (-p["rating"], p["name"]))
    return {
        "players": players,
        "partnerships": [
            {
                "names": [name(a), name(b)],
                "players": [_who(a, name), _who(b, name)],
                "games": stats["games"],
                "wins": stats["wins"],
            }
            for (a, b), stats in sorted(pairs.items(), key=lambda item: -item[1]["games"])
        ],
        "head_to_head": [
            {
                "players": [_who(a, name), _who(b, name)],
                "games": sum(counts),
                "ahead": [counts[0], counts[1]],
                "even": counts[2],
            }
            for (a, b), counts in sorted(versus.items(), key=lambda item: -sum(item[1]))
        ],
        "history": [
            {
                **_who(who, name),
                "points": [
                    {"game": gid, "at": iso(at), "rating": round(value, 1)}
                    for gid, at, value in points
                ],
            }
            for who, points in ratings.history.items()
        ],
    }


def _order(who: Entity) -> tuple[bool, str]:
    """Members before bot levels in a pair, then by id."""
    return (who[0] == "bot", who[1])


def _partners(
    seats: list[dict[str, Any]], pairs: dict[tuple[Entity, Entity], dict[str, int]]
) -> None:
    """Count the game for each pair of rated players on one fixed team of two."""
    units: dict[int, list[dict[str, Any]]] = {}
    for seat in seats:
        units.setdefault(int(seat["unit"]), []).append(seat)
    for team in units.values():
        if len(team) != 2:
            continue  # no fixed partners (schmier5's units are single players)
        first, second = entity_of(team[0]), entity_of(team[1])
        if first is None or second is None:
            continue
        key = (first, second) if _order(first) <= _order(second) else (second, first)
        stats = pairs.setdefault(key, {"games": 0, "wins": 0})
        stats["games"] += 1
        stats["wins"] += 1 if team[0]["won"] else 0


def _versus(seats: list[dict[str, Any]], versus: dict[tuple[Entity, Entity], list[int]]) -> None:
    """Count the game for each pair of rated players on different units: who finished
    ahead (winners first, then score), or even."""
    seen: set[tuple[Entity, Entity]] = set()
    for i, one in enumerate(seats):
        for other in seats[i + 1 :]:
            a, b = entity_of(one), entity_of(other)
            if a is None or b is None or a == b or one["unit"] == other["unit"]:
                continue
            if _order(b) < _order(a):
                a, b, one_first = b, a, False
            else:
                one_first = True
            if (a, b) in seen:
                continue
            seen.add((a, b))
            counts = versus.setdefault((a, b), [0, 0, 0])
            mine, theirs = standing(one), standing(other)
            if not one_first:
                mine, theirs = theirs, mine
            counts[0 if mine > theirs else 1 if theirs > mine else 2] += 1
