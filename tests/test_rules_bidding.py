"""Bidding (docs/rules.md 2): one round from left of the dealer to the dealer, higher bids
only, 6 ends it at once, all-pass redeals by the same dealer, stick_the_dealer."""

from __future__ import annotations

import pytest

from schmier import engine
from tests.support.engine_helpers import Table, seeded_deck

RANGES = {"schmier6": (3, 6), "schmier5": (3, 6), "wisconsin4": (2, 6)}


def dealt(variant: str, dealer: int = 0, rules: dict[str, object] | None = None) -> Table:
    t = Table(variant, rules, dealer=dealer)
    return t.deal(seeded_deck(variant, 11))


def bid_options(t: Table, seat: int) -> tuple[set[int], bool]:
    legal = t.legal(seat)
    bids = {a["amount"] for a in legal if a["type"] == "bid"}
    return bids, {"type": "pass"} in legal


@pytest.mark.parametrize("variant", list(RANGES))
def test_order_and_range(variant: str) -> None:
    """Starts left of the dealer; the first bidder may pass or bid min..6."""
    lo, hi = RANGES[variant]
    n = engine.seat_count(variant)
    t = dealt(variant, dealer=n - 1)
    order = []
    for _ in range(n):
        (seat,) = t.turn()
        order.append(seat)
        assert t.view(seat)["legal"] == t.legal(seat)
        if seat == 0:
            assert bid_options(t, seat) == (set(range(lo, hi + 1)), True)
        t.pass_(seat)
    assert order == list(range(n)), "left of the dealer first, the dealer last"


def test_only_higher_bids_and_the_highest_wins() -> None:
    """schmier6, dealer 0: 1 bids 3, 2 may bid 4..6 or pass, 2 bids 4, 3 passes, 4 bids 5;
    5 and 0 pass -> seat 4 wins with 5."""
    t = dealt("schmier6")
    t.bid(1, 3)
    assert bid_options(t, 2) == ({4, 5, 6}, True)
    with pytest.raises(engine.IllegalAction):
        t.bid(2, 3)
    t.bid(2, 4).pass_(3).bid(4, 5)
    assert bid_options(t, 5) == ({6}, True)
    t.pass_(5).pass_(0)
    v = t.view(2)
    assert (v["bidder"], v["bid"]) == (4, 5)
    assert v["bids"] == [
        {"seat": 1, "amount": 3},
        {"seat": 2, "amount": 4},
        {"seat": 3, "amount": None},
        {"seat": 4, "amount": 5},
        {"seat": 5, "amount": None},
        {"seat": 0, "amount": None},
    ]
    assert t.phase == "trump"
    assert t.turn() == [4]


def test_bids_are_public_as_they_are_made() -> None:
    t = dealt("wisconsin4")
    t.bid(1, 2)
    for seat in (None, 0, 1, 2, 3):
        assert t.view(seat)["bids"] == [{"seat": 1, "amount": 2}]
        assert t.view(seat)["bidder"] is None


@pytest.mark.parametrize("variant", list(RANGES))
def test_six_ends_the_bidding_at_once(variant: str) -> None:
    t = dealt(variant)
    t.pass_(1).bid(2, 6)
    assert t.phase == "trump"
    assert (t.view(None)["bidder"], t.view(None)["bid"]) == (2, 6)
    assert t.turn() == [2]
    assert len(t.view(None)["bids"]) == 2


@pytest.mark.parametrize("variant", list(RANGES))
def test_all_pass_same_dealer_redeals(variant: str) -> None:
    n = engine.seat_count(variant)
    t = dealt(variant, dealer=1)
    assert t.turn() == [2]
    for i in range(n):
        t.pass_((2 + i) % n)
    assert engine.needs_deal(t.state)
    assert t.view(None)["dealer"] == 1
    assert t.view(None)["scores"] == [0] * len(engine.teams(variant))
    t.deal(seeded_deck(variant, 12))
    assert t.view(None)["dealer"] == 1
    assert t.turn() == [2]
    assert t.view(None)["bids"] == []


@pytest.mark.parametrize("variant", list(RANGES))
def test_stick_the_dealer(variant: str) -> None:
    """House rule: the dealer may not pass when all others passed; must bid >= min."""
    lo, hi = RANGES[variant]
    n = engine.seat_count(variant)
    t = dealt(variant, dealer=0, rules={"stick_the_dealer": True})
    for seat in range(1, n):
        t.pass_(seat)
    assert bid_options(t, 0) == (set(range(lo, hi + 1)), False)
    with pytest.raises(engine.IllegalAction):
        t.pass_(0)
    t.bid(0, lo)
    assert (t.view(None)["bidder"], t.view(None)["bid"]) == (0, lo)


def test_stick_the_dealer_lets_the_dealer_pass_after_a_bid() -> None:
    t = dealt("schmier6", rules={"stick_the_dealer": True})
    t.pass_(1).pass_(2).bid(3, 3).pass_(4).pass_(5)
    assert bid_options(t, 0) == ({4, 5, 6}, True)
    t.pass_(0)
    assert t.view(None)["bidder"] == 3


def test_without_stick_the_dealer_the_dealer_may_pass() -> None:
    t = dealt("schmier5")
    for seat in (1, 2, 3, 4):
        t.pass_(seat)
    assert bid_options(t, 0) == ({3, 4, 5, 6}, True)


def test_out_of_range_bids_are_illegal() -> None:
    t = dealt("schmier6")
    for amount in (2, 7, 0, -1):
        with pytest.raises(engine.IllegalAction):
            t.bid(1, amount)
    w = dealt("wisconsin4")
    with pytest.raises(engine.IllegalAction):
        w.bid(1, 1)
    w.bid(1, 2)
    assert w.view(None)["bids"] == [{"seat": 1, "amount": 2}]
