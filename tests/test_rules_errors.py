"""The three kinds of refusal (architecture.md): MalformedAction for a wrong shape
(the server's `bad_message`), NotYourTurn for a seat nobody waits for, IllegalAction
for a well-formed action the rules forbid now. A refused action changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from schmier import engine
from tests.support.engine_helpers import (
    SCHMIER6_A,
    SCHMIER6_STOCK,
    Table,
    seeded_deck,
    to_play_schmier,
)


def bidding_table() -> Table:
    return Table("schmier6").deal(seeded_deck("schmier6", 5))


MALFORMED: list[Any] = [
    "bid",
    None,
    [],
    {},
    {"type": "frobnicate"},
    {"type": 4},
    {"type": "bid"},
    {"type": "bid", "amount": "4"},
    {"type": "bid", "amount": 4.0},
    {"type": "bid", "amount": None},
    {"type": "play"},
    {"type": "play", "card": 12},
    {"type": "trump", "suit": 1},
    {"type": "discard"},
    {"type": "discard", "cards": "AS"},
    {"type": "call"},
]


@pytest.mark.parametrize("action", MALFORMED)
def test_malformed_actions(action: Any) -> None:
    t = bidding_table()
    before = engine.state_to_json(t.state)
    with pytest.raises(engine.MalformedAction):
        engine.apply(t.state, 1, action)
    assert engine.state_to_json(t.state) == before


def test_not_your_turn() -> None:
    t = bidding_table()
    with pytest.raises(engine.NotYourTurn):
        t.bid(2, 4)
    with pytest.raises(engine.NotYourTurn):
        t.pass_(0)
    assert issubclass(engine.NotYourTurn, engine.IllegalAction)
    assert issubclass(engine.IllegalAction, engine.EngineError)
    assert issubclass(engine.MalformedAction, engine.EngineError)
    t.bid(1, 4)
    assert t.turn() == [2]


@pytest.mark.parametrize(
    "action",
    [
        {"type": "play", "card": "AS"},
        {"type": "trump", "suit": "H"},
        {"type": "discard", "cards": []},
        {"type": "call", "card": None},
        {"type": "rematch"},
        {"type": "bid", "amount": 2},
        {"type": "bid", "amount": 7},
    ],
)
def test_illegal_in_bidding(action: dict[str, Any]) -> None:
    """Well-formed actions by the seat in turn that the bidding phase does not allow."""
    t = bidding_table()
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(t.state, 1, action)
    assert not isinstance(info.value, engine.NotYourTurn)


def test_illegal_plays_and_unchanged_state() -> None:
    t = Table("schmier6")
    to_play_schmier(t, SCHMIER6_A, bidder=1, bid=3, trump="H", stock=SCHMIER6_STOCK)
    state = t.state
    with pytest.raises(engine.IllegalAction):
        t.play(1, "2H")  # seat 2's card
    with pytest.raises(engine.NotYourTurn):
        t.play(2, "2H")
    with pytest.raises(engine.IllegalAction):
        t.bid(1, 5)
    assert t.state is state
    t.play(1, "AH")
    with pytest.raises(engine.IllegalAction):
        t.play(2, "AS")  # holds trumps: must follow
    assert engine.view(state, 1)["hand"] != t.view(1)["hand"], "the old state is untouched"
    assert "AH" in engine.view(state, 1)["hand"]


def test_spectators_never_act() -> None:
    """Only the deal is a seatless action; a spectator's view offers nothing."""
    t = bidding_table()
    spectator = t.view(None)
    assert spectator["legal"] == []
    assert spectator["hand"] == []
    assert spectator["you"] is None
    with pytest.raises(engine.EngineError):
        engine.apply(t.state, None, {"type": "pass"})
    with pytest.raises(engine.EngineError):
        engine.apply(t.state, 9, {"type": "pass"})
