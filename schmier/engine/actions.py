"""Actions as small typed values: parsed once, at the edge, and trusted from then on.

A protocol action is a JSON object (`{"type": "play", "card": "AS"}`). Inside the engine
an action is an `Action`: its kind and one argument, with cards as the engine's ints. The
server turns a client's frame into an `Action` once, where the frame arrives; the rules,
the bots and the search never parse strings again (python-chess's `Move` versus its
`parse_uci`, OpenSpiel's action ids versus `ActionToString`).

`parse_action` is the one validating entry point for untrusted objects: it checks the
shape only (fields, types, card names) and raises `MalformedAction`; whether the action is
allowed now is the rules' business (`game.apply`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from .cards import CARD_INDEX, CARD_NAMES, SUITS
from .errors import MalformedAction
from .variants import VARIANT_TABLE

#: Every kind of action, with the fields its JSON object carries besides "type".
FIELDS: dict[str, tuple[str, ...]] = {
    "bid": ("amount",),
    "pass": (),
    "trump": ("suit",),
    "discard": ("cards",),
    "call": ("card",),
    "play": ("card",),
    "rematch": (),
    "deal": ("deck",),
}
KINDS: tuple[str, ...] = tuple(FIELDS)

MAX_DISCARD: int = max(len(v.deck) - 6 * v.seats for v in VARIANT_TABLE.values())
"""The most cards one discard can hold: a Schmier dealer who takes the whole stock of a
game where nobody exchanged discards all of it (17 in `schmier6`). The protocol's frame
model takes its limit from here, so the two can never disagree."""

_KEYS = {kind: frozenset({"type", *fields}) for kind, fields in FIELDS.items()}


class Action(NamedTuple):
    """One action of a seat (or, `deal`, of the server): what it is and its argument.

    `arg` by kind: `bid` the amount; `pass` and `rematch` None; `trump` the suit index
    (0-3, `SUITS` order); `discard` the cards as a tuple of card ints; `call` a card int or
    None (alone); `play` a card int; `deal` the whole deck as a tuple of card ints.
    """

    kind: str
    arg: Any = None

    def to_json(self) -> dict[str, Any]:
        """The protocol's JSON object of this action (what the log and the wire carry)."""
        kind, arg = self
        if kind == "play":
            return {"type": "play", "card": CARD_NAMES[arg]}
        if kind == "bid":
            return {"type": "bid", "amount": arg}
        if kind == "trump":
            return {"type": "trump", "suit": SUITS[arg]}
        if kind == "discard":
            return {"type": "discard", "cards": [CARD_NAMES[c] for c in arg]}
        if kind == "call":
            return {"type": "call", "card": None if arg is None else CARD_NAMES[arg]}
        if kind == "deal":
            return {"type": "deal", "deck": [CARD_NAMES[c] for c in arg]}
        return {"type": kind}


#: The play of every card, built once: play is the action of four in five, and listing
#: the legal ones is then a look-up per card. Actions are immutable, so sharing is safe.
PLAYS: tuple[Action, ...] = tuple(Action("play", c) for c in range(len(CARD_NAMES)))


def play(card: int) -> Action:
    """Play `card` (built without any parsing)."""
    return PLAYS[card]


def card_of(value: Any) -> int:
    """The engine's int for a card name such as "AS" (case-insensitive)."""
    if isinstance(value, str):
        c = CARD_INDEX.get(value)
        if c is None:
            c = CARD_INDEX.get(value.upper())
        if c is not None:
            return c
    raise MalformedAction(f"{value!r} is not a card (write rank then suit, like 'AS')")


def cards_of(values: Any, what: str, limit: int | None = None) -> tuple[int, ...]:
    """A list of card names as card ints; MalformedAction for anything else."""
    if not isinstance(values, Sequence) or isinstance(values, str | bytes):
        raise MalformedAction(f"{what} must be a list of cards")
    if limit is not None and len(values) > limit:
        raise MalformedAction(f"{what} holds at most {limit} cards")
    return tuple(card_of(v) for v in values)


def _bid(obj: Mapping[str, Any]) -> Action:
    amount = obj["amount"]
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise MalformedAction("a bid amount must be a whole number")
    return Action("bid", amount)


def _trump(obj: Mapping[str, Any]) -> Action:
    suit = obj["suit"]
    if not isinstance(suit, str) or len(suit) != 1 or suit.upper() not in SUITS:
        raise MalformedAction("a suit is one of 'S', 'H', 'D', 'C'")
    return Action("trump", SUITS.index(suit.upper()))


def _call(obj: Mapping[str, Any]) -> Action:
    card = obj["card"]
    return Action("call", None if card is None else card_of(card))


#: How each kind's fields become its argument (the fields themselves are checked first).
_PARSE: dict[str, Callable[[Mapping[str, Any]], Action]] = {
    "bid": _bid,
    "pass": lambda obj: Action("pass"),
    "trump": _trump,
    "discard": lambda obj: Action(
        "discard", cards_of(obj["cards"], "a discard's cards", MAX_DISCARD)
    ),
    "call": _call,
    "play": lambda obj: PLAYS[card_of(obj["card"])],
    "rematch": lambda obj: Action("rematch"),
    "deal": lambda obj: Action("deal", cards_of(obj["deck"], "a deal's deck")),
}


def parse_action(obj: Any) -> Action:
    """The `Action` of a protocol object; MalformedAction when its shape is wrong.

    Checks the shape only: the fields of the kind and no others, whole numbers, suits
    and card names. The rules check the rest when the action is applied.
    """
    if not isinstance(obj, Mapping):
        raise MalformedAction("an action must be a JSON object")
    kind = obj.get("type")
    if kind == "play" and obj.keys() == _KEYS["play"]:
        return PLAYS[card_of(obj["card"])]
    if not isinstance(kind, str) or kind not in FIELDS:
        raise MalformedAction(f"unknown action type {kind!r}")
    if obj.keys() != _KEYS[kind]:
        fields = sorted(_KEYS[kind])
        raise MalformedAction(f"a {kind!r} action has exactly the fields {fields}")
    return _PARSE[kind](obj)


def as_action(action: Action | Mapping[str, Any]) -> Action:
    """`action` itself, or the parsed form of a protocol object (validated)."""
    if type(action) is Action:
        return action
    return parse_action(action)
