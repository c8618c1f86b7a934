"""The deck and the deal (docs/rules.md "The games at a glance" and step 1)."""

from __future__ import annotations

from collections import Counter

import pytest

from schmier import engine
from tests.support.engine_helpers import Table, card_places, seeded_deck, stack_deck


@pytest.mark.parametrize(
    ("variant", "size", "ranks", "jokers", "seats"),
    [
        ("schmier6", 53, "23456789TJQKA", ["X1"], 6),
        ("schmier5", 45, "456789TJQKA", ["X1"], 5),
        ("wisconsin4", 34, "789TJQKA", ["X1", "X2"], 4),
    ],
)
def test_decks(variant: str, size: int, ranks: str, jokers: list[str], seats: int) -> None:
    """53 = 52 + X1; 45 = 52 without 2s and 3s + X1; 34 = 7..A in four suits + X1 X2."""
    deck = engine.full_deck(variant)
    assert len(deck) == size == len(set(deck))
    assert set(deck) == {r + s for r in ranks for s in "SHDC"} | set(jokers)
    assert engine.seat_count(variant) == seats
    assert engine.full_deck(variant) == deck, "a fixed order"


def test_teams() -> None:
    assert engine.teams("schmier6") == [[0, 3], [1, 4], [2, 5]]
    assert engine.teams("schmier5") == [[0], [1], [2], [3], [4]]
    assert engine.teams("wisconsin4") == [[0, 2], [1, 3]]


@pytest.mark.parametrize(
    ("variant", "stock"), [("schmier6", 17), ("schmier5", 15), ("wisconsin4", 10)]
)
def test_six_cards_each_rest_is_stock(variant: str, stock: int) -> None:
    """Seat (dealer + 1 + i) % n gets deck[6i:6i+6]; the rest (17/15/10) stays hidden."""
    n = engine.seat_count(variant)
    dealer = 2
    deck = seeded_deck(variant, 7)
    t = Table(variant, dealer=dealer)
    assert engine.needs_deal(t.state)
    assert t.view(None)["scores"] == [0] * len(engine.teams(variant))
    t.deal(deck)
    assert t.phase == "bidding"
    assert not engine.needs_deal(t.state)
    for i in range(n):
        seat = (dealer + 1 + i) % n
        assert sorted(t.hand(seat)) == sorted(deck[6 * i : 6 * i + 6])
        assert t.view(None)["seats"][seat]["cards"] == 6
    places = card_places(t.state)
    if places is not None:
        counts = Counter(p.split(":")[0] for p in places.values())
        assert counts["hand"] == 6 * n
        assert counts["hand"] + sum(v for k, v in counts.items() if k != "hand") == len(deck)
        assert sorted(c for c, p in places.items() if not p.startswith("hand")) == sorted(
            deck[6 * n :]
        )
        assert len(deck) - 6 * n == stock


def test_stacked_deck_helper_deals_what_it_says() -> None:
    """The test helper itself: the named hands land at the named seats."""
    deck = stack_deck("wisconsin4", 3, {1: ["AH", "X2"], 3: ["7C"]}, ["QS"])
    t = Table("wisconsin4", dealer=3).deal(deck)
    assert {"AH", "X2"} <= set(t.hand(1))
    assert "7C" in t.hand(3)
    places = card_places(t.state)
    if places is not None:
        assert places["QS"] in ("stock", "undealt")


def test_deal_is_a_chance_action_only() -> None:
    """Only the chance action deals, with a permutation of full_deck, when a deal is due."""
    t = Table("schmier6")
    deck = engine.full_deck("schmier6")
    with pytest.raises(engine.EngineError):
        engine.apply(t.state, None, {"type": "deal", "deck": deck[:-1]})
    with pytest.raises(engine.EngineError):
        engine.apply(t.state, None, {"type": "deal", "deck": [*deck[:-1], deck[0]]})
    with pytest.raises(engine.EngineError):
        engine.apply(t.state, 0, {"type": "deal", "deck": deck})
    t.deal(deck)
    with pytest.raises(engine.EngineError):
        engine.apply(t.state, None, {"type": "deal", "deck": deck})


def test_deal_shorthand_is_the_chance_action() -> None:
    """architecture.md: `deal(state, deck)` is shorthand for apply(state, None, deal)."""
    state = engine.new_game("schmier5", engine.make_rules("schmier5"), 3)
    deck = seeded_deck("schmier5", 9)
    assert engine.deal(state, deck) == engine.apply(state, None, {"type": "deal", "deck": deck})
