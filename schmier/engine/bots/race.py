"""The race to the target: what a hand's result means for winning the game.

A bot that only counts a hand's points plays the last hands of a game as if they were
the first: it lets an opponent one point short of the target make its bid, or misses
the bid that takes its own side out. So once someone can reach the target in the hand
being played, every simulated result is also scored as the engine would end the game
(docs/rules.md step 9: the single highest score at or over the target wins, a tie goes to
the bidder's side if it is among them, else the game goes on), and a game won or lost
is worth `WIN` points more or less than the points alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from .reading import View

#: What winning (or losing) the game is worth, in a hand's points: more than any hand.
WIN = 20.0

#: The most points one side can take in a hand (the six points).
_HAND_MOST = 6


class Race:
    """The scores before the hand (per scoring unit), the target, and which seat stands
    for each unit (its first seat)."""

    __slots__ = ("first_seat", "scores", "target", "unit_of")

    def __init__(
        self, scores: Sequence[int], target: int, teams: Sequence[Sequence[int]], seats: int
    ) -> None:
        self.scores = list(scores)
        self.target = target
        self.first_seat = [int(t[0]) for t in teams]
        self.unit_of = [0] * seats
        for i, team in enumerate(teams):
            for s in team:
                self.unit_of[int(s)] = i

    def mine(self, me: int) -> int:
        """The score of `me`'s scoring unit before the hand."""
        return self.scores[self.unit_of[me]]

    def settle(self, deltas: Sequence[int], side_of: Sequence[int], me: int) -> float:
        """`WIN` if these score changes (per side, side 0 the bidder's) end the game
        with `me` among the winners, `-WIN` if they end it with others winning, else 0."""
        scores = [s + deltas[side_of[f]] for s, f in zip(self.scores, self.first_seat, strict=True)]
        best = max(scores)
        if best < self.target:
            return 0.0
        won = [i for i, s in enumerate(scores) if s == best]
        if len(won) > 1:
            won = [i for i in won if side_of[self.first_seat[i]] == 0]
            if not won:
                return 0.0
        return WIN if self.unit_of[me] in won else -WIN


def race_of(view: View) -> Race | None:
    """The race, when this hand can end the game (else None: points are all that count)."""
    scores = [int(s) for s in view.get("scores") or ()]
    teams = view.get("teams") or ()
    if not scores or len(scores) != len(teams):
        return None
    target = int((view.get("rules") or {}).get("target") or 21)
    if max(scores) + _HAND_MOST < target:
        return None
    return Race(scores, target, teams, len(view["seats"]))
