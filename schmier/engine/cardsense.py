"""Card sense for the bots: which cards are trumps, how they rank, who takes a trick,
which cards carry points.

A bot sees the protocol's card strings (``"AS"``, ``"X1"``) and the game's rule book,
``engine.describe(variant)``, which is public; everything here is derived from those
two, never from the engine's int encoding or from the game's name. Memoised: pure
functions of a few strings, asked hundreds of times per decision, over a small key space
(cards × trumps × games).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from .cards import RANKS
from .description import describe

#: Game count of each rank (``docs/rules.md`` step 7); jokers count 1.
GAME_VALUE = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 10}

#: The power of a joker: below every natural trump; two jokers tie (see `beats`).
JOKER_POWER = 1


def is_joker(card: str) -> bool:
    """Jokers are the only cards whose first character is ``X``."""
    return card[0] == "X"


def rank(card: str) -> str:
    """The rank character (``"X"`` for a joker)."""
    return card[0]


def printed_suit(card: str) -> str:
    """The suit printed on the card (``"1"``/``"2"`` for jokers, which have none)."""
    return card[1]


@cache
def _powers(trump: str, variant: str) -> dict[str, int]:
    """Every trump of `trump` with its power, from the rule book's `trump_order`.

    The order is the rule book's; the numbers keep the scale the play heuristics weigh
    a trump by (`keep_cost` in the bots): a card of the trump suit is 20 plus twice its
    rank index (the 2 is 20, the ace 44), a card promoted into trump (the left bauer)
    one less than the card above it, a joker `JOKER_POWER`.
    """
    powers: dict[str, int] = {}
    above = None
    for card in describe(variant)["trump_order"][trump]:
        if is_joker(card):
            power = JOKER_POWER
        elif card[1] == trump:
            power = 20 + 2 * RANKS.index(card[0])
        else:
            assert above is not None
            power = powers[above] - 1
        assert above is None or power < powers[above] or power == JOKER_POWER
        powers[card] = power
        above = card
    return powers


@cache
def is_trump(card: str, trump: str | None, variant: str) -> bool:
    """The cards of the rule book's trump order: the trump suit, a left bauer where the
    game has one, the jokers. With no trump known, only the jokers."""
    if trump is None:
        return is_joker(card)
    return card in _powers(trump, variant)


@cache
def effective_suit(card: str, trump: str | None, variant: str) -> str:
    """The suit a card counts as for following: trump for every trump.

    With no trump known a joker keeps its own pseudo-suit ``"X"``; this only happens
    when a bot reasons about a hand before trump exists.
    """
    if is_trump(card, trump, variant):
        return trump if trump is not None else "X"
    return card[1]


def trump_power(card: str, trump: str | None, variant: str) -> int:
    """Strength of a trump, higher is stronger; two jokers share one value (see `_powers`)."""
    if trump is None or is_joker(card):
        return JOKER_POWER
    return _powers(trump, variant)[card]


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

    `led` is the effective suit of the trick's first card. Two jokers are settled by
    `joker_order`: ``first_high`` keeps the earlier one.
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
        if cp == ip:  # two jokers
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


@cache
def point_cards(trump: str, variant: str) -> tuple[str, ...]:
    """The cards whose point goes to the trick's winner once `trump` is known: the jacks
    among the trumps (the right and the left bauer, or the one jack), then the jokers,
    in the rule book's trump order."""
    order = describe(variant)["trump_order"][trump]
    return tuple(c for c in order if c[0] == "J") + tuple(c for c in order if is_joker(c))


def is_capturable_point(card: str, trump: str | None, variant: str) -> bool:
    """Point cards that go to the trick's winner: the jacks of trump and the jokers.

    High and low are not in this list: they go to whoever *played* the card, so a bot
    cannot capture them, only be sure to play its own.
    """
    if is_joker(card):
        return True
    return trump is not None and card in point_cards(trump, variant)
