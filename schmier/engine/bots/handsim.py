"""The search's decisions before the first card: whole hands simulated in sampled worlds.

A bid, a trump (also the commitment where the first lead sets trump), the dealer's or
the kitty's discards and the call are each tried in every world: the rest of the hand
before play is done by quick rules (`drawing`: exchanges, the kitty, discards, the
call), then the cards are played out by the rollout policy and scored. The option with
the best average is chosen; a bid is made when the simulated hands make it often enough.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from typing import Any

from ..cards import CARD_NAMES, SUITS
from ..tricks import of_view
from .drawing import call_card, exchange_all, keep_value, take_kitty, to_six
from .playout import Tally, outcome, play_out, utility
from .reading import Answer, Legal, View
from .tables import Tab, bits, card_int, tab
from .worlds import Know, World, sample

#: A bid is made only if the simulated hands take at least that much this often.
MAKE_CHANCE = 0.75
#: A bid that would take the viewer's side out is considered when made this often.
RACE_CHANCE = 0.5
#: The viewer outbids its own teammate only by a hand this much stronger.
_PARTNER_MARGIN = 2


#: Where the worlds of a decision come from: sampled from the view, or the true deal.
Draw = Callable[[], World]

#: One simulated hand: each side's score change, and each seat's side (side 0 the bidder's).
Result = tuple[list[int], list[int]]


def _tab(know: Know, suit: int) -> Tab:
    return tab(of_view(know.variant, suit, know.rules))


def simulate(
    know: Know,
    world: World,
    suit: int,
    bidder: int,
    bid: int,
    rng: random.Random,
    *,
    kitty_taken: bool,
    discards_done: bool,
    my_discard: int | None = None,
    called: int | None = -1,
    exchanging: bool = False,
) -> Result | None:
    """Play one world from where the view stands (bidding, trump, discards or the call)
    to its scoring with `suit` as trump: each side's score change and the sides.

    `called` -1 lets the bidder call by rule (a called-partner game), else the card
    (None: alone); `my_discard` is the viewer's own discard when it is the one tried
    (`exchanging`: a non-dealer's exchange, the others' exchanges still to come).
    None when `suit` may not be trump for this bidder (it holds no natural card of it).
    """
    tb = _tab(know, suit)
    book = know.book
    n = know.n
    hands = world.hands[:]
    stock = list(world.out)
    bank = 0
    discarded = [0] * n
    if book["kitty"] and not kitty_taken:
        stock = take_kitty(hands, stock, bidder, int(know.rules.get("kitty") or 0))
    if not hands[bidder] & tb.first_lead:
        return None  # not a trump this bidder may name: it could not make the first lead
    if not discards_done:
        _discard(know, tb, hands, stock, bidder, discarded, my_discard, exchanging)
    elif know.me == bidder:
        discarded[bidder] = know.my_discards
    if book["banks_discards"]:
        bank = sum(tb.game[c] for c in bits(discarded[bidder])) + world.bank
    partner: int | None = None
    if book["called_partner"]:
        card = called
        if card == -1:
            card = call_card(tb, hands[bidder], discarded[bidder])
        if card is not None:
            partner = next((s for s in range(n) if s != bidder and hands[s] >> card & 1), None)
    side_of = know.side_of(bidder, partner)
    tally = Tally(n, len(tb.specials))
    play_out(tb, hands, [], bidder, 0, tally, side_of, rng)
    return outcome(tally, side_of, max(side_of) + 1, bid, bank), side_of


def _discard(
    know: Know,
    tb: Tab,
    hands: list[int],
    stock: list[int],
    bidder: int,
    discarded: list[int],
    my_discard: int | None,
    exchanging: bool = False,
) -> None:
    """The discards of a simulated hand, in place: every exchange and the dealer's
    (`discards` "all"), or the bidder's down to six."""
    if know.book["discards"] == "all":
        others_done = know.phase == "discard" and not exchanging
        exchange_all(tb, hands, stock, know.dealer, discarded, others_done, (know.me, my_discard))
        return
    hand = hands[bidder]
    if my_discard is not None and bidder == know.me:
        gone = my_discard
    else:
        gone = to_six(tb, hand, bank=True)
    hands[bidder] = hand & ~gone
    discarded[bidder] = gone


def bid(
    know: Know, legal: Legal, rng: random.Random, worlds: int, make: float = MAKE_CHANCE
) -> Answer:
    """Bid when the simulated hands make it at least `make` of the time, or pass.

    Each world is played with the viewer as bidder, for every trump (where trump is set by the
    first lead: the best trump of each world, as its bidder commits after the kitty); the
    points its side takes give the chance of making each bid. The last to speak bids
    just enough; the others bid as high as the hands stay sure (`MAKE_CHANCE`), to shut
    later bidders out, or else the lowest bid made `make` of the time (when the hand
    holds a commanding trump, `_power`); a teammate's bid
    is raised only with a clearly stronger hand. A bid that would take the side to the
    target is made, at least half the time, when it is worth more than passing with
    the game won or lost counted (`_race_bid`).
    """
    amounts = sorted(int(e["amount"]) for e in legal if e["type"] == "bid")
    can_pass = any(e["type"] == "pass" for e in legal)
    if not amounts:
        return {"type": "pass"}
    if not can_pass:
        return {"type": "bid", "amount": amounts[0]}
    me = know.me
    per_suit: list[list[Result | None]] = [[] for _ in range(4)]
    rivals: list[list[Result | None]] = [[] for _ in range(4)]
    race = know.race
    out = race is not None and race.mine(me) + amounts[-1] >= race.target
    rival = _rival(know, amounts[0]) if out else None
    for _ in range(worlds):
        world = sample(know, rng)
        for suit in range(4):
            result = simulate(know, world, suit, me, 0, rng, kitty_taken=False, discards_done=False)
            per_suit[suit].append(result)
        if rival is not None:
            seat, amount = rival
            for suit in range(4):
                rivals[suit].append(
                    simulate(
                        know, world, suit, seat, amount, rng, kitty_taken=False, discards_done=False
                    )
                )
    suit = _best_suit(per_suit)
    results = per_suit[suit]
    dist = [0 if r is None else r[0][0] for r in results]
    if out:
        # The rival names trump from its own hand: the one suit best for it over the worlds.
        going_out = _race_bid(know, amounts, results, dist, rivals[_best_suit(rivals)])
        if going_out is not None:
            return going_out
    return _points_bid(know, amounts, dist, suit, make)


def _points_bid(
    know: Know, amounts: list[int], dist: Sequence[int], suit: int, make: float
) -> Answer:
    """The bid by how often the simulated hands make it (see `bid`), or a pass."""

    def made(chance: float) -> list[int]:
        return [k for k in amounts if sum(1 for p in dist if p >= k) >= chance * len(dist)]

    likely = made(min(make, MAKE_CHANCE) if _power(know, suit) else MAKE_CHANCE)
    if not likely:
        return {"type": "pass"}
    sure = made(MAKE_CHANCE)
    last = know.me == know.dealer
    choice = likely[0] if last or not sure else sure[-1]
    top = _teammate_bid(know)
    if top is not None and likely[-1] < top + _PARTNER_MARGIN:
        return {"type": "pass"}
    return {"type": "bid", "amount": choice}


def _power(know: Know, suit: int) -> bool:
    """Whether the hand holds a card that commands the suit as trump: its ace or king, a
    jack that scores, or a joker. Without one the search bids only what it is sure to
    make (`MAKE_CHANCE`): a bid on luck alone is what players least forgive a bot."""
    tb = _tab(know, suit)
    strong = (1 << tb.order[0]) | (1 << tb.order[1]) | tb.spec_mask
    return bool(know.hand & strong)


def _rival(know: Know, lowest: int) -> tuple[int, int] | None:
    """Who plays the hand, and for how much, if the viewer passes: the holder of the
    highest bid so far, else the next seat to speak at the lowest bid; None when a pass
    by the last to speak, with nobody bidding, means a new deal."""
    made = [(s, int(a)) for s, a in know.bids if a is not None]
    if made:
        return max(made, key=lambda b: b[1])
    if know.me == know.dealer:
        return None
    return (know.me + 1) % know.n, lowest


def _best_suit(per_suit: Sequence[Sequence[Result | None]]) -> int:
    """The trump whose simulated hands take its bidder the most points over the worlds."""
    return max(range(4), key=lambda i: sum(r[0][0] for r in per_suit[i] if r is not None))


def _race_bid(
    know: Know,
    amounts: list[int],
    results: Sequence[Result | None],
    dist: Sequence[int],
    rivals: Sequence[Result | None],
) -> Answer | None:
    """A bid that would take the viewer's side to the target, when one is made in at
    least `RACE_CHANCE` of the simulated hands and is worth more, with the game won or
    lost counted, than passing (which leaves the hand to the rival, `_rival`, or to a
    new deal); else None (the usual rules decide). A bid not made costs its amount."""
    race = know.race
    assert race is not None
    me = know.me
    outs = [
        k
        for k in amounts
        if race.mine(me) + k >= race.target
        and sum(1 for p in dist if p >= k) >= RACE_CHANCE * len(dist)
    ]
    if not outs:
        return None

    def value(amount: int) -> float:
        total = 0.0
        for r in results:
            if r is None:
                continue
            deltas, side_of = r
            mine = list(deltas)
            if mine[0] < amount:
                mine[0] = -amount
            total += utility(mine, side_of, me, race)
        return total / max(1, len(results))

    played = [r for r in rivals if r is not None]
    passing = sum(utility(r[0], r[1], me, race) for r in played) / max(1, len(played))
    best = max(outs, key=lambda k: (value(k), -k))
    return {"type": "bid", "amount": best} if value(best) > passing else None


def _teammate_bid(know: Know) -> int | None:
    """The highest bid so far when a fixed teammate holds it."""
    if not know.fixed_teams:
        return None
    made = [(s, a) for s, a in know.bids if a is not None]
    if not made:
        return None
    seat, amount = max(made, key=lambda b: int(b[1]))
    team = next(t for t in know.book["teams"] if know.me in t)
    return int(amount) if seat != know.me and seat in team else None


def trump(know: Know, suits: Sequence[str], rng: random.Random, worlds: int) -> str:
    """The allowed suit whose simulated hands score best for the viewer."""
    options = [SUITS.index(s) for s in suits]
    totals = trump_totals(know, options, lambda: sample(know, rng), worlds, rng)
    best = max(range(len(options)), key=lambda i: (totals[i], -i))
    return SUITS[options[best]]


def trump_totals(
    know: Know, options: Sequence[int], draw: Draw, worlds: int, rng: random.Random
) -> list[float]:
    """Each suit's summed utility for the viewer over `worlds` worlds from `draw`."""
    totals = [0.0] * len(options)
    kitty_taken = bool(know.book["kitty"])
    for _ in range(worlds):
        world = draw()
        for i, suit in enumerate(options):
            result = simulate(
                know,
                world,
                suit,
                know.me,
                know.bid,
                rng,
                kitty_taken=kitty_taken,
                discards_done=False,
            )
            if result is not None:
                totals[i] += utility(result[0], result[1], know.me, know.race)
    return totals


def call(know: Know, options: Sequence[Any], rng: random.Random, worlds: int) -> str | None:
    """The call (a card, or None: alone) whose simulated hands score best.

    Tried: the four highest trumps the bidder neither holds nor discarded, and alone.
    Alone only when it makes the bid in at least `MAKE_CHANCE` of the simulated hands
    (what a bid is held to everywhere else): in three arena runs of 80 games where the
    bidder calls its partner, the search went alone 17 times on the average of the
    simulated hands and made the bid only 8 times, losing 1.7 points a time against the
    table's mean, where its called bids are made three times in four.
    """
    tb = know.tb
    offered = {str(c) for c in options if c is not None}
    trumps = [c for c in tb.order + tuple(bits(tb.mask & ~tb.naturals)) if CARD_NAMES[c] in offered]
    candidates: list[int | None] = []
    candidates += [c for c in trumps if not know.my_discards >> c & 1][:4]
    if None in options:
        candidates.append(None)
    if len(candidates) == 1:
        only = candidates[0]
        return None if only is None else CARD_NAMES[only]
    totals, made = call_totals(know, candidates, lambda: sample(know, rng), worlds, rng)
    allowed = [
        i
        for i, card in enumerate(candidates)
        if card is not None or made[i] >= MAKE_CHANCE * worlds
    ]
    best = max(allowed, key=lambda i: (totals[i], -i))
    chosen = candidates[best]
    return None if chosen is None else CARD_NAMES[chosen]


def discard(
    view: View, know: Know, template: Mapping[str, Any], rng: random.Random, worlds: int
) -> Answer:
    """Discard exactly the template's count: the best of the few weakest sets.

    Candidates are every set of that many among the few cards least worth keeping
    (`drawing.keep_value`); each is played out in the same worlds.
    """
    count = int(template["min"])
    allowed = [card_int(str(c)) for c in template["from"]]
    sets = discard_sets(know, allowed, count)
    if len(sets) == 1:
        bank = bool(know.book["banks_discards"])
        ranked = sorted(allowed, key=lambda c: (keep_value(know.tb, know.hand, c, bank), c))
        return {"type": "discard", "cards": [CARD_NAMES[c] for c in ranked[:count]]}
    assert know.bidder is not None
    totals = discard_totals(know, sets, lambda: sample(know, rng), max(1, worlds // 2), rng)
    best = max(range(len(sets)), key=lambda i: (totals[i], -i))
    return {"type": "discard", "cards": [CARD_NAMES[c] for c in bits(sets[best])]}


def discard_sets(know: Know, allowed: Sequence[int], count: int) -> list[int]:
    """The discards of `count` cards the search tries (masks): every set of that many
    among the few cards of `allowed` least worth keeping (`drawing.keep_value`)."""
    bank = bool(know.book["banks_discards"])
    ranked = sorted(allowed, key=lambda c: (keep_value(know.tb, know.hand, c, bank), c))
    if count == 0:
        return [0]
    pool = ranked[: count + 2] if count <= 4 else ranked[:count]
    return [sum(1 << c for c in combo) for combo in combinations(pool, count)]


def call_totals(
    know: Know, candidates: Sequence[int | None], draw: Draw, worlds: int, rng: random.Random
) -> tuple[list[float], list[int]]:
    """Each call's summed utility for the viewer over `worlds` worlds from `draw`, and
    how often its hands made the bid."""
    totals = [0.0] * len(candidates)
    made = [0] * len(candidates)
    for _ in range(worlds):
        world = draw()
        for i, card in enumerate(candidates):
            result = simulate(
                know,
                world,
                know.tb.trump,
                know.me,
                know.bid,
                rng,
                kitty_taken=True,
                discards_done=True,
                called=card,
            )
            if result is not None:
                totals[i] += utility(result[0], result[1], know.me, know.race)
                made[i] += result[0][0] >= 0
    return totals, made


def discard_totals(
    know: Know, sets: Sequence[int], draw: Draw, worlds: int, rng: random.Random
) -> list[float]:
    """Each discard's (a mask) summed utility for the viewer over `worlds` worlds."""
    assert know.bidder is not None
    totals = [0.0] * len(sets)
    for _ in range(worlds):
        world = draw()
        for i, gone in enumerate(sets):
            result = simulate(
                know,
                world,
                know.tb.trump,
                know.bidder,
                know.bid,
                rng,
                kitty_taken=True,
                discards_done=False,
                my_discard=gone,
            )
            if result is not None:
                totals[i] += utility(result[0], result[1], know.me, know.race)
    return totals
