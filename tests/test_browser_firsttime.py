"""What a first-time player tripped over (issue 34), replayed in real Chromium.

- Every screen of every game, on a desktop (1280 px) and a phone (375 px): no serious or
  critical axe-core violation (home, lobby, each phase, the hand summary, game over, the
  review, the history, the rules), and no overflow in any of the five languages (text out
  of its button, a name cut short, a word broken over two lines, a page wider than the
  screen), with names of 24 letters; the six-seat table's trick cards never overlap; the
  hand summary's game totals in side order; the score sheet numbers hands as the history
  and the replay links do.
- Help at hand: the rules of each game from the home page (a page) and from the table (a
  dialog), in every language; the point names explained; the running tally of the hand,
  held against what the view shows publicly.
- No blind play while the last trick is still shown; Pass first at a bid; the hand after
  L and Escape.
- Offline made visible: the banner, a tap refused with a message, the others told at once;
  a move the room does not answer shown pending, and given up.
- A first visit downloads the client once: the service worker keeps what the page loaded.

One server for the module; each test plays short games (`target` 5, bots at once).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schmier.config import Settings
from tests.support.browsers import DESKTOP, PHONE, PageFactory, Table
from tests.support.play import act, create_room, fill_and_start, sit
from tests.support.screens import axe_violations, overflows, until
from tests.support.servers import FAST, RunningServer, start_thread_server

pytestmark = pytest.mark.browser

WEB = Path(__file__).resolve().parents[1] / "web"
LANGUAGES = ["en", "bg", "ja", "ko", "ms"]
LONG = "Abcdefghijklmnopqrstuvwx"
"""The longest name there is (24 letters), with no space to break it at."""


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    running = start_thread_server(Settings(**FAST))
    yield running
    running.stop()


def hold(page: Any, ms: int) -> None:
    """How long this browser keeps a won trick on the table (hold.js)."""
    page.add_init_script(f"localStorage.setItem('schmier.trick_hold', '{ms}')")


def catalogue(lang: str) -> dict[str, str]:
    return dict(json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8")))


# ------------------------------------------------------------------ every screen


class Screens:
    """Checks each kind of screen once: axe at both sizes, overflows in every language."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.seen: set[str] = set()
        self.problems: list[str] = []

    def language(self, lang: str) -> None:
        self.page.select_option("#lang", lang)
        until(self.page, "(l) => document.documentElement.lang === l", lang)
        self.page.wait_for_timeout(60)

    def check(self, name: str, languages: bool = True) -> None:
        if name in self.seen:
            return
        self.seen.add(name)
        page = self.page
        for size in (DESKTOP, PHONE):
            page.set_viewport_size(size)
            page.wait_for_timeout(60)
            self.problems += axe_violations(page, f"{name} {size['width']}")
        if languages:
            for lang in LANGUAGES:
                self.language(lang)
                for size in (PHONE, DESKTOP):
                    page.set_viewport_size(size)
                    page.wait_for_timeout(60)
                    self.problems += overflows(page, f"{name} {lang} {size['width']}")
            self.language("en")
        else:
            for size in (PHONE, DESKTOP):
                page.set_viewport_size(size)
                self.problems += overflows(page, f"{name} en {size['width']}")
        page.set_viewport_size(DESKTOP)


PLAYED = """() => [...document.querySelectorAll('#table [data-played]')].map((e) => {
  const r = e.getBoundingClientRect();
  return [e.dataset.played, r.left, r.top, r.right, r.bottom];
})"""


def cards_apart(page: Any) -> list[str]:
    """Trick cards on the table that overlap one another."""
    boxes = page.evaluate(PLAYED)
    bad = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5 and a[2] < b[4] - 0.5 and b[2] < a[4] - 0.5:
                bad.append(f"{a[0]} over {b[0]}")
    return bad


SAME_COLOUR = {"S": "C", "C": "S", "H": "D", "D": "H"}
VALUES = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 10, "X": 1}


def expected_tally(view: dict[str, Any], book: dict[str, Any]) -> dict[str, Any]:
    """What the tally must say, worked out here from the view's public part alone."""
    trump = view["trump"]
    fixed = book["fixed_teams"]
    sides = view["teams"] if fixed else [[s["seat"]] for s in view["seats"]]
    side_of = {seat: k for k, side in enumerate(sides) for seat in side}
    order = book["trump_order"][trump]
    held: list[dict[str, Any]] = [{"points": [], "game": 0} for _ in sides]
    played = [(c["seat"], c["card"], t["winner"]) for t in view["tricks"] for c in t["cards"]]
    for _, card, winner in played:
        held[side_of[winner]]["game"] += VALUES.get(card[0], 0)
    trumps = [(order.index(card), seat) for seat, card, _ in played if card in order]
    naturals = [(i, seat) for i, seat in trumps if not order[i].startswith("X")]
    cards = {
        "right": f"J{trump}",
        "jack": f"J{trump}",
        "left": f"J{SAME_COLOUR[trump]}",
        "joker": "X1",
        "joker1": "X1",
        "joker2": "X2",
    }
    for point in book["points"]:
        seat = None
        if point == "high" and trumps:
            seat = min(trumps)[1]
        elif point == "low" and naturals:
            seat = max(naturals)[1]
        elif point in cards:
            seat = next((w for _, c, w in played if c == cards[point]), None)
        if seat is not None:
            held[side_of[seat]]["points"].append(point)
    return {"sides": sides, "held": held}


def check_tally(page: Any, seq: str, view: dict[str, Any], book: dict[str, Any]) -> None:
    """The tally in the side column says what the public view of `seq` holds, no more."""
    if view["phase"] != "play" or not view["trump"] or not view["tricks"]:
        return
    # The rows and the state they were drawn from, read at one instant: a card played
    # since `seq` would otherwise be in the tally and not in `view`.
    now = page.evaluate(
        """() => ({ seq: document.body.dataset.seq ?? null,
          rows: [...document.querySelectorAll('#tally tr[data-side]')].map((r) => ({
          points: [...r.querySelectorAll('[data-term]')].map((e) => e.dataset.term),
          game: r.querySelector('td.num').textContent })) })"""
    )
    if now["seq"] != seq:
        return
    shown = now["rows"]
    want = expected_tally(view, book)
    assert len(shown) == len(want["sides"]), shown
    for got, held in zip(shown, want["held"], strict=True):
        assert got["points"] == held["points"], (got, held, view["tricks"])
        assert got["game"] == f"game {held['game']}", (got, held)


def books(server: RunningServer) -> dict[str, dict[str, Any]]:
    from tests.support import loopback

    data = loopback.get(server.base_url + "/api/variants", timeout=10).json()
    return {b["name"]: b for b in data}


@pytest.mark.parametrize("variant", ["schmier6", "schmier5", "wisconsin4"])
def test_every_screen_of_every_game(
    server: RunningServer, pages: PageFactory, variant: str
) -> None:
    book = books(server)[variant]
    page = pages()
    hold(page, 1200)
    screens = Screens(page)
    page.goto(server.base_url + "/")
    page.wait_for_selector('input[name="variant"]')
    screens.check("home")
    table = Table(page)
    create_room(page, server, variant, target=5)
    screens.check("lobby, watching", languages=False)
    sit(page, LONG, 0)
    screens.check("lobby")
    fill_and_start(page)
    overlaps: list[str] = []
    # A whole game and a hand of the next, at the shortest trick hold: about a minute
    # on a quiet machine, several on a busy one (the suite runs in parallel).
    deadline = time.monotonic() + 780
    while True:
        shot, view = table.synced()
        assert time.monotonic() < deadline, view["phase"]
        kinds = {a["type"] for a in view["legal"]}
        mine = view["you"] in (view["turn"] or []) and kinds
        if view["seats"][0]["kind"] and len(view["seats"]) == 6:
            overlaps += cards_apart(page)
        check_tally(page, shot["seq"], view, book)
        if view["phase"] == "game_over":
            break
        if shot["held"] and "play" in kinds:
            page.wait_for_selector("#table .trick-note", state="detached")
            continue
        if mine:
            screens.check(view["phase"])
            if view["phase"] == "play" and view["tricks"] and "tally" not in screens.seen:
                screens.check("tally", languages=False)
        acted = act(table, view) if mine else False
        table.wait_change(shot["seq"])
        if not acted:
            page.wait_for_timeout(20)
    assert not overlaps, overlaps
    # The end: the hand summary open, the game over; then the panels and dialogs.
    assert page.locator("#hand-summary[open]").count() == 1
    totals_in_side_order(page, view)
    screens.check("game over")
    terms_explained(page)
    page.click("#history summary")
    page.wait_for_selector("#history .history-stats")
    screens.check("history", languages=False)
    stats_scroll_by_keys(page)
    page.click('#history button[data-review="open"]')
    page.wait_for_selector("#review-dialog[open] .review")
    screens.check("review", languages=False)
    page.keyboard.press("Escape")
    page.wait_for_selector("#review-dialog", state="detached")
    rules_from_the_table(page, screens, book)
    assert not screens.problems, "\n".join(screens.problems)


def totals_in_side_order(page: Any, view: dict[str, Any]) -> None:
    """The summary's game totals follow the sides' order (A, B, C), whoever bid."""
    text = page.locator("#hand-summary p.muted").first.text_content() or ""
    names = [n for n, _ in re.findall(r"([^:·]+): (\d+)", text.split(":", 1)[1])]
    last = view["last_hand"]
    teams = view["teams"]
    team_of = {seat: i for i, team in enumerate(teams) for seat in team}
    at = [min(team_of[s] for s in side) for side in last["sides"]]
    assert len(names) == len(last["sides"])
    # The first name listed belongs to the side with the lowest team index.
    first = sorted(range(len(at)), key=lambda k: at[k])[0]
    seat = last["sides"][first][0]
    who = page.evaluate(
        "(s) => document.querySelector(`#table .seat[data-seat='${s}'] .seat-name`).textContent",
        seat,
    )
    assert who.split(" · ")[0] in names[0], (names, who)


def terms_explained(page: Any) -> None:
    """A point's name says what it is: its tooltip on keyboard focus, and as its
    accessible description."""
    term = page.locator("#hand-summary .term").first
    term.focus()
    tip = term.locator(".tip")
    assert tip.is_visible()
    described = page.evaluate(
        """() => { const e = document.activeElement;
          return document.getElementById(e.getAttribute('aria-describedby')).textContent; }"""
    )
    name = term.get_attribute("data-term")
    assert described == catalogue("en")[f"point.{name}.help"]
    page.keyboard.press("Tab")


def stats_scroll_by_keys(page: Any) -> None:
    """The players' statistics: a focusable region that the arrow keys scroll."""
    region = page.locator("#history .stats-wrap")
    assert region.get_attribute("tabindex") == "0" and region.get_attribute("role") == "region"
    region.focus()
    wide = page.evaluate(
        "() => { const e = document.querySelector('#history .stats-wrap'); "
        "return e.scrollWidth > e.clientWidth; }"
    )
    if wide:
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        until(page, "() => document.querySelector('#history .stats-wrap').scrollLeft > 0")


def rules_from_the_table(page: Any, screens: Screens, book: dict[str, Any]) -> None:
    """The game's name in the top bar opens its rules over the table; Escape closes them
    and gives the focus back."""
    button = page.locator('#topbar-mid button[data-action="rules"]')
    button.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#rules-dialog[open] .rules-text")
    text = page.locator("#rules-dialog").text_content() or ""
    assert f"Bids from {book['bids']['min']} to {book['bids']['max']}" in text
    screens.check("rules over the table", languages=False)
    page.keyboard.press("Escape")
    page.wait_for_selector("#rules-dialog", state="detached")
    assert page.evaluate("document.activeElement.dataset.action") == "rules"


def test_the_rules_page_of_every_game_in_every_language(
    server: RunningServer, pages: PageFactory
) -> None:
    page = pages()
    screens = Screens(page)
    for name, book in books(server).items():
        page.goto(server.base_url + "/")
        page.click(f'a[data-rules="{name}"]')
        page.wait_for_url(f"**/rules/{name}")
        page.wait_for_selector("h1")
        for lang in LANGUAGES:
            screens.language(lang)
            help_words = json.loads((WEB / "i18n" / "help" / f"{lang}.json").read_text())
            heading = page.locator("h1").text_content() or ""
            label = catalogue(lang)[f"variant.{name}"]
            assert heading == help_words["help.title"].replace("{{game}}", label)
            # Every point of the game explained, in its order.
            points = page.locator(".rules-points dt").all_text_contents()
            assert points == [catalogue(lang)[f"point.{p}"] for p in book["points"]]
            assert page.locator(".card-order li").count() == len(book["trump_order"]["H"])
        screens.language("en")
        screens.check(f"rules {name}")
    assert not screens.problems, "\n".join(screens.problems)


# ------------------------------------------------------------------ the last trick, focus


def test_no_blind_play_while_the_last_trick_is_shown_and_the_focus_at_hand(
    server: RunningServer, pages: PageFactory
) -> None:
    page = pages()
    hold(page, 4000)
    table = Table(page)
    sent: list[dict[str, Any]] = []
    page.on(
        "websocket",
        lambda ws: ws.on("framesent", lambda p: sent.append(json.loads(p))),
    )
    create_room(page, server, "wisconsin4", target=5)
    sit(page, "Ann", 0)
    fill_and_start(page)
    pass_checked = blind_checked = keys_checked = False
    deadline = time.monotonic() + 180
    while not (pass_checked and blind_checked and keys_checked):
        shot, view = table.synced()
        assert time.monotonic() < deadline and view["phase"] != "game_over", (
            pass_checked,
            blind_checked,
            keys_checked,
        )
        kinds = {a["type"] for a in view["legal"]}
        if "pass" in kinds and not pass_checked:
            # A reflex Enter at a bid passes; it never commits the lowest bid.
            until(page, "() => document.activeElement.dataset.action === 'pass'")
            pass_checked = True
        if "play" in kinds and shot["held"]:
            # The last trick is still up: no card may be played, nor "Your turn" said.
            assert all(b["disabled"] for b in shot["hand"]), shot["hand"]
            actions = page.locator("#actions").text_content() or ""
            assert catalogue("en")["play.your_turn"] not in actions
            assert catalogue("en")["play.after_trick"] in actions
            before = len([f for f in sent if f.get("type") == "play"])
            page.locator("#hand button[data-card]").first.click(force=True)
            page.wait_for_selector("#table .trick-note", state="detached")
            assert len([f for f in sent if f.get("type") == "play"]) == before
            # Then the trick they play to: its cards on the table, the cards alive.
            now = page.evaluate(PLAYED)
            assert sorted(c[0] for c in now) == sorted(c["card"] for c in view["trick"])
            until(
                page,
                "() => document.querySelector('#hand button[data-card]:not(:disabled)') !== null",
            )
            blind_checked = True
            continue
        if "play" in kinds and view["tricks"] and not keys_checked:
            page.locator("#hand").focus()
            page.keyboard.press("l")
            page.wait_for_selector("#tricks-panel")
            page.keyboard.press("Escape")
            page.wait_for_selector("#tricks-panel", state="detached")
            assert page.evaluate("!!document.activeElement.closest('#hand')")
            keys_checked = True
        if shot["held"] and "play" in kinds:
            page.wait_for_selector("#table .trick-note", state="detached")
            continue
        acted = act(table, view) if kinds and view["you"] in (view["turn"] or []) else False
        table.wait_change(shot["seq"])
        if not acted:
            page.wait_for_timeout(20)


# ------------------------------------------------------------------ offline


def test_offline_is_visible_refused_and_told_to_the_others(
    server: RunningServer, pages: PageFactory
) -> None:
    pages.allow_console(r"WebSocket connection to .* failed|ERR_INTERNET_DISCONNECTED")
    page = pages(viewport=PHONE, is_mobile=True, has_touch=True)
    table = Table(page)
    # A socket whose frames can be swallowed (a link that looks open and delivers nothing).
    swallow = {"on": False}

    def route(ws: Any) -> None:
        upstream = ws.connect_to_server()
        ws.on_message(lambda m: None if swallow["on"] else upstream.send(m))
        upstream.on_message(lambda m: ws.send(m))

    page.route_web_socket(re.compile(r"/ws/"), route)
    code = create_room(page, server, "wisconsin4", target=5)
    sit(page, "Ann", 0)
    fill_and_start(page)
    watcher = pages()
    watcher.goto(f"{server.base_url}/r/{code}")
    watcher.wait_for_selector('#table .seat[data-seat="0"]')
    # Wait for a turn of Ann's.
    deadline = time.monotonic() + 60
    while True:
        shot, view = table.synced()
        if view["legal"] and 0 in (view["turn"] or []) and not shot["held"]:
            break
        assert time.monotonic() < deadline
        page.wait_for_timeout(50)
    offline = catalogue("en")["offline.banner"]
    page.context.set_offline(True)
    page.wait_for_selector("body[data-connection='offline']")
    assert page.locator("#banner").text_content() == offline
    # The others see Ann offline at once (her page closed its socket).
    watcher.wait_for_selector('#table .seat[data-seat="0"] .badge.away', timeout=5_000)
    # A tap now plays nothing, and says so.
    target = next(iter_legal(page))
    page.tap(target)
    page.wait_for_selector("#toast:not([hidden])")
    assert page.locator("#toast").text_content() == catalogue("en")["err.not_sent"]
    page.context.set_offline(False)
    page.wait_for_selector("body[data-connection='open']", timeout=10_000)
    watcher.wait_for_selector('#table .seat[data-seat="0"] .badge.away', state="detached")
    _, again = table.synced()
    assert again["legal"] == view["legal"] and sorted(again["hand"]) == sorted(view["hand"])
    # A move the room never answers: shown pending, then given up.
    swallow["on"] = True
    page.tap(next(iter_legal(page)))
    pending = page.wait_for_selector("#actions .pending-row")
    assert pending is not None
    assert (pending.text_content() or "") in (
        catalogue("en")["move.sending"],
        catalogue("en")["move.slow"] + catalogue("en")["move.cancel"],
    )
    page.wait_for_selector('#actions .pending-row.slow button[data-action="cancel_move"]')
    swallow["on"] = False
    page.tap('button[data-action="cancel_move"]')
    page.wait_for_selector("#actions .pending-row", state="detached")
    page.wait_for_selector("body[data-connection='open']")
    shot, after = table.synced()
    assert after["legal"] == view["legal"], "the move given up was played"


def iter_legal(page: Any) -> Iterator[str]:
    """Selectors of what the player may do now (a card, else a button)."""
    cards = page.eval_on_selector_all(
        "#hand button[data-card]:not(:disabled)", "(bs) => bs.map((b) => b.dataset.card)"
    )
    for card in cards:
        yield f'#hand button[data-card="{card}"]'
    for action in ("pass", "bid", "trump", "call", "discard"):
        yield f'#actions button[data-action="{action}"]:not(:disabled)'


# ------------------------------------------------------------------ numbers, first load


@pytest.mark.timeout(900)
def test_the_score_sheet_numbers_hands_as_the_history_does(
    server: RunningServer, pages: PageFactory
) -> None:
    page = pages()
    hold(page, 1200)
    table = Table(page)
    create_room(page, server, "wisconsin4", target=5)
    sit(page, "Ann", 0)
    fill_and_start(page)
    games = 0
    # A whole game and a hand of the next, at the shortest trick hold: about a minute
    # on a quiet machine, several on a busy one (the suite runs in parallel).
    deadline = time.monotonic() + 780
    while True:
        shot, view = table.synced()
        assert time.monotonic() < deadline, view["phase"]
        if view["phase"] == "game_over":
            games += 1
            page.click('button[data-action="rematch"]')
            until(page, "() => document.body.dataset.phase !== 'game_over'")
            continue
        rows = page.locator("#sheet tbody tr").count()
        if games == 1 and rows >= 1:
            break
        kinds = {a["type"] for a in view["legal"]}
        if shot["held"] and "play" in kinds:
            page.wait_for_selector("#table .trick-note", state="detached")
            continue
        acted = act(table, view) if kinds and 0 in (view["turn"] or []) else False
        table.wait_change(shot["seq"])
        if not acted:
            page.wait_for_timeout(20)
    until(page, "() => !document.querySelector('#sheet tbody td').textContent.includes('…')")
    sheet = page.eval_on_selector_all(
        "#sheet tbody tr", "(rs) => rs.map((r) => r.cells[0].textContent)"
    )
    page.click("#history summary")
    page.wait_for_selector('#history .history-game[data-game="2"] tr[data-hand]')
    second = page.eval_on_selector_all(
        '#history .history-game[data-game="2"] tr[data-hand]',
        "(rs) => rs.map((r) => r.dataset.hand)",
    )
    assert sheet == second[: len(sheet)], (sheet, second)
    assert int(sheet[0]) > 1  # the room's numbers, not the game's


def test_a_first_visit_downloads_the_client_once(server: RunningServer, pages: PageFactory) -> None:
    page = pages()
    by_worker: list[str] = []

    def finished(request: Any) -> None:
        # A request of the worker's that downloaded a body (one answered from the
        # browser's HTTP cache downloaded nothing).
        if request.service_worker is not None and request.sizes()["responseBodySize"] > 0:
            by_worker.append(request.url)

    page.context.on("requestfinished", finished)
    page.goto(server.base_url + "/")
    page.wait_for_selector('input[name="variant"]')
    loaded = page.evaluate(
        "() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)"
        ".filter((p) => p.startsWith('/static/'))"
    )
    until(
        page,
        """async (want) => {
          const names = await caches.keys();
          if (names.length !== 1) return false;
          const cache = await caches.open(names[0]);
          const kept = (await cache.keys()).map((r) => new URL(r.url).pathname);
          return want.every((p) => kept.includes(p));
        }""",
        loaded,
    )
    page.wait_for_timeout(500)
    # Kept from the browser's HTTP cache: the worker downloaded none of the client again,
    # and nothing the page did not load (sounds, the other languages).
    again = [u for u in by_worker if "/static/" in u]
    assert not again, again
