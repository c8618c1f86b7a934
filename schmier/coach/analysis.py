"""A decision weighed into the protocol's shape, and a hand's analysis assembled.

`weigh_decision` is what a worker runs for one decision (docs/protocol.md, "Analysis of
a finished hand", the decision `D`); `assemble` puts the decisions of a hand together
with each player's loss and accuracy. The seed of a decision is a function of the
hand's number and the decision's index only, never of a card: the values "with what
you knew" depend on the seat's view alone (a test holds the coach to it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from . import marks
from .decisions import Decision, Record, choices, decision, names_of
from .options import ANALYSIS_BUDGET, AnalysisBudget, Valued, weigh

#: Options of a decision sent besides the played and the best: the next best ones.
SHOWN_OPTIONS = 6


def seed_of(n: int, i: int, salt: str = "") -> int:
    """The search's seed for decision `i` of hand `n` (`salt`: another run's seeds)."""
    digest = hashlib.sha256(f"coach:{salt}:{n}:{i}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two actions are the same (a discard's cards in any order)."""
    if a.get("type") != b.get("type"):
        return False
    if a.get("type") == "discard":
        return sorted(a.get("cards") or ()) == sorted(b.get("cards") or ())
    return dict(a) == dict(b)


def weigh_decision(
    record: Record, i: int, budget: AnalysisBudget = ANALYSIS_BUDGET, salt: str = ""
) -> dict[str, Any]:
    """Decision `i` of the record (it had a choice) weighed: the protocol's `D`."""
    return judge(decision(record, i), seed_of(int(record["n"]), i, salt), budget)


def judge(d: Decision, seed: int, budget: AnalysisBudget = ANALYSIS_BUDGET) -> dict[str, Any]:
    """Decision `d` weighed with the search seeded by `seed`: the protocol's `D`."""
    i = d.i
    options = weigh(d, budget, seed)
    for o in options:
        o.value = round(o.value, 3)
        o.value_all_cards = round(o.value_all_cards, 3)
    played = next(o for o in options if _same(o.action, d.action))
    played.action = dict(d.action)  # the record's form, cards in the order played
    # The best by value; the played option wins a tie (a tie loses nothing).
    best = max(options, key=lambda o: (o.value, o is played))
    loss = round(max(0.0, best.value - played.value), 3)
    ranked = sorted(options, key=lambda o: -o.value)
    shown = ranked[:SHOWN_OPTIONS]
    for o in (played, best):
        if o not in shown:
            shown.append(o)
    return {
        "i": i,
        "seat": d.seat,
        "kind": d.kind,
        "played": played.action,
        "best": best.action,
        "loss": loss,
        "mark": marks.mark(loss),
        "options": [_option(o) for o in shown],
    }


def _option(o: Valued) -> dict[str, Any]:
    return {"action": o.action, "value": o.value, "value_all_cards": o.value_all_cards}


def assemble(record: Record, decisions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The hand's analysis (the protocol's `200` answer) from its weighed decisions."""
    names = names_of(record)
    players = []
    for seat, name in enumerate(names):
        losses = [float(d["loss"]) for d in decisions if d["seat"] == seat]
        players.append(
            {
                "seat": seat,
                "name": name,
                "loss": round(sum(losses), 3),
                "accuracy": marks.mean_accuracy(losses),
                "decisions": len(losses),
            }
        )
    return {
        "n": int(record["n"]),
        "decisions": sorted(decisions, key=lambda d: int(d["i"])),
        "players": players,
    }


def analyse(
    record: Record, budget: AnalysisBudget = ANALYSIS_BUDGET, salt: str = ""
) -> dict[str, Any]:
    """The whole hand at once (benchmarks and tests; the server weighs one decision per
    job, `weigh_decision`)."""
    return assemble(record, [weigh_decision(record, i, budget, salt) for i in choices(record)])
