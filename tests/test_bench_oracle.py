"""The arena's ceiling (`bench/oracle.py`): its worlds are the true deal, nothing else.

The oracle is a measuring stick (docs/bots.md): what one `schmier5` seat that sees every
card wins. Its figures mean something only if the one world it plays from is exactly the
engine's deal, shaped as the search's sampled worlds are, and if the search goes back
to sampling from the view once the oracle has decided (a leak the other way would
make every later `strong` decision in the process an oracle's).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from schmier import engine
from schmier.engine.bots import handsim, search
from schmier.engine.bots.tables import bits
from schmier.engine.bots.worlds import Know, sample

from .test_bots_search import VARIANTS, random_turns

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import oracle  # a bench script's module, found through the path above


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_oracles_world_is_the_deal(variant: str) -> None:
    """In play, for every seat: every hand as the engine holds it, the cards out of the
    hands exactly the stock (in its order) and the others' discards, and the bidder's
    banked discards counted where they count. (Not `check_world` of the sampled worlds:
    a dealer with more than six trumps may discard one, which the sampler never deals.)"""
    rng = random.Random(f"oracle/{variant}")
    checked = 0
    for state, seat in random_turns(variant, rng, 4):
        if checked >= 120:
            break
        if state.phase != "play":
            continue
        know = Know(engine.view(state, seat))
        world = oracle.true_world(state, know)
        assert world.hands == list(state.hands)
        assert world.hands[seat] == know.hand
        others = [d for s, d in enumerate(state.discards) if s != seat]
        out = sum(1 << c for c in world.out)
        assert out == sum(1 << c for c in state.stock) | sum(others)
        assert world.out[: len(state.stock)] == list(state.stock)
        bidder = state.bidder
        if know.book["banks_discards"] and bidder is not None and bidder != seat:
            assert world.bank == sum(know.tb.game[c] for c in bits(state.discards[bidder]))
        else:
            assert world.bank == 0
        checked += 1
    assert checked >= 120


def test_the_oracle_sees_only_while_it_decides() -> None:
    """Inside `seeing`, the search's worlds (bidding and play alike) are the deal;
    outside, sampling from the view again; and the oracle's answer is a legal action."""
    rng = random.Random("oracle/seeing")
    state = engine.new_game("schmier5", engine.make_rules("schmier5", {}), 0)
    deck = list(engine.get_variant("schmier5").deck)
    rng.shuffle(deck)
    state = engine.apply_trusted(state, None, engine.Action("deal", tuple(deck)))
    (seat,) = engine.turn(state)
    view = engine.view(state, seat)
    know = Know(view)
    with oracle.seeing(state):
        for module in (handsim, search):
            world = module.sample(know, rng)
            assert world.hands == list(state.hands)
            assert world.out == list(state.stock)
    assert handsim.sample is sample and search.sample is sample
    action = oracle.decide("oracle", search.Budget(hand_worlds=8), state, view, rng)
    assert action["type"] in {a["type"] for a in view["legal"]}
    assert handsim.sample is sample and search.sample is sample
