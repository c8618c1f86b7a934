"""Each room's own place in time, so that tables which start together drift apart.

Why: a restart, a deploy or a failover resumes every table of an instance within the
same second, and a tournament starts its tables together. Work each room schedules for
itself, a fixed time after something that happened to all of them at once (the idle
stop, the grace before an absent player's turn is played or the host's role passes on,
the pause after a scored hand, the idle limit of a turn, a follower's lease check), would
then come due for every room in the same moment, and again, in step, every time after:
a burst of commits, broadcasts and bot searches that every table on the process feels
as a stall.

So each such piece of work is shifted by the room's *phase*, a number in [0, 1) read
off its code. Codes are random (`codes.py`), so phases are spread evenly over the
rooms; a hash of the code (not Python's `hash`, which differs from process to process)
gives a room the same phase on every instance and after every restart. Only the
server's own timing moves, and only within bounds each caller documents: a turn timer a
room's rules set is never shifted, and a deadline players see is shown as it will be
played (`clock.py`).
"""

from __future__ import annotations

import hashlib
import math


def phase(code: str) -> float:
    """The room's place in any period, in [0, 1), the same wherever it is computed."""
    digest = hashlib.blake2b(code.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


def later(seconds: float, place: float, share: float, cap: float) -> float:
    """`seconds` lengthened by the room's part of a window of `share` of it (at most
    `cap` seconds): between `seconds` and `seconds + min(seconds * share, cap)`."""
    return seconds + place * min(seconds * share, cap)


def sooner(seconds: float, place: float, share: float, cap: float) -> float:
    """`seconds` shortened likewise: never longer than `seconds`, never shorter than
    `seconds - min(seconds * share, cap)`."""
    return seconds - place * min(seconds * share, cap)


def next_slot(now: float, period: float, place: float) -> float:
    """The first time after `now` of the room's slots for work done every `period`:
    `k * period + place * period` for whole k. A room keeps its slot whenever it began,
    so rooms that began together do their work spread over the period, and the gap
    between two of a room's slots is exactly `period`."""
    offset = place * period
    return (math.floor((now - offset) / period) + 1) * period + offset
