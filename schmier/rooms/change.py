"""A change of a room not yet committed, and the deal that may come with it.

Every function that changes a room (`table`, `hosting`, `rematch`) returns a `Change`:
the next record and the log entries that led to it. The actor commits it and only then
sends views. A deal that follows an action at once is part of that action's change
(`with_deal`), unless the players' values must be asked for first (the reveal), and the
room's chance comes in through a `Shuffler`.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, Protocol

from schmier import engine
from schmier.engine import Action
from schmier.rooms import fairness
from schmier.rooms.record import OPS_KEPT, RoomRecord, log_entry


class Entry(NamedTuple):
    """One accepted engine action for the log: the seat (None: the server's deal), the
    action, and for a deal the notes the log keeps with it (`record.log_entry`)."""

    seat: int | None
    action: Action
    notes: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Change:
    """The next record of a room and the log entries that led to it, not yet committed.

    `op` is the id of the forwarded operation that caused it (None for a local one); it is
    committed with the record (`RoomRecord.ops`), so a new owner can tell an operation
    already applied from one never seen.
    """

    record: RoomRecord
    entries: tuple[Entry, ...] = ()
    op: str | None = None

    def with_op(self, op: str | None) -> Change:
        """This change as caused by the forwarded operation `op`."""
        if op is None:
            return self
        return replace(self, op=op)

    def stored(self) -> RoomRecord:
        """The record as committed: with its host and shared review settled
        (`RoomRecord.with_host`, `with_review`), the
        operation id remembered, and a next seed should the room come from a snapshot
        that had none (format 1)."""
        record = self.record.with_host().with_review()
        if record.next_deal is None:
            record = replace(record, next_deal=fairness.NextDeal.fresh(len(record.seats)))
        if self.op is None:
            return record
        return replace(record, ops=(*record.ops, self.op)[-OPS_KEPT:])

    def log(self) -> list[bytes]:
        """The log entries as the store keeps them."""
        return [log_entry(e.seat, e.action.to_json(), e.notes) for e in self.entries]


class Shuffler(Protocol):
    """Where a room's chance comes from."""

    def first_dealer(self, seats: int) -> int:
        """The first dealer of a new game, uniformly among `seats`."""

    def server_seed(self) -> str:
        """A fresh server seed: 64 lowercase hex characters nobody can predict."""


class SecureShuffler:
    """The server's chance: the OS's CSPRNG, through `secrets` (docs/rules.md, step 1)."""

    def first_dealer(self, seats: int) -> int:
        return secrets.randbelow(seats)

    def server_seed(self) -> str:
        return fairness.new_seed()


def with_deal(
    record: RoomRecord,
    state: engine.State,
    entries: Sequence[Entry],
    shuffler: Shuffler,
    *,
    now: bool = False,
) -> Change:
    """`state` in the record, dealt first when the engine waits for a deal right now.

    A deal is due at once after a start, a rematch or a hand everybody passed; `now`
    says that its time has come otherwise: the pause between hands is over, or the
    reveal window closed (both the clock's to say).

    A due deal first opens the reveal when a seat a person holds committed to its
    entropy (`NextDeal.opened`): the room stays as it is (the engine's `deal` phase
    after a start, a rematch or a redeal; `hand_over` between hands) while those seats
    are asked for their values, and deals as soon as all have answered (`entropy`) or
    when the window closes (`now`). With no commit it deals in the same change, so a
    room of bots never waits.

    The deck follows from the committed seed and the entropy; the log keeps both with
    the deal (and the seating), and a new seed is committed at once for the deal after,
    which may come at once too (everybody passes). The first deal of a game also logs
    the game's rules, which the host may change between games, so that the records
    fold each game with its own (`records.Book`).
    """
    entries = tuple(entries)
    seats = len(record.seats)
    if engine.needs_deal(state) and (now or state.phase == "deal"):
        pending = record.next_deal or fairness.NextDeal.fresh(seats, shuffler.server_seed())
        if not pending.revealing:
            pending = pending.opened(record.players())
            if pending.revealing:
                return Change(replace(record, state=state, next_deal=pending), entries)
        elif not (now or pending.complete()):
            return Change(replace(record, state=state), entries)
        first_of_game = state.deals == 0
        deal = Action("deal", pending.deck(record.variant))
        state = engine.apply(state, None, deal)
        notes = {"deal": pending.revealed(), "seats": record.deal_seats()}
        if first_of_game:
            notes["rules"] = engine.rules_to_json(state.rules)
        entries = (*entries, Entry(None, deal, notes))
        following = fairness.NextDeal.fresh(seats, shuffler.server_seed())
        record = replace(record, next_deal=following, dealt=pending.commitment)
    return Change(replace(record, state=state), entries)
