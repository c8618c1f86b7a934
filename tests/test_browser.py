"""The browser client (web/) in a real Chromium against a real server.

Every step of every game is checked against the state frame the page received: the
hand on screen is exactly the view's hand, the enabled cards are exactly the legal
plays (or the cards that may be discarded), and the enabled action buttons are exactly
the legal actions. Clicks then drive the game, as a person would.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from tests.support.browsers import PHONE, PageFactory, Table, screenshot, serve_on_port
from tests.support.play import (
    Shots,
    check_contract,
    check_fits,
    create_room,
    drive,
    fill_and_start,
    move_on,
    sit,
)
from tests.support.servers import FAST, ServerFactory

pytestmark = [pytest.mark.browser, pytest.mark.long]

XSS = "<img src=x onerror=alert(1)>"
# Names are 1-24 characters (docs/protocol.md), too short for the line above.
XSS_NAME = "<svg onload=alert(1)>"


# ------------------------------------------------------------------ tests


@pytest.mark.parametrize("variant", ["schmier6", "schmier5", "wisconsin4"])
def test_one_person_and_bots_play_a_whole_game(
    variant: str, pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory(hand_pause=0.2)
    page = pages()
    table = Table(page)
    create_room(page, server, variant, target=5)
    sit(page, "Ann", 0)
    if variant == "schmier6":
        screenshot(page, "desktop-lobby")
    fill_and_start(page)
    shots = Shots("desktop") if variant == "schmier6" else None
    # Wisconsin Smear is played with the keyboard alone: focus a button, press Enter.
    keyboard = variant == "wisconsin4"
    if keyboard:
        page.keyboard.press("Tab")
        ring = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert ring == "solid"
    end = drive(table, lambda v: v["phase"] == "game_over", hook=shots, keyboard=keyboard)
    # The end: the winners, a rematch button, and a score sheet row per hand played.
    assert end["winners"]
    page.wait_for_selector('button[data-action="rematch"]')
    assert "game-over" in (page.get_attribute("#actions h2", "class") or "")
    rows = page.locator("#sheet tbody tr").count()
    assert rows >= 1
    assert page.locator("#hand-summary[open]").count() == 1
    if variant == "schmier6":
        screenshot(page, "desktop-game-over", at="#actions")
    # A rematch starts a new game in the same room with the same seats.
    page.click('button[data-action="rematch"]')
    page.wait_for_selector("body[data-phase]:not([data-phase='game_over'])")
    assert page.locator('.seat.me[data-seat="0"]').count() == 1


def test_two_people_see_each_others_moves_and_never_each_others_cards(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory(hand_pause=0.2)
    ann = Table(pages())
    code = create_room(ann.page, server, "schmier6")
    sit(ann.page, "Ann", 0)
    bea = Table(pages())
    bea.page.goto(f"{server.base_url}/r/{code}")
    sit(bea.page, "Bea", 1)
    ann.page.wait_for_selector('.seat[data-seat="1"] .seat-name:text-is("Bea")')
    # A spectator sees the table and nobody's hand.
    watcher = Table(pages())
    watcher.page.goto(f"{server.base_url}/r/{code}")
    watcher.page.wait_for_selector('.seat[data-seat="1"] .seat-name:text-is("Bea")')
    fill_and_start(ann.page)

    seen_bid = False
    seen_plays: list[str] = []
    deadline = time.monotonic() + 90
    while len(seen_plays) < 2 or not seen_bid:
        assert time.monotonic() < deadline, "the two players never both moved"
        moved = False
        for me, other, seat in ((ann, bea, 0), (bea, ann, 1)):
            shot, view = me.synced()
            check_contract(shot, view)
            check_secrecy(me, other)
            if not view["legal"]:
                continue
            play = next((a["card"] for a in view["legal"] if a["type"] == "play"), None)
            bidding = view["phase"] == "bidding"
            # Waits for the state that takes the move: one made before it came (the
            # other's discard) still offers it, and acting on it again found no button.
            move_on(me, shot, view, mine=True)
            moved = True
            if bidding and seat == 1:
                # Unless Bea's pass was the last of an all-pass (a redeal clears the
                # bids), Ann's bid list shows it until the play starts.
                _, seen = ann.synced()
                if seen["phase"] != "play" and any(b["seat"] == 1 for b in seen["bids"]):
                    ann.page.wait_for_selector('#actions .bid-entry:has-text("Bea:")')
                    seen_bid = True
            if play:
                other.page.wait_for_selector(f'[data-played="{play}"][data-seat="{seat}"]')
                seen_plays.append(play)
        if not moved:
            ann.page.wait_for_timeout(50)
    shot, view = watcher.synced()
    assert view["you"] is None and shot["hand"] == []
    assert watcher.page.locator("#chat-form").is_hidden()


def check_secrecy(me: Table, other: Table) -> None:
    """No card of the other player's hand is drawn anywhere on my page, except played."""
    if other.latest is None:
        return
    theirs = set(other.latest["hand"])
    shown: list[str] = me.page.evaluate(
        """() => [...document.querySelectorAll('[data-card]:not([data-action="call"])')]
              .map((e) => e.dataset.card)"""
    )
    assert not theirs & set(shown), theirs & set(shown)


def test_reload_mid_hand_restores_the_seat_the_hand_and_the_score_sheet(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory(hand_pause=0.2)
    # On a phone, so that Wisconsin Smear's panels (the secret trump) are checked to fit.
    page = pages(viewport=PHONE, is_mobile=True, has_touch=True)
    table = Table(page)
    create_room(page, server, "wisconsin4", target=30)
    sit(page, "Ann", 2)
    fill_and_start(page)
    # Into the second hand, so that the score sheet has a row to keep.
    view = drive(
        table,
        lambda v: v["last_hand"] is not None and v["phase"] == "play",
        hook=lambda table, shot, view: check_fits(table.page),
    )
    rows = page.locator("#sheet tbody tr").count()
    assert rows == 1
    hand = sorted(view["hand"])
    page.reload()
    page.wait_for_selector('.seat.me[data-seat="2"]')
    shot, view = table.synced()
    assert view["you"] == 2
    assert sorted(b["card"] for b in shot["hand"]) == sorted(view["hand"])
    # The hand is the one from before, less any card played meanwhile (none: the
    # bots wait for this seat or are past it only if it is not this seat's turn).
    assert set(view["hand"]) <= set(hand)
    assert page.locator("#sheet tbody tr").count() == rows
    drive(table, lambda v: v["phase"] in ("hand_over", "game_over") or len(v["tricks"]) >= 2)


def test_phone_has_no_sideways_scroll_and_every_control_is_reachable(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    # The hand's end stays on the page while it is looked at: with a pause of 1.5 s a
    # busy machine once dealt the next hand (which folds the summary) before the look.
    server = server_factory(hand_pause=30)
    page = pages(viewport=PHONE, is_mobile=True, has_touch=True)
    table = Table(page)
    create_room(page, server, "schmier6", target=21)
    sit(page, "Ann", 0)
    screenshot(page, "phone-lobby")
    check_fits(page)
    page.click('button[data-action="fill_bots"]')
    page.wait_for_selector('button[data-action="start"]')
    check_fits(page)
    page.click('button[data-action="start"]')
    shots = Shots("phone")

    def hook(table: Table, shot: dict[str, Any], view: dict[str, Any]) -> None:
        check_fits(table.page)
        shots(table, shot, view)

    drive(table, lambda v: v["phase"] in ("hand_over", "game_over"), hook=hook)
    check_fits(page)
    assert page.locator("#hand-summary[open]").count() == 1


def test_a_name_made_of_markup_shows_as_text_and_runs_nothing(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory()
    page = pages()
    code = create_room(page, server, "schmier5")
    sit(page, XSS_NAME, 0)
    assert page.locator(".seat.me .seat-name").text_content() == XSS_NAME
    page.fill("#chat-input", XSS)
    page.click('button[data-action="chat"]')
    page.wait_for_selector(f"#chat-log li:has-text({XSS!r})")
    other = pages()
    other.goto(f"{server.base_url}/r/{code}")
    other.wait_for_selector(f'.seat[data-seat="0"] .seat-name:text-is({XSS_NAME!r})')
    other.wait_for_selector(f'button[data-action="join"]:has-text({XSS_NAME!r})')
    for p in (page, other):
        assert p.locator("img").count() == 0
        p.wait_for_timeout(200)  # room for a dialog to open, if the markup ever ran


def test_leaving_frees_the_seat_and_forgets_the_token(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory()
    page = pages()
    code = create_room(page, server, "wisconsin4")
    sit(page, "Ann", 1)
    assert code.lower() in page.evaluate("localStorage.getItem('schmier.tokens')")
    page.click('button[data-action="leave"]')
    page.click('button[data-action="leave-confirm"]')  # it asks first
    page.wait_for_selector('.seat.empty[data-seat="1"]')
    page.wait_for_selector("#join:not([hidden])")
    assert code.lower() not in page.evaluate("localStorage.getItem('schmier.tokens')")
    sit(page, "Ann again", 3)


def test_unknown_room_and_a_stale_token(pages: PageFactory, server_factory: ServerFactory) -> None:
    server = server_factory()
    page = pages()
    page.goto(f"{server.base_url}/r/nosuchroom0")
    page.wait_for_selector('h1:text-is("There is no room with this code.")')
    code = create_room(page, server, "schmier6")
    page.evaluate(
        "(code) => localStorage.setItem('schmier.tokens', JSON.stringify({[code]: 'stale'}))",
        code.lower(),
    )
    page.reload()
    page.wait_for_selector("#join:not([hidden])")
    page.wait_for_selector('#join-error:has-text("no longer yours")')
    sit(page, "Ann", 0)


def test_language_follows_the_browser_and_the_picker_is_remembered(
    browser: Any, pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory()
    page = pages(locale="bg-BG")
    page.goto(server.base_url + "/")
    page.wait_for_selector('button[data-action="create"]')
    assert page.get_attribute("html", "lang") == "bg"
    assert page.text_content('button[data-action="create"]') == "Създай стая"
    page.select_option("#lang", "ja")
    page.wait_for_selector('button[data-action="create"]:text-is("部屋を作る")')
    page.reload()
    page.wait_for_selector('button[data-action="create"]:text-is("部屋を作る")')
    assert page.get_attribute("html", "lang") == "ja"
    create_room(page, server, "schmier5")
    page.fill("#name", "Aiko")
    page.click('button[data-action="join"][data-seat="0"]')
    page.wait_for_selector('button[data-action="fill_bots"]:text-is("残りをボットで埋める")')
    page.click('button[data-action="fill_bots"]')
    page.click('button[data-action="start"]')
    page.wait_for_selector("#hand button[data-card]")
    labels = page.eval_on_selector_all(
        "#hand button[data-card]", "(bs) => bs.map((b) => b.querySelector('.sr-only').textContent)"
    )
    assert all(re.search("ジョーカー|(スペード|ハート|ダイヤ|クラブ)の", label) for label in labels)


def test_a_restarted_server_brings_the_player_back_after_a_reconnecting_banner(
    pages: PageFactory, server_factory: ServerFactory, redis_url: str, redis_prefix: str
) -> None:
    from schmier.config import Settings

    first = server_factory(redis_url=redis_url, redis_prefix=redis_prefix)
    # While the server is down the browser itself logs each refused connection.
    pages.allow_console(r"WebSocket connection to .* failed")
    page = pages()
    table = Table(page)
    create_room(page, first, "schmier5")
    sit(page, "Ann", 4)
    fill_and_start(page)
    shot, before = table.synced()
    while not before["hand"]:  # the deal waits for the players' reveal: wait for it too
        table.wait_change(shot["seq"])
        shot, before = table.synced()
    first.stop()
    page.wait_for_selector("body[data-connection='reconnecting']")
    assert page.locator("#banner").is_visible()
    settings = Settings(**{**FAST, "redis_url": redis_url, "redis_prefix": redis_prefix})
    second = serve_on_port(settings, first.port)
    try:
        page.wait_for_selector("body[data-connection='open']", timeout=30_000)
        assert page.locator("#banner").is_hidden()
        page.wait_for_selector('.seat.me[data-seat="4"]')
        shot, view = table.synced()
        check_contract(shot, view)
        # Only this seat changes its own hand, and it did nothing meanwhile.
        assert view["you"] == before["you"] == 4
        assert sorted(view["hand"]) == sorted(before["hand"])
        assert view["seats"][4]["name"] == "Ann"
        drive(table, lambda v: v["phase"] == "play" or v["last_hand"] is not None)
    finally:
        second.stop()
