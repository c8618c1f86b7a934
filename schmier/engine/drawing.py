"""Discarding and drawing, as the variant's `discards` says.

"all" (Schmier): every non-dealer discards 0-3 non-trumps at the same time and draws as
many from the top of the stock (in the order the discards arrive); then the dealer takes
the whole rest of the stock and discards down to six, trumps only when holding more than
six and never the ace, the bauers, the low trump or the joker. "bidder" (wisconsin4): the
bidder, who took the kitty, discards down to six, trumps only when holding more than six.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .cards import CARD_NAMES, cards_of, describe, mask_of
from .dealing import HAND_SIZE
from .errors import IllegalAction
from .ranking import trumps
from .state import State, bidder_seat, evolve

#: At most this many cards a Schmier non-dealer may exchange.
MAX_EXCHANGE = 3


def template(state: State, seat: int) -> tuple[int, int, int]:
    """(cards that may go, as a mask; fewest; most) for `seat`'s discard now."""
    v = state.variant
    assert state.trump is not None
    t = trumps(v.name, state.trump)
    hand = state.hands[seat]
    held_trumps = (hand & t.mask).bit_count()
    extra = hand.bit_count() - HAND_SIZE
    if v.discards == "bidder":
        allowed = hand if held_trumps > HAND_SIZE else hand & ~t.mask
        return allowed, extra, extra
    if seat == state.dealer:
        allowed = hand & ~t.protected if held_trumps > HAND_SIZE else hand & ~t.mask
        return allowed, extra, extra
    allowed = hand & ~t.mask
    return allowed, 0, min(MAX_EXCHANGE, allowed.bit_count())


def legal(state: State, seat: int) -> list[dict[str, Any]]:
    allowed, low, high = template(state, seat)
    return [
        {
            "type": "discard",
            "from": [CARD_NAMES[c] for c in cards_of(allowed)],
            "min": low,
            "max": high,
        }
    ]


def finish_discards(state: State) -> State:
    """All discards are made: the bidder calls a partner next (`called_partner`), or leads."""
    phase = "call" if state.variant.called_partner else "play"
    return evolve(state, phase=phase, turn=(bidder_seat(state),))


def apply(state: State, seat: int, cards: Sequence[int]) -> State:
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
    hands = list(state.hands)
    discards = list(state.discards)
    hands[seat] &= ~chosen
    discards[seat] |= chosen
    stock = state.stock
    v = state.variant
    if v.discards == "bidder" or seat == state.dealer:
        return finish_discards(evolve(state, hands=tuple(hands), discards=tuple(discards)))
    # A non-dealer: replacements from the top, in the order the discards arrive.
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
