"""The coach in the hand summary, in a real Chromium against a real server, on a desktop
and a phone: the summary of the last hand offers to weigh it (only looking costs the
server nothing: no analysis is started by showing the summary), asked by keyboard or by
touch it shows each player's accuracy and points left on the table as the API has them
(rounded as the page rounds), links to the review's coach, and another browser opening
the room later is shown them at once, the room's history its game's accuracy; past the
room's quota it says when to ask again; the next hand dealt stops the polling, and
opening the folded summary resumes it.
"""

from __future__ import annotations

import asyncio
import math
import random
import re
import threading
from typing import Any

import pytest

from schmier import engine
from tests.support import loopback
from tests.support.browsers import PHONE, PageFactory, screenshot
from tests.support.play import check_fits
from tests.support.screens import axe_violations
from tests.support.servers import Client, Player, RunningServer, ServerFactory
from tests.test_browser_review import get_json, play_over_the_wire

pytestmark = [pytest.mark.browser, pytest.mark.long]

COACH = "[data-coach-summary]"
WEIGH = "button[data-action='coach_weigh']"


def analysis_of(server: RunningServer, code: str, n: int) -> dict[str, Any]:
    answer = loopback.get(f"{server.base_url}/api/rooms/{code}/hands/{n}/analysis", timeout=10)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def half_up(x: float) -> float:
    """JavaScript's Math.round (halves up; Python's round goes to even)."""
    return math.floor(x + 0.5)


def check_figures(page: Any, analysis: dict[str, Any]) -> None:
    """Each player's row: the name as text, the accuracy and the points left as the API
    has them, rounded as the page rounds."""
    rows = page.eval_on_selector_all(
        f"{COACH} tbody tr",
        "(rs) => rs.map((r) => [r.dataset.seat, ...[...r.cells].map((c) => c.textContent)])",
    )
    assert len(rows) == len(analysis["players"])
    for p, (seat, name, accuracy, loss) in zip(analysis["players"], rows, strict=True):
        assert int(seat) == p["seat"]
        assert name == p["name"]
        assert accuracy == str(half_up(p["accuracy"])), (p, accuracy)
        assert abs(float(loss) - half_up(p["loss"] * 100) / 100) < 1e-9, (p, loss)


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_summary_shows_each_players_accuracy_from_the_coach(
    pages: PageFactory, server_factory: ServerFactory, phone: bool
) -> None:
    server = server_factory()
    variant = "wisconsin4" if phone else "schmier6"
    code = play_over_the_wire(server, variant)
    n = len(get_json(server, f"/api/rooms/{code}/hands"))
    options: dict[str, Any] = {"locale": "en-GB"}
    if phone:
        options.update(viewport=PHONE, is_mobile=True, has_touch=True)
    page = pages(**options)
    page.goto(f"{server.base_url}/r/{code}")
    page.wait_for_selector(f"#hand-summary[open] {COACH}[data-hand='{n}'][data-state='idle']")
    # Showing the summary started nothing: it only looked.
    assert server.app.state.analyses.started == 0
    assert page.locator(f"{COACH} table").count() == 0
    if phone:
        check_fits(page)
        page.tap(WEIGH)
    else:
        page.focus(WEIGH)
        page.keyboard.press("Enter")
    page.wait_for_selector(f"{COACH}[data-state='done']", timeout=120_000)
    assert server.app.state.analyses.started == 1
    analysis = analysis_of(server, code, n)
    check_figures(page, analysis)
    status = page.locator(f"{COACH} [role='status']")
    assert status.get_attribute("aria-live") == "polite"
    assert f"{len(analysis['decisions'])} decisions weighed" in status.text_content()
    assert page.locator(WEIGH).is_hidden()
    label = "phone" if phone else "desktop"
    assert axe_violations(page, f"summary coach {label}") == []
    if phone:
        check_fits(page)
    screenshot(page, f"{label}-summary-coach", at=COACH)
    # "Each decision in the review": the review opens at its coach, the analysis shown.
    review = "button[data-action='coach_review']"
    if phone:
        page.tap(review)
    else:
        page.click(review)
    page.wait_for_selector("#review-dialog .coach[data-state='done']")
    assert page.evaluate("() => document.activeElement.matches('.coach')")
    page.click("button[data-review='close']")
    # The room's history: the game's accuracy per player, over the one hand weighed.
    page.click("#history summary")
    line = page.wait_for_selector("#history .history-accuracy")
    history = get_json(server, f"/api/rooms/{code}/history")
    game = history["games"][-1]
    assert page.locator(f"#history [data-game='{game['game']}'] .history-accuracy").count() == 1
    text = line.text_content() or ""
    assert "(1)" in text, text
    for seat in game["accuracy"]:
        assert seat["hands"] == 1
        assert f"{seat['name']} {half_up(seat['accuracy'])}" in text, (seat, text)
    # Another browser opening the room later is shown the figures at once, no click.
    other = pages(**options)
    other.goto(f"{server.base_url}/r/{code}")
    other.wait_for_selector(f"{COACH}[data-hand='{n}'][data-state='done']")
    check_figures(other, analysis)
    assert other.locator(WEIGH).count() == 0 or other.locator(WEIGH).is_hidden()
    assert server.app.state.analyses.started == 1


def test_past_the_rooms_quota_the_summary_says_when_to_ask_again(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory(analysis_room_burst=1, analysis_room_rate=0.01)
    code = play_over_the_wire(server, "wisconsin4", games=2)
    n = len(get_json(server, f"/api/rooms/{code}/hands"))
    assert n >= 2
    # The room's one start goes to its first hand.
    first = loopback.get(f"{server.base_url}/api/rooms/{code}/hands/1/analysis", timeout=10)
    assert first.status_code in (200, 202), first.text
    pages.allow_console("status of 429")
    page = pages(locale="en-GB")
    page.goto(f"{server.base_url}/r/{code}")
    page.click(f"#hand-summary[open] {COACH}[data-hand='{n}'][data-state='idle'] {WEIGH}")
    page.wait_for_selector(f"{COACH}[data-state='refused']")
    refused = loopback.get(f"{server.base_url}/api/rooms/{code}/hands/{n}/analysis", timeout=10)
    assert refused.status_code == 429
    text = page.locator(f"{COACH} [role='status']").text_content() or ""
    said = re.search(r"The coach is busy; ask again in (\d+) min\.", text)
    assert said, text
    assert abs(int(said.group(1)) - math.ceil(refused.json()["retry_after"] / 60)) <= 1
    # The button stays, to ask again; nothing was started for this hand.
    assert page.locator(WEIGH).is_enabled()
    assert server.app.state.analyses.started == 1
    assert axe_violations(page, "summary coach refused") == []


def one_hand_then_idle(server: RunningServer, variant: str, stop: threading.Event) -> Any:
    """Ann and bots play one hand over the protocol; Ann then acts no more (the next
    hand, dealt after the pause, waits at her turn) until `stop`. In a thread of its
    own; returns the thread and its outcome (`code` once the room is started)."""
    outcome: dict[str, Any] = {}
    ready = threading.Event()

    async def main() -> None:
        code = await server.create_room(variant, {"target": 50})
        _, token = await server.join(code, "Ann", 0)
        client = await Client.seated(server, code, token)
        for seat in range(1, engine.seat_count(variant)):
            await client.send({"type": "add_bot", "seat": seat})
        await client.wait_state(lambda v: {"type": "start"} in v["legal"])
        await client.send({"type": "start"})
        outcome["code"] = code
        ready.set()
        player = Player(client, random.Random(variant))
        await player.play_until(lambda v: v["phase"] == "hand_over", timeout=120)
        while not stop.is_set():
            await asyncio.sleep(0.1)
        await client.close()

    def run() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # handed to the test's thread
            outcome["error"] = exc
        finally:
            ready.set()

    thread = threading.Thread(target=run, name=f"one-hand-{variant}")
    thread.start()
    assert ready.wait(60) and "code" in outcome, outcome.get("error")
    return thread, outcome


@pytest.mark.timeout(600)
def test_the_next_hand_stops_the_polling_and_opening_the_summary_resumes_it(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    # A long analysis (twice the effort: about 25 s of a core here, while the test needs
    # it pending for about 10 s), a pause between hands long enough to ask. Analyses run
    # only on a core nobody else wants (SCHED_IDLE), so on a busy machine it takes far
    # longer: hence the test's own timeout.
    server = server_factory(analysis_effort=200, hand_pause=6, bot_delay=0.05, idle_turn_seconds=0)
    stop = threading.Event()
    thread, outcome = one_hand_then_idle(server, "schmier6", stop)
    code = outcome["code"]
    try:
        page = pages(locale="en-GB")
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url) if "/analysis" in r.url else None)
        page.goto(f"{server.base_url}/r/{code}")
        page.click(
            f"body[data-phase='hand_over'] #hand-summary[open] "
            f"{COACH}[data-hand='1'][data-state='idle'] {WEIGH}",
            timeout=120_000,
        )
        page.wait_for_selector(f"{COACH}[data-state='pending']")
        # The next hand is dealt: the summary folds, the polling stops.
        page.wait_for_selector("body:not([data-phase='hand_over']) #hand-summary:not([open])")
        page.wait_for_timeout(500)  # a poll already on its way may land
        polled = len(asked)
        page.wait_for_timeout(3_000)
        assert len(asked) == polled, asked[polled:]
        url = f"{server.base_url}/api/rooms/{code}/hands/1/analysis?start=0"
        still = loopback.get(url, timeout=10)
        assert still.status_code == 202, "the analysis ended before the test could see"
        assert page.locator(f"{COACH}[data-state='pending']").count() == 1
        # Opened again (the hand in play meanwhile): the polling goes on to the end, and
        # the summary stays open as the player left it while the table's state changes.
        page.click("#hand-summary > summary")
        page.wait_for_selector(f"#hand-summary[open] {COACH}[data-state='done']", timeout=540_000)
        assert len(asked) > polled
        check_figures(page, analysis_of(server, code, 1))
    finally:
        stop.set()
        thread.join(30)
    assert "error" not in outcome, outcome.get("error")
