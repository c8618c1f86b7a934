"""The arena's ceiling (`bench/oracle.py`): its worlds are the true deal, nothing else;
and `bench/bidlab.py`, which plays every option of a bid out.

The oracle is a measuring stick (docs/bots.md): what one `schmier5` seat that sees every
card wins. Its figures mean something only if the one world it plays from is exactly the
engine's deal, shaped as the search's sampled worlds are, and if the search goes back
to sampling from the view once the oracle has decided (a leak the other way would
make every later `strong` decision in the process an oracle's).
"""

from __future__ import annotations

import random

import pytest

from bench import oracle
from schmier import engine
from schmier.engine.bots import handsim, search
from schmier.engine.bots.tables import bits
from schmier.engine.bots.worlds import Know, sample

from .test_bots_search import VARIANTS, random_turns


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


@pytest.mark.parametrize("shown", ["hands", "stock"])
def test_a_half_oracle_sees_only_its_half_of_the_deal(shown: str) -> None:
    """`oracle_hands_bidding` is shown the other hands (the stock's order sampled),
    `oracle_stock_bidding` the stock in its order (the other hands dealt again from
    the same cards, each as many as it holds)."""
    rng = random.Random(f"half/{shown}")
    checked = 0
    moved = 0
    for state, seat in random_turns("schmier5", rng, 6):
        if checked >= 40:
            break
        if state.phase != "bidding":
            continue
        know = Know(engine.view(state, seat))
        world = oracle.half_true_world(state, know, shown, rng)
        true = oracle.true_world(state, know)
        assert world.hands[seat] == state.hands[seat]
        assert sorted(world.out) == sorted(true.out)
        if shown == "hands":
            assert world.hands == true.hands
            moved += world.out != true.out
        else:
            assert world.out == true.out
            assert [h.bit_count() for h in world.hands] == [h.bit_count() for h in true.hands]
            others = [s for s in range(know.n) if s != seat]
            union = 0
            for s in others:
                assert not union & world.hands[s]
                union |= world.hands[s]
            assert union == sum(true.hands[s] for s in others)
            moved += world.hands != true.hands
        checked += 1
    assert checked >= 40 and moved >= 30


def test_every_half_oracle_is_shown_its_half_only() -> None:
    """A name of `SHOWN` missing from `SEES` is no oracle, and one of `SEES` that says
    "hands" or "stock" but is missing from `SHOWN` would silently see the whole deal:
    the decomposition of docs/bots.md ("What the `schmier5` target asks for") reads
    each half by its name."""
    assert set(oracle.SHOWN) <= set(oracle.SEES)
    for name in oracle.SEES:
        for half in ("hands", "stock"):
            if f"_{half}_" in name:
                assert oracle.SHOWN.get(name) == half, name
    assert oracle.SEES["oracle_hands_before_play"] == oracle.BEFORE_PLAY
    assert oracle.SEES["oracle_stock_before_play"] == oracle.BEFORE_PLAY


def test_bidlab_plays_every_option_of_a_bid_out() -> None:
    """`bench/bidlab.py`: at each bidding turn of the `a` seat with a choice, one line
    with every legal option played out to the hand's scoring, the seat's own choice
    among them, and the search's simulated distribution."""
    from bench import bidlab

    tiny = "strong:playouts=24,min_worlds=2,max_worlds=4,hand_worlds=3,exact_worlds=2"
    deal_seed = random.Random("deal/1/schmier5/0").randrange(2**32)
    records = bidlab.play_game((tiny, "normal", deal_seed, 2, "lab/test", 5))
    assert records
    for r in records:
        assert r["seat"] == 2 and len(r["dist"]) == 5
        actions = [o["action"] for o in r["options"]]
        assert r["choice"] in actions and len(actions) >= 2
        assert {"type": "pass"} in actions
        for o in r["options"]:
            deltas = o["deltas"]
            assert len(deltas) == 5
            if o["bidder"] is None:
                assert deltas == [0] * 5  # everybody passed: a new deal
                continue
            bidder = o["bidder"]
            assert o["made"] == (deltas[bidder] > 0)
            if o["action"]["type"] == "bid" and bidder == 2:
                amount = o["action"]["amount"]  # nobody outbid it: it speaks once
                assert deltas[2] >= amount if o["made"] else deltas[2] == -amount
