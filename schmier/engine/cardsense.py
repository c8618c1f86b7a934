"""Card sense for the bots: which cards are trumps, how they rank, who takes a trick,
which cards carry points, on the protocol's card strings (``"AS"``, ``"X1"``).

The heuristic players reason on the view's strings; what they ask is answered from the
engine's one definition of the cards (`ranking.Trumps`: the trump order, the point
cards; `tricks.TrickRules`: who takes a trick under the room's house rules; the count
towards game of `cards.GAME_VALUE`), looked up by card name, never from the game's name.
Memoised: pure functions of a few strings, asked hundreds of times per decision, over a
small key space (cards × trumps × games).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from .cards import CARD_INDEX, CARD_NAMES, GAME_VALUE, RANKS, SUITS
from .description import describe
from .ranking import JOKER_SUIT, Trumps, trumps
from .tricks import TrickRules

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


def _trumps(trump: str | None, variant: str) -> Trumps:
    return trumps(variant, None if trump is None else SUITS.index(trump))


@cache
def is_trump(card: str, trump: str | None, variant: str) -> bool:
    """The trumps: the trump suit, a left bauer where the game has one, the jokers. With
    no trump known, only the jokers (a trump whatever the suit)."""
    if trump is None:
        return is_joker(card)
    return bool(_trumps(trump, variant).mask >> CARD_INDEX[card] & 1)


@cache
def effective_suit(card: str, trump: str | None, variant: str) -> str:
    """The suit a card counts as for following: trump for every trump.

    With no trump known a joker keeps its own pseudo-suit ``"X"``; this only happens
    when a bot reasons about a hand before trump exists.
    """
    return _letter(_trumps(trump, variant).esuit[CARD_INDEX[card]])


def _letter(esuit: int) -> str:
    """An effective suit as a letter (``"X"``: the jokers' own, before trump)."""
    return "X" if esuit == JOKER_SUIT else SUITS[esuit]


def trump_power(card: str, trump: str | None, variant: str) -> int:
    """Strength of a trump, higher is stronger; two jokers share one value (see `_powers`)."""
    if trump is None or is_joker(card):
        return JOKER_POWER
    return _powers(trump, variant)[card]


def plain_power(card: str) -> int:
    """Strength of a card within a non-trump suit."""
    return RANKS.index(card[0])


@cache
def beats(challenger: str, incumbent: str, led: str, tricks: TrickRules) -> bool:
    """Whether `challenger`, played after `incumbent` (now winning), takes the trick,
    under the trick rules `tricks` (`tricks.of_view`: the game, its trump, the room's
    house rules). `led` is the effective suit of the trick's first card."""
    row = tricks.beaters[JOKER_SUIT if led == "X" else SUITS.index(led)]
    return bool(row[CARD_INDEX[incumbent]] >> CARD_INDEX[challenger] & 1)


def winning_index(cards: Sequence[str], tricks: TrickRules) -> int:
    """Index, within `cards` in play order, of the card currently taking the trick."""
    led = _letter(tricks.esuit[CARD_INDEX[cards[0]]])
    best = 0
    for i in range(1, len(cards)):
        if beats(cards[i], cards[best], led, tricks):
            best = i
    return best


def game_value(card: str) -> int:
    """The card's contribution to the game count (A 4, K 3, Q 2, J 1, T 10, joker 1)."""
    return GAME_VALUE[CARD_INDEX[card]]


@cache
def point_cards(trump: str, variant: str) -> tuple[str, ...]:
    """The cards whose point goes to the trick's winner once `trump` is known: the jacks
    among the trumps (the right and the left bauer, or the one jack), then the jokers."""
    return tuple(CARD_NAMES[c] for c in _trumps(trump, variant).captured)


def is_capturable_point(card: str, trump: str | None, variant: str) -> bool:
    """Point cards that go to the trick's winner: the jacks of trump and the jokers.

    High and low are not in this list: they go to whoever *played* the card, so a bot
    cannot capture them, only be sure to play its own.
    """
    if is_joker(card):
        return True
    return trump is not None and card in point_cards(trump, variant)
