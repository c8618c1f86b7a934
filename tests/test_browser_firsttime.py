"""What a first-time player tripped over (issue 34), replayed in real Chromium.

- Every screen of every game, on a desktop (1280 px) and a phone (375 px): no serious or
  critical axe-core violation (home, lobby, each phase, the hand summary, game over, the
  review, the history, the rules), and no overflow in any of the five languages (text out
  of its button, a name cut short, a word broken over two lines, a page wider than the
  screen), with names of 24 letters; the trick's cards never overlap, nor cover a seat; the
  hand summary's game totals in side order.
- Help at hand: the rules of each game from the home page (a page) and from the table (a
  dialog), in every language; the point names explained; the running tally of the hand,
  held against what the view shows publicly.
- The trick's cards clear of each other and of the seats on a phone and on low screens
  too, as the window changes size; "Waiting for" a long name never widens a phone's
  page; axe-core on the club's pages.

One server for the module; each test plays short games (`target` 5, bots at once). The
rest of the first-time table (play, offline, the first load): `test_browser_firstplay.py`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from schmier.config import Settings
from tests.support.browsers import DESKTOP, PHONE, PageFactory, Table, screenshot
from tests.support.play import (
    act,
    create_room,
    drive,
    fill_and_start,
    move_on,
    open_club_archived,
    sit,
)
from tests.support.screens import axe_violations, overflows, until
from tests.support.servers import FAST, RunningServer, start_thread_server

pytestmark = [pytest.mark.browser, pytest.mark.long]

WEB = Path(__file__).resolve().parents[1] / "web"
LANGUAGES = ["en", "bg", "ja", "ko", "ms"]
LONG = "Abcdefghijklmnopqrstuvwx"
"""The longest name there is (24 letters), with no space to break it at."""
WIDE = "W" * 24
"""The widest name there is: 24 of the widest letter, with no space to break it at."""


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


LAID = """async () => {
  // Where the trick's cards lie, not where a motion takes them for a moment (a card
  // sliding in from its player crosses the others; the winner pulses larger): their
  // motions are waited out first (each lasts well under a second). Then the cards, the
  // seats and the table's edge are read at one instant: a state drawn between two reads
  // (the page scrolled to the top for the player's turn, say) would compare boxes of
  // two layouts.
  const cards = () => [...document.querySelectorAll('#table [data-played]')];
  const running = (e) => e.getAnimations().some((a) => a.playState === 'running');
  for (let i = 0; i < 100 && cards().some(running); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  return {
    cards: cards().map((e) => [e.dataset.played, ...box(e)]),
    seats: [...document.querySelectorAll('#table .seat[data-seat]')].map(
      (e) => [e.querySelector('.seat-name').textContent, ...box(e)]),
    table: box(document.querySelector('#table')),
  };
}"""


def cards_clear(page: Any) -> list[str]:
    """Trick cards on the table, where they come to rest, that overlap one another or a
    seat (a card once covered its neighbour's name on a phone), and cards or seats cut
    by the table's edge (the player's own seat, grown by the turn's ring after it was
    placed, once ran off the bottom)."""
    laid = page.evaluate(LAID)
    boxes, seats, edge = laid["cards"], laid["seats"], laid["table"]

    def over(a: list[Any], b: list[Any]) -> bool:
        return bool(
            a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5 and a[2] < b[4] - 0.5 and b[2] < a[4] - 0.5
        )

    bad = []
    for i, a in enumerate(boxes):
        bad += [f"{a[0]} over {b[0]}" for b in boxes[i + 1 :] if over(a, b)]
        bad += [f"{a[0]} over the seat of {seat[0]}" for seat in seats if over(a, seat)]
    for a in boxes + seats:
        inside = edge[0] <= a[1] + 0.5 and edge[1] <= a[2] + 0.5
        if not (inside and a[3] <= edge[2] + 0.5 and a[4] <= edge[3] + 0.5):
            bad.append(f"{a[0]} off the table")
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
    summed: set[str] = set()
    # A whole game and a hand of the next, at the shortest trick hold: about a minute
    # on a quiet machine, several on a busy one (the suite runs in parallel).
    deadline = time.monotonic() + 780
    while True:
        shot, view = table.synced()
        assert time.monotonic() < deadline, view["phase"]
        kinds = {a["type"] for a in view["legal"]}
        mine = view["you"] in (view["turn"] or []) and kinds
        if view["seats"][0]["kind"]:
            overlaps += cards_clear(page)
        check_tally(page, shot["seq"], view, book)
        if view["last_hand"] and json.dumps(view["last_hand"], sort_keys=True) not in summed:
            # Every hand's summary, whichever side bid it (the bidder's side comes first
            # in the view; the summary lists the sides in their own order).
            summed.add(json.dumps(view["last_hand"], sort_keys=True))
            totals_in_side_order(page, view)
        if view["phase"] == "game_over":
            break
        if shot["held"] and "play" in kinds:
            page.wait_for_selector(".trick-note", state="detached")
            continue
        if mine:
            screens.check(view["phase"])
            if view["phase"] == "play" and view["tricks"] and "tally" not in screens.seen:
                screens.check("tally", languages=False)
        move_on(table, shot, view, mine)
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
    """The summary's game totals follow the sides' order (A, B, C), whoever bid: each
    side's names and total in its place."""
    text = page.locator("#hand-summary p.muted").first.text_content() or ""
    shown = re.findall(r"([^:·]+): ([-−]?\d+)", text.split(":", 1)[1])
    last = view["last_hand"]
    teams = view["teams"]
    team_of = {seat: i for i, team in enumerate(teams) for seat in team}
    at = [min(team_of[s] for s in side) for side in last["sides"]]
    assert len(shown) == len(last["sides"]), (text, last)
    order = sorted(range(len(at)), key=lambda k: at[k])
    for (names, total), k in zip(shown, order, strict=True):
        assert int(total.replace("−", "-")) == last["game_totals"][k], (text, last)
        for seat in last["sides"][k]:
            who = page.evaluate(
                "(s) => document.querySelector("
                "`#table .seat[data-seat='${s}'] .seat-name`).textContent",
                seat,
            )
            assert who.split(" · ")[0] in names, (text, who, last)


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


FRAMES = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
"""Two frames: a resize's placing of the cards (one frame later) is done."""

LOW_AND_SMALL = [PHONE, {"width": 1280, "height": 720}, {"width": 1366, "height": 768}]
"""A phone, and laptops' screens, lower than the desktop of the test above."""


def three_tricks(table: Table, look: Callable[[dict[str, Any], dict[str, Any]], None]) -> None:
    """Play (the bots at once) until three tricks are done or the hand is over, showing
    `look` every state the page draws: what it shows (`Table.synced`) and its view."""
    deadline = time.monotonic() + 240
    while True:
        shot, view = table.synced()
        assert time.monotonic() < deadline, view["phase"]
        look(shot, view)
        if len(view["tricks"]) >= 3 or view["phase"] in ("hand_over", "game_over"):
            return
        kinds = {a["type"] for a in view["legal"]}
        if shot["held"] and "play" in kinds:
            table.page.wait_for_selector(".trick-note", state="detached")
            continue
        move_on(table, shot, view, bool(kinds) and view["you"] in (view["turn"] or []))


@pytest.mark.parametrize("variant", ["schmier6", "schmier5", "wisconsin4"])
def test_trick_cards_clear_of_each_other_and_the_seats(
    server: RunningServer, pages: PageFactory, variant: str
) -> None:
    """On a phone and on low screens, with the longest name at the table, the trick's
    cards lie clear of one another and of every seat: on the six-seat table the cards of
    the left and the right sides once lay over one another (K♠ over 7♥), and on a phone
    the cards of a plain ring round the centre covered the names of the seats beside
    them (the right-hand seat of the five-seat table was hidden whole). The window
    changes size while cards are on the table, and they move with it."""
    page = pages(viewport=PHONE)
    hold(page, 1200)
    table = Table(page)
    create_room(page, server, variant, target=5)
    sit(page, LONG, 0)
    fill_and_start(page)
    overlaps: list[str] = []
    looks = 0
    most = 0

    def look(shot: dict[str, Any], view: dict[str, Any]) -> None:
        nonlocal looks, most
        if shot["played"]:
            size = LOW_AND_SMALL[looks % len(LOW_AND_SMALL)]
            page.set_viewport_size(size)
            page.evaluate(FRAMES)
            overlaps.extend(f"{size['width']}x{size['height']}: {o}" for o in cards_clear(page))
            looks += 1
        most = max(most, len(shot["played"]))

    three_tricks(table, look)
    assert most >= 4, most  # tricks were on the table while we looked
    assert looks >= len(LOW_AND_SMALL), looks
    assert not overlaps, sorted(set(overlaps))


NOTE_AND_BAR = """() => {
  // The won trick's note, wherever it lies (a corner of the table, else the bar under
  // it), its text inside it; the top bar's chips clear of the language picker.
  const box = (e) => e && e.getBoundingClientRect();
  const over = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const found = [];
  const note = document.querySelector('.trick-note');
  if (note) {
    if (note.scrollWidth > note.clientWidth + 1) found.push("the note's text out of it");
    const things = [...document.querySelectorAll('#table .seat[data-seat], #table [data-played]')];
    for (const e of things) {
      const what = e.dataset.played || `seat ${e.dataset.seat}`;
      if (over(box(note), box(e))) found.push(`the note over ${what}`);
    }
  }
  const lang = box(document.querySelector('.topbar .lang'));
  for (const e of document.querySelectorAll('.topbar-mid > *, .topbar-mid .contract > *')) {
    if (!e.offsetParent) continue;
    if (over(box(e), lang)) found.push(`"${e.textContent}" under the language picker`);
    // A chip squeezed narrower than its words: they run out of it, under the picker.
    if (e.scrollWidth > e.clientWidth + 1) found.push(`"${e.textContent}" out of its chip`);
  }
  return { found, inBar: Boolean(note && note.closest('#tricks-bar')) };
}"""


@pytest.mark.parametrize("size", [{"width": 320, "height": 568}, {"width": 360, "height": 640}])
def test_the_six_seat_table_on_the_narrowest_phones(
    server: RunningServer, pages: PageFactory, size: dict[str, int]
) -> None:
    """At 320 and 360 px, six seats and the longest name: the trick clear of the seats,
    the won trick's note over nothing (where no corner of the table is free it lies
    over the bar under the table) and its long name inside it, the trump chip clear of
    the language picker. At 320 px the note lay over a seat in every look and the chip
    ran under the picker; at 360 px a 24-letter winner's name ran out of the note over
    the player's own seat."""
    page = pages(viewport=size, is_mobile=True, has_touch=True)
    hold(page, 1200)
    table = Table(page)
    create_room(page, server, "schmier6", target=5)
    sit(page, LONG, 0)
    fill_and_start(page)
    problems: list[str] = []
    notes = 0

    def look(shot: dict[str, Any], view: dict[str, Any]) -> None:
        nonlocal notes
        if view["phase"] == "lobby":
            return
        page.evaluate(FRAMES)
        problems.extend(cards_clear(page) if shot["played"] else [])
        looked = page.evaluate(NOTE_AND_BAR)
        problems.extend(looked["found"])
        if looked["inBar"] and not notes:
            screenshot(page, f"phone-{size['width']}-six-seats")
        notes += looked["inBar"] if size["width"] < 360 else shot["held"]

    three_tricks(table, look)
    assert notes, "no won trick's note was seen"
    assert not problems, sorted(set(problems))


def test_waiting_for_a_long_name_keeps_the_phone_page_narrow(
    server: RunningServer, pages: PageFactory
) -> None:
    """On a phone, "Waiting for" a 24-letter name wraps; it never widens the page (it
    once made it 401 px wide on a 375 px screen)."""
    ann = pages(viewport=PHONE, is_mobile=True, has_touch=True)
    ann_table = Table(ann)
    code = create_room(ann, server, "wisconsin4", target=5)
    sit(ann, "Ann", 0)
    other = pages()
    other.goto(f"{server.base_url}/r/{code}")
    sit(other, WIDE, 1)
    fill_and_start(ann)
    deadline = time.monotonic() + 120
    while True:
        shot, view = ann_table.synced()
        assert time.monotonic() < deadline, view["phase"]
        if 1 in (view["turn"] or []):
            break
        kinds = {a["type"] for a in view["legal"]}
        if shot["held"] and "play" in kinds:
            ann.wait_for_selector(".trick-note", state="detached")
            continue
        acted = act(ann_table, view) if kinds and 0 in (view["turn"] or []) else False
        ann_table.wait_change(shot["seq"])
        if not acted:
            ann.wait_for_timeout(20)
    waiting = ann.locator("#actions .waiting")
    waiting.wait_for()
    assert WIDE in (waiting.text_content() or "")
    # (A phone's page grows to what it holds, so its own width is no measure: the screen's.)
    assert ann.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    problems = overflows(ann, "waiting for a long name")
    assert not problems, problems


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


def axe_both(page: Any, name: str) -> list[str]:
    """axe-core on the page as it is now, on the desktop and on the phone."""
    problems: list[str] = []
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        page.wait_for_timeout(60)
        problems += axe_violations(page, f"{name} {size['width']}")
    page.set_viewport_size(DESKTOP)
    return problems


def test_every_club_page(server: RunningServer, pages: PageFactory) -> None:
    """axe-core on the club's pages too: a member's page, the page of someone invited,
    and, after a club game, the standings with the rating chart and the archive's review."""
    page = pages()
    hold(page, 1200)
    table = Table(page)
    page.goto(server.base_url + "/")
    page.fill("#new-club-name", "Thursday club")
    page.fill("#new-club-me", "Ann")
    page.click('button[data-action="create-club"]')
    page.wait_for_url(re.compile(r"/c/[a-z2-7]{16}$"))
    page.wait_for_selector("#club-name")
    club = page.url
    problems = axe_both(page, "club, a member's")
    newcomer = pages()
    newcomer.goto(page.input_value("#club-invite"))
    newcomer.wait_for_selector("#club-join-name")
    problems += axe_both(newcomer, "club, joining")
    newcomer.close()
    # A club game to its end, then the standings, the chart and the archive.
    page.select_option("#club-room-variant", "wisconsin4")
    page.fill("#club-room-target", "5")
    page.click('button[data-action="club-room"]')
    page.wait_for_url(re.compile(r"/r/[^/]+$"))
    page.wait_for_selector("body[data-seq]")
    sit(page, "Ann", 0)
    fill_and_start(page)
    drive(table, lambda v: v["phase"] == "game_over", limit=600)
    open_club_archived(page, club, "wisconsin4", "Ann")
    page.locator('figure[data-chart="ratings"]').wait_for()
    game = page.locator("li.game").first
    game.wait_for()
    game.locator('button[data-action="game-hands"]').click()
    game.locator('button[data-action="review-archived"]').first.wait_for()
    problems += axe_both(page, "club, standings and archive")
    game.locator('button[data-action="review-archived"]').first.click()
    page.locator("#review-dialog .review").wait_for()
    problems += axe_both(page, "club, an archived hand's review")
    assert not problems, "\n".join(problems)
