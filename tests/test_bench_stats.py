"""The tools' one percentile (bench/kit/stats.py), on hand-worked examples."""

from __future__ import annotations

import pytest

from bench.kit.stats import percentile
from bench.load.probes import pct


@pytest.mark.parametrize(
    ("values", "share", "expected"),
    [
        # 20 values: the 95th percentile is the 19th smallest (0.95 * 20 = 19 exactly).
        (list(range(1, 21)), 0.95, 19),
        # 10 values: the median is the 5th smallest, the lower of the middle two.
        (list(range(1, 11)), 0.5, 5),
        # 30 values: 0.95 * 30 = 28.5, rounded up to the 29th smallest.
        (list(range(1, 31)), 0.95, 29),
        # Unsorted input; the whole share is the largest, a tiny one the smallest.
        ([7.0, 3.0, 9.0, 1.0], 1.0, 9.0),
        ([7.0, 3.0, 9.0, 1.0], 0.01, 1.0),
        # One value is every percentile of itself.
        ([4.2], 0.99, 4.2),
    ],
)
def test_nearest_rank(values: list[float], share: float, expected: float) -> None:
    assert percentile(values, share) == expected


def test_no_values_is_zero() -> None:
    assert percentile([], 0.5) == 0.0


def test_the_load_generators_milliseconds_use_the_same_rank() -> None:
    seconds = [i / 1000 for i in range(1, 101)]  # 1 ms .. 100 ms
    assert pct(seconds, 99) == 99.0
    assert pct(seconds, 50) == 50.0
    assert pct([], 99) is None
