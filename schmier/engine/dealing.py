"""The deal: the one chance step of a hand, supplied from outside as a shuffled deck.

The engine never shuffles. The server shuffles with a cryptographically secure source and
logs the deck it dealt, tests stack decks to build any position, and a game replays from
its log to the identical state on any Python version.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import mask_of
from .errors import IllegalAction, MalformedAction
from .state import State, evolve, fresh_hand

HAND_SIZE = 6


def check_deck(state: State, deck: Sequence[int]) -> tuple[int, ...]:
    """`deck` if it is a permutation of the game's cards; MalformedAction otherwise."""
    cards = tuple(deck)
    if sorted(cards) != list(state.variant.deck):
        raise MalformedAction("a deal must be a permutation of the whole deck")
    return cards


def deal(state: State, deck: tuple[int, ...]) -> State:
    """Deal six cards each from `deck`, starting left of the dealer; the rest is the stock.

    In phase `deal` (a new game, or everybody passed) the same dealer deals; after a
    scored hand (`hand_over`) the deal passes left.
    """
    if state.phase not in ("deal", "hand_over"):
        raise IllegalAction(f"no deal is due in phase {state.phase}")
    return step(state, deck)


def step(state: State, deck: tuple[int, ...]) -> State:
    """`deal` without the checks: for a permutation of the deck when a deal is due."""
    n = state.variant.seats
    dealer = state.dealer if state.phase == "deal" else (state.dealer + 1) % n
    hands = [0] * n
    for i in range(n):
        hands[(dealer + 1 + i) % n] = mask_of(deck[HAND_SIZE * i : HAND_SIZE * (i + 1)])
    return evolve(
        state,
        phase="bidding",
        dealer=dealer,
        deals=state.deals + 1,
        hands=tuple(hands),
        stock=deck[HAND_SIZE * n :],
        turn=((dealer + 1) % n,),
        **fresh_hand(n),
    )
