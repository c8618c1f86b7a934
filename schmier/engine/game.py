"""The engine's front door: parse an action, check it against the phase and the turn,
and hand it to the phase that knows its rule.

One function per phase does the work (`bidding`, `trump`, `drawing`, `partner`, `play`);
this module only routes, so that the order of checks (shape, then phase, then turn, then
the rule) and therefore the error a player gets is the same for every action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from . import bidding, drawing, partner, play, trump
from .cards import CARD_INDEX, CARD_NAMES, SUITS, cards_of
from .dealing import check_deck
from .dealing import deal as _deal
from .errors import IllegalAction, MalformedAction, NotYourTurn
from .state import State, new_game
from .variants import Rules

#: The phase in which each action type is allowed.
PHASE_OF = {
    "bid": "bidding",
    "pass": "bidding",
    "trump": "trump",
    "discard": "discard",
    "call": "call",
    "play": "play",
    "rematch": "game_over",
}

#: The fields each action carries besides "type": frames with others are malformed.
FIELDS: dict[str, frozenset[str]] = {
    "bid": frozenset({"type", "amount"}),
    "pass": frozenset({"type"}),
    "trump": frozenset({"type", "suit"}),
    "discard": frozenset({"type", "cards"}),
    "call": frozenset({"type", "card"}),
    "play": frozenset({"type", "card"}),
    "rematch": frozenset({"type"}),
    "deal": frozenset({"type", "deck"}),
}

MAX_DISCARD = 32
_PLAY_FIELDS = FIELDS["play"]


def _card(value: Any) -> int:
    c = CARD_INDEX.get(value) if isinstance(value, str) else None
    if c is not None:
        return c
    if not isinstance(value, str) or value.upper() not in CARD_INDEX:
        raise MalformedAction(f"{value!r} is not a card (write rank then suit, like 'AS')")
    return CARD_INDEX[value.upper()]


def _parse(action: Any) -> tuple[str, Any]:
    """(type, argument) of a protocol action; MalformedAction when its shape is wrong."""
    if type(action) is not dict and not isinstance(action, Mapping):
        raise MalformedAction("an action must be a JSON object")
    kind = action.get("type")
    if kind == "play" and action.keys() == _PLAY_FIELDS:
        # The action of four in five: the fast path.
        return kind, _card(action["card"])
    if not isinstance(kind, str) or kind not in FIELDS:
        raise MalformedAction(f"unknown action type {kind!r}")
    fields = FIELDS[kind]
    if fields is None:
        raise MalformedAction(f"unknown action type {kind!r}")
    if action.keys() != fields:
        raise MalformedAction(f"a {kind!r} action has exactly the fields {sorted(fields)}")
    if kind == "bid":
        amount = action["amount"]
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise MalformedAction("a bid amount must be a whole number")
        return kind, amount
    if kind == "trump":
        suit = action["suit"]
        if not isinstance(suit, str) or suit.upper() not in SUITS or len(suit) != 1:
            raise MalformedAction("a suit is one of 'S', 'H', 'D', 'C'")
        return kind, SUITS.index(suit.upper())
    if kind == "discard":
        cards = action["cards"]
        if not isinstance(cards, list) or len(cards) > MAX_DISCARD:
            raise MalformedAction("a discard's cards must be a list of cards")
        return kind, [_card(c) for c in cards]
    if kind == "call":
        return kind, None if action["card"] is None else _card(action["card"])
    if kind == "play":
        return kind, _card(action["card"])
    if kind == "deal":
        deck = action["deck"]
        if not isinstance(deck, list):
            raise MalformedAction("a deal's deck must be a list of cards")
        return kind, [_card(c) for c in deck]
    return kind, None


_APPLY: dict[str, Callable[[State, int, Any], State]] = {
    "bid": bidding.apply,
    "pass": bidding.apply,
    "trump": trump.apply,
    "discard": drawing.apply,
    "call": partner.apply,
    "play": play.apply,
}


def apply(state: State, seat: int | None, action: Mapping[str, Any]) -> State:
    """The state after `seat` (None: the dealer's shuffle, a chance action) does `action`.

    Raises MalformedAction, NotYourTurn or IllegalAction, and then nothing has changed
    (states are immutable, so there is nothing to roll back).
    """
    kind, arg = _parse(action)
    if kind == "deal":
        if seat is not None:
            raise IllegalAction("only the server deals")
        return _deal(state, check_deck(state, arg))
    if seat is None:
        raise IllegalAction("spectators cannot act")
    if not isinstance(seat, int) or not 0 <= seat < state.variant.seats:
        raise IllegalAction(f"there is no seat {seat!r}")
    if PHASE_OF[kind] != state.phase:
        raise IllegalAction(f"you cannot {kind} now: the game is in phase {state.phase}")
    if kind == "rematch":
        return rematch(state)
    if seat not in state.turn:
        raise NotYourTurn("it is not your turn")
    return _APPLY[kind](state, seat, arg)


def deal(state: State, deck: Iterable[str]) -> State:
    """The chance action: deal `deck` (a permutation of `full_deck`)."""
    return apply(state, None, {"type": "deal", "deck": list(deck)})


def rematch(state: State) -> State:
    """A new game with the same seats and rules; the deal passes left as after any hand."""
    v = state.variant
    return new_game(v.name, state.rules, (state.dealer + 1) % v.seats)


_LEGAL: dict[str, Callable[[State, int], list[dict[str, Any]]]] = {
    "bidding": bidding.legal,
    "trump": trump.legal,
    "discard": drawing.legal,
    "call": partner.legal,
    "play": play.legal,
}


def legal_actions(state: State, seat: int | None) -> list[dict[str, Any]]:
    """Every action `seat` may send now, exactly as the protocol's `legal` lists them."""
    if seat is None:
        return []
    if state.phase == "game_over":
        return [{"type": "rematch"}]
    if seat not in state.turn:
        return []
    return _LEGAL[state.phase](state, seat)


def turn(state: State) -> list[int]:
    """The seats whose action is awaited (several at once during Schmier discards)."""
    return list(state.turn)


def needs_deal(state: State) -> bool:
    """Whether the server must deal next (at once in `deal`, after a pause in `hand_over`)."""
    return state.phase in ("deal", "hand_over")


def full_deck(variant: str) -> list[str]:
    """The cards of `variant` in a fixed order, to be shuffled by the caller."""
    from .variants import get_variant

    return [CARD_NAMES[c] for c in get_variant(variant).deck]


def replay(
    variant: str, rules: Rules, dealer: int, log: Iterable[tuple[int | None, Mapping[str, Any]]]
) -> State:
    """The state reached by applying `log` to a new game: how a game is audited or resumed."""
    state = new_game(variant, rules, dealer)
    for seat, action in log:
        state = apply(state, seat, action)
    return state


def card_places(state: State) -> dict[str, str]:
    """Where every card of the game is: `hand:k`, `stock`, `discard:k`, `trick` or `won:k`.

    For tests and audits (every card in exactly one place); never sent to a player.
    """
    places: dict[str, str] = {}

    def put(c: int, place: str) -> None:
        name = CARD_NAMES[c]
        if name in places:
            raise AssertionError(f"{name} is both in {places[name]} and {place}")
        places[name] = place

    for seat, hand in enumerate(state.hands):
        for c in cards_of(hand):
            put(c, f"hand:{seat}")
    for seat, discards in enumerate(state.discards):
        for c in cards_of(discards):
            put(c, f"discard:{seat}")
    for c in state.stock:
        put(c, "stock")
    for _, c in state.trick:
        put(c, "trick")
    for plays, winner in state.tricks:
        for _, c in plays:
            put(c, f"won:{winner}")
    return places
