"""One round of bidding, left of the dealer round to the dealer."""

from __future__ import annotations

from typing import Any

from .cards import mask_of
from .errors import IllegalAction
from .state import State, evolve


def highest(state: State) -> int:
    """The highest bid so far, 0 when nobody has bid."""
    best = 0
    for _, amount in state.bids:
        if amount is not None and amount > best:
            best = amount
    return best


def may_pass(state: State, seat: int) -> bool:
    """Whether `seat` may pass: always, except the stuck dealer."""
    if not state.rules.stick_the_dealer or seat != state.dealer:
        return True
    return any(amount is not None for _, amount in state.bids)


def legal(state: State, seat: int) -> list[dict[str, Any]]:
    v = state.variant
    low = max(highest(state) + 1, v.min_bid)
    out: list[dict[str, Any]] = [{"type": "pass"}] if may_pass(state, seat) else []
    out += [{"type": "bid", "amount": k} for k in range(low, v.max_bid + 1)]
    return out


def apply(state: State, seat: int, amount: int | None) -> State:
    v = state.variant
    if amount is None:
        if not may_pass(state, seat):
            raise IllegalAction("the dealer is stuck: everybody else passed, so you must bid")
    else:
        low = max(highest(state) + 1, v.min_bid)
        if not low <= amount <= v.max_bid:
            raise IllegalAction(f"a bid must be from {low} to {v.max_bid} now")
    bids = (*state.bids, (seat, amount))
    if amount != v.max_bid and seat != state.dealer:
        return evolve(state, bids=bids, turn=((seat + 1) % v.seats,))
    made = [(s, a) for s, a in bids if a is not None]
    if not made:
        # Everybody passed: the same dealer deals again.
        return evolve(state, bids=bids, phase="deal", turn=())
    bidder, bid = made[-1]
    hands = state.hands
    stock = state.stock
    if v.kitty:
        kitty = state.rules.kitty or 0
        hands = tuple(h | mask_of(stock[:kitty]) if s == bidder else h for s, h in enumerate(hands))
        stock = stock[kitty:]
    return evolve(
        state,
        bids=bids,
        bidder=bidder,
        bid=bid,
        hands=hands,
        stock=stock,
        phase="trump",
        turn=(bidder,),
    )
