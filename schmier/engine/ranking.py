"""What a trump suit does to the deck: which cards are trumps, how every card ranks,
which suit each card follows, and which cards carry the points a trick can take.

This is the trump order of the rules (docs/rules.md, "Trumps and the order of the
cards"), the one definition that the trick rules (`tricks.py`), scoring, the discards,
the published rule book (`description.py`) and the bots all read. Computed once per
(game, trump suit) and cached, so the hot path of play is table look-ups and bit masks
rather than rank comparisons with special cases for bauers and jokers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .cards import ACE, CARD_COUNT, JACK, JOKERS, KING, QUEEN, SAME_COLOUR, card, mask_of
from .variants import VARIANT_TABLE

#: Trumps rank above every natural card of a plain suit: a joker exactly this, the
#: natural trumps above it (the lowest TRUMP_BASE + 1), a plain card its rank (0-12).
TRUMP_BASE = 100
#: The effective suit of the jokers while no trump is known (they follow nothing). The
#: bots reason about hands before trump exists; a trick is never played without one.
JOKER_SUIT = 4
#: Effective suits: the four suits, then the jokers' own (`JOKER_SUIT`).
EFFECTIVE_SUITS = 5


@dataclass(frozen=True, slots=True)
class Trumps:
    """The consequences of one trump suit (or none yet) in one game."""

    #: The trump suit, -1 before trump is known.
    suit: int
    #: Every trump: the suit, the left bauer (Schmier) and the jokers. High goes to the
    #: seat that plays the highest of these (by `power`).
    mask: int
    #: The natural trumps (no jokers). Low goes to the seat that plays the lowest.
    naturals: int
    #: For each effective suit, the cards that follow it; `follow[suit] == mask`.
    follow: tuple[int, ...]
    #: Effective suit per card (trumps: the trump suit); -1 for cards not in the deck.
    esuit: tuple[int, ...]
    #: Trick-taking power per card: trumps TRUMP_BASE and above, others their rank.
    #: Two jokers have the same power (a house rule settles them: `tricks.outranks`).
    power: tuple[int, ...]
    #: The natural trumps, highest first.
    order: tuple[int, ...]
    #: The cards whose point goes to whoever takes their trick, in the order the game
    #: reports those points (`Variant.points`): the jacks of trump, then the jokers.
    captured: tuple[int, ...]
    #: Jack of trump (the right bauer, or the jack point of wisconsin4); -1 before trump.
    right: int
    #: Jack of the same colour when it is a trump (Schmier), else -1.
    left: int
    #: Trumps a Schmier dealer may never discard: ace, both bauers, the low trump, the joker.
    protected: int


@cache
def trumps(variant: str, suit: int | None) -> Trumps:
    """The trump context of `suit` in `variant` (None: before trump is known, when only
    the plain ranks count and the jokers are a suit of their own)."""
    v = VARIANT_TABLE[variant]
    deck = v.deck
    power = [-1] * CARD_COUNT
    esuit = [-1] * CARD_COUNT
    for c in deck:
        if c not in JOKERS:
            power[c] = c % 13
            esuit[c] = c // 13
    for j in v.jokers:
        # Every joker ranks below the lowest natural trump; two jokers tie here and
        # a house rule breaks the tie inside a trick (tricks.outranks).
        power[j] = TRUMP_BASE
        esuit[j] = JOKER_SUIT if suit is None else suit
    if suit is None:
        follow = tuple(mask_of(c for c in deck if esuit[c] == s) for s in range(EFFECTIVE_SUITS))
        return Trumps(-1, 0, 0, follow, tuple(esuit), tuple(power), (), (), -1, -1, 0)
    right = card(JACK, suit)
    left = card(JACK, SAME_COLOUR[suit]) if v.left_bauer else -1
    order = [card(r, suit) for r in (ACE, KING, QUEEN)]
    order.append(right)
    if left >= 0:
        order.append(left)
    order += [card(r, suit) for r in range(JACK - 1, v.low_rank - 1, -1)]
    for i, c in enumerate(order):
        power[c] = TRUMP_BASE + len(order) - i
        esuit[c] = suit
    naturals = mask_of(order)
    mask = naturals | mask_of(v.jokers)
    follow = tuple(mask_of(c for c in deck if esuit[c] == s) for s in range(EFFECTIVE_SUITS))
    captured = (right, *([left] if left >= 0 else []), *v.jokers)
    protected = mask_of([card(ACE, suit), card(v.low_rank, suit), *captured])
    return Trumps(
        suit=suit,
        mask=mask,
        naturals=naturals,
        follow=follow,
        esuit=tuple(esuit),
        power=tuple(power),
        order=tuple(order),
        captured=captured,
        right=right,
        left=left,
        protected=protected,
    )
