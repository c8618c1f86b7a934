"""One round of bidding, left of the dealer round to the dealer."""

from __future__ import annotations

from .actions import Action
from .cards import mask_of
from .errors import IllegalAction
from .state import State, evolve

PASS = Action("pass")


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


def lowest_bid(state: State) -> int:
    """The lowest bid allowed now: above the highest so far, and at least the minimum."""
    return max(highest(state) + 1, state.variant.min_bid)


def moves(state: State, seat: int) -> list[Action]:
    """Pass (unless stuck), then every bid from the lowest allowed up."""
    out = [PASS] if may_pass(state, seat) else []
    out += [Action("bid", k) for k in range(lowest_bid(state), state.variant.max_bid + 1)]
    return out


def apply(state: State, seat: int, amount: int | None) -> State:
    """`seat` bids `amount` (None: passes), checked against the rules."""
    if amount is None:
        if not may_pass(state, seat):
            raise IllegalAction("the dealer is stuck: everybody else passed, so you must bid")
    else:
        low, high = lowest_bid(state), state.variant.max_bid
        if not low <= amount <= high:
            raise IllegalAction(f"a bid must be from {low} to {high} now")
    return step(state, seat, amount)


def step(state: State, seat: int, amount: int | None) -> State:
    """`apply` without the checks: for a bid taken from `moves`."""
    v = state.variant
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
