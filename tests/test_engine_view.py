"""The split of a view into its public and private parts.

The server serialises the public part once per change and splices in each seat's private
part, so the split must be exact: the public part is the same for every viewer and holds
none of the private keys, and the two together are the whole view.
"""

from __future__ import annotations

import random

import pytest

from schmier import engine


def _states(variant: str, seed: int) -> list[engine.State]:
    """Every state of one hand and a bit, reached with random legal actions."""
    rng = random.Random(seed)
    state = engine.new_game(variant, engine.make_rules(variant), rng.randrange(4))
    states = []
    while len(states) < 120 and state.phase != "game_over":
        if engine.needs_deal(state):
            deck = engine.full_deck(variant)
            rng.shuffle(deck)
            state = engine.deal(state, deck)
            continue
        seat = rng.choice(state.turn)
        action = rng.choice(engine.legal_actions(state, seat))
        if action["type"] == "discard":
            action = {"type": "discard", "cards": action["from"][: action["min"]]}
        state = engine.apply(state, seat, action)
        states.append(state)
    return states


@pytest.mark.parametrize("variant", engine.VARIANTS)
def test_public_and_private_parts_make_the_view(variant: str) -> None:
    seats = [None, *range(engine.seat_count(variant))]
    for state in _states(variant, 7):
        public = engine.public_view(state)
        assert not set(public) & set(engine.PRIVATE_KEYS)
        for seat in seats:
            private = engine.private_view(state, seat)
            assert set(private) == set(engine.PRIVATE_KEYS)
            assert {**public, **private} == engine.view(state, seat)
