"""Discarding and drawing, as the variant's `discards` says.

"all" (Schmier): every non-dealer discards 0-3 non-trumps at the same time and draws as
many from the top of the stock (in the order the discards arrive); then the dealer takes
the whole rest of the stock and discards down to six, trumps only when holding more than
six and never the ace, the bauers, the low trump or the joker. "bidder" (wisconsin4): the
bidder, who took the kitty, discards down to six, trumps only when holding more than six.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from .cards import CARD_NAMES, cards_of, describe, mask_of
from .dealing import HAND_SIZE
from .errors import IllegalAction
from .ranking import trumps
from .state import State, bidder_seat, evolve

#: At most this many cards a Schmier non-dealer may exchange.
MAX_EXCHANGE = 3


class DiscardTemplate(NamedTuple):
    """What one seat's discard may be: any `min` to `max` distinct cards of `allowed`.

    A discard is a set of cards, too many to list, so this shape stands for all of them
    (the protocol's template `{"type": "discard", "from", "min", "max"}`).
    """

    #: The cards that may go, as a mask (a subset of the seat's hand).
    allowed: int
    #: The fewest cards the discard may hold.
    min: int
    #: The most cards the discard may hold.
    max: int

    def to_json(self) -> dict[str, Any]:
        """The protocol's template, as `legal` lists it."""
        return {
            "type": "discard",
            "from": [CARD_NAMES[c] for c in cards_of(self.allowed)],
            "min": self.min,
            "max": self.max,
        }


def template(state: State, seat: int) -> DiscardTemplate:
    """The discard `seat` may make now (it is awaited in phase `discard`)."""
    v = state.variant
    assert state.trump is not None
    t = trumps(v.name, state.trump)
    hand = state.hands[seat]
    held_trumps = (hand & t.mask).bit_count()
    extra = hand.bit_count() - HAND_SIZE
    if v.discards == "bidder":
        allowed = hand if held_trumps > HAND_SIZE else hand & ~t.mask
        return DiscardTemplate(allowed, extra, extra)
    if seat == state.dealer:
        allowed = hand & ~t.protected if held_trumps > HAND_SIZE else hand & ~t.mask
        return DiscardTemplate(allowed, extra, extra)
    allowed = hand & ~t.mask
    return DiscardTemplate(allowed, 0, min(MAX_EXCHANGE, allowed.bit_count()))


def finish_discards(state: State) -> State:
    """All discards are made: the bidder calls a partner next (`called_partner`), or leads."""
    phase = "call" if state.variant.called_partner else "play"
    return evolve(state, phase=phase, turn=(bidder_seat(state),))


def apply(state: State, seat: int, cards: Sequence[int]) -> State:
    """`seat` discards `cards`, checked against its template."""
    allowed, low, high = template(state, seat)
    chosen = mask_of(cards)
    if chosen.bit_count() != len(cards):
        raise IllegalAction("a card may be discarded only once")
    if chosen & ~allowed:
        bad = cards_of(chosen & ~allowed)[0]
        if not state.hands[seat] >> bad & 1:
            raise IllegalAction(f"you do not hold the {describe(bad)}")
        raise IllegalAction(f"you may not discard the {describe(bad)}")
    if not low <= len(cards) <= high:
        if low == high:
            raise IllegalAction(f"you must discard exactly {low} cards")
        raise IllegalAction(f"you may discard {low} to {high} cards")
    return step(state, seat, cards)


def step(state: State, seat: int, cards: Sequence[int]) -> State:
    """`apply` without the checks: for distinct cards within `template`'s bounds."""
    chosen = mask_of(cards)
    hands = list(state.hands)
    discards = list(state.discards)
    hands[seat] &= ~chosen
    discards[seat] |= chosen
    if state.variant.discards == "bidder" or seat == state.dealer:
        return finish_discards(evolve(state, hands=tuple(hands), discards=tuple(discards)))
    # A non-dealer: replacements from the top, in the order the discards arrive.
    stock = state.stock
    hands[seat] |= mask_of(stock[: len(cards)])
    stock = stock[len(cards) :]
    turn = tuple(s for s in state.turn if s != seat)
    if not turn:
        hands[state.dealer] |= mask_of(stock)
        stock = ()
        turn = (state.dealer,)
    state = evolve(state, hands=tuple(hands), discards=tuple(discards), stock=stock, turn=turn)
    if turn == (state.dealer,) and hands[state.dealer].bit_count() == HAND_SIZE:
        return finish_discards(state)
    return state
