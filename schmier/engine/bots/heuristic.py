"""The `heuristic` policy: rules of thumb for every decision, cheap enough to play
thousands of games a minute (``docs/bots.md`` gives the rules and their strength).

It estimates how many points each suit as trump would take, bids that, names its best
suit (`bidding`), keeps trumps and guarded cards (`discards`), and in play weighs, for
each legal card, the points at stake in the trick against the chance its side ends up
taking it and the value of keeping the card for later (`cardplay`).
"""

from __future__ import annotations

import random

from .bidding import bid, name_trump
from .cardplay import play
from .discards import call, discard
from .reading import Answer, Legal, View, concrete


def act(view: View, legal: Legal, rng: random.Random) -> Answer:
    """Dispatch on the kind of decision the view asks for."""
    kinds = {str(e["type"]) for e in legal}
    if "play" in kinds:
        return play(view, [str(e["card"]) for e in legal if e["type"] == "play"])
    if "bid" in kinds or "pass" in kinds:
        return bid(view, legal)
    if "trump" in kinds:
        return name_trump(view, [str(e["suit"]) for e in legal if e["type"] == "trump"])
    if "discard" in kinds:
        template = next(e for e in legal if e["type"] == "discard")
        return discard(view, template)
    if "call" in kinds:
        return call(view, [e.get("card") for e in legal if e["type"] == "call"])
    # Anything else (``rematch``, lobby actions) carries no judgement: take one.
    return concrete(legal[rng.randrange(len(legal))])
