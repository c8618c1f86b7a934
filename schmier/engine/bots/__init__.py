"""Computer players: a function of one seat's view and a random source.

A bot is given exactly what a human at that seat would see (the dict
``engine.view(state, seat)`` returns) and must answer with one concrete action from
``view["legal"]``. It never sees the state, so it cannot cheat, and it is pure (no
I/O, no clock, no global random state), so a room replays identically from its log
and a test can pin a bot's behaviour with a seed. What it knows of the game it plays
comes from the rule book, ``engine.describe(view["variant"])``, never from the game's
name.

The policies, one module each:

``random`` (`uniform`)
    a uniformly random legal action; the baseline every test and benchmark compares
    against, and a cheap way to drive the engine through every branch.
``heuristic`` (`heuristic`, with `bidding`, `discards` and `cardplay`)
    a rule-of-thumb player; ``docs/bots.md`` describes the rules and their measured
    strength.
``strong`` (`search`, with `worlds`, `handsim`, `playout`, `policy`, `endgame`)
    determinized Monte Carlo search over the worlds the seat cannot tell apart, on a
    playout simulator of its own (`tables`, the engine's trick rules with the rollout
    policy's look-ups; `drawing`), for a fixed budget of worlds and playouts.
``easy`` (`easy`)
    the heuristic with a casual player's slips.

A new policy is a module with an `act(view, legal, rng)` function and one entry in
`PLAYERS`. Every choice is made *from the entries of* ``legal`` (a discard picks its
cards from the template's ``from``, within ``min``..``max``), so whatever a policy
concludes, the answer is legal by construction.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from . import easy, heuristic, search, uniform
from .bidding import best_suit, estimate
from .reading import Answer, Legal, View

#: A policy: the answer to the view (its `legal` entries passed in, never empty).
Policy = Callable[[View, Legal, random.Random], Answer]

#: Every policy by name, in the order `POLICIES` lists them.
PLAYERS: dict[str, Policy] = {
    "random": uniform.act,
    "heuristic": heuristic.act,
    "strong": search.act,
    "easy": easy.act,
}

POLICIES: tuple[str, ...] = tuple(PLAYERS)


def choose(policy: str, view: View, rng: random.Random) -> Answer:
    """Pick one concrete, legal action for the viewer of `view`.

    Raises ``ValueError`` for an unknown policy or when the view offers nothing to
    do: a caller asking a bot to act out of turn is a bug worth surfacing.
    """
    player = PLAYERS.get(policy)
    if player is None:
        raise ValueError(f"unknown bot policy {policy!r}; known: {', '.join(POLICIES)}")
    legal: Legal = view.get("legal") or ()
    if not legal:
        raise ValueError("the view has no legal action: this seat has nothing to do")
    return player(view, legal, rng)


__all__ = ["PLAYERS", "POLICIES", "Answer", "Policy", "View", "best_suit", "choose", "estimate"]
