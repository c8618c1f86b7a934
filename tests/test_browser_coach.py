"""The coach in the review, in a real Chromium against a real server, on a desktop and a
phone: asked for by keyboard or by touch, it shows its progress, then each player's
accuracy, the strip of the hand's biggest swings (a swing jumps to its step), and at
every step the chosen player decided something, the mark and the options with their
values, with what the player knew and with all cards shown.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.support import loopback
from tests.support.browsers import PHONE, PageFactory, Table, screenshot
from tests.support.play import check_fits, create_room, sit
from tests.support.servers import ServerFactory
from tests.test_browser_bots import Hints, follow
from tests.test_browser_review import get_json, play_over_the_wire

pytestmark = pytest.mark.browser


def step_of(record: dict[str, Any], i: int) -> int:
    """The review's step of the record's action `i` (web/coachwords.js, stepOfAction)."""
    exchange = any(
        a["action"].get("cards") for a in record["actions"] if a["action"]["type"] == "discard"
    )
    first_trick = 3 if exchange else 2
    action = record["actions"][i]["action"]
    if action["type"] == "play":
        before = sum(1 for a in record["actions"][:i] if a["action"]["type"] == "play")
        return first_trick + before // len(record["hands"])
    if action["type"] in ("discard", "call") and exchange:
        return 2
    return 1


def analysis_of(server: Any, code: str) -> dict[str, Any]:
    """The analysis of hand 1 once the page has had it computed."""
    answer = loopback.get(f"{server.base_url}/api/rooms/{code}/hands/1/analysis", timeout=10)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def press(page: Any, selector: str, tap: bool) -> None:
    if tap:
        page.tap(selector)
    else:
        page.click(selector)


def walk(page: Any, record: dict[str, Any], analysis: dict[str, Any], tap: bool) -> int:
    """Choose the seat with the most decisions, then step through the whole review: at
    each step its decisions there are shown, each with its mark and values. The count."""
    seat = max(analysis["players"], key=lambda p: p["decisions"])["seat"]
    page.select_option("select[data-coach='seat']", str(seat))
    mine = [d for d in analysis["decisions"] if d["seat"] == seat]
    press(page, "button[data-review='first']", tap)
    shown = 0
    step = 0
    while True:
        page.wait_for_selector(f".review-stage[data-step='{step}']")
        wanted = sorted(d["i"] for d in mine if step_of(record, d["i"]) == step)
        got = page.eval_on_selector_all(
            ".coach-decision", "(es) => es.map((e) => Number(e.dataset.i))"
        )
        assert sorted(got) == wanted, (step, got, wanted)
        for d in (x for x in mine if x["i"] in wanted):
            box = f".coach-decision[data-i='{d['i']}']"
            assert page.get_attribute(box, "data-mark") == d["mark"]
            rows = page.eval_on_selector_all(
                f"{box} tbody tr", "(es) => es.map((e) => [...e.cells].map((c) => c.textContent))"
            )
            assert len(rows) == len(d["options"])
            for row in rows:  # the option, its value as known, its value with all cards
                assert all(v == "0" or v[0] in "+−" for v in row[1:]), row
            shown += 1
        button = "button[data-review='next']"
        if page.is_disabled(button):
            break
        press(page, button, tap)
        step += 1
    assert shown == len(mine)
    return shown


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_coach_shows_marks_and_values_at_every_decision(
    pages: PageFactory, server_factory: ServerFactory, phone: bool
) -> None:
    server = server_factory()
    variant = "wisconsin4" if phone else "schmier6"
    code = play_over_the_wire(server, variant)
    record = get_json(server, f"/api/rooms/{code}/hands/1")
    page = pages(viewport=PHONE, is_mobile=True, has_touch=True) if phone else pages()
    page.goto(f"{server.base_url}/r/{code}/h/1")
    page.wait_for_selector(".review-stage[data-kind='deal']")
    start = "button[data-coach='start']"
    if phone:
        page.tap(start)
    else:
        page.focus(start)
        page.keyboard.press("Enter")
    page.wait_for_selector(".coach[data-state='done']", timeout=120_000)
    analysis = analysis_of(server, code)
    players = page.eval_on_selector_all(".coach-players li", "(es) => es.map((e) => e.textContent)")
    assert len(players) == len(record["hands"])
    for p, text in zip(analysis["players"], players, strict=True):
        # Rounded as the page rounds (Math.round: halves up, where Python's go to even).
        assert str(math.floor(p["accuracy"] + 0.5)) in text and p["name"] in text
    if phone:
        check_fits(page)
    # The biggest swing first: it jumps to its step, showing its player's decision.
    swings = page.eval_on_selector_all("button[data-coach='swing']", "(es) => es.length")
    if swings:
        first = "button[data-coach='swing']"
        step = page.get_attribute(first, "data-step")
        press(page, first, phone)
        page.wait_for_selector(f".review-stage[data-step='{step}']")
        page.wait_for_selector(".coach-decision")
        page.locator(".coach-decision").first.scroll_into_view_if_needed()
        screenshot(page, "phone-coach" if phone else "desktop-coach")
    assert walk(page, record, analysis, tap=phone) > 0


def test_a_hint_says_why_with_the_values_it_weighed(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    """With `strong` answering hints, a hint on a card shows the values of the cards it
    weighed, the suggested one among them."""
    server = server_factory(default_bot="strong", bot_delay=0.05)
    page = pages(locale="en-GB")
    table = Table(page)
    hints = Hints(page)
    create_room(page, server, "wisconsin4")
    sit(page, "Ann", 0)
    page.click('button[data-action="fill_bots"]')
    page.click('button[data-action="start"]')
    for _ in range(60):
        page.wait_for_selector('button[data-action="hint"]', timeout=60_000)
        shot, view = table.synced()
        if not view["legal"]:
            page.wait_for_timeout(30)
            continue
        page.click('button[data-action="hint"]')
        page.wait_for_selector(".hint-text")
        hint = hints.frames[-1]
        if "options" in hint:
            why = page.inner_text("[data-hint='why']")
            assert len(hint["options"]) >= 2
            assert why.count("·") == len(hint["options"]) - 1, why
            assert hint["action"] in [o["action"] for o in hint["options"]]
            return
        assert page.locator("[data-hint='why']").count() == 0
        seq = shot["seq"]
        follow(page, hint["action"])
        table.wait_change(seq)
    raise AssertionError("no hint with its options in 60 turns")
