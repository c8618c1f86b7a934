"""Random full games of every variant under random house rules, checked at every step
against the invariants of docs/rules.md and an independent reference for the points.

What is checked (CONTRIBUTING.md, "The standards"): every card in exactly one place; no view shows a
card, a partner or a secret trump its seat may not see; each hand's trick winners,
points and score deltas agree with `tests.support.engine_helpers.hand_result`, worked
from the played cards alone; the game ends exactly when the target rule says; the
state round-trips through JSON; the log replays to an equal state."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schmier import engine
from tests.support.engine_helpers import (
    Action,
    card_places,
    card_strings,
    concrete,
    hand_result,
    played_cards,
    point_names,
    trick_winner,
)

#: Random bidding sends scores down for ever; a bidder who mostly passes and bids low
#: keeps games finite. Play, discards, calls and everything else stay uniform.
PASS_WEIGHT = 0.65
MAX_HANDS = 30


def rules_strategy(variant: str) -> st.SearchStrategy[dict[str, Any]]:
    base: dict[str, st.SearchStrategy[Any]] = {
        "target": st.sampled_from([5, 6, 8, 11]),
        "stick_the_dealer": st.booleans(),
        "trump_anytime": st.booleans(),
    }
    if variant == "wisconsin4":
        base["kitty"] = st.integers(0, 3)
        base["joker_order"] = st.sampled_from(["first_high", "second_high"])
    return st.fixed_dictionaries(base)


def choose(state: Any, variant: str, rng: random.Random) -> tuple[int | None, Action]:
    if engine.needs_deal(state):
        deck = engine.full_deck(variant)
        rng.shuffle(deck)
        return None, {"type": "deal", "deck": deck}
    seats = list(engine.turn(state))
    assert seats, f"nobody is awaited in phase {state.phase}"
    seat = rng.choice(seats)
    options = engine.legal_actions(state, seat)
    assert options, f"seat {seat} is awaited but has no legal action"
    if state.phase == "bidding":
        passes = [a for a in options if a["type"] == "pass"]
        bids = sorted((a for a in options if a["type"] == "bid"), key=lambda a: a["amount"])
        if passes and (not bids or rng.random() < PASS_WEIGHT):
            return seat, passes[0]
        return seat, bids[0] if rng.random() < 0.7 else rng.choice(bids)
    return seat, concrete(rng.choice(options), rng)


class Checker:
    """Follows one game, checking the engine after every action."""

    def __init__(self, variant: str, rules: engine.Rules, dealer: int) -> None:
        self.variant = variant
        self.rules = rules
        self.n = engine.seat_count(variant)
        self.teams = engine.teams(variant)
        self.deck = set(engine.full_deck(variant))
        self.state = engine.new_game(variant, rules, dealer)
        self.log: list[tuple[int | None, Action]] = []
        self.hands_played = 0
        self.new_hand()

    def new_hand(self) -> None:
        self.seen: dict[int, set[str]] = {s: set() for s in range(self.n)}
        self.plays: list[tuple[int, str]] = []
        self.bidder_discards: list[str] = []
        self.partner: int | None = None
        self.committed: str | None = None

    # -- one step
    def step(self, seat: int | None, action: Action) -> None:
        before = self.state
        prev_scores = list(engine.view(before, None)["scores"])
        if action["type"] == "deal":
            self.new_hand()
        if action["type"] == "discard" and seat == engine.view(before, None)["bidder"]:
            self.bidder_discards += list(action["cards"])
        if action["type"] == "trump":
            self.committed = action["suit"]
        if action["type"] == "play":
            if before.phase == "play" and not self.plays and self.variant == "schmier5":
                self.partner = self.find_partner(before)
            self.plays.append((int(seat), action["card"]))  # type: ignore[arg-type]
        self.state = engine.apply(before, seat, action)
        self.log.append((seat, action))
        self.check_state()
        if action["type"] == "play":
            self.check_trick()
            if self.state.phase in ("hand_over", "game_over"):
                self.hands_played += 1
                self.check_hand(before, prev_scores)

    def find_partner(self, state: Any) -> int | None:
        called = engine.view(state, None)["called"]
        bidder = engine.view(state, None)["bidder"]
        for s in range(self.n):
            if called in engine.view(state, s)["hand"] and s != bidder:
                return s
        return None

    # -- after every step
    def check_state(self) -> None:
        s = self.state
        as_json = engine.state_to_json(s)
        assert engine.state_from_json(as_json) == s
        assert engine.state_from_json(json.loads(json.dumps(as_json))) == s
        public = engine.view(s, None)
        played = played_cards(public)
        assert len(played) == len(set(played))
        held = self.check_seats(public)
        every = [c for h in held.values() for c in h] + played
        assert len(every) == len(set(every)), "a card in two hands, or held and played"
        assert set(every) <= self.deck
        self.check_turn()
        self.check_places(held, public)
        for seat in [None, *range(self.n)]:
            self.check_view(seat, public, played)

    def check_seats(self, public: dict[str, Any]) -> dict[int, list[str]]:
        """Each seat's view agrees with the public one; the cards each seat holds."""
        s = self.state
        held: dict[int, list[str]] = {}
        for seat in range(self.n):
            v = engine.view(s, seat)
            held[seat] = list(v["hand"])
            self.seen[seat] |= set(v["hand"])
            assert v["legal"] == engine.legal_actions(s, seat)
            assert v["you"] == seat
            for k in range(self.n):
                assert v["seats"][k]["cards"] == public["seats"][k]["cards"]
            assert public["seats"][seat]["cards"] == len(v["hand"])
        return held

    def check_turn(self) -> None:
        """Exactly the awaited seats have something to do."""
        s = self.state
        if s.phase not in ("deal", "hand_over", "game_over"):
            awaited = set(engine.turn(s))
            assert awaited, f"nobody awaited in {s.phase}"
            for seat in range(self.n):
                has = bool(engine.legal_actions(s, seat))
                assert has is (seat in awaited), (s.phase, seat, awaited)
        elif s.phase == "game_over":
            for seat in range(self.n):
                assert engine.legal_actions(s, seat) == [{"type": "rematch"}]

    def check_places(self, held: dict[int, list[str]], public: dict[str, Any]) -> None:
        """Every card in exactly one place, and that place agrees with the views."""
        places = card_places(self.state)
        if places is None:
            return
        assert set(places) == self.deck, "every card has exactly one place"
        for seat in range(self.n):
            assert {c for c, p in places.items() if p == f"hand:{seat}"} == set(held[seat])
        for p in public["trick"]:
            assert places[p["card"]] == "trick"
        for t in public["tricks"]:
            for p in t["cards"]:
                assert places[p["card"]] == f"won:{t['winner']}"
        kinds = {p.split(":")[0] for p in places.values()}
        assert kinds <= {"hand", "stock", "discard", "trick", "won", "undealt"}

    def check_view(self, seat: int | None, public: dict[str, Any], played: list[str]) -> None:
        v = engine.view(self.state, seat)
        allowed = set(played) | ({public["called"]} if public.get("called") else set())
        if seat is not None:
            allowed |= self.seen[seat]
        scan = {k: val for k, val in v.items() if k not in ("last_hand", "legal")}
        scan["legal"] = [a for a in v["legal"] if a["type"] != "call"]
        leaked = {c for c in card_strings(scan) if c in self.deck} - allowed
        assert not leaked, f"seat {seat} sees {leaked} in phase {self.state.phase}"
        phase = self.state.phase
        bidder = public["bidder"]
        if self.variant == "wisconsin4" and phase in ("trump", "discard", "play"):
            if not self.plays:
                assert v["trump"] is None, "wisconsin4 trump is secret until the first lead"
                if seat != bidder:
                    assert v.get("my_trump") is None
                elif self.committed is not None:
                    assert v["my_trump"] == self.committed
            else:
                assert v["trump"] == self.committed
        if self.variant == "schmier5" and phase == "play":
            called = public["called"]
            revealed = called is not None and called in played
            holder = self.partner if self.plays else self.find_partner(self.state)
            if revealed:
                assert v["partner"] == holder
            elif seat is not None and seat == holder:
                assert v["partner"] == seat, "the partner sees themself"
            else:
                assert v["partner"] is None, f"seat {seat} learns the partner early"

    def check_trick(self) -> None:
        """A finished trick's winner matches the reference and leads the next trick."""
        if len(self.plays) % self.n or self.state.phase != "play":
            return
        trick = self.plays[-self.n :]
        public = engine.view(self.state, None)
        trump = public["trump"]
        expected = trick_winner(self.variant, self.rules.joker_order, trump, trick)
        assert public["tricks"][-1]["winner"] == expected, (trick, trump)
        assert [(p["seat"], p["card"]) for p in public["tricks"][-1]["cards"]] == trick
        assert engine.turn(self.state) == [expected]

    # -- after every hand
    def check_hand(self, before: Any, prev_scores: list[int]) -> None:
        v = engine.view(self.state, None)
        last = v["last_hand"]
        bidder, bid = last["bidder"], last["bid"]
        trump = engine.view(before, None)["trump"]
        assert len(self.plays) == 6 * self.n
        if self.variant == "schmier5":
            bidder_side = frozenset(
                {bidder} | ({self.partner} if self.partner is not None else set())
            )
            sides = [bidder_side, frozenset(range(self.n)) - bidder_side]
        else:
            team = next(t for t in self.teams if bidder in t)
            sides = [frozenset(team)] + [frozenset(t) for t in self.teams if t != team]
        assert last["sides"][0] and frozenset(last["sides"][0]) == sides[0]
        assert {frozenset(x) for x in last["sides"]} == set(sides)
        tricks = [self.plays[i : i + self.n] for i in range(0, len(self.plays), self.n)]
        ref = hand_result(
            self.variant,
            self.rules.joker_order,
            trump,
            tricks,
            sides,
            self.bidder_discards if self.variant == "wisconsin4" else (),
        )
        engine_sides = [frozenset(x) for x in last["sides"]]
        got = {
            name: None if idx is None else engine_sides[idx] for name, idx in last["points"].items()
        }
        assert set(got) == set(point_names(self.variant)), "six points, each once"
        assert got == ref.points, (got, ref.points)
        for name in point_names(self.variant):
            if name != "game":
                assert last["by"][name] == ref.by[name], name
        totals = dict(zip(engine_sides, last["game_totals"], strict=True))
        assert totals == ref.game_totals
        # Scoring (docs/rules.md 8).
        won = {s: sum(1 for p in ref.points.values() if p == s) for s in sides}
        made = won[sides[0]] >= bid
        assert last["made"] is made
        result = {s: won[s] for s in sides}
        result[sides[0]] = won[sides[0]] if made else -bid
        deltas = []
        for team in self.teams:
            side = next(s for s in sides if team[0] in s)
            deltas.append(result[side])
        assert last["deltas"] == deltas
        scores = [a + b for a, b in zip(prev_scores, deltas, strict=True)]
        assert v["scores"] == scores
        # End of the game (docs/rules.md 9).
        over, winners = game_end(scores, self.rules.target, self.teams, sides[0])
        assert (self.state.phase == "game_over") is over, (scores, self.rules.target)
        if over:
            assert sorted(v["winners"]) == winners


def game_end(
    scores: list[int], target: int, teams: list[list[int]], bidder_side: frozenset[int]
) -> tuple[bool, list[int]]:
    """docs/rules.md 9: whether the game is over after this hand, and who won."""
    if max(scores) < target:
        return False, []
    top = max(scores)
    tied = [i for i, s in enumerate(scores) if s == top]
    if len(tied) == 1:
        return True, tied
    ours = [i for i in tied if set(teams[i]) <= bidder_side]
    return (True, ours) if ours else (False, [])


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    variant=st.sampled_from(engine.VARIANTS),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_random_games(variant: str, seed: int, data: st.DataObject) -> None:
    overrides = data.draw(rules_strategy(variant), label="rules")
    rules = engine.make_rules(variant, overrides)
    rng = random.Random(seed)
    dealer = rng.randrange(engine.seat_count(variant))
    game = Checker(variant, rules, dealer)
    while game.state.phase != "game_over" and game.hands_played < MAX_HANDS:
        seat, action = choose(game.state, variant, rng)
        game.step(seat, action)
    replayed = engine.replay(variant, rules, dealer, game.log)
    assert replayed == game.state
    if game.state.phase == "game_over":
        seat = rng.randrange(engine.seat_count(variant))
        assert {"type": "rematch"} in engine.legal_actions(game.state, seat)
        again = engine.apply(game.state, seat, {"type": "rematch"})
        assert engine.needs_deal(again)
        assert engine.view(again, None)["scores"] == [0] * len(engine.teams(variant))
