"""Percentiles, one definition for every measuring tool.

Nearest rank: the `share` percentile of n values is the ceil(share * n)-th smallest, a
value that was actually measured (never an interpolation between two), so a reported
p99 or maximum is a time some action really took. Tools once had three roundings of
their own; figures measured before they shared this one may differ from a rerun by one
rank (the median of an even count is now the lower of the middle two).
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def percentile(values: Iterable[float], share: float) -> float:
    """The nearest-rank `share` percentile (0 < share <= 1) of `values`; 0 for none."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    # The tolerance keeps 0.95 * 20 (19.000000000000004 in floating point) at rank 19.
    rank = math.ceil(share * len(ordered) - 1e-9)
    return ordered[min(len(ordered), max(rank, 1)) - 1]
