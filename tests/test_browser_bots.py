"""Bots by name and hints in the browser client, in a real Chromium against a real server:
the lobby's level picker beside "add bot" (every level of `GET /api/bots`, the default
first, translated), the level shown beside a bot's name, and the "Hint" button on the
player's turn, which marks what the default bot suggests and plays nothing."""

from __future__ import annotations

import json
import re
import time
from typing import TYPE_CHECKING, Any

import pytest

from schmier.engine.bots import levels
from tests.support import loopback
from tests.support.browsers import PageFactory, Table
from tests.support.play import check_contract, create_room, press_card, sit
from tests.support.servers import ServerFactory

if TYPE_CHECKING:
    from playwright.sync_api import Page, WebSocket

pytestmark = pytest.mark.browser

LABELS = {
    "en-GB": {"normal": "Normal", "random": "Random"},
    "bg-BG": {"normal": "Нормален", "random": "Случаен"},
}


def seats_of(base_url: str, code: str) -> list[dict[str, Any]]:
    seats: list[dict[str, Any]] = loopback.get(f"{base_url}/api/rooms/{code}").json()["seats"]
    return seats


@pytest.mark.parametrize("locale", ["en-GB", "bg-BG"])
def test_the_lobby_picks_each_bots_level(
    locale: str, pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory()
    page = pages(locale=locale)
    code = create_room(page, server, "wisconsin4")
    sit(page, "Ann", 0)
    picker = 'select.bot-level[data-seat="2"]'
    page.wait_for_selector(picker)
    # One picker per empty seat, every level in the server's order, the default picked.
    assert page.locator("select.bot-level").count() == 3
    options = page.eval_on_selector_all(
        f"{picker} option", "els => els.map(e => [e.value, e.textContent, e.selected])"
    )
    names = [lvl.name for lvl in levels.listed()]
    assert [value for value, _, _ in options] == names
    assert [selected for _, _, selected in options] == [n == levels.default() for n in names]
    for value, text, _ in options:
        if value in LABELS[locale]:
            assert text == LABELS[locale][value]

    weakest = levels.LEVELS[-1].name
    page.select_option(picker, weakest)
    page.click('button[data-action="add_bot"][data-seat="2"]')
    page.click('button[data-action="add_bot"][data-seat="1"]')
    page.wait_for_selector('.lobby-seat[data-seat="1"] .badge.bot')
    page.wait_for_selector('.lobby-seat[data-seat="2"] .badge.bot')
    bots = [s.get("bot") for s in seats_of(server.base_url, code)]
    assert bots == [None, levels.default(), weakest, None]
    # The bot's name keeps its chair and shows its level.
    shown = page.inner_text('.lobby-seat[data-seat="2"] .lobby-seat-name')
    label = LABELS[locale].get(weakest, levels.level(weakest).label)
    # (The server names its bots "Bot 3"; the page says it in its language.)
    name = {"bg-BG": "Бот 3"}.get(locale, "Bot 3")
    assert shown.startswith(f"{name} · {label}"), shown
    # "Fill the rest" uses the level picked for each seat (the default here).
    page.click('button[data-action="add_bot"][data-seat="3"]')
    page.wait_for_selector('button[data-action="start"]')
    assert seats_of(server.base_url, code)[3]["bot"] == levels.default()


def test_a_level_the_catalogue_lacks_shows_the_servers_words(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory()
    page = pages(locale="en-GB")
    create_room(page, server, "schmier5")
    sit(page, "Ann", 0)
    page.wait_for_selector("select.bot-level")
    words = page.evaluate(
        """async () => {
          const s = await import('/static/state.js');
          const b = await import('/static/bots.js');
          s.room.bots = [...s.room.bots, { name: 'grandmaster', label: 'Grandmaster',
                                           description: 'Never loses.' }];
          return [b.botLabel('grandmaster'), b.botDescription('grandmaster'),
                  b.botLabel('random')];
        }"""
    )
    assert words == ["Grandmaster", "Never loses.", "Random"]


class Hints:
    """The `hint` frames a page's socket received."""

    def __init__(self, page: Page) -> None:
        self.frames: list[dict[str, Any]] = []
        page.on("websocket", self._on_socket)

    def _on_socket(self, ws: WebSocket) -> None:
        def on_frame(payload: str | bytes) -> None:
            frame = json.loads(payload)
            if frame.get("type") == "hint":
                self.frames.append(frame)

        ws.on("framereceived", on_frame)


def hinted_selector(action: dict[str, Any]) -> list[str]:
    """What the page must mark for a hinted action."""
    kind = action["type"]
    if kind == "play":
        return [f'#hand button.hinted[data-card="{action["card"]}"]']
    if kind == "discard":
        return [f'#hand button.hinted[data-card="{c}"]' for c in action["cards"]]
    if kind == "bid":
        return [f'button.hinted[data-action="bid"][data-amount="{action["amount"]}"]']
    if kind == "trump":
        return [f'button.hinted[data-action="trump"][data-suit="{action["suit"]}"]']
    if kind == "call" and action["card"]:
        return [f'button.hinted[data-action="call"][data-card="{action["card"]}"]']
    return [f'button.hinted[data-action="{kind}"]']


def follow(page: Page, action: dict[str, Any]) -> None:
    """Do what the hint said, by clicking as a person would."""
    if action["type"] == "play":
        press_card(page, f'#hand button[data-card="{action["card"]}"]')
    elif action["type"] == "discard":
        for card in action["cards"]:
            press_card(page, f'#hand button[data-card="{card}"]')
        page.click('button[data-action="discard"]')
    else:
        page.click(hinted_selector(action)[0])


def test_the_hint_button_marks_what_the_bot_suggests_and_plays_nothing(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory(bot_delay=0.05)
    page = pages(locale="en-GB")
    table = Table(page)
    hints = Hints(page)
    create_room(page, server, "wisconsin4")
    sit(page, "Ann", 0)
    page.click('button[data-action="fill_bots"]')
    page.click('button[data-action="start"]')
    kinds: set[str] = set()
    while "play" not in kinds:
        page.wait_for_selector('button[data-action="hint"]', timeout=30_000)
        shot, view = table.synced()
        check_contract(shot, view)
        if not view["legal"]:
            page.wait_for_timeout(30)
            continue
        asked = len(hints.frames)
        page.click('button[data-action="hint"]')
        page.wait_for_selector(".hint-text")
        assert len(hints.frames) == asked + 1
        hint = hints.frames[-1]
        action = hint["action"]
        for selector in hinted_selector(action):
            page.wait_for_selector(selector)
        # Only what was suggested is marked, and nothing was played for the player.
        marked = page.locator(".hinted").count()
        assert marked == len(hinted_selector(action)), (marked, action)
        again, now = table.synced()
        assert now["legal"] == view["legal"] and hint["seq"] == int(again["seq"])
        assert page.locator('button[data-action="hint"]').count() == 1
        kinds.add(action["type"])
        seq = again["seq"]
        follow(page, action)
        table.wait_change(seq)
        # The advice is gone with the turn it was for.
        page.wait_for_selector(".hint-text", state="detached")
    assert "bid" in kinds or "pass" in kinds


def test_no_hint_button_when_the_room_turns_hints_off(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory()
    page = pages(locale="en-GB")
    table = Table(page)
    page.goto(server.base_url + "/")
    page.check('input[name="variant"][value="wisconsin4"]')
    assert page.is_checked("#hints")
    page.uncheck("#hints")
    page.click('button[data-action="create"]')
    page.wait_for_url(re.compile(r"/r/[^/]+$"))
    page.wait_for_selector("body[data-seq]")
    code = page.url.rsplit("/r/", 1)[1]
    assert loopback.get(f"{server.base_url}/api/rooms/{code}").json()["rules"]["hints"] is False
    sit(page, "Ann", 0)
    page.click('button[data-action="fill_bots"]')
    page.click('button[data-action="start"]')
    # Ann's first turn, whatever it is: a bot's bid of six before hers ends the auction.
    deadline = time.monotonic() + 30
    while not (view := table.synced()[1])["legal"] or view["phase"] == "lobby":
        assert time.monotonic() < deadline, "no turn for Ann within 30 s"
        page.wait_for_timeout(30)
    assert page.locator('button[data-action="hint"]').count() == 0
