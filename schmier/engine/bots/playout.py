"""The search's trick play: one determinized world played to its scoring, fast.

A world is every seat's hand as a bit mask plus what the hand has earned so far
(`Tally`). `play_out` plays it to the last trick, each card chosen by the rollout
policy (`policy.pick`, cheap rules of thumb that see the whole world: it is a
determinized world, nobody's secret) or uniformly at random, and `outcome` scores it
as the engine does (docs/rules.md, steps 7 and 8). Who may play what and who takes a trick
are the engine's trick rules (`tricks.TrickRules`, which `Tab` extends), read inline
from their tables so that a card costs a few mask operations; `tests/test_trick_rules.py`
pins the loop to the rules' definition and `tests/test_bots_search.py` plays random
games through it and the engine to the same score.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..dealing import HAND_SIZE
from ..tricks import NO_LEAD, taking
from .policy import foes_after, pick
from .race import Race
from .tables import Tab


class Tally:
    """What a hand has earned so far: high and low (who played them), the winners of
    the tricks holding the jacks and jokers, and each seat's count towards game."""

    __slots__ = ("cap", "game", "high_pow", "high_seat", "low_pow", "low_seat")

    def __init__(self, seats: int, specials: int) -> None:
        self.high_pow = -1
        self.high_seat = -1
        self.low_pow = 1 << 20
        self.low_seat = -1
        self.game = [0] * seats
        self.cap = [-1] * specials

    def copy(self) -> Tally:
        out = Tally.__new__(Tally)
        out.high_pow = self.high_pow
        out.high_seat = self.high_seat
        out.low_pow = self.low_pow
        out.low_seat = self.low_seat
        out.game = self.game[:]
        out.cap = self.cap[:]
        return out

    def count_trick(self, tb: Tab, plays: Sequence[tuple[int, int]], winner: int) -> None:
        """Book one finished trick (used for the tricks a view already shows)."""
        for seat, c in plays:
            self.card_played(tb, seat, c)
            self.game[winner] += tb.game[c]
            if tb.mask >> c & 1 and c in tb.specials:
                self.cap[tb.specials.index(c)] = winner

    def card_played(self, tb: Tab, seat: int, c: int) -> None:
        if tb.mask >> c & 1:
            p = tb.power[c]
            if p > self.high_pow:
                self.high_pow, self.high_seat = p, seat
            if tb.naturals >> c & 1 and p < self.low_pow:
                self.low_pow, self.low_seat = p, seat


def play_out(  # noqa: C901 - the hot loop: one function, so that its names stay locals
    tb: Tab,
    hands: list[int],
    trick: list[tuple[int, int]],
    turn: int,
    done: int,
    tally: Tally,
    side_of: Sequence[int],
    rng: random.Random,
    smart: bool = True,
) -> None:
    """Play the world to the end of the hand, changing `hands` and `tally` in place.

    `trick` is the trick in progress (seat, card), `turn` the seat to play, `done` the
    tricks finished. `smart` picks the rollout policy, else uniform random cards.
    """
    n = tb.seats
    esuit = tb.esuit
    power = tb.power
    game = tb.game
    tmask = tb.mask
    naturals = tb.naturals
    follow = tb.follow
    following = tb.following
    first_lead = tb.first_lead
    beaters = tb.beaters
    spec_mask = tb.spec_mask
    spec_index = tb.spec_index
    cap = tally.cap
    won = tally.game
    high_pow, high_seat = tally.high_pow, tally.high_seat
    low_pow, low_seat = tally.low_pow, tally.low_seat
    rnd = rng.random
    trick = list(trick)
    if trick:
        led = esuit[trick[0][1]]
        win_seat, win_card = taking(tb, trick)
    else:
        led = win_seat = win_card = NO_LEAD
    after = foes_after(tuple(side_of)) if smart else ()
    seat = turn
    while done < HAND_SIZE:
        hand = hands[seat]
        # tricks.playable, inline: the first lead, following, or any card.
        if led == NO_LEAD:
            legal = hand & first_lead if done == 0 else hand
        elif hand & follow[led]:
            legal = hand & following[led]
        else:
            legal = hand
        if legal & (legal - 1) == 0:
            c = legal.bit_length() - 1
        elif smart:
            foes = after[seat][len(trick)]
            c = pick(tb, hands, seat, legal, trick, led, win_seat, win_card, side_of, foes)
        else:
            k = int(rnd() * legal.bit_count())
            while k:
                legal &= legal - 1
                k -= 1
            c = (legal & -legal).bit_length() - 1
        hands[seat] = hand ^ (1 << c)
        trick.append((seat, c))
        if tmask >> c & 1:  # high and low: the highest trump, the lowest natural one
            p = power[c]
            if p > high_pow:
                high_pow, high_seat = p, seat
            if p < low_pow and naturals >> c & 1:
                low_pow, low_seat = p, seat
        # tricks.taking, inline: the first card, or one that beats the winner so far.
        if led == NO_LEAD:
            led, win_seat, win_card = esuit[c], seat, c
        elif beaters[led][win_card] >> c & 1:
            win_seat, win_card = seat, c
        if len(trick) == n:
            g = 0
            for _, tc in trick:
                g += game[tc]
                if spec_mask >> tc & 1:
                    cap[spec_index[tc]] = win_seat
            won[win_seat] += g
            done += 1
            seat = win_seat
            trick = []
            led = win_seat = win_card = NO_LEAD
        else:
            seat += 1
            if seat == n:
                seat = 0
    tally.high_pow, tally.high_seat = high_pow, high_seat
    tally.low_pow, tally.low_seat = low_pow, low_seat


def outcome(tally: Tally, side_of: Sequence[int], sides: int, bid: int, bank: int) -> list[int]:
    """The score change of each side (side 0 is the bidder's) of a finished hand.

    `bank` is the count of the bidder's discards where they count for its side's game.
    """
    pts = [0] * sides
    if tally.high_seat >= 0:
        pts[side_of[tally.high_seat]] += 1
    if tally.low_seat >= 0:
        pts[side_of[tally.low_seat]] += 1
    for w in tally.cap:
        if w >= 0:
            pts[side_of[w]] += 1
    totals = [0] * sides
    for seat, g in enumerate(tally.game):
        totals[side_of[seat]] += g
    totals[0] += bank
    best = max(totals)
    if totals.count(best) == 1:
        pts[totals.index(best)] += 1
    if pts[0] < bid:
        pts[0] = -bid
    return pts


def utility(
    deltas: Sequence[int], side_of: Sequence[int], me: int, race: Race | None = None
) -> float:
    """How good a hand's score changes are for `me`: its own change against the
    table's average change per seat (what winning a race to the target rewards), and
    the game won or lost when this hand can end it (`race`)."""
    mean = sum(deltas[s] for s in side_of) / len(side_of)
    value = deltas[side_of[me]] - mean
    if race is not None:
        value += race.settle(deltas, side_of, me)
    return value
