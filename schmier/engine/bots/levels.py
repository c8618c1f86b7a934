"""The bots players pick from, by name: what the lobby lists and `GET /api/bots` answers.

A level is a named policy with words for players (English here; the client shows its
own translation of ``bot.<name>.label`` and ``bot.<name>.description`` where it has
one). `LEVELS` runs strongest first and its first entry is the server's default bot:
it fills empty seats, plays for away players and answers hints.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Level:
    """One bot a room can seat."""

    name: str
    """The wire name (``add_bot``'s ``bot``, a seat's ``bot``)."""
    label: str
    description: str
    policy: str
    """The entry of `bots.PLAYERS` that plays for it."""


LEVELS: tuple[Level, ...] = (
    Level(
        name="strong",
        label="Strong",
        description="Thinks ahead: imagines the cards it cannot see many times over and"
        " plays what works best across them. Bids only what it can make.",
        policy="strong",
    ),
    Level(
        name="normal",
        label="Normal",
        description="Plays by rules of thumb: bids what its hand is worth, keeps its trumps"
        " and smears its partner's tricks.",
        policy="heuristic",
    ),
    Level(
        name="easy",
        label="Easy",
        description="Knows the rules of thumb but slips now and then: a wrong card, a bid"
        " too many, a card kept that should have gone. Good for learning.",
        policy="easy",
    ),
    Level(
        name="random",
        label="Random",
        description="Plays any legal card at random. For testing, or an easy win.",
        policy="random",
    ),
)

DEFAULT: str = LEVELS[0].name
"""The server's default bot."""

BY_NAME: dict[str, Level] = {level.name: level for level in LEVELS}


def level(name: str | None) -> Level:
    """The level called `name` (the default for None); ``KeyError`` for an unknown name."""
    return BY_NAME[DEFAULT if name is None else name]
