"""The trusted fast path (`apply_trusted`) and the legal moves it is fed from.

`legal_moves` must be exactly what the validating `apply` accepts, and `legal_actions`
exactly `legal_moves` as the protocol writes it; then a game played through
`apply_trusted` on those moves reaches the very states `apply` reaches, step by step,
in every variant under random house rules (python-chess's `push` against `push_uci`,
OpenSpiel's `ApplyAction` against `ApplyActionWithLegalityCheck`).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schmier import engine
from schmier.engine import Action
from schmier.engine.cards import cards_of

#: Random bidding sends scores down for ever; mostly passing keeps games finite.
PASS_WEIGHT = 0.65
MAX_HANDS = 25


def rules_strategy(variant: str) -> st.SearchStrategy[dict[str, Any]]:
    base: dict[str, st.SearchStrategy[Any]] = {
        "target": st.sampled_from([5, 11, 21]),
        "stick_the_dealer": st.booleans(),
        "trump_anytime": st.booleans(),
    }
    if variant == "wisconsin4":
        base["kitty"] = st.integers(0, 3)
        base["joker_order"] = st.sampled_from(["first_high", "second_high"])
    return st.fixed_dictionaries(base)


def random_move(state: engine.State, rng: random.Random) -> tuple[int | None, Action]:
    """A random (seat, action) among those the engine waits for, as `Action`s."""
    if engine.needs_deal(state):
        deck = list(state.variant.deck)
        rng.shuffle(deck)
        return None, Action("deal", tuple(deck))
    seat = rng.choice(engine.turn(state))
    template = engine.discard_template(state, seat)
    if template is not None:
        pool = cards_of(template.allowed)
        count = rng.randint(template.min, template.max)
        return seat, Action("discard", tuple(rng.sample(pool, count)))
    moves = engine.legal_moves(state, seat)
    assert moves, f"seat {seat} is awaited in phase {state.phase} but has no move"
    if state.phase == "bidding":
        passes = [m for m in moves if m.kind == "pass"]
        bids = [m for m in moves if m.kind == "bid"]
        if passes and (not bids or rng.random() < PASS_WEIGHT):
            return seat, passes[0]
        return seat, bids[0] if rng.random() < 0.7 else rng.choice(bids)
    return seat, rng.choice(moves)


def random_game(variant: str, overrides: dict[str, Any], seed: int) -> engine.State:
    rng = random.Random(seed)
    rules = engine.make_rules(variant, overrides)
    return engine.new_game(variant, rules, rng.randrange(engine.seat_count(variant)))


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(variant=st.sampled_from(engine.VARIANTS), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_the_trusted_path_reaches_the_same_states(
    variant: str, seed: int, data: st.DataObject
) -> None:
    """Whole games: every move applied both ways, the protocol's JSON through `apply`
    (parsed and checked) and the `Action` through `apply_trusted`; equal at every step."""
    overrides = data.draw(rules_strategy(variant), label="rules")
    checked = trusted = random_game(variant, overrides, seed)
    rng = random.Random(seed)
    hands = steps = 0
    while checked.phase != "game_over" and hands < MAX_HANDS:
        seat, move = random_move(checked, rng)
        hands += checked.phase == "hand_over"
        checked = engine.apply(checked, seat, move.to_json())
        trusted = engine.apply_trusted(trusted, seat, move)
        assert trusted == checked, (steps, seat, move)
        steps += 1
    if checked.phase == "game_over":
        (move,) = engine.legal_moves(checked, 0)
        assert engine.apply_trusted(checked, 0, move) == engine.apply(checked, 0, move)
    assert steps > 20


def candidates(state: engine.State, seat: int) -> list[Action]:
    """Every action of the phase's kind a seat could try, legal or not."""
    v = state.variant
    if state.phase == "bidding":
        return [Action("pass"), *(Action("bid", k) for k in range(0, v.max_bid + 2))]
    if state.phase == "trump":
        return [Action("trump", s) for s in range(4)]
    if state.phase == "call":
        return [*(Action("call", c) for c in v.deck), Action("call", None)]
    if state.phase == "play":
        return [Action("play", c) for c in v.deck]
    return [Action("rematch")]


def accepted(state: engine.State, seat: int, action: Action) -> bool:
    try:
        engine.apply(state, seat, action)
    except engine.IllegalAction:
        return False
    return True


def check_discard(state: engine.State, seat: int, rng: random.Random) -> None:
    """The template against `apply`: its bounds are accepted, one card more or a card
    from outside it refused; `legal_moves` points to it."""
    template = engine.discard_template(state, seat)
    assert template is not None
    (entry,) = engine.legal_actions(state, seat)
    assert entry == template.to_json()
    with pytest.raises(ValueError, match="discard_template"):
        engine.legal_moves(state, seat)
    pool = cards_of(template.allowed)
    for count in {template.min, template.max}:
        assert accepted(state, seat, Action("discard", tuple(rng.sample(pool, count))))
    if template.max < len(pool):
        assert not accepted(state, seat, Action("discard", tuple(pool[: template.max + 1])))
    others = cards_of(state.hands[seat] & ~template.allowed)
    if others and template.max:
        cards = (others[0], *rng.sample(pool, template.max - 1))
        assert not accepted(state, seat, Action("discard", cards))


def check_moves(state: engine.State, rng: random.Random) -> int:
    """At one position, for every seat: `legal_actions` is `legal_moves` as JSON, and
    for an awaited seat `legal_moves` is exactly what `apply` accepts."""
    checked = 0
    for seat in range(state.variant.seats):
        if state.phase == "discard":
            if seat in state.turn:
                check_discard(state, seat, rng)
                checked += 1
            else:
                assert engine.discard_template(state, seat) is None
                assert engine.legal_actions(state, seat) == []
            continue
        moves = engine.legal_moves(state, seat)
        assert [m.to_json() for m in moves] == engine.legal_actions(state, seat)
        if seat in state.turn or state.phase == "game_over":
            allowed = {m for m in candidates(state, seat) if accepted(state, seat, m)}
            assert set(moves) == allowed
            assert len(moves) == len(allowed)  # and no move twice
            checked += 1
        else:
            assert moves == []
    assert engine.legal_moves(state, None) == [] == engine.legal_actions(state, None)
    return checked


@pytest.mark.parametrize("variant", engine.VARIANTS)
def test_legal_moves_are_exactly_what_apply_accepts(variant: str) -> None:
    rng = random.Random(f"moves/{variant}")
    checked = 0
    kinds: set[str] = set()
    for game in range(20):
        overrides: dict[str, Any] = {"target": 7, "stick_the_dealer": game % 2 == 1}
        if variant == "wisconsin4":
            overrides["kitty"] = game % 4
        state = random_game(variant, overrides, game)
        hands = 0
        while hands < 10:
            if not engine.needs_deal(state):
                checked += check_moves(state, rng)
                kinds.add(state.phase)
            hands += state.phase == "hand_over"
            if state.phase == "game_over":
                break
            seat, move = random_move(state, rng)
            state = engine.apply_trusted(state, seat, move)
    assert checked > 2000
    assert kinds >= {"bidding", "trump", "discard", "play"}
    if variant == "schmier5":
        assert "call" in kinds
