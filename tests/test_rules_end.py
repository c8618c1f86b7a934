"""End of the game (docs/rules.md 9), the deal passing left, and the rematch.

The hands are the worked hands of test_rules_points.py, rotated round the table so
that other seats bid; each test shows the running scores worked out by hand."""

from __future__ import annotations

from schmier import engine
from tests.support.engine_helpers import (
    SCHMIER5_S,
    SCHMIER5_STOCK,
    SCHMIER6_A,
    SCHMIER6_B,
    SCHMIER6_STOCK,
    Rows,
    Table,
    play_rows,
    rotate,
    to_play_schmier,
    to_play_wisconsin,
    wisconsin_w1,
)


def schmier6_hand(t: Table, rows: Rows, by: int, bid: int) -> list[int]:
    """Play `rows` rotated `by` seats (bidder seat 1 + by); returns the scores after it."""
    turned = rotate(rows, by, 6)
    to_play_schmier(t, turned, bidder=(1 + by) % 6, bid=bid, trump="H", stock=SCHMIER6_STOCK)
    play_rows(t, turned)
    return list(t.view(None)["scores"])


def test_single_highest_wins_even_when_not_the_bidder() -> None:
    """Target 5. A bid 3 twice: [3,-3,1] -> [6,-6,2]; team 0 ({0,3}) reached 5 and is
    the single highest: it wins although team {1,4} bid."""
    t = Table("schmier6", {"target": 5})
    assert schmier6_hand(t, SCHMIER6_A, 0, 3) == [3, -3, 1]
    assert t.phase == "hand_over"
    assert schmier6_hand(t, SCHMIER6_A, 0, 3) == [6, -6, 2]
    assert t.phase == "game_over"
    assert t.view(None)["winners"] == [0]


def test_tie_at_the_top_goes_to_the_bidding_team() -> None:
    """Target 5. B bid 3 by seat 1: [1,4,1]. B rotated by 1 (bidder seat 2, team 2)
    bid 3: +4 to team 2, +1 to the others -> [2,5,5]: teams 1 and 2 tied at 5, the
    bidding team 2 is among them and wins."""
    t = Table("schmier6", {"target": 5})
    assert schmier6_hand(t, SCHMIER6_B, 0, 3) == [1, 4, 1]
    assert schmier6_hand(t, SCHMIER6_B, 1, 3) == [2, 5, 5]
    assert t.phase == "game_over"
    assert t.view(None)["winners"] == [2]


def test_tie_without_the_bidding_team_plays_another_hand() -> None:
    """Target 6. [1,4,1] -> [2,5,5] -> B rotated by 2 (bidder seat 3, team 0) bid 5 and
    set: -5, the others +1 -> [-3,6,6]. Teams 1 and 2 tie at 6 >= 6 but the bidding team
    is not among them: another hand. B rotated by 3 (bidder 4, team 1) bid 3: +4 ->
    [-2,10,7]: team 1 wins."""
    t = Table("schmier6", {"target": 6})
    assert schmier6_hand(t, SCHMIER6_B, 0, 3) == [1, 4, 1]
    assert schmier6_hand(t, SCHMIER6_B, 1, 3) == [2, 5, 5]
    assert schmier6_hand(t, SCHMIER6_B, 2, 5) == [-3, 6, 6]
    assert t.phase == "hand_over"
    assert t.view(None)["winners"] in (None, [])
    assert engine.needs_deal(t.state)
    assert schmier6_hand(t, SCHMIER6_B, 3, 3) == [-2, 10, 7]
    assert t.phase == "game_over"
    assert t.view(None)["winners"] == [1]


def test_two_teams_over_the_target_highest_wins() -> None:
    """Target 5, wisconsin4. W1 (TS JS discarded) bid 3 by seat 1: [2,4]. W1 with KC QD
    rotated by 1 (bidder 2, team {0,2}) bid 3: made with 3 (high, jack, joker1; game
    tied) -> +3; {1,3} low + joker2 -> +2: [5,6]. Both reached 5; {1,3} is highest."""
    t = Table("wisconsin4", {"target": 5})
    hands, undealt, rows = wisconsin_w1(["TS", "JS"])
    to_play_wisconsin(t, hands, undealt, bidder=1, bid=3, trump="H", discards=["TS", "JS"])
    play_rows(t, rows)
    assert t.view(None)["scores"] == [2, 4]
    hands, undealt, rows = wisconsin_w1(["KC", "QD"])
    to_play_wisconsin(
        t, rotate(hands, 1, 4), undealt, bidder=2, bid=3, trump="H", discards=["KC", "QD"]
    )
    play_rows(t, rotate(rows, 1, 4))
    v = t.view(None)
    assert v["scores"] == [5, 6]
    assert v["phase"] == "game_over"
    assert v["winners"] == [1]


def test_schmier5_tied_players_of_the_bidders_side_win_together() -> None:
    """Target 5. S with KH called, twice: [2,4,2,4,2] -> [4,8,4,8,4]; bidder 1 and
    partner 3 tie at 8, both on the bidder's side: both win."""
    t = Table("schmier5", {"target": 5})
    for _ in range(2):
        to_play_schmier(t, SCHMIER5_S, bidder=1, bid=3, trump="H", stock=SCHMIER5_STOCK, call="KH")
        play_rows(t, SCHMIER5_S)
    v = t.view(None)
    assert v["scores"] == [4, 8, 4, 8, 4]
    assert v["phase"] == "game_over"
    assert sorted(v["winners"]) == [1, 3]


def test_deal_passes_left_after_a_hand() -> None:
    """docs/rules.md 1: afterwards the deal passes left (dealer + 1); bidding starts left of it."""
    t = Table("schmier6", dealer=4)
    to_play_schmier(t, SCHMIER6_A, bidder=1, bid=3, trump="H", stock=SCHMIER6_STOCK)
    assert t.dealer == 4
    play_rows(t, SCHMIER6_A)
    assert engine.needs_deal(t.state)
    t.deal_stacked()
    v = t.view(None)
    assert v["dealer"] == 5
    assert t.turn() == [0]
    # docs/protocol.md: last_hand stays until the next hand is scored; tricks start afresh.
    assert v["last_hand"] is not None and v["last_hand"]["bidder"] == 1
    assert v["tricks"] == [] and v["trick"] == []
    assert (v["bidder"], v["bid"], v["trump"]) == (None, None, None)


def test_rematch_starts_a_new_game_with_the_next_dealer() -> None:
    """architecture.md: rematch in game_over starts a new game, dealer passes left,
    phase deal, scores back to zero; any seated player may ask."""
    t = Table("schmier6", {"target": 5})
    schmier6_hand(t, SCHMIER6_A, 0, 3)
    schmier6_hand(t, SCHMIER6_A, 0, 3)  # dealer 1 for this hand
    assert t.phase == "game_over"
    for seat in range(6):
        assert {"type": "rematch"} in t.legal(seat)
    assert t.view(None)["legal"] == []
    t.apply(4, {"type": "rematch"})
    v = t.view(None)
    assert v["phase"] == "deal" or engine.needs_deal(t.state)
    assert v["scores"] == [0, 0, 0]
    assert v["dealer"] == 2
    assert v["rules"]["target"] == 5
    t.deal_stacked()
    assert t.phase == "bidding"
    assert t.turn() == [3]
