"""A measuring stick for the arena, never a bot for players: the search given every
hidden card.

`oracle` (in `bench/arena.py`: `--a oracle`, or `oracle:FIELD=N,...` with the search's
budget fields, read there; the other names of `SEES` see only in some phases, and those
of `SHOWN` only half the deal) is the `strong` search with one change: each world it
would sample from the seat's view is instead the true deal, read from the engine's
state (every hand, the stock in its true order, everyone's discards). The rest is
unchanged: the same bidding thresholds, rollouts, exact endgame and budget, so the other
seats' future play is still guessed by the rollout policy.

Why: an arena target such as "one `strong` seat among four `normal` wins twice its fair
share" mixes the bot's skill with how much of a game the cards decide. What a seat that
knows every card wins under the same format is a ceiling no honest bot reaches; if it is
near the target, the target asks for nearly perfect information.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

from schmier import engine
from schmier.engine.bots import handsim
from schmier.engine.bots import search as search_bot
from schmier.engine.bots.tables import bits
from schmier.engine.bots.worlds import Know, World

NAME = "oracle"

#: The phases before the play of the cards.
BEFORE_PLAY = frozenset({"bidding", "trump", "discard", "call"})

#: `oracle` sees in every phase; the others see only in some phases (the play of the
#: cards, the phases before it, the bidding alone, the call alone, the phases between
#: the bidding and the play; half the deal, `SHOWN`, in the bidding or before the
#: play): where the seeing is worth most.
SEES: dict[str, frozenset[str] | None] = {
    NAME: None,
    "oracle_play": frozenset({"play"}),
    "oracle_before_play": BEFORE_PLAY,
    "oracle_bidding": frozenset({"bidding"}),
    "oracle_call": frozenset({"call"}),
    "oracle_after_bidding": frozenset({"trump", "discard", "call"}),
    "oracle_hands_bidding": frozenset({"bidding"}),
    "oracle_stock_bidding": frozenset({"bidding"}),
    "oracle_hands_before_play": BEFORE_PLAY,
    "oracle_stock_before_play": BEFORE_PLAY,
}

#: What an oracle is shown (default: every hidden card): only the other hands (the
#: stock is sampled from the rest), or only the stock in its order (the hands are).
SHOWN = {
    "oracle_hands_bidding": "hands",
    "oracle_stock_bidding": "stock",
    "oracle_hands_before_play": "hands",
    "oracle_stock_before_play": "stock",
}


def true_world(state: engine.State, know: Know) -> World:
    """The deal as it is, in the shape of a sampled world for the seat `know` is of."""
    hands = list(state.hands)
    out = list(state.stock)
    for seat, gone in enumerate(state.discards):
        if seat != know.me:
            out.extend(bits(gone))
    bank = 0
    bidder = state.bidder
    if know.book["banks_discards"] and bidder is not None and bidder != know.me:
        bank = sum(know.tb.game[c] for c in bits(state.discards[bidder]))
    return World(hands, out, bank)


def half_true_world(state: engine.State, know: Know, shown: str, rng: random.Random) -> World:
    """A world with the other hands (`shown` "hands") or the stock (`shown` "stock") as
    they are and the rest of the unseen cards dealt at random into the other places."""
    true = true_world(state, know)
    hands = list(true.hands)
    out = list(true.out)
    others = [s for s in range(know.n) if s != know.me]
    if shown == "hands":
        rng.shuffle(out)
        return World(hands, out, true.bank)
    loose = [c for s in others for c in bits(hands[s])]
    rng.shuffle(loose)
    for s in others:
        k = hands[s].bit_count()
        hands[s] = sum(1 << c for c in loose[:k])
        loose = loose[k:]
    return World(hands, out, true.bank)


@contextlib.contextmanager
def seeing(state: engine.State, shown: str | None = None) -> Iterator[None]:
    """While inside, the search's worlds are all the true deal of `state` (or, with
    `shown`, half of it: `half_true_world`)."""
    saved = handsim.sample, search_bot.sample

    def sample(know: Know, rng: random.Random) -> World:
        if shown is not None:
            return half_true_world(state, know, shown, rng)
        return true_world(state, know)

    handsim.sample = search_bot.sample = sample
    try:
        yield
    finally:
        handsim.sample, search_bot.sample = saved


def decide(
    name: str,
    budget: search_bot.Budget,
    state: engine.State,
    view: dict[str, Any],
    rng: random.Random,
) -> dict[str, Any]:
    """The action of the oracle `name` (a key of `SEES`) with `budget`; outside the
    phases it sees in, the plain search decides."""
    phases = SEES[name]
    if phases is not None and state.phase not in phases:
        return search_bot.act(view, view["legal"], rng, budget)
    with seeing(state, SHOWN.get(name)):
        return search_bot.act(view, view["legal"], rng, budget)
