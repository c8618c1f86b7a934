"""Play (docs/rules.md 6): the bidder leads, follow suit, the left bauer is a trump,
trump_anytime, joker leads, the two wisconsin4 jokers, the trick winner leads."""

from __future__ import annotations

import pytest

from schmier import engine
from tests.support.engine_helpers import (
    SCHMIER6_A,
    SCHMIER6_STOCK,
    Table,
    play_rows,
    to_play_schmier,
    to_play_wisconsin,
)

#: schmier6, dealer 0, trump hearts. Seat 2's only "diamond" is the left bauer JD.
LEFT = {
    1: ["AD", "KD", "QD", "TD", "9D", "X1"],
    2: ["JD", "2S", "3S", "4S", "5S", "6S"],
    3: ["5D", "8D", "2H", "3H", "4H", "7S"],
    4: ["5H", "6H", "7H", "8H", "9H", "TH"],
    5: ["JH", "QH", "KH", "AH", "8S", "9S"],
    0: ["2C", "3C", "4C", "5C", "6C", "7C"],
}
LEFT_STOCK = [r + "S" for r in "TJQKA"] + [r + "C" for r in "89TJQKA"] + [r + "D" for r in "23467"]


def left_table(trump_anytime: bool = False) -> Table:
    t = Table("schmier6", {"trump_anytime": trump_anytime})
    return to_play_schmier(t, LEFT, bidder=1, bid=3, trump="H", stock=LEFT_STOCK)


def test_the_bidder_leads_anything_including_the_joker() -> None:
    t = left_table()
    assert t.turn() == [1]
    assert t.legal_cards(1) == set(LEFT[1])
    for seat in (0, 2, 3, 4, 5):
        assert t.legal(seat) == []
    with pytest.raises(engine.NotYourTurn):
        t.play(2, "JD")


@pytest.mark.parametrize("trump_anytime", [False, True])
def test_left_bauer_is_not_a_diamond(trump_anytime: bool) -> None:
    """AD led. Seat 2 holds JD and spades: JD is a trump, so seat 2 cannot follow and may
    play anything. Seat 3 holds 5D 8D: must follow diamonds; with trump_anytime it may
    instead trump (2H 3H 4H; X1 is not its)."""
    t = left_table(trump_anytime)
    t.play(1, "AD")
    assert t.legal_cards(2) == set(LEFT[2])
    t.play(2, "JD")
    expected = {"5D", "8D"} | ({"2H", "3H", "4H"} if trump_anytime else set())
    assert t.legal_cards(3) == expected
    with pytest.raises(engine.IllegalAction):
        t.play(3, "7S")
    t.play(3, "5D")
    assert t.legal_cards(4) == set(LEFT[4])  # no diamonds: anything
    t.play(4, "5H").play(5, "8S").play(0, "2C")
    # JD (left bauer) is the highest trump in the trick: seat 2 wins and leads.
    assert t.view(None)["tricks"][0]["winner"] == 2
    assert t.turn() == [2]


def test_joker_lead_is_a_trump_lead_and_left_bauer_follows_trump() -> None:
    """X1 led: seat 2 must play its only trump JD; seat 3 its hearts; seat 0 (no trumps)
    anything; AH wins the trick and seat 5 leads."""
    t = left_table()
    t.play(1, "X1")
    assert t.legal_cards(2) == {"JD"}
    t.play(2, "JD")
    assert t.legal_cards(3) == {"2H", "3H", "4H"}
    t.play(3, "2H").play(4, "5H")
    assert t.legal_cards(5) == {"JH", "QH", "KH", "AH"}
    t.play(5, "AH")
    assert t.legal_cards(0) == set(LEFT[0])
    t.play(0, "2C")
    assert t.view(None)["tricks"][0]["winner"] == 5
    assert t.turn() == [5]
    assert t.view(None)["trick"] == []


def test_follow_suit_on_worked_hand() -> None:
    """SCHMIER6_A: AH led -> seat 2 must play a trump (2H, 7H). In trick 3 (JH led),
    seat 4 must play JD, its only trump; seat 2, out of trumps, may play anything."""
    t = Table("schmier6")
    to_play_schmier(t, SCHMIER6_A, bidder=1, bid=3, trump="H", stock=SCHMIER6_STOCK)
    t.play(1, "AH")
    assert t.legal_cards(2) == {"2H", "7H"}
    for card in ("2H", "3H", "4H", "5H", "6H", "KH", "7H", "8H", "9H", "TH", "X1", "JH"):
        t.play_next(card)
    assert t.legal_cards(2) == {"AS", "6C", "JC", "9D"}
    t.play_next("AS").play_next("QH")
    assert t.legal_cards(4) == {"JD"}
    view = t.view(None)
    assert [p["seat"] for p in view["trick"]] == [1, 2, 3]
    assert [tr["winner"] for tr in view["tricks"]] == [1, 1]


#: wisconsin4, kitty 0, trump hearts, bidder seat 1. Trick 1: AH 7H 8H 9H (seat 1);
#: trick 2: AC led; seats 2 and 3 have no clubs and play the two jokers.
JOKERS = {
    1: ["AH", "AC", "KC", "7S", "8S", "9S"],
    2: ["7H", "X1", "7D", "8D", "9D", "TD"],
    3: ["8H", "X2", "JD", "QD", "KD", "AD"],
    0: ["9H", "7C", "8C", "9C", "TC", "JC"],
}
JOKERS_UNDEALT = ["TS", "JS", "QS", "KS", "AS", "TH", "JH", "QH", "KH", "QC"]


@pytest.mark.parametrize(
    ("order", "second", "third", "winner"),
    [
        ("first_high", "X1", "X2", 2),
        ("first_high", "X2", "X1", 2),
        ("second_high", "X1", "X2", 3),
        ("second_high", "X2", "X1", 3),
    ],
)
def test_two_jokers_in_one_trick(order: str, second: str, third: str, winner: int) -> None:
    """House rule joker_order: with no natural trump in the trick, first_high gives it to
    the joker played first, second_high to the one played second."""
    hands = {
        **JOKERS,
        2: [c if c not in ("X1", "X2") else second for c in JOKERS[2]],
        3: [c if c not in ("X1", "X2") else third for c in JOKERS[3]],
    }
    t = Table("wisconsin4", {"kitty": 0, "joker_order": order})
    to_play_wisconsin(t, hands, JOKERS_UNDEALT, bidder=1, bid=2, trump="H")
    t.play(1, "AH").play(2, "7H").play(3, "8H").play(0, "9H")
    assert t.turn() == [1]
    t.play(1, "AC")
    assert t.legal_cards(2) == set(hands[2]) - {"7H"}  # no clubs: anything
    t.play(2, second).play(3, third).play(0, "7C")
    assert t.view(None)["tricks"][1]["winner"] == winner
    assert t.turn() == [winner]


def test_natural_trump_beats_both_jokers() -> None:
    """Both jokers rank below the 7 of trump: 7H led beats X1 and X2."""
    hands = {
        1: ["AH", "7H", "KC", "7S", "8S", "9S"],
        2: ["X1", "AC", "7D", "8D", "9D", "TD"],
        3: ["X2", "8H", "JD", "QD", "KD", "AD"],
        0: ["9H", "7C", "8C", "9C", "TC", "JC"],
    }
    t = Table("wisconsin4", {"kitty": 0})
    to_play_wisconsin(t, hands, JOKERS_UNDEALT, bidder=1, bid=2, trump="H")
    t.play(1, "7H")
    assert t.legal_cards(2) == {"X1"}, "a joker is a trump: it must follow a trump lead"
    t.play(2, "X1")
    t.play(3, "X2").play(0, "9H")
    assert t.view(None)["tricks"][0]["winner"] == 0  # 9H > 7H > jokers
    t.play(0, "7C")
    assert t.legal_cards(1) == {"KC", "AH"}, "trump_anytime is on by default"
    t.play(1, "KC")
    assert t.legal_cards(2) == {"AC"}


def test_joker_may_be_led_after_the_first_trick_in_wisconsin() -> None:
    hands = {
        1: ["AH", "X1", "KC", "7S", "8S", "9S"],
        2: ["7H", "AC", "7D", "8D", "9D", "TD"],
        3: ["8H", "X2", "JD", "QD", "KD", "AD"],
        0: ["9H", "7C", "8C", "9C", "TC", "JC"],
    }
    t = Table("wisconsin4", {"kitty": 0})
    to_play_wisconsin(t, hands, JOKERS_UNDEALT, bidder=1, bid=2, trump="H")
    assert t.legal_cards(1) == {"AH"}
    t.play(1, "AH").play(2, "7H").play(3, "8H").play(0, "9H")
    assert "X1" in t.legal_cards(1)
    t.play(1, "X1")
    assert t.legal_cards(2) == set(hands[2]) - {"7H"}, "no trump left: anything"
    t.play(2, "7D")
    assert t.legal_cards(3) == {"X2"}, "a joker lead is a trump lead"


@pytest.mark.parametrize("trump_anytime", [False, True])
def test_wisconsin_trump_anytime(trump_anytime: bool) -> None:
    """On (the wisconsin4 default) a player who can follow may trump instead; off not."""
    hands = {
        1: ["AH", "7H", "KC", "7S", "8S", "9S"],
        2: ["X1", "AC", "7D", "8D", "9D", "TD"],
        3: ["X2", "8H", "JD", "QD", "KD", "AD"],
        0: ["9H", "TH", "7C", "8C", "9C", "TC"],
    }
    t = Table("wisconsin4", {"kitty": 0, "trump_anytime": trump_anytime})
    undealt = ["JC" if c == "TH" else c for c in JOKERS_UNDEALT]
    to_play_wisconsin(t, hands, undealt, bidder=1, bid=2, trump="H")
    t.play(1, "AH").play(2, "X1").play(3, "X2").play(0, "9H")
    t.play(1, "KC")
    assert t.legal_cards(2) == {"AC"}  # no trump left: must follow
    t.play(2, "AC")
    assert t.legal_cards(3) == set(hands[3]) - {"X2"}  # no clubs: anything
    t.play(3, "8H")
    clubs = {"7C", "8C", "9C", "TC"}
    assert t.legal_cards(0) == (clubs | {"TH"} if trump_anytime else clubs)


def test_six_tricks_make_the_hand() -> None:
    t = Table("schmier6")
    to_play_schmier(t, SCHMIER6_A, bidder=1, bid=3, trump="H", stock=SCHMIER6_STOCK)
    play_rows(t, SCHMIER6_A)
    assert t.phase == "hand_over"
    for seat in range(6):
        assert t.hand(seat) == []
