"""The search's card tables: a rule book and a trump suit turned into int look-ups.

The search plays tens of thousands of cards per decision, so it cannot afford the card
strings the heuristic reads. Here the rule book (``engine.describe``, public) and the
view's house rules become one `Tab`: cards as the protocol's card index (``AS`` and
friends, the names' positions in `CARD_NAMES`), the trumps as a bit mask, the power of
every card, the suit each card follows. Everything is derived from the rule book, never
from the game's name, and memoised (a few dozen keys at most).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..cards import CARD_INDEX, GAME_VALUE, SUITS
from ..description import describe

#: Natural trumps have a power above this, jokers exactly this, side cards their rank.
TRUMP_POWER = 100


@dataclass(frozen=True, slots=True)
class Tab:
    """One game with one trump suit (or none yet) under one room's house rules."""

    seats: int
    deck: int
    #: The trump suit's index in `SUITS`, -1 before trump is known.
    trump: int
    mask: int
    #: The trumps that are not jokers (the low point is the lowest of these in play).
    naturals: int
    #: For each effective suit, the cards that follow it (`follow[trump] == mask`).
    follow: tuple[int, int, int, int]
    esuit: tuple[int, ...]
    power: tuple[int, ...]
    #: The cards whose point goes to the side that wins their trick, in point order.
    specials: tuple[int, ...]
    game: tuple[int, ...]
    trump_anytime: bool
    #: Two jokers in one trick: the later one wins (`joker_order` "second_high").
    second_high: bool
    first_lead_trump: bool
    #: Trumps a Schmier dealer may never discard (ace, bauers, the low trump, jokers).
    protected: int
    #: The top natural trumps, highest first (for calls and rough hand values).
    order: tuple[int, ...]
    #: The rollout policy's look-ups, worked out once per table (`policy`): the
    #: specials as a mask and each card's place among them (-1 for others) ...
    spec_mask: int
    spec_index: tuple[int, ...]
    #: ... what each card costs to give away and is worth smeared on a sure trick ...
    cost: tuple[int, ...]
    smear: tuple[int, ...]
    #: ... ``beaters[led][c]``: the cards that take a trick of effective suit `led`
    #: from `c`, its winner so far (`tricks.beats` for every card at once) ...
    beaters: tuple[tuple[int, ...], ...]
    #: ... and the cards of higher power than each card, and the trumps of at least
    #: its power (the boss trump is the one no enemy trump reaches).
    above: tuple[int, ...]
    reach: tuple[int, ...]


def card_int(name: str) -> int:
    return CARD_INDEX[name]


def mask_of_names(names: object) -> int:
    m = 0
    for c in names:  # type: ignore[attr-defined]
        m |= 1 << CARD_INDEX[str(c)]
    return m


@cache
def tab(variant: str, trump: str | None, trump_anytime: bool, joker_order: str | None) -> Tab:
    """The tables of `variant` with `trump` (a suit letter, or None before trump)."""
    book = describe(variant)
    deck = [CARD_INDEX[c] for c in book["deck"]]
    jokers = [CARD_INDEX[c] for c in book["jokers"]]
    power = [-1] * 54
    esuit = [-1] * 54
    for c in deck:
        if c < 52:
            power[c] = c % 13
            esuit[c] = c // 13
    t = -1 if trump is None else SUITS.index(trump)
    mask, order, specials, protected = _trumps(book, trump, power, esuit)
    follow = [0, 0, 0, 0]
    for c in deck:
        if 0 <= esuit[c] < 4:
            follow[esuit[c]] |= 1 << c
    naturals = mask
    for j in jokers:
        naturals &= ~(1 << j)
    rollout = _rollout_tables(deck, t, mask, naturals, power, esuit, specials, joker_order)
    return Tab(
        seats=int(book["seats"]),
        deck=sum(1 << c for c in deck),
        trump=t,
        mask=mask,
        naturals=naturals,
        follow=(follow[0], follow[1], follow[2], follow[3]),
        esuit=tuple(esuit),
        power=tuple(power),
        specials=tuple(specials),
        game=GAME_VALUE,
        trump_anytime=trump_anytime,
        second_high=joker_order == "second_high",
        first_lead_trump=bool(book["first_lead_trump"]),
        protected=protected,
        order=tuple(order),
        **rollout,
    )


def _rollout_tables(
    deck: list[int],
    trump: int,
    mask: int,
    naturals: int,
    power: list[int],
    esuit: list[int],
    specials: list[int],
    joker_order: str | None,
) -> dict[str, Any]:
    """The rollout policy's per-card look-ups (see `Tab`), so that a rollout card is
    a few mask operations instead of loops over cards."""
    spec_mask = sum(1 << c for c in specials)
    spec_index = [-1] * 54
    for i, c in enumerate(specials):
        spec_index[c] = i
    cost = [0] * 54
    smear = [0] * 54
    for c in deck:
        special = spec_mask >> c & 1
        cost[c] = GAME_VALUE[c] * 8 + (300 if special else 0) + power[c]
        value = GAME_VALUE[c] * 10 + (200 if special else 0) - power[c]
        if naturals >> c & 1:
            value -= 60 if power[c] > TRUMP_POWER + 2 else -30  # keep big trumps, dump small
        smear[c] = value
    above = [0] * 54
    reach = [0] * 54
    for c in deck:
        for x in deck:
            if power[x] > power[c]:
                above[c] |= 1 << x
        reach[c] = mask & (above[c] | sum(1 << x for x in deck if power[x] == power[c]))
    beaters = _beaters(deck, trump, power, esuit, above, joker_order == "second_high")
    return {
        "spec_mask": spec_mask,
        "spec_index": tuple(spec_index),
        "cost": tuple(cost),
        "smear": tuple(smear),
        "beaters": beaters,
        "above": tuple(above),
        "reach": tuple(reach),
    }


def _trumps(
    book: Mapping[str, Any], trump: str | None, power: list[int], esuit: list[int]
) -> tuple[int, list[int], list[int], int]:
    """Rank the trumps of `trump` into `power` and `esuit`; the trumps' mask, the
    natural trumps highest first, the point cards taken with their trick, and the
    trumps a dealer may never discard."""
    jokers = [CARD_INDEX[c] for c in book["jokers"]]
    for j in jokers:
        power[j] = TRUMP_POWER
        esuit[j] = 4  # a suit of their own until trump is known
    if trump is None:
        return 0, [], [], 0
    t = SUITS.index(trump)
    names = book["trump_order"][trump]
    order = [CARD_INDEX[c] for c in names if c[0] != "X"]
    for i, c in enumerate(order):
        power[c] = TRUMP_POWER + len(order) - i
        esuit[c] = t
    for j in jokers:
        esuit[j] = t
    mask = sum(1 << CARD_INDEX[c] for c in names)
    specials = [CARD_INDEX[c] for c in names if c[0] == "J"]
    specials += [CARD_INDEX[c] for c in names if c[0] == "X"]
    protected = (1 << order[0]) | (1 << CARD_INDEX[book["low_rank"] + trump])
    for c in specials:
        protected |= 1 << c
    return mask, order, specials, protected


def _beaters(
    deck: list[int],
    trump: int,
    power: list[int],
    esuit: list[int],
    above: list[int],
    second_high: bool,
) -> tuple[tuple[int, ...], ...]:
    """``[led][best]``: the cards that take a trick of effective suit `led` from
    `best`, its winner so far (what `tricks.beats` says of every card at once): a
    higher card of the suit led or of trump, or under `joker_order` "second_high" the
    other joker."""
    suits = [0] * 5
    for c in deck:
        suits[esuit[c]] |= 1 << c
    trumps = suits[trump] if trump >= 0 else 0
    jokers = sum(1 << c for c in deck if c >= 52)
    rows = []
    for led in range(5):
        row = [0] * 54
        for best in deck:
            higher = above[best]
            if second_high and best >= 52:
                higher |= sum(1 << x for x in bits(jokers) if power[x] == power[best])
            row[best] = higher & (suits[led] | trumps)
        rows.append(tuple(row))
    return tuple(rows)


def bits(mask: int) -> list[int]:
    """The cards of a mask, lowest index first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
