"""Naming trump (Schmier: public at once) or committing to it (wisconsin4: secret until the
bidder's first lead)."""

from __future__ import annotations

from typing import Any

from .cards import SUITS
from .errors import IllegalAction
from .state import State, evolve
from .trumps import trumps


def allowed_suits(state: State) -> list[int]:
    """Schmier: any suit. wisconsin4: a suit of which the bidder holds a natural card,
    so that the first lead (which must be one) is always possible."""
    if not state.variant.kitty_draw:
        return [0, 1, 2, 3]
    hand = state.hands[state.turn[0]]
    return [s for s in range(4) if hand & trumps(state.variant.name, s).naturals]


def legal(state: State, seat: int) -> list[dict[str, Any]]:
    return [{"type": "trump", "suit": SUITS[s]} for s in allowed_suits(state)]


def apply(state: State, seat: int, suit: int) -> State:
    if suit not in allowed_suits(state):
        raise IllegalAction("you must name a suit of which you hold a natural card")
    v = state.variant
    n = v.seats
    if not v.kitty_draw:
        others = tuple((state.dealer + 1 + i) % n for i in range(n - 1))
        return evolve(state, trump=suit, trump_public=True, phase="discard", turn=others)
    phase = "discard" if state.rules.kitty else "play"
    return evolve(state, trump=suit, trump_public=False, phase=phase, turn=(seat,))
