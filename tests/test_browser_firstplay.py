"""What a first-time player tripped over at play (issue 34), replayed in real Chromium;
every screen of every game, help at hand and the club pages are in
`test_browser_firsttime.py` (two files, so that the suite's workers share them).

- No blind play while the last trick is still shown; Pass first at a bid; the hand after
  L and Escape. A card or button pressed as another player's move comes still counts.
- Offline made visible: the banner, a tap refused with a message, the others told at once;
  a move the room does not answer shown pending, and given up.
- The score sheet numbers hands as the history and the replay links do.
- Every symbol the client writes has a glyph with a plain Linux desktop's fonts (no emoji
  font): ⏮, ⏭ and ⏱ were empty boxes there.
- A first visit downloads the client once: the service worker keeps what the page loaded;
  the client's text arrives gzipped, and `HEAD /` answers.

One server for the module; each test plays short games (`target` 5, bots at once).
"""

from __future__ import annotations

import gzip
import json
import re
import time
import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest

from schmier.config import Settings
from tests.support.browsers import PHONE, PageFactory, Table
from tests.support.play import answered, create_room, drive, fill_and_start, move_on, sit
from tests.support.screens import until
from tests.support.servers import FAST, RunningServer, start_thread_server
from tests.test_browser_firsttime import LAID, WEB, catalogue, hold
from tests.test_browser_review import play_over_the_wire

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    running = start_thread_server(Settings(**FAST))
    yield running
    running.stop()


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
            page.wait_for_selector(".trick-note", state="detached")
            assert len([f for f in sent if f.get("type") == "play"]) == before
            # Then the trick they play to: its cards on the table, the cards alive.
            now = page.evaluate(LAID)["cards"]
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
            page.wait_for_selector(".trick-note", state="detached")
            continue
        move_on(table, shot, view, bool(kinds) and view["you"] in (view["turn"] or []))


def press_through_a_redraw(page: Any, selector: str) -> None:
    """Press `selector` with the mouse and release it after the page was drawn again
    from a new state, as when another player's move arrives under the finger."""
    box = page.locator(selector).bounding_box()
    assert box, selector
    # The left edge: a card of a fanned hand lies under its right-hand neighbour.
    x, y = box["x"] + 6, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    assert page.evaluate(
        "([x, y, s]) => document.elementFromPoint(x, y).closest(s) !== null", [x, y, selector]
    ), selector
    page.mouse.down()
    page.evaluate("async () => (await import('/static/room.js')).changed('view')")
    page.mouse.up()


def test_a_press_counts_when_a_move_comes_under_the_finger(
    server: RunningServer, pages: PageFactory
) -> None:
    """The discards of the six-seat game are made at once, and the other players' come
    while one picks: each drew the hand and the action panel anew, and a card (or the
    Discard button) pressed before and released after was a different node, so the
    browser sent no click and the pick was lost. Now they stay the nodes pressed."""
    page = pages()
    table = Table(page)
    create_room(page, server, "schmier6", target=5)
    sit(page, "Ann", 0)
    fill_and_start(page)
    view = drive(table, lambda v: any(a["type"] == "discard" for a in v["legal"]))
    template = next(a for a in view["legal"] if a["type"] == "discard")
    wanted = template["from"][: max(template["min"], 1)]
    for card in wanted:
        picked = f'#hand button[data-card="{card}"]'
        press_through_a_redraw(page, picked)
        assert page.get_attribute(picked, "aria-pressed") == "true", card
    shot, before = table.synced()
    press_through_a_redraw(page, '#actions button[data-action="discard"]')
    # The state that takes the discard: another player's, sent before it, may come first.
    answered(table, shot["seq"], before)
    _, after = table.synced()
    assert not any(a["type"] == "discard" for a in after["legal"]), after["phase"]
    assert not set(wanted) & set(after["hand"]), (wanted, after["hand"])


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
    page.context.set_offline(True)
    page.wait_for_selector("body[data-connection='offline']")
    assert page.locator("#banner").text_content() == catalogue("en")["offline.banner"]
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
    _, after = table.synced()
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


@pytest.fixture
def own_server() -> Iterator[RunningServer]:
    """A server of the test's own: the rooms the module's other tests leave to their bots
    play on meanwhile, and a whole game beside them took minutes on a busy machine."""
    running = start_thread_server(Settings(**FAST))
    yield running
    running.stop()


def test_the_score_sheet_numbers_hands_as_the_history_does(
    own_server: RunningServer, pages: PageFactory
) -> None:
    # Two whole games played over the wire (a rematch between), then the room in the
    # browser: its score sheet is the second game's, numbered as the history numbers it.
    code = play_over_the_wire(own_server, "wisconsin4", games=2)
    page = pages()
    page.goto(f"{own_server.base_url}/r/{code}")
    page.wait_for_selector("body[data-phase='game_over']")
    page.click("#history summary")
    page.wait_for_selector('#history .history-game[data-game="2"] tr[data-hand]')
    second = page.eval_on_selector_all(
        '#history .history-game[data-game="2"] tr[data-hand]',
        "(rs) => rs.map((r) => r.dataset.hand)",
    )
    # Every hand the sheet shows (one who comes in late sees the hands since) carries
    # the number the history gives it in the second game (on the old client the sheet
    # numbered the game's hands 1, 2, ...).
    until(
        page,
        """() => document.querySelectorAll('#sheet tbody tr').length > 0
          && ![...document.querySelectorAll('#sheet tbody td')]
               .some((td) => td.textContent.includes('…'))""",
    )
    sheet = page.eval_on_selector_all(
        "#sheet tbody tr", "(rs) => rs.map((r) => r.cells[0].textContent)"
    )
    assert sheet and all(n in second for n in sheet), (sheet, second)
    assert sheet[-1] == second[-1], (sheet, second)  # the game's last hand, by the room's number
    assert sheet == sorted(sheet, key=int), sheet
    assert int(sheet[0]) > 1  # the room's numbers, not the game's


EAST_ASIAN = [(0x3000, 0x30FF), (0xFF00, 0xFFEF)]
"""The punctuation of Japanese and Korean (「」、。・（）), which comes with their fonts."""


def written_symbols() -> list[str]:
    """Every character beyond ASCII that the client writes, but letters: in the code of
    its scripts (not their comments) and in its catalogues (the punctuation and symbols;
    the letters and punctuation of Japanese and Korean come with those languages'
    fonts)."""
    found: set[str] = set()
    for path in sorted(WEB.glob("*.js")):
        code = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
        found.update("".join(re.sub(r"(^|\s)//.*$", "", line) for line in code.splitlines()))
    for lang in ("en", "bg", "ja", "ko", "ms"):
        found.update("".join(catalogue(lang).values()))
    return sorted(
        ch
        for ch in found
        if ord(ch) > 127
        and unicodedata.category(ch)[0] in "SP"
        and not ch.isspace()
        and not any(start <= ord(ch) <= end for start, end in EAST_ASIAN)
    )


def test_every_symbol_the_client_writes_has_a_glyph(
    server: RunningServer, pages: PageFactory
) -> None:
    """Drawn on a canvas in the page's own font, no symbol of the client's may look like
    a character no font has (the empty box): the test machine has Debian's fonts and no
    emoji font, as a plain Linux desktop. ⏮ ⏭ (the review) and ⏱ (the timer) did."""
    symbols = written_symbols()
    assert {"★", "♠", "✓", "◀"} <= set(symbols), symbols  # the scan finds what is there
    page = pages()
    page.goto(server.base_url + "/")
    boxes = page.evaluate(
        """(symbols) => {
          const canvas = document.createElement('canvas');
          canvas.width = canvas.height = 48;
          const pen = canvas.getContext('2d');
          pen.font = `32px ${getComputedStyle(document.body).fontFamily}`;
          const drawn = (ch) => {
            pen.clearRect(0, 0, 48, 48);
            pen.fillText(ch, 4, 38);
            return pen.getImageData(0, 0, 48, 48).data.join();
          };
          const none = drawn('\\u{10FFFD}');  // a private character: no font has it
          if (none === drawn(' ')) return ['the empty box draws nothing'];
          return symbols.filter((ch) => drawn(ch) === none);
        }""",
        symbols,
    )
    assert not boxes, boxes


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


def test_the_client_arrives_compressed_and_head_answers(
    server: RunningServer, pages: PageFactory
) -> None:
    """What Chromium downloads on a first visit: the client's scripts, styles and words
    gzipped (each smaller on the wire than on disk); and `HEAD /` answers as `GET /`
    does (it was 405)."""
    page = pages()
    answers: list[Any] = []
    page.on("response", lambda r: answers.append(r))
    page.goto(server.base_url + "/")
    page.wait_for_selector('input[name="variant"]')
    page.wait_for_load_state("networkidle")
    text = [
        r
        for r in answers
        if r.request.service_worker is None
        and re.search(r"/static/.+\.(js|css|json)$", r.url)
        and r.status == 200
    ]
    packed = 0
    for response in text:
        raw = (WEB / response.url.split("/static/", 1)[1]).read_bytes()
        if len(gzip.compress(raw, 9)) > 0.9 * len(raw):
            continue  # too small for gzip to save anything worth a header
        assert response.header_value("content-encoding") == "gzip", response.url
        assert response.request.sizes()["responseBodySize"] < len(raw), response.url
        packed += 1
    assert packed >= 10, [r.url for r in text]
    head = page.evaluate(
        """async () => {
          const r = await fetch('/', { method: 'HEAD', cache: 'no-store' });
          return [r.status, r.headers.get('content-type'), (await r.text()).length];
        }"""
    )
    assert head[0] == 200 and head[1].startswith("text/html") and head[2] == 0, head
