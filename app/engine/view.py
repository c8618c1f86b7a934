"""Redaction: the one function that decides what a seat (or a spectator) may see.

It builds each view by copying in only what that viewer may see, never by copying the
state and deleting secrets (the way boardgame.io leaked hands). The server sends nothing
about a game that does not come out of here.
"""

from __future__ import annotations

from typing import Any

from .cards import CARD_NAMES, SUITS, cards_of
from .game import legal_actions
from .state import State
from .variants import Rules, get_variant, rules_to_json


def _plays(plays: Any) -> list[dict[str, Any]]:
    return [{"seat": s, "card": CARD_NAMES[c]} for s, c in plays]


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What `seat` (None: a spectator) may see, shaped as the protocol's View.

    Room-level fields are the server's: `code`, and `name`, `kind`, `connected` in each
    entry of `seats`.
    """
    v = state.variant
    me = seat if seat is not None and 0 <= seat < v.seats else None
    trump_public = state.trump is not None and state.trump_public
    partner: int | None = None
    if state.partner is not None and (state.partner_revealed or state.partner == me):
        partner = state.partner
    lh = state.last_hand
    return {
        "variant": v.name,
        "rules": rules_to_json(state.rules),
        "phase": state.phase,
        "you": me,
        "hand": [] if me is None else [CARD_NAMES[c] for c in cards_of(state.hands[me])],
        "seats": [{"seat": s, "cards": h.bit_count()} for s, h in enumerate(state.hands)],
        "teams": [list(t) for t in v.teams],
        "scores": list(state.scores),
        "dealer": state.dealer,
        "turn": list(state.turn),
        "bids": [{"seat": s, "amount": a} for s, a in state.bids],
        "bidder": state.bidder,
        "bid": state.bid,
        "trump": SUITS[state.trump] if trump_public and state.trump is not None else None,
        "my_trump": SUITS[state.trump]
        if state.trump is not None and me is not None and me == state.bidder
        else None,
        "called": None if state.called is None else CARD_NAMES[state.called],
        "partner": partner,
        "my_discards": [] if me is None else [CARD_NAMES[c] for c in cards_of(state.discards[me])],
        "trick": _plays(state.trick),
        "tricks": [{"cards": _plays(p), "winner": w} for p, w in state.tricks],
        "last_hand": None
        if lh is None
        else {
            "sides": [list(s) for s in lh.sides],
            "points": dict(zip(v.points, lh.points, strict=True)),
            "by": dict(zip(v.points, lh.by, strict=True)),
            "game_totals": list(lh.game_totals),
            "bidder": lh.bidder,
            "bid": lh.bid,
            "made": lh.made,
            "deltas": list(lh.deltas),
            "called": None if lh.called is None else CARD_NAMES[lh.called],
        },
        "winners": None if state.winners is None else list(state.winners),
        "legal": legal_actions(state, me),
    }


def lobby_view(variant: str, rules: Rules, seat: int | None) -> dict[str, Any]:
    """The same shape for a room whose game has not started yet."""
    v = get_variant(variant)
    me = seat if seat is not None and 0 <= seat < v.seats else None
    return {
        "variant": v.name,
        "rules": rules_to_json(rules),
        "phase": "lobby",
        "you": me,
        "hand": [],
        "seats": [{"seat": s, "cards": 0} for s in range(v.seats)],
        "teams": [list(t) for t in v.teams],
        "scores": [0] * len(v.teams),
        "dealer": None,
        "turn": [],
        "bids": [],
        "bidder": None,
        "bid": None,
        "trump": None,
        "my_trump": None,
        "called": None,
        "partner": None,
        "my_discards": [],
        "trick": [],
        "tricks": [],
        "last_hand": None,
        "winners": None,
        "legal": [],
    }
