"""The options of one decision and the search's value of each, from two sources of
worlds: those sampled from the seat's view (what it knew) and the true deal.

Every value is the `strong` bot's own evaluation: a card is played in each world and
the hand rolled out by the rollout policy, or solved exactly near its end
(`search.card_values`); a bid, a trump, a discard or a call is played through a whole
simulated hand (`handsim`). A value is the average of the search's utility for the
seat: its side's score change against the table's average per seat, a game won or lost
by this hand counted as `race.WIN` points (docs/bots.md). With all cards shown the
rollout policy is deterministic, so the one true world is played once.

Options tried: every legal card, bid and trump; for a discard, the set played and the
sets the search itself would weigh (`handsim.discard_sets`; for an exchange of 0 to 3
cards, the weakest 0, 1, 2 and 3 cards and the rule of thumb's choice); for the call,
the search's candidates and the card called.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from schmier import engine
from schmier.engine.bots import handsim
from schmier.engine.bots.discards import discard as rule_of_thumb_discard
from schmier.engine.bots.drawing import keep_value
from schmier.engine.bots.playout import utility
from schmier.engine.bots.search import Budget, card_values, card_worlds
from schmier.engine.bots.tables import bits, card_int
from schmier.engine.bots.worlds import Know, World, sample
from schmier.engine.cards import CARD_NAMES, SUITS

from .decisions import Decision, true_world

Draw = Callable[[], World]


#: The card search's budget when it analyses (see `AnalysisBudget.cards`).
ANALYSIS_CARDS = Budget(playouts=7200, min_worlds=96, max_worlds=1440, exact_worlds=240)


@dataclass(frozen=True, slots=True)
class AnalysisBudget:
    """How hard the coach thinks per decision: six times the bot's card playouts, four
    times its worlds per bid, trump, discard or call. Chosen by how often two analyses
    with different seeds name the same best option (docs/coach.md): at
    this budget nine decisions in ten on the three games, at half of it three in four."""

    cards: Budget = field(default_factory=lambda: ANALYSIS_CARDS)
    """The card search's budget (the bot's default: 1200 playouts, 16 to 240 worlds)."""
    hand_worlds: int = 320
    """Worlds per bid, trump, discard or call (the bot's: 80)."""


ANALYSIS_BUDGET = AnalysisBudget()


def budget_for(effort: int) -> AnalysisBudget:
    """`effort` percent of `ANALYSIS_BUDGET` (at least one world and playout each)."""
    if effort == 100:
        return ANALYSIS_BUDGET
    c = ANALYSIS_BUDGET.cards

    def part(x: int) -> int:
        return max(1, x * effort // 100)

    cards = Budget(
        playouts=part(c.playouts),
        min_worlds=part(c.min_worlds),
        max_worlds=part(c.max_worlds),
        hand_worlds=part(c.hand_worlds),
        exact_worlds=part(c.exact_worlds),
        smart=c.smart,
        make_pct=c.make_pct,
    )
    return AnalysisBudget(cards, part(ANALYSIS_BUDGET.hand_worlds))


@dataclass(slots=True)
class Valued:
    """One option: its action (the record's form), and its two values."""

    action: dict[str, Any]
    value: float
    value_all_cards: float


def weigh(d: Decision, budget: AnalysisBudget, seed: int) -> list[Valued]:
    """The options of decision `d` with their values (the played one among them)."""
    know = Know(engine.view(d.state, d.seat))
    rng = random.Random(seed)
    truth = true_world(d.state, know)
    seen: Draw = lambda: sample(know, rng)  # noqa: E731 - one line, read twice
    shown: Draw = lambda: truth  # noqa: E731
    kind = d.action["type"]
    if kind == "play":
        cards = [card_int(str(e["card"])) for e in d.legal]
        worlds = card_worlds(know, len(cards), budget.cards)
        view = card_values(know, cards, seen, worlds, rng, budget.cards.smart)
        deal = card_values(know, cards, shown, 1, rng, budget.cards.smart)
        actions = [{"type": "play", "card": CARD_NAMES[c]} for c in cards]
        return _zip(actions, view, deal)
    if kind in ("bid", "pass"):
        return _bids(know, d.legal, seen, shown, budget.hand_worlds, rng)
    if kind == "trump":
        suits = [SUITS.index(str(e["suit"])) for e in d.legal]
        w = budget.hand_worlds
        view = [t / w for t in handsim.trump_totals(know, suits, seen, w, rng)]
        deal = handsim.trump_totals(know, suits, shown, 1, rng)
        return _zip([{"type": "trump", "suit": SUITS[s]} for s in suits], view, deal)
    if kind == "call":
        return _calls(know, d, seen, shown, budget.hand_worlds, rng)
    if kind == "discard":
        return _discards(know, d, seen, shown, budget.hand_worlds, rng)
    raise ValueError(f"no options to weigh for {kind!r}")


def _zip(
    actions: list[dict[str, Any]], view: Sequence[float], deal: Sequence[float]
) -> list[Valued]:
    return [Valued(a, v, t) for a, v, t in zip(actions, view, deal, strict=True)]


def _bids(
    know: Know,
    legal: Sequence[dict[str, Any]],
    seen: Draw,
    shown: Draw,
    worlds: int,
    rng: random.Random,
) -> list[Valued]:
    """Each bid's value: the viewer plays the hand at that bid with its best trump over
    the worlds (a bid not made costs its amount); a pass's: the hand played by whoever
    would play it then (`handsim._rival`), or nothing when a pass means a new deal."""
    amounts = sorted(int(e["amount"]) for e in legal if e["type"] == "bid")
    actions: list[dict[str, Any]] = [{"type": "bid", "amount": k} for k in amounts]
    passing = any(e["type"] == "pass" for e in legal)
    if passing:
        actions.append({"type": "pass"})
    lowest = amounts[0] if amounts else 0
    view = _bid_values(know, amounts, passing, lowest, seen, worlds, rng)
    deal = _bid_values(know, amounts, passing, lowest, shown, 1, rng)
    return _zip(actions, view, deal)


def _bid_values(  # noqa: C901 - the bids and the pass, over the same worlds
    know: Know,
    amounts: list[int],
    passing: bool,
    lowest: int,
    draw: Draw,
    worlds: int,
    rng: random.Random,
) -> list[float]:
    me = know.me
    mine: list[list[handsim.Result | None]] = [[] for _ in range(4)]
    theirs: list[list[handsim.Result | None]] = [[] for _ in range(4)]
    rival = handsim._rival(know, lowest) if passing else None
    for _ in range(worlds):
        world = draw()
        for suit in range(4):
            if amounts:
                mine[suit].append(
                    handsim.simulate(
                        know, world, suit, me, 0, rng, kitty_taken=False, discards_done=False
                    )
                )
            if rival is not None:
                seat, amount = rival
                theirs[suit].append(
                    handsim.simulate(
                        know, world, suit, seat, amount, rng, kitty_taken=False, discards_done=False
                    )
                )
    values = []
    if amounts:
        results = [r for r in mine[handsim._best_suit(mine)] if r is not None]
        for k in amounts:
            total = 0.0
            for deltas, side_of in results:
                made = list(deltas)
                if made[0] < k:
                    made[0] = -k
                total += utility(made, side_of, me, know.race)
            values.append(total / max(1, len(results)))
    if passing:
        if rival is None:
            values.append(0.0)  # everybody passed: a new deal, nothing won or lost
        else:
            played = [r for r in theirs[handsim._best_suit(theirs)] if r is not None]
            total = sum(utility(d, s, me, know.race) for d, s in played)
            values.append(total / max(1, len(played)))
    return values


def _calls(
    know: Know, d: Decision, seen: Draw, shown: Draw, worlds: int, rng: random.Random
) -> list[Valued]:
    """The search's candidates (the four highest trumps the bidder neither holds nor
    discarded, and alone where allowed) and the card called."""
    tb = know.tb
    offered = [e.get("card") for e in d.legal]
    names = {str(c) for c in offered if c is not None}
    trumps = [c for c in (*tb.order, *bits(tb.mask & ~tb.naturals)) if CARD_NAMES[c] in names]
    candidates: list[int | None] = []
    candidates += [c for c in trumps if not know.my_discards >> c & 1][:4]
    if None in offered:
        candidates.append(None)
    called = d.action.get("card")
    played = None if called is None else card_int(str(called))
    if played not in candidates:
        candidates.append(played)
    view_totals, _ = handsim.call_totals(know, candidates, seen, worlds, rng)
    deal_totals, _ = handsim.call_totals(know, candidates, shown, 1, rng)
    actions = [{"type": "call", "card": None if c is None else CARD_NAMES[c]} for c in candidates]
    return _zip(actions, [t / worlds for t in view_totals], deal_totals)


def _discards(
    know: Know, d: Decision, seen: Draw, shown: Draw, worlds: int, rng: random.Random
) -> list[Valued]:
    """The set played against the sets the search weighs (see the module's docstring)."""
    template = d.legal[0]
    allowed = [card_int(str(c)) for c in template["from"]]
    low, high = int(template["min"]), int(template["max"])
    played = sum(1 << card_int(str(c)) for c in d.action.get("cards") or ())
    exchanging = low != high
    if exchanging:
        bank = bool(know.book["banks_discards"])
        ranked = sorted(allowed, key=lambda c: (keep_value(know.tb, know.hand, c, bank), c))
        sets = [sum(1 << c for c in ranked[:k]) for k in range(low, high + 1)]
        thumb = rule_of_thumb_discard(engine.view(d.state, d.seat), template)
        sets.append(sum(1 << card_int(str(c)) for c in thumb["cards"]))
    else:
        sets = handsim.discard_sets(know, allowed, low)
    sets.append(played)
    sets = list(dict.fromkeys(sets))
    view = [t / worlds for t in _discard_totals(know, sets, seen, worlds, rng, exchanging)]
    deal = _discard_totals(know, sets, shown, 1, rng, exchanging)
    actions = [{"type": "discard", "cards": [CARD_NAMES[c] for c in bits(s)]} for s in sets]
    return _zip(actions, view, deal)


def _discard_totals(
    know: Know, sets: Sequence[int], draw: Draw, worlds: int, rng: random.Random, exchanging: bool
) -> list[float]:
    """`handsim.discard_totals`, and a non-dealer's exchange played through the same
    simulated hands (its cards drawn from the top of the stock)."""
    if not exchanging:
        return handsim.discard_totals(know, sets, draw, worlds, rng)
    assert know.bidder is not None
    totals = [0.0] * len(sets)
    for _ in range(worlds):
        world = draw()
        for i, gone in enumerate(sets):
            result = handsim.simulate(
                know,
                world,
                know.tb.trump,
                know.bidder,
                know.bid,
                rng,
                kitty_taken=True,
                discards_done=False,
                my_discard=gone,
                exchanging=True,
            )
            if result is not None:
                totals[i] += utility(result[0], result[1], know.me, know.race)
    return totals
