"""Computer players: a function of one seat's view and a random source.

A bot is given exactly what a human at that seat would see (the dict
``engine.view(state, seat)`` returns) and must answer with one concrete action from
``view["legal"]``. It never sees the state, so it cannot cheat, and it is pure (no
I/O, no clock, no global random state), so a room replays identically from its log
and a test can pin a bot's behaviour with a seed.

Two policies:

``random``
    a uniformly random legal action; the baseline every test and benchmark compares
    against, and a cheap way to drive the engine through every branch.
``heuristic``
    a rule-of-thumb player: it estimates how many points each suit as trump would
    take, bids that, names its best suit, keeps trumps and guarded cards, and in play
    weighs, for each legal card, the points at stake in the trick against the chance
    its side ends up taking it and the value of keeping the card for later.
    ``docs/bots.md`` describes the rules and their measured strength.

Every choice is made *from the entries of* ``legal`` (a discard picks its cards from
the template's ``from``, within ``min``..``max``), so whatever the heuristics
conclude, the answer is legal by construction.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from schmier.engine.cards import RANKS, SUITS
from schmier.engine.cardsense import (
    beats,
    effective_suit,
    game_value,
    is_capturable_point,
    is_joker,
    is_trump,
    plain_power,
    point_cards,
    trump_power,
    winning_index,
)
from schmier.engine.description import describe

View = Mapping[str, Any]
Action = dict[str, Any]

POLICIES = ("random", "heuristic")

#: What one unit of game count is worth, in points, when weighing a trick. The game
#: point goes to the side with the most count out of roughly 80, so a ten (10 count)
#: is worth a fraction of a sure point such as a bauer.
_COUNT_WEIGHT = 0.03

#: How much more a defender values the points in a trick: each point it takes is
#: one the bidder lacks, and a bidder short of its bid loses the bid instead of
#: scoring.
_DEFENCE_WEIGHT = 1.3

#: The chance that a card which takes the trick now, but could still be beaten by an
#: unseen card, holds against each hostile player still to play.
_HOLD_CHANCE = 0.55


def choose(policy: str, view: View, rng: random.Random) -> Action:
    """Pick one concrete, legal action for the viewer of `view`.

    Raises ``ValueError`` for an unknown policy or when the view offers nothing to
    do: a caller asking a bot to act out of turn is a bug worth surfacing.
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown bot policy {policy!r}; known: {', '.join(POLICIES)}")
    legal: Sequence[Mapping[str, Any]] = view.get("legal") or ()
    if not legal:
        raise ValueError("the view has no legal action: this seat has nothing to do")
    if policy == "random":
        return _random_action(legal, rng)
    return _heuristic_action(view, legal, rng)


# --------------------------------------------------------------------------- random


def _concrete(entry: Mapping[str, Any]) -> Action:
    """A plain-dict copy of a legal entry (the view may be frozen or shared)."""
    return {k: (list(v) if isinstance(v, list | tuple) else v) for k, v in entry.items()}


def _random_action(legal: Sequence[Mapping[str, Any]], rng: random.Random) -> Action:
    """A uniformly random entry; a discard template becomes a random subset."""
    entry = legal[rng.randrange(len(legal))]
    if entry["type"] == "discard":
        pool = list(entry["from"])
        count = rng.randint(int(entry["min"]), int(entry["max"]))
        return {"type": "discard", "cards": rng.sample(pool, count)}
    return _concrete(entry)


# ------------------------------------------------------------------------ heuristic


def _heuristic_action(view: View, legal: Sequence[Mapping[str, Any]], rng: random.Random) -> Action:
    """Dispatch on the kind of decision the view asks for."""
    kinds = {str(e["type"]) for e in legal}
    if "play" in kinds:
        return _play(view, [str(e["card"]) for e in legal if e["type"] == "play"])
    if "bid" in kinds or "pass" in kinds:
        return _bid(view, legal)
    if "trump" in kinds:
        return _trump(view, [str(e["suit"]) for e in legal if e["type"] == "trump"])
    if "discard" in kinds:
        template = next(e for e in legal if e["type"] == "discard")
        return _discard(view, template)
    if "call" in kinds:
        return _call(view, [e.get("card") for e in legal if e["type"] == "call"])
    # Anything else (``rematch``, lobby actions) carries no judgement: take one.
    return _concrete(legal[rng.randrange(len(legal))])


def _variant(view: View) -> str:
    return str(view["variant"])


def _book(view: View) -> Mapping[str, Any]:
    """The rule book of the view's game: what a bot knows about the game it plays."""
    return describe(_variant(view))


def _all_in_play(book: Mapping[str, Any]) -> bool:
    """Whether every card reaches a hand: where everyone draws (`discards` "all", the
    dealer taking the rest of the stock) the ace and the low trump are always in play;
    where only the bidder draws a kitty, the other undealt cards stay out."""
    return bool(book["discards"] == "all")


def _hand(view: View) -> list[str]:
    return [str(c) for c in view.get("hand") or ()]


def _seat_count(view: View) -> int:
    return len(view["seats"])


def _trump_of(view: View) -> str | None:
    """The public trump, or the bidder's private one (a game with `secret_trump`)."""
    trump = view.get("trump") or view.get("my_trump")
    return str(trump) if trump else None


# ---------------------------------------------------------------- hand estimation


def estimate(hand: Sequence[str], suit: str, variant: str) -> float:
    """Expected points (of the six) a hand takes with `suit` as trump, on its own.

    A rule of thumb, not a simulation: high and low are sure when held (they go to
    whoever plays them, and every held card gets played); a held jack or joker is
    kept in proportion to the higher trumps that guard it; big trumps give a chance to
    capture the others' point cards; game grows with trump length and guarded tens.
    """
    book = describe(variant)
    trumps = [c for c in hand if is_trump(c, suit, variant)]
    powers = sorted((trump_power(c, suit, variant) for c in trumps), reverse=True)
    held = set(hand)
    big = sum(1 for c in trumps if not is_joker(c) and c[0] in "AKQ" and c[1] == suit)
    total = 0.0
    # High: the ace, when every card is in play; otherwise the ace may sit among the
    # undealt cards, so a bare king has a chance too.
    if "A" + suit in held:
        total += 1.0
    elif not _all_in_play(book) and "K" + suit in held:
        total += 0.3
    # Low: played by its holder, so it is theirs; the rank above it has a chance when
    # the low card may be undealt.
    low, above_low = book["plain_order"][-1], book["plain_order"][-2]
    if low + suit in held:
        total += 1.0
    elif not _all_in_play(book) and above_low + suit in held:
        total += 0.3
    # Capturable points: jacks and jokers.
    for card in point_cards(suit, variant):
        if card in held:
            power = trump_power(card, suit, variant)
            guards = sum(1 for p in powers if p > power)
            total += min(0.95, 0.45 + 0.15 * guards)
        else:
            total += 0.08 * big
    # Game: trump length, guarded tens, side aces.
    tens = sum(
        1 for c in hand if c[0] == "T" and (is_trump(c, suit, variant) or "A" + c[1] in held)
    )
    side_aces = sum(1 for c in hand if c[0] == "A" and not is_trump(c, suit, variant))
    total += min(0.8, 0.1 + 0.07 * len(trumps) + 0.1 * tens + 0.05 * side_aces)
    return total


def _calibration(book: Mapping[str, Any]) -> float:
    """Added to every bid estimate: :func:`estimate` only counts what the hand takes
    alone, and self-play (heuristic against heuristic, 300-400 games per setting,
    ``docs/bots.md``) showed that the side bidding this much more beats the same bot
    bidding less; beyond these values the gain stops or turns into a loss.

    Measured per game, the games differing in how the side is made and who draws: most
    where the bidder calls its partner after the bidding, then where the bidder draws
    a kitty, least where fixed teams all draw.
    """
    if book["called_partner"]:
        return 1.5
    if book["kitty"]:
        return 1.2
    return 0.5


def _help_bonus(view: View, suit: str) -> float:
    """What the rest of the bidder's side and the draw are worth, on average.

    With fixed teams a partner holds some of the missing points (a little less where
    two other teams compete for them); a bidder who calls its partner calls the best
    trump it lacks, which is worth about a point. Where everyone draws, the dealer
    picks its 6 from the whole remaining stock; where the bidder draws, it takes the
    kitty.
    """
    book = _book(view)
    hand = set(_hand(view))
    me = view.get("you")
    dealer = view.get("dealer")
    bonus = _calibration(book)
    if book["called_partner"]:
        bonus += 0.9 if "A" + suit not in hand else 0.5
    else:
        bonus += 0.45 if len(book["teams"]) == 2 else 0.35
    if book["kitty"]:
        kitty = (view.get("rules") or {}).get("kitty")
        bonus += 0.15 * int(kitty if kitty is not None else 2)
    else:
        bonus += 0.6 if me == dealer else 0.25
    return bonus


def best_suit(hand: Sequence[str], variant: str, suits: Iterable[str] = SUITS) -> tuple[str, float]:
    """The suit with the highest :func:`estimate` (ties: the first in `suits`)."""
    scored = [(estimate(hand, s, variant), -i, s) for i, s in enumerate(suits)]
    value, _, suit = max(scored)
    return suit, value


def _bid(view: View, legal: Sequence[Mapping[str, Any]]) -> Action:
    """Bid the estimate of the best suit if it is allowed, else pass.

    The estimate is what the side expects to take; bidding it (rather than the
    minimum) claims the hand against weaker bids, while a bid above it would be set
    more often than made. It does not outbid its own teammate for a marginal gain.
    Under ``stick_the_dealer`` pass may be missing: then the lowest bid, the
    cheapest way out.
    """
    hand = _hand(view)
    suit, value = best_suit(hand, _variant(view))
    target = int(value + _help_bonus(view, suit))
    amounts = sorted(int(e["amount"]) for e in legal if e["type"] == "bid")
    can_pass = any(e["type"] == "pass" for e in legal)
    if can_pass and _partner_holds_bid(view, target):
        return {"type": "pass"}
    if target in amounts:
        return {"type": "bid", "amount": target}
    if amounts and target > amounts[-1]:
        return {"type": "bid", "amount": amounts[-1]}
    if can_pass:
        return {"type": "pass"}
    return {"type": "bid", "amount": amounts[0]}


#: A teammate's high bid is raised only by a hand this much stronger: raising it
#: takes the same points for the same team but risks a bigger set.
_PARTNER_MARGIN = 2


def _partner_holds_bid(view: View, target: int) -> bool:
    """Whether a fixed teammate holds the highest bid so far and we should not raise it."""
    if not _book(view)["fixed_teams"]:
        return False  # sides are made after the bidding: there is no teammate yet
    made = [b for b in view.get("bids") or () if b.get("amount") is not None]
    if not made:
        return False
    top = max(made, key=lambda b: int(b["amount"]))
    me = view.get("you")
    team = next((t for t in view.get("teams") or () if me in t), ())
    return (
        top["seat"] != me and top["seat"] in team and target < int(top["amount"]) + _PARTNER_MARGIN
    )


def _trump(view: View, suits: Sequence[str]) -> Action:
    """Name (or, with a secret trump, commit to) the allowed suit the hand is best in."""
    suit, _ = best_suit(_hand(view), _variant(view), suits)
    return {"type": "trump", "suit": suit}


# ------------------------------------------------------------------------ discard


def _keep_value(card: str, hand: set[str], trump: str | None, variant: str, bank: bool) -> float:
    """How much a card is worth keeping through the discard; lowest goes first.

    Trumps above everything (by strength); then side aces, guarded tens and kings;
    junk last. With `bank` (a bidder whose discards count for game) an unguarded ten
    is better discarded than kept: it banks ten count that could otherwise be captured.
    """
    if is_trump(card, trump, variant):
        return 100.0 + trump_power(card, trump, variant)
    r = card[0]
    guarded = "A" + card[1] in hand
    if r == "A":
        return 40.0
    if r == "T":
        if bank and not guarded:
            return -1.0
        return 30.0 if guarded else 8.0
    if r == "K":
        return 20.0 if guarded else 10.0 + plain_power(card) / 100
    return plain_power(card)


def _discard(view: View, template: Mapping[str, Any]) -> Action:
    """Throw the weakest cards the template allows.

    A non-dealer who exchanges (``min`` 0, ``max`` up to 3) throws only its non-trumps
    that are not worth keeping, hoping to draw trumps instead; a dealer or a bidder
    discarding its kitty (``min`` == ``max``) throws exactly that many, weakest first.
    """
    variant = _variant(view)
    hand = _hand(view)
    held = set(hand)
    trump = _trump_of(view)
    pool = [str(c) for c in template["from"]]
    lo, hi = int(template["min"]), int(template["max"])
    # Where only the bidder discards, its discards count for its side's game (RULES.md
    # 4); the rule book says who discards, so that is what the bot goes by.
    bank = _book(view)["discards"] == "bidder"
    ranked = sorted(pool, key=lambda c: (_keep_value(c, held, trump, variant, bank), c))
    if lo == hi:
        count = lo
    else:
        weak = [c for c in ranked if _keep_value(c, held, trump, variant, bank) < 20.0]
        count = max(lo, min(hi, len(weak)))
    return {"type": "discard", "cards": ranked[:count]}


def _call(view: View, cards: Sequence[Any]) -> Action:
    """Call the highest trump the bidder lacks (a game with `called_partner`).

    The ace first: it is always in play where everyone draws, so calling it makes
    high a sure point for the side and puts the top trump on the bidder's side.
    Then the king, queen, the bauers and down the order (never a card it discarded
    itself, which would leave it alone); alone only if nothing callable is a trump.
    """
    trump = _trump_of(view)
    variant = _variant(view)
    # A card the bidder discarded is callable too, but calling it means playing alone.
    gone = {str(c) for c in view.get("my_discards") or ()}
    callable_cards = [str(c) for c in cards if c is not None and str(c) not in gone]
    if trump is not None:
        trumps = [c for c in callable_cards if is_trump(c, trump, variant)]
        if trumps:
            best = max(trumps, key=lambda c: trump_power(c, trump, variant))
            return {"type": "call", "card": best}
    return {"type": "call", "card": None}


# --------------------------------------------------------------------------- play


class _Table:
    """What the play heuristics need to know about the hand in progress."""

    def __init__(self, view: View) -> None:
        self.variant = _variant(view)
        self.book = _book(view)
        self.trump = _trump_of(view)
        rules = view.get("rules") or {}
        self.joker_order: str | None = rules.get("joker_order")
        self.n = _seat_count(view)
        self.me = int(view["you"])
        self.hand = _hand(view)
        self.bidder: int | None = view.get("bidder")
        played: list[str] = []
        for trick in view.get("tricks") or ():
            played.extend(str(e["card"]) for e in trick["cards"])
        self.trick: list[tuple[int, str]] = [
            (int(e["seat"]), str(e["card"])) for e in view.get("trick") or ()
        ]
        played.extend(c for _, c in self.trick)
        # The viewer's own discards are out of play too (the engine shows them to it).
        seen = set(played) | set(self.hand) | {str(c) for c in view.get("my_discards") or ()}
        self.unseen = [c for c in self.book["deck"] if c not in seen]
        self.friends = self._friends(view)
        self.defending = self.bidder is not None and self.bidder not in self.friends

    def _friends(self, view: View) -> set[int]:
        """The seats on the viewer's side, as far as the viewer can know them.

        Without fixed teams the side is the bidder plus the holder of the called card:
        the partner knows itself from its hand, the bidder learns its partner when the
        card is played; a defender treats as friends only those it knows are not the
        partner (everybody but the bidder once the partner is known or nobody was
        called, otherwise only itself).
        """
        if self.book["fixed_teams"]:
            for team in view.get("teams") or ():
                if self.me in team:
                    return {int(s) for s in team}
            return {self.me}
        called = view.get("called")
        partner = view.get("partner")
        bidder = self.bidder
        if bidder is None:
            return {self.me}
        if self.me == bidder:
            return {self.me} | ({int(partner)} if partner is not None else set())
        if partner == self.me or (called is not None and called in self.hand):
            return {self.me, bidder}
        if partner is not None or called is None:
            known_partner = {int(partner)} if partner is not None else set()
            return {s for s in range(self.n) if s != bidder} - known_partner
        return {self.me}

    def is_trump(self, card: str) -> bool:
        return is_trump(card, self.trump, self.variant)

    def value(self, card: str) -> float:
        """Points a card hands to whoever takes the trick."""
        v = game_value(card) * _COUNT_WEIGHT
        if is_capturable_point(card, self.trump, self.variant):
            v += 1.0
        return v

    def beaten_by_unseen(self, card: str, led: str) -> bool:
        """Whether some card not yet seen could still beat `card` in this trick.

        Conservative: an unseen card may be in the stock or a discard. A side card can
        be trumped by any unseen trump (a void or ``trump_anytime``).
        """
        for other in self.unseen:
            if beats(other, card, led, self.trump, self.variant, self.joker_order):
                return True
        return False

    def keep_cost(self, card: str, led: str) -> float:
        """What playing `card` now gives up: its power to take a later trick.

        Scaled down as the hand runs out of tricks, since every card is played by
        the end anyway.
        """
        if self.is_trump(card):
            if not self.beaten_by_unseen(card, self.trump or "X"):
                cost = 0.5
            else:
                power = trump_power(card, self.trump, self.variant)
                cost = 0.08 + 0.3 * max(0, power - 20) / (2 * len(RANKS))
        else:
            cost = {"A": 0.25, "K": 0.12, "Q": 0.06}.get(card[0], 0.02)
        return cost * max(0, len(self.hand) - 1) / 5


def _play(view: View, cards: Sequence[str]) -> Action:
    """Choose the card with the best expected worth for the viewer's side."""
    table = _Table(view)
    if len(cards) == 1:
        return {"type": "play", "card": cards[0]}
    scorer = _follow_score if table.trick else _lead_score
    best = max(cards, key=lambda c: (scorer(table, c), c))
    return {"type": "play", "card": best}


def _later_seats(table: _Table) -> list[int]:
    """The seats still to play to the current trick after the viewer."""
    left = table.n - len(table.trick) - 1
    return [(table.me + k) % table.n for k in range(1, left + 1)]


def _follow_score(table: _Table, card: str) -> float:
    """Worth of adding `card` to a trick already led.

    ``(2p - 1) * V - keep``: ``V`` is everything the trick will hold with this card
    (jacks and jokers a point each, count a little), ``p`` the chance the viewer's side
    takes it. A card that wins outright with nobody hostile after it has ``p = 1``;
    a card that cannot win on a partner's sure trick too, so the bot smears its points
    there; on a trick the enemy keeps, ``p = 0`` and it sheds its cheapest card. A
    defender weighs points more: a point denied can set the bidder.
    """
    assert table.trick
    trick_cards = [c for _, c in table.trick]
    led = effective_suit(trick_cards[0], table.trump, table.variant)
    win = winning_index(trick_cards, table.trump, table.variant, table.joker_order)
    win_seat, win_card = table.trick[win]
    later = _later_seats(table)
    hostile_after = [s for s in later if s not in table.friends]
    friend_after = any(s in table.friends for s in later)
    takes = beats(card, win_card, led, table.trump, table.variant, table.joker_order)
    if takes:
        if not hostile_after or not table.beaten_by_unseen(card, led):
            p = 1.0
        else:
            p = _HOLD_CHANCE ** len(hostile_after)
    elif win_seat in table.friends:
        sure = not hostile_after or not table.beaten_by_unseen(win_card, led)
        p = 1.0 if sure else 0.5
    else:
        p = 0.25 if friend_after else 0.0
    stake = sum(table.value(c) for c in trick_cards) + table.value(card)
    if table.defending:
        stake *= _DEFENCE_WEIGHT
    score = (2 * p - 1) * stake - table.keep_cost(card, led)
    # The low trump earns its point whoever takes the trick; spending it where the
    # side takes the trick anyway keeps the better trumps for later.
    if p >= 1.0 and table.is_trump(card) and card[0] == table.book["low_rank"]:
        score += 0.05
    return score


def _lead_score(table: _Table, card: str) -> float:
    """Worth of leading `card`.

    A trump nobody can beat is led to draw the others' trumps and the jacks and
    jokers with them (worth more while such point cards are still out); a side ace
    wins while trumps are scarce; otherwise the cheapest card goes, never a point
    card that the enemy would take.
    """
    led = effective_suit(card, table.trump, table.variant)
    unseen_trumps = [c for c in table.unseen if table.is_trump(c)]
    unseen_points = [c for c in unseen_trumps if is_capturable_point(c, table.trump, table.variant)]
    safe = not table.beaten_by_unseen(card, led)
    extra = 0.2
    if table.is_trump(card):
        if safe:
            p = 1.0
            extra += 0.35 * len(unseen_points) if unseen_trumps else -0.3
        else:
            p = 0.3
    else:
        higher_side = any(
            c[1] == card[1] and not table.is_trump(c) and plain_power(c) > plain_power(card)
            for c in table.unseen
        )
        p = 0.2 if higher_side else 0.8
        if unseen_trumps:
            p *= 0.6
    stake = table.value(card) + extra
    return (2 * p - 1) * stake - table.keep_cost(card, led)
