"""The `easy` policy: the heuristic, with the slips of a casual player.

A beginner knows the rules of thumb but does not always apply them: now and then it
plays another legal card than the one it meant to (a fifth of its free choices), bids
one more than its hand is worth or passes a hand it could have bid, and sometimes keeps
a card it should have thrown. The slips come from the seeded random source like every
other choice, so a room still replays exactly.
"""

from __future__ import annotations

import random

from . import heuristic
from .reading import Answer, Legal, View

#: The share of free card choices where it plays another card than the heuristic's.
CARD_SLIP = 0.2
#: The share of bidding turns where its bid is one off (over or under).
BID_SLIP = 0.25
#: The share of exchanges where it keeps one card it meant to throw.
DISCARD_SLIP = 0.3


def act(view: View, legal: Legal, rng: random.Random) -> Answer:
    """The heuristic's answer, sometimes slipped (always within `legal`)."""
    meant = heuristic.act(view, legal, rng)
    kind = meant["type"]
    if kind == "play":
        cards = [str(e["card"]) for e in legal if e["type"] == "play"]
        others = [c for c in cards if c != meant["card"]]
        if others and rng.random() < CARD_SLIP:
            return {"type": "play", "card": others[rng.randrange(len(others))]}
        return meant
    if kind in ("bid", "pass"):
        if rng.random() >= BID_SLIP:
            return meant
        amounts = sorted(int(e["amount"]) for e in legal if e["type"] == "bid")
        can_pass = any(e["type"] == "pass" for e in legal)
        if kind == "bid":
            higher = [a for a in amounts if a == int(meant["amount"]) + 1]
            if higher and rng.random() < 0.5:
                return {"type": "bid", "amount": higher[0]}
            return {"type": "pass"} if can_pass else meant
        return {"type": "bid", "amount": amounts[0]} if amounts else meant
    if kind == "discard":
        cards = list(meant["cards"])
        template = next(e for e in legal if e["type"] == "discard")
        if len(cards) > int(template["min"]) and rng.random() < DISCARD_SLIP:
            cards.pop(rng.randrange(len(cards)))
        return {"type": "discard", "cards": cards}
    return meant
