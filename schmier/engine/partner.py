"""schmier5: the bidder calls a partner by naming a card, or plays alone.

Whoever holds the called card is the partner, and nobody is told: the partner knows from
their own hand, the table learns it when the card is played. A called card that lies
among the discards means the bidder plays alone, which the table learns after the hand.
"""

from __future__ import annotations

from typing import Any

from .cards import CARD_NAMES, describe
from .errors import IllegalAction
from .state import State, bidder_seat, evolve


def legal(state: State, seat: int) -> list[dict[str, Any]]:
    hand = state.hands[seat]
    out: list[dict[str, Any]] = [
        {"type": "call", "card": CARD_NAMES[c]} for c in state.variant.deck if not hand >> c & 1
    ]
    out.append({"type": "call", "card": None})
    return out


def apply(state: State, seat: int, called: int | None) -> State:
    partner = None
    if called is not None:
        if called not in state.variant.deck:
            raise IllegalAction(f"the {describe(called)} is not in this deck")
        if state.hands[seat] >> called & 1:
            raise IllegalAction("you may not call a card you hold")
        partner = next(
            (s for s, h in enumerate(state.hands) if s != seat and h >> called & 1), None
        )
    return evolve(state, called=called, partner=partner, phase="play", turn=(bidder_seat(state),))
