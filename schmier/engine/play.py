"""The play phase: a card checked against the trick rules (`tricks.py`), the trick
closed and its winner to lead, the hand scored after the last trick."""

from __future__ import annotations

from .actions import PLAYS, Action
from .cards import cards_of, describe
from .dealing import HAND_SIZE
from .errors import IllegalAction
from .scoring import finish_hand
from .state import State, evolve
from .tricks import NO_LEAD, of_state, winner
from .tricks import playable as trick_playable


def playable(state: State, seat: int) -> int:
    """The cards `seat` may play now, as a mask."""
    tr = of_state(state)
    trick = state.trick
    return trick_playable(
        tr, state.hands[seat], tr.esuit[trick[0][1]] if trick else NO_LEAD, not state.tricks
    )


def moves(state: State, seat: int) -> list[Action]:
    return [PLAYS[c] for c in cards_of(playable(state, seat))]


def apply(state: State, seat: int, c: int) -> State:
    """`seat` plays `c`, checked against the rules."""
    if not playable(state, seat) >> c & 1:
        if not state.hands[seat] >> c & 1:
            raise IllegalAction(f"you do not hold the {describe(c)}")
        if not state.trick:  # every held card may lead, but for the first lead's rule
            raise IllegalAction("the first lead must be a natural card of your trump suit")
        raise IllegalAction(f"you must follow suit; the {describe(c)} may not be played now")
    return step(state, seat, c)


def step(state: State, seat: int, c: int) -> State:
    """`apply` without the checks: for a card taken from `moves`."""
    old = state.hands
    hands = (*old[:seat], old[seat] ^ (1 << c), *old[seat + 1 :])
    trick = (*state.trick, (seat, c))
    # A secret trump is shown by the first card played (a natural trump, see playable).
    trump_public = True if state.variant.secret_trump else state.trump_public
    partner_revealed = state.partner_revealed or c == state.called
    n = state.variant.seats
    if len(trick) < n:
        return evolve(
            state,
            hands=hands,
            trick=trick,
            turn=((seat + 1) % n,),
            trump_public=trump_public,
            partner_revealed=partner_revealed,
        )
    won_by = winner(of_state(state), trick)
    state = evolve(
        state,
        hands=hands,
        trick=(),
        tricks=(*state.tricks, (trick, won_by)),
        turn=(won_by,),
        trump_public=trump_public,
        partner_revealed=partner_revealed,
    )
    if len(state.tricks) == HAND_SIZE:
        return finish_hand(state)
    return state
