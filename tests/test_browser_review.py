"""Every hand on the record, in a real Chromium against a real server: the last trick at
hand during play (mouse, keyboard, touch) with every won trick held on the table in turn,
the review of a finished hand (buttons, arrow keys, a swipe) and its exports, the
read-only replay page in a fresh browser, the room's history, the check of every deal
(passing on real games, failing loudly on a tampered record), and chat that survives a
reload.

Screenshots (`desktop-review`, `phone-review`) go where `tests/support/browsers.py`
says: `test-results/screenshots/`, or `docs/screenshots/` with
`SCHMIER_SCREENSHOTS=docs/screenshots`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import threading
from pathlib import Path
from typing import Any

import pytest

from schmier import engine
from tests.support import loopback
from tests.support.browsers import PHONE, PageFactory, Table, screenshot
from tests.support.play import check_fits, create_room, drive, fill_and_start, sit
from tests.support.servers import Client, Player, RunningServer, ServerFactory

pytestmark = pytest.mark.browser

HELD = """
window.__held = [];
new MutationObserver(() => {
  const table = document.getElementById('table');
  if (!table || !document.querySelector('.trick-note')) return;
  const cards = [...table.querySelectorAll('[data-played]')]
    .map((e) => `${e.dataset.played}@${e.dataset.seat}`).sort().join(' ');
  const won = table.querySelector('[data-played].won');
  const key = `${cards}|${won ? won.dataset.seat : ''}`;
  if (!window.__held.includes(key)) window.__held.push(key);
}).observe(document, { childList: true, subtree: true });
"""
"""Notes every finished trick the table holds (with its winner's note), as it is drawn."""


def held_key(trick: dict[str, Any]) -> str:
    cards = " ".join(sorted(f"{p['card']}@{p['seat']}" for p in trick["cards"]))
    return f"{cards}|{trick['winner']}"


def my_turn_to_play(v: dict[str, Any]) -> bool:
    return any(a["type"] == "play" for a in v["legal"])


def get_json(server: RunningServer, path: str) -> Any:
    answer = loopback.get(server.base_url + path, timeout=10)
    assert answer.status_code == 200, (path, answer.status_code)
    return answer.json()


def play_over_the_wire(server: RunningServer, variant: str, games: int = 1) -> str:
    """Ann and bots play `games` whole games (a rematch between) over the protocol, in a
    thread of its own (Playwright's sync API holds this thread's event loop); the code."""

    async def main() -> str:
        code = await server.create_room(variant, {"target": 5})
        _, token = await server.join(code, "Ann", 0)
        client = await Client.seated(server, code, token)
        for seat in range(1, engine.seat_count(variant)):
            await client.send({"type": "add_bot", "seat": seat})
        await client.wait_state(lambda v: {"type": "start"} in v["legal"])
        await client.send({"type": "start"})
        player = Player(client, random.Random(variant))
        for game in range(games):
            await player.play_until(lambda v: v["phase"] == "game_over", timeout=120)
            if game + 1 < games:
                await client.send({"type": "rematch"})
                await client.wait_state(lambda v: v["phase"] != "game_over")
        await client.close()
        return code

    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["code"] = asyncio.run(main())
        except BaseException as exc:  # handed to the test's thread below
            outcome["error"] = exc

    thread = threading.Thread(target=run, name=f"wire-{variant}")
    thread.start()
    thread.join(240)
    if "error" in outcome:
        raise outcome["error"]
    assert "code" in outcome, "the game over the wire did not end"
    return str(outcome["code"])


def cards_in(page: Any, selector: str) -> list[str]:
    result: list[str] = page.eval_on_selector_all(
        selector, "(es) => es.map((e) => e.dataset.rcard)"
    )
    return result


# ------------------------------------------------------------------ the last trick


def test_the_last_trick_by_mouse_and_keyboard_and_every_won_trick_is_held(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory(hand_pause=30)
    page = pages()
    page.add_init_script("localStorage.setItem('schmier.trick_hold', '1200')")
    page.add_init_script(HELD)
    table = Table(page)
    create_room(page, server, "schmier6")
    sit(page, "Ann", 0)
    assert page.locator("#tricks-bar").is_hidden()  # no trick yet, nothing to show
    fill_and_start(page)
    view = drive(
        table, lambda v: v["phase"] == "play" and len(v["tricks"]) >= 2 and my_turn_to_play(v)
    )
    tricks = view["tricks"]
    names = {s["seat"]: s["name"] for s in view["seats"]}

    def shows(k: int) -> None:
        page.wait_for_selector(f'#tricks-panel[data-trick="{k}"]')
        assert cards_in(page, "#tricks-panel [data-rcard]") == [
            p["card"] for p in tricks[k]["cards"]
        ]
        winner = tricks[k]["winner"]
        assert page.get_attribute("#tricks-panel li.won", "data-seat") == str(winner)
        assert names[winner] in page.text_content("#tricks-panel .trick-taker")
        assert page.text_content("#tricks-panel h2") == f"Trick {k + 1} of {len(tricks)}"

    # The mouse: open, the newest trick first, then back one.
    page.click('button[data-action="tricks"]')
    assert page.get_attribute('button[data-action="tricks"]', "aria-expanded") == "true"
    shows(len(tricks) - 1)
    page.click('button[data-action="trick_older"]')
    shows(len(tricks) - 2)
    # The keyboard: Escape closes, L opens again on the newest, ← steps back, L closes.
    page.keyboard.press("Escape")
    page.wait_for_selector("#tricks-panel", state="detached")
    page.keyboard.press("l")
    shows(len(tricks) - 1)
    # The last trick leaves the table (Ann's turn starts anew): the keyboard stays in
    # the panel she is looking through.
    page.wait_for_selector(".trick-note", state="detached")
    page.keyboard.press("ArrowLeft")
    shows(len(tricks) - 2)
    page.keyboard.press("L")
    page.wait_for_selector("#tricks-panel", state="detached")
    # The rest of the hand; every trick of it was held on the table with its winner's
    # note, the last one too, though the hand ended with it.
    end = drive(table, lambda v: v["phase"] in ("hand_over", "game_over"))
    wanted = [held_key(trick) for trick in end["tricks"]]
    page.wait_for_function(
        "(keys) => keys.every((k) => window.__held.includes(k))", arg=wanted, timeout=60_000
    )


def test_the_last_trick_and_the_review_by_touch_on_a_phone(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory(hand_pause=30)
    page = pages(viewport=PHONE, is_mobile=True, has_touch=True)
    table = Table(page)
    create_room(page, server, "wisconsin4")
    sit(page, "Ann", 0)
    fill_and_start(page)
    view = drive(
        table, lambda v: v["phase"] == "play" and len(v["tricks"]) >= 1 and my_turn_to_play(v)
    )
    page.tap('button[data-action="tricks"]')
    page.wait_for_selector(f'#tricks-panel[data-trick="{len(view["tricks"]) - 1}"]')
    assert cards_in(page, "#tricks-panel [data-rcard]") == [
        p["card"] for p in view["tricks"][-1]["cards"]
    ]
    check_fits(page)
    page.tap('button[data-action="tricks"]')
    page.wait_for_selector("#tricks-panel", state="detached")
    drive(table, lambda v: v["phase"] in ("hand_over", "game_over"))
    review = page.locator('button[data-action="review"]:not([disabled])')
    review.scroll_into_view_if_needed()
    review.tap()
    page.wait_for_selector("dialog[open] .review-stage[data-step='0']")
    check_fits(page)
    swipe(page, "dialog[open] .review-stage", -1)
    page.wait_for_selector("dialog[open] .review-stage[data-step='1']")
    page.tap('dialog[open] button[data-review="next"]')
    page.wait_for_selector("dialog[open] .review-stage[data-step='2']")
    swipe(page, "dialog[open] .review-stage", 1)
    page.wait_for_selector("dialog[open] .review-stage[data-step='1']")
    page.tap('dialog[open] button[data-review="close"]')
    page.wait_for_selector("dialog", state="detached")


def swipe(page: Any, selector: str, direction: int) -> None:
    """A finger drawn across `selector`: `direction` -1 to the left, 1 to the right."""
    box = page.locator(selector).bounding_box()
    assert box is not None
    y = box["y"] + min(box["height"] / 2, 200)
    start = box["x"] + box["width"] * (0.8 if direction < 0 else 0.2)
    end = box["x"] + box["width"] * (0.2 if direction < 0 else 0.8)
    cdp = page.context.new_cdp_session(page)
    cdp.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": start, "y": y}]}
    )
    for k in range(1, 9):
        x = start + (end - start) * k / 8
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}
        )
    # The finger rests a moment before it lifts: a finger lifted while moving flings,
    # and the next tap would only stop the fling (no click), as on a real phone.
    page.wait_for_timeout(200)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": end, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


# ------------------------------------------------------------------ the review


def test_the_review_by_keyboard_and_mouse_and_its_exports(
    pages: PageFactory, server_factory: ServerFactory, tmp_path: Path
) -> None:
    server = server_factory(hand_pause=60)
    page = pages(accept_downloads=True)
    table = Table(page)
    code = create_room(page, server, "schmier5")
    sit(page, "Ann", 0)
    fill_and_start(page)
    drive(table, lambda v: v["phase"] in ("hand_over", "game_over"))
    record = get_json(server, f"/api/rooms/{code}/hands/1")
    seats = len(record["hands"])
    # The browser committed to its own randomness for this deck before anyone revealed,
    # revealed it when asked, and its check passed and says so.
    deal = record["deal"]
    assert deal["entropy"][0] is not None and deal["withheld"] == []
    assert deal["commits"][0] == hashlib.sha256(deal["entropy"][0].encode()).hexdigest()
    assert all(e is None for e in deal["entropy"][1:])  # bots send none
    assert all(c is None for c in deal["commits"][1:])
    page.wait_for_selector('.hand-tools [data-fair="verified"] .fair-revealed')
    # The keyboard: to the button, Enter.
    page.focus('button[data-action="review"]')
    page.keyboard.press("Enter")
    stage = "dialog[open] .review-stage"
    page.wait_for_selector(f"{stage}[data-kind='deal']")
    for seat in range(seats):
        shown = cards_in(page, f"{stage} .review-seat[data-seat='{seat}'] [data-rcard]")
        assert sorted(shown) == sorted(record["hands"][seat]), seat
    assert cards_in(page, f"{stage} .review-middle [data-rcard]") == record["stock"]
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f"{stage}[data-kind='bidding']")
    bids = [a for a in record["actions"] if a["action"]["type"] in ("bid", "pass")]
    assert page.locator(f"{stage} .review-bids li").count() == len(bids)
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f"{stage}[data-kind='exchange']")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f"{stage}[data-kind='trick']")
    first = record["tricks"][0]
    assert cards_in(page, f"{stage} .review-trick [data-rcard]") == [
        p["card"] for p in first["cards"]
    ]
    assert page.get_attribute(f"{stage} .review-trick li.won", "data-seat") == str(first["winner"])
    assert "Trick 1 of 6" in page.text_content("dialog[open] .review-step")
    page.keyboard.press("End")
    page.wait_for_selector(f"{stage}[data-kind='result']")
    for seat in range(seats):
        assert cards_in(page, f"{stage} .review-seat[data-seat='{seat}'] [data-rcard]") == []
    page.keyboard.press("Home")
    page.wait_for_selector(f"{stage}[data-kind='deal']")
    # The mouse: forward to the third trick, back one.
    for _ in range(5):
        page.click('dialog[open] button[data-review="next"]')
    page.click('dialog[open] button[data-review="prev"]')
    page.wait_for_selector(f"{stage}[data-kind='trick']")
    assert "Trick 2 of 6" in page.text_content("dialog[open] .review-step")
    page.click('dialog[open] button[data-review="next"]')
    screenshot(page, "desktop-review")
    # The check of the deal, and this browser's value in it.
    deal = page.text_content("dialog[open] .review-deal")
    assert "Deal verified" in deal and record["deal"]["server_seed"] in deal
    assert "Your browser's random value went into this deck." in deal
    # The exports: the record itself, and a transcript.
    with page.expect_download() as got:
        page.click('dialog[open] button[data-review="json"]')
    saved = tmp_path / "record.json"
    got.value.save_as(saved)
    assert json.loads(saved.read_text("utf-8")) == record
    with page.expect_download() as got:
        page.click('dialog[open] button[data-review="text"]')
    assert got.value.suggested_filename == f"schmier-{code.lower()}-hand-1.txt"
    text_file = tmp_path / "hand.txt"
    got.value.save_as(text_file)
    text = text_file.read_text("utf-8")
    assert text.startswith("Hand 1 · game 1 · Five-handed Schmier")
    assert f"/r/{code}/h/1" in text and "✓ Deal verified" in text
    for seat in record["seats"]:
        assert str(seat["name"]) in text
    assert sum(line.startswith("Trick ") for line in text.splitlines()) == len(record["tricks"])
    assert record["deal"]["server_seed"] in text
    # Escape closes it; the room is still there.
    page.keyboard.press("Escape")
    page.wait_for_selector("dialog", state="detached")
    assert page.locator('.seat.me[data-seat="0"]').count() == 1


def test_the_replay_link_opens_in_a_fresh_browser_without_a_seat(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory()
    code = play_over_the_wire(server, "schmier6")
    hands = get_json(server, f"/api/rooms/{code}/hands")
    record = get_json(server, f"/api/rooms/{code}/hands/1")
    page = pages(viewport=PHONE, is_mobile=True, has_touch=True)
    sockets: list[Any] = []
    page.on("websocket", lambda ws: sockets.append(ws))
    page.goto(f"{server.base_url}/r/{code}/h/1")
    stage = ".review-stage"
    page.wait_for_selector(f"{stage}[data-kind='deal']")
    for seat in range(len(record["hands"])):
        shown = cards_in(page, f"{stage} .review-seat[data-seat='{seat}'] [data-rcard]")
        assert sorted(shown) == sorted(record["hands"][seat])
    page.wait_for_selector('.review-deal [data-fair="verified"]')
    check_fits(page)
    swipe(page, stage, -1)
    page.wait_for_selector(f"{stage}[data-step='1']")
    page.tap('button[data-review="next"]')
    page.tap('button[data-review="next"]')
    page.wait_for_selector(f"{stage}[data-kind='trick']")
    check_fits(page)
    screenshot(page, "phone-review")
    swipe(page, stage, 1)
    page.wait_for_selector(f"{stage}[data-step='2']")
    # Read-only: no socket, no seat, no token.
    assert sockets == []
    assert page.evaluate("localStorage.getItem('schmier.tokens')") is None
    # The way on: the next hand, and the room.
    if len(hands) > 1:
        page.tap('a[data-review="after"]')
        page.wait_for_selector(".review[data-hand='2']")
    # A hand that has no record: the browser logs the 404 of its fetch, the page says so.
    pages.allow_console(r"status of 404 \(Not Found\)")
    page.goto(f"{server.base_url}/r/{code}/h/999")
    page.wait_for_selector(
        'h1:text-is("This hand has no record: there is no such hand, or it is still being played.")'
    )


# ------------------------------------------------------------------ history and fairness


def test_every_deal_of_real_games_checks_and_the_history_keeps_every_game(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory()
    codes = {
        v: play_over_the_wire(server, v, games=2 if v == "schmier6" else 1)
        for v in ("schmier6", "schmier5", "wisconsin4")
    }
    for variant, code in codes.items():
        hands = get_json(server, f"/api/rooms/{code}/hands")
        history = get_json(server, f"/api/rooms/{code}/history")
        page = pages()
        page.goto(f"{server.base_url}/r/{code}")
        page.wait_for_selector("body[data-seq]")
        page.click("#history summary")
        for hand in hands:
            page.wait_for_selector(f'#history tr[data-hand="{hand["n"]}"] [data-fair="verified"]')
        assert page.locator('#history [data-fair="failed"]').count() == 0
        assert page.locator("#fair-alert").is_hidden()
        games = [g for g in history["games"] if g["hands"] or not g["over"]]
        assert page.locator("#history .history-game").count() == len(games), variant
        assert page.locator("#history tr[data-hand]").count() == len(hands)
        players = [p["name"] for p in history["players"]]
        assert (
            page.eval_on_selector_all(
                "#history tr[data-player]", "(rs) => rs.map((r) => r.dataset.player)"
            )
            == players
        )
        # A hand of the history opens its review.
        page.click(f'#history button[data-review="open"][data-hand="{hands[-1]["n"]}"]')
        page.wait_for_selector(f'dialog[open] .review[data-hand="{hands[-1]["n"]}"]')
        page.keyboard.press("Escape")
        page.wait_for_selector("dialog", state="detached")
    # The rematch kept the first game's sheet: two games in the history of schmier6.
    assert len(get_json(server, f"/api/rooms/{codes['schmier6']}/history")["games"]) == 2


def test_a_tampered_record_fails_loudly(pages: PageFactory, server_factory: ServerFactory) -> None:
    server = server_factory()
    code = play_over_the_wire(server, "wisconsin4")

    def lie(route: Any) -> None:
        record = route.fetch().json()
        seat = (record["dealer"] + 1) % len(record["hands"])
        hand, stock = record["hands"][seat], record["stock"]
        hand[0], stock[0] = stock[0], hand[0]  # one card of the stock slipped into a hand
        route.fulfill(json=record)

    page = pages()
    page.route(f"**/api/rooms/{code}/hands/1", lie)
    page.goto(f"{server.base_url}/r/{code}")
    alert = page.wait_for_selector("#fair-alert:not([hidden])")
    assert alert.get_attribute("role") == "alert"
    assert "A deal did not check out" in alert.text_content()
    assert page.locator('#fair-alert a[data-failed-hand="1"]').count() == 1
    assert "was not dealt its cards from this deck" in alert.text_content()
    # The other hands still check.
    page.click("#history summary")
    page.wait_for_selector('#history tr[data-hand="1"] [data-fair="failed"]')
    assert (
        page.locator('#history [data-fair="verified"]').count()
        == len(get_json(server, f"/api/rooms/{code}/hands")) - 1
    )
    # The replay page of that hand, in another browser that is lied to as well.
    other = pages()
    other.route(f"**/api/rooms/{code}/hands/1", lie)
    other.goto(f"{server.base_url}/r/{code}/h/1")
    other.wait_for_selector('.review-deal [data-fair="failed"]')
    other.wait_for_selector("#fair-alert:not([hidden])")


# ------------------------------------------------------------------ chat that stays


def test_chat_survives_a_reload_and_reaches_a_late_joiner(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory()
    page = pages()
    code = create_room(page, server, "schmier6")
    sit(page, "Ann", 0)
    for line in ("first <b>line</b>", "second line"):
        page.fill("#chat-input", line)
        page.click('button[data-action="chat"]')
        page.wait_for_selector(f"#chat-log li:has-text({line!r})")

    def lines(p: Any) -> list[str]:
        result: list[str] = p.eval_on_selector_all(
            "#chat-log li", "(ls) => ls.map((l) => l.textContent)"
        )
        return result

    wanted = ["Ann: first <b>line</b>", "Ann: second line"]
    page.reload()
    page.wait_for_selector('.seat.me[data-seat="0"]')
    page.wait_for_function("() => document.querySelectorAll('#chat-log li').length >= 2")
    assert lines(page) == wanted
    late = pages()
    late.goto(f"{server.base_url}/r/{code}")
    late.wait_for_function("() => document.querySelectorAll('#chat-log li').length >= 2")
    assert lines(late) == wanted
    assert late.locator("#chat-log b").count() == 0
    # A line said now follows the history, once, everywhere.
    page.fill("#chat-input", "third")
    page.click('button[data-action="chat"]')
    for p in (page, late):
        p.wait_for_selector('#chat-log li:has-text("third")')
        assert lines(p) == [*wanted, "Ann: third"]
