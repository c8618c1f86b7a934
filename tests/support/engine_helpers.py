"""Helpers for the rules-engine tests: stacked decks, a table to drive, a random player,
and an independent reference for trick winners and the points of a hand.

The reference below is written from `docs/rules.md`, not from the engine, so that the
property tests compare two readings of the rules instead of the engine with itself.
Everything here talks to the engine only through its public API.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from schmier import engine

Action = dict[str, Any]
View = dict[str, Any]

SUITS = "SHDC"
RANKS = "23456789TJQKA"
#: Spades and clubs are black, hearts and diamonds red (docs/rules.md, "The games at a glance").
SAME_COLOUR = {"S": "C", "C": "S", "H": "D", "D": "H"}
GAME_VALUE = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 10}
JOKERS = ("X1", "X2")
LOW_RANK = {"schmier6": "2", "schmier5": "4", "wisconsin4": "7"}


# --------------------------------------------------------------------------- decks


def stack_deck(
    variant: str,
    dealer: int,
    hands: Mapping[int, Sequence[str]] | None = None,
    stock: Sequence[str] = (),
) -> list[str]:
    """A permutation of `full_deck(variant)` that deals `hands` and puts `stock` on top.

    Seat `(dealer + 1 + i) % n` receives `deck[6i:6i+6]` (docs/architecture.md). Seats
    given fewer than six cards, and the stock after the named cards, are filled with
    the remaining cards in `full_deck` order, so the result is deterministic."""
    hands = dict(hands or {})
    n = engine.seat_count(variant)
    full = engine.full_deck(variant)
    named = [c for h in hands.values() for c in h] + list(stock)
    assert len(named) == len(set(named)), f"a card is named twice: {named}"
    unknown = set(named) - set(full)
    assert not unknown, f"not cards of {variant}: {unknown}"
    spare = [c for c in full if c not in set(named)]
    deck: list[str] = []
    for i in range(n):
        seat = (dealer + 1 + i) % n
        cards = list(hands.get(seat, ()))
        assert len(cards) <= 6, f"seat {seat} given {len(cards)} cards"
        while len(cards) < 6:
            cards.append(spare.pop(0))
        deck += cards
    deck += list(stock) + spare
    assert sorted(deck) == sorted(full)
    return deck


def seeded_deck(variant: str, seed: int) -> list[str]:
    """The deck shuffled by `random.Random(seed)`, as architecture.md says tests do."""
    deck = engine.full_deck(variant)
    random.Random(seed).shuffle(deck)
    return deck


# --------------------------------------------------------------------------- a table


class Table:
    """A game driven action by action; keeps the log so a test can replay it.

    States are immutable values; the table only remembers the latest one."""

    def __init__(
        self,
        variant: str,
        rules: Mapping[str, Any] | None = None,
        dealer: int = 0,
    ) -> None:
        self.variant = variant
        self.rules = engine.make_rules(variant, dict(rules or {}))
        self.first_dealer = dealer
        self.n = engine.seat_count(variant)
        self.state = engine.new_game(variant, self.rules, dealer)
        self.log: list[tuple[int | None, Action]] = []

    # -- acting
    def apply(self, seat: int | None, action: Action) -> Table:
        """Apply one action; an engine error propagates and leaves the table unchanged."""
        self.state = engine.apply(self.state, seat, action)
        self.log.append((seat, action))
        return self

    def deal(self, deck: Sequence[str]) -> Table:
        return self.apply(None, {"type": "deal", "deck": list(deck)})

    def deal_stacked(
        self, hands: Mapping[int, Sequence[str]] | None = None, stock: Sequence[str] = ()
    ) -> Table:
        return self.deal(stack_deck(self.variant, self.next_dealer, hands, stock))

    def bid(self, seat: int, amount: int) -> Table:
        return self.apply(seat, {"type": "bid", "amount": amount})

    def pass_(self, seat: int) -> Table:
        return self.apply(seat, {"type": "pass"})

    def trump(self, seat: int, suit: str) -> Table:
        return self.apply(seat, {"type": "trump", "suit": suit})

    def discard(self, seat: int, *cards: str) -> Table:
        return self.apply(seat, {"type": "discard", "cards": list(cards)})

    def keep(self, seat: int, cards: Sequence[str]) -> Table:
        """Discard every card of `seat`'s hand except `cards`."""
        hand = self.hand(seat)
        assert set(cards) <= set(hand), f"seat {seat} lacks {set(cards) - set(hand)}"
        return self.discard(seat, *[c for c in hand if c not in set(cards)])

    def call(self, seat: int, card: str | None) -> Table:
        return self.apply(seat, {"type": "call", "card": card})

    def play(self, seat: int, card: str) -> Table:
        return self.apply(seat, {"type": "play", "card": card})

    def play_next(self, card: str) -> Table:
        """Play `card` for the one seat whose turn it is."""
        seats = engine.turn(self.state)
        assert len(seats) == 1, f"not one seat to play: {seats}"
        return self.play(seats[0], card)

    def bidding(self, bids: Mapping[int, int]) -> Table:
        """Run the bidding round: the seats in `bids` bid their amount, the rest pass."""
        for i in range(self.n):
            seat = (self.dealer + 1 + i) % self.n
            if self.phase != "bidding":
                break
            if seat in bids:
                self.bid(seat, bids[seat])
            else:
                self.pass_(seat)
        return self

    # -- looking
    @property
    def phase(self) -> str:
        return str(self.state.phase)

    @property
    def dealer(self) -> int:
        d = self.view(None)["dealer"]
        return self.first_dealer if d is None else int(d)

    @property
    def next_dealer(self) -> int:
        """Who deals next: the deal passes left after a hand, not after an all-pass."""
        return (self.dealer + 1) % self.n if self.phase == "hand_over" else self.dealer

    def view(self, seat: int | None) -> View:
        return engine.view(self.state, seat)

    def hand(self, seat: int) -> list[str]:
        return list(self.view(seat)["hand"])

    def legal(self, seat: int) -> list[Action]:
        return engine.legal_actions(self.state, seat)

    def legal_cards(self, seat: int) -> set[str]:
        return {a["card"] for a in self.legal(seat) if a["type"] == "play"}

    def turn(self) -> list[int]:
        return list(engine.turn(self.state))

    def replayed(self) -> Any:
        return engine.replay(self.variant, self.rules, self.first_dealer, self.log)


def to_play_schmier(
    table: Table,
    hands: Mapping[int, Sequence[str]],
    bidder: int,
    bid: int,
    trump: str,
    stock: Sequence[str] = (),
    call: str | None = None,
) -> Table:
    """Deal `hands`, let `bidder` win with `bid` (all others pass), name `trump`; nobody
    but the dealer discards and the dealer keeps exactly the six cards dealt to them;
    in schmier5 the bidder then calls `call`. The table is left at the first lead."""
    table.deal_stacked(hands, stock)
    dealer = table.dealer
    dealt = table.hand(dealer)
    table.bidding({bidder: bid})
    table.trump(bidder, trump)
    for i in range(1, table.n):
        table.discard((dealer + i) % table.n)
    table.keep(dealer, dealt)
    if table.variant == "schmier5":
        table.call(bidder, call)
    assert table.phase == "play", table.phase
    return table


def to_play_wisconsin(
    table: Table,
    hands: Mapping[int, Sequence[str]],
    undealt: Sequence[str],
    bidder: int,
    bid: int,
    trump: str,
    discards: Sequence[str] = (),
) -> Table:
    """Deal `hands` with `undealt` on top of the undealt cards; `bidder` wins with `bid`,
    takes the kitty, commits `trump`, discards `discards` (if the kitty is not 0)."""
    table.deal_stacked(hands, undealt)
    table.bidding({bidder: bid})
    table.trump(bidder, trump)
    if table.phase == "discard":
        table.discard(bidder, *discards)
    assert table.phase == "play", table.phase
    return table


def play_rows(table: Table, rows: Mapping[int, Sequence[str]]) -> list[int]:
    """Play whole tricks: in trick t, each seat plays `rows[seat][t]`, in the order the
    engine asks for. Returns the winner of each trick as the engine reports it."""
    tricks = len(next(iter(rows.values())))
    winners: list[int] = []
    for t in range(tricks):
        for _ in range(table.n):
            seats = table.turn()
            assert len(seats) == 1, f"trick {t}: waiting for {seats}"
            table.play(seats[0], rows[seats[0]][t])
        if table.phase == "play":
            winners.append(int(table.view(None)["tricks"][-1]["winner"]))
        else:
            winners.append(-1)  # the hand is over; the last winner is in the next trick
    return winners


# --------------------------------------------------------------------------- random play


def concrete(choice: Action, rng: random.Random) -> Action:
    """A concrete action for one entry of `legal`; the discard template gets its cards."""
    if choice["type"] != "discard":
        return dict(choice)
    k = rng.randint(int(choice["min"]), int(choice["max"]))
    return {"type": "discard", "cards": rng.sample(list(choice["from"]), k)}


def random_step(variant: str, state: Any, rng: random.Random) -> tuple[int | None, Action]:
    """One uniformly chosen (seat, action) among those the engine waits for now."""
    if engine.needs_deal(state):
        deck = engine.full_deck(variant)
        rng.shuffle(deck)
        return None, {"type": "deal", "deck": deck}
    seats = list(engine.turn(state))
    assert seats, f"nobody to act in phase {state.phase}"
    seat = rng.choice(seats)
    options = engine.legal_actions(state, seat)
    assert options, f"seat {seat} is awaited but has no legal action"
    return seat, concrete(rng.choice(options), rng)


def expand(options: Sequence[Action]) -> Iterator[Action]:
    """Every concrete action of a `legal` list (each discard subset once, in a fixed order)."""
    for choice in options:
        if choice["type"] != "discard":
            yield dict(choice)
            continue
        cards = list(choice["from"])
        for k in range(int(choice["min"]), int(choice["max"]) + 1):
            for combo in itertools.combinations(cards, k):
                yield {"type": "discard", "cards": list(combo)}


# --------------------------------------------------------------------------- the reference


def is_trump(variant: str, card: str, trump: str) -> bool:
    """Jokers, cards of the trump suit and (Schmier only) the left bauer are trumps."""
    if card in JOKERS:
        return True
    if card[1] == trump:
        return True
    return variant != "wisconsin4" and card == "J" + SAME_COLOUR[trump]


def suit_of(variant: str, card: str, trump: str) -> str:
    """The suit a card counts as when following: trump for every trump."""
    return trump if is_trump(variant, card, trump) else card[1]


def trump_strength(variant: str, card: str, trump: str) -> int:
    """Higher is stronger among trumps; jokers get 0 and are ordered by the trick."""
    if card in JOKERS:
        return 0
    strength = 10 + 2 * RANKS.index(card[0])
    if variant != "wisconsin4" and card[0] == "J" and card[1] != trump:
        return strength - 1  # the left bauer: just below the right bauer, above the ten
    return strength


def trick_winner(
    variant: str, joker_order: str | None, trump: str, trick: Sequence[tuple[int, str]]
) -> int:
    """docs/rules.md 6: the highest trump, else the highest card of the suit led.

    Jokers rank below every natural trump; if the only trumps are both wisconsin4 jokers,
    `joker_order` picks the first (`first_high`) or the second played."""
    trumps = [(s, c) for s, c in trick if is_trump(variant, c, trump)]
    if trumps:
        naturals = [(s, c) for s, c in trumps if c not in JOKERS]
        if naturals:
            return max(naturals, key=lambda sc: trump_strength(variant, sc[1], trump))[0]
        if len(trumps) == 1:
            return trumps[0][0]
        return trumps[0][0] if joker_order in (None, "first_high") else trumps[-1][0]
    led = suit_of(variant, trick[0][1], trump)
    follow = [(s, c) for s, c in trick if c[1] == led and c not in JOKERS]
    return max(follow, key=lambda sc: RANKS.index(sc[1][0]))[0]


@dataclass
class HandResult:
    """The points of one hand as the reference computes them, sides as seat sets."""

    winners: list[int]
    points: dict[str, frozenset[int] | None]
    by: dict[str, int | None]
    game_totals: dict[frozenset[int], int] = field(default_factory=dict)


def point_names(variant: str) -> tuple[str, ...]:
    if variant == "wisconsin4":
        return ("high", "low", "jack", "joker1", "joker2", "game")
    return ("high", "low", "right", "left", "joker", "game")


def hand_result(
    variant: str,
    joker_order: str | None,
    trump: str,
    tricks: Sequence[Sequence[tuple[int, str]]],
    sides: Sequence[frozenset[int]],
    bidder_discards: Sequence[str] = (),
) -> HandResult:
    """docs/rules.md 7, from the played tricks alone (plus the wisconsin4 bidder's discards)."""

    def side_of(seat: int) -> frozenset[int]:
        return next(s for s in sides if seat in s)

    winners = [trick_winner(variant, joker_order, trump, t) for t in tricks]
    played = {c: (s, i) for i, t in enumerate(tricks) for s, c in t}
    points: dict[str, frozenset[int] | None] = {}
    by: dict[str, int | None] = {}

    trumps = [c for c in played if is_trump(variant, c, trump)]
    naturals = [c for c in trumps if c not in JOKERS]
    high = max(naturals, key=lambda c: trump_strength(variant, c, trump), default=None)
    low = min(naturals, key=lambda c: trump_strength(variant, c, trump), default=None)
    for name, card in (("high", high), ("low", low)):
        by[name] = None if card is None else played[card][0]
        points[name] = None if card is None else side_of(played[card][0])

    def trick_point(name: str, card: str) -> None:
        if card in played:
            by[name] = winners[played[card][1]]
            points[name] = side_of(winners[played[card][1]])
        else:
            by[name], points[name] = None, None

    if variant == "wisconsin4":
        trick_point("jack", "J" + trump)
        trick_point("joker1", "X1")
        trick_point("joker2", "X2")
    else:
        trick_point("right", "J" + trump)
        trick_point("left", "J" + SAME_COLOUR[trump])
        trick_point("joker", "X1")

    totals = {s: 0 for s in sides}
    for t, w in zip(tricks, winners, strict=True):
        totals[side_of(w)] += sum(card_value(c) for _, c in t)
    if bidder_discards:
        totals[sides[0]] += sum(card_value(c) for c in bidder_discards)
    best = max(totals.values())
    leaders = [s for s, v in totals.items() if v == best]
    points["game"] = leaders[0] if len(leaders) == 1 else None
    by["game"] = None
    return HandResult(winners=winners, points=points, by=by, game_totals=totals)


def card_value(card: str) -> int:
    """Game value (docs/rules.md 7): A 4, K 3, Q 2, J 1, T 10, joker 1."""
    return 1 if card in JOKERS else GAME_VALUE.get(card[0], 0)


def card_strings(obj: Any) -> Iterator[str]:
    """Every string anywhere inside a JSON-like value."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            yield from card_strings(k)
            yield from card_strings(v)
    elif isinstance(obj, list | tuple):
        for v in obj:
            yield from card_strings(v)


def played_cards(view: View) -> list[str]:
    """The cards on the table and in the finished tricks of a view."""
    cards = [p["card"] for p in view["trick"]]
    for t in view["tricks"]:
        cards += [p["card"] for p in t["cards"]]
    return cards


def card_places(state: Any) -> dict[str, str] | None:
    """`engine.card_places(state)` if the engine offers it, else None."""
    fn = getattr(engine, "card_places", None)
    return None if fn is None else dict(fn(state))


# --------------------------------------------------------------------------- worked hands
#
# Whole hands worked out by hand in the tests. Each maps a seat to the six cards it plays,
# trick by trick; `rotate` moves a hand round the table so the same deal can be bid and
# won by another seat. The hand-worked outcome is written next to the test using it.

Rows = dict[int, list[str]]


def rotate(rows: Mapping[int, Sequence[str]], by: int, n: int) -> Rows:
    """The same cards, each seat's row given to the seat `by` places further left."""
    return {(seat + by) % n: list(cards) for seat, cards in rows.items()}


#: schmier6, trump hearts, bidder seat 1. Tricks (winner): 1 AH 2H 3H 4H 5H 6H (1);
#: 2 KH 7H 8H 9H TH X1 (1); 3 JH AS QH JD 2S 3S (3); 4..6 clubs led by seat 3 (3).
SCHMIER6_A: Rows = {
    1: ["AH", "KH", "JH", "5C", "TC", "TD"],
    2: ["2H", "7H", "AS", "6C", "JC", "9D"],
    3: ["3H", "8H", "QH", "AC", "KC", "QC"],
    4: ["4H", "9H", "JD", "2C", "7C", "AD"],
    5: ["5H", "TH", "2S", "3C", "8C", "KD"],
    0: ["6H", "X1", "3S", "4C", "9C", "QD"],
}
#: SCHMIER6_A with QH and JD swapped between seats 3 and 4: seat 4 wins trick 3.
SCHMIER6_B: Rows = {
    **SCHMIER6_A,
    3: ["3H", "8H", "JD", "AC", "KC", "QC"],
    4: ["4H", "9H", "QH", "2C", "7C", "AD"],
}
#: The 17 cards left over by both: no trumps, so the dealer can discard them all.
SCHMIER6_STOCK = [r + "S" for r in "456789TJQK"] + [r + "D" for r in "2345678"]

#: schmier5, trump hearts, bidder seat 1, KH (seat 3) the natural call.
SCHMIER5_S: Rows = {
    1: ["AH", "QH", "AS", "6C", "JC", "TD"],
    2: ["4H", "8H", "KS", "7C", "QC", "KC"],
    3: ["5H", "KH", "JH", "AC", "8C", "AD"],
    4: ["6H", "9H", "JD", "4C", "9C", "KD"],
    0: ["7H", "TH", "X1", "5C", "TC", "QD"],
}
SCHMIER5_STOCK = [r + "S" for r in "456789TJQ"] + [r + "D" for r in "456789"]


def wisconsin_w1(discards: Sequence[str]) -> tuple[Rows, list[str], Rows]:
    """wisconsin4, trump hearts, bidder seat 1 with kitty QH 7S, who discards `discards`
    (two of the undealt cards TS JS KC QD, dealt to them instead). Returns the dealt
    hands (bidder's first six = AH KH 9C 8C + discards), the undealt order, and the rows."""
    rows: Rows = {
        1: ["AH", "9C", "QH", "KH", "8C", "7S"],
        2: ["7H", "X2", "JH", "AD", "KD", "AS"],
        3: ["X1", "TC", "9H", "7D", "JC", "QS"],
        0: ["8H", "AC", "TH", "8D", "QC", "KS"],
    }
    spare = ["TS", "JS", "KC", "QD"]
    assert set(discards) <= set(spare) and len(discards) == 2
    rest = [c for c in spare if c not in discards]
    hands = {**rows, 1: ["AH", "KH", "9C", "8C", *discards]}
    undealt = ["QH", "7S", "8S", "9S", "9D", "TD", "JD", "7C", *rest]
    return hands, undealt, rows


#: wisconsin4, kitty 0, trump hearts, bidder seat 1; AH 7H JH X2 stay undealt.
WISCONSIN_W2: Rows = {
    1: ["KH", "QH", "AS", "AC", "AD", "KS"],
    2: ["8H", "TC", "7S", "7C", "7D", "TS"],
    3: ["9H", "JC", "8S", "8C", "8D", "JS"],
    0: ["X1", "TH", "9S", "9C", "9D", "QS"],
}
WISCONSIN_W2_UNDEALT = ["AH", "7H", "JH", "X2", "TD", "JD", "QD", "KD", "QC", "KC"]
