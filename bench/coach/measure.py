"""The coach's measurements: its cost, its steadiness between seeds, the levels' losses.

Each works on hands the bots play (`hands.play_hand`), recorded as a room records them,
and weighs their decisions exactly as the server does (`coach.analysis.weigh_decision`,
one decision at a time), in this process, timed with `time.process_time` (one core).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator, Sequence
from typing import Any

from bench.coach.hands import play_hand
from bench.kit.stats import percentile
from schmier import engine
from schmier.coach.analysis import weigh_decision
from schmier.coach.decisions import choices
from schmier.coach.marks import GOOD
from schmier.coach.options import budget_for

Record = dict[str, Any]


def hands(variant: str, levels: Sequence[str], count: int, seed: int) -> Iterator[Record]:
    """`count` hands of `variant` (seat k played by `levels[k % len(levels)]`), each dealt
    from its own seed from `seed` on (a deal everybody passed is skipped)."""
    seats = engine.seat_count(variant)
    played = 0
    while played < count:
        rotated = [levels[(k + played) % len(levels)] for k in range(seats)]
        record = play_hand(variant, rotated, seed, quick=False)
        seed += 1
        if record is not None:
            record["levels"] = rotated
            played += 1
            yield record


def cost(variant: str, count: int, effort: int, seed: int) -> dict[str, Any]:
    """CPU seconds per analysed hand and per decision, and the first decision's."""
    budget = budget_for(effort)
    per_hand: list[float] = []
    per_decision: list[float] = []
    first: list[float] = []
    for record in hands(variant, ["strong"], count, seed):
        spent = 0.0
        for k, i in enumerate(choices(record)):
            start = time.process_time()
            weigh_decision(record, i, budget)
            took = time.process_time() - start
            per_decision.append(took)
            spent += took
            if k == 0:
                first.append(took)
        per_hand.append(spent)
    return {
        "variant": variant,
        "effort": effort,
        "hands": len(per_hand),
        "decisions": len(per_decision),
        "hand_s_median": statistics.median(per_hand),
        "hand_s_max": max(per_hand),
        "decision_ms_median": 1000 * statistics.median(per_decision),
        "decision_ms_p90": 1000 * percentile(per_decision, 0.9),
        "first_ms_median": 1000 * statistics.median(first),
        "first_ms_max": 1000 * max(first),
    }


def agree(variant: str, count: int, effort: int, seed: int) -> dict[str, Any]:
    """How often two analyses with different seeds name the same best option, and how
    much the second says the first's best loses (the noise a loss carries)."""
    budget = budget_for(effort)
    same = total = 0
    noise: list[float] = []
    kinds: dict[str, list[int]] = {}
    for record in hands(variant, ["strong", "normal", "easy"], count, seed):
        for i in choices(record):
            a = weigh_decision(record, i, budget, salt="a")
            b = weigh_decision(record, i, budget, salt="b")
            total += 1
            same += a["best"] == b["best"]
            values = {repr(o["action"]): o["value"] for o in b["options"]}
            best_b = max(values.values())
            noise.append(max(0.0, best_b - values.get(repr(a["best"]), best_b)))
            kind = kinds.setdefault(a["kind"], [0, 0])
            kind[0] += a["best"] == b["best"]
            kind[1] += 1
    return {
        "variant": variant,
        "effort": effort,
        "decisions": total,
        "agree_pct": 100 * same / max(1, total),
        "within_good_pct": 100 * sum(1 for x in noise if x < GOOD) / max(1, total),
        "noise_p50": percentile(noise, 0.5),
        "noise_p90": percentile(noise, 0.9),
        "noise_p99": percentile(noise, 0.99),
        "by_kind": {k: f"{v[0]}/{v[1]}" for k, v in sorted(kinds.items())},
    }


def levels(
    variant: str, count: int, effort: int, seed: int, names: Sequence[str]
) -> dict[str, Any]:
    """Mean loss per decision of each level, on tables where the levels sit in turn
    (every deal played by each level from some seat), and their marks."""
    budget = budget_for(effort)
    losses: dict[str, list[float]] = {name: [] for name in names}
    marks: dict[str, dict[str, int]] = {name: {} for name in names}
    for record in hands(variant, names, count, seed):
        for i in choices(record):
            d = weigh_decision(record, i, budget)
            level = record["levels"][d["seat"]]
            losses[level].append(float(d["loss"]))
            marks[level][d["mark"]] = marks[level].get(d["mark"], 0) + 1
    return {
        "variant": variant,
        "effort": effort,
        "hands": count,
        "levels": {
            name: {
                "decisions": len(losses[name]),
                "mean_loss": statistics.fmean(losses[name]) if losses[name] else 0.0,
                "marks": marks[name],
            }
            for name in names
        },
    }
