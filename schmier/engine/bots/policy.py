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
from functools import cache

from ..tricks import playable
from .tables import Tab, bits


def _beaten_later(
    tb: Tab,
    hands: list[int],
    later: Sequence[int],
    led: int,
    card: int,
) -> bool:
    """Whether one of `later` can take the trick from `card`, its winner so far, with a
    legal card."""
    beaters = tb.beaters[led][card]
    for s in later:  # noqa: SIM110 - the rollouts' hot path: a loop beats any() here
        if playable(tb, hands[s], led, False) & beaters:
            return True
    return False


@cache
def foes_after(side_of: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``foes_after(side_of)[seat][played]``: the enemies of `seat` still to play after
    it in a trick that held `played` cards before its own (the same for every card of
    a hand, so `play_out` looks it up once)."""
    n = len(side_of)
    return tuple(
        tuple(
            tuple(
                s
                for s in ((seat + k) % n for k in range(1, n - played))
                if side_of[s] != side_of[seat]
            )
            for played in range(n)
        )
        for seat in range(n)
    )


def pick(
    tb: Tab,
    hands: list[int],
    seat: int,
    legal: int,
    trick: Sequence[tuple[int, int]],
    led: int,
    win_seat: int,
    win_card: int,
    side_of: Sequence[int],
    foes: Sequence[int],
) -> int:
    """The card `seat` plays in the rollout (`legal` holds at least two); `foes` are
    its enemies still to play in this trick (`foes_after`).

    Ties of cost or power go to the lowest card index, as `min` and `max` over `bits`
    give.
    """
    cost = tb.cost.__getitem__
    if led < 0:
        return _lead(tb, hands, seat, legal, side_of)
    if side_of[win_seat] == side_of[seat]:
        if not _beaten_later(tb, hands, foes, led, win_card):
            # A sure trick of the side: smear the points, or the low trump, on it.
            return max(bits(legal), key=tb.smear.__getitem__)
        return min(bits(legal), key=cost)
    taking = legal & tb.beaters[led][win_card]
    if taking:
        winners = bits(taking)
        sure = [c for c in winners if not _beaten_later(tb, hands, foes, led, c)]
        if sure:
            return min(sure, key=tb.power.__getitem__)
        spec = tb.spec_mask
        stake = sum(tb.game[c] + (10 if spec >> c & 1 else 0) for _, c in trick)
        if stake >= 10:
            cheap = min(winners, key=cost)
            if not spec >> cheap & 1:
                return cheap
    return min(bits(legal), key=cost)


def _lead(tb: Tab, hands: list[int], seat: int, legal: int, side_of: Sequence[int]) -> int:
    """The boss trump while the enemy has trumps, else a side ace nobody can beat or
    ruff, else the cheapest side card (tens kept), else the cheapest trump."""
    power = tb.power
    mine = side_of[seat]
    foes = [h for s, h in enumerate(hands) if side_of[s] != mine]
    foe_trumps = 0
    for h in foes:
        foe_trumps |= h & tb.mask
    trumps = legal & tb.mask
    if trumps and foe_trumps:
        best = max(bits(trumps), key=power.__getitem__)
        if not foe_trumps & tb.reach[best]:
            return best
    side = legal & ~tb.mask
    if not side:
        return min(bits(trumps), key=tb.cost.__getitem__)
    cards = bits(side)
    for c in cards:
        if c % 13 >= 11 and _boss_side_card(tb, foes, c):
            return c
    return min(cards, key=tb.cost.__getitem__)  # a side card is never a special


def _boss_side_card(tb: Tab, foes: list[int], c: int) -> bool:
    """Whether no enemy holds a higher card of `c`'s suit or can ruff it."""
    follow = tb.follow[tb.esuit[c]]
    above = tb.above[c]
    for h in foes:
        suit = h & follow
        if not suit and h & tb.mask:
            return False
        if suit & above:
            return False
    return True
