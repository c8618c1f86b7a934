"""What every bot reads from a view: its hand, the trump it may know, the game's rule book.

A bot is given the dict `engine.view(state, seat)` returns and nothing else; these are
the few readings of it that more than one part of a policy needs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..description import describe

#: One seat's view, as `engine.view` returns it (the bots never change it).
View = Mapping[str, Any]
#: The view's `legal` list: protocol actions, a discard as its template.
Legal = Sequence[Mapping[str, Any]]
#: What a bot answers: one concrete protocol action, plain JSON.
Answer = dict[str, Any]


def variant_of(view: View) -> str:
    return str(view["variant"])


def rule_book(view: View) -> Mapping[str, Any]:
    """The rule book of the view's game (`engine.describe`, public to every player):
    what a bot knows about the game it plays."""
    return describe(variant_of(view))


def all_in_play(book: Mapping[str, Any]) -> bool:
    """Whether every card reaches a hand: where everyone draws (`discards` "all", the
    dealer taking the rest of the stock) the ace and the low trump are always in play;
    where only the bidder draws a kitty, the other undealt cards stay out."""
    return bool(book["discards"] == "all")


def hand_of(view: View) -> list[str]:
    return [str(c) for c in view.get("hand") or ()]


def seat_count(view: View) -> int:
    return len(view["seats"])


def trump_of(view: View) -> str | None:
    """The public trump, or the bidder's private one (a game with `secret_trump`)."""
    trump = view.get("trump") or view.get("my_trump")
    return str(trump) if trump else None


def concrete(entry: Mapping[str, Any]) -> Answer:
    """A plain-dict copy of a legal entry (the view may be frozen or shared)."""
    return {k: (list(v) if isinstance(v, list | tuple) else v) for k, v in entry.items()}
