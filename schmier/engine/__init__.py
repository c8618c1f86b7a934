"""The rules of schmier6, schmier5 and wisconsin4: pure, deterministic, replayable.

No I/O, no clock, no asyncio; randomness (the shuffled deck) comes in as an action. Two
ways in: `apply` validates anything (a protocol object or an `Action`) and raises on
what the rules forbid; `apply_trusted` checks nothing, for a search playing the moves
it took from `legal_moves` / `discard_template`. See docs/architecture.md for the
contract the server, the bots and the tests rely on.
"""

from __future__ import annotations

from .actions import MAX_DISCARD, Action, parse_action
from .description import describe, describe_all
from .drawing import DiscardTemplate
from .errors import EngineError, IllegalAction, MalformedAction, NotYourTurn, RulesError
from .game import (
    apply,
    apply_trusted,
    card_places,
    deal,
    discard_template,
    full_deck,
    legal_actions,
    legal_moves,
    needs_deal,
    rematch,
    replay,
    turn,
)
from .state import PHASES, LastHand, State, new_game, state_from_json, state_to_json
from .variants import (
    VARIANTS,
    Rules,
    default_rules,
    get_variant,
    make_rules,
    rules_from_json,
    rules_to_json,
)
from .view import (
    PRIVATE_KEYS,
    lobby_private_view,
    lobby_public_view,
    lobby_view,
    private_view,
    public_view,
    view,
)


def seat_count(variant: str) -> int:
    """How many seats `variant` has."""
    return get_variant(variant).seats


def teams(variant: str) -> list[list[int]]:
    """The scoring units of `variant`, as the protocol's `teams`."""
    return [list(t) for t in get_variant(variant).teams]


__all__ = [
    "MAX_DISCARD",
    "PHASES",
    "PRIVATE_KEYS",
    "VARIANTS",
    "Action",
    "DiscardTemplate",
    "EngineError",
    "IllegalAction",
    "LastHand",
    "MalformedAction",
    "NotYourTurn",
    "Rules",
    "RulesError",
    "State",
    "apply",
    "apply_trusted",
    "card_places",
    "deal",
    "default_rules",
    "describe",
    "describe_all",
    "discard_template",
    "full_deck",
    "get_variant",
    "legal_actions",
    "legal_moves",
    "lobby_private_view",
    "lobby_public_view",
    "lobby_view",
    "make_rules",
    "needs_deal",
    "new_game",
    "parse_action",
    "private_view",
    "public_view",
    "rematch",
    "replay",
    "rules_from_json",
    "rules_to_json",
    "seat_count",
    "state_from_json",
    "state_to_json",
    "teams",
    "turn",
    "view",
]
