"""The record of every finished hand, made from the room's log.

The log already holds everything a record needs, in the order it happened: every
accepted engine action (each seat's bids, trump, discards with their cards, the call,
every card played) and every deal with its deck, the seed, commits and entropy it came
from and the seating at that moment (`record.log_entry`). So a hand's record is not
written separately: folding the log through the engine gives each hand at the moment it is
scored, and only then (a hand in play has no record; a hand everybody passed, none at
all). See docs/architecture.md, "Hand records", for why.

A `Book` is that fold for one room, fed the log incrementally (`feed` the entries after
`consumed`), so a room's log is read and replayed once per process, not per request.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import orjson

from schmier import engine
from schmier.logs import event
from schmier.rooms.record import RoomRecord

SCORED = ("hand_over", "game_over")
HAND_SIZE = 6
"""Cards dealt to each seat (docs/protocol.md, "Provably fair deals", step 3)."""


@dataclass
class _Hand:
    """The hand in play, as far as the log has told it."""

    game: int
    dealer: int
    seats: list[dict[str, Any]]
    deal: dict[str, Any]
    hands: list[list[str]]
    stock: list[str]
    actions: list[dict[str, Any]] = field(default_factory=list)


def dealt_hands(deck: list[str], dealer: int, seats: int) -> tuple[list[list[str]], list[str]]:
    """Each seat's six cards as dealt from `deck` (six to the seat left of the dealer,
    six to the next, ...), and the rest of the deck, top first."""
    hands: list[list[str]] = [[] for _ in range(seats)]
    for i in range(seats):
        hands[(dealer + 1 + i) % seats] = deck[HAND_SIZE * i : HAND_SIZE * (i + 1)]
    return hands, deck[HAND_SIZE * seats :]


class Book:
    """The finished hands of one room, folded from its log."""

    def __init__(
        self,
        code: str,
        variant: str,
        rules: engine.Rules,
        first_dealer: int | None,
        created: float,
        seating: list[dict[str, Any]],
    ) -> None:
        self.code = code
        self.variant = variant
        self.rules = rules
        self.first_dealer = first_dealer
        """None while the room is in its lobby (nothing to fold yet)."""
        self.created = created
        """The room's creation time: a room made anew under the same code (after the old
        one expired) has another, and another book."""
        self.consumed = 0
        """How many log entries have been folded in."""
        self.records: list[dict[str, Any]] = []
        """The finished hands' records, hand `n` at index `n - 1`."""
        self.games = 0 if first_dealer is None else 1
        """Games started: none in the lobby, then 1, plus one per rematch."""
        self.broken = False
        self._seating = seating
        """Who sits where now: the seating of deals logged before deals carried theirs."""
        self._state = engine.new_game(variant, rules, first_dealer or 0)
        self._hand: _Hand | None = None

    @classmethod
    def of(cls, record: RoomRecord) -> Book:
        """An empty book for the room `record` is a snapshot of."""
        return cls(
            record.code,
            record.variant,
            record.rules,
            record.first_dealer,
            record.created,
            record.deal_seats(),
        )

    def feed(self, entries: list[bytes]) -> None:
        """Fold in the next log entries (those from index `consumed` on)."""
        for raw in entries:
            if self.broken:
                return
            try:
                self._fold(orjson.loads(raw))
            except Exception:
                # The log is our own; should an entry ever not replay, the hands before
                # it stay readable and the book stops there. No traceback: the engine's
                # complaint could name a card of the hand in play.
                self.broken = True
                event("records.fold_failed", logging.ERROR, room=self.code, entry=self.consumed)
                return
            self.consumed += 1

    def _fold(self, entry: dict[str, Any]) -> None:
        seat, action = entry["seat"], entry["action"]
        before = self._state
        rules = entry.get("rules")
        if rules is not None and action["type"] == "deal":
            # The first deal of a game names the game's rules (the host may change them
            # between games): the game as it began, with those.
            game = engine.make_rules(self.variant, rules)
            before = engine.new_game(self.variant, game, before.dealer)
        self._state = state = engine.apply(before, seat, action)
        kind = action["type"]
        if kind == "deal":
            self._hand = self._dealt(entry, state.dealer)
        elif kind == "rematch":
            self.games += 1
            self._hand = None
        elif self._hand is not None:
            self._hand.actions.append({"seat": seat, "action": action})
            if state.phase in SCORED and before.phase not in SCORED:
                self.records.append(self._finished(self._hand, state))
                self._hand = None

    def _dealt(self, entry: dict[str, Any], dealer: int) -> _Hand:
        seats = len(self._seating)
        deck = list(entry["action"]["deck"])
        notes = entry.get("deal") or {}
        hands, stock = dealt_hands(deck, dealer, seats)
        return _Hand(
            game=self.games,
            dealer=dealer,
            seats=list(entry.get("seats") or self._seating),
            deal={
                "commitment": notes.get("commitment"),
                "server_seed": notes.get("server_seed"),
                "entropy": list(notes.get("entropy") or [None] * seats),
                # A deal logged before commit-reveal has neither (its values were sent
                # openly): `commits` null tells a checker so.
                "commits": notes.get("commits"),
                "withheld": list(notes.get("withheld") or []),
                "deck": deck,
            },
            hands=hands,
            stock=stock,
        )

    def _finished(self, hand: _Hand, state: engine.State) -> dict[str, Any]:
        view = engine.public_view(state)
        return {
            "n": len(self.records) + 1,
            "game": hand.game,
            "variant": self.variant,
            "rules": engine.rules_to_json(state.rules),
            "dealer": hand.dealer,
            "seats": hand.seats,
            "deal": hand.deal,
            "hands": hand.hands,
            "actions": hand.actions,
            "tricks": view["tricks"],
            "result": view["last_hand"],
            "teams": view["teams"],
            "stock": hand.stock,
            "scores": view["scores"],
            "winners": view["winners"],
        }

    def record(self, n: int) -> dict[str, Any] | None:
        """The record of finished hand `n`, or None (no such hand, or still in play)."""
        if 1 <= n <= len(self.records):
            return self.records[n - 1]
        return None

    def summaries(self) -> list[dict[str, Any]]:
        """`GET /api/rooms/{code}/hands`: every finished hand, oldest first."""
        return [summary(r) for r in self.records]


def summary(record: dict[str, Any]) -> dict[str, Any]:
    """A finished hand as the list of hands shows it."""
    result = record["result"]
    return {
        "n": record["n"],
        "game": record["game"],
        "dealer": record["dealer"],
        "bidder": result["bidder"],
        "bid": result["bid"],
        "made": result["made"],
        "deltas": result["deltas"],
    }
