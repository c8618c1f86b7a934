"""Trump (docs/rules.md 3): named at once and public in the Schmier games; in wisconsin4
committed privately after the kitty, to a suit the bidder holds naturally, and made
public by the bidder's first lead, which must be a natural card of that suit."""

from __future__ import annotations

import pytest

from schmier import engine
from tests.support.engine_helpers import Table, seeded_deck, wisconsin_w1


@pytest.mark.parametrize("variant", ["schmier6", "schmier5"])
def test_schmier_bidder_names_trump_and_everyone_sees_it(variant: str) -> None:
    n = engine.seat_count(variant)
    t = Table(variant).deal(seeded_deck(variant, 3))
    t.bidding({2: 4})
    assert t.phase == "trump"
    assert t.turn() == [2]
    assert {(a["type"], a["suit"]) for a in t.legal(2)} == {("trump", s) for s in "SHDC"}
    for seat in range(n):
        if seat != 2:
            assert t.legal(seat) == []
    with pytest.raises(engine.NotYourTurn):
        t.trump(1, "S")
    t.trump(2, "D")
    for seat in [None, *range(n)]:
        assert t.view(seat)["trump"] == "D"
    assert t.phase == "discard"


def w1_after_bidding(kitty: int | None = None) -> Table:
    """W1's deal; seat 1 bids 3 and (kitty 2) takes QH 7S: AH KH 9C 8C TS JS QH 7S."""
    hands, undealt, _ = wisconsin_w1(["TS", "JS"])
    t = Table("wisconsin4", {} if kitty is None else {"kitty": kitty})
    t.deal_stacked(hands, undealt)
    t.bidding({1: 3})
    return t


def test_wisconsin_bidder_takes_the_kitty_then_commits() -> None:
    """Kitty 2: the bidder holds 8; may commit S, H or C (natural cards held), not D."""
    t = w1_after_bidding()
    assert t.phase == "trump"
    assert t.turn() == [1]
    assert sorted(t.hand(1)) == sorted(["AH", "KH", "9C", "8C", "TS", "JS", "QH", "7S"])
    assert t.view(0)["seats"][1]["cards"] == 8
    assert {a["suit"] for a in t.legal(1) if a["type"] == "trump"} == {"S", "H", "C"}
    with pytest.raises(engine.IllegalAction):
        t.trump(1, "D")


def test_wisconsin_commitment_is_private_until_the_first_lead() -> None:
    t = w1_after_bidding()
    t.trump(1, "H")
    assert t.phase == "discard"
    assert t.view(1)["my_trump"] == "H"
    for seat in (None, 0, 1, 2, 3):
        assert t.view(seat)["trump"] is None
    for seat in (None, 0, 2, 3):
        assert t.view(seat).get("my_trump") is None
    t.discard(1, "TS", "JS")
    assert t.phase == "play"
    for seat in (None, 0, 2, 3):
        assert t.view(seat)["trump"] is None
        assert t.view(seat).get("my_trump") is None
    # The first lead must be a natural card of the committed suit.
    assert t.legal_cards(1) == {"AH", "KH", "QH"}
    with pytest.raises(engine.IllegalAction):
        t.play(1, "9C")
    t.play(1, "KH")
    for seat in (None, 0, 1, 2, 3):
        assert t.view(seat)["trump"] == "H"


def test_wisconsin_first_lead_may_not_be_a_joker() -> None:
    """Kitty 0: the bidder holds X1 AH 9C 8C TS JS; trump hearts; first lead only AH."""
    t = Table("wisconsin4", {"kitty": 0})
    t.deal_stacked({1: ["X1", "AH", "9C", "8C", "TS", "JS"], 2: ["X2"]})
    t.bidding({1: 2})
    assert t.hand(1) and len(t.hand(1)) == 6
    # Jokers are not natural cards: committing needs a natural card of the suit.
    assert {a["suit"] for a in t.legal(1)} == {"H", "C", "S"}
    t.trump(1, "H")
    assert t.phase == "play", "kitty 0: no discard step"
    assert t.legal_cards(1) == {"AH"}
    with pytest.raises(engine.IllegalAction):
        t.play(1, "X1")


@pytest.mark.parametrize(("kitty", "held"), [(0, 6), (1, 7), (2, 8), (3, 9)])
def test_wisconsin_kitty_sizes(kitty: int, held: int) -> None:
    """House rule kitty 0..3: the bidder takes the first `kitty` undealt cards, then
    discards back to 6 (exactly `kitty` cards, none a trump here)."""
    t = w1_after_bidding(kitty)
    hand = t.hand(1)
    assert len(hand) == held
    assert set(hand) >= {"AH", "KH", "9C", "8C", "TS", "JS"}
    assert set(hand) - {"AH", "KH", "9C", "8C", "TS", "JS"} == set(["QH", "7S", "8S"][:kitty])
    t.trump(1, "C")
    if kitty == 0:
        assert t.phase == "play"
        return
    (template,) = t.legal(1)
    assert template["type"] == "discard"
    assert template["min"] == template["max"] == kitty
    assert set(template["from"]) == {c for c in hand if c[1] != "C"}
