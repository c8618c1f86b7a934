"""A finished hand's record replayed into its decisions, and the true deal at each.

The record (`rooms.records`) holds the hand's rules, dealer, deck and every action in
order; the scores before the hand are the record's scores less the hand's changes (they
matter: near the target a hand's points weigh less than the game). Replaying it through
the engine gives the state before each action, from which a seat's view (what it knew)
and the true deal (every card, the hand being over) are both read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from math import comb
from typing import Any

from schmier import engine
from schmier.engine.bots.tables import bits
from schmier.engine.bots.worlds import Know, World
from schmier.engine.state import evolve

Record = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Decision:
    """One action of the record, and the position it was taken in."""

    i: int
    """Its index in the record's `actions`."""
    seat: int
    action: dict[str, Any]
    state: engine.State
    """The game before the action."""
    legal: list[dict[str, Any]]
    """The seat's `legal` at that moment, as the protocol lists it."""

    @property
    def kind(self) -> str:
        """The protocol's kind: a pass is a bid decision."""
        kind = str(self.action["type"])
        return "bid" if kind == "pass" else kind

    @property
    def choices(self) -> int:
        """How many concrete actions `legal` allowed (each discard set counts as one)."""
        total = 0
        for entry in self.legal:
            if entry["type"] == "discard":
                n = len(entry["from"])
                total += sum(comb(n, k) for k in range(int(entry["min"]), int(entry["max"]) + 1))
            else:
                total += 1
        return total


def first_state(record: Record) -> engine.State:
    """The game as the hand was dealt: rules, dealer, the scores before it, the deck."""
    variant = str(record["variant"])
    rules = engine.make_rules(variant, dict(record["rules"]))
    state = engine.new_game(variant, rules, int(record["dealer"]))
    deltas = record["result"]["deltas"]
    before = tuple(int(s) - int(d) for s, d in zip(record["scores"], deltas, strict=True))
    state = evolve(state, scores=before)
    return engine.apply(state, None, {"type": "deal", "deck": list(record["deal"]["deck"])})


def replay(record: Record) -> Iterator[Decision]:
    """Every action of the record with the state before it (choice or not)."""
    state = first_state(record)
    for i, entry in enumerate(record["actions"]):
        seat = int(entry["seat"])
        action = dict(entry["action"])
        yield Decision(i, seat, action, state, engine.legal_actions(state, seat))
        state = engine.apply(state, seat, action)


def choices(record: Record) -> list[int]:
    """The indexes of the record's actions that were decisions (more than one choice)."""
    return [d.i for d in replay(record) if d.choices > 1]


def decision(record: Record, i: int) -> Decision:
    """The record's action `i` with its position (IndexError for no such action)."""
    if not 0 <= i < len(record["actions"]):
        raise IndexError(i)
    for d in replay(record):
        if d.i == i:
            return d
    raise IndexError(i)  # pragma: no cover - the loop reaches every index


def true_world(state: engine.State, know: Know) -> World:
    """The one world that is the deal itself, as the viewer `know.me` would sample it:
    every hand, the stock (top first, as dealt) and the others' discards, and the
    bidder's discards' count where they count for its side and it is not the viewer."""
    me = know.me
    out = list(state.stock)
    for seat, gone in enumerate(state.discards):
        if seat != me:
            out.extend(bits(gone))
    bank = 0
    bidder = state.bidder
    banks = know.book["banks_discards"] and know.phase == "play"
    if banks and bidder is not None and bidder != me:
        bank = sum(know.tb.game[c] for c in bits(state.discards[bidder]))
    return World(list(state.hands), out, bank)


def names_of(record: Record) -> Sequence[str]:
    """The seats' names in the record (a seat without one: "Seat k")."""
    seats = record.get("seats") or []
    out = []
    for k, seat in enumerate(seats):
        name = seat.get("name") if isinstance(seat, Mapping) else None
        out.append(str(name) if name else f"Seat {k + 1}")
    return out
