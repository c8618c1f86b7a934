"""Card knowledge for the bots, computed from the card strings of a view.

The engine encodes cards as small integers internally; that encoding is the engine's
private business and may change. Bots only ever see the protocol's strings (``"AS"``,
``"TH"``, ``"X1"``), so this module re-derives, from those strings and the rules of
``RULES.md``, the few facts a bot reasons with: which cards are trumps, how trumps
rank, who is winning a trick, which cards carry points. Keeping it separate from the
engine means a bot can never peek at state it should not see, and the engine stays
free to change its representation.

The per-card predicates are memoised (`functools.cache`): they are pure functions of a
few strings, asked hundreds of times per decision, and the key space is tiny (cards ×
trumps × variants), so the cache is bounded in practice.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

RANKS = "23456789TJQKA"
SUITS = "SHDC"
JOKERS = ("X1", "X2")

#: The other suit of the same colour (spades/clubs black, hearts/diamonds red): the
#: suit of the left bauer in the Schmier games.
SAME_COLOUR = {"S": "C", "C": "S", "H": "D", "D": "H"}

#: Game count of each rank (``RULES.md`` step 7); jokers count 1.
GAME_VALUE = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 10}

#: The natural rank that earns "low" when played (the bottom of the trump order).
LOW_RANK = {"schmier6": "2", "schmier5": "4", "wisconsin4": "7"}

#: Lowest natural rank dealt in each variant.
_MIN_RANK = {"schmier6": "2", "schmier5": "4", "wisconsin4": "7"}


def full_deck(variant: str) -> list[str]:
    """Every card of `variant`, so a bot can tell which cards it has not yet seen."""
    low = RANKS.index(_MIN_RANK[variant])
    cards = [r + s for s in SUITS for r in RANKS[low:]]
    cards.extend(JOKERS if variant == "wisconsin4" else JOKERS[:1])
    return cards


def is_joker(card: str) -> bool:
    """Jokers are the only cards whose first character is ``X``."""
    return card[0] == "X"


def rank(card: str) -> str:
    """The rank character (``"X"`` for a joker)."""
    return card[0]


def printed_suit(card: str) -> str:
    """The suit printed on the card (``"1"``/``"2"`` for jokers, which have none)."""
    return card[1]


def has_left_bauer(variant: str) -> bool:
    """Only the Schmier games promote the same-colour jack to trump."""
    return variant != "wisconsin4"


def is_left_bauer(card: str, trump: str | None, variant: str) -> bool:
    """The jack of the trump's colour twin, which is a trump in the Schmier games."""
    return (
        trump is not None
        and has_left_bauer(variant)
        and card[0] == "J"
        and card[1] == SAME_COLOUR[trump]
    )


@cache
def is_trump(card: str, trump: str | None, variant: str) -> bool:
    """Jokers, cards of the trump suit, and the left bauer (Schmier) are trumps."""
    if trump is None:
        return is_joker(card)
    return is_joker(card) or card[1] == trump or is_left_bauer(card, trump, variant)


@cache
def effective_suit(card: str, trump: str | None, variant: str) -> str:
    """The suit a card counts as for following: trump for every trump.

    With no trump known a joker keeps its own pseudo-suit ``"X"``; this only happens
    when a bot reasons about a hand before trump exists.
    """
    if is_trump(card, trump, variant):
        return trump if trump is not None else "X"
    return card[1]


@cache
def trump_power(card: str, trump: str | None, variant: str) -> int:
    """Strength of a trump, higher is stronger; both jokers share one value.

    Schmier: A K Q J(right) J(left) T … low, then X1 at the bottom. ``wisconsin4``:
    A K Q J T 9 8 7, then the jokers (their order among themselves depends on play
    order, see :func:`beats`).
    """
    if is_joker(card):
        return 1
    if is_left_bauer(card, trump, variant):
        return 20 + RANKS.index("J") * 2 - 1  # just below the right bauer
    return 20 + RANKS.index(card[0]) * 2


def plain_power(card: str) -> int:
    """Strength of a card within a non-trump suit."""
    return RANKS.index(card[0])


@cache
def beats(
    challenger: str,
    incumbent: str,
    led: str,
    trump: str | None,
    variant: str,
    joker_order: str | None,
) -> bool:
    """Whether `challenger`, played after `incumbent` (now winning), takes the trick.

    `led` is the effective suit of the trick's first card. Two jokers in
    ``wisconsin4`` are settled by `joker_order`: ``first_high`` keeps the earlier one.
    """
    c_trump = is_trump(challenger, trump, variant)
    i_trump = is_trump(incumbent, trump, variant)
    if c_trump and not i_trump:
        return True
    if i_trump and not c_trump:
        return False
    if c_trump and i_trump:
        cp = trump_power(challenger, trump, variant)
        ip = trump_power(incumbent, trump, variant)
        if cp == ip:  # two jokers (wisconsin4)
            return joker_order == "second_high"
        return cp > ip
    if challenger[1] != led:
        return False
    return incumbent[1] != led or plain_power(challenger) > plain_power(incumbent)


def winning_index(
    cards: Sequence[str], trump: str | None, variant: str, joker_order: str | None
) -> int:
    """Index, within `cards` in play order, of the card currently taking the trick."""
    led = effective_suit(cards[0], trump, variant)
    best = 0
    for i in range(1, len(cards)):
        if beats(cards[i], cards[best], led, trump, variant, joker_order):
            best = i
    return best


def game_value(card: str) -> int:
    """The card's contribution to the game count (A 4, K 3, Q 2, J 1, T 10, joker 1)."""
    if is_joker(card):
        return 1
    return GAME_VALUE.get(card[0], 0)


def is_capturable_point(card: str, trump: str | None, variant: str) -> bool:
    """Point cards that go to the trick's winner: the jacks of trump and the jokers.

    High and low are not in this list: they go to whoever *played* the card, so a bot
    cannot capture them, only be sure to play its own.
    """
    if is_joker(card):
        return True
    if trump is None or card[0] != "J":
        return False
    return card[1] == trump or is_left_bauer(card, trump, variant)


def point_cards(trump: str, variant: str) -> list[str]:
    """The cards that carry a capturable point once `trump` is known."""
    cards = ["J" + trump]
    if has_left_bauer(variant):
        cards.append("J" + SAME_COLOUR[trump])
    cards.extend(JOKERS if variant == "wisconsin4" else JOKERS[:1])
    return cards
