"""Redaction: the one function that decides what a seat (or a spectator) may see.

It builds each view by copying in only what that viewer may see, never by copying the
state and deleting secrets (the way boardgame.io leaked hands). The server sends nothing
about a game that does not come out of here.
"""

from __future__ import annotations

from typing import Any

from .cards import CARD_NAMES, SUITS, names
from .game import legal_actions
from .state import State, last_hand_to_json, plays_to_json
from .variants import Rules, get_variant, rules_to_json


def public_view(state: State) -> dict[str, Any]:
    """The part of every view that is the same for everybody at the table.

    Split from `private_view` so that a server with six sockets in a room builds (and
    serialises) the public part once per change instead of six times. Nothing that
    depends on the viewer may ever be added here.
    """
    v = state.variant
    lh = state.last_hand
    return {
        "variant": v.name,
        "rules": rules_to_json(state.rules),
        "phase": state.phase,
        "seats": [{"seat": s, "cards": h.bit_count()} for s, h in enumerate(state.hands)],
        "teams": [list(t) for t in v.teams],
        "scores": list(state.scores),
        "dealer": state.dealer,
        "turn": list(state.turn),
        "bids": [{"seat": s, "amount": a} for s, a in state.bids],
        "bidder": state.bidder,
        "bid": state.bid,
        "trump": SUITS[state.trump] if state.trump is not None and state.trump_public else None,
        "called": None if state.called is None else CARD_NAMES[state.called],
        "trick": plays_to_json(state.trick),
        "tricks": [{"cards": plays_to_json(p), "winner": w} for p, w in state.tricks],
        "last_hand": None if lh is None else last_hand_to_json(lh, v.points),
        "winners": None if state.winners is None else list(state.winners),
    }


#: The keys `private_view` fills; `public_view` never holds any of them.
PRIVATE_KEYS = ("you", "hand", "my_trump", "partner", "my_discards", "legal")


def private_view(state: State, seat: int | None) -> dict[str, Any]:
    """What only `seat` sees (a spectator: empty hand, nothing to do)."""
    v = state.variant
    me = seat if seat is not None and 0 <= seat < v.seats else None
    partner: int | None = None
    if state.partner is not None and (state.partner_revealed or state.partner == me):
        partner = state.partner
    if me is None:
        return {
            "you": None,
            "hand": [],
            "my_trump": None,
            "partner": partner,
            "my_discards": [],
            "legal": [],
        }
    return {
        "you": me,
        "hand": names(state.hands[me]),
        "my_trump": SUITS[state.trump] if state.trump is not None and me == state.bidder else None,
        "partner": partner,
        "my_discards": names(state.discards[me]),
        "legal": legal_actions(state, me),
    }


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What `seat` (None: a spectator) may see, shaped as the protocol's View.

    Room-level fields are the server's: `code`, and `name`, `kind`, `connected` in each
    entry of `seats`.
    """
    out = public_view(state)
    out.update(private_view(state, seat))
    return out


def lobby_public_view(variant: str, rules: Rules) -> dict[str, Any]:
    """The part of a lobby's view that is the same for everybody (no game yet)."""
    v = get_variant(variant)
    return {
        "variant": v.name,
        "rules": rules_to_json(rules),
        "phase": "lobby",
        "seats": [{"seat": s, "cards": 0} for s in range(v.seats)],
        "teams": [list(t) for t in v.teams],
        "scores": [0] * len(v.teams),
        "dealer": None,
        "turn": [],
        "bids": [],
        "bidder": None,
        "bid": None,
        "trump": None,
        "called": None,
        "trick": [],
        "tricks": [],
        "last_hand": None,
        "winners": None,
    }


def lobby_private_view(variant: str, seat: int | None) -> dict[str, Any]:
    """What only `seat` sees in a lobby: its seat, and nothing to hold or do yet."""
    me = seat if seat is not None and 0 <= seat < get_variant(variant).seats else None
    return {
        "you": me,
        "hand": [],
        "my_trump": None,
        "partner": None,
        "my_discards": [],
        "legal": [],
    }


def lobby_view(variant: str, rules: Rules, seat: int | None) -> dict[str, Any]:
    """The same shape as `view` for a room whose game has not started yet."""
    out = lobby_public_view(variant, rules)
    out.update(lobby_private_view(variant, seat))
    return out
