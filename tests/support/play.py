"""Playing at a table in the browser, for the browser tests: make a room, sit, let the
page's clicks (or keys) drive the game, and hold every step against the state frame the
page received (`check_contract`): the hand on screen is the view's hand, the enabled
cards are the legal ones, the enabled action buttons exactly the legal actions.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tests.support.browsers import Table, screenshot
from tests.support.servers import RunningServer

if TYPE_CHECKING:
    from playwright.sync_api import Page

PROTOCOL_ACTIONS = {"bid", "pass", "trump", "call", "add_bot", "remove_bot", "start", "rematch"}
RANKS = {
    "A": "Ace",
    "K": "King",
    "Q": "Queen",
    "J": "Jack",
    "T": "Ten",
    "9": "Nine",
    "8": "Eight",
    "7": "Seven",
    "6": "Six",
    "5": "Five",
    "4": "Four",
    "3": "Three",
    "2": "Two",
}
SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


SEEN_PART = """(el) => {
  const r = el.getBoundingClientRect();
  const next = el.nextElementSibling;
  let right = r.right;
  if (next) {
    const n = next.getBoundingClientRect();
    if (n.left > r.left && n.top < r.bottom && n.bottom > r.top) right = Math.min(right, n.left);
  }
  return { x: (right - r.left) / 2, y: r.height / 2 };
}"""
"""Where a finger or a mouse meets a card of a fanned hand: the middle of the part its
right-hand neighbour leaves uncovered. The middle of its box lay a pixel from that
neighbour's edge on a phone held sideways, and a tap there (while the card picked
before it rose) picked the neighbour instead."""


def press_card(page: Page, selector: str, *, touch: bool = False) -> None:
    """Click (or tap) a card of the hand where it shows (`SEEN_PART`)."""
    spot = page.locator(selector).evaluate(SEEN_PART)
    if touch:
        page.tap(selector, position=spot)
    else:
        page.click(selector, position=spot)


def create_room(page: Page, server: RunningServer, variant: str, target: int = 5) -> str:
    """Create a room through the home page's form; the room's code."""
    page.goto(server.base_url + "/")
    page.check(f'input[name="variant"][value="{variant}"]')
    page.fill("#target", str(target))
    page.click('button[data-action="create"]')
    page.wait_for_url(re.compile(r"/r/[^/]+$"))
    page.wait_for_selector("body[data-seq]")
    return page.url.rsplit("/r/", 1)[1]


def sit(page: Page, name: str, seat: int) -> None:
    """Type a name, take a seat, and wait until the page shows us seated there."""
    page.fill("#name", name)
    page.click(f'button[data-action="join"][data-seat="{seat}"]')
    page.wait_for_selector(f'.seat.me[data-seat="{seat}"]')


def fill_and_start(page: Page) -> None:
    """Fill every empty seat with a bot, then start."""
    page.click('button[data-action="fill_bots"]')
    page.click('button[data-action="start"]')
    page.wait_for_selector("body[data-phase]:not([data-phase='lobby'])")


def action_key(entry: dict[str, Any]) -> tuple[str, str, str, str, str]:
    """A legal action and a button's data attributes, made comparable."""
    kind = entry.get("type") or entry.get("action") or ""

    def text(name: str) -> str:
        value = entry.get(name)
        return "" if value is None else str(value)

    return (kind, text("amount"), text("suit"), text("card"), text("seat"))


TWO_JOKERS = {"wisconsin4"}
"""The games whose deck has two jokers, "Joker 1" (`X1`) and "Joker 2" (`X2`)."""


def card_name(card: str, variant: str | None = None) -> str:
    """The English accessible name the page must give a card (in `variant`'s deck)."""
    if card.startswith("X"):
        return f"Joker {card[1]}" if variant in TWO_JOKERS else "Joker"
    return f"{RANKS[card[0]]} of {SUITS[card[1]]}"


def check_contract(shot: dict[str, Any], view: dict[str, Any]) -> None:
    """What the page offers is exactly what the server's view allows, no more, no less."""
    hand = sorted(button["card"] for button in shot["hand"])
    assert hand == sorted(view["hand"]), (hand, view["hand"])
    for button in shot["hand"]:
        assert button["label"] == card_name(button["card"], view["variant"])
    seated = view["you"] is not None
    assert any(b.get("action") == "leave" for b in shot["actions"]) == seated
    legal = view["legal"]
    plays = {a["card"] for a in legal if a["type"] == "play"}
    discard = next((a for a in legal if a["type"] == "discard"), None)
    expected = plays or (set(discard["from"]) if discard else set())
    if plays and shot.get("held"):
        expected = set()  # the last trick is still on the table: nothing played blind
    enabled = {b["card"] for b in shot["hand"] if not b["disabled"]}
    assert enabled == expected, (view["phase"], enabled, expected)
    offered = {
        action_key(b)
        for b in shot["actions"]
        if b.get("action") in PROTOCOL_ACTIONS and not b["disabled"]
    }
    wanted = {action_key(a) for a in legal if a["type"] in PROTOCOL_ACTIONS}
    assert offered == wanted, (view["phase"], offered, wanted)
    discard_buttons = [b for b in shot["actions"] if b.get("action") == "discard"]
    assert len(discard_buttons) == (1 if discard else 0)


def act(table: Table, view: dict[str, Any], keyboard: bool = False, touch: bool = False) -> bool:
    """Make one move by clicking (or tapping, or Tab-free keyboard: focus, Enter); whether
    we moved."""
    page = table.page
    legal = view["legal"]

    def press(selector: str, card: bool = False) -> None:
        if keyboard:
            page.focus(selector)
            page.keyboard.press("Enter")
            return
        if card:
            press_card(page, selector, touch=touch)
        elif touch:
            page.tap(selector)
        else:
            page.click(selector)

    kinds = {a["type"] for a in legal}
    if "bid" in kinds or "pass" in kinds:
        bids = sorted(a["amount"] for a in legal if a["type"] == "bid")
        # The lowest bid makes this player the bidder often, so that the trump, discard
        # and call panels get clicked too.
        if bids:
            press(f'button[data-action="bid"][data-amount="{bids[0]}"]')
        else:
            press('button[data-action="pass"]')
    elif "trump" in kinds:
        suit = next(a["suit"] for a in legal if a["type"] == "trump")
        press(f'button[data-action="trump"][data-suit="{suit}"]')
    elif "discard" in kinds:
        template = next(a for a in legal if a["type"] == "discard")
        button = page.locator('button[data-action="discard"]')
        assert button.is_enabled() == (template["min"] == 0)
        count = max(template["min"], min(1, template["max"]))
        for card in template["from"][:count]:
            press(f'#hand button[data-card="{card}"]', card=True)
            assert page.get_attribute(f'#hand button[data-card="{card}"]', "aria-pressed") == "true"
        assert button.is_enabled()
        press('button[data-action="discard"]')
    elif "call" in kinds:
        cards = [a["card"] for a in legal if a["type"] == "call" and a["card"]]
        if cards:
            press(f'button[data-action="call"][data-card="{cards[0]}"]')
        else:
            press('button[data-action="call"]:not([data-card])')
    elif "play" in kinds:
        card = next(a["card"] for a in legal if a["type"] == "play")
        press(f'#hand button[data-card="{card}"]', card=True)
    else:
        return False
    return True


Hook = Callable[[Table, dict[str, Any], dict[str, Any]], None]


def hand_scored(view: dict[str, Any]) -> bool:
    """Whether the first hand (or the game) is over: a hand's end is known by its score
    (`last_hand`), since with no pause between hands (the test servers') the page is
    seldom shown `hand_over`, and a test that waited for it played on to the game's end."""
    return view["phase"] in ("hand_over", "game_over") or view["last_hand"] is not None


def drive(
    table: Table,
    done: Callable[[dict[str, Any]], bool],
    *,
    hook: Hook | None = None,
    limit: float = 300,
    keyboard: bool = False,
    touch: bool = False,
) -> dict[str, Any]:
    """Play by clicking until `done(view)`; every step is checked against its view.

    A step that changes nothing fails at once ("stuck"); `limit` only bounds a game
    that never ends. A whole game takes 17-55 s alone, but a long one on a CI machine
    loaded by the other workers once ran past 120 s while every step moved on.
    """
    deadline = time.monotonic() + limit
    while True:
        shot, view = table.synced()
        check_contract(shot, view)
        if hook:
            hook(table, shot, view)
        if done(view):
            return view
        assert time.monotonic() < deadline, f"no end in sight (phase {view['phase']})"
        if shot.get("held") and any(a["type"] == "play" for a in view["legal"]):
            # Our turn to play comes once the last trick has left the table.
            table.page.wait_for_selector(".trick-note", state="detached")
            continue
        acted = act(table, view, keyboard, touch)
        try:
            table.wait_change(shot["seq"])
            if acted:
                answered(table, shot["seq"], view)
        except Exception as exc:
            where = f"{view['phase']} (acted {acted}, legal {view['legal']})"
            raise AssertionError(f"stuck in {where}") from exc


def move_on(table: Table, shot: dict[str, Any], view: dict[str, Any], mine: bool) -> None:
    """Make our move if `mine` (`act`), then wait for the next state, and for the one
    that takes our move: the server may send states made before it came (the others
    discard at the same time), and acting on one of those again picked a card that our
    move was about to take away."""
    acted = act(table, view) if mine else False
    table.wait_change(shot["seq"])
    if acted:
        answered(table, shot["seq"], view)
    else:
        table.page.wait_for_timeout(20)


def answered(table: Table, seq: str | None, view: dict[str, Any], timeout: float = 15) -> None:
    """Wait until a state after `seq` takes our move: our `legal` (or hand, or phase) is
    not the one we acted on. A state that changes nothing of it (the commit the page
    sends for each new deck, a seat connecting) is not the answer, and acting on it again
    would click a button that our move is about to take away."""

    def mine(v: dict[str, Any]) -> tuple[Any, ...]:
        return (v["legal"], v["phase"], sorted(v["hand"]), (v.get("deal") or {}).get("commitment"))

    after = -1 if seq is None else int(seq)
    deadline = time.monotonic() + timeout
    while not any(n > after and mine(v) != mine(view) for n, v in list(table.views.items())):
        if time.monotonic() > deadline:
            raise AssertionError("the move was never answered")
        table.page.wait_for_timeout(30)


class Shots:
    """Takes each named screenshot once, the first time its moment comes."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.taken: set[str] = set()

    def __call__(self, table: Table, shot: dict[str, Any], view: dict[str, Any]) -> None:
        kinds = {a["type"] for a in view["legal"]}
        moment = None
        if "bid" in kinds:
            moment = "bidding"
        elif "play" in kinds and view["trick"]:
            moment = "play"
        elif view["last_hand"] and view["phase"] in ("hand_over", "game_over"):
            moment = "hand-summary"
        if moment and moment not in self.taken:
            self.taken.add(moment)
            at = "#hand-summary" if moment == "hand-summary" else None
            screenshot(table.page, f"{self.prefix}-{moment}", at=at)


def check_fits(page: Page) -> None:
    """No sideways scrolling, and every visible control lies within the screen's width."""
    report = page.evaluate(
        """() => {
          const width = window.innerWidth;
          const outside = [...document.querySelectorAll('button, input, select, a, summary')]
            .filter((e) => e.offsetParent !== null)
            .filter((e) => {
              const r = e.getBoundingClientRect();
              return r.left < -0.5 || r.right > width + 0.5;
            })
            .map((e) => e.outerHTML.slice(0, 80));
          return {
            scroll: document.documentElement.scrollWidth,
            width,
            outside,
          };
        }"""
    )
    assert report["scroll"] <= report["width"], report
    assert report["outside"] == [], report


def open_club_archived(page: Page, url: str, variant: str, player: str) -> None:
    """Open a club's page at `url` once its newest game is archived: the standings of
    `variant` list `player` and the archive lists a game. The game reaches the archive
    behind the table (the outbox), and the page shows what was archived when each of its
    panels loaded (the archive's list at once, the standings when a game is picked), so
    load it again until both have it."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.goto(url)
    deadline = time.monotonic() + 90
    while True:
        page.select_option("#standings-variant", variant)
        row = page.locator(f'.standings-table tr[data-player]:has-text("{player}")')
        try:
            row.wait_for(timeout=5000)
            page.locator("li.game").first.wait_for(timeout=5000)
            return
        except PlaywrightTimeout:
            assert time.monotonic() < deadline, "the game never reached the club's archive"
            page.reload()
