"""The heuristic's bidding: what a hand is worth with each suit as trump, the bid that
follows, and the trump it names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..cards import SUITS
from ..cardsense import is_joker, is_trump, point_cards, trump_power
from ..description import describe
from .reading import Answer, Legal, View, all_in_play, hand_of, rule_book, variant_of


def estimate(hand: Sequence[str], suit: str, variant: str) -> float:
    """Expected points (of the six) a hand takes with `suit` as trump, on its own.

    A rule of thumb, not a simulation: high and low are sure when held (they go to
    whoever plays them, and every held card gets played); a held jack or joker is
    kept in proportion to the higher trumps that guard it; big trumps give a chance to
    capture the others' point cards; game grows with trump length and guarded tens.
    """
    book = describe(variant)
    trumps = [c for c in hand if is_trump(c, suit, variant)]
    powers = sorted((trump_power(c, suit, variant) for c in trumps), reverse=True)
    held = set(hand)
    big = sum(1 for c in trumps if not is_joker(c) and c[0] in "AKQ" and c[1] == suit)
    total = 0.0
    # High: the ace, when every card is in play; otherwise the ace may sit among the
    # undealt cards, so a bare king has a chance too.
    if "A" + suit in held:
        total += 1.0
    elif not all_in_play(book) and "K" + suit in held:
        total += 0.3
    # Low: played by its holder, so it is theirs; the rank above it has a chance when
    # the low card may be undealt.
    low, above_low = book["plain_order"][-1], book["plain_order"][-2]
    if low + suit in held:
        total += 1.0
    elif not all_in_play(book) and above_low + suit in held:
        total += 0.3
    # Capturable points: jacks and jokers.
    for card in point_cards(suit, variant):
        if card in held:
            power = trump_power(card, suit, variant)
            guards = sum(1 for p in powers if p > power)
            total += min(0.95, 0.45 + 0.15 * guards)
        else:
            total += 0.08 * big
    # Game: trump length, guarded tens, side aces.
    tens = sum(
        1 for c in hand if c[0] == "T" and (is_trump(c, suit, variant) or "A" + c[1] in held)
    )
    side_aces = sum(1 for c in hand if c[0] == "A" and not is_trump(c, suit, variant))
    total += min(0.8, 0.1 + 0.07 * len(trumps) + 0.1 * tens + 0.05 * side_aces)
    return total


def _calibration(book: Mapping[str, Any]) -> float:
    """Added to every bid estimate: :func:`estimate` only counts what the hand takes
    alone, and self-play (heuristic against heuristic,
    ``bench/results/2026-11-30-selfplay-calibration.md``) showed that the side bidding
    this much more beats the same bot bidding less; beyond these values the gain stops
    or turns into a loss.

    Measured per game, the games differing in how the side is made and who draws: most
    where the bidder calls its partner after the bidding, then where the bidder draws
    a kitty, least where fixed teams all draw.
    """
    if book["called_partner"]:
        return 1.5
    if book["kitty"]:
        return 1.2
    return 0.5


def _help_bonus(view: View, suit: str) -> float:
    """What the rest of the bidder's side and the draw are worth, on average.

    With fixed teams a partner holds some of the missing points (a little less where
    two other teams compete for them); a bidder who calls its partner calls the best
    trump it lacks, which is worth about a point. Where everyone draws, the dealer
    picks its 6 from the whole remaining stock; where the bidder draws, it takes the
    kitty.
    """
    book = rule_book(view)
    hand = set(hand_of(view))
    me = view.get("you")
    dealer = view.get("dealer")
    bonus = _calibration(book)
    if book["called_partner"]:
        bonus += 0.9 if "A" + suit not in hand else 0.5
    else:
        bonus += 0.45 if len(book["teams"]) == 2 else 0.35
    if book["kitty"]:
        kitty = (view.get("rules") or {}).get("kitty")
        bonus += 0.15 * int(kitty if kitty is not None else 2)
    else:
        bonus += 0.6 if me == dealer else 0.25
    return bonus


def best_suit(hand: Sequence[str], variant: str, suits: Iterable[str] = SUITS) -> tuple[str, float]:
    """The suit with the highest :func:`estimate` (ties: the first in `suits`)."""
    scored = [(estimate(hand, s, variant), -i, s) for i, s in enumerate(suits)]
    value, _, suit = max(scored)
    return suit, value


def bid(view: View, legal: Legal) -> Answer:
    """Bid the estimate of the best suit if it is allowed, else pass.

    The estimate is what the side expects to take; bidding it (rather than the
    minimum) claims the hand against weaker bids, while a bid above it would be set
    more often than made. It does not outbid its own teammate for a marginal gain.
    Under ``stick_the_dealer`` pass may be missing: then the lowest bid, the
    cheapest way out.
    """
    hand = hand_of(view)
    suit, value = best_suit(hand, variant_of(view))
    target = int(value + _help_bonus(view, suit))
    amounts = sorted(int(e["amount"]) for e in legal if e["type"] == "bid")
    can_pass = any(e["type"] == "pass" for e in legal)
    if can_pass and _partner_holds_bid(view, target):
        return {"type": "pass"}
    if target in amounts:
        return {"type": "bid", "amount": target}
    if amounts and target > amounts[-1]:
        return {"type": "bid", "amount": amounts[-1]}
    if can_pass:
        return {"type": "pass"}
    return {"type": "bid", "amount": amounts[0]}


#: A teammate's high bid is raised only by a hand this much stronger: raising it
#: takes the same points for the same team but risks a bigger set.
_PARTNER_MARGIN = 2


def _partner_holds_bid(view: View, target: int) -> bool:
    """Whether a fixed teammate holds the highest bid so far and we should not raise it."""
    if not rule_book(view)["fixed_teams"]:
        return False  # sides are made after the bidding: there is no teammate yet
    made = [b for b in view.get("bids") or () if b.get("amount") is not None]
    if not made:
        return False
    top = max(made, key=lambda b: int(b["amount"]))
    me = view.get("you")
    team = next((t for t in view.get("teams") or () if me in t), ())
    return (
        top["seat"] != me and top["seat"] in team and target < int(top["amount"]) + _PARTNER_MARGIN
    )


def name_trump(view: View, suits: Sequence[str]) -> Answer:
    """Name (or, with a secret trump, commit to) the allowed suit the hand is best in."""
    suit, _ = best_suit(hand_of(view), variant_of(view), suits)
    return {"type": "trump", "suit": suit}
