"""The `random` policy: a uniformly random legal action.

The baseline every test and benchmark compares against, and a cheap way to drive the
engine through every branch (it bids wildly, so it is set most of the time).
"""

from __future__ import annotations

import random

from .reading import Answer, Legal, View, concrete


def act(view: View, legal: Legal, rng: random.Random) -> Answer:
    """A uniformly random entry of `legal`; a discard template becomes a random subset."""
    entry = legal[rng.randrange(len(legal))]
    if entry["type"] == "discard":
        pool = list(entry["from"])
        count = rng.randint(int(entry["min"]), int(entry["max"]))
        return {"type": "discard", "cards": rng.sample(pool, count)}
    return concrete(entry)
