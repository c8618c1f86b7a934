"""The search's card tables: the engine's trick rules plus the rollout policy's look-ups.

The search plays tens of thousands of cards per decision, so it cannot afford the card
strings the heuristic reads. A `Tab` is the engine's `tricks.TrickRules` of one game,
trump suit and room's house rules (who may play what, who takes a trick, the trump
order, the point cards: the same tables the engine plays by) with what the rollout
policy weighs worked out once from them: costs, the higher cards, the trumps that reach
a card. Cards are the protocol's card index (``AS`` and friends, the names' positions
in `CARD_NAMES`). Memoised by the trick rules (a few dozen keys at most).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache
from typing import Any

from ..cards import CARD_COUNT, CARD_INDEX, GAME_VALUE
from ..ranking import TRUMP_BASE
from ..tricks import TrickRules


@dataclass(frozen=True, slots=True, eq=False)
class Tab(TrickRules):
    """The trick rules of one game with one trump suit (or none yet) under one room's
    house rules, and the search's own look-ups."""

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
def tab(rules: TrickRules) -> Tab:
    """The search's tables for the trick rules `rules` (`tricks.trick_rules`)."""
    common = {f.name: getattr(rules, f.name) for f in fields(TrickRules)}
    return Tab(
        **common,
        protected=rules.trumps.protected,
        order=rules.trumps.order,
        **_rollout_tables(rules),
    )


def _rollout_tables(rules: TrickRules) -> dict[str, Any]:
    """The rollout policy's per-card look-ups (see `Tab`), so that a rollout card is
    a few mask operations instead of loops over cards."""
    deck = bits(rules.deck)
    power = rules.power
    specials = rules.specials
    spec_mask = sum(1 << c for c in specials)
    spec_index = [-1] * CARD_COUNT
    for i, c in enumerate(specials):
        spec_index[c] = i
    cost = [0] * CARD_COUNT
    smear = [0] * CARD_COUNT
    for c in deck:
        special = spec_mask >> c & 1
        cost[c] = GAME_VALUE[c] * 8 + (300 if special else 0) + power[c]
        value = GAME_VALUE[c] * 10 + (200 if special else 0) - power[c]
        if rules.naturals >> c & 1:
            value -= 60 if power[c] > TRUMP_BASE + 2 else -30  # keep big trumps, dump small
        smear[c] = value
    above = [0] * CARD_COUNT
    reach = [0] * CARD_COUNT
    for c in deck:
        for x in deck:
            if power[x] > power[c]:
                above[c] |= 1 << x
        reach[c] = rules.mask & (above[c] | sum(1 << x for x in deck if power[x] == power[c]))
    return {
        "spec_mask": spec_mask,
        "spec_index": tuple(spec_index),
        "cost": tuple(cost),
        "smear": tuple(smear),
        "above": tuple(above),
        "reach": tuple(reach),
    }


def bits(mask: int) -> list[int]:
    """The cards of a mask, lowest index first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
