"""The search bot: its playout simulator plays the engine's rules, its worlds fit the
view, its answers are legal and reproducible, and it thinks for a fixed budget.

The simulator (`bots.playout`, `bots.tables`) plays tricks on the engine's trick rules
(`engine.tricks`), inline for speed, and scores on its own tally, so it is checked
against the engine on random games under random house rules: at every card the same
legal cards, the same trick winners, and at the end of every hand the same score
changes.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from schmier import engine
from schmier.engine.bots import handsim, search, worlds
from schmier.engine.bots.playout import Tally, outcome, play_out
from schmier.engine.bots.race import WIN, Race, race_of
from schmier.engine.bots.tables import bits, card_int, tab
from schmier.engine.bots.worlds import Know, sample
from schmier.engine.cards import CARD_NAMES
from schmier.engine.tricks import beats, of_state, playable, trick_rules
from schmier.engine.tricks import winner as trick_winner

VARIANTS = ["schmier6", "schmier5", "wisconsin4"]

#: A small budget, so that whole games of the search bot run in a test.
SMALL = search.Budget(playouts=24, min_worlds=3, max_worlds=6, hand_worlds=3)


def house_rules(variant: str, rng: random.Random) -> dict[str, Any]:
    rules: dict[str, Any] = {
        "target": rng.randint(5, 11),
        "stick_the_dealer": rng.random() < 0.5,
        "trump_anytime": rng.random() < 0.5,
    }
    if variant == "wisconsin4":
        rules["kitty"] = rng.randint(0, 3)
        rules["joker_order"] = rng.choice(["first_high", "second_high"])
    return rules


def random_move(state: engine.State, seat: int, rng: random.Random) -> engine.Action:
    template = engine.discard_template(state, seat)
    if template is None:
        return rng.choice(engine.legal_moves(state, seat))
    count = rng.randint(template.min, template.max)
    return engine.Action("discard", tuple(rng.sample(bits(template.allowed), count)))


def sim_tab(state: engine.State) -> Any:
    assert state.trump is not None
    return tab(of_state(state))


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_simulator_plays_and_scores_as_the_engine(variant: str) -> None:
    rng = random.Random(f"sim/{variant}")
    checked_plays = checked_hands = 0
    for _ in range(12):
        rules = engine.make_rules(variant, house_rules(variant, rng))
        n = engine.seat_count(variant)
        state = engine.new_game(variant, rules, rng.randrange(n))
        while state.phase != "game_over" and checked_hands < 400:
            if engine.needs_deal(state):
                deck = list(engine.get_variant(variant).deck)
                rng.shuffle(deck)
                state = engine.apply_trusted(state, None, engine.Action("deal", tuple(deck)))
                continue
            seat = rng.choice(engine.turn(state))
            if state.phase == "play":
                tb = sim_tab(state)
                led = tb.esuit[state.trick[0][1]] if state.trick else -1
                first = not state.tricks
                mine = playable(tb, state.hands[seat], led, first)
                assert {m.arg for m in engine.legal_moves(state, seat)} == set(bits(mine))
                checked_plays += 1
            move = random_move(state, seat, rng)
            before = state
            state = engine.apply_trusted(state, seat, move)
            if before.phase == "play" and len(before.trick) == n - 1:
                tb = sim_tab(before)
                trick = [*before.trick, (seat, move.arg)]
                w_seat = trick_winner(tb, trick)
                assert w_seat == (state.tricks[-1][1] if state.tricks else state.last_hand.bidder)
                if state.phase in ("hand_over", "game_over"):
                    check_score(before, state, seat, move.arg)
                    checked_hands += 1
    assert checked_plays > 1000 and checked_hands > 30


def check_score(before: engine.State, after: engine.State, seat: int, last: int) -> None:
    """The simulator's score of the finished hand is the engine's."""
    tb = sim_tab(before)
    v = before.variant
    lh = after.last_hand
    assert lh is not None and before.bidder is not None and before.bid is not None
    n = v.seats
    side_of = [next(i for i, side in enumerate(lh.sides) if s in side) for s in range(n)]
    tally = Tally(n, len(tb.specials))
    for plays, winner in before.tricks:
        tally.count_trick(tb, plays, winner)
    for s, c in before.trick:
        tally.card_played(tb, s, c)
    hands = list(before.hands)
    # The last card is played by the simulator itself.
    play_out(tb, hands, list(before.trick), seat, 5, tally, side_of, random.Random(0))
    bank = (
        sum(tb.game[c] for c in bits(before.discards[before.bidder]))
        if v.bidder_banks_discards
        else 0
    )
    deltas = outcome(tally, side_of, len(lh.sides), before.bid, bank)
    if v.called_partner:
        assert [deltas[side_of[s]] for s in range(n)] == list(lh.deltas)
    else:
        assert [deltas[side_of[t[0]]] for t in v.teams] == list(lh.deltas)
    assert last in bits(before.hands[seat])


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_rollouts_look_ups_say_what_the_rules_say(variant: str) -> None:
    """The rollout policy reads who can take a trick, the boss trump and the higher
    cards of a suit from tables worked out once (`Tab.beaters`, `reach`, `above`);
    they must answer as the rules' `tricks.beats` and the powers do, for every trump
    (or none yet), every suit led and every house rule that changes who takes a trick."""
    for trump in (None, 0, 1, 2, 3):
        for anytime in (False, True):
            for order in (None, "first_high", "second_high"):
                tb = tab(trick_rules(variant, trump, anytime, order))
                deck = bits(tb.deck)
                for best in deck:
                    p = tb.power[best]
                    for x in deck:
                        assert bool(tb.above[best] >> x & 1) == (tb.power[x] > p)
                        reach = bool(tb.mask >> x & 1) and tb.power[x] >= p
                        assert bool(tb.reach[best] >> x & 1) == reach
                        for led in range(5):
                            takes = beats(tb.trumps, order, led, best, x)
                            assert bool(tb.beaters[led][best] >> x & 1) == takes, (
                                trump,
                                order,
                                led,
                                CARD_NAMES[best],
                                CARD_NAMES[x],
                            )


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_playouts_agree_with_the_engine_to_the_score(variant: str) -> None:
    """From the first card on, the simulator's random playout and the engine, fed the
    same cards, reach the same score changes."""
    rng = random.Random(f"playout/{variant}")
    for _ in range(60):
        rules = engine.make_rules(variant, house_rules(variant, rng))
        n = engine.seat_count(variant)
        state = engine.new_game(variant, rules, rng.randrange(n))
        while state.phase != "play" or state.tricks or state.trick:
            if engine.needs_deal(state):
                deck = list(engine.get_variant(variant).deck)
                rng.shuffle(deck)
                state = engine.apply_trusted(state, None, engine.Action("deal", tuple(deck)))
                continue
            seat = rng.choice(engine.turn(state))
            state = engine.apply_trusted(state, seat, random_move(state, seat, rng))
        tb = sim_tab(state)
        assert state.bidder is not None and state.bid is not None
        seed = rng.randrange(2**32)
        # The engine, playing the simulator's random choices card by card.
        sim_rng = random.Random(seed)
        engine_state = state
        while engine_state.phase == "play":
            seat = engine_state.turn[0]
            legal = sorted(m.arg for m in engine.legal_moves(engine_state, seat))
            if len(legal) == 1:
                c = legal[0]
            else:
                k = int(sim_rng.random() * len(legal))
                c = legal[k]
            engine_state = engine.apply_trusted(engine_state, seat, engine.Action("play", c))
        lh = engine_state.last_hand
        assert lh is not None
        side_of = [next(i for i, side in enumerate(lh.sides) if s in side) for s in range(n)]
        tally = Tally(n, len(tb.specials))
        hands = list(state.hands)
        play_out(tb, hands, [], state.bidder, 0, tally, side_of, random.Random(seed), smart=False)
        assert hands == [0] * n
        bank = (
            sum(tb.game[c] for c in bits(state.discards[state.bidder]))
            if state.variant.bidder_banks_discards
            else 0
        )
        deltas = outcome(tally, side_of, len(lh.sides), state.bid, bank)
        units = range(n) if state.variant.called_partner else [t[0] for t in state.variant.teams]
        assert [deltas[side_of[u]] for u in units] == list(lh.deltas)


def random_turns(
    variant: str, rng: random.Random, games: int
) -> Iterator[tuple[engine.State, int]]:
    """Every turn of `games` random games (house rules drawn too, decks shuffled): the
    state and the seat about to act. The caller stops when it has seen enough."""
    for _ in range(games):
        state = engine.new_game(variant, engine.make_rules(variant, house_rules(variant, rng)), 0)
        while state.phase != "game_over":
            if engine.needs_deal(state):
                deck = list(engine.get_variant(variant).deck)
                rng.shuffle(deck)
                state = engine.apply_trusted(state, None, engine.Action("deal", tuple(deck)))
                continue
            seat = rng.choice(engine.turn(state))
            yield state, seat
            state = engine.apply_trusted(state, seat, random_move(state, seat, rng))


def play_turns(
    variant: str, rng: random.Random, games: int, count: int
) -> Iterator[tuple[engine.State, int, Know]]:
    """The first `count` turns to play a card of `random_turns`, each with what the
    seat knows."""
    seen = 0
    for state, seat in random_turns(variant, rng, games):
        if seen >= count:
            return
        if state.phase == "play":
            seen += 1
            yield state, seat, Know(engine.view(state, seat))


@pytest.mark.parametrize("variant", VARIANTS)
def test_sampled_worlds_fit_the_view(variant: str) -> None:
    """Every world keeps the seat's own cards, the hand sizes, the cards seen, the
    voids shown and the rule that no trump is discarded."""
    rng = random.Random(f"worlds/{variant}")
    checked = 0
    for state, seat, know in play_turns(variant, rng, 6, 100):
        for _ in range(3):
            check_world(state, seat, know, sample(know, rng))
            checked += 1
    assert checked >= 300


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_mending_deal_finds_a_world_whenever_the_view_admits_one(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sampler places the most constrained cards first; when a card still finds
    every place it may go full, a mending deal makes room along a chain of places
    (starting again alone, in tight positions, failed every time and ended in a world
    that ignored the voids). Every position of real random games has a world (the
    deal), so a mending deal must succeed and fit the view; in the six- and five-seat
    games the chains are needed here (in 2-4% of these deals; in `wisconsin4` hardly
    ever: 9 deals of 153,440 in six games of `strong` bots)."""
    chains = 0
    make_room = worlds._make_room

    def counted(*args: Any) -> int:
        nonlocal chains
        chains += 1
        return make_room(*args)

    monkeypatch.setattr(worlds, "_make_room", counted)
    rng = random.Random(f"first-deal/{variant}")
    dealt = 0
    for state, seat, know in play_turns(variant, rng, 12, 300):
        for _ in range(10):
            world = worlds._deal(know, know.places, know.places.allowed, rng, mend=True)
            assert world is not None
            check_world(state, seat, know, world)
            dealt += 1
    assert dealt >= 3000
    assert chains > 0 or variant == "wisconsin4"


def test_a_card_with_every_place_full_makes_room_along_a_chain() -> None:
    """Card 9 may go only to place 0, which holds card 5; card 5 may also go to place
    1, which holds card 7; card 7 may also go to place 2, which has room. So 7 moves to
    2, 5 to 1, and place 0 is free for 9. With no place that has room at the end of a
    chain, there is no world and nothing moves."""
    allowed = {9: [0], 5: [0, 1], 7: [1, 2]}
    held = [[5], [7], []]
    left = [0, 0, 1]
    assert worlds._make_room(9, allowed, held, left) == 0
    assert held == [[], [5], [7]] and left == [0, 0, 0]
    allowed[3] = [2]
    held, left = [[5], [7], [3]], [0, 0, 0]
    assert worlds._make_room(9, allowed, held, left) == -1
    assert held == [[5], [7], [3]] and left == [0, 0, 0]


def check_world(state: engine.State, seat: int, know: Know, world: Any) -> None:
    assert world.hands[seat] == state.hands[seat]
    assert [h.bit_count() for h in world.hands] == [h.bit_count() for h in state.hands]
    dealt = 0
    for h in world.hands:
        assert not dealt & h
        dealt |= h
    for c in world.out:
        assert not dealt >> c & 1
        dealt |= 1 << c
    seen = know.played | state.hands[seat] | state.discards[seat]
    assert dealt | seen == know.tb.deck and not (dealt & ~state.hands[seat]) & seen
    for s in range(state.variant.seats):
        if s != seat:
            assert not world.hands[s] & know.voids[s]
    # Voids are only read from what happened: the engine's hands agree with them.
    for s in range(state.variant.seats):
        assert not state.hands[s] & know.voids[s]
    if state.variant.discards == "all":
        assert not any(know.tb.mask >> c & 1 for c in world.out)
    if know.called >= 0 and know.bidder is not None and know.bidder != seat:
        assert not world.hands[know.bidder] >> know.called & 1


def test_strong_is_reproducible_from_its_seed() -> None:
    """Same view, same seed: the same answer (rooms replay bots from their log)."""
    rng = random.Random("repro")
    for variant in VARIANTS:
        state = engine.new_game(variant, engine.make_rules(variant), 0)
        for _ in range(60):
            if engine.needs_deal(state):
                deck = engine.full_deck(variant)
                rng.shuffle(deck)
                state = engine.deal(state, deck)
                continue
            if state.phase == "game_over":
                break
            seat = engine.turn(state)[0]
            view = engine.view(state, seat)
            seed = rng.randrange(2**32)
            a = search.act(view, view["legal"], random.Random(seed), SMALL)
            b = search.act(view, view["legal"], random.Random(seed), SMALL)
            assert a == b
            state = engine.apply(state, seat, a)


def test_card_names_round_trip() -> None:
    assert all(CARD_NAMES[card_int(name)] == name for name in CARD_NAMES)


@pytest.mark.parametrize("policy", ["strong", "easy"])
def test_hidden_cards_do_not_change_a_card_decision(policy: str) -> None:
    """Mid-hand, two games that differ only in cards the seat cannot see (one card
    swapped between two other hands): the same view, so the same card, on the
    search's real budget."""
    rng = random.Random(f"hidden-play/{policy}")
    checked = 0
    for variant in VARIANTS:
        n = engine.seat_count(variant)
        state = engine.new_game(variant, engine.make_rules(variant), 0)
        while checked < 2 * VARIANTS.index(variant) + 2:
            if engine.needs_deal(state):
                deck = list(engine.get_variant(variant).deck)
                rng.shuffle(deck)
                state = engine.apply_trusted(state, None, engine.Action("deal", tuple(deck)))
                continue
            seat = rng.choice(engine.turn(state)) if state.turn else 0
            if state.phase == "play" and state.tricks and len(engine.legal_moves(state, seat)) > 1:
                twin = swapped(state, seat, rng)
                if twin is not None:
                    views = [engine.view(s, seat) for s in (state, twin)]
                    assert views[0] == views[1]
                    seed = rng.randrange(2**32)
                    answers = [choose_policy(policy, v, seed) for v in views]
                    assert answers[0] == answers[1]
                    checked += 1
            if state.phase == "game_over":
                state = engine.new_game(variant, engine.make_rules(variant), rng.randrange(n))
                continue
            state = engine.apply_trusted(state, seat, random_move(state, seat, rng))
    assert checked == 6  # two decisions in each game


def choose_policy(policy: str, view: dict[str, Any], seed: int) -> dict[str, Any]:
    from schmier.engine.bots import choose

    return choose(policy, view, random.Random(seed))


def swapped(state: engine.State, seat: int, rng: random.Random) -> engine.State | None:
    """`state` with one unplayed card of two other seats exchanged (None when one is
    the called card, whose holder is the partner: the test is about cards alone)."""
    others = [s for s in range(state.variant.seats) if s != seat and state.hands[s]]
    a, b = rng.sample(others, 2)
    ca = rng.choice(bits(state.hands[a]))
    cb = rng.choice(bits(state.hands[b]))
    hands = list(state.hands)
    hands[a] = hands[a] ^ (1 << ca) | (1 << cb)
    hands[b] = hands[b] ^ (1 << cb) | (1 << ca)
    if state.called in (ca, cb):
        return None
    return state._replace(hands=tuple(hands))


# ------------------------------------------------------------------ the race to the target


def test_the_race_ends_the_game_as_the_engine_does() -> None:
    """Hand-worked: schmier6, target 21, teams {0,3} {1,4} {2,5} at 18, 20 and 5; seat
    1 bid (its team is side 0, seat 2's side 1, seat 0's side 2)."""
    race = Race([18, 20, 5], 21, [[0, 3], [1, 4], [2, 5]], 6)
    side_of = [(s - 1) % 3 for s in range(6)]
    # Bidder's team +1 (21), seat 0's team +3 (21), seat 2's +2: a tie at 21 that the
    # bidder's side is in, so it wins alone.
    assert race.settle([1, 2, 3], side_of, 4) == WIN
    assert race.settle([1, 2, 3], side_of, 3) == -WIN
    assert race.settle([1, 2, 3], side_of, 5) == -WIN
    # The bidder set (-3): seat 0's team alone at 21 wins.
    assert race.settle([-3, 2, 3], side_of, 0) == WIN
    assert race.settle([-3, 2, 3], side_of, 1) == -WIN
    # Nobody at 21 yet: the points alone count.
    assert race.settle([0, 2, 2], side_of, 0) == 0.0
    # Teams 0 and 2 tied at 22 and the bidder's side not among them: another hand.
    tied = Race([19, 3, 20], 21, [[0, 3], [1, 4], [2, 5]], 6)
    assert tied.settle([-3, 2, 3], side_of, 0) == 0.0


def test_the_bidders_side_wins_a_tie_together_in_schmier5() -> None:
    """schmier5: scores per player; bidder 2 and its partner 4 (side 0) tie at 21 with
    defender 0 and win together; a single highest score wins alone, partner or not."""
    side_of = [1, 1, 0, 1, 0]
    race = Race([19, 0, 18, 0, 18], 21, [[s] for s in range(5)], 5)
    assert race.settle([3, 2], side_of, 2) == WIN  # 21, 21 and 21: the bidder's side
    assert race.settle([3, 2], side_of, 4) == WIN
    assert race.settle([3, 2], side_of, 0) == -WIN
    race = Race([19, 0, 18, 0, 17], 21, [[s] for s in range(5)], 5)
    assert race.settle([4, 2], side_of, 2) == WIN  # 22 against 21 and 21
    assert race.settle([4, 2], side_of, 4) == -WIN
    assert race.settle([4, 2], side_of, 0) == -WIN


def test_the_race_counts_only_when_the_hand_can_end_the_game() -> None:
    view = {"scores": [10, 14], "teams": [[0, 2], [1, 3]], "rules": {"target": 21}}
    view["seats"] = [{}] * 4
    assert race_of(view) is None  # 14 + 6 < 21
    view["scores"] = [10, 15]
    race = race_of(view)
    assert race is not None and race.target == 21 and race.unit_of == [0, 1, 0, 1]


def test_worlds_read_the_bidding() -> None:
    """The bidder is dealt the unseen trumps likelier than a seat that bid and was
    outbid, and that seat likelier than one that passed (`Know.trump_weight`)."""
    from .test_bots import make_view

    view = make_view(
        "schmier6",
        you=0,
        hand=["3C", "5D", "7H", "9D", "4C", "6D"],
        trump="S",
        bidder=4,
        bid=4,
        bids=[
            {"seat": 1, "amount": 3},
            {"seat": 2, "amount": None},
            {"seat": 3, "amount": None},
            {"seat": 4, "amount": 4},
            {"seat": 5, "amount": None},
            {"seat": 0, "amount": None},
        ],
    )
    know = Know(view)
    rng = random.Random("bidding")
    trumps = [0] * 6
    for _ in range(400):
        world = sample(know, rng)
        for s in range(6):
            trumps[s] += (world.hands[s] & know.tb.mask).bit_count()
    passed = max(trumps[2], trumps[3], trumps[5])
    assert trumps[4] > trumps[1] > 1.25 * passed  # about 1.4 (and 1.0 without reading)


@pytest.mark.parametrize("variant", ["schmier6", "schmier5"])
def test_the_dealers_simulated_discard_keeps_six_cards(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dealer's discard is searched on simulated hands that reach the play with six
    cards in every hand and every card in one place. Before, the others' discards (the
    unseen cards once the dealer has taken the stock) were added to the simulated
    dealer's hand (14 to 18 cards)."""
    starts: list[list[int]] = []
    real = handsim.play_out

    def spy(tb: Any, hands: list[int], *args: Any, **kwargs: Any) -> None:
        starts.append(list(hands))
        real(tb, hands, *args, **kwargs)

    monkeypatch.setattr(handsim, "play_out", spy)
    rng = random.Random(f"six/{variant}")
    checked = 0
    for state, seat in random_turns(variant, rng, 60):
        if checked >= 20:
            break
        if state.phase != "discard" or seat != state.dealer:
            continue
        know = Know(engine.view(state, seat))
        assert know.bidder is not None
        starts.clear()
        handsim.simulate(
            know,
            sample(know, rng),
            know.tb.trump,
            know.bidder,
            know.bid,
            rng,
            kitty_taken=True,
            discards_done=False,
            my_discard=handsim.to_six(know.tb, know.hand, False, True),
        )
        (hands,) = starts
        assert [h.bit_count() for h in hands] == [6] * state.variant.seats
        everything = 0
        for h in hands:
            assert not everything & h
            everything |= h
        checked += 1
    assert checked >= 20
