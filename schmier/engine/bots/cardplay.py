"""The heuristic's card play: each legal card scored by the points at stake in the trick,
the chance the viewer's side takes it, and what keeping the card is worth later.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import RANKS, SUITS
from ..cardsense import (
    beats,
    effective_suit,
    game_value,
    is_capturable_point,
    is_trump,
    plain_power,
    trump_power,
    winning_index,
)
from ..tricks import TrickRules, of_view
from .reading import Answer, View, hand_of, rule_book, seat_count, trump_of, variant_of

#: What one unit of game count is worth, in points, when weighing a trick. The game
#: point goes to the side with the most count out of roughly 80, so a ten (10 count)
#: is worth a fraction of a sure point such as a bauer.
_COUNT_WEIGHT = 0.03

#: How much more a defender values the points in a trick: each point it takes is
#: one the bidder lacks, and a bidder short of its bid loses the bid instead of
#: scoring.
_DEFENCE_WEIGHT = 1.3

#: The chance that a card which takes the trick now, but could still be beaten by an
#: unseen card, holds against each hostile player still to play.
_HOLD_CHANCE = 0.55


class Table:
    """What the play heuristics need to know about the hand in progress."""

    def __init__(self, view: View) -> None:
        self.variant = variant_of(view)
        self.book = rule_book(view)
        self.trump = trump_of(view)
        suit = None if self.trump is None else SUITS.index(self.trump)
        #: Who takes a trick, under the room's house rules.
        self.tricks: TrickRules = of_view(self.variant, suit, view.get("rules") or {})
        self.n = seat_count(view)
        self.me = int(view["you"])
        self.hand = hand_of(view)
        self.bidder: int | None = view.get("bidder")
        played: list[str] = []
        for trick in view.get("tricks") or ():
            played.extend(str(e["card"]) for e in trick["cards"])
        self.trick: list[tuple[int, str]] = [
            (int(e["seat"]), str(e["card"])) for e in view.get("trick") or ()
        ]
        played.extend(c for _, c in self.trick)
        # The viewer's own discards are out of play too (the engine shows them to it).
        seen = set(played) | set(self.hand) | {str(c) for c in view.get("my_discards") or ()}
        self.unseen = [c for c in self.book["deck"] if c not in seen]
        self.friends = self._friends(view)
        self.defending = self.bidder is not None and self.bidder not in self.friends

    def _friends(self, view: View) -> set[int]:
        """The seats on the viewer's side, as far as the viewer can know them.

        Without fixed teams the side is the bidder plus the holder of the called card:
        the partner knows itself from its hand, the bidder learns its partner when the
        card is played; a defender treats as friends only those it knows are not the
        partner (everybody but the bidder once the partner is known or nobody was
        called, otherwise only itself).
        """
        if self.book["fixed_teams"]:
            for team in view.get("teams") or ():
                if self.me in team:
                    return {int(s) for s in team}
            return {self.me}
        called = view.get("called")
        partner = view.get("partner")
        bidder = self.bidder
        if bidder is None:
            return {self.me}
        if self.me == bidder:
            return {self.me} | ({int(partner)} if partner is not None else set())
        if partner == self.me or (called is not None and called in self.hand):
            return {self.me, bidder}
        if partner is not None or called is None:
            known_partner = {int(partner)} if partner is not None else set()
            return {s for s in range(self.n) if s != bidder} - known_partner
        return {self.me}

    def is_trump(self, card: str) -> bool:
        return is_trump(card, self.trump, self.variant)

    def value(self, card: str) -> float:
        """Points a card hands to whoever takes the trick."""
        v = game_value(card) * _COUNT_WEIGHT
        if is_capturable_point(card, self.trump, self.variant):
            v += 1.0
        return v

    def beaten_by_unseen(self, card: str, led: str) -> bool:
        """Whether some card not yet seen could still beat `card` in this trick.

        Conservative: an unseen card may be in the stock or a discard. A side card can
        be trumped by any unseen trump (its holder may be void, or allowed to trump).
        """
        return any(beats(other, card, led, self.tricks) for other in self.unseen)

    def keep_cost(self, card: str, led: str) -> float:
        """What playing `card` now gives up: its power to take a later trick.

        Scaled down as the hand runs out of tricks, since every card is played by
        the end anyway.
        """
        if self.is_trump(card):
            if not self.beaten_by_unseen(card, self.trump or "X"):
                cost = 0.5
            else:
                power = trump_power(card, self.trump, self.variant)
                cost = 0.08 + 0.3 * max(0, power - 20) / (2 * len(RANKS))
        else:
            cost = {"A": 0.25, "K": 0.12, "Q": 0.06}.get(card[0], 0.02)
        return cost * max(0, len(self.hand) - 1) / 5


def play(view: View, cards: Sequence[str]) -> Answer:
    """Choose the card with the best expected worth for the viewer's side."""
    table = Table(view)
    if len(cards) == 1:
        return {"type": "play", "card": cards[0]}
    scorer = _follow_score if table.trick else _lead_score
    best = max(cards, key=lambda c: (scorer(table, c), c))
    return {"type": "play", "card": best}


def _later_seats(table: Table) -> list[int]:
    """The seats still to play to the current trick after the viewer."""
    left = table.n - len(table.trick) - 1
    return [(table.me + k) % table.n for k in range(1, left + 1)]


def _follow_score(table: Table, card: str) -> float:
    """Worth of adding `card` to a trick already led.

    ``(2p - 1) * V - keep``: ``V`` is everything the trick will hold with this card
    (jacks and jokers a point each, count a little), ``p`` the chance the viewer's side
    takes it. A card that wins outright with nobody hostile after it has ``p = 1``;
    a card that cannot win on a partner's sure trick too, so the bot smears its points
    there; on a trick the enemy keeps, ``p = 0`` and it sheds its cheapest card. A
    defender weighs points more: a point denied can set the bidder.
    """
    assert table.trick
    trick_cards = [c for _, c in table.trick]
    led = effective_suit(trick_cards[0], table.trump, table.variant)
    win = winning_index(trick_cards, table.tricks)
    win_seat, win_card = table.trick[win]
    later = _later_seats(table)
    hostile_after = [s for s in later if s not in table.friends]
    friend_after = any(s in table.friends for s in later)
    takes = beats(card, win_card, led, table.tricks)
    if takes:
        if not hostile_after or not table.beaten_by_unseen(card, led):
            p = 1.0
        else:
            p = _HOLD_CHANCE ** len(hostile_after)
    elif win_seat in table.friends:
        sure = not hostile_after or not table.beaten_by_unseen(win_card, led)
        p = 1.0 if sure else 0.5
    else:
        p = 0.25 if friend_after else 0.0
    stake = sum(table.value(c) for c in trick_cards) + table.value(card)
    if table.defending:
        stake *= _DEFENCE_WEIGHT
    score = (2 * p - 1) * stake - table.keep_cost(card, led)
    # The low trump earns its point whoever takes the trick; spending it where the
    # side takes the trick anyway keeps the better trumps for later.
    if p >= 1.0 and table.is_trump(card) and card[0] == table.book["low_rank"]:
        score += 0.05
    return score


def _lead_score(table: Table, card: str) -> float:
    """Worth of leading `card`.

    A trump nobody can beat is led to draw the others' trumps and the jacks and
    jokers with them (worth more while such point cards are still out); a side ace
    wins while trumps are scarce; otherwise the cheapest card goes, never a point
    card that the enemy would take.
    """
    led = effective_suit(card, table.trump, table.variant)
    unseen_trumps = [c for c in table.unseen if table.is_trump(c)]
    unseen_points = [c for c in unseen_trumps if is_capturable_point(c, table.trump, table.variant)]
    safe = not table.beaten_by_unseen(card, led)
    extra = 0.2
    if table.is_trump(card):
        if safe:
            p = 1.0
            extra += 0.35 * len(unseen_points) if unseen_trumps else -0.3
        else:
            p = 0.3
    else:
        higher_side = any(
            c[1] == card[1] and not table.is_trump(c) and plain_power(c) > plain_power(card)
            for c in table.unseen
        )
        p = 0.2 if higher_side else 0.8
        if unseen_trumps:
            p *= 0.6
    stake = table.value(card) + extra
    return (2 * p - 1) * stake - table.keep_cost(card, led)
