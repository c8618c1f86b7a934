"""Ratings: an Elo rating per player and game, for team and individual games alike.

Everyone starts at 1500. A finished game is a round of matches between its scoring
units (the teams of `schmier6` and `wisconsin4`, the five players of `schmier5`), each
unit against each other: the unit that finished ahead (winners first, then the higher
final score) scores 1, the other 0, a tie 0.5. A unit's rating is the mean of its
players' ratings before the game; against a unit rated `Rb` a unit rated `Ra` expects

    E = 1 / (1 + 10 ** ((Rb - Ra) / 400))

and its change is `K * sum(S - E) / (n - 1)` over the `n - 1` other units (K = 32), so
a game counts as much in a five-player game as in a two-team one. Every player of a unit
takes the unit's change. A bot level is one player, however many seats it holds: its
change is the mean of its seats' changes (two `strong` bots on opposite teams cancel
out). A guest (a person who joined without a member key) plays at a fixed 1500 and is
not rated: a typed name is no identity. docs/archive.md works an example by hand;
tests/test_ledger_standings.py checks it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

INITIAL = 1500.0
K = 32.0

Entity = tuple[str, str]
"""("member", id) or ("bot", level)."""


def entity_of(seat: dict[str, Any]) -> Entity | None:
    """Who a seat's row counts for: a member, a bot level, or nobody (a guest)."""
    if seat.get("member"):
        return ("member", str(seat["member"]))
    if seat.get("bot"):
        return ("bot", str(seat["bot"]))
    return None


def expected(rating: float, other: float) -> float:
    """The score a unit rated `rating` expects against one rated `other`."""
    return 1.0 / (1.0 + float(10.0 ** ((other - rating) / 400.0)))


def standing(seat: dict[str, Any]) -> tuple[int, int]:
    """How far a seat's unit got: winners first, then the higher final score."""
    return (1 if seat["won"] else 0, int(seat["score"]))


@dataclass
class Ratings:
    """Every rated player's rating now, and after each of its games."""

    now: dict[Entity, float] = field(default_factory=dict)
    history: dict[Entity, list[tuple[str, int, float]]] = field(default_factory=dict)
    """(game id, finished at, rating after) per player, oldest first."""

    def of(self, who: Entity | None) -> float:
        return INITIAL if who is None else self.now.get(who, INITIAL)

    def play(self, game: dict[str, Any]) -> None:
        """Rate one finished game (`games.results` shape)."""
        seats = game["seats"]
        units: dict[int, list[dict[str, Any]]] = {}
        for seat in seats:
            units.setdefault(int(seat["unit"]), []).append(seat)
        if len(units) < 2:
            return
        rating = {u: sum(self.of(entity_of(s)) for s in ss) / len(ss) for u, ss in units.items()}
        place = {u: standing(ss[0]) for u, ss in units.items()}
        change: dict[int, float] = {}
        for u in units:
            total = 0.0
            for v in units:
                if v != u:
                    score = 1.0 if place[u] > place[v] else 0.5 if place[u] == place[v] else 0.0
                    total += score - expected(rating[u], rating[v])
            change[u] = K * total / (len(units) - 1)
        changes: dict[Entity, list[float]] = {}
        for seat in seats:
            who = entity_of(seat)
            if who is not None:
                changes.setdefault(who, []).append(change[int(seat["unit"])])
        for who, mine in changes.items():
            after = self.of(who) + sum(mine) / len(mine)
            self.now[who] = after
            self.history.setdefault(who, []).append((game["id"], int(game["finished_at"]), after))


def rate(games: Iterable[dict[str, Any]]) -> Ratings:
    """The ratings after `games`, oldest first."""
    ratings = Ratings()
    for game in games:
        ratings.play(game)
    return ratings
