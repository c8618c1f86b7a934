"""Cards as small integers.

Inside the engine a card is an int: `suit * 13 + rank` for the 52 natural cards (rank 0 is
the 2, rank 12 the ace) and 52 / 53 for the jokers `X1` / `X2`. A set of cards (a hand, the
cards of a suit) is a bit mask, so following suit or testing membership is one `&`. Strings
such as `"AS"` exist only at the edge: in actions, views and the JSON of a state.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

RANKS = "23456789TJQKA"
SUITS = "SHDC"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES = (
    "Two",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Jack",
    "Queen",
    "King",
    "Ace",
)

X1 = 52
X2 = 53
JOKERS = (X1, X2)
#: Every card index is below this: the 52 natural cards, then the two jokers.
CARD_COUNT = 54

TEN = RANKS.index("T")
JACK = RANKS.index("J")
QUEEN = RANKS.index("Q")
KING = RANKS.index("K")
ACE = RANKS.index("A")

#: The suit of the same colour: spades <-> clubs, hearts <-> diamonds. The left bauer is the
#: jack of this suit.
SAME_COLOUR = (3, 2, 1, 0)

#: Card points towards "game": A 4, K 3, Q 2, J 1, T 10, a joker 1, everything else 0.
GAME_VALUE: tuple[int, ...] = tuple(
    [{ACE: 4, KING: 3, QUEEN: 2, JACK: 1, TEN: 10}.get(c % 13, 0) for c in range(52)] + [1, 1]
)

CARD_NAMES: tuple[str, ...] = tuple(
    [RANKS[c % 13] + SUITS[c // 13] for c in range(52)] + ["X1", "X2"]
)
CARD_INDEX: dict[str, int] = {name: i for i, name in enumerate(CARD_NAMES)}


def card(rank: int, suit: int) -> int:
    """The natural card of that rank index (0 = the 2) and suit index."""
    return suit * 13 + rank


def suit_of(c: int) -> int:
    """The printed suit of a natural card (jokers have none: -1)."""
    return c // 13 if c < 52 else -1


def rank_of(c: int) -> int:
    """The rank index of a natural card (jokers: -1)."""
    return c % 13 if c < 52 else -1


def parse(name: str) -> int:
    """The card named `name` (case-insensitive); KeyError for anything else."""
    return CARD_INDEX[name.upper()]


def mask_of(cards: Iterable[int]) -> int:
    """The bit mask holding exactly `cards`."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The cards of a mask, in increasing order (suit by suit, low to high, jokers last)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def names(mask: int) -> list[str]:
    """The card strings of a mask, in the engine's canonical order (a new list)."""
    return list(_names_of(mask))


@lru_cache(maxsize=16384)
def _names_of(mask: int) -> tuple[str, ...]:
    """Why a cache: every action writes the room's snapshot and six views, two dozen
    hands and discards spelled out, and all but one or two of them are the masks the
    previous action spelled; a look-up here is a fraction of spelling a mask afresh.
    16,384 masks cover some seconds of play at 1,000 tables, in a few MB at most."""
    return tuple(CARD_NAMES[c] for c in cards_of(mask))


def describe(c: int) -> str:
    """A card's English name ("Ace of spades", "Joker"), for error messages."""
    if c >= 52:
        return "Joker" if c == X1 else "Second joker"
    return f"{RANK_NAMES[c % 13]} of {SUIT_NAMES[c // 13]}"
