"""A smoke run of the phone benchmark: a real Chromium plays a hand and reports its figures.

`python -m bench.phone` is a tool for people (docs/performance.md, "The table on a
phone"); the suite proves only that it works end to end: it spawns a server, a person
plays a whole hand by the keyboard in Chromium beside the server's bots, and every
figure it reports was measured (state frames timed, paints seen, key presses counted).
No timing is asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support import netlock
from tests.support.browsers import CHROMIUM

REPO = Path(__file__).resolve().parents[1]


def test_a_hand_on_a_slowed_phone_is_played_and_measured(browser: Any) -> None:
    # `browser`: skipped (or failed, under SCHMIER_TEST_REQUIRE) without Chromium, and
    # run with the browser tests, beside no network being made.
    with netlock.browsing():
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench.phone",
                "--variants",
                "wisconsin4",
                "--throttle",
                "2",
                "--hands",
                "1",
                "--chromium",
                CHROMIUM,
                "--json",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=280,
            check=False,
        )
    assert done.returncode == 0, f"bench.phone failed:\n{done.stdout}\n{done.stderr}"
    (result,) = json.loads(done.stdout)["results"]
    assert result["variant"] == "wisconsin4" and result["throttle"] == 2
    # A hand of four players' six tricks and the bidding: a state for each move at least.
    assert result["frames"] >= 25, result
    for figures in (result["handler_ms"], result["paint_ms"]):
        assert 0 < figures["p50"] <= figures["p95"] <= figures["max"], result
    # A frame is on screen after its handler has run.
    assert result["paint_ms"]["p50"] >= result["handler_ms"]["p50"], result
    # The person moved: a bid or a pass, then a card a trick (the presses that took
    # longer than 16 ms are the interactions Event Timing reports: maybe none).
    assert result["moves"] >= 7 and result["interactions"] >= 0, result
    assert result["open_load_ms"] > 0 and result["open_shown_ms"] > 0, result
    # Chromium's own counters: every state is laid out and styled at least once.
    browser_work = result["browser_per_state"]
    assert browser_work["layouts"] >= 1 and browser_work["style_recalcs"] >= 1, result
    assert browser_work["layout_ms"] > 0 and browser_work["style_ms"] > 0, result
