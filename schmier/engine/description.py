"""A game described as data, for everybody outside the engine: the client, the bots, any
other program speaking the protocol.

The engine is the one place that knows what makes the three games differ; this module
publishes what a table needs to know (the deck, the sides, the points in the order they
are reported, the trump order for every suit, who discards, the house rules and their
ranges) so that nothing outside it ever asks which game it is by name. It is served once
at `GET /api/variants`; a bot reads it from the same function. None of it is secret: it
is the rule book, the same for every player.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .cards import CARD_NAMES, GAME_VALUE, RANKS, SUITS
from .ranking import trumps
from .variants import VARIANTS, get_variant, rule_specs


def _trump_order(variant: str, suit: int) -> list[str]:
    """The trumps of `suit` from the highest to the lowest (two jokers: X1 first)."""
    t = trumps(variant, suit)
    cards = [c for c in get_variant(variant).deck if t.mask >> c & 1]
    return [CARD_NAMES[c] for c in sorted(cards, key=lambda c: (-t.power[c], c))]


@cache
def describe(variant: str) -> dict[str, Any]:
    """The rule book of `variant` as JSON-ready data (RulesError for an unknown game).

    Fields:

    - `name`, `seats`, `teams` (the scoring units, as the view's `teams`),
      `fixed_teams` (false: sides are made anew each hand, bidder and called partner
      against the rest), `called_partner` (the bidder calls a partner by a card);
    - `deck` (every card, canonical order), `jokers`, `low_rank` (the rank that earns
      low, the bottom of the trump order), `left_bauer` (the jack of the same colour is
      a trump);
    - `trump_order`: for each suit letter, its trumps from highest to lowest;
      `plain_order`: the ranks of a suit that is not trump, highest first;
    - `bids`: `{"min", "max"}`; `points`: the point names in the order they are reported;
      `card_values`: what each card that counts towards the point "game" is worth (the
      client's running tally of a hand, its rules page);
    - `discards`: `"all"` (everyone but the dealer exchanges, then the dealer discards
      down to six) or `"bidder"` (only the bidder, who took the kitty); `kitty` (the
      bidder takes undealt cards), `banks_discards` (the bidder's discards count towards
      the bidder's side's game), `secret_trump` (trump is committed privately and shown
      by the first lead), `first_lead_trump` (the first lead must be a natural trump);
    - `rules`: the house rules of the game, each `{"name", "type": "int" | "bool" |
      "choice", "default"}` plus `min`/`max` or `choices`, and for an int rule that a
      value outside its range turns off (`turn_seconds`: 0), that value as `off`.

    Cached: the result is shared, so callers must not change it.
    """
    v = get_variant(variant)
    low = v.low_rank
    return {
        "name": v.name,
        "seats": v.seats,
        "teams": [list(t) for t in v.teams],
        "fixed_teams": not v.called_partner,
        "called_partner": v.called_partner,
        "deck": [CARD_NAMES[c] for c in v.deck],
        "jokers": [CARD_NAMES[c] for c in v.jokers],
        "low_rank": RANKS[low],
        "left_bauer": v.left_bauer,
        "trump_order": {SUITS[s]: _trump_order(v.name, s) for s in range(4)},
        "plain_order": list(reversed(RANKS[low:])),
        "bids": {"min": v.min_bid, "max": v.max_bid},
        "points": list(v.points),
        "card_values": {CARD_NAMES[c]: GAME_VALUE[c] for c in v.deck if GAME_VALUE[c]},
        "discards": v.discards,
        "banks_discards": v.bidder_banks_discards,
        "kitty": v.kitty,
        "secret_trump": v.secret_trump,
        "first_lead_trump": v.first_lead_trump,
        "rules": [spec.describe(v.name) for spec in rule_specs(v.name)],
    }


def describe_all() -> list[dict[str, Any]]:
    """Every game's rule book, in the order of `VARIANTS`."""
    return [describe(name) for name in VARIANTS]
