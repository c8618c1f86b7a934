"""The errors the engine raises, one type per answer the server gives.

Malformed input and illegal moves are different errors (as in python-chess), because the
server answers them differently: a malformed frame is the client's bug (`bad_message`),
an illegal one is a player trying something the rules forbid (`illegal`), and acting out
of turn is common enough in a real-time game to deserve its own code (`not_your_turn`).
"""

from __future__ import annotations

from typing import ClassVar


class EngineError(Exception):
    """Base of every error the engine raises for bad input; the state is never changed.

    `code` is the protocol's error code for it, so the server answers any engine error
    with `exc.code` and needs no table of its own (a subclass keeps its own code).
    """

    code: ClassVar[str] = "bad_message"


class MalformedAction(EngineError):
    """The action is not of any shape the protocol knows (wrong type, field or value)."""

    code: ClassVar[str] = "bad_message"


class IllegalAction(EngineError):
    """The action is well formed but the rules do not allow it now."""

    code: ClassVar[str] = "illegal"


class NotYourTurn(IllegalAction):
    """The action may be legal for someone, but this seat is not being waited for."""

    code: ClassVar[str] = "not_your_turn"


class RulesError(ValueError):
    """A variant or house-rule setting that does not exist or does not apply."""
