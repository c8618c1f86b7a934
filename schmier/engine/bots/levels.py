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
"""The strongest level that keeps the time budget: the server's default bot unless its
operator picks another (`SCHMIER_DEFAULT_BOT`, see `choose_default`)."""

BY_NAME: dict[str, Level] = {level.name: level for level in LEVELS}

_chosen: list[str] = [DEFAULT]


def choose_default(name: str) -> None:
    """Make `name` the default bot of this process: the server does so once as it starts
    (a small machine may prefer `normal`, which costs a millisecond where `strong` costs
    a hundred). ``KeyError`` for an unknown name. One server runs per process, so one
    default is enough; the bots themselves never read it (they get their policy)."""
    _chosen[0] = BY_NAME[name].name


def default() -> str:
    """The name of this process's default bot."""
    return _chosen[0]


def listed() -> tuple[Level, ...]:
    """The levels as players are offered them: the default first, then the others
    strongest first (`GET /api/bots`)."""
    first = BY_NAME[default()]
    return (first, *(lvl for lvl in LEVELS if lvl is not first))


def level(name: str | None) -> Level:
    """The level called `name` (the default for None); ``KeyError`` for an unknown name."""
    return BY_NAME[default() if name is None else name]
