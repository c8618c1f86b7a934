"""Naming trump (public at once) or, in a game with `secret_trump` (wisconsin4), committing
to it privately until the bidder's first lead."""

from __future__ import annotations

from .actions import Action
from .dealing import HAND_SIZE
from .drawing import finish_discards
from .errors import IllegalAction
from .ranking import trumps
from .state import State, evolve


def allowed_suits(state: State) -> list[int]:
    """Any suit; with `trump_from_hand`, a suit of which the bidder holds a natural card,
    so that the first lead (which must be one) is always possible."""
    if not state.variant.trump_from_hand:
        return [0, 1, 2, 3]
    hand = state.hands[state.turn[0]]
    return [s for s in range(4) if hand & trumps(state.variant.name, s).naturals]


def moves(state: State, seat: int) -> list[Action]:
    return [Action("trump", s) for s in allowed_suits(state)]


def apply(state: State, seat: int, suit: int) -> State:
    """The bidder names (or commits to) `suit`, checked against the rules."""
    if suit not in allowed_suits(state):
        raise IllegalAction("you must name a suit of which you hold a natural card")
    return step(state, seat, suit)


def step(state: State, seat: int, suit: int) -> State:
    """`apply` without the checks: for a suit taken from `moves`."""
    v = state.variant
    n = v.seats
    state = evolve(state, trump=suit, trump_public=not v.secret_trump)
    if v.discards == "all":
        others = tuple((state.dealer + 1 + i) % n for i in range(n - 1))
        return evolve(state, phase="discard", turn=others)
    if state.hands[seat].bit_count() > HAND_SIZE:
        # The bidder took a kitty and discards down to six.
        return evolve(state, phase="discard", turn=(seat,))
    return finish_discards(state)
