"""Another table plays a finished hand's deal, in a real Chromium against a real server:
from the read-only review of a hand (a club's first table, seen through the room's link),
"Play this deal at another table" gives a link; a second table opens it on a phone and
sits down; every seat of the new table is dealt exactly the cards it had in the original
hand; the table plays the hand out; then the comparison shows both tables' results seat
by seat, in the practice room's summary and under the review, and two tables' tricks
step side by side. The screens stay axe-clean and fit a 375 px phone.

Screenshots (`desktop-tables`, `phone-tables`) go where `tests/support/browsers.py` says.

The games are played over the protocol (fast); the browser does what a person does: the
controls, the link, the seat, the reading.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.support.browsers import PHONE, PageFactory, screenshot
from tests.support.play import check_fits, sit
from tests.support.screens import axe_violations
from tests.support.servers import Client, Player, RunningServer, ServerFactory, play_all
from tests.test_browser_review import get_json

pytestmark = pytest.mark.browser

SCORED = ("hand_over", "game_over")
NAMES = ["Dan", "Eve", "Fay", "Gus"]


def in_thread(work: Callable[[], Awaitable[Any]]) -> Any:
    """Run `work` on an event loop of its own thread (Playwright's sync API holds this
    thread's loop); its answer, or its exception raised here."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(work())  # type: ignore[arg-type]
        except BaseException as exc:  # handed to the test's thread below
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="wire-tables")
    thread.start()
    thread.join(180)
    if "error" in outcome:
        raise outcome["error"]
    assert "value" in outcome, "the work over the wire did not end"
    return outcome["value"]


def first_hand(server: RunningServer) -> str:
    """Ann and three bots play a room's first hand over the wire; the room's code."""

    async def work() -> str:
        code = await server.create_room("wisconsin4", {"target": 11})
        _, token = await server.join(code, "Ann", 0)
        ann = await Client.seated(server, code, token)
        for seat in (1, 2, 3):
            await ann.send({"type": "add_bot", "seat": seat})
        await ann.wait_state(lambda v: {"type": "start"} in v["legal"])
        await ann.send({"type": "start"})
        await Player(ann, random.Random("first")).play_until(lambda v: v["phase"] in SCORED)
        await ann.close()
        return code

    code: str = in_thread(work)
    return code


def play_the_table(
    server: RunningServer, code: str, token: str, hands: list[list[str]]
) -> list[list[str]]:
    """Eve, Fay and Gus join seats 1 to 3 over the wire; with Dan's token (his page's) the
    four play the hand out; each seat's cards as first dealt there."""

    async def work() -> list[list[str]]:
        clients = {0: await Client.seated(server, code, token)}
        for seat in (1, 2, 3):
            got, mine = await server.join(code, NAMES[seat], seat)
            assert got == seat
            clients[seat] = await Client.seated(server, code, mine)
        dealt = []
        for seat in range(4):
            state = clients[seat].state
            assert state is not None
            dealt.append(sorted(state["view"]["hand"]))
        rng = random.Random("another-table")
        await play_all([Player(c, rng) for c in clients.values()], lambda v: v["phase"] in SCORED)
        for client in clients.values():
            await client.close()
        return dealt

    result: list[list[str]] = in_thread(work)
    assert result == [sorted(h) for h in hands]
    return result


def columns(page: Any, within: str) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        f"{within} table[data-tables='compare'] thead th[data-table]",
        "(es) => es.map((e) => e.dataset.table)",
    )
    return found


def seat_cells(page: Any, within: str, seat: int) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        f"{within} table[data-tables='compare'] tr[data-seat='{seat}'] td",
        "(es) => es.map((e) => e.textContent)",
    )
    return found


def test_a_second_table_plays_the_deal_and_the_tables_compare(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory(hand_pause=600)
    code = first_hand(server)
    record = get_json(server, f"/api/rooms/{code}/hands/1")

    # The first table's review, through the room's link: one table so far.
    first = pages()
    first.goto(f"{server.base_url}/r/{code}/h/1")
    first.wait_for_selector(f"#replay .tables-panel th[data-table='{code}']")
    assert columns(first, "#replay") == [code]
    assert not axe_violations(first, "review with its tables")
    first.click("button[data-tables='new']")
    link = first.wait_for_selector("input[data-tables='link']")
    assert link is not None
    url = link.input_value()
    assert url.startswith(f"{server.base_url}/r/")
    other = url.rsplit("/", 1)[1]
    assert other != code
    assert get_json(server, f"/api/rooms/{other}")["practice"] == {
        "room": code,
        "hand": 1,
        "step": 0,
    }

    # The second table opens the link on a phone, and Dan sits down at seat 0.
    second = pages(viewport=PHONE, is_mobile=True, has_touch=True)
    second.goto(url)
    sit(second, "Dan", 0)
    second.wait_for_selector("#hand button[data-card]")
    shown = second.eval_on_selector_all(
        "#hand button[data-card]", "(es) => es.map((e) => e.dataset.card)"
    )
    assert sorted(shown) == sorted(record["hands"][0])
    check_fits(second)
    token = second.evaluate(
        f"JSON.parse(localStorage.getItem('schmier.tokens'))['{other.lower()}']"
    )
    play_the_table(server, other, token, record["hands"])
    played = get_json(server, f"/api/rooms/{other}/hands/1")
    assert played["deal"]["deck"] == record["deal"]["deck"]

    # Its summary: both tables, seat by seat, the joiners' names.
    second.wait_for_selector(f"#practice-tables th[data-table='{other}']")
    assert columns(second, "#practice-tables") == [code, other]
    for seat in range(4):
        cells = seat_cells(second, "#practice-tables", seat)
        assert NAMES[seat] in cells[1], cells
    second.wait_for_selector("#practice-tables tr[data-row='contract']")
    check_fits(second)
    assert not axe_violations(second, "practice room with its tables")

    # The first table refreshes: the second's result beside its own, and its review.
    first.click("button[data-tables='refresh']")
    first.wait_for_selector(f"#replay th[data-table='{other}']")
    theirs = get_json(server, f"/api/rooms/{code}/hands/1/tables")["tables"][1]
    points = first.eval_on_selector_all(
        "#replay table[data-tables='compare'] tbody [data-points]",
        "(es) => es.map((e) => Number(e.dataset.points))",
    )
    assert points[1::2] == theirs["points"]
    assert f"/r/{other}/h/1" in first.eval_on_selector_all(
        "#replay a[data-tables='review']", "(es) => es.map((e) => e.getAttribute('href'))"
    )
    # Two tables' tricks side by side, by the keyboard.
    first.focus("button[data-tables='show']")
    first.keyboard.press("Enter")
    first.wait_for_selector("[data-tables='stage'][data-step='0'] .tables-side .trick-cards")
    sides = first.eval_on_selector_all(
        "[data-tables='stage'] .tables-side", "(es) => es.map((e) => e.dataset.table)"
    )
    assert sides == [code, other]
    trick = first.eval_on_selector_all(
        f"[data-tables='stage'] .tables-side[data-table='{other}'] [data-rcard]",
        "(es) => es.map((e) => e.dataset.rcard)",
    )
    assert trick == [p["card"] for p in played["tricks"][0]["cards"]]
    first.focus("button[data-tables='next']")
    first.keyboard.press("Enter")
    first.wait_for_selector("[data-tables='stage'][data-step='1']")
    first.keyboard.press("ArrowRight")
    first.wait_for_selector("[data-tables='stage'][data-step='2']")
    trick = first.eval_on_selector_all(
        f"[data-tables='stage'] .tables-side[data-table='{code}'] [data-rcard]",
        "(es) => es.map((e) => e.dataset.rcard)",
    )
    assert trick == [p["card"] for p in record["tricks"][2]["cards"]]
    # Loading the tables again (Refresh here; another table made does the same) keeps the
    # two tables and the trick the player is on: they were made anew, empty, and a "Show"
    # pressed while a new table's link came was lost.
    first.evaluate("document.querySelector('#replay .tables-scroll').dataset.old = '1'")
    first.click("#replay button[data-tables='refresh']")
    first.wait_for_selector("#replay .tables-board > .tables-scroll:not([data-old])")
    assert first.get_attribute("[data-tables='stage']", "data-step") == "2"
    assert first.locator("[data-tables='stage'] .tables-side .trick-cards").count() == 2
    assert not axe_violations(first, "two tables side by side")
    screenshot(first, "desktop-tables", at="#replay .tables-panel")
    # From the practice room too, on the phone: a third table's link, within the screen.
    second.click("#practice-tables button[data-tables='new']")
    second.wait_for_selector("#practice-tables input[data-tables='link']")
    check_fits(second)
    second.click("#practice-tables button[data-tables='show']")
    second.wait_for_selector("#practice-tables [data-tables='stage'] .tables-side .trick-cards")
    check_fits(second)
    assert not axe_violations(second, "phone, two tables side by side")
    screenshot(second, "phone-tables", at="#practice-tables")
