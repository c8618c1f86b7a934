"""The rollout policy: how every seat plays in a world the search imagines.

A world is fully known (it is one guess at the hidden cards), so these rules of thumb
may look at every hand: take a trick with the cheapest card that surely keeps it, put
points (jacks, jokers, tens, the low trump) on a trick the side surely takes, lead the
boss trump while the enemy still holds trumps, otherwise shed the cheapest card. Better
rollouts make the search's averages closer to how the hand will really go; cheap ones
allow more of them, so this stays a few mask operations per card.
"""

from __future__ import annotations

from collections.abc import Sequence

from .tables import Tab, bits
from .tricks import beats, playable


def _cost(tb: Tab, c: int) -> int:
    """What a card is worth keeping or giving away: points first, then power."""
    special = c in tb.specials
    return tb.game[c] * 8 + (300 if special else 0) + tb.power[c]


def _beaten_later(
    tb: Tab,
    hands: list[int],
    later: Sequence[int],
    led: int,
    card: int,
    pow_: int,
) -> bool:
    """Whether one of `later` can take the trick from `card` with a legal card."""
    for s in later:
        for c in bits(playable(tb, hands[s], led, False)):
            if beats(tb, c, led, card, pow_):
                return True
    return False


def pick(
    tb: Tab,
    hands: list[int],
    seat: int,
    legal: int,
    trick: Sequence[tuple[int, int]],
    led: int,
    win_seat: int,
    win_card: int,
    win_pow: int,
    side_of: Sequence[int],
) -> int:
    """The card `seat` plays in the rollout (`legal` holds at least two)."""
    n = tb.seats
    mine = side_of[seat]
    cards = bits(legal)
    power = tb.power
    if led < 0:
        return _lead(tb, hands, seat, cards, side_of)
    left = n - len(trick) - 1
    later = [(seat + k) % n for k in range(1, left + 1)]
    foes = [s for s in later if side_of[s] != mine]
    if side_of[win_seat] == mine:
        if not _beaten_later(tb, hands, foes, led, win_card, win_pow):
            # A sure trick of the side: smear the points, or the low trump, on it.
            return max(cards, key=lambda c: _smear(tb, c))
        return min(cards, key=lambda c: _cost(tb, c))
    winners = [c for c in cards if beats(tb, c, led, win_card, win_pow)]
    if winners:
        sure = [c for c in winners if not _beaten_later(tb, hands, foes, led, c, power[c])]
        if sure:
            return min(sure, key=lambda c: power[c])
        stake = sum(tb.game[c] + (10 if c in tb.specials else 0) for _, c in trick)
        if stake >= 10:
            cheap = min(winners, key=lambda c: _cost(tb, c))
            if cheap not in tb.specials:
                return cheap
    return min(cards, key=lambda c: _cost(tb, c))


def _smear(tb: Tab, c: int) -> int:
    """How much a card is worth putting on the side's sure trick."""
    value = tb.game[c] * 10 + (200 if c in tb.specials else 0) - tb.power[c]
    if tb.naturals >> c & 1:
        value -= 60 if tb.power[c] > 102 else -30  # keep big trumps, dump the small ones
    return value


def _lead(tb: Tab, hands: list[int], seat: int, cards: list[int], side_of: Sequence[int]) -> int:
    """The boss trump while the enemy has trumps, else a side ace nobody can beat or
    ruff, else the cheapest side card (tens kept), else the cheapest trump."""
    power = tb.power
    mine = side_of[seat]
    foes = [h for s, h in enumerate(hands) if side_of[s] != mine]
    foe_trumps = 0
    for h in foes:
        foe_trumps |= h & tb.mask
    trumps = [c for c in cards if tb.mask >> c & 1]
    if trumps and foe_trumps:
        best = max(trumps, key=lambda c: power[c])
        if all(power[best] > power[c] for c in bits(foe_trumps)):
            return best
    side = [c for c in cards if not tb.mask >> c & 1]
    if not side:
        return min(trumps, key=lambda c: _cost(tb, c))
    for c in side:
        if c % 13 >= 11 and _boss_side_card(tb, foes, c):
            return c
    return min(side, key=lambda c: tb.game[c] * 8 + power[c])


def _boss_side_card(tb: Tab, foes: list[int], c: int) -> bool:
    """Whether no enemy holds a higher card of `c`'s suit or can ruff it."""
    follow = tb.follow[tb.esuit[c]]
    for h in foes:
        suit = h & follow
        if not suit and h & tb.mask:
            return False
        if any(tb.power[o] > tb.power[c] for o in bits(suit)):
            return False
    return True
