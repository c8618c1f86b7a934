"""Hands played by the bots, recorded as a room records them.

Each seat is played by a level (`strong`, `normal`, `easy`, `random`), every decision
`bots.choose` on the seat's view with its own seeded random source; the log is folded by
the room's own `Book`, so the records are those `GET /api/rooms/{code}/hands/{n}` serves.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import orjson

from schmier import engine
from schmier.engine.bots import choose, search
from schmier.engine.bots.levels import BY_NAME
from schmier.rooms.records import Book

#: A fast search for hands that only need to be played (not measured).
QUICK = search.Budget(playouts=240, min_worlds=8, max_worlds=48, hand_worlds=16, exact_worlds=8)


def _decide(level: str, view: dict[str, Any], rng: random.Random, quick: bool) -> dict[str, Any]:
    policy = BY_NAME[level].policy if level in BY_NAME else level
    if policy == "strong" and quick:
        return search.act(view, view["legal"], rng, QUICK)
    return choose(policy, view, rng)


def record_of(
    variant: str,
    deck: Sequence[str],
    dealer: int,
    actions: Sequence[tuple[int, dict[str, Any]]],
    rules: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The record of the hand dealt from `deck` by `dealer` and played by `actions`
    (seat, protocol action) to its scoring, as a room's book makes it."""
    seats = engine.seat_count(variant)
    seating = [{"seat": k, "name": f"P{k + 1}", "kind": "human"} for k in range(seats)]
    book = Book("CODE", variant, engine.make_rules(variant, rules or {}), dealer, 0.0, seating)
    log: list[dict[str, Any]] = [
        {"seat": None, "action": {"type": "deal", "deck": list(deck)}, "seats": seating}
    ]
    log += [{"seat": s, "action": a} for s, a in actions]
    book.feed([orjson.dumps(e) for e in log])
    assert not book.broken and book.records, "the actions do not finish the hand"
    return book.records[-1]


def play_hand(
    variant: str, levels: Sequence[str], seed: int, quick: bool = True
) -> dict[str, Any] | None:
    """One hand from a deck shuffled by `seed`, seat k played by `levels[k]`; its record
    (None when everybody passed and the deck was dealt again)."""
    rng = random.Random(seed)
    deck = engine.full_deck(variant)
    rng.shuffle(deck)
    dealer = rng.randrange(engine.seat_count(variant))
    state = engine.apply(
        engine.new_game(variant, engine.make_rules(variant), dealer),
        None,
        {"type": "deal", "deck": deck},
    )
    actions: list[tuple[int, dict[str, Any]]] = []
    while state.phase not in ("hand_over", "game_over", "deal"):
        seat = engine.turn(state)[0]
        view = engine.view(state, seat)
        action = _decide(levels[seat], view, random.Random(rng.getrandbits(64)), quick)
        actions.append((seat, action))
        state = engine.apply(state, seat, action)
        if state.phase == "deal" or state.deals > 1:
            return None
    return record_of(variant, deck, dealer, actions)
