"""The weaknesses players complain about in bots of this family, each pinned by one
decision (issue 14, part 5), for the `strong` search and, where it already holds, the
`normal` heuristic.

The views are built by hand the way `engine.view` shapes them, with hand sizes that
agree with the tricks shown (the search deals the unseen cards into them). The search
runs on its real budget: these are single decisions, and each situation is clear-cut
enough that any sampled world tells the same story.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from schmier.engine import full_deck
from schmier.engine.bots import choose

from .test_bots import bids, make_view, plays

BOTH = ["strong", "heuristic"]


def table(
    variant: str,
    me: int,
    hand: list[str],
    trump: str,
    bidder: int,
    bid: int = 3,
    trick: list[tuple[int, str]] | None = None,
    tricks: list[tuple[list[tuple[int, str]], int]] | None = None,
    legal: list[str] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A play-phase view whose hand sizes follow from the tricks shown."""
    trick = trick or []
    tricks = tricks or []
    view = make_view(variant, you=me, hand=hand, trump=trump, bidder=bidder, bid=bid, **fields)
    n = len(view["seats"])
    played_now = {s for s, _ in trick}
    view["seats"] = [
        {"seat": s, "cards": 6 - len(tricks) - (1 if s in played_now else 0)} for s in range(n)
    ]
    assert view["seats"][me]["cards"] == len(hand)
    view["trick"] = [{"seat": s, "card": c} for s, c in trick]
    view["tricks"] = [
        {"cards": [{"seat": s, "card": c} for s, c in t], "winner": w} for t, w in tricks
    ]
    view["turn"] = [me]
    view["legal"] = plays(legal if legal is not None else hand)
    return view


def decide(policy: str, view: dict[str, Any], seed: int = 1) -> dict[str, Any]:
    return choose(policy, view, random.Random(seed))


# ---------------------------------------------------------------- no bid without cards


WEAK = {
    "schmier6": ["3C", "5D", "7H", "9S", "4C", "6D"],
    "schmier5": ["5C", "6D", "7H", "9S", "8C", "6H"],
    "wisconsin4": ["9C", "8D", "9H", "TS", "8S", "QD"],
}


@pytest.mark.parametrize(
    ("policy", "variant"),
    [
        ("strong", "schmier6"),
        ("strong", "schmier5"),
        ("strong", "wisconsin4"),
        ("heuristic", "schmier6"),
        ("heuristic", "schmier5"),
        # The heuristic still bids 2 on this wisconsin4 hand: a weakness left to fix.
    ],
)
def test_no_bid_without_the_cards(policy: str, variant: str) -> None:
    hand = WEAK[variant]
    low = 2 if variant == "wisconsin4" else 3
    view = make_view(
        variant, phase="bidding", you=0, dealer=2, hand=hand, legal=bids(range(low, 7))
    )
    assert decide(policy, view) == {"type": "pass"}


@pytest.mark.parametrize("policy", BOTH)
def test_a_strong_hand_is_bid(policy: str) -> None:
    hand = ["AS", "KS", "JS", "JC", "2S", "X1"]
    view = make_view(
        "schmier6", phase="bidding", you=0, dealer=2, hand=hand, legal=bids(range(3, 7))
    )
    assert decide(policy, view)["type"] == "bid"


def near_the_target(scores: list[int]) -> dict[str, Any]:
    """wisconsin4, the dealer (seat 3, team {1, 3}) to speak last after a bid of 2 by
    seat 2, with a hand too weak to bid on points alone."""
    view = make_view(
        "wisconsin4",
        phase="bidding",
        you=3,
        dealer=3,
        hand=WEAK["wisconsin4"],
        bids=[{"seat": 0, "amount": None}, {"seat": 1, "amount": None}, {"seat": 2, "amount": 2}],
        legal=bids(range(3, 7)),
    )
    view["scores"] = scores
    return view


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_bid_that_takes_the_side_out_is_made(seed: int) -> None:
    """At 19 of 21 a made bid of 3 wins the game at once, where passing leaves the hand
    (and its points) to the other side: the search bids what it would pass at 0 to 0."""
    assert decide("strong", near_the_target([0, 0]), seed) == {"type": "pass"}
    assert decide("strong", near_the_target([5, 19]), seed) == {"type": "bid", "amount": 3}


# ------------------------------------------------ the low trump onto a sure trick


@pytest.mark.parametrize("policy", BOTH)
def test_the_low_trump_goes_onto_the_sides_sure_trick(policy: str) -> None:
    # wisconsin4, hearts trump; seat 3 plays last, its partner (seat 1) holds the trick
    # with the ace. The 7 (low) earns its point whoever takes the trick: spend it now and
    # keep the king and queen for later tricks.
    hand = ["7H", "KH", "QH", "8S", "9C", "AD"]
    view = table(
        "wisconsin4",
        3,
        hand,
        "H",
        bidder=0,
        trick=[(0, "9H"), (1, "AH"), (2, "8H")],
        legal=["7H", "KH", "QH"],
    )
    assert decide(policy, view) == {"type": "play", "card": "7H"}


# ------------------------------------------- the partner's sure trick gets the points


@pytest.mark.parametrize("policy", BOTH)
def test_the_joker_is_smeared_onto_the_partners_sure_trick(policy: str) -> None:
    # schmier6, hearts trump; seat 5 plays last and is void in clubs; its partner (seat
    # 2) holds the trick with the ace of clubs. The joker is safe there and nowhere else.
    hand = ["X1", "3S", "4S", "2D", "9D", "5S"]
    view = table(
        "schmier6",
        5,
        hand,
        "H",
        bidder=2,
        trick=[(0, "5C"), (1, "6C"), (2, "AC"), (3, "7C"), (4, "8C")],
    )
    assert decide(policy, view) == {"type": "play", "card": "X1"}


@pytest.mark.parametrize("policy", BOTH)
def test_the_ten_is_smeared_onto_the_partners_sure_trick(policy: str) -> None:
    hand = ["TS", "3S", "4D", "2D", "9D", "5S"]
    view = table(
        "schmier6",
        5,
        hand,
        "H",
        bidder=2,
        trick=[(0, "5C"), (1, "6C"), (2, "AC"), (3, "7C"), (4, "8C")],
    )
    assert decide(policy, view) == {"type": "play", "card": "TS"}


@pytest.mark.parametrize("policy", BOTH)
def test_the_bauer_is_smeared_onto_the_partners_sure_trick(policy: str) -> None:
    # The partner (seat 2) led the ace of trump; seat 5 plays last and must follow:
    # the left bauer (jack of diamonds when hearts are trump) rides on the ace.
    hand = ["JD", "3H", "4S", "2C", "9D", "5S"]
    view = table(
        "schmier6",
        5,
        hand,
        "H",
        bidder=2,
        trick=[(2, "AH"), (3, "5H"), (4, "6H")],
        legal=["JD", "3H"],
    )
    assert decide(policy, view) == {"type": "play", "card": "JD"}


# ------------------------------------------------------------------ schmier5 sides


@pytest.mark.parametrize("policy", BOTH)
def test_a_defender_takes_the_bidders_bauer(policy: str) -> None:
    # schmier5, hearts trump, seat 0 bid and called the king; seat 1 (a defender: it
    # does not hold the king) plays second and takes the right bauer with its ace.
    hand = ["AH", "5H", "9S", "TC", "8D", "6C"]
    view = table(
        "schmier5",
        1,
        hand,
        "H",
        bidder=0,
        bid=4,
        called="KH",
        trick=[(0, "JH")],
        legal=["AH", "5H"],
    )
    assert decide(policy, view) == {"type": "play", "card": "AH"}


@pytest.mark.parametrize("policy", BOTH)
def test_the_hidden_partner_does_not_give_itself_away(policy: str) -> None:
    # schmier5: seat 1 holds the called ace, so it is the bidder's partner; the bidder
    # led the king of trump, which only that ace beats. Overtaking would only tell the
    # table who the partner is: it follows small and keeps the ace for later.
    hand = ["AH", "6H", "9S", "TC", "8D", "6C"]
    view = table(
        "schmier5",
        1,
        hand,
        "H",
        bidder=0,
        bid=4,
        called="AH",
        partner=1,
        trick=[(0, "KH")],
        legal=["AH", "6H"],
    )
    assert decide(policy, view) == {"type": "play", "card": "6H"}


# ---------------------------------------------------------------------- house rules


@pytest.mark.parametrize("policy", BOTH)
def test_the_stuck_dealer_bids(policy: str) -> None:
    view = make_view(
        "schmier6",
        phase="bidding",
        you=5,
        dealer=5,
        hand=["3C", "5D", "7H", "9S", "4C", "6D"],
        bids=[{"seat": s, "amount": None} for s in range(5)],
        legal=bids(range(3, 7), can_pass=False),
    )
    view["rules"]["stick_the_dealer"] = True
    assert decide(policy, view) == {"type": "bid", "amount": 3}


@pytest.mark.parametrize("policy", BOTH)
def test_trump_anytime_is_used_to_take_a_ten(policy: str) -> None:
    # wisconsin4 with trump_anytime: seat 3 plays last, holds a club and may still trump
    # the opponents' ten of clubs.
    first = [(0, "AH"), (1, "7H"), (2, "QH"), (3, "TH")]
    hand = ["8C", "9H", "KS", "QD", "JS"]
    view = table(
        "wisconsin4",
        3,
        hand,
        "H",
        bidder=0,
        tricks=[(first, 0)],
        trick=[(0, "TC"), (1, "7C"), (2, "9C")],
        legal=["8C", "9H"],
    )
    view["rules"]["trump_anytime"] = True
    assert decide(policy, view) == {"type": "play", "card": "9H"}


@pytest.mark.parametrize("policy", BOTH)
@pytest.mark.parametrize("kitty", [1, 2, 3])
def test_the_kitty_is_discarded_down_to_six_keeping_trumps(policy: str, kitty: int) -> None:
    hand = ["AH", "KH", "9H", "7H", "X1", "8C", "9D", "7S", "QD"][: 6 + kitty]
    allowed = [c for c in hand if c[1] != "H" and c[0] != "X"]
    template = {"type": "discard", "from": allowed, "min": kitty, "max": kitty}
    view = make_view(
        "wisconsin4",
        phase="discard",
        you=0,
        hand=hand,
        bidder=0,
        bid=3,
        my_trump="H",
        legal=[template],
    )
    view["rules"]["kitty"] = kitty
    view["seats"][0]["cards"] = len(hand)
    cards = decide(policy, view)["cards"]
    assert len(cards) == kitty and set(cards) <= set(allowed)


@pytest.mark.parametrize("policy", BOTH)
@pytest.mark.parametrize(("order", "card"), [("second_high", "X2"), ("first_high", "8H")])
def test_joker_order_decides_which_joker_takes(policy: str, order: str, card: str) -> None:
    # wisconsin4, hearts trump, trick two: seat 0 led the first joker; seats 1 and 2
    # showed no trump. Seat 3 plays last: with second_high its joker takes both jokers;
    # with first_high it would hand both to the enemy, so a natural trump takes instead.
    first = [(0, "AH"), (1, "7C"), (2, "8C"), (3, "9H")]
    hand = ["X2", "8H", "KS", "QD", "JS"]
    view = table(
        "wisconsin4",
        3,
        hand,
        "H",
        bidder=0,
        tricks=[(first, 0)],
        trick=[(0, "X1"), (1, "9C"), (2, "8D")],
        legal=["X2", "8H"],
    )
    view["rules"]["joker_order"] = order
    assert decide(policy, view) == {"type": "play", "card": card}


# ---------------------------------------------------------- no lead into a sure loss


@pytest.mark.parametrize("policy", ["strong"])
def test_no_bauer_led_into_the_enemys_trumps(policy: str) -> None:
    # schmier6, hearts trump, seat 0 leads trick two. Its partner (seat 3) showed no
    # trump on the first trick, and no trump can lie among the discards, so the ace,
    # king and queen of trump are all with the enemy: the right bauer led now is lost.
    first = [(2, "2H"), (3, "5C"), (4, "4H"), (5, "7H"), (0, "TH"), (1, "8H")]
    hand = ["JH", "3C", "4D", "9S", "6D"]
    view = table("schmier6", 0, hand, "H", bidder=2, tricks=[(first, 0)])
    assert decide(policy, view)["card"] != "JH"


# ------------------------------------------------------------- no risky going alone


@pytest.mark.parametrize("seed", [4, 6, 8])
def test_no_bid_of_six_played_alone_on_a_coin_flip(seed: int) -> None:
    # schmier5, clubs trump, seat 3 bid 6 (every point) holding the ace, king, right
    # bauer, low and joker. The left bauer (JS) is with somebody else: alone it has to
    # be captured, which the simulated hands manage about two times in three, so
    # seat 2 (at 19) would often go out on the bidder's set. Calling a card (the left
    # bauer, or a trump to capture it with) makes the bid nine times in ten; before,
    # the average over the worlds, swayed by a few lucky ones, went alone on these seeds.
    deck = full_deck("schmier5")
    hand = ["5S", "4C", "JC", "KC", "AC", "X1"]
    legal = [{"type": "call", "card": c} for c in deck if c not in hand]
    legal.append({"type": "call", "card": None})
    view = make_view(
        "schmier5",
        phase="call",
        you=3,
        hand=hand,
        trump="C",
        my_trump="C",
        bidder=3,
        bid=6,
        dealer=1,
        turn=[3],
        bids=[{"seat": 2, "amount": 4}, {"seat": 3, "amount": 6}],
        scores=[7, 5, 19, 13, 13],
        my_discards=["JD"],
        legal=legal,
    )
    # Clubs rank A, K, Q, JC (right bauer), JS (left bauer), 10, ...: the bidder holds
    # A, K and JC, so the only trump that captures the left bauer is the queen.
    # Alone (None), or a call of a trump below the left bauer (TC, 9C: offered to the
    # search too), leaves the left bauer to be captured by luck.
    assert decide("strong", view, seed)["card"] in {"JS", "QC"}
