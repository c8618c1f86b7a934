"""Moves the room makes for a seat: a bot's, or a silent player's (played by the bot):
away, or out of time (the turn timer).

A bot decides from its own seat's view only, the same dict a person at that seat sees,
so it cannot peek. Whatever it answers is validated like a person's frame; should a bot
fail (raise, or answer something the rules refuse), the first legal action is played
instead, because a room must never stall on a bot.
"""

from __future__ import annotations

import random
from typing import Any

from schmier import engine
from schmier.engine import Action, bots
from schmier.engine.bots import levels
from schmier.logs import failure
from schmier.rooms import table
from schmier.rooms.frames import room_view
from schmier.rooms.peers import Refused
from schmier.rooms.record import RoomRecord

POLICY = levels.level(levels.DEFAULT).policy
"""The default bot's policy: it plays empty seats, absent players, and the turns whose
timer ran out."""


def fallback_action(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A concrete action from a `legal` list, for when a bot policy fails.

    The first legal action (a discard template made concrete with its minimum) keeps the
    game going.
    """
    first = dict(legal[0])
    if first["type"] == "discard":
        return {"type": "discard", "cards": list(first["from"])[: int(first["min"])]}
    return first


def fallback(record: RoomRecord, seat: int) -> Action:
    """The first legal action of `seat` (the seat must have one)."""
    return engine.parse_action(fallback_action(room_view(record, seat)["legal"]))


def decide(record: RoomRecord, seat: int, rng: random.Random) -> Action | None:
    """The action the bot chooses for `seat` now, from that seat's view alone; None when
    the seat has nothing to do. The rules still judge it (see `fallback`)."""
    if record.state is None:
        return None
    view = room_view(record, seat)
    if not view["legal"]:
        return None
    try:
        return engine.parse_action(bots.choose(POLICY, view, rng))
    except Exception:
        failure("room.bot_failed", room=record.code, seat=seat)
        return fallback(record, seat)


def move(
    record: RoomRecord, seat: int, rng: random.Random, shuffler: table.Shuffler
) -> table.Change | None:
    """The change of the bot's move for `seat` (None: nothing to do). Should the rules
    refuse what the bot chose, the first legal action is played instead."""
    action = decide(record, seat, rng)
    if action is None:
        return None
    try:
        return table.act(record, seat, action, shuffler)
    except Refused:
        failure("room.bot_refused", room=record.code, seat=seat)
        return table.act(record, seat, fallback(record, seat), shuffler)
