"""schmier5: the bidder calls a partner by naming a card, or plays alone.

Whoever holds the called card is the partner, and nobody is told: the partner knows from
their own hand, the table learns it when the card is played. A called card that lies
among the discards means the bidder plays alone, which the table learns after the hand.
"""

from __future__ import annotations

from .actions import Action
from .cards import describe
from .errors import IllegalAction
from .state import State, bidder_seat, evolve

ALONE = Action("call", None)


def moves(state: State, seat: int) -> list[Action]:
    """Every card of the deck the bidder does not hold, then playing alone."""
    hand = state.hands[seat]
    out = [Action("call", c) for c in state.variant.deck if not hand >> c & 1]
    out.append(ALONE)
    return out


def apply(state: State, seat: int, called: int | None) -> State:
    """The bidder calls `called` (None: alone), checked against the rules."""
    if called is not None:
        if called not in state.variant.deck:
            raise IllegalAction(f"the {describe(called)} is not in this deck")
        if state.hands[seat] >> called & 1:
            raise IllegalAction("you may not call a card you hold")
    return step(state, seat, called)


def step(state: State, seat: int, called: int | None) -> State:
    """`apply` without the checks: for a call taken from `moves`."""
    partner = None
    if called is not None:
        partner = next(
            (s for s, h in enumerate(state.hands) if s != seat and h >> called & 1), None
        )
    return evolve(state, called=called, partner=partner, phase="play", turn=(bidder_seat(state),))
