"""A table a first-time player can sit at (issue 16): a whole hand of every game played by
clicks at 1280×800 and by taps at 375×667, with what the player needs to decide on
screen at every one of their turns and nothing scrolling sideways; a whole hand of
Wisconsin Smear with the keyboard alone, and a redraw that leaves the keyboard and the
scroll where they were. One test per thing a player tripped over (a phone held
sideways among them) is in `tests/test_browser_tripped.py`, which shares the helpers
here.

At each of the player's turns the trump, the scores, the bid, the called card
(`schmier5`) and the cards (or buttons) the player may use must lie inside the viewport
as it is, with nothing scrolled by the test: `in_view` reads their bounding boxes.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import pytest

from tests.support.browsers import (
    PHONE,
    SCREENSHOTS,
    PageFactory,
    Table,
    screenshot,
)
from tests.support.play import answered, create_room, drive, hand_scored, sit
from tests.support.servers import Client, Player, ServerFactory
from tests.test_browser_together import in_thread

pytestmark = [pytest.mark.browser, pytest.mark.long]

LAPTOP = {"width": 1280, "height": 800}
LONG = ["Abcdefghijklmnopqrstuvwx", "Zyxwvutsrqponmlkjihgfedc"]
"""The longest names there are (24 characters), without a space to break them at."""
GAMES = ["schmier6", "schmier5", "wisconsin4"]
QUICK_HOLD = "1200"
"""The shortest time a won trick stays (`hold.js`), to keep the hands quick."""


def open_phone(pages: PageFactory) -> Any:
    return pages(viewport=PHONE, is_mobile=True, has_touch=True)


def quick(page: Any) -> None:
    """Hold won tricks for the shortest time this browser can choose."""
    page.add_init_script(f"localStorage.setItem('schmier.trick_hold', '{QUICK_HOLD}')")


NEEDED = """(want) => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right,
             width: r.width, height: r.height };
  };
  const inside = (r) => r.width > 0 && r.height > 0 && r.top >= -0.5 && r.left >= -0.5
    && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
  const out = {};
  for (const [name, selector] of Object.entries(want)) {
    const found = [...document.querySelectorAll(selector)];
    out[name] = found.length === 0 ? ['missing'] :
      found.filter((e) => !inside(box(e))).map((e) => [e.outerHTML.slice(0, 60), box(e)]);
  }
  out.scroll = [document.scrollingElement.scrollWidth, innerWidth];
  return out;
}"""


def wanted(view: dict[str, Any], wide: bool) -> dict[str, str]:
    """What must be on screen at this turn of the player's, as selectors (on a wide
    screen the whole hand, even while choosing a bid, a trump or a partner)."""
    kinds = {a["type"] for a in view["legal"]}
    want = {"scores": "#scoreboard .score"}
    if wide:
        want["hand"] = "#hand button[data-card]"
    if view["trump"] or view.get("my_trump"):
        want["trump"] = "#trump"
    if view["phase"] == "bidding":
        want["bid"] = "#actions .bids-made"
    elif view["bid"] is not None:
        want["bid"] = "#contract [data-bid]"
    if view.get("called"):
        want["called"] = f'#contract [data-called="{view["called"]}"]'
    if "play" in kinds:
        want["cards"] = "#hand button[data-card]:not(:disabled)"
    elif "discard" in kinds:
        want["cards"] = "#hand button[data-card]:not(:disabled)"
        want["discard"] = '#actions button[data-action="discard"]'
    else:
        want["buttons"] = "#actions button[data-action]:not(:disabled)"
    return want


def check_in_view(table: Table, shot: dict[str, Any], view: dict[str, Any]) -> None:
    """At a turn of the player's, all they need is on the screen, unscrolled sideways."""
    page = table.page
    # The page is wider than the screen nowhere, at any moment.
    width = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], width
    # A count takes its plural form: "1 card", never "1 cards" (read with the seq the
    # page shows, as the bots play on meanwhile).
    seq, labels = page.evaluate(
        """() => [document.body.dataset.seq, [...document.querySelectorAll('#table .seat')]
              .map((e) => e.getAttribute('aria-label'))]"""
    )
    if seq == shot["seq"] and view["phase"] != "lobby":
        for seat, label in zip(view["seats"], labels, strict=True):
            count = seat["cards"]
            assert f"{count} card{'' if count == 1 else 's'}," in f"{label},", label
    if view["you"] not in (view["turn"] or []) or not view["legal"]:
        return
    wide = (page.viewport_size or {}).get("width", 0) >= 960
    want = wanted(view, wide)
    if shot.get("held") and "cards" in want:
        # The last trick is still shown: the cards come alive once it has gone (the
        # next step checks them then); until then the hand itself must be in sight.
        want["cards"] = "#hand button[data-card]"
    report = page.evaluate(NEEDED, want)
    scroll = report.pop("scroll")
    assert scroll[0] <= scroll[1], scroll
    off = {name: bad for name, bad in report.items() if bad}
    if off:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        size = page.viewport_size or {}
        page.screenshot(path=str(SCREENSHOTS / f"failed-{view['variant']}-{size.get('width')}.png"))
    assert not off, (view["phase"], view["legal"][:3], off)


@pytest.mark.parametrize("size", ["laptop", "phone"])
@pytest.mark.parametrize("variant", GAMES)
def test_a_whole_hand_by_clicks_and_taps_with_all_one_needs_on_screen(
    variant: str, size: str, server_factory: ServerFactory, pages: PageFactory
) -> None:
    server = server_factory()
    phone = size == "phone"
    page = open_phone(pages) if phone else pages(viewport=LAPTOP)
    quick(page)
    table = Table(page)
    create_room(page, server, variant, target=5)
    sit(page, LONG[0], 0)
    # "Start the game" is on the first screen once the bots are in.
    # The lobby's buttons are on the first screen, before any scrolling.
    report = page.evaluate(NEEDED, {"fill": 'button[data-action="fill_bots"]'})
    assert report["fill"] == [] and page.evaluate("window.scrollY") == 0, report
    press = page.tap if phone else page.click
    prefix = f"{'phone' if phone else 'desktop'}-{variant}"
    press('button[data-action="fill_bots"]')
    page.wait_for_selector('button[data-action="start"]')
    screenshot(page, f"{prefix}-lobby")
    report = page.evaluate(NEEDED, {"start": 'button[data-action="start"]'})
    assert report["start"] == [], report
    press('button[data-action="start"]')
    page.wait_for_selector("body[data-phase]:not([data-phase='lobby'])")
    taken: set[str] = set()

    def check_and_shoot(table: Table, shot: dict[str, Any], view: dict[str, Any]) -> None:
        check_in_view(table, shot, view)
        # docs/screenshots: every phase of every game, once, at the player's own turn.
        phase = view["phase"]
        if view["you"] in (view["turn"] or []) and view["legal"] and phase not in taken:
            taken.add(phase)  # as the player sees it: not scrolled by the camera
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"{prefix}-{phase}.png"))

    drive(table, hand_scored, hook=check_and_shoot, touch=phone)
    width = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], width
    page.wait_for_selector("#hand-summary")
    screenshot(page, f"{prefix}-hand-summary", at="#hand-summary")


FOCUSED = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return { where: 'body' };
  const where = e.closest('#hand') ? 'hand' : e.closest('#actions') ? 'actions' : e.id || e.tagName;
  return { where, id: e.id, ...e.dataset, disabled: !!e.disabled,
           label: e.getAttribute('aria-label') };
}"""


def focused(page: Any) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(FOCUSED)
    return found


def until(page: Any, script: str, timeout: float = 15) -> None:
    """Wait until `script` (a JS function) returns true. Polled from here: the page's
    Content-Security-Policy forbids the eval that `wait_for_function` polls with."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(script):
        assert time.monotonic() < deadline, f"never true: {script}"
        page.wait_for_timeout(30)


def wait_focus(page: Any, test: str) -> None:
    """Wait until the focus is where `test` (a JS expression on `e`) says."""
    until(page, f"() => {{ const e = document.activeElement; return !!e && ({test}); }}")


def arrow_to(page: Any, matches: Any, limit: int = 40) -> None:
    """Move the focus with → until `matches(focused)`; never with Tab."""
    for _ in range(limit):
        here = focused(page)
        if matches(here):
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"the arrow keys never reached it (at {focused(page)})")


def keyboard_move(table: Table, view: dict[str, Any]) -> int:
    """Make this turn's move with the keys alone, starting where the page put the focus;
    the number of Tab presses it took (none but the one from the hand to a discard
    picked short of its maximum, the next thing there is to do)."""
    page = table.page
    legal = view["legal"]
    kinds = {a["type"] for a in legal}
    tabs = 0
    if "play" in kinds or "discard" in kinds:
        here = focused(page)
        assert here["where"] == "hand" and "card" in here, (view["phase"], here)
    else:
        here = focused(page)
        assert here["where"] == "actions" and here.get("action") in kinds, (view["phase"], here)
    if "bid" in kinds or "pass" in kinds:
        bids = sorted(a["amount"] for a in legal if a["type"] == "bid")
        if bids:
            arrow_to(page, lambda f: f.get("action") == "bid" and f.get("amount") == str(bids[0]))
        else:
            arrow_to(page, lambda f: f.get("action") == "pass")
        page.keyboard.press("Enter")
    elif "trump" in kinds:
        suit = next(a["suit"] for a in legal if a["type"] == "trump")
        arrow_to(page, lambda f: f.get("action") == "trump" and f.get("suit") == suit)
        page.keyboard.press("Enter")
    elif "discard" in kinds:
        template = next(a for a in legal if a["type"] == "discard")
        count = max(template["min"], min(1, template["max"]))
        for card in template["from"][:count]:
            arrow_to(page, lambda f, card=card: f.get("card") == card)
            page.keyboard.press("Space")
            page.wait_for_selector(f'#hand button[data-card="{card}"][aria-pressed="true"]')
        if count < template["max"] or count == 0:
            page.keyboard.press("Shift+Tab")
            tabs += 1
        here = focused(page)
        assert here.get("action") == "discard" and not here["disabled"], here
        page.keyboard.press("Enter")
    elif "play" in kinds:
        card = next(a["card"] for a in legal if a["type"] == "play")
        arrow_to(page, lambda f: f.get("card") == card)
        page.keyboard.press("Enter")
    return tabs


def test_6_a_whole_hand_of_wisconsin_smear_with_the_keyboard_alone(
    server_factory: ServerFactory, pages: PageFactory
) -> None:
    server = server_factory()
    page = pages(viewport=LAPTOP)
    quick(page)
    table = Table(page)
    create_room(page, server, "wisconsin4", target=5)
    # The name field waits with the focus; one Tab goes on to the first seat.
    wait_focus(page, "e.id === 'name'")
    page.keyboard.type("Ann")
    page.keyboard.press("Tab")
    assert focused(page).get("action") == "join" and focused(page).get("seat") == "0"
    page.keyboard.press("Enter")
    page.wait_for_selector('.seat.me[data-seat="0"]')
    # Joined: "Fill the rest with bots" is next, then "Start the game".
    wait_focus(page, "e.dataset.action === 'fill_bots'")
    page.keyboard.press("Enter")
    wait_focus(page, "e.dataset.action === 'start'")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-phase]:not([data-phase='lobby'])")
    tabs = 0
    moves = 0
    deadline = time.monotonic() + 120
    while True:
        shot, view = table.synced()
        if view["phase"] in ("hand_over", "game_over"):
            break
        assert time.monotonic() < deadline, view["phase"]
        mine = view["you"] in (view["turn"] or []) and view["legal"]
        if not mine:
            # While the others play the focus waits in the hand, never on <body>.
            assert focused(page)["where"] != "body", view["phase"]
            page.wait_for_timeout(30)
            continue
        if shot["held"]:
            # The turn begins once the last trick has left the table (the cards come
            # alive then, and the focus goes to the first one of them).
            page.wait_for_selector(".trick-note", state="detached")
            continue
        check_in_view(table, shot, view)
        tabs += keyboard_move(table, view)
        moves += 1
        answered(table, shot["seq"], view)
    assert moves >= 7  # a bid, then six cards at least
    # The two jokers are two cards, and say which.
    names = page.evaluate(
        "async () => { const c = await import('/static/cards.js');"
        " return [c.cardName('X1'), c.cardName('X2')]; }"
    )
    assert names == ["Joker 1", "Joker 2"], names
    assert tabs <= 1, tabs


def keyboard_on(page: Any, selector: str, same: bool) -> None:
    """Wait until the keyboard is on `selector`: the very element marked by `mark_focus`
    if `same`, else any (a control drawn anew in its place)."""
    marked = " && e.dataset.before === 'yes'" if same else ""
    until(
        page,
        "() => { const e = document.activeElement;"
        f" return !!e && e.matches({json.dumps(selector)}){marked}; }}",
    )


def mark_focus(page: Any, selector: str) -> None:
    """Put the keyboard on `selector`, marked: a control drawn anew has no mark."""
    page.focus(selector)
    page.evaluate("document.activeElement.dataset.before = 'yes'")


def frames_pass(page: Any, count: int, work: Any) -> None:
    """Run `work` (over the wire) and wait until the page has drawn `count` newer states."""
    seq = int(page.get_attribute("body", "data-seq") or "0")
    in_thread(work)
    until(page, f"() => Number(document.body.dataset.seq) >= {seq + count}")


def test_9_a_redraw_leaves_the_keyboard_and_the_scroll_where_the_player_left_them(
    server_factory: ServerFactory, pages: PageFactory
) -> None:
    # Every change of the room draws the table again: somebody sitting down, a bot's
    # move, a player connecting. What the player was doing elsewhere on the page stays:
    # the keyboard on a bot's level in the lobby, on the last hand's summary or on the
    # score sheet (scrolled sideways when it is wider than the screen).
    server = server_factory(hand_pause=600)

    async def seat_two() -> tuple[str, dict[int, str]]:
        code = await server.create_room("schmier5", {"target": 21})
        return code, {seat: (await server.join(code, LONG[seat], seat))[1] for seat in (0, 1)}

    code, tokens = in_thread(seat_two)
    page = open_phone(pages)
    page.goto(f"{server.base_url}/r/{code}#seat={tokens[0]}")
    page.wait_for_selector('.seat.me[data-seat="0"]')

    async def bob_adds_a_bot() -> None:
        bob = await Client.seated(server, code, tokens[1])
        await bob.send({"type": "add_bot", "seat": 2})
        await bob.wait_state(lambda v: v["seats"][2]["kind"] == "bot")
        await bob.close()

    # In the lobby: Ann's keyboard is on the level of seat 4's bot when Bob adds one.
    page.focus('select.bot-level[data-seat="3"]')
    frames_pass(page, 1, bob_adds_a_bot)
    page.wait_for_selector('.lobby-seat[data-seat="2"]:has-text("Bot 3")')
    keyboard_on(page, 'select.bot-level[data-seat="3"]', same=False)

    async def play_a_hand() -> None:
        clients = {s: await Client.seated(server, code, tok) for s, tok in tokens.items()}
        for seat in (3, 4):
            await clients[1].send({"type": "add_bot", "seat": seat})
        await clients[1].wait_state(lambda v: {"type": "start"} in v["legal"])
        await clients[1].send({"type": "start"})
        rng = random.Random(9)
        scored = ("hand_over", "game_over")
        await asyncio.gather(
            *(Player(c, rng).play_until(lambda v: v["phase"] in scored) for c in clients.values())
        )
        for client in clients.values():
            await client.close()

    in_thread(play_a_hand)
    page.wait_for_selector("body[data-phase='hand_over'] #hand-summary[open]")
    # The row is numbered once the list of the room's hands has come (a row changed: the
    # sheet is drawn again); on a loaded machine that came after the mark below.
    until(
        page,
        "() => [...document.querySelectorAll('#sheet-wrap tbody tr td:first-child')]"
        ".some((td) => td.textContent !== '' && td.textContent !== '…')",
    )
    # The sheet (a region the keyboard scrolls) stays the element it was; the keyboard is
    # on the summary's fold.
    page.evaluate("document.getElementById('sheet-wrap').dataset.before = 'yes'")
    mark_focus(page, "#hand-summary > summary")

    async def bob_comes_and_goes() -> None:
        for _ in range(2):
            bob = await Client.seated(server, code, tokens[1])
            await bob.close()

    # Bob connects and leaves twice: four new states, the page drawn again each time.
    frames_pass(page, 4, bob_comes_and_goes)
    keyboard_on(page, "#hand-summary > summary", same=True)
    assert page.get_attribute("#sheet-wrap", "data-before") == "yes"
    # A point's name (a term with its explanation) in the tally, drawn again at every
    # card played, keeps the keyboard, and in its own panel: the summary above it holds
    # a term of the same name.
    moved = page.evaluate(
        """async () => {
          const { fill, h, keepFocus } = await import('/static/dom.js');
          const { pointTerm } = await import('/static/terms.js');
          const side = document.querySelector('aside.side');
          const tally = side.appendChild(h('section', { id: 'test-tally' }, pointTerm('high')));
          document.querySelector('#hand-summary').append(pointTerm('high'));
          tally.querySelector('[data-term]').focus();
          keepFocus(() => fill(tally, pointTerm('high')));
          const e = document.activeElement;
          const kept = e.dataset.term === 'high' && e.isConnected && tally.contains(e);
          tally.remove();
          return kept;
        }"""
    )
    assert moved
