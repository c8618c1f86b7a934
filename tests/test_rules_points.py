"""The six points of a hand (docs/rules.md 7), on whole hands worked out by hand.

Each test plays a full stacked hand through the public API and compares the engine's
`last_hand` with the points worked out below by hand from the rules."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.engine_helpers import (
    SCHMIER5_S,
    SCHMIER5_STOCK,
    SCHMIER6_A,
    SCHMIER6_STOCK,
    WISCONSIN_W2,
    WISCONSIN_W2_UNDEALT,
    Table,
    play_rows,
    to_play_schmier,
    to_play_wisconsin,
    wisconsin_w1,
)


def side_points(last: dict[str, Any]) -> dict[str, set[int] | None]:
    """The point table with each side index replaced by that side's set of seats."""
    sides = last["sides"]
    return {name: None if idx is None else set(sides[idx]) for name, idx in last["points"].items()}


def totals_by_side(last: dict[str, Any]) -> dict[frozenset[int], int]:
    return {
        frozenset(side): total
        for side, total in zip(last["sides"], last["game_totals"], strict=True)
    }


def schmier6_a() -> dict[str, Any]:
    t = Table("schmier6")
    to_play_schmier(t, SCHMIER6_A, bidder=1, bid=4, trump="H", stock=SCHMIER6_STOCK)
    winners = play_rows(t, SCHMIER6_A)
    assert winners[:5] == [1, 1, 3, 3, 3]
    assert t.phase == "hand_over"
    last: dict[str, Any] = t.view(None)["last_hand"]
    return last


def test_schmier6_each_point_to_the_right_team() -> None:
    """docs/rules.md 7 on SCHMIER6_A (trump hearts):
    high  AH played by seat 1            -> team {1,4}
    low   2H played by seat 2 (trick won by seat 1: low goes to who *played* it) -> {2,5}
    right JH, trick 3 won by seat 3 (QH) -> {0,3}
    left  JD, same trick                 -> {0,3}
    joker X1, trick 2 won by seat 1      -> {1,4}
    game  {1,4}: 4 + 14 = 18; {0,3}: 8 + 4 + 14 + 21 = 47; {2,5}: 0 -> {0,3}"""
    last = schmier6_a()
    assert set(last["sides"][0]) == {1, 4}, "the bidder's side comes first"
    assert side_points(last) == {
        "high": {1, 4},
        "low": {2, 5},
        "right": {0, 3},
        "left": {0, 3},
        "joker": {1, 4},
        "game": {0, 3},
    }
    assert last["by"]["high"] == 1
    assert last["by"]["low"] == 2
    assert last["by"]["right"] == 3
    assert last["by"]["left"] == 3
    assert last["by"]["joker"] == 1
    assert totals_by_side(last) == {
        frozenset({1, 4}): 18,
        frozenset({0, 3}): 47,
        frozenset({2, 5}): 0,
    }


def test_schmier5_points_go_to_the_bidder_and_called_partner() -> None:
    """docs/rules.md 5/7 on SCHMIER5_S: bidder 1 calls KH, held by seat 3; sides {1,3} / rest.
    high AH (seat 1) -> {1,3}; low 4H played by seat 2 -> others;
    right JH, left JD, joker X1 all in trick 3 won by seat 3 (JH) -> {1,3};
    game {1,3}: 4 + 15 + 10 + 4 = 33, others 13 + 22 = 35 -> others."""
    t = Table("schmier5")
    to_play_schmier(t, SCHMIER5_S, bidder=1, bid=3, trump="H", stock=SCHMIER5_STOCK, call="KH")
    play_rows(t, SCHMIER5_S)
    last = t.view(None)["last_hand"]
    assert [set(s) for s in last["sides"]] == [{1, 3}, {0, 2, 4}]
    assert side_points(last) == {
        "high": {1, 3},
        "low": {0, 2, 4},
        "right": {1, 3},
        "left": {1, 3},
        "joker": {1, 3},
        "game": {0, 2, 4},
    }
    assert totals_by_side(last) == {frozenset({1, 3}): 33, frozenset({0, 2, 4}): 35}


@pytest.mark.parametrize(
    ("discards", "game", "totals"),
    [
        # {1,3} 25 in tricks + TS 10 + JS 1 = 36 against {0,2} 30: the discards decide game.
        (["TS", "JS"], {1, 3}, (36, 30)),
        # {1,3} 25 + KC 3 + QD 2 = 30 against 30: a tie for game -> nobody gets it.
        (["KC", "QD"], None, (30, 30)),
    ],
)
def test_wisconsin_points_with_bidders_discards(
    discards: list[str], game: set[int] | None, totals: tuple[int, int]
) -> None:
    """docs/rules.md 4/7 on W1 (trump hearts, bidder 1 takes QH 7S):
    high AH (seat 1) -> {1,3}; low 7H played by seat 2 -> {0,2};
    jack JH in trick 3 won by seat 1 (QH) -> {1,3};
    joker1 X1 in trick 1 won by seat 1 -> {1,3}; joker2 X2 wins trick 2 for seat 2 -> {0,2};
    game: tricks give {1,3} 5 + 13 + 7 = 25 and {0,2} 15 + 6 + 9 = 30; the bidder's
    discards are added to {1,3}; the eight undealt cards nobody took (TD, KC/QD or TS/JS
    among them) count for nobody."""
    hands, undealt, rows = wisconsin_w1(discards)
    t = Table("wisconsin4")
    to_play_wisconsin(t, hands, undealt, bidder=1, bid=3, trump="H", discards=discards)
    assert play_rows(t, rows)[:5] == [1, 2, 1, 1, 0]
    last = t.view(None)["last_hand"]
    assert side_points(last) == {
        "high": {1, 3},
        "low": {0, 2},
        "jack": {1, 3},
        "joker1": {1, 3},
        "joker2": {0, 2},
        "game": game,
    }
    assert totals_by_side(last) == {frozenset({1, 3}): totals[0], frozenset({0, 2}): totals[1]}
    assert last["by"]["joker2"] == 2
    assert last["by"]["low"] == 2


def test_wisconsin_cards_not_in_play_earn_nothing() -> None:
    """docs/rules.md 7 on W2 (kitty 0, trump hearts; AH 7H JH X2 undealt):
    high is the highest trump *in play*: KH (seat 1) -> {1,3};
    low is the lowest natural trump in play: 8H played by seat 2 -> {0,2}; X1, played
    too and ranking lower, is never low;
    jack and joker2 are not in play -> awarded to nobody;
    joker1 X1 in trick 1 won by seat 1 -> {1,3}; game: {1,3} 55, {0,2} 0 -> {1,3}."""
    t = Table("wisconsin4", {"kitty": 0})
    to_play_wisconsin(t, WISCONSIN_W2, WISCONSIN_W2_UNDEALT, bidder=1, bid=2, trump="H")
    play_rows(t, WISCONSIN_W2)
    last = t.view(None)["last_hand"]
    assert side_points(last) == {
        "high": {1, 3},
        "low": {0, 2},
        "jack": None,
        "joker1": {1, 3},
        "joker2": None,
        "game": {1, 3},
    }
    assert last["by"]["high"] == 1
    assert last["by"]["low"] == 2
    assert last["by"]["jack"] is None
    assert last["by"]["joker2"] is None
    assert totals_by_side(last) == {frozenset({1, 3}): 55, frozenset({0, 2}): 0}


def test_points_table_has_exactly_six_names() -> None:
    """docs/protocol.md last_hand: the Schmier point names are high low right left joker game."""
    last = schmier6_a()
    assert set(last["points"]) == {"high", "low", "right", "left", "joker", "game"}


def test_wisconsin_discarded_trumps_earn_nothing_but_count_for_game() -> None:
    """docs/rules.md 4/7. Kitty 2: the bidder holds AH KH QH JH TH X1 + 9H X2, eight trumps,
    so any trump may go: AH and JH are discarded. The only other trumps are 7H (seat 2)
    and 8H (seat 3). The bidder leads KH QH TH 9H X1 X2 and wins every trick.
    high: AH is not in play -> KH, played by seat 1 -> {1,3};
    low: 7H played by seat 2 -> {0,2};  jack: JH discarded -> nobody;
    joker1, joker2: tricks won by seat 1 -> {1,3};
    game: {1,3} every card played + AH 4 + JH 1 from the discards, {0,2} 0 -> {1,3}."""
    t = Table("wisconsin4")
    t.deal_stacked({1: ["AH", "KH", "QH", "JH", "TH", "X1"], 2: ["7H"], 3: ["8H"]}, ["9H", "X2"])
    t.bidding({1: 2})
    t.trump(1, "H")
    t.discard(1, "AH", "JH")
    played: list[str] = []
    for lead in ("KH", "QH", "TH", "9H", "X1", "X2"):
        t.play(1, lead)
        for seat in (2, 3, 0):
            card = sorted(t.legal_cards(seat))[0]
            t.play(seat, card)
            played.append(card)
        played.append(lead)
    last = t.view(None)["last_hand"]
    assert side_points(last) == {
        "high": {1, 3},
        "low": {0, 2},
        "jack": None,
        "joker1": {1, 3},
        "joker2": {1, 3},
        "game": {1, 3},
    }
    assert last["by"]["high"] == 1
    value = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 10, "X": 1}
    in_tricks = sum(value.get(c[0], 0) for c in played)
    assert totals_by_side(last) == {frozenset({1, 3}): in_tricks + 5, frozenset({0, 2}): 0}
    assert t.view(None)["scores"] == [1, 4]
