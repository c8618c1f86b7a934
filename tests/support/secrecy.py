"""What the secrecy tests share: finding cards in a frame, and the states behind a log."""

from __future__ import annotations

import re
from typing import Any

import orjson

from schmier import engine

CARD = re.compile(r"^(?:[2-9TJQKA][SHDC]|X[12])$")
ROOM_SEAT_FIELDS = ("name", "kind", "connected")
ROOM_FIELDS = ("code", "next_deal", "deal")
"""What the server adds to the engine's view: the room's code and the deal commitments."""


def cards_in(value: Any) -> set[str]:
    """Every card-like string anywhere in a JSON value (keys included)."""
    found: set[str] = set()
    if isinstance(value, str):
        if CARD.match(value):
            found.add(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            found |= cards_in(key) | cards_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= cards_in(item)
    return found


def engine_part(view: dict[str, Any]) -> dict[str, Any]:
    """The view without the fields the server adds to the engine's."""
    out = {k: v for k, v in view.items() if k not in ROOM_FIELDS}
    out["seats"] = [
        {k: v for k, v in s.items() if k not in ROOM_SEAT_FIELDS} for s in view["seats"]
    ]
    return out


def states_of(variant: str, rules: dict[str, Any], dealer: int, log: list[bytes]) -> list[Any]:
    """Every state of the room's games from the stored log, first deal on (rematches too)."""
    state = engine.new_game(variant, engine.make_rules(variant, rules), dealer)
    states = []
    for raw in log:
        entry = orjson.loads(raw)
        state = engine.apply(state, entry["seat"], entry["action"])
        states.append(state)
    return states
