"""Hand-built positions for the coach's tests: a game state at a chosen moment."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from schmier import engine
from schmier.coach.decisions import Decision
from schmier.engine.cards import SUITS, mask_of, parse
from schmier.engine.ranking import trumps
from schmier.engine.state import evolve


def play_position(
    variant: str,
    trump: str,
    bidder: int,
    bid: int,
    hands: Mapping[int, Sequence[str]],
    trick: Sequence[tuple[int, str]],
    played: str,
    scores: Sequence[int] | None = None,
    leader: int = 0,
) -> Decision:
    """The play of `played` by the seat to move, every seat holding `hands` (equal
    counts, the seats of `trick` one card fewer), the tricks before filled with the
    other cards: the trumps first (each such trick won by its leader, the last one by
    `leader`, who leads the trick in play), then the cards of least count; what is
    left lies with the undealt cards."""
    state = engine.new_game(variant, engine.make_rules(variant), 0)
    n = state.variant.seats
    suit = SUITS.index(trump)
    t = trumps(variant, suit)
    used = {c for h in hands.values() for c in h} | {c for _, c in trick}
    deck = [c for c in engine.full_deck(variant) if c not in used]
    counts = {"T": 10, "A": 4, "K": 3, "Q": 2, "J": 1}
    deck.sort(key=lambda c: (not t.mask >> parse(c) & 1, counts.get(c[0], 0), c))
    left = max(len(h) for h in hands.values())
    done = 6 - left
    tricks = []
    for k in range(done):
        cards = deck[:n]
        deck = deck[n:]
        first = (leader + k + 1 - done) % n  # the last one's leader leads the trick now
        plays = tuple(((first + j) % n, parse(c)) for j, c in enumerate(cards))
        tricks.append((plays, first))
    if trick:
        assert trick[0][0] == leader, "the trick in play is led by `leader`"
    turn = (trick[-1][0] + 1) % n if trick else leader
    state = evolve(
        state,
        phase="play",
        hands=tuple(mask_of([parse(c) for c in hands.get(s, ())]) for s in range(n)),
        stock=tuple(parse(c) for c in deck),
        turn=(turn,),
        bids=((bidder, bid),),
        bidder=bidder,
        bid=bid,
        trump=suit,
        trump_public=True,
        trick=tuple((s, parse(c)) for s, c in trick),
        tricks=tuple(tricks),
        scores=tuple(scores) if scores is not None else state.scores,
    )
    action: dict[str, Any] = {"type": "play", "card": played}
    return Decision(0, turn, action, state, engine.legal_actions(state, turn))
