"""The `strong` policy: determinized Monte Carlo search over the worlds a seat cannot
tell apart (perfect-information Monte Carlo, as the strongest Skat and Bridge programs
of their day and play-smear.com's "optimal" bot do).

Every decision samples worlds consistent with the view (`worlds`), tries each legal
choice in every world, plays the rest of the hand out with the rollout policy
(`policy`; the last tricks are solved exactly, `endgame`), scores it as the engine
does and keeps the choice with the best average for the viewer. Cards are searched here;
the bid, the trump (also the commitment where the first lead sets trump), the dealer's
and the kitty's discards and the call are searched by whole simulated hands (`handsim`).
The budget is a fixed count of worlds and playouts, never the clock, so a decision is a
pure function of the view and the seed, and a room replays it exactly from its log.

`docs/bots.md` argues why determinized rather than information-set tree search, with
measurements.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ..cards import CARD_NAMES
from ..tricks import winner as trick_winner
from . import handsim
from .discards import discard as heuristic_discard
from .endgame import Solver, exact_cards
from .playout import Tally, outcome, play_out, utility
from .reading import Answer, Legal, View
from .tables import bits, card_int
from .worlds import Know, World, sample


@dataclass(frozen=True, slots=True)
class Budget:
    """How much the search may think, in playouts (reproducible, unlike seconds)."""

    #: Playouts per card decision, shared among the legal cards.
    playouts: int = 1200
    #: Worlds at least and at most per card decision.
    min_worlds: int = 16
    max_worlds: int = 240
    #: Worlds per bid, trump, call or discard decision (each tries every option).
    hand_worlds: int = 80
    #: Worlds at most when the last tricks are solved exactly (each solve tries every
    #: line of play, so a few dozen worlds cost as much as the playouts).
    exact_worlds: int = 40
    #: Card decisions roll out with the rollout policy (`policy`), else random cards.
    smart: bool = True
    #: Percent of the simulated hands that must make a bid for the viewer to bid at
    #: all (the lowest such bid); bidding higher to shut others out needs
    #: `handsim.MAKE_CHANCE`.
    make_pct: int = 60


DEFAULT_BUDGET = Budget()


def act(view: View, legal: Legal, rng: random.Random, budget: Budget = DEFAULT_BUDGET) -> Answer:
    """The search's answer; a forced move (one legal action) costs nothing."""
    kinds = {str(e["type"]) for e in legal}
    if "play" in kinds:
        cards = [str(e["card"]) for e in legal if e["type"] == "play"]
        if len(cards) == 1:
            return {"type": "play", "card": cards[0]}
        return {"type": "play", "card": play(Know(view), cards, rng, budget)}
    if "bid" in kinds or "pass" in kinds:
        if len(legal) == 1:
            return dict(legal[0])
        return handsim.bid(Know(view), legal, rng, budget.hand_worlds, budget.make_pct / 100)
    if "trump" in kinds:
        suits = [str(e["suit"]) for e in legal if e["type"] == "trump"]
        if len(suits) == 1:
            return {"type": "trump", "suit": suits[0]}
        return {"type": "trump", "suit": handsim.trump(Know(view), suits, rng, budget.hand_worlds)}
    if "discard" in kinds:
        template = next(e for e in legal if e["type"] == "discard")
        if int(template["min"]) == int(template["max"]) and int(template["min"]) > 0:
            return handsim.discard(view, Know(view), template, rng, budget.hand_worlds)
        return heuristic_discard(view, template)
    if "call" in kinds:
        options = [e.get("card") for e in legal if e["type"] == "call"]
        return {"type": "call", "card": handsim.call(Know(view), options, rng, budget.hand_worlds)}
    return {k: v for k, v in legal[rng.randrange(len(legal))].items()}


def base_tally(know: Know) -> Tally:
    """What the hand has earned so far, from the tricks the view shows."""
    tb = know.tb
    tally = Tally(know.n, len(tb.specials))
    for plays, winner in know.tricks:
        tally.count_trick(tb, plays, winner)
    for seat, c in know.trick:
        tally.card_played(tb, seat, c)
    return tally


def partner_in(know: Know, world: World) -> int | None:
    """The bidder's partner in a world: the holder of the called card (if any)."""
    if know.partner is not None:
        return know.partner
    if know.called < 0 or know.bidder is None:
        return None
    for seat, c in [(s, c) for plays, _ in know.tricks for s, c in plays] + know.trick:
        if c == know.called:
            return seat
    for seat, h in enumerate(world.hands):
        if h >> know.called & 1:
            return seat
    return None


def play(know: Know, cards: list[str], rng: random.Random, budget: Budget) -> str:
    """The card with the best average utility over the sampled worlds."""
    options = [card_int(c) for c in cards]
    worlds = card_worlds(know, len(options), budget)
    values = card_values(know, options, lambda: sample(know, rng), worlds, rng, budget.smart)
    power = know.tb.power
    best = max(range(len(options)), key=lambda i: (round(values[i], 6), -power[options[i]]))
    return CARD_NAMES[options[best]]


def card_worlds(know: Know, options: int, budget: Budget) -> int:
    """How many worlds a card decision among `options` cards searches."""
    worlds = max(budget.min_worlds, min(budget.max_worlds, budget.playouts // options))
    if know.hand.bit_count() <= exact_cards(know.n):
        worlds = min(worlds, budget.exact_worlds)
    return worlds


def card_values(
    know: Know,
    options: list[int],
    draw: Callable[[], World],
    worlds: int,
    rng: random.Random,
    smart: bool = True,
) -> list[float]:
    """Each card's average utility for the viewer over `worlds` worlds from `draw` (the
    worlds sampled from the view, or the one true deal): the card played, the rest of
    the hand played out by the rollout policy, or solved exactly near the end."""
    tb = know.tb
    assert know.bidder is not None
    tally0 = base_tally(know)
    done = len(know.tricks)
    me = know.me
    bank_mine = (
        sum(tb.game[c] for c in bits(know.my_discards))
        if know.book["banks_discards"] and know.bidder == me
        else 0
    )
    exact = know.hand.bit_count() <= exact_cards(know.n)
    totals = [0.0] * len(options)
    for _ in range(worlds):
        world = draw()
        side_of = know.side_of(know.bidder, partner_in(know, world))
        sides = max(side_of) + 1
        bank = world.bank + bank_mine
        if exact:
            solver = Solver(tb, side_of, know.bid, bank, me, know.race)
            for i, c in enumerate(options):
                totals[i] += solver.after(world.hands, know.trick, me, done, tally0, c)
            continue
        for i, c in enumerate(options):
            hands = world.hands[:]
            tally = tally0.copy()
            hands[me] ^= 1 << c
            trick = [*know.trick, (me, c)]
            tally.card_played(tb, me, c)
            _finish(know, hands, trick, done, tally, side_of, rng, smart)
            deltas = outcome(tally, side_of, sides, know.bid, bank)
            totals[i] += utility(deltas, side_of, me, know.race)
    return [t / worlds for t in totals]


def _finish(
    know: Know,
    hands: list[int],
    trick: list[tuple[int, int]],
    done: int,
    tally: Tally,
    side_of: list[int],
    rng: random.Random,
    smart: bool,
) -> None:
    """Play on from the viewer's card to the end of the hand with the rollout policy."""
    tb = know.tb
    n = know.n
    if len(trick) == n:
        # The viewer's card closed the trick: book it, its winner leads the next.
        w_seat = trick_winner(tb, trick)
        tally.count_trick(tb, trick, w_seat)
        play_out(tb, hands, [], w_seat, done + 1, tally, side_of, rng, smart)
        return
    # The cards of the open trick are booked when play_out closes it.
    play_out(tb, hands, trick, (trick[-1][0] + 1) % n, done, tally, side_of, rng, smart)
