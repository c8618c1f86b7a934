"""The engine's front door: parse an action, check it against the phase and the turn,
and hand it to the phase that knows its rule; or, for a search that only ever plays
moves it took from `legal_moves`, skip every check (`apply_trusted`).

One module per phase does the work (`bidding`, `trump`, `drawing`, `partner`, `play`),
each with a checked `apply` that tests its rule and then calls `step`, the change itself,
which the trusted path calls directly. This module only routes, so that the order of
checks (shape, then phase, then turn, then the rule) and therefore the error a player
gets is the same for every action, and the legal moves come from one place: each
phase's `moves` (or the discard's `template`), which `legal_actions` turns into the
protocol's dicts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from . import bidding, dealing, drawing, partner, play, trump
from .actions import Action, as_action, cards_of
from .cards import CARD_NAMES
from .cards import cards_of as cards_in
from .drawing import DiscardTemplate
from .errors import IllegalAction, NotYourTurn
from .state import State, new_game
from .variants import Rules, get_variant

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

_Change = Callable[[State, int, Any], State]

#: The checked change of each kind of action (the rule is tested, then `step` runs).
_APPLY: dict[str, _Change] = {
    "bid": bidding.apply,
    "pass": bidding.apply,
    "trump": trump.apply,
    "discard": drawing.apply,
    "call": partner.apply,
    "play": play.apply,
}

#: The unchecked change of each kind of action.
_STEP: dict[str, _Change] = {
    "bid": bidding.step,
    "pass": bidding.step,
    "trump": trump.step,
    "discard": drawing.step,
    "call": partner.step,
    "play": play.step,
}

#: The legal moves of each phase in which they can be listed (not `discard`).
_MOVES: dict[str, Callable[[State, int], list[Action]]] = {
    "bidding": bidding.moves,
    "trump": trump.moves,
    "call": partner.moves,
    "play": play.moves,
}

_REMATCH = Action("rematch")


def apply(state: State, seat: int | None, action: Action | Mapping[str, Any]) -> State:
    """The state after `seat` (None: the dealer's shuffle, a chance action) does `action`.

    `action` is an `Action`, or a protocol object, which is parsed first (the validating
    entry point for untrusted input). Raises MalformedAction, NotYourTurn or
    IllegalAction, and then nothing has changed (states are immutable, so there is
    nothing to roll back).
    """
    kind, arg = as_action(action)
    if kind == "deal":
        if seat is not None:
            raise IllegalAction("only the server deals")
        return dealing.deal(state, dealing.check_deck(state, arg))
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


def apply_trusted(state: State, seat: int | None, action: Action) -> State:
    """The state after `seat` does `action`, with no check at all: the fast path.

    Only for actions taken from `legal_moves(state, seat)`, a discard of distinct cards
    within `discard_template(state, seat)`, or (seat None) the deal of a permutation of
    the deck when `needs_deal(state)`. Anything else gives a wrong state without an
    error, as python-chess's `push` and OpenSpiel's `ApplyAction` do; untrusted input
    goes through `apply`. For searches and simulations, which make millions of moves
    they generated themselves: on those moves it reaches exactly the state `apply` does.
    """
    if seat is None:
        return dealing.step(state, action.arg)
    kind, arg = action
    if kind == "rematch":
        return rematch(state)
    return _STEP[kind](state, seat, arg)


def deal(state: State, deck: Iterable[str]) -> State:
    """The chance action: deal `deck` (a permutation of `full_deck`)."""
    return apply(state, None, Action("deal", cards_of(list(deck), "a deal's deck")))


def rematch(state: State) -> State:
    """A new game with the same seats and rules; the deal passes left as after any hand."""
    v = state.variant
    return new_game(v.name, state.rules, (state.dealer + 1) % v.seats)


def legal_moves(state: State, seat: int | None) -> list[Action]:
    """Every action `seat` may take now, as `Action`s: bids and pass, trumps, calls,
    plays, the rematch; `[]` when the seat has nothing to do.

    A discard is a set of cards, too many to list: in phase `discard` an awaited seat's
    moves are described by `discard_template` instead, and asking here is a ValueError.
    """
    if seat is None:
        return []
    if state.phase == "game_over":
        return [_REMATCH]
    if seat not in state.turn:
        return []
    moves = _MOVES.get(state.phase)
    if moves is None:
        raise ValueError(f"the moves of phase {state.phase} come from discard_template")
    return moves(state, seat)


def discard_template(state: State, seat: int | None) -> DiscardTemplate | None:
    """The discard `seat` may make now (cards as a mask, fewest, most), or None when it
    has no discard to make."""
    if seat is None or state.phase != "discard" or seat not in state.turn:
        return None
    return drawing.template(state, seat)


def legal_actions(state: State, seat: int | None) -> list[dict[str, Any]]:
    """Every action `seat` may send now, exactly as the protocol's `legal` lists them:
    `legal_moves` as JSON, or in phase `discard` the template."""
    if state.phase == "discard":
        template = discard_template(state, seat)
        return [] if template is None else [template.to_json()]
    return list(map(Action.to_json, legal_moves(state, seat)))


def turn(state: State) -> list[int]:
    """The seats whose action is awaited (several at once during Schmier discards)."""
    return list(state.turn)


def needs_deal(state: State) -> bool:
    """Whether the server must deal next (at once in `deal`, after a pause in `hand_over`)."""
    return state.phase in ("deal", "hand_over")


def full_deck(variant: str) -> list[str]:
    """The cards of `variant` in a fixed order, to be shuffled by the caller."""
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
    for c, place in _placed(state):
        name = CARD_NAMES[c]
        if name in places:
            raise AssertionError(f"{name} is both in {places[name]} and {place}")
        places[name] = place
    return places


def _placed(state: State) -> Iterator[tuple[int, str]]:
    """Every card the state holds, with its place, in no particular order."""
    for seat, hand in enumerate(state.hands):
        for c in cards_in(hand):
            yield c, f"hand:{seat}"
    for seat, discards in enumerate(state.discards):
        for c in cards_in(discards):
            yield c, f"discard:{seat}"
    for c in state.stock:
        yield c, "stock"
    for _, c in state.trick:
        yield c, "trick"
    for plays, winner in state.tricks:
        for _, c in plays:
            yield c, f"won:{winner}"
