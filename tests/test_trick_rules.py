"""The trick rules are defined once (`engine.tricks`: `may_lead`, `may_follow`, `beats`
over `ranking.Trumps`), and everything that plays tricks reads tables built from that
definition: the engine's play phase, the heuristic's card sense, the search's `Tab`,
its playouts' inlined loop and its endgame. These tests pin every table and every
reader to the definition, for every game, trump (or none yet) and house rule that
changes trick play:

- every entry of every table against the predicate it was worked out from;
- random positions (hypothesis): the cards each reader lets a seat play, the winner
  each names, and a whole random playout of the search played again card by card on
  the predicates alone, to the same high, low, captured points and count;
- that the table check fails when one entry drifts.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from schmier import engine
from schmier.engine import cardsense
from schmier.engine.bots.playout import Tally, play_out
from schmier.engine.bots.tables import tab
from schmier.engine.cards import CARD_COUNT, CARD_NAMES, GAME_VALUE, SUITS, X1, X2, cards_of
from schmier.engine.dealing import HAND_SIZE
from schmier.engine.ranking import EFFECTIVE_SUITS, trumps
from schmier.engine.tricks import (
    NO_LEAD,
    TrickRules,
    beats,
    may_follow,
    may_lead,
    of_view,
    playable,
    trick_rules,
    winner,
)


def trick_house_rules(variant: str) -> list[tuple[bool, str | None]]:
    """Every combination of the house rules that change trick play, as the rule book
    offers them for `variant` (a rule it does not offer is None)."""
    offered = {r["name"]: r for r in engine.describe(variant)["rules"]}
    orders = offered["joker_order"]["choices"] if "joker_order" in offered else [None]
    return [(anytime, order) for anytime in (False, True) for order in orders]


def table_mismatches(tr: TrickRules, variant: str, anytime: bool, order: str | None) -> list[str]:
    """Every entry of `tr` that is not what the definition says (empty: none)."""
    t = tr.trumps
    v = engine.get_variant(variant)
    deck = v.deck
    out: list[str] = []
    for c in range(CARD_COUNT):
        in_deck = c in deck
        lead = in_deck and may_lead(t, v.first_lead_trump, True, c)
        if bool(tr.first_lead >> c & 1) != lead:
            out.append(f"first_lead {CARD_NAMES[c]}")
        for led in range(EFFECTIVE_SUITS):
            if bool(tr.follow[led] >> c & 1) != (in_deck and t.esuit[c] == led):
                out.append(f"follow[{led}] {CARD_NAMES[c]}")
            follows = in_deck and may_follow(t, anytime, led, c)
            if bool(tr.following[led] >> c & 1) != follows:
                out.append(f"following[{led}] {CARD_NAMES[c]}")
    for led in range(EFFECTIVE_SUITS):
        for best in range(CARD_COUNT):
            row = tr.beaters[led][best]
            for c in range(CARD_COUNT):
                takes = best in deck and c in deck and beats(t, order, led, best, c)
                if bool(row >> c & 1) != takes:
                    out.append(f"beaters[{led}][{CARD_NAMES[best]}] {CARD_NAMES[c]}")
    return out


def test_every_table_entry_is_the_definitions() -> None:
    """All tables of every game, every trump (and none yet) and every combination of
    the trick-play house rules, entry by entry; the search's `Tab` holds the very same
    tables."""
    checked = 0
    for variant in engine.VARIANTS:
        for trump in (None, 0, 1, 2, 3):
            for anytime, order in trick_house_rules(variant):
                tr = trick_rules(variant, trump, anytime, order)
                assert table_mismatches(tr, variant, anytime, order) == []
                tb = tab(tr)
                for f in dataclasses.fields(TrickRules):
                    assert getattr(tb, f.name) is getattr(tr, f.name), f.name
                checked += 1
    assert checked == 5 * (2 + 2 + 4)


def test_the_table_check_fails_when_one_entry_drifts() -> None:
    """The check above is not blind: one card flipped in one row of `beaters`, or in
    `following`, is reported (and only that entry)."""
    tr = trick_rules("wisconsin4", 1, False, "second_high")
    led = tr.esuit[X1]
    rows = [list(r) for r in tr.beaters]
    rows[led][X1] ^= 1 << X2  # the second joker no longer takes the first
    drifted = dataclasses.replace(tr, beaters=tuple(tuple(r) for r in rows))
    assert table_mismatches(drifted, "wisconsin4", False, "second_high") == [
        f"beaters[{led}][X1] X2"
    ]
    following = list(tr.following)
    following[0] |= tr.mask  # trumping allowed as if trump_anytime were on
    drifted = dataclasses.replace(tr, following=tuple(following))
    assert table_mismatches(drifted, "wisconsin4", False, "second_high")


# --------------------------------------------------------------------------- positions


def reference_playable(
    tr: TrickRules, variant: str, anytime: bool, hand: int, led: int, first: bool
) -> int:
    """The cards of `hand` the definition allows, card by card."""
    t = tr.trumps
    cards = cards_of(hand)
    if led == NO_LEAD:
        allowed = [
            c for c in cards if may_lead(t, engine.get_variant(variant).first_lead_trump, first, c)
        ]
    elif any(t.esuit[c] == led for c in cards):
        allowed = [c for c in cards if may_follow(t, anytime, led, c)]
    else:
        allowed = cards
    return sum(1 << c for c in allowed)


def reference_winner(tr: TrickRules, order: str | None, plays: list[tuple[int, int]]) -> int:
    t = tr.trumps
    led = t.esuit[plays[0][1]]
    seat, best = plays[0]
    for s, c in plays[1:]:
        if beats(t, order, led, best, c):
            seat, best = s, c
    return seat


@st.composite
def positions(draw: Any) -> dict[str, Any]:
    """A moment of trick play: a game, its trump, the trick-play house rules, every
    seat's hand (six cards less the tricks done, one less for the seats that played to
    the trick in progress), the trick in progress and the seat to play.

    Random cards seldom meet where the rules are subtle, so some positions deal the
    trumps first (into the trick), and some make the two jokers meet: one leads, the
    seat to play holds the other (`clash`, the card it plays then)."""
    variant = draw(st.sampled_from(engine.VARIANTS))
    trump = draw(st.integers(0, 3))
    anytime, order = draw(st.sampled_from(trick_house_rules(variant)))
    v = engine.get_variant(variant)
    t = trumps(variant, trump)
    n = v.seats
    done = draw(st.integers(0, HAND_SIZE - 1))
    leader = draw(st.integers(0, n - 1))
    played = draw(st.integers(0, n - 1) | st.just(n - 1))
    deck = list(draw(st.permutations(v.deck)))
    if draw(st.booleans()):
        deck.sort(key=lambda c: not t.mask >> c & 1)
    turn = (leader + played) % n
    # Where each card goes: the trick's first `played`, then each seat's hand in turn.
    sizes = [HAND_SIZE - done - (1 if (s - leader) % n < played else 0) for s in range(n)]
    owner = [-1] * played + [s for s in range(n) for _ in range(sizes[s])]
    clash = None
    if len(v.jokers) == 2 and played and draw(st.booleans()):
        lead, other = draw(st.permutations(v.jokers))
        i = deck.index(lead)
        deck[0], deck[i] = deck[i], deck[0]
        j = deck.index(other)
        k = owner.index(turn)
        deck[k], deck[j] = deck[j], deck[k]
        clash = other
    trick = [((leader + i) % n, deck[i]) for i in range(played)]
    hands = [0] * n
    for c, s in zip(deck, owner, strict=False):
        if s >= 0:
            hands[s] |= 1 << c
    # The hand's first lead is the bidder's, who named a trump it could lead.
    leads = [c for c in cards_of(hands[leader]) if may_lead(t, v.first_lead_trump, True, c)]
    assume(done or played or leads)
    return {
        "variant": variant,
        "trump": trump,
        "anytime": anytime,
        "order": order,
        "done": done,
        "trick": trick,
        "turn": turn,
        "hands": hands,
        "clash": clash,
        "seed": draw(st.integers(0, 2**32 - 1)),
    }


@settings(max_examples=300, deadline=None)
@given(positions())
def test_every_reader_plays_by_the_definition(pos: dict[str, Any]) -> None:
    """The engine (`legal_moves`, and the winner `apply_trusted` books), the search's
    tables and the card sense allow the cards and name the winners the definition
    does, at a random moment of a random hand."""
    variant, anytime, order = pos["variant"], pos["anytime"], pos["order"]
    tr = trick_rules(variant, pos["trump"], anytime, order)
    trick, seat, done = pos["trick"], pos["turn"], pos["done"]
    hand = pos["hands"][seat]
    led = tr.esuit[trick[0][1]] if trick else NO_LEAD
    expected = reference_playable(tr, variant, anytime, hand, led, done == 0)
    assert playable(tr, hand, led, done == 0) == expected
    assert playable(tab(tr), hand, led, done == 0) == expected

    rules = {"trump_anytime": anytime} | ({"joker_order": order} if order else {})
    state = engine.new_game(variant, engine.make_rules(variant, rules), 0)
    state = state._replace(
        phase="play",
        hands=tuple(pos["hands"]),
        trump=pos["trump"],
        trump_public=True,
        bidder=0,
        bid=engine.describe(variant)["bids"]["min"],
        trick=tuple(trick),
        tricks=tuple(((), 0) for _ in range(done)),
        turn=(seat,),
    )
    assert {m.arg for m in engine.legal_moves(state, seat)} == set(cards_of(expected))

    if trick:
        options = cards_of(expected)
        card = pos["clash"] if pos["clash"] in options else options[pos["seed"] % len(options)]
        plays = [*trick, (seat, card)]
        if len(plays) == tr.seats and done < HAND_SIZE - 1:
            after = engine.apply_trusted(state, seat, engine.Action("play", plays[-1][1]))
            assert after.tricks[-1][1] == reference_winner(tr, order, plays)
        assert winner(tr, plays) == reference_winner(tr, order, plays)
        names = [CARD_NAMES[c] for _, c in plays]
        sense = of_view(variant, pos["trump"], rules)
        assert sense is tr
        index = cardsense.winning_index(names, sense)
        assert plays[index][0] == reference_winner(tr, order, plays)
    letter = SUITS[pos["trump"]]
    for c in cards_of(hand):
        name = CARD_NAMES[c]
        assert cardsense.is_trump(name, letter, variant) == bool(tr.mask >> c & 1)
        assert cardsense.effective_suit(name, letter, variant) == SUITS[tr.esuit[c]]
        assert cardsense.game_value(name) == GAME_VALUE[c]
    assert cardsense.point_cards(letter, variant) == tuple(CARD_NAMES[c] for c in tr.specials)


@settings(max_examples=200, deadline=None)
@given(positions())
def test_the_playouts_inlined_loop_plays_by_the_definition(pos: dict[str, Any]) -> None:
    """A random playout of the search (`play_out`, its rules inlined for speed) from a
    random moment, and the same random choices made again card by card on the
    definition alone, reach the same high, low, captured points and count."""
    variant, anytime, order = pos["variant"], pos["anytime"], pos["order"]
    tr = trick_rules(variant, pos["trump"], anytime, order)
    tb = tab(tr)
    t = tr.trumps
    n = tr.seats
    side_of = [s % 2 for s in range(n)]
    tally = Tally(n, len(tb.specials))
    for s, c in pos["trick"]:
        tally.card_played(tb, s, c)
    hands = list(pos["hands"])
    play_out(
        tb,
        hands,
        pos["trick"],
        pos["turn"],
        pos["done"],
        tally,
        side_of,
        random.Random(pos["seed"]),
        smart=False,
    )
    assert hands == [0] * n

    rng = random.Random(pos["seed"])
    hands = list(pos["hands"])
    trick = list(pos["trick"])
    seat, done = pos["turn"], pos["done"]
    played: list[tuple[int, int]] = list(trick)
    game = [0] * n
    captured = [-1] * len(tr.specials)
    while done < HAND_SIZE:
        led = t.esuit[trick[0][1]] if trick else NO_LEAD
        legal = cards_of(reference_playable(tr, variant, anytime, hands[seat], led, done == 0))
        c = legal[0] if len(legal) == 1 else legal[int(rng.random() * len(legal))]
        hands[seat] &= ~(1 << c)
        trick.append((seat, c))
        played.append((seat, c))
        if len(trick) == n:
            won = reference_winner(tr, order, trick)
            for _, x in trick:
                game[won] += GAME_VALUE[x]
                if x in tr.specials:
                    captured[tr.specials.index(x)] = won
            trick, seat, done = [], won, done + 1
        else:
            seat = (seat + 1) % n
    trumps_played = [(s, c) for s, c in played if t.mask >> c & 1]
    naturals_played = [(s, c) for s, c in trumps_played if t.naturals >> c & 1]
    high = max(trumps_played, key=lambda p: t.power[p[1]], default=(-1, -1))[0]
    low = min(naturals_played, key=lambda p: t.power[p[1]], default=(-1, -1))[0]
    assert (tally.high_seat, tally.low_seat) == (high, low)
    assert tally.game == game
    assert tally.cap == captured
