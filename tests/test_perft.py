"""Perft: the number of distinct legal action sequences from a position (as python-chess
counts move paths), a compact check that `legal_actions` offers exactly the right
choices in every phase.

The counting function is first checked on positions small enough to count by hand
(the bidding round and the wisconsin4 bidder's trump/discard/first lead, each worked
out in the docstrings); the deeper numbers for seeded decks were then computed once
with the engine and pinned, so that any change in what is legal shows up here."""

from __future__ import annotations

from collections.abc import Callable
from math import comb
from typing import Any

import pytest

from schmier import engine
from tests.support.engine_helpers import Table, expand, seeded_deck, wisconsin_w1


def perft(state: Any, done: Callable[[Any], bool]) -> int:
    """Sequences of (seat, action) from `state` until `done`; every awaited seat and every
    concrete action (each discard subset) is a branch, so simultaneous discards count
    in every order they may arrive."""
    if done(state):
        return 1
    total = 0
    for seat in engine.turn(state):
        for action in expand(engine.legal_actions(state, seat)):
            total += perft(engine.apply(state, seat, action), done)
    return total


def not_in(phase: str) -> Callable[[Any], bool]:
    return lambda s: s.phase != phase


def tricks_done(count: int) -> Callable[[Any], bool]:
    def done(s: Any) -> bool:
        if s.phase != "play":
            return True
        v = engine.view(s, None)
        return len(v["tricks"]) >= count and not v["trick"]

    return done


# --------------------------------------------------------------------------- bidding


@pytest.mark.parametrize(
    ("variant", "values"), [("schmier6", 4), ("schmier5", 4), ("wisconsin4", 5)]
)
@pytest.mark.parametrize("stick", [False, True])
def test_bidding_round(variant: str, values: int, stick: bool) -> None:
    """Each of n players passes or bids above the current bid; 6 ends it. By hand for
    wisconsin4 (n = 4, bids 2..6): let N(k, c) count the completions with k players left
    and c the bid to beat (1 = none). N(0, c) = 1 and
    N(k, c) = N(k-1, c) [pass] + sum over b in c+1..5 of N(k-1, b) + 1 [bid 6].
    N(1, c) = 6, 5, 4, 3, 2 for c = 1..5; N(2, ·) = 21, 15, 10, 6, 3; N(3, ·) = 56, 35,
    20, 10, 4; N(4, 1) = 56 + 35 + 20 + 10 + 4 + 1 = 126 = C(9, 4). In general a round
    is an increasing choice of bids among the players, sum_j C(n, j) C(m, j) = C(m+n, n)
    with m bid values (Vandermonde): 210 for schmier6, 126 for schmier5. With
    stick_the_dealer the all-pass sequence is gone: one fewer."""
    n = engine.seat_count(variant)
    t = Table(variant, {"stick_the_dealer": stick}).deal(seeded_deck(variant, 1))
    expected = comb(values + n, n) - (1 if stick else 0)
    assert perft(t.state, not_in("bidding")) == expected


def test_bidding_depth_two_by_hand() -> None:
    """wisconsin4, two actions deep: after a pass 6 choices, after bids 2..5 there are
    5, 4, 3, 2, and a bid of 6 ends the round: 6 + 5 + 4 + 3 + 2 + 1 = 21 = N(2, 1)."""
    t = Table("wisconsin4").deal(seeded_deck("wisconsin4", 2))
    first = [a for a in expand(t.legal(1))]
    assert len(first) == 6
    total = 0
    for action in first:
        after = engine.apply(t.state, 1, action)
        total += (
            1 if after.phase != "bidding" else len(list(expand(engine.legal_actions(after, 2))))
        )
    assert total == 21


# --------------------------------------------------------------------------- wisconsin4 W1


@pytest.mark.parametrize(("kitty", "expected"), [(0, 3), (1, 14), (2, 35), (3, 65)])
def test_wisconsin_commit_and_discard(kitty: int, expected: int) -> None:
    """W1: dealt AH KH 9C 8C TS JS, undealt QH 7S 8S ... Bidder 1 then commits a suit
    held naturally and discards `kitty` non-trumps. By hand:
    kitty 0: S, H or C, no discard: 3.
    kitty 1 (+QH): H C(4,1)=4 (9C 8C TS JS), C C(5,1)=5, S C(5,1)=5 -> 14.
    kitty 2 (+QH 7S): H C(5,2)=10, C C(6,2)=15, S C(5,2)=10 -> 35.
    kitty 3 (+QH 7S 8S): H C(6,3)=20, C C(7,3)=35, S C(5,3)=10 -> 65."""
    hands, undealt, _ = wisconsin_w1(["TS", "JS"])
    t = Table("wisconsin4", {"kitty": kitty})
    t.deal_stacked(hands, undealt)
    t.bidding({1: 3})
    assert perft(t.state, lambda s: s.phase == "play") == expected


def test_wisconsin_first_trick_by_hand() -> None:
    """W1 after discarding TS JS: the lead must be a natural heart (AH KH QH: 3); every
    follower must follow trump and holds 7H X2 JH (3), X1 9H (2), 8H TH (2): 36."""
    hands, undealt, _ = wisconsin_w1(["TS", "JS"])
    t = Table("wisconsin4")
    t.deal_stacked(hands, undealt).bidding({1: 3}).trump(1, "H").discard(1, "TS", "JS")
    assert perft(t.state, tricks_done(1)) == 36


def test_wisconsin_two_tricks_pinned() -> None:
    hands, undealt, _ = wisconsin_w1(["TS", "JS"])
    t = Table("wisconsin4")
    t.deal_stacked(hands, undealt).bidding({1: 3}).trump(1, "H").discard(1, "TS", "JS")
    assert perft(t.state, tricks_done(2)) == PINNED_W1_TWO_TRICKS


# --------------------------------------------------------------------------- seeded decks


def to_first_lead(variant: str, seed: int) -> Table:
    """A fixed route to the first lead: the first bidder bids the minimum, the rest pass;
    the first legal suit in S H D C order; nobody but the dealer (or the wisconsin4
    bidder) discards, and they discard the first cards of `from` in deck order; alone."""
    order = {c: i for i, c in enumerate(engine.full_deck(variant))}
    t = Table(variant).deal(seeded_deck(variant, seed))
    (first,) = t.turn()
    lowest = min(a["amount"] for a in t.legal(first) if a["type"] == "bid")
    t.bidding({first: lowest})
    suits = {a["suit"] for a in t.legal(first)}
    t.trump(first, next(s for s in "SHDC" if s in suits))
    while t.phase == "discard":
        for seat in t.turn():
            (d,) = t.legal(seat)
            if d["min"] == 0 and len(t.turn()) > 1:
                t.discard(seat)
            else:
                chosen = sorted(d["from"], key=order.__getitem__)[: d["min"]]
                t.discard(seat, *chosen)
            break
    if t.phase == "call":
        t.call(first, None)
    assert t.phase == "play"
    return t


#: Computed once with the engine (after the hand checks above agreed), then pinned.
PINNED_W1_TWO_TRICKS = 3816
PINNED_FIRST_TRICK: dict[tuple[str, int], int] = {
    ("schmier6", 1): 468,
    ("schmier6", 2): 258,
    ("schmier6", 3): 534,
    ("schmier5", 1): 2688,
    ("schmier5", 2): 528,
    ("schmier5", 3): 856,
    ("wisconsin4", 1): 6,
    ("wisconsin4", 2): 36,
    ("wisconsin4", 3): 144,
}
PINNED_WISCONSIN_TWO_TRICKS = {1: 640, 2: 6030, 3: 17550}


@pytest.mark.parametrize(("variant", "seed"), sorted(PINNED_FIRST_TRICK))
def test_seeded_first_trick(variant: str, seed: int) -> None:
    t = to_first_lead(variant, seed)
    assert perft(t.state, tricks_done(1)) == PINNED_FIRST_TRICK[variant, seed]


@pytest.mark.parametrize("seed", sorted(PINNED_WISCONSIN_TWO_TRICKS))
def test_seeded_wisconsin_two_tricks(seed: int) -> None:
    t = to_first_lead("wisconsin4", seed)
    assert perft(t.state, tricks_done(2)) == PINNED_WISCONSIN_TWO_TRICKS[seed]
