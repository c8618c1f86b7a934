"""Drawing and discarding (docs/rules.md 4)."""

from __future__ import annotations

from typing import Any

import pytest

from schmier import engine
from tests.support.engine_helpers import Table, card_places, is_trump, wisconsin_w1


def schmier6_at_discard(
    hands: dict[int, list[str]], stock: list[str], rules: dict[str, object] | None = None
) -> Table:
    """Dealer 0, seat 1 bids 3 and names hearts."""
    t = Table("schmier6", rules)
    t.deal_stacked(hands, stock)
    t.bidding({1: 3})
    t.trump(1, "H")
    assert t.phase == "discard"
    return t


def template(t: Table, seat: int) -> dict[str, Any]:
    (choice,) = t.legal(seat)
    assert choice["type"] == "discard"
    return choice


BASIC = {
    1: ["JD", "X1", "2S", "3S", "4S", "AH"],  # trumps JD (left bauer), X1, AH
    2: ["KH", "QH", "JH", "TH", "9H", "5C"],  # one non-trump
    3: ["2C", "3C", "4C", "5S", "6S", "7S"],  # no trumps
    4: ["5D", "6C", "7C", "8C", "9C", "TC"],
}
BASIC_STOCK = ["8S", "9S", "TS", "JS", "QS", "KS", "AS"]


def test_non_dealers_discard_at_the_same_time_no_trumps() -> None:
    """Every player but the dealer may discard 0..3 non-trumps; the left bauer and the
    joker are trumps; `max` is min(3, non-trumps held)."""
    t = schmier6_at_discard(BASIC, BASIC_STOCK)
    assert sorted(t.turn()) == [1, 2, 3, 4, 5]
    assert sorted(t.view(None)["turn"]) == [1, 2, 3, 4, 5]
    assert t.legal(0) == []
    one = template(t, 1)
    assert sorted(one["from"]) == ["2S", "3S", "4S"]
    assert (one["min"], one["max"]) == (0, 3)
    two = template(t, 2)
    assert (two["from"], two["min"], two["max"]) == (["5C"], 0, 1)
    three = template(t, 3)
    assert (three["min"], three["max"]) == (0, 3)
    assert len(three["from"]) == 6
    for trump in ("JD", "X1", "AH"):
        with pytest.raises(engine.IllegalAction):
            t.discard(1, trump)
    with pytest.raises(engine.IllegalAction):
        t.discard(3, "2C", "3C", "4C", "5S")
    with pytest.raises(engine.NotYourTurn):
        t.discard(0, "2S")


def test_replacements_come_from_the_top_in_the_order_discards_arrive() -> None:
    t = schmier6_at_discard(BASIC, BASIC_STOCK)
    t.discard(3, "2C", "3C")  # first to arrive: the top two, 8S 9S
    assert sorted(t.hand(3)) == sorted(["4C", "5S", "6S", "7S", "8S", "9S"])
    t.discard(1, "2S")  # next: TS
    assert sorted(t.hand(1)) == sorted(["JD", "X1", "3S", "4S", "AH", "TS"])
    assert sorted(t.turn()) == [2, 4, 5]
    with pytest.raises(engine.IllegalAction):  # each discard is final once sent
        t.discard(3, "4C")
    t.discard(2).discard(5).discard(4, "5D")
    places = card_places(t.state)
    if places is not None:
        assert places["2C"] == "discard:3"
        assert places["2S"] == "discard:1"
        assert places["JS"].startswith("hand:4"), "the fourth card drawn, by seat 4"
    # The dealer now takes the whole remaining stock: 17 - 4 = 13 cards.
    assert t.turn() == [0]
    hand = t.hand(0)
    assert len(hand) == 6 + 13
    dealer = template(t, 0)
    assert dealer["min"] == dealer["max"] == 13
    trumps = [c for c in hand if is_trump("schmier6", c, "H")]
    assert len(trumps) <= 6
    assert sorted(dealer["from"]) == sorted(c for c in hand if not is_trump("schmier6", c, "H"))
    t.discard(0, *dealer["from"][:13])
    assert t.phase == "play"
    assert len(t.hand(0)) == 6
    places = card_places(t.state)
    if places is not None:
        assert "stock" not in places.values(), "every card ends in a hand or the discards"


def dealer_with_trumps(extra_trumps: list[str]) -> Table:
    """Dealer 0 holds AH 2H JH JD X1 3H; the stock is `extra_trumps` then non-trumps; all
    other trumps are in the non-dealers' hands; nobody but the dealer discards."""
    pool = [r + s for s in "DCS" for r in "23456789TJQKA" if r + s != "JD"]  # 38 non-trumps
    other_trumps = [r + "H" for r in "456789T"] + [c for c in ("KH", "QH") if c not in extra_trumps]
    others = other_trumps + pool[: 30 - len(other_trumps)]
    stock = extra_trumps + pool[30 - len(other_trumps) :]
    hands = {seat: others[6 * (seat - 1) : 6 * seat] for seat in range(1, 6)}
    hands[0] = ["AH", "2H", "JH", "JD", "X1", "3H"]
    t = schmier6_at_discard(hands, stock)
    for seat in range(1, 6):
        t.discard(seat)
    assert t.turn() == [0]
    return t


def test_dealer_with_six_trumps_may_not_discard_a_trump() -> None:
    """Six trumps and the 17 non-trumps of the stock: exactly those 17 go."""
    t = dealer_with_trumps([])
    hand = t.hand(0)
    assert len(hand) == 23
    d = template(t, 0)
    assert d["min"] == d["max"] == 17
    assert set(d["from"]) == set(hand) - {"AH", "2H", "JH", "JD", "X1", "3H"}
    with pytest.raises(engine.IllegalAction):
        t.discard(0, *sorted(d["from"])[:16], "3H")


def test_dealer_with_more_than_six_trumps_keeps_the_protected_ones() -> None:
    """8 trumps (AH 2H JH JD X1 3H + KH QH from the stock): the dealer may discard the
    3H, KH and QH but never the ace, a bauer, the low 2H or the joker."""
    t = dealer_with_trumps(["KH", "QH"])
    hand = t.hand(0)
    assert len(hand) == 23
    d = template(t, 0)
    assert d["min"] == d["max"] == 17
    non_trumps = sorted(c for c in hand if not is_trump("schmier6", c, "H"))
    assert len(non_trumps) == 15
    assert set(d["from"]) == set(non_trumps) | {"3H", "KH", "QH"}
    allowed = [*non_trumps, "3H", "KH", "QH"]
    for protected in ("AH", "2H", "JH", "JD", "X1"):
        with pytest.raises(engine.IllegalAction):
            t.discard(0, *allowed[:16], protected)
    t.discard(0, *non_trumps, "KH", "3H")
    assert sorted(t.hand(0)) == sorted(["AH", "2H", "JH", "JD", "X1", "QH"])
    assert t.phase == "play"


def test_wisconsin_bidder_discards_no_trump_unless_more_than_six() -> None:
    """W1, kitty 2, trump hearts: from = the five non-trumps; exactly two go."""
    hands, undealt, _ = wisconsin_w1(["TS", "JS"])
    t = Table("wisconsin4")
    t.deal_stacked(hands, undealt)
    t.bidding({1: 3})
    t.trump(1, "H")
    d = template(t, 1)
    assert sorted(d["from"]) == sorted(["9C", "8C", "TS", "JS", "7S"])
    assert d["min"] == d["max"] == 2
    for seat in (0, 2, 3):
        assert t.legal(seat) == []
    with pytest.raises(engine.IllegalAction):
        t.discard(1, "AH", "TS")
    with pytest.raises(engine.IllegalAction):
        t.discard(1, "TS")
    t.discard(1, "9C", "TS")
    assert len(t.hand(1)) == 6
    places = card_places(t.state)
    if places is not None:
        assert places["9C"] == places["TS"] == "discard:1"


def test_wisconsin_more_than_six_trumps_any_trump_may_go() -> None:
    """Kitty 2: dealt AH KH QH JH TH X1, kitty 9H X2 -> 8 trumps: all 8 cards may go."""
    t = Table("wisconsin4")
    t.deal_stacked({1: ["AH", "KH", "QH", "JH", "TH", "X1"]}, ["9H", "X2"])
    t.bidding({1: 2})
    t.trump(1, "H")
    d = template(t, 1)
    assert sorted(d["from"]) == sorted(["AH", "KH", "QH", "JH", "TH", "X1", "9H", "X2"])
    t.discard(1, "AH", "X2")
    assert sorted(t.hand(1)) == sorted(["KH", "QH", "JH", "TH", "X1", "9H"])


def test_discards_and_stock_stay_hidden() -> None:
    """docs/rules.md 4: discards and stock stay hidden from everyone but their owner."""
    t = schmier6_at_discard(BASIC, BASIC_STOCK)
    t.discard(3, "2C", "3C")
    for seat in (None, 0, 1, 2, 4, 5):
        text = repr(t.view(seat))
        for card in ("2C", "3C", "8S", "9S", "TS"):
            assert f"'{card}'" not in text, (seat, card)
