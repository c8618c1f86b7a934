"""What a trump suit does to the deck: which cards are trumps, how every card ranks, and
which suit each card follows.

Computed once per (game, trump suit) and cached, so the hot path of play is table look-ups
and bit masks rather than rank comparisons with special cases for bauers and jokers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .cards import ACE, JACK, KING, QUEEN, SAME_COLOUR, card, mask_of
from .variants import VARIANT_TABLE

#: Trumps rank above every natural card of a plain suit.
TRUMP_BASE = 100


@dataclass(frozen=True, slots=True)
class Trumps:
    """The consequences of one trump suit in one game."""

    suit: int
    #: Every trump: the suit, the left bauer (Schmier) and the jokers.
    mask: int
    #: For each printed suit, the cards that follow it; `follow[suit] == mask`.
    follow: tuple[int, int, int, int]
    #: Effective suit per card (trumps: the trump suit); -1 for cards not in the deck.
    esuit: tuple[int, ...]
    #: Trick-taking power per card: trumps TRUMP_BASE and above, others their rank.
    power: tuple[int, ...]
    #: The natural trumps (no jokers), for the low point.
    naturals: int
    #: Jack of trump (the right bauer, or the jack point of wisconsin4).
    right: int
    #: Jack of the same colour when it is a trump (Schmier), else -1.
    left: int
    #: Trumps a Schmier dealer may never discard: ace, both bauers, the low trump, the joker.
    protected: int


@cache
def trumps(variant: str, suit: int) -> Trumps:
    """The trump context of `suit` in `variant`."""
    v = VARIANT_TABLE[variant]
    deck = v.deck
    right = card(JACK, suit)
    left = card(JACK, SAME_COLOUR[suit]) if v.left_bauer else -1
    naturals_high_to_low = [card(r, suit) for r in (ACE, KING, QUEEN)]
    naturals_high_to_low.append(right)
    if left >= 0:
        naturals_high_to_low.append(left)
    naturals_high_to_low += [card(r, suit) for r in range(JACK - 1, v.low_rank - 1, -1)]
    power = [-1] * 54
    esuit = [-1] * 54
    for c in deck:
        if c < 52:
            power[c] = c % 13
            esuit[c] = c // 13
    bottom = len(naturals_high_to_low)
    for i, c in enumerate(naturals_high_to_low):
        power[c] = TRUMP_BASE + 1 + bottom - i
        esuit[c] = suit
    for j in v.jokers:
        # Every joker ranks below the lowest natural trump; two jokers tie here and
        # the joker_order house rule breaks the tie inside a trick.
        power[j] = TRUMP_BASE
        esuit[j] = suit
    mask = mask_of(naturals_high_to_low) | mask_of(v.jokers)
    follow = tuple(
        mask if s == suit else mask_of(c for c in deck if esuit[c] == s) for s in range(4)
    )
    protected = mask_of([card(ACE, suit), right, card(v.low_rank, suit), *v.jokers])
    if left >= 0:
        protected |= 1 << left
    return Trumps(
        suit=suit,
        mask=mask,
        follow=(follow[0], follow[1], follow[2], follow[3]),
        esuit=tuple(esuit),
        power=tuple(power),
        naturals=mask_of(naturals_high_to_low),
        right=right,
        left=left,
        protected=protected,
    )
