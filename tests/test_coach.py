"""The coach: each decision of a finished hand weighed by the search (`schmier.coach`).

Positions whose best option is known by working it out, each flagged with the right
better option; the values "with what you knew" depend on the seat's view alone; the
analysis of hands of each game keeps the protocol's promises (docs/protocol.md,
"Analysis of a finished hand").
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from bench.coach.hands import play_hand, record_of
from schmier import engine
from schmier.coach import marks
from schmier.coach.analysis import analyse, judge, seed_of, weigh_decision
from schmier.coach.decisions import Decision, choices, first_state, replay
from schmier.coach.options import AnalysisBudget
from schmier.engine.bots import choose, search
from tests.support.coach_positions import play_position
from tests.support.engine_helpers import stack_deck

#: A smaller budget than the server's, for the tests' time; the positions are clear
#: enough for it.
SMALL = AnalysisBudget(
    cards=search.Budget(playouts=600, min_worlds=24, max_worlds=120, exact_worlds=48),
    hand_worlds=40,
)
SEATS = {"schmier6": 6, "schmier5": 5, "wisconsin4": 4}


def record(variant: str, seed: int) -> dict[str, Any]:
    """A hand of `variant` played by a mix of levels (the first seed that is not a
    redeal from `seed` on)."""
    levels = ["strong", "normal", "easy", "strong", "normal", "easy"][: SEATS[variant]]
    while True:
        found = play_hand(variant, levels, seed)
        if found is not None:
            return found
        seed += 1


def test_a_ten_kept_off_the_partners_sure_trick_is_the_loss() -> None:
    # Trump hearts; seat 0 (seat 2's partner) takes the club trick with the ace of
    # trump, nobody left to beat it. Seat 2, out of clubs, plays the 7 of spades and
    # keeps the ten of diamonds, which seat 1's king of spades then takes.
    d = play_position(
        "wisconsin4",
        "H",
        0,
        3,
        {0: ["8S"], 1: ["KS"], 2: ["TD", "7S"], 3: ["9D"]},
        [(3, "KC"), (0, "AH"), (1, "9C")],
        "7S",
        leader=3,
    )
    weighed = judge(d, 1, SMALL)
    assert weighed["best"] == {"type": "play", "card": "TD"}
    assert weighed["loss"] >= marks.GOOD
    values = {o["action"]["card"]: o for o in weighed["options"]}
    # With all cards shown the ten is exactly the game point: one point each way.
    assert values["TD"]["value_all_cards"] - values["7S"]["value_all_cards"] == pytest.approx(1.0)


def test_the_low_trump_thrown_on_the_sure_trick_instead_of_the_ten() -> None:
    # The same trick, seat 2 holding the low trump (the 7 of hearts) and the ten: low
    # is whoever plays it, whenever; the ten is the side's only on this trick.
    d = play_position(
        "wisconsin4",
        "H",
        0,
        3,
        {0: ["8S"], 1: ["KS"], 2: ["TD", "7H"], 3: ["9D"]},
        [(3, "KC"), (0, "AH"), (1, "9C")],
        "7H",
        leader=3,
    )
    weighed = judge(d, 2, SMALL)
    assert weighed["best"] == {"type": "play", "card": "TD"}
    assert weighed["mark"] in ("mistake", "blunder")
    values = {o["action"]["card"]: o for o in weighed["options"]}
    assert values["TD"]["value_all_cards"] > values["7H"]["value_all_cards"]


def test_leading_the_jack_into_the_king_when_the_ace_is_safe() -> None:
    # Seat 0 leads with the ace and the jack of trump left; the king is with an
    # opponent. The ace first draws it; the jack first is taken by it.
    d = play_position(
        "wisconsin4",
        "H",
        0,
        3,
        {0: ["AH", "JH"], 1: ["KH", "8C"], 2: ["7S", "8S"], 3: ["QH", "9C"]},
        [],
        "JH",
    )
    weighed = judge(d, 3, SMALL)
    assert weighed["best"] == {"type": "play", "card": "AH"}
    assert weighed["loss"] >= marks.GOOD
    values = {o["action"]["card"]: o for o in weighed["options"]}
    assert values["AH"]["value_all_cards"] - values["JH"]["value_all_cards"] == pytest.approx(1.0)


def test_a_bid_the_hand_cannot_make_is_the_hands_biggest_loss() -> None:
    # Seat 1 of six holds nothing of note and bids 5; everybody else passes and the
    # hand is played out by the bots: the bid is the worst decision of the hand, and
    # passing was better.
    variant = "schmier6"
    junk = {1: ["2C", "3D", "4S", "6C", "7D", "8S"]}
    deck = stack_deck(variant, 0, junk)
    state = engine.deal(engine.new_game(variant, engine.make_rules(variant), 0), deck)
    actions: list[tuple[int, dict[str, Any]]] = []
    rng = random.Random(5)
    while state.phase not in ("hand_over", "game_over"):
        seat = engine.turn(state)[0]
        if state.phase == "bidding":
            action: dict[str, Any] = {"type": "bid", "amount": 5} if seat == 1 else {"type": "pass"}
        else:
            action = choose("heuristic", engine.view(state, seat), rng)
        actions.append((seat, action))
        state = engine.apply(state, seat, action)
    rec = record_of(variant, deck, 0, actions)
    analysis = analyse(rec, SMALL)
    worst = max(analysis["decisions"], key=lambda d: d["loss"])
    assert worst["i"] == 0 and worst["seat"] == 1 and worst["kind"] == "bid"
    assert worst["played"] == {"type": "bid", "amount": 5}
    assert worst["best"] == {"type": "pass"}
    assert worst["mark"] == "blunder"


def hidden_swap(rec: dict[str, Any], i: int, seat: int) -> dict[str, Any] | None:
    """The record with two cards of one suit swapped between two other seats' hands,
    neither played nor discarded before action `i` (so every action before it is as
    legal as it was, and seat `seat` saw neither); None when there are no such cards."""
    done = {str(c) for e in rec["actions"][:i] for c in _cards(e["action"])}
    others = [s for s in range(len(rec["hands"])) if s != seat]
    for a in others:
        for b in others:
            if a >= b:
                continue
            for ca in rec["hands"][a]:
                for cb in rec["hands"][b]:
                    if ca[1] == cb[1] and ca[0] not in "X" and {ca, cb}.isdisjoint(done):
                        deck = [
                            cb if c == ca else ca if c == cb else c for c in rec["deal"]["deck"]
                        ]
                        changed = dict(rec, deal=dict(rec["deal"], deck=deck))
                        return changed
    return None


def _cards(action: dict[str, Any]) -> list[str]:
    if "cards" in action:
        return list(action["cards"])
    return [action["card"]] if action.get("card") else []


def test_what_you_knew_depends_on_the_seats_view_alone() -> None:
    rec = record("wisconsin4", 11)
    checked = 0
    for d in replay(rec):
        if d.choices < 2 or d.kind != "play":
            continue
        other = hidden_swap(rec, d.i, d.seat)
        if other is None:
            continue
        a = weigh_decision(rec, d.i, SMALL)
        b = weigh_decision(other, d.i, SMALL)
        assert [(o["action"], o["value"]) for o in a["options"]] == [
            (o["action"], o["value"]) for o in b["options"]
        ]
        checked += 1
        if checked == 3:
            break
    assert checked == 3


@pytest.mark.parametrize("variant", sorted(SEATS))
def test_a_hands_analysis_keeps_the_protocols_promises(variant: str) -> None:
    rec = record(variant, 3)
    analysis = analyse(rec, SMALL)
    assert analysis["n"] == rec["n"]
    wanted = choices(rec)
    assert [d["i"] for d in analysis["decisions"]] == wanted
    kinds = {d.i: d for d in replay(rec)}
    for d in analysis["decisions"]:
        position: Decision = kinds[d["i"]]
        assert d["seat"] == position.seat and position.choices > 1
        assert d["played"] == rec["actions"][d["i"]]["action"]
        values = {repr(o["action"]): o["value"] for o in d["options"]}
        assert repr(d["played"]) in values and repr(d["best"]) in values
        assert d["best"]["type"] in ("bid", "pass") or d["best"]["type"] == d["played"]["type"]
        best = max(values.values())
        assert values[repr(d["best"])] == best
        assert d["loss"] == pytest.approx(best - values[repr(d["played"])], abs=0.001)
        assert d["loss"] >= 0 and d["mark"] == marks.mark(d["loss"])
    for player in analysis["players"]:
        mine = [d["loss"] for d in analysis["decisions"] if d["seat"] == player["seat"]]
        assert player["loss"] == pytest.approx(sum(mine), abs=0.001)
        assert 0 <= player["accuracy"] <= 100


def test_a_record_replays_to_its_result() -> None:
    for variant in SEATS:
        rec = record(variant, 21)
        state = first_state(rec)
        for d in replay(rec):
            state = engine.apply(d.state, d.seat, d.action)
        assert state.last_hand is not None
        assert list(state.last_hand.deltas) == rec["result"]["deltas"]


def test_marks_never_get_milder_and_accuracy_falls() -> None:
    order = {m: k for k, m in enumerate(marks.MARKS)}
    losses = [0.0, 0.001, 0.05, marks.GOOD, 0.2, marks.INACCURACY, 0.5, marks.MISTAKE, 3.0]
    seen = [order[marks.mark(x)] for x in losses]
    assert seen == sorted(seen) and marks.mark(0.0) == "best" and marks.mark(0.001) == "good"
    assert marks.mark(marks.MISTAKE) == "blunder"
    accs = [marks.accuracy(x) for x in losses]
    assert accs[0] == 100 and all(a > b for a, b in itertools.pairwise(accs))
    assert marks.mean_accuracy([]) == 100


def test_the_seeds_name_no_card() -> None:
    assert seed_of(3, 7) == seed_of(3, 7) != seed_of(3, 8) != seed_of(4, 7)
    assert seed_of(3, 7, "b") != seed_of(3, 7)
