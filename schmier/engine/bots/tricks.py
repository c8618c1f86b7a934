"""Following suit and taking tricks on the search's int cards (docs/rules.md step 6)."""

from __future__ import annotations

from .tables import Tab


def playable(tb: Tab, hand: int, led: int, first_lead: bool) -> int:
    """The cards of `hand` that may be played: `led` is the effective suit led (-1 to
    lead); `first_lead` the hand's very first lead (a natural trump where the rule book
    says so)."""
    if led < 0:
        if first_lead and tb.first_lead_trump:
            return hand & tb.naturals
        return hand
    follow = hand & tb.follow[led]
    if not follow:
        return hand
    if tb.trump_anytime:
        return follow | (hand & tb.mask)
    return follow


def beats(tb: Tab, c: int, led: int, best_card: int, best_pow: int) -> bool:
    """Whether `c`, played now, takes the trick from `best_card` (of power `best_pow`)."""
    e = tb.esuit[c]
    if e != led and e != tb.trump:
        return False
    p = tb.power[c]
    return p > best_pow or (p == best_pow and tb.second_high and c >= 52 and best_card >= 52)
