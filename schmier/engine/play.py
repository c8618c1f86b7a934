"""Trick play: following suit, trumping, and who wins a trick."""

from __future__ import annotations

from .actions import PLAYS, Action
from .cards import X1, cards_of, describe
from .dealing import HAND_SIZE
from .errors import IllegalAction
from .ranking import Trumps, trumps
from .scoring import finish_hand
from .state import Play, State, evolve


def playable(state: State, seat: int) -> int:
    """The cards `seat` may play now, as a mask."""
    hand = state.hands[seat]
    assert state.trump is not None
    t = trumps(state.variant.name, state.trump)
    if not state.trick:
        if state.variant.first_lead_trump and not state.tricks:
            return hand & t.naturals
        return hand
    follow = hand & t.follow[t.esuit[state.trick[0][1]]]
    if not follow:
        return hand
    if state.rules.trump_anytime:
        return follow | (hand & t.mask)
    return follow


def moves(state: State, seat: int) -> list[Action]:
    return [PLAYS[c] for c in cards_of(playable(state, seat))]


def winner(trick: tuple[Play, ...], t: Trumps, joker_order: str | None) -> int:
    """The seat that wins `trick`: the highest trump, else the highest card of the suit led.

    Two jokers have the same power; `joker_order` decides between them (`first_high`:
    the one played first keeps the trick).
    """
    power = t.power
    esuit = t.esuit
    led = esuit[trick[0][1]]
    best_seat, best_card = trick[0]
    best = power[best_card]
    second_high = joker_order == "second_high"
    for seat, c in trick[1:]:
        if esuit[c] != led and not (t.mask >> c & 1):
            continue
        p = power[c]
        if p > best or (p == best and second_high and c >= X1 and best_card >= X1):
            best_seat, best_card, best = seat, c, p
    return best_seat


def apply(state: State, seat: int, c: int) -> State:
    """`seat` plays `c`, checked against the rules."""
    if not playable(state, seat) >> c & 1:
        if not state.hands[seat] >> c & 1:
            raise IllegalAction(f"you do not hold the {describe(c)}")
        if state.variant.first_lead_trump and not state.tricks and not state.trick:
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
    assert state.trump is not None
    won_by = winner(trick, trumps(state.variant.name, state.trump), state.rules.joker_order)
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
