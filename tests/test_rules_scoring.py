"""Scoring a hand (docs/rules.md 8): made adds every point won, set subtracts the bid,
every other team adds its points, and in schmier5 each member of a side gets the
side's result. Points per side are the hand-worked ones of test_rules_points.py."""

from __future__ import annotations

import pytest

from tests.support.engine_helpers import (
    SCHMIER5_S,
    SCHMIER5_STOCK,
    SCHMIER6_A,
    SCHMIER6_B,
    SCHMIER6_STOCK,
    Table,
    play_rows,
    to_play_schmier,
    to_play_wisconsin,
    wisconsin_w1,
)


@pytest.mark.parametrize(
    ("rows", "bid", "made", "scores"),
    [
        # A: bidder team {1,4} wins high + joker = 2 < 4: set, -4 (from 0: negative);
        # {0,3} right + left + game = 3, {2,5} low = 1 add theirs.
        (SCHMIER6_A, 4, False, [3, -4, 1]),
        (SCHMIER6_A, 3, False, [3, -3, 1]),
        # B: {1,4} wins high, right, left, joker = 4; {0,3} game; {2,5} low.
        (SCHMIER6_B, 4, True, [1, 4, 1]),
        # Made with 3 bid: all 4 points won are added, not just the bid.
        (SCHMIER6_B, 3, True, [1, 4, 1]),
        (SCHMIER6_B, 5, False, [1, -5, 1]),
    ],
)
def test_schmier6_made_and_set(
    rows: dict[int, list[str]], bid: int, made: bool, scores: list[int]
) -> None:
    t = Table("schmier6")
    to_play_schmier(t, rows, bidder=1, bid=bid, trump="H", stock=SCHMIER6_STOCK)
    play_rows(t, rows)
    v = t.view(None)
    assert v["phase"] == "hand_over"
    assert v["last_hand"]["made"] is made
    assert v["last_hand"]["bidder"] == 1
    assert v["last_hand"]["bid"] == bid
    # teams are [[0,3],[1,4],[2,5]]; deltas and scores follow that order.
    assert v["teams"] == [[0, 3], [1, 4], [2, 5]]
    assert v["last_hand"]["deltas"] == scores
    assert v["scores"] == scores


@pytest.mark.parametrize(
    ("call", "bid", "made", "scores"),
    [
        # Partner 3 (KH): side {1,3} has 4 points, others 2 -> each player gets its side's.
        ("KH", 3, True, [2, 4, 2, 4, 2]),
        ("KH", 5, False, [2, -5, 2, -5, 2]),
        # Alone: seat 1 keeps only high (1 point) and is set by 3; seat 3 now scores with
        # the others, who have low, right, left, joker and game = 5 points each.
        (None, 3, False, [5, -3, 5, 5, 5]),
    ],
)
def test_schmier5_side_result_applies_to_every_member(
    call: str | None, bid: int, made: bool, scores: list[int]
) -> None:
    t = Table("schmier5")
    to_play_schmier(t, SCHMIER5_S, bidder=1, bid=bid, trump="H", stock=SCHMIER5_STOCK, call=call)
    play_rows(t, SCHMIER5_S)
    v = t.view(None)
    assert v["teams"] == [[0], [1], [2], [3], [4]]
    assert v["last_hand"]["made"] is made
    assert v["last_hand"]["deltas"] == scores
    assert v["scores"] == scores


def test_wisconsin_made_with_more_points_than_bid() -> None:
    """W1 with TS JS discarded: {1,3} high, jack, joker1, game = 4 >= 3 -> +4;
    {0,2} low, joker2 -> +2. teams are [[0,2],[1,3]]."""
    hands, undealt, rows = wisconsin_w1(["TS", "JS"])
    t = Table("wisconsin4")
    to_play_wisconsin(t, hands, undealt, bidder=1, bid=3, trump="H", discards=["TS", "JS"])
    play_rows(t, rows)
    v = t.view(None)
    assert v["last_hand"]["made"] is True
    assert v["scores"] == [2, 4]


def test_wisconsin_set() -> None:
    """W1 with KC QD discarded: game tied, {1,3} has 3 points < 6 -> -6; {0,2} +2."""
    hands, undealt, rows = wisconsin_w1(["KC", "QD"])
    t = Table("wisconsin4")
    to_play_wisconsin(t, hands, undealt, bidder=1, bid=6, trump="H", discards=["KC", "QD"])
    play_rows(t, rows)
    v = t.view(None)
    assert v["last_hand"]["made"] is False
    assert v["scores"] == [2, -6]


def test_scores_accumulate_over_hands() -> None:
    """Two hands of SCHMIER6_A bid 3: [3,-3,1] then again -> [6,-6,2] (target 21, going on)."""
    t = Table("schmier6")
    for _ in range(2):
        to_play_schmier(t, SCHMIER6_A, bidder=1, bid=3, trump="H", stock=SCHMIER6_STOCK)
        play_rows(t, SCHMIER6_A)
    v = t.view(None)
    assert v["phase"] == "hand_over"
    assert v["scores"] == [6, -6, 2]
    assert v["last_hand"]["deltas"] == [3, -3, 1]
