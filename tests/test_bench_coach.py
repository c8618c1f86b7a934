"""`python -m bench.coach`: its three measurements run, on a tiny budget, and say what
they promise (docs/coach.md)."""

from __future__ import annotations

from bench.coach import measure
from schmier.coach.decisions import choices


def test_the_hands_are_records_with_their_levels() -> None:
    records = list(measure.hands("wisconsin4", ["strong", "easy"], 2, 5))
    assert len(records) == 2
    for k, record in enumerate(records):
        assert record["levels"] == [["strong", "easy"][(s + k) % 2] for s in range(4)]
        assert choices(record)


def test_cost_agree_and_levels_report_their_figures() -> None:
    cost = measure.cost("wisconsin4", 1, 5, 7)
    assert cost["hands"] == 1 and cost["decisions"] > 0
    assert 0 < cost["first_ms_median"] <= cost["hand_s_max"] * 1000
    agree = measure.agree("wisconsin4", 1, 5, 7)
    assert agree["decisions"] > 0 and 0 <= agree["agree_pct"] <= 100
    assert 0 <= agree["noise_p50"] <= agree["noise_p90"] <= agree["noise_p99"]
    levels = measure.levels("wisconsin4", 2, 5, 7, ["strong", "random"])
    by = levels["levels"]
    assert by["strong"]["decisions"] > 0 and by["random"]["decisions"] > 0
    assert sum(by["random"]["marks"].values()) == by["random"]["decisions"]
