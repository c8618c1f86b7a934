"""What a decision's loss means: its mark, and accuracy, per decision and per player.

A loss is in the search's points for the seat's side (docs/coach.md). The
thresholds were chosen by measurement (`bench/coach`, docs/bots.md): `GOOD` lies above
the search's own noise at the analysis budget (two runs with different seeds disagree
by less than that on nine decisions in ten), so "good" means "as good as the search
can tell"; an inaccuracy costs about a tenth of a hand's point-spread, a mistake about
a third of a point, a blunder half a point or more (a point taken by the other side is
a whole point of difference between the two).

Accuracy follows lichess's idea (each move's accuracy an exponential of what it lost,
the game's the mean of its moves'): a decision's accuracy is
``100 * exp(-loss / ACCURACY_SCALE)`` (100 for a loss of 0, about 37 for a loss of
`ACCURACY_SCALE`), and a player's accuracy over a hand or a game is the mean of its
decisions' accuracies (100 with no decision to make).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

#: A loss below this is "good" (within the search's noise), 0 is "best".
GOOD = 0.1
#: A loss from `GOOD` up to this is an inaccuracy.
INACCURACY = 0.3
#: A loss from `INACCURACY` up to this is a mistake; from here on, a blunder.
MISTAKE = 0.6

#: The loss at which a decision's accuracy falls to 1/e (about 37 %).
ACCURACY_SCALE = 0.5

MARKS = ("best", "good", "inaccuracy", "mistake", "blunder")


def mark(loss: float) -> str:
    """The mark of a decision that lost `loss` (never milder as the loss grows)."""
    if loss <= 0:
        return "best"
    if loss < GOOD:
        return "good"
    if loss < INACCURACY:
        return "inaccuracy"
    if loss < MISTAKE:
        return "mistake"
    return "blunder"


def accuracy(loss: float) -> float:
    """One decision's accuracy, 0 to 100."""
    return 100.0 * math.exp(-max(0.0, loss) / ACCURACY_SCALE)


def mean_accuracy(losses: Iterable[float]) -> float:
    """A player's accuracy over its decisions (100 with none), rounded to 0.1."""
    values = [accuracy(x) for x in losses]
    if not values:
        return 100.0
    return round(sum(values) / len(values), 1)
