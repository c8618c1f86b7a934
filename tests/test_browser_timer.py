"""The turn timer in a real Chromium: set in the lobby's form, counted down on the seat
whose turn it is, and when the time is up the bot plays that turn for the player, who
keeps the seat and plays the next turn by clicking.

The server runs its timers at `turn_timer_scale` 0.2, so the room's 30 seconds are 6.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.browsers import PageFactory, Table, screenshot
from tests.support.play import act, answered, check_contract, fill_and_start, sit
from tests.support.servers import ServerFactory

pytestmark = pytest.mark.browser

SCALE = 0.2
RULE = 30


def my_turn(view: dict[str, Any]) -> bool:
    return view["phase"] not in ("lobby", "game_over") and view["you"] in view["turn"]


def wait_view(
    table: Table, check: Any, timeout: float = 30
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Until the page shows a view for which `check(view)` holds."""
    page = table.page
    for _ in range(int(timeout * 1000 / 50)):
        shot, view = table.synced()
        if check(view):
            return shot, view
        page.wait_for_timeout(50)
    raise AssertionError("the page never showed the awaited view")


def timers(table: Table) -> list[dict[str, Any]]:
    """Every countdown on the seats: its seat, the seconds shown, the ring's offset."""
    found: list[dict[str, Any]] = table.page.evaluate(
        """() => [...document.querySelectorAll('.seat .turn-timer')].map((el) => ({
            seat: Number(el.closest('.seat').dataset.seat),
            text: el.querySelector('.turn-timer-s').textContent,
            left: Number(el.dataset.left),
            label: el.getAttribute('aria-label'),
            offset: Number(el.querySelector('circle.left').getAttribute('stroke-dashoffset')),
          }))"""
    )
    return found


def test_the_countdown_runs_out_and_the_bot_plays_that_turn(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory(turn_timer_scale=SCALE, hand_pause=0.2)
    page = pages()
    table = Table(page)
    # The lobby's form: off by default, the lengths to pick from, each as seconds.
    page.goto(server.base_url + "/")
    page.check('input[name="variant"][value="schmier6"]')
    assert page.input_value("#turn_seconds") == "0"
    labels = page.locator("#turn_seconds option").all_inner_texts()
    assert labels[0] == "Off" and "30 s" in labels and "300 s" in labels
    page.select_option("#turn_seconds", str(RULE))
    page.fill("#target", "5")
    page.click('button[data-action="create"]')
    page.wait_for_url(re.compile(r"/r/[^/]+$"))
    page.wait_for_selector("body[data-seq]")
    sit(page, "Ann", 0)
    _, lobby = table.synced()
    assert lobby["rules"]["turn_seconds"] == RULE and lobby["turn_ends_in"] is None
    assert timers(table) == []
    # A drawn stopwatch, then the length (the glyph ⏱ needs an emoji font).
    assert page.inner_text("#scoreboard .timer-rule").strip() == f"{RULE} s"
    assert page.locator("#scoreboard .timer-rule svg.icon-clock").count() == 1
    fill_and_start(page)

    # Seat 0's turn: a countdown on seat 0 alone (the bots' turns are not timed).
    page.wait_for_selector('.seat[data-seat="0"] .turn-timer')
    shot, view = wait_view(table, my_turn)
    assert view["turn_ends_in"] is not None
    shown = timers(table)
    assert [t["seat"] for t in shown] == [0]
    first = shown[0]
    assert 0 < first["left"] <= RULE * SCALE and first["text"] == str(first["left"])
    assert first["label"] == f"{first['left']} seconds left"
    screenshot(page, "desktop-turn-timer")
    # It counts down on its own, with no frame from the server.
    seq = shot["seq"]
    page.wait_for_function(
        f"() => Number(document.querySelector('.turn-timer').dataset.left) < {first['left']}"
    )
    assert page.evaluate("document.body.dataset.seq") == seq
    later = timers(table)[0]
    assert later["offset"] > first["offset"]  # the ring empties as time goes

    # Nothing is clicked: when the time is up the bot plays seat 0's turn.
    answered(table, seq, view, timeout=RULE * SCALE + 10)
    played = [v for n, v in table.views.items() if n > int(seq)]
    assert played and played[0]["legal"] != view["legal"]
    _, now = table.synced()
    me = now["seats"][0]
    assert (me["kind"], me["name"], me["connected"]) == ("human", "Ann", True)
    assert page.locator('.seat.me[data-seat="0"] .badge.bot').count() == 0

    # The next turn is the player's again, timed afresh, and clicking plays it.
    shot, view = wait_view(table, my_turn)
    check_contract(shot, view)
    assert view["turn_ends_in"] is not None
    page.wait_for_selector('.seat[data-seat="0"] .turn-timer')
    assert act(table, view)
    answered(table, shot["seq"], view)


def test_an_idle_players_countdown_shows_in_its_last_30_seconds(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    """No timer, but the server's idle limit (`SCHMIER_IDLE_TURN_SECONDS`, 32 s here):
    the seat's ring, and the count by the action panel, are there but hidden while more
    than 30 s are left, then show the seconds before the bot plays the turn, with words
    that say so."""
    server = server_factory(idle_turn_seconds=32, hand_pause=0.2)
    page = pages()
    table = Table(page)
    page.goto(server.base_url + "/")
    page.check('input[name="variant"][value="wisconsin4"]')
    page.click('button[data-action="create"]')
    page.wait_for_url(re.compile(r"/r/[^/]+$"))
    page.wait_for_selector("body[data-seq]")
    sit(page, "Ann", 0)
    fill_and_start(page)
    _, view = wait_view(table, my_turn)
    assert view["turn_ends_in"] is None and view["idle_ends_in"] > 30
    ring = page.locator('.seat[data-seat="0"] .turn-timer')
    clock = page.locator("#turn-clock")
    ring.wait_for(state="attached")
    assert ring.is_hidden()
    assert clock.is_hidden()
    ring.wait_for(state="visible", timeout=15_000)
    shown = timers(table)
    assert [t["seat"] for t in shown] == [0] and shown[0]["left"] <= 30
    assert shown[0]["label"] == f"The bot plays this turn in {shown[0]['left']} seconds"
    clock.wait_for(state="visible")
    words = page.locator("#turn-clock .turn-clock-text").inner_text()
    assert re.fullmatch(r"The bot plays this turn in \d+ seconds", words), words
    assert act(table, view)  # playing ends the countdown
