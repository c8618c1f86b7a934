"""The heuristic's discards and, where the bidder calls a partner, its call."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..cardsense import is_trump, plain_power, trump_power
from .reading import Answer, View, hand_of, rule_book, trump_of, variant_of


def _keep_value(card: str, hand: set[str], trump: str | None, variant: str, bank: bool) -> float:
    """How much a card is worth keeping through the discard; lowest goes first.

    Trumps above everything (by strength); then side aces, guarded tens and kings;
    junk last. With `bank` (a bidder whose discards count for game) an unguarded ten
    is better discarded than kept: it banks ten count that could otherwise be captured.
    """
    if is_trump(card, trump, variant):
        return 100.0 + trump_power(card, trump, variant)
    r = card[0]
    guarded = "A" + card[1] in hand
    if r == "A":
        return 40.0
    if r == "T":
        if bank and not guarded:
            return -1.0
        return 30.0 if guarded else 8.0
    if r == "K":
        return 20.0 if guarded else 10.0 + plain_power(card) / 100
    return plain_power(card)


def discard(view: View, template: Mapping[str, Any]) -> Answer:
    """Throw the weakest cards the template allows.

    A non-dealer who exchanges (``min`` 0, ``max`` up to 3) throws only its non-trumps
    that are not worth keeping, hoping to draw trumps instead; a dealer or a bidder
    discarding its kitty (``min`` == ``max``) throws exactly that many, weakest first.
    """
    variant = variant_of(view)
    hand = hand_of(view)
    held = set(hand)
    trump = trump_of(view)
    pool = [str(c) for c in template["from"]]
    lo, hi = int(template["min"]), int(template["max"])
    # Where only the bidder discards, its discards count for its side's game (docs/rules.md
    # step 4); the rule book says who discards, so that is what the bot goes by.
    bank = bool(rule_book(view)["banks_discards"])
    ranked = sorted(pool, key=lambda c: (_keep_value(c, held, trump, variant, bank), c))
    if lo == hi:
        count = lo
    else:
        weak = [c for c in ranked if _keep_value(c, held, trump, variant, bank) < 20.0]
        count = max(lo, min(hi, len(weak)))
    return {"type": "discard", "cards": ranked[:count]}


def call(view: View, cards: Sequence[Any]) -> Answer:
    """Call the highest trump the bidder lacks (a game with `called_partner`).

    The ace first: it is always in play where everyone draws, so calling it makes
    high a sure point for the side and puts the top trump on the bidder's side.
    Then the king, queen, the bauers and down the order (never a card it discarded
    itself, which would leave it alone); alone only if nothing callable is a trump.
    """
    trump = trump_of(view)
    variant = variant_of(view)
    # A card the bidder discarded is callable too, but calling it means playing alone.
    gone = {str(c) for c in view.get("my_discards") or ()}
    callable_cards = [str(c) for c in cards if c is not None and str(c) not in gone]
    if trump is not None:
        trumps = [c for c in callable_cards if is_trump(c, trump, variant)]
        if trumps:
            best = max(trumps, key=lambda c: trump_power(c, trump, variant))
            return {"type": "call", "card": best}
    return {"type": "call", "card": None}
