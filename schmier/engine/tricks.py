"""The trick rules, defined once: which cards a seat may play, and which card takes a trick.

The rules are the predicates at the top (`may_lead`, `may_follow`, `beats`), written as
the rules say them (docs/rules.md, "6. Play") over a trump suit's consequences
(`ranking.Trumps`: the trump order, the suit each card follows) and the house rules that
change trick play (`trump_anytime`, `joker_order`). Nothing plays tricks by asking them
card by card: `trick_rules` works them out once for every card into bit masks
(`TrickRules`), and everything that plays or weighs tricks reads those: the engine's
play (`play.py`), the bots' card sense (`cardsense.py`), and the search's tables,
playouts and endgame (`bots/`). A house rule that changes trick play is an argument of
`trick_rules` and a change to these predicates; `tests/test_trick_rules.py` pins every
table and every reader to the predicates, in every game under every house rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from .cards import CARD_COUNT, GAME_VALUE, JOKERS, mask_of
from .ranking import EFFECTIVE_SUITS, Trumps, trumps
from .state import Play, State
from .variants import VARIANT_TABLE

#: The suit led of a trick nobody has led yet.
NO_LEAD = -1

# --------------------------------------------------------------------------- the rules


def may_lead(t: Trumps, first_lead_trump: bool, first: bool, c: int) -> bool:
    """Any card may lead, except that the hand's very first lead is a natural trump
    where the game says so (`first_lead_trump`: the lead shows the secret trump)."""
    return not (first and first_lead_trump) or bool(t.naturals >> c & 1)


def may_follow(t: Trumps, trump_anytime: bool, led: int, c: int) -> bool:
    """What a seat that holds a card of the suit led may play: a card of that suit
    (trumps follow trump), or under `trump_anytime` a trump instead. A seat that holds
    none of the suit led may play any card (`playable`)."""
    return t.esuit[c] == led or (trump_anytime and bool(t.mask >> c & 1))


def may_take(t: Trumps, led: int, c: int) -> bool:
    """Only a card of the suit led, or a trump, can take a trick."""
    return t.esuit[c] == led or bool(t.mask >> c & 1)


def outranks(t: Trumps, joker_order: str | None, c: int, best: int) -> bool:
    """Whether `c`, played after `best`, ranks above it: the higher power. The two
    jokers rank alike; the later one ranks above the earlier only under `joker_order`
    "second_high" ("first_high": the one played first keeps the trick)."""
    p, q = t.power[c], t.power[best]
    if p != q:
        return p > q
    return joker_order == "second_high" and c in JOKERS and best in JOKERS


def beats(t: Trumps, joker_order: str | None, led: int, best: int, c: int) -> bool:
    """Whether `c`, played to a trick of effective suit `led` that `best` takes so far,
    takes it instead: the highest trump takes a trick, else the highest card of the
    suit led."""
    return may_take(t, led, c) and outranks(t, joker_order, c, best)


# --------------------------------------------------------------------------- the tables


@dataclass(frozen=True, slots=True, eq=False)
class TrickRules:
    """The trick rules of one game with one trump suit (or none yet) under one room's
    house rules, as look-ups on int cards and bit masks. One object per key
    (`trick_rules` is memoised), so it compares and hashes by identity."""

    #: The trump order these tables were worked out from.
    trumps: Trumps
    #: Cards in a trick: one per seat.
    seats: int
    #: Every card of the game, as a mask.
    deck: int
    #: The trump suit, -1 before trump is known.
    trump: int
    #: The trumps (high goes to who plays the highest), and the natural trumps among
    #: them (low goes to who plays the lowest).
    mask: int
    naturals: int
    #: For each effective suit, the cards that follow it (`follow[trump] == mask`).
    follow: tuple[int, ...]
    esuit: tuple[int, ...]
    power: tuple[int, ...]
    #: The cards whose point goes to the side that takes their trick, in point order.
    specials: tuple[int, ...]
    #: Each card's count towards game (`cards.GAME_VALUE`).
    game: tuple[int, ...]
    #: The cards the hand's first lead may be (`may_lead`).
    first_lead: int
    #: ``following[led]``: what a seat holding a card of `led` may play (`may_follow`).
    following: tuple[int, ...]
    #: ``beaters[led][best]``: the cards that take a trick of effective suit `led` from
    #: `best`, its winner so far (`beats`, for every card at once).
    beaters: tuple[tuple[int, ...], ...]


@cache
def trick_rules(
    variant: str, trump: int | None, trump_anytime: bool, joker_order: str | None
) -> TrickRules:
    """The tables of `variant` with `trump` (a suit index, None before trump) under the
    house rules that change trick play: each predicate above asked once per card.
    Memoised: a few dozen keys at most, a millisecond or two each."""
    v = VARIANT_TABLE[variant]
    t = trumps(variant, trump)
    deck = v.deck
    first_lead = mask_of(c for c in deck if may_lead(t, v.first_lead_trump, True, c))
    following = tuple(
        mask_of(c for c in deck if may_follow(t, trump_anytime, led, c))
        for led in range(EFFECTIVE_SUITS)
    )
    return TrickRules(
        trumps=t,
        seats=v.seats,
        deck=mask_of(deck),
        trump=t.suit,
        mask=t.mask,
        naturals=t.naturals,
        follow=t.follow,
        esuit=t.esuit,
        power=t.power,
        specials=t.captured,
        game=GAME_VALUE,
        first_lead=first_lead,
        following=following,
        beaters=_beaters(variant, trump, joker_order),
    )


@cache
def _beaters(
    variant: str, trump: int | None, joker_order: str | None
) -> tuple[tuple[int, ...], ...]:
    """`TrickRules.beaters` (the same with and without `trump_anytime`, so built once
    for both): beats = may_take and outranks, each part asked once per card (or pair of
    cards), the rows their intersections."""
    t = trumps(variant, trump)
    deck = VARIANT_TABLE[variant].deck
    takers = [mask_of(c for c in deck if may_take(t, led, c)) for led in range(EFFECTIVE_SUITS)]
    above = [0] * CARD_COUNT
    for best in deck:
        above[best] = mask_of(c for c in deck if outranks(t, joker_order, c, best))
    return tuple(
        tuple(takers[led] & above[best] for best in range(CARD_COUNT))
        for led in range(EFFECTIVE_SUITS)
    )


def of_state(state: State) -> TrickRules:
    """The trick rules of a game in progress (its trump named)."""
    rules = state.rules
    return trick_rules(state.variant.name, state.trump, rules.trump_anytime, rules.joker_order)


def of_view(variant: str, trump: int | None, rules: Mapping[str, Any]) -> TrickRules:
    """The trick rules a seat plays by, from its view: the game, the trump it knows
    (None: none yet) and the view's `rules` object (the protocol's names)."""
    return trick_rules(variant, trump, bool(rules.get("trump_anytime")), rules.get("joker_order"))


# --------------------------------------------------------------------------- reading them


def playable(tr: TrickRules, hand: int, led: int, first: bool) -> int:
    """The cards of `hand` that may be played to a trick of effective suit `led`
    (`NO_LEAD`: leading; `first`: the hand's first lead)."""
    if led == NO_LEAD:
        return hand & tr.first_lead if first else hand
    if hand & tr.follow[led]:
        return hand & tr.following[led]
    return hand


def taking(tr: TrickRules, plays: Sequence[Play]) -> Play:
    """The play (seat, card) that takes the trick `plays` so far."""
    win = plays[0]
    row = tr.beaters[tr.esuit[win[1]]]
    for play in plays[1:]:
        if row[win[1]] >> play[1] & 1:
            win = play
    return win


def winner(tr: TrickRules, plays: Sequence[Play]) -> int:
    """The seat that takes the trick `plays`."""
    return taking(tr, plays)[0]
