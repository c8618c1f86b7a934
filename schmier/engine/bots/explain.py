"""A hint that says why: the bot's answer with the values of the options it weighed.

The `strong` search weighs every card it may play (`search.card_values`) and every trump
(`handsim.trump_totals`) over the worlds it samples from the view; `explain` makes the
same decision with the same random source as `search.act` (so the hint is the move the
bot would make) and returns those values beside it, in the search's points for the
asker's side (docs/protocol.md, "Analysis of a finished hand"). Other decisions, and the
levels that weigh nothing, get the answer alone.
"""

from __future__ import annotations

import random
from typing import Any

from ..cards import CARD_NAMES, SUITS
from . import choose, handsim, search
from .reading import Answer
from .tables import card_int
from .worlds import Know, sample


def explain(policy: str, view: dict[str, Any], seed: int) -> Answer:
    """`bots.choose(policy, view, Random(seed))`, with `"options": [{"action", "value"}]`
    added where the search weighed its options (what a worker runs for a hint)."""
    rng = random.Random(seed)
    legal = view.get("legal") or ()
    kinds = {str(e["type"]) for e in legal}
    if policy != "strong" or len(legal) < 2 or not kinds <= {"play", "trump"}:
        return choose(policy, view, rng)
    budget = search.DEFAULT_BUDGET
    know = Know(view)
    if kinds == {"play"}:
        cards = [card_int(str(e["card"])) for e in legal]
        worlds = search.card_worlds(know, len(cards), budget)
        values = search.card_values(know, cards, lambda: sample(know, rng), worlds, rng)
        power = know.tb.power
        best = max(range(len(cards)), key=lambda i: (round(values[i], 6), -power[cards[i]]))
        action: Answer = {"type": "play", "card": CARD_NAMES[cards[best]]}
        options = [
            ({"type": "play", "card": CARD_NAMES[c]}, v) for c, v in zip(cards, values, strict=True)
        ]
    else:
        suits = [SUITS.index(str(e["suit"])) for e in legal]
        w = budget.hand_worlds
        totals = handsim.trump_totals(know, suits, lambda: sample(know, rng), w, rng)
        best = max(range(len(suits)), key=lambda i: (totals[i], -i))
        action = {"type": "trump", "suit": SUITS[suits[best]]}
        options = [
            ({"type": "trump", "suit": SUITS[s]}, t / w) for s, t in zip(suits, totals, strict=True)
        ]
    ranked = sorted(options, key=lambda o: -o[1])
    return {**action, "options": [{"action": a, "value": round(v, 3)} for a, v in ranked]}
