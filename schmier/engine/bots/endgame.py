"""Exact play of the last tricks of one world: every line of play, the best for each side.

Near the end of a hand few cards are left and every ordering can be tried, so the
search stops guessing with rollouts there and solves each world it sampled exactly:
the viewer's side picks its best card, every other seat the card worst for the viewer
(paranoid: the others are assumed to play together against it, which is what the
bidder faces and a cautious defender assumes). Alpha-beta keeps it small.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..dealing import HAND_SIZE
from ..tricks import NO_LEAD, playable, winner
from .playout import Tally, outcome, utility
from .race import Race
from .tables import Tab, bits

#: Solve exactly when at most this many cards are left in the hand of the seat to play.
EXACT_CARDS = 2


def exact_cards(seats: int) -> int:
    """Cards left per hand from which a world is solved exactly (4 seats: one more)."""
    return EXACT_CARDS + 1 if seats <= 4 else EXACT_CARDS


class Solver:
    """The fixed parts of one world's solve: tables, sides, the bid, the viewer."""

    def __init__(
        self,
        tb: Tab,
        side_of: Sequence[int],
        bid: int,
        bank: int,
        me: int,
        race: Race | None = None,
    ) -> None:
        self.tb = tb
        self.race = race
        self.side_of = side_of
        self.sides = max(side_of) + 1
        self.bid = bid
        self.bank = bank
        self.me = me
        self.mine = side_of[me]

    def value(
        self,
        hands: list[int],
        trick: list[tuple[int, int]],
        seat: int,
        done: int,
        tally: Tally,
        alpha: float,
        beta: float,
    ) -> float:
        """The viewer's utility with best play from here by every seat."""
        tb = self.tb
        if done == HAND_SIZE:
            deltas = outcome(tally, self.side_of, self.sides, self.bid, self.bank)
            return utility(deltas, self.side_of, self.me, self.race)
        led = tb.esuit[trick[0][1]] if trick else NO_LEAD
        legal = playable(tb, hands[seat], led, done == 0)
        maximise = self.side_of[seat] == self.mine
        best = -1e9 if maximise else 1e9
        for c in bits(legal):
            v = self.after(hands, trick, seat, done, tally, c, alpha, beta)
            if maximise:
                if v > best:
                    best = v
                alpha = max(alpha, v)
            else:
                if v < best:
                    best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        return best

    def after(
        self,
        hands: list[int],
        trick: list[tuple[int, int]],
        seat: int,
        done: int,
        tally: Tally,
        c: int,
        alpha: float = -1e9,
        beta: float = 1e9,
    ) -> float:
        """The viewer's utility once `seat` has played `c`, best play after that."""
        tb = self.tb
        hands = hands[:]
        hands[seat] ^= 1 << c
        trick = [*trick, (seat, c)]
        if len(trick) < tb.seats:
            return self.value(hands, trick, (seat + 1) % tb.seats, done, tally, alpha, beta)
        w_seat = winner(tb, trick)
        t2 = tally.copy()
        t2.count_trick(tb, trick, w_seat)
        return self.value(hands, [], w_seat, done + 1, t2, alpha, beta)
