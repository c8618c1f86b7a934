"""Moves the room makes for a seat: a bot's, or a silent player's (played by the default
bot: away, or out of time on the turn timer), and what they fall back on.

A bot decides from its own seat's view only, the same dict a person at that seat sees,
so it cannot peek (`thinking.py` has the decision computed off the event loop). Whatever
it answers is validated like a person's frame; should a bot fail (raise, crash, or answer
something the rules refuse), the first legal action is played instead, because a room
must never stall on a bot.
"""

from __future__ import annotations

from typing import Any

from schmier import engine
from schmier.engine import Action
from schmier.engine.bots import levels
from schmier.logs import failure
from schmier.rooms import table
from schmier.rooms.frames import room_view
from schmier.rooms.peers import Refused
from schmier.rooms.record import RoomRecord


def policy_for(record: RoomRecord, seat: int) -> str:
    """The policy that plays `seat`: its bot's level, or the default bot for a person
    who is away (and for a level this server no longer has)."""
    current = record.seats[seat]
    name = current.bot if current.kind == "bot" else None
    return levels.BY_NAME.get(name or levels.default(), levels.level(None)).policy


def fallback_action(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A concrete action from a `legal` list, for when a bot policy fails.

    The first legal action (a discard template made concrete with its minimum) keeps the
    game going.
    """
    first = dict(legal[0])
    if first["type"] == "discard":
        return {"type": "discard", "cards": list(first["from"])[: int(first["min"])]}
    return first


def forced(legal: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The one action `legal` allows (no choice to think about), else None."""
    if len(legal) != 1:
        return None
    only = legal[0]
    if only["type"] == "discard":
        low, high = int(only["min"]), int(only["max"])
        if not (low == high and low in (0, len(only["from"]))):
            return None
    return fallback_action(legal)


def is_legal(answer: dict[str, Any], legal: list[dict[str, Any]]) -> bool:
    """Whether `answer` is one entry of `legal` (a discard: within its template)."""
    if answer.get("type") != "discard":
        return answer in legal
    cards = answer.get("cards")
    if not isinstance(cards, list) or len(set(cards)) != len(cards):
        return False
    return any(
        entry["type"] == "discard"
        and set(cards) <= set(entry["from"])
        and int(entry["min"]) <= len(cards) <= int(entry["max"])
        for entry in legal
    )


def fallback(record: RoomRecord, seat: int) -> Action:
    """The first legal action of `seat` (the seat must have one)."""
    return engine.parse_action(fallback_action(room_view(record, seat)["legal"]))


def play(
    record: RoomRecord, seat: int, answer: dict[str, Any] | None, shuffler: table.Shuffler
) -> table.Change:
    """The change of the bot's move `answer` for `seat` (None: the bot failed). Should
    the rules refuse it, the first legal action is played instead."""
    if answer is None:
        return table.act(record, seat, fallback(record, seat), shuffler)
    try:
        return table.act(record, seat, engine.parse_action(answer), shuffler)
    except (Refused, engine.EngineError, ValueError, KeyError, TypeError):
        failure("room.bot_refused", room=record.code, seat=seat)
        return table.act(record, seat, fallback(record, seat), shuffler)
