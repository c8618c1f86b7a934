"""The state of one game: an immutable value that serialises to JSON and back.

Everything is small ints and tuples of them (hands are bit masks) in a NamedTuple, so the
next state is one tuple construction (a frozen dataclass's `replace` was the biggest
single cost of a hand) and two states compare equal exactly when the games are in the same position.
Secrets (hands, stock, discards, the hidden partner, an uncommitted trump) live here in
plain sight: `view.py` is the only way out of the engine towards a player.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .cards import CARD_NAMES, SUITS, mask_of, names, parse
from .variants import VARIANT_TABLE, Rules, Variant, get_variant, rules_from_json, rules_to_json

#: A card played to a trick: (seat, card).
Play = tuple[int, int]
#: A finished trick: its plays in order and the seat that won it.
Trick = tuple[tuple[Play, ...], int]

PHASES = ("deal", "bidding", "trump", "discard", "call", "play", "hand_over", "game_over")


class LastHand(NamedTuple):
    """The record of the last scored hand, public to everyone."""

    #: The sides of the hand, the bidder's first.
    sides: tuple[tuple[int, ...], ...]
    #: Per point name (in the variant's order): the side that took it, or None.
    points: tuple[int | None, ...]
    #: Per point name: the seat that earned it (played high/low, won the trick), or None.
    by: tuple[int | None, ...]
    #: Card points towards "game" per side.
    game_totals: tuple[int, ...]
    bidder: int
    bid: int
    made: bool
    #: Score change per scoring unit (entry of `teams`).
    deltas: tuple[int, ...]
    #: schmier5: the called card (None: alone by declaration).
    called: int | None


class State(NamedTuple):
    """One game at one moment. Build with `new_game`, change with `apply`."""

    variant: Variant
    rules: Rules
    phase: str
    dealer: int
    #: Hands dealt so far in this game (redeals included).
    deals: int
    #: Each seat's cards, as bit masks.
    hands: tuple[int, ...]
    #: The stock (Schmier) or undealt cards (wisconsin4), top first.
    stock: tuple[int, ...]
    #: What each seat discarded this hand, as bit masks.
    discards: tuple[int, ...]
    #: The seats whose action is awaited.
    turn: tuple[int, ...]
    #: This hand's bids in order: (seat, amount or None for a pass).
    bids: tuple[tuple[int, int | None], ...]
    bidder: int | None
    bid: int | None
    #: The trump suit once named or committed (committed but hidden: trump_public False).
    trump: int | None
    trump_public: bool
    #: schmier5: the called card, None before the call or when playing alone.
    called: int | None
    #: schmier5: the seat holding the called card (None: alone); secret until revealed.
    partner: int | None
    partner_revealed: bool
    trick: tuple[Play, ...]
    tricks: tuple[Trick, ...]
    #: One score per scoring unit (`variant.teams`).
    scores: tuple[int, ...]
    last_hand: LastHand | None
    #: At game_over: indexes into `variant.teams` of the winners.
    winners: tuple[int, ...] | None


_FIELD_INDEX = {name: i for i, name in enumerate(State._fields)}
_new_tuple = tuple.__new__


def evolve(state: State, **changes: Any) -> State:
    """`state` with some fields changed: NamedTuple's `_replace`, twice as fast.

    Applying an action is mostly making the next state, so this is the engine's hottest
    line; an unknown field name raises KeyError.
    """
    values = list(state)
    for name, value in changes.items():
        values[_FIELD_INDEX[name]] = value
    return _new_tuple(State, values)


def bidder_seat(state: State) -> int:
    """The bidder, for phases that only exist once bidding is won."""
    if state.bidder is None:
        raise AssertionError(f"no bidder in phase {state.phase}")
    return state.bidder


def fresh_hand(seats: int) -> dict[str, Any]:
    """The fields of a hand before anybody has bid: what every deal starts from."""
    return {
        "discards": (0,) * seats,
        "bids": (),
        "bidder": None,
        "bid": None,
        "trump": None,
        "trump_public": False,
        "called": None,
        "partner": None,
        "partner_revealed": False,
        "trick": (),
        "tricks": (),
    }


def new_game(variant: str, rules: Rules, dealer: int) -> State:
    """A game before its first deal. The server picks `dealer` at random."""
    v = get_variant(variant)
    if not isinstance(dealer, int) or not 0 <= dealer < v.seats:
        raise ValueError(f"dealer must be a seat from 0 to {v.seats - 1}")
    n = v.seats
    return State(
        variant=v,
        rules=rules,
        phase="deal",
        dealer=dealer,
        deals=0,
        hands=(0,) * n,
        stock=(),
        turn=(),
        **fresh_hand(n),
        scores=(0,) * len(v.teams),
        last_hand=None,
        winners=None,
    )


def _names(cards: Any) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def plays_to_json(plays: tuple[Play, ...]) -> list[dict[str, Any]]:
    """Cards played to a trick, as the JSON of a state and of a view carry them."""
    return [{"seat": s, "card": CARD_NAMES[c]} for s, c in plays]


def last_hand_to_json(lh: LastHand, point_names: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The record of the last hand as JSON: the stored state's shape, or with
    `point_names` the view's, whose `points` and `by` are keyed by the point names."""
    points: Any = list(lh.points)
    by: Any = list(lh.by)
    if point_names is not None:
        points = dict(zip(point_names, lh.points, strict=True))
        by = dict(zip(point_names, lh.by, strict=True))
    return {
        "sides": [list(s) for s in lh.sides],
        "points": points,
        "by": by,
        "game_totals": list(lh.game_totals),
        "bidder": lh.bidder,
        "bid": lh.bid,
        "made": lh.made,
        "deltas": list(lh.deltas),
        "called": None if lh.called is None else CARD_NAMES[lh.called],
    }


def _plays_from_json(obj: list[dict[str, Any]]) -> tuple[Play, ...]:
    return tuple((int(p["seat"]), parse(p["card"])) for p in obj)


def state_to_json(state: State) -> dict[str, Any]:
    """A JSON-ready dict of the whole state, secrets included (for the store only)."""
    lh = state.last_hand
    return {
        "variant": state.variant.name,
        "rules": rules_to_json(state.rules),
        "phase": state.phase,
        "dealer": state.dealer,
        "deals": state.deals,
        "hands": [names(h) for h in state.hands],
        "stock": _names(state.stock),
        "discards": [names(d) for d in state.discards],
        "turn": list(state.turn),
        "bids": [[s, a] for s, a in state.bids],
        "bidder": state.bidder,
        "bid": state.bid,
        "trump": None if state.trump is None else SUITS[state.trump],
        "trump_public": state.trump_public,
        "called": None if state.called is None else CARD_NAMES[state.called],
        "partner": state.partner,
        "partner_revealed": state.partner_revealed,
        "trick": plays_to_json(state.trick),
        "tricks": [{"cards": plays_to_json(p), "winner": w} for p, w in state.tricks],
        "scores": list(state.scores),
        "last_hand": None if lh is None else last_hand_to_json(lh),
        "winners": None if state.winners is None else list(state.winners),
    }


def state_from_json(obj: dict[str, Any]) -> State:
    """The state `state_to_json` wrote (trusted input: it comes from our own store)."""
    v = VARIANT_TABLE[obj["variant"]]
    lh = obj["last_hand"]
    return State(
        variant=v,
        rules=rules_from_json(v.name, obj["rules"]),
        phase=obj["phase"],
        dealer=obj["dealer"],
        deals=obj["deals"],
        hands=tuple(mask_of(parse(c) for c in h) for h in obj["hands"]),
        stock=tuple(parse(c) for c in obj["stock"]),
        discards=tuple(mask_of(parse(c) for c in d) for d in obj["discards"]),
        turn=tuple(obj["turn"]),
        bids=tuple((s, a) for s, a in obj["bids"]),
        bidder=obj["bidder"],
        bid=obj["bid"],
        trump=None if obj["trump"] is None else SUITS.index(obj["trump"]),
        trump_public=obj["trump_public"],
        called=None if obj["called"] is None else parse(obj["called"]),
        partner=obj["partner"],
        partner_revealed=obj["partner_revealed"],
        trick=_plays_from_json(obj["trick"]),
        tricks=tuple((_plays_from_json(t["cards"]), t["winner"]) for t in obj["tricks"]),
        scores=tuple(obj["scores"]),
        last_hand=None
        if lh is None
        else LastHand(
            sides=tuple(tuple(s) for s in lh["sides"]),
            points=tuple(lh["points"]),
            by=tuple(lh["by"]),
            game_totals=tuple(lh["game_totals"]),
            bidder=lh["bidder"],
            bid=lh["bid"],
            made=lh["made"],
            deltas=tuple(lh["deltas"]),
            called=None if lh["called"] is None else parse(lh["called"]),
        ),
        winners=None if obj["winners"] is None else tuple(obj["winners"]),
    )
