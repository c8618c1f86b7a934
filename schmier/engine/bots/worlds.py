"""What a seat knows, read from its view, and the worlds it cannot tell apart.

`Know` is the view turned into int cards once per decision: the seat's hand and
discards, every card seen played, how many cards each seat holds, who showed a void by
not following suit, the called card, the trump. `sample` deals the unseen cards into
one world consistent with all of it: every seat gets exactly as many cards as the view
says it holds; no seat gets a card of a suit it showed it lacks; no discard holds a
trump where the rules forbid discarding one (so every unseen trump is in a hand); the
bidder never holds the card it called. The bidder is likelier to hold the trumps (it
chose them) and a seat that passed less likely: a light reading of the bidding.
Nothing but the view goes in.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..cards import SUITS
from ..description import describe
from ..tricks import of_view
from .race import race_of
from .reading import View
from .tables import Tab, bits, card_int, mask_of_names, tab

#: How much likelier an unseen trump is dealt to the bidder than to anybody else.
BIDDER_TRUMP_WEIGHT = 2.0
#: How likely an unseen trump is dealt to a seat that passed, against anybody else
#: (a player with the trumps for it would have bid).
PASSER_TRUMP_WEIGHT = 0.6

#: Deals started afresh when a card finds every place it may go full, before the next
#: deal makes room instead (`sample`).
_TRIES = 4


class Know:
    """Everything the search reads from one view (int cards, bit masks)."""

    def __init__(self, view: View) -> None:
        self.variant = str(view["variant"])
        self.book: Mapping[str, Any] = describe(self.variant)
        rules = view.get("rules") or {}
        self.rules = rules
        self.n = len(view["seats"])
        self.me = int(view["you"])
        self.phase = str(view.get("phase"))
        self.dealer = int(view.get("dealer") or 0)
        self.bidder: int | None = view.get("bidder")
        self.bid = int(view.get("bid") or 0)
        trump = view.get("trump") or view.get("my_trump")
        self.trump: str | None = str(trump) if trump else None
        suit = None if self.trump is None else SUITS.index(self.trump)
        self.tb: Tab = tab(of_view(self.variant, suit, rules))
        self.hand = mask_of_names(view.get("hand") or ())
        self.my_discards = mask_of_names(view.get("my_discards") or ())
        self.counts = [int(s["cards"]) for s in view["seats"]]
        self.bids = [(int(b["seat"]), b.get("amount")) for b in view.get("bids") or ()]
        #: Per seat, how likely it is to hold an unseen trump (the bidding, read lightly).
        self.trump_weight = [1.0] * self.n
        for seat, amount in self.bids:
            if amount is None:
                self.trump_weight[seat] = PASSER_TRUMP_WEIGHT
        if self.bidder is not None:
            self.trump_weight[int(self.bidder)] = BIDDER_TRUMP_WEIGHT
        called = view.get("called")
        self.called = card_int(str(called)) if called else -1
        partner = view.get("partner")
        self.partner: int | None = None if partner is None else int(partner)
        self.tricks: list[tuple[list[tuple[int, int]], int]] = [
            ([(int(e["seat"]), card_int(str(e["card"]))) for e in t["cards"]], int(t["winner"]))
            for t in view.get("tricks") or ()
        ]
        self.trick = [(int(e["seat"]), card_int(str(e["card"]))) for e in view.get("trick") or ()]
        played = 0
        for plays, _ in self.tricks:
            for _, c in plays:
                played |= 1 << c
        for _, c in self.trick:
            played |= 1 << c
        self.played = played
        self.unseen = self.tb.deck & ~(played | self.hand | self.my_discards)
        self.voids = self._voids()
        self.race = race_of(view)

    def _voids(self) -> list[int]:
        """Per seat, the cards it cannot hold: every card of each suit it did not follow."""
        tb = self.tb
        out = [0] * self.n
        if tb.trump < 0:
            return out
        for plays, _ in [*self.tricks, (self.trick, -1)]:
            if not plays:
                continue
            led = tb.esuit[plays[0][1]]
            for seat, c in plays[1:]:
                if tb.following[led] >> c & 1:
                    continue  # a card it may play holding the suit led says nothing
                out[seat] |= tb.follow[led]
        return out

    @property
    def fixed_teams(self) -> bool:
        return bool(self.book["fixed_teams"])

    def side_of(self, bidder: int, partner: int | None) -> list[int]:
        """Side per seat, the bidder's side 0 (fixed teams, or bidder and partner)."""
        n = self.n
        if self.fixed_teams:
            teams = len(self.book["teams"])
            return [(s - bidder) % teams for s in range(n)]
        return [0 if s in (bidder, partner) else 1 for s in range(n)]

    @cached_property
    def places(self) -> Places:
        """Where the unseen cards may lie (`_places`), worked out once for all the
        worlds of a decision."""
        return _places(self)


class World:
    """One guess at the hidden cards: every hand, and where the rest lies."""

    __slots__ = ("bank", "hands", "out")

    def __init__(self, hands: list[int], out: list[int], bank: int) -> None:
        self.hands = hands
        #: The unseen cards in no hand (stock, discards, undealt), in a random order.
        self.out = out
        #: The bidder's discards' count towards game, where they count.
        self.bank = bank


@dataclass(frozen=True, slots=True)
class Places:
    """Where the unseen cards may go: the owners, how many cards each takes, and for
    each card the owners that may take it."""

    owners: tuple[int, ...]
    """Seats (their counts), then place -1 (discards or stock) and, where the bidder
    banks them, -2 (its discards)."""
    caps: tuple[int, ...]
    """How many unseen cards each owner holds; they add up to the unseen cards."""
    allowed: dict[int, list[int]]
    """Per unseen card, the indices of the owners that may hold it (voids, the called
    card, no trump discarded where the rules forbid it), in owner order."""
    anywhere: dict[int, list[int]]
    """Per unseen card, every owner: the fallback when the view admits no world (never
    seen: see `sample`)."""
    cards: list[int]
    """The unseen cards."""


def _places(know: Know) -> Places:
    """Where the unseen cards of `know` may lie (see `Places`)."""
    tb = know.tb
    owners: list[int] = []
    caps: list[int] = []
    bans: list[int] = []
    for s in range(know.n):
        if s == know.me or know.counts[s] == 0:
            continue
        owners.append(s)
        caps.append(know.counts[s])
        ban = know.voids[s]
        if s == know.bidder and know.called >= 0:
            ban |= 1 << know.called
        bans.append(ban)
    rest = know.unseen.bit_count() - sum(caps)
    discarded = know.phase in ("play", "call") or (
        know.phase == "discard" and know.me == know.dealer
    )
    bank_cap = 0
    if (
        know.book["banks_discards"]
        and know.bidder is not None
        and know.bidder != know.me
        and know.phase == "play"
    ):
        bank_cap = max(0, min(rest, int(know.rules.get("kitty") or 0)))
        owners.append(-2)
        caps.append(bank_cap)
        bans.append(tb.mask)
    if rest - bank_cap > 0:
        owners.append(-1)
        caps.append(rest - bank_cap)
        all_discard = know.book["discards"] == "all"
        bans.append(tb.mask if discarded and all_discard else 0)
    cards = bits(know.unseen)
    k = len(owners)
    allowed = {c: [i for i in range(k) if not bans[i] >> c & 1] for c in cards}
    return Places(
        owners=tuple(owners),
        caps=tuple(caps),
        allowed=allowed,
        anywhere={c: list(range(k)) for c in cards},
        cards=cards,
    )


def sample(know: Know, rng: random.Random) -> World:
    """One world consistent with the view (see the module's docstring).

    The cards are placed one by one, the most constrained first, each where there is
    room with a probability proportional to that room. When a card finds every place it
    may go full, the deal starts again, up to `_TRIES` times: a world accepted at any
    try comes from the same distribution, so the retries only cost time. Past them, a
    card that finds its places full makes room by moving cards already placed along a
    chain of places that may take them (`_make_room`), so a world is found whenever the
    view admits one. Before, the deal started again up to 30 times and then dropped
    the voids: in tight positions late in six- and five-seat hands every try failed, so
    that the search ran on worlds that ignored the voids, at up to ten times its usual
    cost. Only a view that admits no world at all (never seen) is dealt without its
    constraints.
    """
    places = know.places
    for _ in range(_TRIES):
        dealt = _deal(know, places, places.allowed, rng, mend=False)
        if dealt is not None:
            return dealt
    dealt = _deal(know, places, places.allowed, rng, mend=True)
    if dealt is None:
        dealt = _deal(know, places, places.anywhere, rng, mend=False)
    if dealt is None:
        raise AssertionError("no world fits the view")  # unconstrained dealing always fits
    return dealt


def _place(
    rng: random.Random,
    allowed: list[int],
    left: list[int],
    owners: Sequence[int],
    weight: Sequence[float],
    is_trump: bool,
) -> int:
    """A random place with room for one more card, as likely as the room it has left
    (a trump by the seat's `Know.trump_weight`); -1 when none has room."""
    weights = []
    for i in allowed:
        w = float(left[i])
        if w and is_trump and owners[i] >= 0:
            w *= weight[owners[i]]
        weights.append(w)
    total = sum(weights)
    if total <= 0:
        return -1
    x = rng.random() * total
    for i, w in zip(allowed, weights, strict=True):
        x -= w
        if x < 0 and w > 0:
            return i
    return next(i for i, w in zip(allowed, weights, strict=True) if w > 0)


def _make_room(
    card: int, allowed: Mapping[int, list[int]], held: list[list[int]], left: list[int]
) -> int:
    """Free a place for `card` when every place it may go is full: the shortest chain
    of moves (a card from a place `card` may go to another place that may take it,
    and so on) that ends in a place with room, found breadth first, is made; the
    place at its head, which now has one card fewer, is returned (-1: no chain
    exists, so no world holds the cards placed so far and `card` together). This is
    an augmenting path of a flow: one exists whenever some world does."""
    came: dict[int, tuple[int, int] | None] = dict.fromkeys(allowed[card])
    frontier = list(allowed[card])
    while frontier:
        reached: list[int] = []
        for j in frontier:
            for moved in held[j]:
                for to in allowed[moved]:
                    if to in came:
                        continue
                    came[to] = (j, moved)
                    if left[to] > 0:
                        left[to] -= 1
                        step = came[to]
                        while step is not None:
                            source, c = step
                            held[source].remove(c)
                            held[to].append(c)
                            to = source
                            step = came[to]
                        return to
                    reached.append(to)
        frontier = reached
    return -1


def _deal(
    know: Know,
    places: Places,
    allowed: Mapping[int, list[int]],
    rng: random.Random,
    *,
    mend: bool,
) -> World | None:
    """One world with every unseen card where `allowed` lets it lie, or None: when a
    card finds every place it may go full and `mend` is off, or when no such world
    exists."""
    owners = places.owners
    left = list(places.caps)
    tmask = know.tb.mask
    order = places.cards[:]
    rng.shuffle(order)
    # The most constrained cards first (a stable sort: random order among equals), so
    # that a card seldom finds every place it may go full.
    order.sort(key=lambda c: len(allowed[c]))
    held: list[list[int]] = [[] for _ in owners]
    for c in order:
        i = _place(rng, allowed[c], left, owners, know.trump_weight, bool(tmask >> c & 1))
        if i < 0:
            i = _make_room(c, allowed, held, left) if mend else -1
            if i < 0:
                return None
        else:
            left[i] -= 1
        held[i].append(c)
    hands = [0] * know.n
    hands[know.me] = know.hand
    outside: set[int] = set()
    bank = 0
    for i, s in enumerate(owners):
        if s >= 0:
            got = 0
            for c in held[i]:
                got |= 1 << c
            hands[s] = got
        else:
            outside.update(held[i])
            if s == -2:
                bank = sum(know.tb.game[c] for c in held[i])
    out = [c for c in order if c in outside]
    rng.shuffle(out)
    return World(hands, out, bank)
